"""Every surface of a program, rendered once into plain data, and the snapshot folder.

A `Surface` holds exactly the text a caller reads (compact JSON for JSON surfaces, as it goes
over the wire) and its id, which is also its file in a snapshot folder, e.g. `help.txt`,
`help/pr-merge.txt`, `cards/pr-merge.json`, `mcp/tools/pr_merge.json`. The workbench only
calls the surface functions; it never computes a surface itself. A `Memo` of the previous
render lets a reload call them only for what the edit changed.

The snapshot folder (default `.burgee/snapshots/<program>/` beside FILE) holds one readable
file per surface plus `META_FILES`: `snapshot_folder` says where, `files_for` what goes in
it, `read_tree` and `write_tree` read and write it (`headless`, the change review, replays).
"""

from __future__ import annotations

import collections
import difflib
import itertools
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from workbench.declaration.model import Group
from workbench.dev.files import installed
from workbench.dev.records import Surface
from workbench.runtime.envelope import encode
from workbench.surfaces import _keys, cards, clients, completion, schema, skills
from workbench.surfaces import help as help_surface
from workbench.surfaces import tools as tool_surface

if TYPE_CHECKING:
    from workbench.declaration.model import Command, Program
    from workbench.dev.records import Diff, Problem
    from workbench.dev.tokens import TokenTable

    Node = Command | Group

HELP_LEVELS = ("names", "summary", "card")
SHELLS = ("bash", "zsh", "fish")
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini")


def _compact(doc: Any) -> str:
    return encode(doc)


def slug(path: Iterable[str] | None) -> str:
    """A command path as it appears in surface ids (`pr-merge`; `_program` for none)."""
    return "-".join(path) if path else "_program"


def render(program: Program, memo: Memo | None = None) -> dict[str, Surface]:
    """id -> Surface for every surface of `program`, in a stable order.

    A surface function that raises yields a Surface with `error` set (and the traceback as
    text), so one broken surface never hides the others. With `memo` (a `Memo` of the
    previous render), what one command or group shows is taken from it when the node's
    dependency key is unchanged, and program-wide surfaces are put together from those
    pieces; the result is the same as without it.
    """
    return _Render(program, memo if memo is not None else Memo()).surfaces()


_MISSING = object()


class Memo:
    """Pieces one render made, by the dependency key of the command or group they show
    (`workbench.surfaces._keys`), for the next render to reuse.

        memo = Memo(previous)        # previous: the Memo of the last render, or None
        render(program, memo)        # fills memo; lint and cost read it too
        memo.finish()                # forget `previous`; keep memo for the next render

    A key becomes a small number (its ident), the same number for an equal key in the next
    generation, so lookups hash ints. Only pieces this generation used are kept: at most two
    generations are alive, and none after `finish()` but this one. `made` counts the pieces
    computed (not reused) by kind.
    """

    def __init__(self, previous: Memo | None = None) -> None:
        self._old_idents: dict[Any, int] = previous._idents if previous is not None else {}
        self._old: dict[tuple[Any, ...], Any] = previous._pieces if previous is not None else {}
        self._count: Iterator[int] = previous._count if previous is not None \
            else itertools.count()
        self._idents: dict[Any, int] = {}              # key -> ident
        self._pieces: dict[tuple[Any, ...], Any] = {}  # (kind, ident, *extra) -> piece
        self._nodes: dict[int, tuple[Node, int]] = {}  # id(node) -> (node, ident), bound
        self.program: Program | None = None
        self.made: collections.Counter[str] = collections.Counter()

    def bind(self, program: Program) -> None:
        """Key every group and command of `program` (a group's key holds its children's)."""
        if self.program is program:
            return
        self.program, self._nodes = program, {}
        head = _keys.program_part(program)

        def visit(node: Node) -> int:
            children = tuple(map(visit, node.commands)) if isinstance(node, Group) else ()
            key = _keys.node_key(node, head, children)
            ident = self._idents.get(key)
            if ident is None:
                ident = self._old_idents.get(key)
                self._idents[key] = ident = next(self._count) if ident is None else ident
            self._nodes[id(node)] = (node, ident)
            return ident

        for child in program.commands:
            visit(child)

    def piece(self, kind: str, node: Node, make: Callable[[], Any], *extra: Any) -> Any:
        """What `make()` returns for `node` (a command or group of the bound program), or
        what a render made for an equal node; `extra`: more of what the piece depends on.
        A `make()` that raises is not kept."""
        found = self._nodes.get(id(node))
        if found is None or found[0] is not node:
            self.made[kind] += 1
            return make()
        slot = (kind, found[1], *extra)
        piece = self._pieces.get(slot, _MISSING)
        if piece is _MISSING:
            piece = self._old.get(slot, _MISSING)
            if piece is _MISSING:
                piece = make()
                self.made[kind] += 1
            self._pieces[slot] = piece
        return piece

    def __len__(self) -> int:
        """How many pieces it keeps (this generation's)."""
        return len(self._pieces)

    def finish(self) -> None:
        """Forget the previous generation (this one's pieces stay for the next)."""
        self._old_idents, self._old = {}, {}


