"""Options the framework adds to a command from what it declares (pages, plans, keys).

They are attached to `command.options` when the Program is built, so the parser, help, cards,
schemas and MCP tools all show them without knowing where they came from; the runtime reads
them from `request.extras` and the handler never sees them in `ctx.options`.
"""

from __future__ import annotations

from workbench.declaration.model import NO_KEYS, Option, object_output

DEFAULT_PAGE_SIZE = 50


def options_for(command) -> dict:
    """The framework's own options for `command`, by key, in a stable order."""
    extras = {}
    if command.paginated:
        size = command.paginated if type(command.paginated) is int else DEFAULT_PAGE_SIZE
        extras["limit"] = Option(type="integer", description=f"items per page (default {size})")
        extras["cursor"] = Option(type="string", description="continue where a page stopped "
                                  "(its next_cursor)")
        extras["all"] = Option(type="boolean", description="every item, no paging")
    filters = getattr(command.program, "mcp_filters", False)
    if command.paginated or filters:
        from workbench.declaration.builtins import fields_option
        extras["fields"] = fields_option()   # the global --fields, as an MCP argument too
    if filters and object_output(command) is None:   # a structured result keeps its schema
        from workbench.declaration.builtins import jq_option
        extras["jq"] = jq_option()           # the global --jq, as an MCP argument too
    if command.plan is not None:
        extras["dry_run"] = Option(type="boolean", description="run every check, change nothing, "
                                   "return the plan and its digest")
        extras["expect_plan"] = Option(type="string", description="apply only if the plan's digest "
                                       "is still this (from --dry-run)", placeholder="<digest>")
    if command.effects == "non_idempotent":
        extras["idempotency_key"] = Option(type="string", description="make retries safe: a repeat "
                                           "with this key returns the first result",
                                           placeholder="<key>")
    return extras


def attach(command) -> None:
    """Add the framework options to `command.options` (once) and record their keys."""
    if getattr(command, "_extras_attached", False):   # read, not via __dict__: reading that
        return                                         # builds a dict for every command
    command._extras_attached = True
    extras = options_for(command)
    for key in extras:
        if key in command.options:
            from workbench.declaration.model import DefinitionError
            raise DefinitionError(
                f"command '{' '.join(command.path)}' declares option {key!r}, which the framework "
                f"adds itself ({_why(key)}); "
                f"rename yours")
    command.framework_keys = frozenset(extras) if extras else NO_KEYS
    for key in extras:          # declared order: a frozenset's moves with PYTHONHASHSEED
        option = extras[key]
        option.key = key
        command.options[key] = option


def _why(key: str) -> str:
    """What in the declaration makes the framework add the option `key`."""
    if key == "fields":
        return "paginated=True or Program(mcp_filters=True)"
    if key == "jq":
        return "Program(mcp_filters=True)"
    if key in ("limit", "cursor", "all"):
        return "paginated=True"
    return "plan=" if key in ("dry_run", "expect_plan") else "effects=non_idempotent"
