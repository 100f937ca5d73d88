"""MCP tools as data: one tool per command, in the wire shape (camelCase), no SDK import.

`tool_definition(command)` is what `tools/list` shows for one command; `list_tools(program)`
is the whole list. Annotations come from `effects`, every hint written out (DESIGN §5);
`withheld` commands are never listed and adapted (`undeclared`) ones carry no hints at all.
"""

from __future__ import annotations

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from typing import Any

    from workbench.declaration.model import Command, Program


def output_schema(command: Command) -> dict[str, Any] | None:
    """The tool's outputSchema: the declared `output` when its root is an object, else None.

    Handshake-era MCP (through 2025-11-25) allows only `type: "object"` at the root of an
    output schema and a JSON object as structuredContent, so other shapes are left out rather
    than offered to some clients and refused by others. The data still arrives in the text.
    """
    from workbench.declaration.model import object_output
    return object_output(command)


_SAID_BY_THE_TOOL = ("$schema", "title", "description")
"""Keys of `tool CMD --schema` a tool's inputSchema leaves out: MCP's default dialect is draft
2020-12, and the tool's name and description say the command's path and description."""


def tool_input_schema(command: Command) -> dict[str, Any]:
    """The tool's inputSchema: `tool CMD --schema` without what the tool already says
    (`_SAID_BY_THE_TOOL`) and without each property's `flag`, which an MCP caller never types
    (an option's flag is always `--` and its key with `-` for `_`; an argument's is its place
    on the command line). Every rule of the input stays: types, enums, defaults, required,
    dependencies, conflicts, `additionalProperties: false`."""
    from workbench.surfaces.schema import input_schema
    schema = input_schema(command)
    for key in _SAID_BY_THE_TOOL:
        schema.pop(key, None)
    for prop in schema["properties"].values():
        prop.pop("flag", None)
    return schema


def tool_definition(command: Command) -> dict[str, Any]:
    """`{"name", "description", "inputSchema", ["outputSchema"], ["annotations"]}` for a command."""
    description = command.description or ""
    if command.help:
        description = (description + "\n\n" + command.help.strip()).strip()
    if command.removed_in:   # a deprecation with a date: the model reads it before calling
        description += f"\n\n{_facts.deprecation(command).capitalize()}."
    tool: dict[str, Any] = {"name": command.tool_name}
    if command.title:
        tool["title"] = command.title
    tool.update({"description": description, "inputSchema": tool_input_schema(command)})
    output = output_schema(command)
    if output is not None:
        tool["outputSchema"] = output
    hints = _facts.hints(command)
    if hints is not None:
        tool["annotations"] = hints
    return tool


PLAN_SUFFIX = "_plan"
"""`<tool>_plan`: the read-only twin of a command declared `plan_tool=True`."""

PLAN_OUTPUT: dict[str, Any] = {"type": "object",
               "properties": {"plan": {"description": "what the call would change"},
                              "digest": {"type": "string", "description": "pass it as "
                                         "expect_plan to the tool itself to apply this plan"}},
               "required": ["plan", "digest"]}
"""The output schema of every plan twin: the `--dry-run` data."""

PLAN_ONLY_DROPS = ("dry_run", "expect_plan", "idempotency_key")
"""Properties a plan twin does not take: it always plans, never applies."""


class PlanTwin:
    """The `<tool>_plan` twin of a command, as the tool surfaces read it: same inputs (but
    `PLAN_ONLY_DROPS`), read-only, its output the plan and its digest; on the command line,
    the command with `--dry-run` (`words`)."""

    adapter = None
    paginated = False
    output: dict[str, Any] = PLAN_OUTPUT
    effects = "read_only"
    program: Program | None   # the attributes' types, for checkers
    path: tuple[str, ...]
    words: tuple[str, ...]
    tool_name: str
    description: str

    def __init__(self, command: Command) -> None:
        self.command = command
        self.program = command.program
        self.path = command.path
        self.words = command.words
        self.tool_name = command.tool_name + PLAN_SUFFIX
        self.description = (f"What '{' '.join(command.path)}' would change, changing nothing: "
                            f"its plan and the digest to apply it with ({command.tool_name}, "
                            f"expect_plan). " + (command.description or ""))


def plan_twins(command: Command) -> list[PlanTwin]:
    """`[PlanTwin(command)]` when the command offers a twin, else `[]`: what tools/list and
    discovery's search list right after the command."""
    return [PlanTwin(command)] if command.plan_tool and offered(command) else []


def plan_twin(program: Program, name: object) -> PlanTwin | None:
    """The `PlanTwin` called `name`, or None."""
    if not isinstance(name, str) or not name.endswith(PLAN_SUFFIX):
        return None
    command = program.tool(name[:-len(PLAN_SUFFIX)])
    twins = plan_twins(command) if command is not None else []
    return twins[0] if twins else None


def plan_twin_definition(command: Command) -> dict[str, Any]:
    """The tools/list entry of `command`'s plan twin: read-only, `PLAN_ONLY_DROPS` left out."""
    from workbench.surfaces.schema import input_schema
    schema = input_schema(command)
    for key in PLAN_ONLY_DROPS:
        schema["properties"].pop(key, None)
    made = PlanTwin(command)
    twin: dict[str, Any] = {"name": made.tool_name}
    if command.title:
        twin["title"] = command.title + " (plan only)"
    twin.update({"description": made.description,
                 "inputSchema": schema, "outputSchema": PLAN_OUTPUT,
                 "annotations": {"readOnlyHint": True, "idempotentHint": True,
                                 "destructiveHint": False}})
    if command.open_world is not None:
        twin["annotations"]["openWorldHint"] = command.open_world
    return twin


def offered(command: Command) -> bool:
    """Whether a command is an MCP tool: anything but `withheld` and `person_only` (one rule,
    `_facts.offered`)."""
    return _facts.offered(command)


def listed(program: Program) -> list[Command]:
    """The commands `tools/list` shows: offered, and not hidden (nor inside a hidden group)."""
    return [command for command in _facts.listed_commands(program) if offered(command)]


def list_tools(program: Program) -> list[dict[str, Any]]:
    """What tools/list holds: every tool of the program, in declaration order; for a
    progressive program the discovery tools and its entry points (`surfaces.discovery`)."""
    from workbench.surfaces import discovery
    if discovery.progressive(program):
        return discovery.listed_tools(program)
    tools = []
    for command in listed(program):
        tools.append(tool_definition(command))
        tools += [plan_twin_definition(command) for _ in plan_twins(command)]
    return tools


def callable_tool(program: Program, name: str) -> Command | None:
    """The command a `tools/call` for `name` runs, or None (unknown or withheld).

    Hidden commands are not listed but stay callable, as they do on the command line.
    """
    command = program.tool(name) if isinstance(name, str) else None
    if command is None or not offered(command):
        return None
    return command