class _Render:
    """One render of a program: every surface, in order, per-node ones through the memo."""

    def __init__(self, program: Program, memo: Memo) -> None:
        self.program, self.memo = program, memo
        memo.bind(program)
        self.out: dict[str, Surface] = {}

    def add(self, surface: Surface) -> None:
        self.out[surface.id] = surface

    def surfaces(self) -> dict[str, Surface]:
        program, memo, add = self.program, self.memo, self.add
        add(_made("help.txt", "help", None, lambda: help_surface.render_help(program),
                  title="--help"))
        for node in nodes(program):
            add(memo.piece("help", node, partial(self.node_help, node)))
        for level in HELP_LEVELS:
            add(_made(f"help-json/{level}.json", "help_json", None,
                      partial(self.help_document, level), json_data=True,
                      title=f"help --json --level {level}"))

        commands = list(program.walk())
        for command in commands:
            add(self.card(command))
        add(_made("schema.json", "schema", None, lambda: schema.program_schema(program),
                  json_data=True, title="--schema"))
        for command in commands:
            add(memo.piece("schema", command, partial(self.command_schema, command)))
        self.tools()

        for relative, text in _skill_files(program, add):
            add(_made(f"skills/{relative}", "skill", _skill_group(program, relative),
                      partial(str, text), title=f"skills: {relative}"))
        add(_made("llms.txt", "llms", None, lambda: skills.llms_txt(program),
                  title="skills --llms"))

        made: list[Any] = []

        def contexts() -> Any:   # made once for the three shells; a failure shows in each
            if not made:
                made.append(completion.contexts(program, lambda node, path, make: memo.piece(
                    "completion", node, make, path)))
            return made[0]
        for shell in SHELLS:
            add(_made(f"completion/{shell}.{shell}", "completion", None,
                      partial(_completion, program, shell, contexts),
                      title=f"completion {shell}"))

        for client in CLIENTS:
            add(_made(f"config/{client}.txt", "config", None,
                      partial(_config, program, client), title=f"mcp config --client {client}"))
        return self.out

    def node_help(self, node: Node) -> Surface:
        """`tool GROUP --help` or `tool COMMAND --help`."""
        return _made(f"help/{slug(node.path)}.txt", "command_help", tuple(node.path),
                     partial(help_surface.render_help, self.program, node),
                     title=f"{' '.join(node.path)} --help")

    def command_schema(self, command: Command) -> Surface:
        """`tool COMMAND --schema`: its input schema."""
        return _made(f"schemas/{slug(command.path)}.json", "command_schema",
                     tuple(command.path), partial(schema.input_schema, command),
                     json_data=True, title=f"{' '.join(command.path)} --schema")

    def card(self, command: Command) -> Surface:
        """The card surface of `command` (its data is also its entry in help --json)."""
        surface: Surface = self.memo.piece("card", command, lambda: _made(
            f"cards/{slug(command.path)}.json", "card", tuple(command.path),
            lambda: cards.card(command), json_data=True,
            title=f"{' '.join(command.path)} --help --json"))
        return surface

    def help_document(self, level: str) -> _Encoded:
        """`help --json --level LEVEL`, its commands' entries (data and text) from the memo."""
        entries: list[str] = []   # the entries' compact texts, in the document's order

        def card_of(command: Command) -> Any:
            surface = self.card(command)
            if surface.error is not None:
                return cards.card(command)   # raises as it did for the card
            entries.append(surface.text)
            return surface.data

        def summary_of(command: Command) -> Any:
            entry = self.memo.piece("summary", command,
                                    lambda: _Encoded(_plain(cards.summary(command))))
            entries.append(entry.text)
            return entry.data

        doc = cards.help_document(self.program, level, card_of=card_of, summary_of=summary_of)
        # the entries are plain already: convert the rest, not the whole document again
        data = {key: value if key == "commands" else _plain(value) for key, value in doc.items()}
        return _Encoded(data, "commands", entries)

    def tools(self) -> None:
        """tools/list as a client receives it (the wire JSON of each Tool, validated by the
        MCP types), then one surface per tool; each tool is validated once per key."""
        program, memo = self.program, self.memo
        wire: list[tuple[Command, _Encoded]] = []

        def produce() -> _Encoded:
            import mcp_types   # pydantic: only where tools/list is rendered
            listed = tool_surface.listed(program)
            try:
                found = [memo.piece("tool", command, partial(_encoded_tool, command))
                         for command in listed]
            except Exception:  # noqa: BLE001 - raise what validating the whole list raises
                found = [_Encoded(tool) for tool in _wire_tools(
                    [_plain(tool_surface.tool_definition(command)) for command in listed])]
            data = mcp_types.ListToolsResult.model_validate({"tools": []}).model_dump(
                mode="json", by_alias=True, exclude_none=True)
            data["tools"] = [tool.data for tool in found]
            wire.extend(zip(listed, found))
            return _Encoded(data, "tools", [tool.text for tool in found])

        self.add(_made("mcp/tools-list.json", "tools_list", None, produce, json_data=True,
                       title="tools/list"))
        for command, tool in wire:
            name = tool.data["name"]
            owner = program.tool(name)
            path = tuple(owner.path) if owner is not None else None
            self.add(memo.piece("tool.json", command, partial(_tool, tool, name, path), path))


