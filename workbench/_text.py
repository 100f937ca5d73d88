"""Small text helpers for command lines, kept free of `re`/`shlex` so start-up stays cheap."""

from __future__ import annotations

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                  "@%+=:,./-_<>$")


def quote(token: str) -> str:
    """Quote one argv token for a POSIX shell, only when it needs it.

    `<target>` placeholders and `$ENV` references stay bare so they read as slots.
    """
    if token and set(token) <= _SAFE and not (token.startswith("<") != token.endswith(">")):
        return token
    return "'" + token.replace("'", "'\"'\"'") + "'"


def join(argv) -> str:
    """A shell command line from argv tokens."""
    return " ".join(quote(token) for token in argv)


def split(line: str) -> list[str]:
    """Split a command line like a POSIX shell (quotes and backslashes), without `shlex`."""
    if "'" not in line and '"' not in line and "\\" not in line:
        return line.split()
    import shlex
    return shlex.split(line)


def distance(a: str, b: str) -> int:
    """Edit distance with transpositions (optimal string alignment): `--targt` is 1 from `--target`."""
    previous2, previous = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def nearest(word: str, candidates, n: int = 3) -> list[str]:
    """Up to `n` candidates close to `word`, best first (prefix matches count).

    Close means an edit distance of at most a third of the longer word (at least 1);
    no `difflib`, whose import costs more than the rest of a refusal.
    """
    scored = []
    for position, candidate in enumerate(dict.fromkeys(candidates)):
        limit = max(1, max(len(word), len(candidate)) // 3)
        d = distance(word, candidate)
        if d <= limit:
            scored.append((d, position, candidate))
        elif len(word) >= 2 and (candidate.startswith(word) or word.startswith(candidate)):
            scored.append((limit + 1, position, candidate))
    scored.sort()
    return [candidate for _, _, candidate in scored[:n]]
