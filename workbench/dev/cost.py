"""What an agent pays: session cost per discovery path, from the program's real surfaces.

Four paths to the same commands:
- `mcp`: the tools/list result sits in context from the first turn; each call is a tool
  call (name + arguments as JSON) and its text result (the envelope).
- `cli`: the root `--help` from the first turn; a command's card (`CMD --help --json`) the
  first time it is used; each call is the command line with `--json` and its envelope.
- `search`: no listing up front; for each new command a `help search "<its description>"`
  call, its real result envelope and the top card; calls as for `cli`.
- `skills`: every skill's front matter (the index a client keeps) and the program's
  SKILL.md body from the first turn; the group's SKILL.md (large programs) and the card the
  first time a command is used; calls as for `cli`.

A session has `turns` turns, `calls` calls spread evenly over them and `distinct` commands,
each new command first used at one of the earliest calls. Whatever enters the context stays
there and is read again at every later turn (no prompt caching discount: this counts
tokens, not money), so a text added at turn `a` of `n` costs its tokens times `n - a + 1`.
Text common to every path (the user's words, the model's replies) is left out.

Envelopes are the examples' real `--json` output where the Diff pane has run them; other
commands count the smallest success envelope. An envelope is the same bytes over CLI and
MCP, so it moves every path alike and never a break-even point.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench._text import plural
from workbench.dev import tokens as _tokens
from workbench.dev.inputs import arguments_from_argv, example_argv
from workbench.dev.snapshot import slug
from workbench.runtime import envelope as _envelope
from workbench.runtime.builtins import search_envelope
from workbench.surfaces import _facts, skills
from workbench.surfaces.search import command_weights, index

if TYPE_CHECKING:
    from workbench.declaration.model import Command, Program
    from workbench.dev.records import Diff
    from workbench.dev.snapshot import Memo, Surface
    from workbench.dev.tokens import TokenTable

PATHS = ("mcp", "cli", "search", "skills")
TITLES = {"mcp": "MCP tools", "cli": "CLI help + cards", "search": "help search",
          "skills": "skills + cards"}


@dataclass(frozen=True)
class Shape:
    """A session: `turns` model turns, `calls` command calls, `distinct` commands used."""

    turns: int
    calls: int
    distinct: int

    def __post_init__(self) -> None:
        if self.turns < 1 or self.calls < 0 or not 0 <= self.distinct <= max(self.calls, 0):
            raise ValueError(f"a session needs turns >= 1 and 0 <= distinct <= calls; got "
                             f"{self.turns} turns, {self.calls} calls, {self.distinct} commands")

    @property
    def label(self) -> str:
        return (f"{plural(self.turns, 'turn')}, {plural(self.calls, 'call')}, "
                f"{plural(self.distinct, 'command')}")


SHAPES = {"short": Shape(5, 3, 1), "typical": Shape(20, 10, 3), "long": Shape(60, 40, 8)}
"""The shapes shown and budgeted by default; `session.<path>.<shape>` budgets name them."""


@dataclass(frozen=True)
class PathParts:
    """One path's measured texts: `fixed` tokens in context from turn 1, `first_use` tokens
    for each new command (mean over the listed commands), `per_call` tokens for each call
    (mean), and the largest parts by name (what dominates)."""

    fixed: int
    first_use: float
    per_call: float
    parts: tuple[tuple[str, int], ...] = ()   # ((label, tokens), ...), largest first
    complete: bool = True  # every surface it needs rendered


@dataclass(frozen=True)
class CostModel:
    """The measured parts of every path for one program and one encoding."""

    program: str
    encoding: str
    commands: int
    paths: dict[str, PathParts]
    envelopes_run: int = 0   # commands whose envelope is an example's real output
    envelopes: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # what it was measured with (`model`'s argument): two models compare when these match

    def session(self, path: str, shape: Shape) -> int:
        """Tokens read over a session of `shape` on `path` (no more distinct commands than
        the program lists)."""
        if shape.distinct > self.commands:
            shape = Shape(shape.turns, shape.calls, self.commands)
        return session_tokens(self.paths[path], shape)

    def table(self, shapes: dict[str, Shape] | None = None) -> dict[str, dict[str, int]]:
        """{shape name: {path: tokens}}."""
        shapes = SHAPES if shapes is None else shapes
        return {name: {path: self.session(path, shape) for path in self.paths}
                for name, shape in shapes.items()}

    def cheapest(self, shape: Shape | None = None) -> tuple[str | None, int | None]:
        """(path, tokens) of the cheapest complete path for `shape` (default: typical)."""
        shape = shape or SHAPES["typical"]
        found = [(self.session(path, shape), index, path)
                 for index, (path, parts) in enumerate(self.paths.items()) if parts.complete]
        if not found:
            return None, None
        tokens, _, path = min(found)
        return path, tokens

    def break_even(self, path: str, against: str = "mcp",
                   shape: Shape | None = None) -> int | None:
        """The fewest distinct commands (calls grown to match) at which `against` costs no
        more than `path` over `shape`'s turns; None when `path` stays cheaper up to every
        command of the program."""
        shape = shape or SHAPES["typical"]
        for distinct in range(1, max(self.commands, 1) + 1):
            grown = Shape(shape.turns, max(shape.calls, distinct), distinct)
            if self.session(against, grown) <= self.session(path, grown):
                return distinct
        return None

    def to_dict(self, shapes: dict[str, Shape] | None = None) -> dict[str, Any]:
        shapes = SHAPES if shapes is None else shapes
        table = self.table(shapes)
        return {"program": self.program, "encoding": self.encoding, "commands": self.commands,
                "envelopes_run": self.envelopes_run,
                "shapes": {name: {"turns": s.turns, "calls": s.calls, "distinct": s.distinct}
                           for name, s in shapes.items()},
                "sessions": table,
                "cheapest": {name: self.cheapest(s)[0] for name, s in shapes.items()},
                "break_even": {name: {path: self.break_even(path, "mcp", s)
                                      for path in self.paths if path != "mcp"}
                               for name, s in shapes.items()},
                "paths": {path: {"fixed": p.fixed, "first_use": round(p.first_use, 1),
                                 "per_call": round(p.per_call, 1), "complete": p.complete,
                                 "largest": [list(item) for item in p.parts[:3]]}
                          for path, p in self.paths.items()}}


def _call_turns(shape: Shape) -> list[int]:
    """The turn (1-based) of each call: spread evenly over the session."""
    return [index * shape.turns // shape.calls + 1 for index in range(shape.calls)]


def session_tokens(parts: PathParts, shape: Shape) -> int:
    """fixed x turns, plus each first use and each call times the turns it stays for."""
    stays = [shape.turns - turn + 1 for turn in _call_turns(shape)]
    total = parts.fixed * shape.turns + parts.first_use * sum(stays[:shape.distinct]) \
        + parts.per_call * sum(stays)
    return round(total)


# --- measuring ---------------------------------------------------------------------------

SEARCH_SAMPLES = 3
"""`help search` is measured on this many commands (first, middle, last listed)."""

def model(program: Program, surfaces: dict[str, Surface], *,
          envelopes: dict[str, str] | None = None, encoding: str = "cl100k",
          table: TokenTable | None = None, memo: Memo | None = None) -> CostModel:
    """Measure every path of `program` from its rendered `surfaces` (id -> Surface).

    `envelopes`: command path string -> an example's real `--json` output (the Diff
    pane's CLI side); `encoding`: "cl100k" or "o200k"; `memo`: the `snapshot.Memo` the
    surfaces were rendered with (a command's search terms are kept while it is unchanged)."""
    envelopes = envelopes or {}
    known = {}
    if table is not None and encoding == "cl100k":   # the Tokens table counted them already
        known = {surfaces[row.surface].text: row.tokens for row in table
                 if row.surface in surfaces}
    listed = _facts.listed_commands(program)
    offered = [c for c in listed if c.effects != "withheld"]
    count = _counter(encoding)

    def text(surface_id: str) -> str | None:
        surface = surfaces.get(surface_id)
        return None if surface is None or surface.error else surface.text

    tools = text("mcp/tools-list.json")
    root_help = text("help.txt")
    cards = [text(f"cards/{slug(c.path)}.json") for c in listed]
    skill_ids = sorted(sid for sid in surfaces if sid.startswith("skills/"))
    skill_texts = [text(sid) for sid in skill_ids]

    calls_cli: list[str] = []
    calls_mcp: list[str] = []
    run = 0
    for command in listed:
        line, arguments = _example(program, command,
                                   text(f"cards/{slug(command.path)}.json"))
        envelope = envelopes.get(" ".join(command.path))
        run += envelope is not None
        envelope = envelope if envelope is not None else _SMALLEST_ENVELOPE
        calls_cli.append(f"{line} --json\n{envelope}\n")
        if command.effects != "withheld":
            calls_mcp.append(json.dumps({"name": command.tool_name, "arguments": arguments},
                                        separators=(",", ":"), ensure_ascii=False)
                             + "\n" + envelope)
    searches = _search_texts(program, listed, memo)

    heads = [_front_matter(s) for s in skill_texts if s is not None]
    pieces = [tools or "", root_help or "", *[c or "" for c in cards],
              *[s or "" for s in skill_texts], *heads, *calls_cli, *calls_mcp, *searches]
    unknown = [piece for piece in dict.fromkeys(pieces) if piece not in known]
    counted = dict(known)
    counted.update(zip(unknown, count(unknown)))
    mean = _mean_of(counted)

    card_mean = mean([c for c in cards if c is not None])
    cli_call = mean(calls_cli)
    paths = {
        "mcp": PathParts(counted[tools or ""], 0.0, mean(calls_mcp),
                         (("tools/list", counted[tools or ""]),), tools is not None and bool(offered)),
        "cli": PathParts(counted[root_help or ""], card_mean, cli_call,
                         _largest([("--help", counted[root_help or ""]),
                                   ("cards (mean)", round(card_mean))]),
                         root_help is not None and None not in cards),
        "search": PathParts(0, mean(searches) + card_mean, cli_call,
                            _largest([("help search (mean)", round(mean(searches))),
                                      ("cards (mean)", round(card_mean))]),
                            bool(searches) and None not in cards),
    }
    skill_parts = _skill_parts(program, skill_ids, skill_texts, counted)
    paths["skills"] = PathParts(skill_parts[0], skill_parts[1] + card_mean, cli_call,
                                _largest(skill_parts[2] + [("cards (mean)", round(card_mean))]),
                                bool(skill_texts) and None not in skill_texts
                                and None not in cards)
    return CostModel(program.name, encoding, len(listed), paths, run, envelopes)


_SMALLEST_ENVELOPE = '{"ok":true,"data":null}'


def _counter(encoding: str) -> Callable[[Iterable[str]], list[int]]:
    if encoding == "cl100k":
        return _tokens.count_many
    if encoding == "o200k":
        return _tokens.count_many_o200k
    raise ValueError(f"encoding {encoding!r} is not cl100k or o200k")


def _mean_of(counted: dict[str, int]) -> Callable[[Iterable[str]], float]:
    def mean(texts: Iterable[str]) -> float:
        texts = list(texts)
        return sum(counted[t] for t in texts) / len(texts) if texts else 0.0
    return mean


def _largest(parts: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(parts, key=lambda item: -item[1]))


_example_cache: dict[tuple[str, tuple[str, ...], str | None], tuple[str, dict[str, Any]]] = {}


def _example(program: Program, command: Command,
             card: str | None) -> tuple[str, dict[str, Any]]:
    """(command line, MCP arguments) of the command's first example that parses, else of the
    bare command; cached by the command's card (which holds its examples and options)."""
    key = (program.name, command.path, card)
    found = _example_cache.get(key) if card is not None else None
    if found is None:
        found = _parse_example(program, command)
        if len(_example_cache) > 20_000:
            _example_cache.clear()
        if card is not None:
            _example_cache[key] = found
    return found


def _parse_example(program: Program, command: Command) -> tuple[str, dict[str, Any]]:
    for example in command.examples:
        argv = example_argv(program, example)
        try:
            _, arguments = arguments_from_argv(program, argv)
        except Exception:  # noqa: BLE001 - an example that does not parse is a lint problem
            continue
        return " ".join([program.name, *argv]), arguments
    return " ".join([program.name, *command.path]), {}


def _search_texts(program: Program, listed: list[Command],
                  memo: Memo | None = None) -> list[str]:
    """The call and the real result envelope of `help search` for a few commands (first,
    middle, last), each searched by its own description, on one shared index."""
    if not listed:
        return []
    entries = index(program, None if memo is None else (
        lambda command: memo.piece("search", command, lambda: command_weights(command))))
    out = []
    for at in sorted({0, len(listed) // 2, len(listed) - 1})[:SEARCH_SAMPLES]:
        words = listed[at].description or listed[at].name
        doc = _envelope.stamp(search_envelope(program, words, entries), program.schema_version)
        out.append(f"{program.name} help search {json.dumps(words)} --json\n"
                   f"{_envelope.encode(doc)}\n")
    return out


def _skill_parts(program: Program, skill_ids: list[str], skill_texts: list[str | None],
                 counted: dict[str, int]) -> tuple[int, float, list[tuple[str, int]]]:
    """(fixed, per new command, named parts) of the skills path: every front matter and the
    program's own body at once; a group's body per new command when the program is split."""
    main = f"skills/{skills.skill_name(program)}/SKILL.md"
    fixed, groups, parts = 0, [], []
    for sid, text in zip(skill_ids, skill_texts):
        if text is None:
            continue
        if sid == main:
            fixed += counted[text]
            parts.append(("SKILL.md", counted[text]))
        else:
            groups.append(counted[text])
            fixed += counted[_front_matter(text)]
    group_mean = sum(groups) / len(groups) if groups else 0.0
    if groups:
        parts.append(("group SKILL.md (mean)", round(group_mean)))
    return fixed, group_mean, parts


def _front_matter(text: str) -> str:
    """The `---` block a client keeps in context for a skill it has not opened."""
    end = text.find("\n---\n", 4) if text.startswith("---\n") else -1
    return text[:end + 5] if end != -1 else ""


# --- the workbench's view ----------------------------------------------------------------

def envelopes_from(diffs: Iterable[Diff] | None) -> dict[str, str]:
    """command -> the CLI side of its first example that ran (the Diff pane's runs)."""
    out = {}
    for diff in diffs or ():
        if diff.cli and diff.command not in out:
            out[diff.command] = diff.cli
    return out


def state_model(state: Any, diffs: Iterable[Diff] = (),
                encoding: str = "cl100k") -> CostModel | None:
    """The cost model of a workbench State (None before a program loads)."""
    if state is None or state.program is None:
        return None
    envelopes = envelopes_from(diffs) if diffs else None
    kept = getattr(state, "cost", None)
    if encoding == "cl100k" and kept is not None and (envelopes is None
                                                      or kept.envelopes == envelopes):
        return kept
    return model(state.program, state.surfaces, envelopes=envelopes, encoding=encoding)


def cheapest_path(state: Any, diffs: Iterable[Diff] = (),
                  shape: Shape | None = None) -> dict[str, Any] | None:
    """{"path", "title", "tokens", "shape"}: the cheapest complete path for the current state
    over a typical session (the header's figure), or None before a program loads."""
    found = state_model(state, diffs)
    if found is None:
        return None
    shape = shape or SHAPES["typical"]
    path, tokens = found.cheapest(shape)
    if path is None:
        return None
    return {"path": path, "title": TITLES[path], "tokens": tokens, "shape": shape.label}


def deltas(before: CostModel | None, after: CostModel,
           shapes: dict[str, Shape] | None = None) -> dict[str, dict[str, int]]:
    """{shape: {path: tokens after - before}}; empty on the first load."""
    if before is None:
        return {}
    old, new = before.table(shapes), after.table(shapes)
    return {name: {path: new[name][path] - old[name].get(path, 0) for path in new[name]}
            for name in new}


def path_words(path: str) -> str:
    """'an MCP tools session', 'a CLI help + cards session'."""
    return f"{'an' if path == 'mcp' else 'a'} {TITLES[path]} session"


def sentences(changes: dict[str, dict[str, int]],
              shapes: dict[str, Shape] | None = None) -> list[str]:
    """Deltas in words: 'this edit made an MCP session of 20 turns 1,900 tokens dearer'."""
    shapes = SHAPES if shapes is None else shapes
    out = []
    for name, row in changes.items():
        for path, change in row.items():
            if change:
                out.append(f"this edit made {path_words(path)} of {shapes[name].turns} "
                           f"turns {abs(change):,} tokens "
                           f"{'dearer' if change > 0 else 'cheaper'}")
    return out


# --- budgets -----------------------------------------------------------------------------

def session_budgets(budgets: dict[str, int | None]) -> dict[tuple[str, str], int]:
    """`session.<path>` (typical shape) and `session.<path>.<shape>` budgets, as
    {(path, shape name): tokens}; a key naming no path or shape raises ValueError."""
    out = {}
    for key, value in budgets.items():
        if not key.startswith("session.") or value is None:
            continue
        words = key.split(".")
        path = words[1] if len(words) > 1 else ""
        shape = words[2] if len(words) > 2 else "typical"
        if path not in PATHS or shape not in SHAPES or len(words) > 3:
            raise ValueError(f"budget {key!r}: use session.<path> or session.<path>.<shape>, "
                             f"path one of {', '.join(PATHS)}, shape one of "
                             f"{', '.join(SHAPES)}")
        out[(path, shape)] = value
    return out


def over_budget(found: CostModel, budgets: dict[str, int | None]) -> list[dict[str, Any]]:
    """[{"budget", "path", "shape", "tokens", "limit"}] for each session over its budget."""
    out = []
    for (path, shape), limit in session_budgets(budgets).items():
        tokens = found.session(path, SHAPES[shape])
        if tokens > limit:
            out.append({"budget": f"session.{path}.{shape}", "path": path, "shape": shape,
                        "session": SHAPES[shape].label, "tokens": tokens, "limit": limit})
    return out