def _made(id: str, kind: str, command: tuple[str, ...] | None, produce: Callable[[], Any], *,
          json_data: bool = False, title: str = "") -> Surface:
    """The Surface `produce()` gives (JSON data made plain, unless it is `_Encoded`), or a
    Surface with `error` and the traceback when it raises."""
    try:
        value = produce()
    except Exception as exc:  # noqa: BLE001 - show it, keep going
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return Surface(id, kind, command, text, None, f"{type(exc).__name__}: {exc}", title)
    if json_data:
        if isinstance(value, _Encoded):
            return Surface(id, kind, command, value.text, value.data, None, title)
        data = json.loads(value) if isinstance(value, str) else _plain(value)
        return Surface(id, kind, command, _compact(data), data, None, title)
    return Surface(id, kind, command, value if isinstance(value, str) else str(value),
                   None, None, title)


class _Encoded:
    """Plain JSON data and its compact text. `_Encoded(data)` encodes it; `_Encoded(data,
    key, texts)` puts the text together from `texts`, the compact texts of the items of the
    list `data[key]` (pieces encoded once), which `_compact(data)` would give too."""

    __slots__ = ("data", "text")

    def __init__(self, data: Any, key: str | None = None,
                 texts: list[str] | None = None) -> None:
        self.data = data
        if key is None or texts is None or len(texts) != len(data[key]):
            self.text = _compact(data)
        else:
            self.text = "{" + ",".join(
                _compact(name) + ":" + ("[" + ",".join(texts) + "]" if name == key
                                        else _compact(value))
                for name, value in data.items()) + "}"


def _completion(program: Program, shell: str, contexts: Callable[[], Any]) -> str:
    completed: str = completion.completion_script(program, shell, contexts())
    return completed


def _config(program: Program, client: str) -> str:
    return _config_text(clients.client_config(program, client,
                                              command=portable_command(program)))


def _encoded_tool(command: Command) -> _Encoded:
    return _Encoded(_wire_tool(command))


def _tool(tool: _Encoded, name: str, path: tuple[str, ...] | None) -> Surface:
    """One tool of tools/list as its own surface (`mcp/tools/NAME.json`)."""
    return _made(f"mcp/tools/{name}.json", "tool", path, lambda: tool, json_data=True,
                 title=f"tool {name}")


