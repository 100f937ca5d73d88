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


def clip(text: str, width: int = 60) -> str:
    """`text`, or its start and how long it was when longer than `width` (a refusal that quotes
    what a caller sent stays small whatever was sent)."""
    if len(text) <= width:
        return text
    return f"{text[:width]}… ({len(text)} characters)"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, pluralised: `plural(1, "example")` is "1 example", 2 "2 examples"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def split(line: str, environ=None) -> list[str]:
    """Split a command line like a POSIX shell (quotes and backslashes), without `shlex`;
    ValueError on an unclosed quote. With `environ`, `$NAME` and `${NAME}` outside single
    quotes expand from it as a shell would (unset: empty; a word that was only an unset
    variable disappears; a value is not split further); without it nothing expands."""
    expand = environ is not None and "$" in line
    if not expand and "'" not in line and '"' not in line and "\\" not in line:
        return [token for token in line.replace("\t", " ").replace("\n", " ").split(" ")
                if token]
    tokens: list[str] = []
    current: list[str] = []
    in_token = False   # a word has begun: a character, a quote (`''` is a word) or `$`
    literal = False    # the word has more than expansions (an unset `$X` alone is no word)
    quote = ""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if expand and c == "$" and quote != "'":
            name, i = _variable(line, i)
            if name is None:   # a lone `$` is itself
                current.append("$")
                in_token = literal = True
            else:
                current.append(environ.get(name, ""))
                in_token = True
                literal = literal or bool(quote)
            continue
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
            if in_token and (literal or any(current)):
                tokens.append("".join(current))
            current, in_token, literal = [], False, False
        elif c in "'\"":
            quote, in_token, literal = c, True, True
        elif c == "\\" and i + 1 < n:
            i += 1
            current.append(line[i])
            in_token = literal = True
        else:
            current.append(c)
            in_token = literal = True
        i += 1
    if quote:
        raise ValueError(f"unclosed {quote} quote")
    if in_token and (literal or any(current)):
        tokens.append("".join(current))
    return tokens


def _variable(line: str, i: int) -> tuple[str | None, int]:
    """The variable named at `line[i]` (a `$`) and the index after it; (None, i + 1) when no
    name follows."""
    n = len(line)
    if i + 1 < n and line[i + 1] == "{":
        end = line.find("}", i + 2)
        name = line[i + 2:end] if end > 0 else ""
        if name and (name[0].isalpha() or name[0] == "_") and name.replace("_", "a").isalnum():
            return name, end + 1
        return None, i + 1
    j = i + 1
    while j < n and (line[j].isalnum() or line[j] == "_") and line[j].isascii():
        j += 1
    if j == i + 1 or line[i + 1].isdigit():
        return None, i + 1
    return line[i + 1:j], j


MAX_WORD = 128
"""Longest word `nearest` looks at. Names, flags and tool names are far shorter (a tool name is
at most 40 characters), so a longer word has no near match; refusing it at once keeps the
cost of a refusal independent of what a caller sends (a 1 MB tool name, a 128 KiB flag)."""


def distance(a: str, b: str, limit: int | None = None) -> int:
    """Edit distance with transpositions (optimal string alignment): `--targt` is 1 from `--target`.

    With `limit`, only a band of `2 * limit + 1` cells per row is computed and the work stops
    as soon as a whole row exceeds it: any distance above `limit` is reported as `limit + 1`.
    """
    if limit is None:
        limit = max(len(a), len(b))
    over = limit + 1
    if abs(len(a) - len(b)) > limit:
        return over
    width = len(b)
    previous2, previous = None, [j if j <= limit else over for j in range(width + 1)]
    for i, ca in enumerate(a, 1):
        current = [over] * (width + 1)
        if i <= limit:
            current[0] = i
        smallest = current[0]
        for j in range(max(1, i - limit), min(width, i + limit) + 1):
            cb = b[j - 1]
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if previous2 is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value = min(value, over)
            smallest = min(smallest, value)
        if smallest > limit:        # rows never get smaller: nothing below the limit is left
            return over
        previous2, previous = previous, current
    return previous[-1]


def _letters_apart(a: str, b: str) -> int:
    """A cheap lower bound of `distance` (linear): letters one word has and the other lacks.

    Every edit fixes at most one missing and one extra letter, and a transposition none, so
    the distance is at least the larger count; it also covers the difference in length.
    """
    counts: dict = {}
    for char in a:
        counts[char] = counts.get(char, 0) + 1
    for char in b:
        counts[char] = counts.get(char, 0) - 1
    extra = sum(count for count in counts.values() if count > 0)
    return max(extra, extra - len(a) + len(b))


def nearest(word: str, candidates, n: int = 3) -> list[str]:
    """Up to `n` candidates close to `word`, best first (prefix matches count).

    Close means an edit distance of at most a third of the longer word (at least 1);
    no `difflib`, whose import costs more than the rest of a refusal. Bounded: a word longer
    than `MAX_WORD` has no match, a candidate whose length alone rules it out is skipped, and
    the distance is banded at the limit, so a refusal costs microseconds whatever was sent.
    """
    if len(word) > MAX_WORD:
        return []
    scored = []
    for position, candidate in enumerate(dict.fromkeys(candidates)):
        limit = max(1, max(len(word), len(candidate)) // 3)
        d = distance(word, candidate, limit) if _letters_apart(word, candidate) <= limit \
            else limit + 1
        if d <= limit:
            scored.append((d, position, candidate))
        elif len(word) >= 2 and (candidate.startswith(word) or word.startswith(candidate)):
            scored.append((limit + 1, position, candidate))
    scored.sort()
    return [candidate for _, _, candidate in scored[:n]]


_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME = _NAME_START | frozenset("0123456789")
_SLOT = _NAME | frozenset("-., |:/")


def placeholder(value: str) -> str | None:
    """The template form `value` is written in, when it is a placeholder rather than a value:
    `<target>`, `$TOKEN`, `${TOKEN}`, `{{token}}`, `YOUR_TOKEN` (any case); else None.

    Only a whole value counts: `a <note>`, `<b>bold</b>`, `costs $5` are values."""
    if len(value) < 2 or len(value) > 64:
        return None
    if value.endswith(">...") and value.startswith("<"):   # a slot of many: `<lines>...`
        value = value[:-3]
    first, last = value[0], value[-1]
    if first == "<" and last == ">":
        inner = value[1:-1]
        return "<x>" if inner and inner[0] in _NAME_START and set(inner) <= _SLOT else None
    if first == "$":
        inner = value[2:-1] if value[1:2] == "{" and last == "}" else value[1:]
        return "$X" if inner and inner[0] in _NAME_START and set(inner) <= _NAME else None
    if value.startswith("{{") and value.endswith("}}"):
        inner = value[2:-2].strip()
        return "{{x}}" if inner and inner[0] in _NAME_START and set(inner) <= _NAME else None
    head = value[:5].upper()
    if head in ("YOUR_", "YOUR-") and len(value) > 5 and set(value[5:]) <= _NAME | {"-"}:
        return "YOUR_X"
    return None


_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7f, 0xa0))
             if code not in (0x09, 0x0a)}
_CONTROLS[0x0d] = "\\r"
_ESCAPES = str.maketrans(_CONTROLS)


def escape_controls(text: str) -> str:
    """`text` for a terminal: every control character but newline and tab written as a visible
    escape (`\\x1b`, `\\r`), so data can never move the cursor, retitle the window or ring."""
    return text.translate(_ESCAPES) if not text.isprintable() else text
