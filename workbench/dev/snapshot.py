"""Every surface of a program, rendered once into plain data.

A `Surface` holds exactly the text a caller reads (compact JSON for JSON surfaces, as it goes
over the wire) and its id, which is also its file in a snapshot folder, e.g. `help.txt`,
`help/pr-merge.txt`, `cards/pr-merge.json`, `mcp/tools/pr_merge.json`. The workbench only
calls the surface functions; it never computes a surface itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

HELP_LEVELS = ("names", "summary", "card")
SHELLS = ("bash", "zsh", "fish")
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini")


@dataclass(frozen=True)
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


def render(program) -> dict:
    """id -> Surface for every surface of `program`, in a stable order.

    A surface function that raises yields a Surface with `error` set (and the traceback as
    text), so one broken surface never hides the others.
    """
    out: dict[str, Surface] = {}

    def add(id, kind, command, produce, *, json_data=False, title=""):
        try:
            value = produce()
        except Exception as exc:  # noqa: BLE001 - show it, keep going
            import traceback
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            out[id] = Surface(id, kind, command, text, None, f"{type(exc).__name__}: {exc}",
                              title)
            return
        if json_data:
            if isinstance(value, str):
                data = json.loads(value)
            else:
                data = _plain(value)
            out[id] = Surface(id, kind, command, _compact(data), data, None, title)
        else:
            out[id] = Surface(id, kind, command, value if isinstance(value, str) else str(value),
                              None, None, title)

    from workbench.surfaces import cards, clients, completion, schema
    from workbench.surfaces import help as help_surface
    nodes = [node for node in _nodes(program)]
    add("help.txt", "help", None, lambda: help_surface.render_help(program), title="--help")
    for node in nodes:
        kind = "command_help"
        add(f"help/{_slug(node.path)}.txt", kind, tuple(node.path),
            lambda node=node: help_surface.render_help(program, node),
            title=f"{' '.join(node.path)} --help")
    for level in HELP_LEVELS:
        add(f"help-json/{level}.json", "help_json", None,
            lambda level=level: cards.help_document(program, level), json_data=True,
            title=f"help --json --level {level}")

    commands = list(program.walk())
    for command in commands:
        add(f"cards/{_slug(command.path)}.json", "card", tuple(command.path),
            lambda command=command: cards.card(command), json_data=True,
            title=f"{' '.join(command.path)} --help --json")
    add("schema.json", "schema", None, lambda: schema.program_schema(program), json_data=True,
        title="--schema")
    for command in commands:
        add(f"schemas/{_slug(command.path)}.json", "command_schema", tuple(command.path),
            lambda command=command: schema.input_schema(command), json_data=True,
            title=f"{' '.join(command.path)} --schema")

    tools = _tools_as_client_sees(program, add)
    if tools is not None:
        for tool in tools:
            command = program.tool(tool["name"])
            path = tuple(command.path) if command is not None else None
            add(f"mcp/tools/{tool['name']}.json", "tool", path, lambda tool=tool: tool,
                json_data=True, title=f"tool {tool['name']}")

    from workbench.surfaces import skills
    for relative, text in _skill_files(program, add):
        add(f"skills/{relative}", "skill", _skill_group(program, relative), lambda text=text: text,
            title=f"skills: {relative}")
    add("llms.txt", "llms", None, lambda: skills.llms_txt(program), title="skills --llms")

    for shell in SHELLS:
        ext = {"bash": "bash", "zsh": "zsh", "fish": "fish"}[shell]
        add(f"completion/{shell}.{ext}", "completion", None,
            lambda shell=shell: completion.completion_script(program, shell),
            title=f"completion {shell}")

    for client in CLIENTS:
        add(f"config/{client}.txt", "config", None,
            lambda client=client: _config_text(clients.client_config(
                program, client, command=portable_command(program))),
            title=f"mcp config --client {client}")
    return out


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
    except Exception:  # noqa: BLE001 - shown by add() below, as every broken surface is
        add("skills/SKILL.md", "skill", None, lambda: skills.skill_files(program))
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


def _tools_as_client_sees(program, add):
    """The tools/list result as a client receives it: the wire JSON of each Tool."""
    holder = {}

    def produce():
        from workbench.surfaces.tools import list_tools
        tools = list_tools(program)
        import mcp_types
        result = mcp_types.ListToolsResult.model_validate(
            {"tools": [_plain(tool) for tool in tools]})
        data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        holder["tools"] = data["tools"]
        return data

    add("mcp/tools-list.json", "tools_list", None, produce, json_data=True, title="tools/list")
    return holder.get("tools")


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