def _wire_tool(command: Command) -> dict[str, Any]:
    """One tool as a client receives it in tools/list: validated and dumped by mcp_types."""
    tool: dict[str, Any] = _wire_tools([_plain(tool_surface.tool_definition(command))])[0]
    return tool


def _wire_tools(tools: list[Any]) -> list[dict[str, Any]]:
    import mcp_types   # pydantic: only where tools/list is rendered
    result = mcp_types.ListToolsResult.model_validate({"tools": tools})
    dumped: list[dict[str, Any]] = result.model_dump(mode="json", by_alias=True,
                                                     exclude_none=True)["tools"]
    return dumped


PYTHON = "<python>"
FILE = "<file>"


def portable_command(program: Program) -> list[str]:
    """The command that starts the program's MCP server, with this machine taken out: the
    interpreter becomes `<python>` and the program's file `<file>` (an installed console
    script keeps its name). Snapshots and token counts then read the same on every machine,
    in every folder and venv; `tool mcp config` itself still prints the real paths."""
    source = os.path.abspath(program.source) if program.source else None
    python = {sys.executable, os.path.realpath(sys.executable)}
    out = []
    for part in clients.server_command(program):
        if part in python:
            out.append(PYTHON)
        elif source is not None and os.path.abspath(part) == source:
            out.append(FILE)
        else:
            out.append(part)
    return out


def _skill_files(program: Program, add: Callable[[Surface], None]) -> list[tuple[str, str]]:
    """(relative path, text) of each SKILL.md; a failure shows as one broken surface."""
    try:
        return list(skills.skill_files(program).items())
    except Exception:  # noqa: BLE001 - shown as a broken surface, as every one is
        add(_made("skills/SKILL.md", "skill", None, lambda: skills.skill_files(program)))
        return []


def _skill_group(program: Program, relative: str) -> tuple[str, ...] | None:
    """The group path a per-group skill describes, or None for the program's own skill."""
    folder = relative.split("/")[0]
    for group in program.groups():
        if len(group.path) == 1 and skills.skill_name(program, group) == folder \
                and folder != skills.skill_name(program):
            return tuple(group.path)
    return None


def _config_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), ensure_ascii=False, indent=2)


def nodes(program: Program) -> Iterator[Node]:
    """Groups and commands, depth first, hidden ones included."""
    stack: list[Node] = list(reversed(program.commands))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Group):
            stack.extend(reversed(node.commands))


def _plain(value: Any) -> Any:
    """Pydantic models and tuples to plain JSON data."""
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Changes:
    """What one reload changed compared with the previous good program."""

    first: bool = False
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    surfaces_changed: tuple[str, ...] = ()
    tokens_before: int = 0
    tokens_after: int = 0
    error: str | None = None   # the load failed: the previous program is still served

    @property
    def tokens_delta(self) -> int:
        return self.tokens_after - self.tokens_before

    def summary(self) -> str:
        """A short notice, e.g. `+1 command, −40 tokens`."""
        if self.error:
            return f"load failed ({self.error}); still serving the last good program"
        if self.first:
            return f"loaded, {self.tokens_after} tokens"
        parts = []
        if self.added:
            parts.append(f"+{len(self.added)} command" + ("s" if len(self.added) > 1 else ""))
        if self.removed:
            parts.append(f"\u2212{len(self.removed)} command" + ("s" if len(self.removed) > 1 else ""))
        if self.changed:
            parts.append(f"{len(self.changed)} changed")
        delta = self.tokens_delta
        if delta:
            parts.append(("+" if delta > 0 else "\u2212") + f"{abs(delta)} tokens")
        return ", ".join(parts) or "no surface changed"

    def to_dict(self) -> dict[str, Any]:
        return {"first": self.first, "added": list(self.added), "removed": list(self.removed),
                "changed": list(self.changed), "surfaces_changed": list(self.surfaces_changed),
                "tokens_delta": self.tokens_delta, "error": self.error,
                "summary": self.summary()}


