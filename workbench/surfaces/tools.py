"""MCP tools as data: one tool per command, in the wire shape (camelCase), no SDK import.

`tool_definition(command)` is what `tools/list` shows for one command; `list_tools(program)`
is the whole list. Annotations come from `effects`, every hint written out (DESIGN §5);
`withheld` commands are never listed and adapted (`undeclared`) ones carry no hints at all.
"""

from __future__ import annotations

from workbench.surfaces import _facts


def output_schema(command) -> dict | None:
    """The tool's outputSchema: the declared `output` when its root is an object, else None.

    Handshake-era MCP (through 2025-11-25) allows only `type: "object"` at the root of an
    output schema and a JSON object as structuredContent, so other shapes are left out rather
    than offered to some clients and refused by others. The data still arrives in the text.
    """
    output = command.output
    if isinstance(output, dict) and output.get("type") == "object":
        return output
    return None


def tool_definition(command) -> dict:
    """`{"name", "description", "inputSchema", ["outputSchema"], ["annotations"]}` for a command."""
    from workbench.surfaces.schema import input_schema
    description = command.description or ""
    if command.help:
        description = (description + "\n\n" + command.help.strip()).strip()
    tool = {"name": command.tool_name}
    if command.title:
        tool["title"] = command.title
    tool.update({"description": description, "inputSchema": input_schema(command)})
    output = output_schema(command)
    if output is not None:
        tool["outputSchema"] = output
    hints = _facts.hints(command)
    if hints is not None:
        tool["annotations"] = hints
    return tool


def offered(command) -> bool:
    """Whether a command is an MCP tool: anything but `withheld`."""
    return command.effects != "withheld"


def listed(program) -> list:
    """The commands `tools/list` shows: offered, and not hidden (nor inside a hidden group)."""
    return [command for command in _facts.listed_commands(program) if offered(command)]


def list_tools(program) -> list[dict]:
    """What tools/list holds: every tool of the program, in declaration order; for a
    progressive program the discovery tools and its entry points (`surfaces.discovery`)."""
    from workbench.surfaces import discovery
    if discovery.progressive(program):
        return discovery.listed_tools(program)
    return [tool_definition(command) for command in listed(program)]


def callable_tool(program, name: str):
    """The command a `tools/call` for `name` runs, or None (unknown or withheld).

    Hidden commands are not listed but stay callable, as they do on the command line.
    """
    command = program.tool(name) if isinstance(name, str) else None
    if command is None or not offered(command):
        return None
    return command
