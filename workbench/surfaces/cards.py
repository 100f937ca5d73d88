"""Help as data: `tool help --json [--level names|summary|card]` and `tool CMD --help --json`.

Pure functions of the model returning plain dicts in a fixed key order, so the encoded
bytes are the same on every machine. Keys whose value would be empty or default (no
aliases, not required, no env…) are left out to keep cards small.
"""

from __future__ import annotations

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from workbench.declaration.model import Command, Group, Program

LEVELS = ("names", "summary", "card")
"""Detail levels of `help --json`, smallest first."""


def help_document(program: Program, level: str = "summary", *,
                  card_of: Callable[[Command], dict[str, Any]] | None = None,
                  summary_of: Callable[[Command], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The program as help data: name, version, exit codes, and its commands at `level`.

    `card_of(command)` and `summary_of(command)` give one command's entry at the card and
    summary levels (default: `card` and its summary; the workbench passes cached ones)."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not one of {', '.join(LEVELS)}")
    name = program.name
    doc: dict[str, Any] = {
        "name": name,
        "version": program.version,
        "description": program.description,
        "schema_version": program.schema_version,
        "level": level,
        "usage": f"{name} <command> [options]",
    }
    if program.options:
        doc["options"] = [_option(option) for option in program.options.values()]
    commands = _facts.listed_commands(program)
    if level == "names":
        doc["commands"] = [" ".join(command.path) for command in commands]
    else:
        groups = [_group_summary(group) for group in program.groups()
                  if _facts.group_shown(program, group)]
        if groups:
            doc["groups"] = groups
        if level == "summary":
            doc["commands"] = [(summary_of or summary)(command) for command in commands]
        else:
            doc["commands"] = [(card_of or card)(command) for command in commands]
    doc["exit_codes"] = _facts.exit_table()
    doc["more"] = {
        "card": f"{name} <command> --help --json",
        "schema": f"{name} --schema",
        "input_schema": f"{name} <command> --schema",
    }
    if level != "card":
        doc["more"]["all_cards"] = f"{name} help --json --level card"
    return doc


def group_document(program: Program, group: Group, level: str = "summary") -> dict[str, Any]:
    """One group as help data (`tool GROUP --help --json`): its commands at `level`."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not one of {', '.join(LEVELS)}")
    name = program.name
    path = " ".join(group.path)
    doc: dict = {"group": path, "description": group.description}
    if group.aliases:
        doc["aliases"] = list(group.aliases)
    doc["level"] = level
    doc["usage"] = _facts.usage(program, group)
    if group.options:
        doc["options"] = [_option(option) for option in group.options.values()]
    commands = _facts.listed_commands(group)
    if level == "names":
        doc["commands"] = [" ".join(command.path) for command in commands]
    elif level == "summary":
        doc["commands"] = [summary(command) for command in commands]
    else:
        doc["commands"] = [card(command) for command in commands]
    doc["more"] = {"card": f"{name} {path} <command> --help --json",
                   "program": f"{name} help --json"}
    return doc


def _group_summary(group) -> dict:
    out = {"group": " ".join(group.path), "description": group.description}
    if group.aliases:
        out["aliases"] = list(group.aliases)
    if group.options:
        out["options"] = [_option(option) for option in group.options.values()]
    out["commands"] = [child.name for child in _facts.visible(group)]
    return out


def summary(command: Command) -> dict[str, Any]:
    """One command at the summary level: path, description, effects, aliases, deprecation."""
    out: dict[str, Any] = {"command": " ".join(command.path),
                           "description": command.description, "effects": command.effects}
    if command.aliases:
        out["aliases"] = list(command.aliases)
    _mark_deprecated(out, command)
    return out


def card(command: Command) -> dict[str, Any]:
    """One command as data: what it does, effects and hints, inputs, examples, errors, tool name."""
    from workbench.declaration.model import EFFECT_MEANINGS
    program = command.program
    out: dict = {"command": " ".join(command.path)}
    if program is not None:
        out["usage"] = _facts.usage(program, command)
    if command.title:
        out["title"] = command.title
    out["description"] = command.description
    if command.help:
        out["help"] = command.help
    if command.epilog:
        out["epilog"] = command.epilog
    if command.aliases:
        out["aliases"] = list(command.aliases)
    out["effects"] = command.effects
    out["effects_meaning"] = EFFECT_MEANINGS.get(str(command.effects), "")
    hints = _facts.hints(command)
    if hints is not None:
        out["hints"] = hints
    if command.effects != "withheld":
        out["tool"] = command.tool_name
    if command.since:
        out["since"] = command.since
    _mark_deprecated(out, command)
    if command.hidden:
        out["hidden"] = True
    if command.paginated:
        out["paginated"] = True
    if command.batch:
        out["batch"] = True
    out["options"] = [_option(option) for option in command.listed_options.values()]
    if command.inherited:
        out["shared_options"] = [
            {"scope": " ".join((program.name if program is not None else "", *node.path)
                               ).strip(),
             "flags": [command.options[key].flag for key in keys]}
            for node, keys in command.inherited]
    out["arguments"] = [_argument(argument) for argument in command.arguments]
    out["examples"] = list(command.examples)
    if command.output is not None:
        out["output"] = command.output
    out["errors"] = _facts.errors(command)
    out["exit_codes"] = _facts.exit_codes(command)
    return out


def _option(option) -> dict:
    out: dict = {"key": option.key, "flag": option.flag}
    if option.short_flag:
        out["short"] = option.short_flag
    if option.negation:
        out["negation"] = option.negation
    if option.alias_flags:
        out["aliases"] = list(option.alias_flags)
    out["type"] = option.type_name
    if option.type == "list":
        out["items"] = option.item_name
        out["repeatable"] = True
    if option.count:
        out["count"] = True
    if option.nargs > 1:
        out["nargs"] = option.nargs
    out["description"] = option.description
    values = option.enum_values
    if values is not None:
        out["choices"] = values
    if option.required:
        out["required"] = True
    if option.sensitive:
        out["sensitive"] = True
    elif option.default is not None:
        out["default"] = list(option.default) if isinstance(option.default, tuple) \
            else option.default
    elif option.type == "boolean":
        out["default"] = False
    if option.env:
        out["env"] = option.env
    if not option.flag_only:
        out["metavar"] = option.metavar
    _checks(out, option)
    if option.prompt is not None:
        out["prompt"] = option.prompt_text
        if option.confirmation_prompt:
            out["confirmation_prompt"] = True
        if option.hide_input:
            out["hide_input"] = True
    if option.requires:
        out["requires"] = list(option.requires)
    if option.conflicts:
        out["conflicts"] = list(option.conflicts)
    if option.hidden:
        out["hidden"] = True
    if option.since:
        out["since"] = option.since
    _mark_deprecated(out, option)
    return out


def _checks(out: dict, item) -> None:
    """`min`, `max` and the path checks, where declared."""
    if item.min is not None:
        out["min"] = item.min
    if item.max is not None:
        out["max"] = item.max
    for attr in ("exists", "kind", "readable", "writable"):
        value = getattr(item, attr)
        if value:
            out[attr] = value


def _argument(argument) -> dict:
    out: dict = {"name": argument.name, "key": argument.key, "flag": argument.metavar,
                 "type": argument.type_name}
    if argument.type == "list":
        out["items"] = argument.item_name
    out["description"] = argument.description
    values = argument.enum_values
    if values is not None:
        out["choices"] = values
    out["required"] = bool(argument.required)
    if argument.variadic:
        out["variadic"] = True
    if argument.stdin:
        out["stdin"] = True
    if argument.default is not None:
        out["default"] = argument.default
    if argument.env:
        out["env"] = argument.env
    _checks(out, argument)
    return out


def _mark_deprecated(out: dict, item) -> None:
    """`deprecated` (true or the reason) and `replaced_by`, where declared."""
    if item.deprecated or item.replaced_by:
        out["deprecated"] = item.deprecated if isinstance(item.deprecated, str) else True
    if item.replaced_by:
        out["replaced_by"] = item.replaced_by
