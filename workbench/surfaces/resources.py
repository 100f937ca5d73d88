"""MCP resources: what an agent can read about the program without calling a tool.

    listed = resources(program)                # [{"uri", "name", "title", "description", "mimeType"}]
    found = read(program, "burgee://notes/cards/sync/push")   # (text, mime type) or None

The program's schema (`--schema`), each offered command's card (`COMMAND --help --json`), its
Agent Skills (`skills`) and `llms.txt`, under `burgee://<program>/...`. Pure functions of the
program, like every surface; the MCP server lists and reads them (`workbench.mcp.server`).
"""

from __future__ import annotations

import json

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from workbench.declaration.model import Program

SCHEME = "burgee"


def _base(program) -> str:
    return f"{SCHEME}://{program.name}"


def _commands(program) -> list:
    """The commands whose cards are resources: listed and offered over MCP."""
    return [c for c in _facts.listed_commands(program) if c.effects != "withheld"]


def resources(program: Program) -> list[dict[str, str]]:
    """Every resource of `program`, in a stable order: schema, llms.txt, skills, cards."""
    from workbench.surfaces.skills import skill_files
    base = _base(program)
    found = [{"uri": f"{base}/schema", "name": "schema", "title": f"{program.name} --schema",
              "description": "every command, its inputs and outputs, as JSON Schema",
              "mimeType": "application/json"},
             {"uri": f"{base}/llms.txt", "name": "llms.txt",
              "title": f"{program.name} skills --llms",
              "description": "one line per command, with the command that prints its card",
              "mimeType": "text/markdown"}]
    for path in skill_files(program):
        folder = path.split("/", 1)[0]
        found.append({"uri": f"{base}/skills/{folder}", "name": f"skills/{folder}",
                      "title": f"Agent Skill {folder}",
                      "description": "SKILL.md: when and how to use these commands",
                      "mimeType": "text/markdown"})
    for command in _commands(program):
        words = " ".join(command.path)
        found.append({"uri": f"{base}/cards/{'/'.join(command.path)}",
                      "name": f"cards/{words}", "title": f"{program.name} {words} --help --json",
                      "description": command.description or words,
                      "mimeType": "application/json"})
    return found


def read(program: Program, uri: str) -> tuple[str, str] | None:
    """(text, mime type) of the resource at `uri`, or None when `program` has none there."""
    base = _base(program) + "/"
    if not isinstance(uri, str) or not uri.startswith(base):
        return None
    rest = uri[len(base):]
    if rest == "schema":
        from workbench.surfaces.schema import program_schema
        return _json(program_schema(program)), "application/json"
    if rest == "llms.txt":
        from workbench.surfaces.skills import llms_txt
        return llms_txt(program), "text/markdown"
    if rest.startswith("skills/"):
        from workbench.surfaces.skills import skill_files
        text = skill_files(program).get(rest[len("skills/"):] + "/SKILL.md")
        return (text, "text/markdown") if text is not None else None
    if rest.startswith("cards/"):
        path = tuple(rest[len("cards/"):].split("/"))
        for command in _commands(program):
            if command.path == path:
                from workbench.surfaces.cards import card
                return _json(card(command)), "application/json"
    return None


def _json(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
