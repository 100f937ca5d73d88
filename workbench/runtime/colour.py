"""Colour for a person at a terminal, never for an agent or a pipe.

`enabled` is the one rule (`--no-color`, `NO_COLOR`, `FORCE_COLOR`, `TERM=dumb`, a terminal,
an agent); the painters add ANSI styles through Rich's `Style` (the `people` extra), imported
only once colour is on. Without Rich installed, text stays plain: colour is never worth a failure.
"""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Mapping

_PREFIXES = (("error:", "bold red"), ("hint:", "yellow"), ("next:", "cyan"),
             ("warning:", "yellow"), ("action required:", "bold yellow"))


def enabled(environ: Mapping[str, str], is_terminal: bool, asked_off: bool,
            agent: str | None) -> bool:
    """Whether a stream gets colour: never with `--no-color` (`asked_off`) or `NO_COLOR` (any
    value), nor for an agent or `TERM=dumb`; always with `FORCE_COLOR` (not empty, not `0`);
    else only on a terminal."""
    if asked_off or environ.get("NO_COLOR") or agent is not None:
        return False
    force = environ.get("FORCE_COLOR")
    if force and force != "0":
        return True
    return is_terminal and environ.get("TERM") != "dumb"


def _styles():
    try:
        from rich.color import ColorSystem
        from rich.style import Style
    except ImportError:   # the `people` extra is not installed: plain text
        return None
    return lambda text, spec: Style.parse(spec).render(text, color_system=ColorSystem.STANDARD)


def problems(text: str) -> str:
    """stderr lines for a person with their `error:`/`hint:`/`next:`/`warning:` prefix
    coloured."""
    paint = _styles()
    if paint is None:
        return text
    out = []
    for line in text.split("\n"):
        for prefix, spec in _PREFIXES:
            if line.startswith(prefix):
                line = paint(prefix, spec) + line[len(prefix):]
                break
        out.append(line)
    return "\n".join(out)


def header(text: str) -> str:
    """A table with its first line (the column names) in bold."""
    paint = _styles()
    if paint is None or not text:
        return text
    first, newline, rest = text.partition("\n")
    return paint(first, "bold") + newline + rest


_MARKERS = {"Read-only": "green", "Writes": "yellow", "Destructive": "bold red"}
"""A person's help names a command's effects with these (`surfaces.help._effect_marker`)."""


def help_text(text: str) -> str:
    """Help with its section headings (`Usage:`, `Options:`, ... at the margin) in bold, its
    effects marker (read-only, writes, destructive) in its colour and the flags of its option
    rows in cyan."""
    paint = _styles()
    if paint is None:
        return text
    out = []
    for line in text.split("\n"):
        if line[:1].isalpha() and ":" in line:
            head, colon, rest = line.partition(":")
            if head in _MARKERS:
                line = paint(head + colon, _MARKERS[head]) + rest
            elif " " not in head.strip() or head in ("Exit codes", "Built-in commands"):
                line = paint(head + colon, "bold") + rest
        elif line.startswith("  -"):
            label, gap, rest = line[2:].partition("  ")
            line = "  " + paint(label, "cyan") + gap + rest
        out.append(line)
    return "\n".join(out)


def bar(line: str) -> str:
    """A progress bar's line (`[███░░░] 3/10 ...`) with its filled cells in green and its
    empty ones dim."""
    paint = _styles()
    if paint is None or not line.startswith("["):
        return line
    cells, close, rest = line[1:].partition("]")
    filled = len(cells) - len(cells.lstrip("\u2588"))
    return ("[" + (paint(cells[:filled], "green") if filled else "")
            + (paint(cells[filled:], "dim") if cells[filled:] else "") + close + rest)
