"""Progressive discovery over MCP: a small `tools/list` for a big program.

An agent that cannot hold a thousand tools lists a few: `search_tools` (the program's
`help search` index), `describe_tool` (one tool's whole definition) and the program's
read-only entry points (its first top-level read-only commands). Every command stays callable
by name with the same checks and the same envelope as when it is listed.

    progressive(program)              # Program(discovery="progressive"), or "auto" past AUTO_FROM
    listed_tools(program)             # what tools/list holds
    answer(program, name, arguments)  # (ok, data or error) of a discovery tool's call, or None
"""

from __future__ import annotations

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from typing import Any

    from workbench.declaration.model import Command, Program

SEARCH, DESCRIBE = "search_tools", "describe_tool"
AUTO_FROM = 1000
"""Under `discovery="auto"` (the default), a program listing more tools than this is
progressive: 1,000 tools are about 650 KB of tools/list, more than most agents hold."""
ENTRY_POINTS = 8
"""Read-only top-level commands listed beside the two discovery tools."""
MODES = ("auto", "full", "progressive")
SEARCH_LIMIT = 10

_SEARCH_TOOL = {
    "name": SEARCH,
    "description": "Find this program's tools by what they do: the best matches for a few "
                   "words, each with its name and one line. Then describe_tool NAME, then call "
                   "it by name (every tool is callable, listed or not).",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["query"],
                    "properties": {"query": {"type": "string", "description": "what to do, "
                                             "in a few words"},
                                   "limit": {"type": "integer", "minimum": 1, "maximum": 50,
                                             "description": f"how many (default "
                                                            f"{SEARCH_LIMIT})"}}},
    "annotations": {"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False,
                    "openWorldHint": False}}
_DESCRIBE_TOOL = {
    "name": DESCRIBE,
    "description": "One tool's whole definition: description, input schema, output schema "
                   "and hints, as tools/list would give it.",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["name"],
                    "properties": {"name": {"type": "string", "description": "the tool's "
                                            "name (search_tools gives it)"}}},
    "annotations": {"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False,
                    "openWorldHint": False}}


def progressive(program: Program) -> bool:
    """Whether tools/list holds the discovery tools instead of every tool."""
    mode = getattr(program, "discovery", "auto")
    if mode == "progressive":
        return True
    if mode == "full":
        return False
    from workbench.surfaces.tools import listed
    return len(listed(program)) > AUTO_FROM


def _own(program, name: str) -> bool:
    """Whether the program has a tool of that name itself (it wins over a discovery tool)."""
    return program.tool(name) is not None


def discovery_tools(program: Program) -> list[dict[str, Any]]:
    """The discovery tools a progressive program lists (those its own tools do not shadow)."""
    return [dict(tool) for tool in (_SEARCH_TOOL, _DESCRIBE_TOOL)
            if not _own(program, str(tool["name"]))]


def entry_points(program: Program) -> list[Command]:
    """The read-only top-level commands listed beside the discovery tools."""
    from workbench.surfaces.tools import offered
    top = [c for c in _facts.visible(program) if not c.is_group and offered(c)
           and c.effects == "read_only"]
    return top[:ENTRY_POINTS]


def listed_tools(program: Program) -> list[dict[str, Any]]:
    """tools/list of a progressive program: the discovery tools, then its entry points."""
    from workbench.surfaces.tools import tool_definition
    return discovery_tools(program) + [tool_definition(c) for c in entry_points(program)]


def input_schema(program: Program, name: str) -> dict[str, Any] | None:
    """The input schema of a discovery tool the program answers, else None."""
    if not progressive(program) or _own(program, name):
        return None
    tool: dict = {SEARCH: _SEARCH_TOOL, DESCRIBE: _DESCRIBE_TOOL}.get(name, {})
    return tool.get("inputSchema")


def answer(program: Program, name: object, arguments: object) -> tuple[bool, Any] | None:
    """A call of a discovery tool: `(True, data)`, or `(False, error)` for a usage refusal
    (`code`, `message`, `hint`, `fix`, exit 2); None when `name` is not one this program
    answers. The runtime makes the envelope (`workbench.runtime.toolcall`)."""
    if name not in (SEARCH, DESCRIBE) or not progressive(program) or _own(program, name):
        return None
    arguments = arguments if isinstance(arguments, dict) else {}
    if name == SEARCH:
        query, limit = arguments.get("query"), arguments.get("limit", SEARCH_LIMIT)
        if not isinstance(query, str) or not query.strip() or set(arguments) - {"query",
                                                                                 "limit"} \
                or isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
            return False, {"code": "invalid_arguments",
                           "message": "search_tools takes a query (a few words) and an "
                                      "optional limit from 1 to 50",
                           "hint": None, "fix": {"query": "what you want to do"}}
        return True, {"tools": _found(program, query, limit)}
    tool = arguments.get("name")
    from workbench.surfaces.tools import (callable_tool, listed, plan_twin,
                                          plan_twin_definition, tool_definition)
    twin = plan_twin(program, tool)
    if twin is not None:   # `<tool>_plan`: described as tools/list gives it
        return True, plan_twin_definition(twin.command)
    command = callable_tool(program, tool) if isinstance(tool, str) else None
    if command is None:
        from workbench._text import nearest
        close = nearest(str(tool), [c.tool_name for c in listed(program)])
        return False, {"code": "unknown_tool", "message": f"no tool named {tool!r}",
                       "hint": "search_tools finds tools by what they do"
                       + (f"; did you mean: {', '.join(close)}?" if close else ""),
                       "fix": {"name": close[0]} if close else None}
    return True, tool_definition(command)


def _found(program, query: str, limit: int) -> list[dict]:
    from workbench.surfaces.search import search
    from workbench.surfaces.tools import callable_tool, plan_twin
    found = []
    for hit in search(program, query, limit=limit * 2):
        name = str(hit.get("tool"))
        if callable_tool(program, name) is None and plan_twin(program, name) is None:
            continue   # withheld: not an MCP tool
        found.append({"name": hit["tool"], "description": hit["description"],
                      "command": hit["command"]})
        if len(found) == limit:
            break
    return found
