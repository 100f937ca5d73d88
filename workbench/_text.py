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


def nearest(word: str, candidates, n: int = 3) -> list[str]:
    """Up to `n` candidates close to `word`, best first (prefix matches count)."""
    candidates = list(dict.fromkeys(candidates))
    import difflib
    found = difflib.get_close_matches(word, candidates, n=n, cutoff=0.6)
    for candidate in candidates:
        if len(found) >= n:
            break
        if candidate not in found and len(word) >= 2 and (
                candidate.startswith(word) or word.startswith(candidate)):
            found.append(candidate)
    return found
