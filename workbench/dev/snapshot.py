"""Every surface of a program, rendered once into plain data.

A `Surface` holds exactly the text a caller reads (compact JSON for JSON surfaces, as it goes
over the wire) and its id, which is also its file in a snapshot folder, e.g. `help.txt`,
`help/pr-merge.txt`, `cards/pr-merge.json`, `mcp/tools/pr_merge.json`. The workbench only
calls the surface functions; it never computes a surface itself. A `Memo` of the previous
render lets a reload call them only for what the edit changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

HELP_LEVELS = ("names", "summary", "card")
SHELLS = ("bash", "zsh", "fish")
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini")


@dataclass(frozen=True, slots=True)
class Surface:
    """One rendered surface.

    id: stable name and snapshot path; kind: its budget kind (help, command_help, help_json,
    card, schema, command_schema, tool, tools_list, skill, llms, completion, config); command: the path of
    the command or group it describes, or None for the program; text: what the caller reads;
    data: the parsed JSON for JSON surfaces; error: set when rendering raised.
    """

    id: str
    kind: str
    command: tuple | None
    text: str
    data: object = None
    error: str | None = None
    title: str = ""

    @property
    def command_name(self) -> str | None:
        return " ".join(self.command) if self.command else None

    @property
    def is_json(self) -> bool:
        return self.id.endswith(".json")

    def pretty(self) -> str:
        """The readable form written to a snapshot file (indented JSON; text as is)."""
        if self.is_json and self.error is None:
            return json.dumps(self.data, ensure_ascii=False, indent=2) + "\n"
        return self.text if self.text.endswith("\n") else self.text + "\n"


def _compact(doc) -> str:
    from workbench.runtime.envelope import encode
    return encode(doc)


def _slug(path) -> str:
    return "-".join(path) if path else "_program"


def render(program, memo: Memo | None = None) -> dict:
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

    def __init__(self, previous: Memo | None = None):
        import collections
        import itertools
        self._old_idents = previous._idents if previous is not None else {}
        self._old = previous._pieces if previous is not None else {}
        self._count = previous._count if previous is not None else itertools.count()
        self._idents: dict = {}     # key -> ident
        self._pieces: dict = {}     # (kind, ident, *extra) -> piece
        self._nodes: dict = {}      # id(node) -> (node, ident), for the bound program
        self.program = None
        self.made = collections.Counter()

    def bind(self, program) -> None:
        """Key every group and command of `program` (a group's key holds its children's)."""
        from workbench.surfaces import _keys
        if self.program is program:
            return
        self.program, self._nodes = program, {}
        head = _keys.program_part(program)

        def visit(node) -> int:
            children = tuple(map(visit, node.commands)) if node.is_group else ()
            key = _keys.node_key(node, head, children)
            ident = self._idents.get(key)
            if ident is None:
                ident = self._old_idents.get(key)
                self._idents[key] = ident = next(self._count) if ident is None else ident
            self._nodes[id(node)] = (node, ident)
            return ident

        for child in program.commands:
            visit(child)

    def piece(self, kind: str, node, make, *extra):
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

    def __init__(self, program, memo: Memo):
        self.program, self.memo = program, memo
        memo.bind(program)
        self.out: dict[str, Surface] = {}

    def add(self, surface: Surface) -> None:
        self.out[surface.id] = surface

    def surfaces(self) -> dict:
        from workbench.surfaces import cards, completion, schema
        from workbench.surfaces import help as help_surface
        program, memo, add = self.program, self.memo, self.add
        add(_made("help.txt", "help", None, lambda: help_surface.render_help(program),
                  title="--help"))
        for node in _nodes(program):
            add(memo.piece("help", node, lambda node=node: _made(
                f"help/{_slug(node.path)}.txt", "command_help", tuple(node.path),
                lambda: help_surface.render_help(program, node),
                title=f"{' '.join(node.path)} --help")))
        for level in HELP_LEVELS:
            add(_made(f"help-json/{level}.json", "help_json", None,
                      lambda level=level: self.help_document(level), json_data=True,
                      title=f"help --json --level {level}"))

        commands = list(program.walk())
        for command in commands:
            add(self.card(command))
        add(_made("schema.json", "schema", None, lambda: schema.program_schema(program),
                  json_data=True, title="--schema"))
        for command in commands:
            add(memo.piece("schema", command, lambda command=command: _made(
                f"schemas/{_slug(command.path)}.json", "command_schema", tuple(command.path),
                lambda: schema.input_schema(command), json_data=True,
                title=f"{' '.join(command.path)} --schema")))
        self.tools()

        from workbench.surfaces import skills
        for relative, text in _skill_files(program, add):
            add(_made(f"skills/{relative}", "skill", _skill_group(program, relative),
                      lambda text=text: text, title=f"skills: {relative}"))
        add(_made("llms.txt", "llms", None, lambda: skills.llms_txt(program),
                  title="skills --llms"))

        made = []

        def contexts():   # made once for the three shells; a failure shows in each
            if not made:
                made.append(completion.contexts(program, lambda node, path, make: memo.piece(
                    "completion", node, make, path)))
            return made[0]
        for shell in SHELLS:
            add(_made(f"completion/{shell}.{shell}", "completion", None,
                      lambda shell=shell: completion.completion_script(program, shell,
                                                                       contexts()),
                      title=f"completion {shell}"))

        from workbench.surfaces import clients
        for client in CLIENTS:
            add(_made(f"config/{client}.txt", "config", None,
                      lambda client=client: _config_text(clients.client_config(
                          program, client, command=portable_command(program))),
                      title=f"mcp config --client {client}"))
        return self.out

    def card(self, command) -> Surface:
        """The card surface of `command` (its data is also its entry in help --json)."""
        from workbench.surfaces import cards
        return self.memo.piece("card", command, lambda: _made(
            f"cards/{_slug(command.path)}.json", "card", tuple(command.path),
            lambda: cards.card(command), json_data=True,
            title=f"{' '.join(command.path)} --help --json"))

    def help_document(self, level: str):
        """`help --json --level LEVEL`, its commands' entries (data and text) from the memo."""
        from workbench.surfaces import cards
        entries: list = []   # the entries' compact texts, in the order the document has them

        def card_of(command):
            surface = self.card(command)
            if surface.error is not None:
                return cards.card(command)   # raises as it did for the card
            entries.append(surface.text)
            return surface.data

        def summary_of(command):
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
        from workbench.surfaces import tools as tool_surface
        program, memo = self.program, self.memo
        wire: list = []

        def produce():
            import mcp_types
            listed = tool_surface.listed(program)
            try:
                found = [memo.piece("tool", command,
                                    lambda command=command: _Encoded(_wire_tool(command)))
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
            self.add(memo.piece("tool.json", command, lambda tool=tool, name=name, path=path:
                                _made(f"mcp/tools/{name}.json", "tool", path, lambda: tool,
                                      json_data=True, title=f"tool {name}"), path))


def _made(id, kind, command, produce, *, json_data=False, title="") -> Surface:
    """The Surface `produce()` gives (JSON data made plain, unless it is `_Encoded`), or a
    Surface with `error` and the traceback when it raises."""
    try:
        value = produce()
    except Exception as exc:  # noqa: BLE001 - show it, keep going
        import traceback
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

    def __init__(self, data, key: str | None = None, texts: list | None = None):
        self.data = data
        if key is None or len(texts) != len(data[key]):
            self.text = _compact(data)
        else:
            self.text = "{" + ",".join(
                _compact(name) + ":" + ("[" + ",".join(texts) + "]" if name == key
                                        else _compact(value))
                for name, value in data.items()) + "}"


def _wire_tool(command) -> dict:
    """One tool as a client receives it in tools/list: validated and dumped by mcp_types."""
    from workbench.surfaces.tools import tool_definition
    return _wire_tools([_plain(tool_definition(command))])[0]


def _wire_tools(tools: list) -> list:
    import mcp_types
    result = mcp_types.ListToolsResult.model_validate({"tools": tools})
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)["tools"]


