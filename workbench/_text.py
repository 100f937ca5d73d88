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
    """Split a command line like a POSIX shell (quotes and backslashes, no expansion), without
    `shlex`; ValueError on an unclosed quote."""
    tokens: list[str] = []
    current: list[str] = []
    in_token = False
    quote = ""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                current.append(c)
        elif quote == '"':
            if c == '"':
                quote = ""
            elif c == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                i += 1
                current.append(line[i])
            else:
                current.append(c)
        elif c in " \t\n":
            if in_token:
                tokens.append("".join(current))
                current, in_token = [], False
        elif c in "'\"":
            quote, in_token = c, True
        elif c == "\\" and i + 1 < n:
            i += 1
            current.append(line[i])
            in_token = True
        else:
            current.append(c)
            in_token = True
        i += 1
    if quote:
        raise ValueError(f"unclosed {quote} quote")
    if in_token:
        tokens.append("".join(current))
    return tokens


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
