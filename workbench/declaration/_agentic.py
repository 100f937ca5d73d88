"""Definition checks for issue 34's declarations: self-scoped commands, ambiguous words,
`--input`, `<tool>_plan` twins, `removed_in` and untrusted options. Every refusal names the
fix, as `_checks` does; `_checks` calls these once per command and once per program."""

from __future__ import annotations

from workbench.declaration.model import DefinitionError


def check_command(where: str, command) -> None:
    """Refuse a command whose issue-34 settings cannot work."""
    if command.self_scope is not None and not callable(command.self_scope):
        raise DefinitionError(f"{where}: self_scope= must be a function owner(ctx) giving the "
                              f"name of the agent that owns the item (None: nobody's), got "
                              f"{type(command.self_scope).__name__}")
    if command.instead is not None:
        if command.self_scope is None:
            raise DefinitionError(f"{where}: instead= says what a self-scoped command's caller "
                                  f"runs on its own items; add self_scope=owner or drop it")
        if not isinstance(command.instead, str) or not command.instead.strip():
            raise DefinitionError(f"{where}: instead= is a command line after the program "
                                  f"name, e.g. instead='list --agent {{agent}}'")
    for attr in ("input_json", "plan_tool"):
        if not isinstance(getattr(command, attr), bool):
            raise DefinitionError(f"{where}: {attr}= is True or False, got "
                                  f"{getattr(command, attr)!r}")
    if command.plan_tool and command.plan is None:
        raise DefinitionError(f"{where}: plan_tool=True offers the plan as a read-only MCP "
                              f"tool, and it has no plan=; add plan=... or drop plan_tool")
    if command.plan_tool and command.effects == "withheld":
        raise DefinitionError(f"{where}: plan_tool=True offers an MCP tool, and the command "
                              f"is withheld from MCP; drop plan_tool or change effects")
    _check_removed_in(where, command)
    for option in command.options.values():
        _check_removed_in(f"{where}: option {option.key!r}", option)
        if not isinstance(option.untrusted, bool):
            raise DefinitionError(f"{where}: option {option.key!r}: untrusted= is True or "
                                  f"False, got {option.untrusted!r}")


def _check_removed_in(where: str, item) -> None:
    removed = getattr(item, "removed_in", None)
    if removed is None:
        return
    if not isinstance(removed, str) or not removed.strip():
        raise DefinitionError(f"{where}: removed_in= is the version that removes it, as a "
                              f"string, e.g. removed_in='3.0'")
    if not item.deprecated and not item.replaced_by:
        raise DefinitionError(f"{where}: removed_in={removed!r} says when a deprecated thing "
                              f"goes; add deprecated='why' (or replaced_by=...) too")