PYTHON = "<python>"
FILE = "<file>"


def portable_command(program) -> list:
    """The command that starts the program's MCP server, with this machine taken out: the
    interpreter becomes `<python>` and the program's file `<file>` (an installed console
    script keeps its name). Snapshots and token counts then read the same on every machine,
    in every folder and venv; `tool mcp config` itself still prints the real paths."""
    import os
    import sys
    from workbench.surfaces.clients import server_command
    source = os.path.abspath(program.source) if program.source else None
    python = {sys.executable, os.path.realpath(sys.executable)}
    out = []
    for part in server_command(program):
        if part in python:
            out.append(PYTHON)
        elif source is not None and os.path.abspath(part) == source:
            out.append(FILE)
        else:
            out.append(part)
    return out


def _skill_files(program, add) -> list:
    """(relative path, text) of each SKILL.md; a failure shows as one broken surface."""
    from workbench.surfaces import skills
    try:
        return list(skills.skill_files(program).items())
    except Exception:  # noqa: BLE001 - shown as a broken surface, as every one is
        add(_made("skills/SKILL.md", "skill", None, lambda: skills.skill_files(program)))
        return []


def _skill_group(program, relative: str):
    """The group path a per-group skill describes, or None for the program's own skill."""
    from workbench.surfaces import skills
    folder = relative.split("/")[0]
    for group in program.groups():
        if len(group.path) == 1 and skills.skill_name(program, group) == folder \
                and folder != skills.skill_name(program):
            return tuple(group.path)
    return None


def _config_text(value) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), ensure_ascii=False, indent=2)


def _nodes(program):
    """Groups and commands, depth first, hidden ones included."""
    stack = list(reversed(program.commands))
    while stack:
        node = stack.pop()
        yield node
        if node.is_group:
            stack.extend(reversed(node.commands))


def _plain(value):
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
    added: tuple = ()
    removed: tuple = ()
    changed: tuple = ()
    surfaces_changed: tuple = ()
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

    def to_dict(self) -> dict:
        return {"first": self.first, "added": list(self.added), "removed": list(self.removed),
                "changed": list(self.changed), "surfaces_changed": list(self.surfaces_changed),
                "tokens_delta": self.tokens_delta, "error": self.error,
                "summary": self.summary()}


def compare(before: dict | None, after: dict, tokens_before: int, tokens_after: int) -> Changes:
    """Commands added / removed / changed (any of their surfaces differ) between snapshots."""
    if before is None:
        return Changes(first=True, tokens_after=tokens_after)

    def by_command(surfaces):
        table: dict[str, list] = {}
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