def compare(before: dict[str, Surface] | None, after: dict[str, Surface], tokens_before: int,
            tokens_after: int) -> Changes:
    """Commands added / removed / changed (any of their surfaces differ) between snapshots."""
    if before is None:
        return Changes(first=True, tokens_after=tokens_after)

    def by_command(surfaces: dict[str, Surface]) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        for surface in surfaces.values():
            if surface.kind in ("card", "command_schema", "tool") and surface.command:
                table.setdefault(" ".join(surface.command), []).append(surface.text)
        return table

    old, new = by_command(before), by_command(after)
    added = tuple(name for name in new if name not in old)
    removed = tuple(name for name in old if name not in new)
    changed = tuple(name for name in new if name in old and new[name] != old[name])
    surfaces_changed = tuple(sid for sid in set(before) | set(after)
                             if (before.get(sid) and before[sid].text) !=
                             (after.get(sid) and after[sid].text))
    return Changes(False, added, removed, changed, tuple(sorted(surfaces_changed)),
                   tokens_before, tokens_after)


# --- the snapshot folder -----------------------------------------------------------------

DEFAULT_FOLDER = os.path.join(".burgee", "snapshots")
"""The snapshot folder, relative to FILE's folder (one subfolder per program)."""
META_FILES = ("tokens.json", "problems.json", "diffs.json", "check.json")
"""Files of a snapshot folder that are not surfaces (the review leaves them out)."""


def snapshot_folder(file: str, program_name: str, snapshots: str | None = None) -> str:
    """`snapshots` (default `DEFAULT_FOLDER`; relative to FILE's folder) / the program's name.
    Never inside an installed package (the bundled sample): there, relative to the current
    folder."""
    base = snapshots or DEFAULT_FOLDER
    if not os.path.isabs(base):
        where = os.getcwd() if installed(file) else os.path.dirname(os.path.abspath(file))
        base = os.path.join(where, base)
    return os.path.join(base, program_name)


def files_for(surfaces: dict[str, Surface], tokens: TokenTable, problems: Iterable[Problem],
              diffs: Iterable[Diff]) -> dict[str, str]:
    """relative path -> text: every file the snapshot folder should hold."""
    files = {surface.id: surface.pretty() for surface in surfaces.values()}
    files["tokens.json"] = _pretty([{"surface": r.surface, "tokens": r.tokens, "chars": r.chars,
                                     "budget": r.budget, "unit": r.unit} for r in tokens])
    files["problems.json"] = _pretty([p.to_dict() for p in problems])
    files["diffs.json"] = _pretty([_diff_row(d) for d in diffs])
    return files


def _diff_row(diff: Diff) -> dict[str, Any]:
    """One example in `diffs.json`: its status and, when the CLI ran, its exit code (the
    change review compares it: `workbench.dev.changes`)."""
    row: dict[str, Any] = {"command": diff.command, "example": diff.example,
                           "status": _diff_status(diff)}
    if diff.cli_exit is not None:
        row["exit"] = diff.cli_exit
    return row


def _diff_status(diff: Diff) -> str:
    if diff.skipped:
        return "skipped: " + diff.skipped
    if diff.invalid_output:
        return "invalid_output"
    if diff.error:
        return "error"
    return "equal" if diff.equal else "differs"


def _pretty(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def read_tree(folder: str) -> dict[str, str | None]:
    """relative path -> text of every file under `folder` (None for one that cannot be read
    as UTF-8); {} when there is no such folder."""
    found: dict[str, str | None] = {}
    if not os.path.isdir(folder):
        return found
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            try:
                with open(path, encoding="utf-8") as handle:
                    found[rel] = handle.read()
            except (OSError, UnicodeDecodeError):
                found[rel] = None
    return found


def write_tree(folder: str, files: dict[str, str], existing: dict[str, str | None]) -> None:
    """Make `folder` hold exactly `files` (`existing`: what `read_tree` found there)."""
    for rel, text in files.items():
        path = os.path.join(folder, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if existing.get(rel) != text:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
    for rel in existing:
        if rel not in files:
            os.remove(os.path.join(folder, *rel.split("/")))
    for root, dirs, names in os.walk(folder, topdown=False):
        if root != folder and not dirs and not names:
            os.rmdir(root)


def short_diff(old: str, new: str, name: str, limit: int = 40) -> str:
    """A unified diff of one snapshot file, cut to `limit` lines."""
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{name}",
                                      f"b/{name}", lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)
