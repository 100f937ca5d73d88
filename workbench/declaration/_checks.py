"""Definition-time checks: a Program that cannot work is refused when it is constructed.

Every refusal is a DefinitionError whose message names the thing at fault and the exact
fix. These checks read only the declaration; examples are checked by parsing them with the
one parser, a layer up (`workbench.runtime.checks`). Whether they run at all for a Program is
`_verdict`'s to say.
"""

from __future__ import annotations

from workbench.declaration._verdict import commands_under
from workbench.declaration.builtins import (GLOBAL_SPELLINGS, RESERVED_COMMANDS, RESERVED_SHORTS,
                                           SHARED_SPELLINGS)

FRAMEWORK_GLOBALS = frozenset(("fields", "jq"))
"""Global flags the framework also attaches to a command (as its MCP argument)."""
from workbench.declaration.exits import default_exit, exit_problem
from workbench.declaration.model import (
    EFFECT_MEANINGS, EFFECTS, MAX_TOOL_NAME, Argument, Command, DefinitionError, Group, Option,
)
from workbench.declaration.params import ITEM_TYPES, TYPES, is_value_type

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_ARG_CHARS = _NAME_CHARS | _KEY_CHARS
_SHORT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def check_group(program, group) -> None:
    """A lazy group just loaded, alone: as `check_program` checks it, naming the group."""
    if not group.commands:
        raise DefinitionError(f"{_where(group)} has no commands; add commands to "
                              f"'{group.load}' or remove the group")
    _check_children(program, group, top=False)
    for command in commands_under(group):
        _check_command(program, command)


def check_program(program) -> None:
    """Refuse a Program that cannot work; the DefinitionError names the exact fix."""
    if program.discovery not in ("auto", "full", "progressive"):
        raise DefinitionError(f"program {program.name!r}: discovery={program.discovery!r} is "
                              f"not one of 'auto', 'full', 'progressive'")
    if not isinstance(program.mcp_filters, bool):
        raise DefinitionError(f"program {program.name!r}: mcp_filters={program.mcp_filters!r} "
                              f"must be True or False")
    name = program.name
    if not isinstance(name, str) or not name or any(c.isspace() for c in name) \
            or name.startswith("-"):
        raise DefinitionError(
            f"program name {name!r} is not valid; pass the name people type, e.g. "
            f"Program(name='tool', ...)")
    if not program.commands:
        raise DefinitionError(
            f"program '{name}' has no commands; pass commands=[Command(...), ...]")
    if program.options or program.setup is not None or program.env_prefix is not None:
        from workbench.declaration._param_checks import check_program_settings
        check_program_settings(program)
    _check_children(program, program, top=True)
    tools: dict[str, object] = {}
    for command in program.walk():
        _check_command(program, command)
        if command.effects == "withheld":
            continue
        tool = command.tool_name
        if len(tool) > MAX_TOOL_NAME:
            raise DefinitionError(
                f"{_where(command)}: its MCP tool name '{tool}' is {len(tool)} characters, "
                f"over the limit of {MAX_TOOL_NAME}; shorten the command or group names "
                f"(the tool name is the path joined with '_'), or mark it "
                f"effects='withheld' to keep it off MCP")
        if tool in tools:
            raise DefinitionError(
                f"{_where(command)} and {_where(tools[tool])} both map to the MCP tool name "
                f"'{tool}' (path joined with '_', '-' as '_'); rename one of them")
        tools[tool] = command
    from workbench.declaration._agentic import check_program as check_agentic
    check_agentic(program, tools)


def _where(node) -> str:
    kind = "group" if node.is_group else "command"
    return f"{kind} '{' '.join(node.path)}'"


def _check_children(program, node, top: bool) -> None:
    parent = "the program" if top else _where(node)
    seen: dict[str, object] = {}
    for child in node.commands:
        if not isinstance(child, (Command, Group)):
            raise DefinitionError(
                f"{parent}: commands must hold Command(...) or Group(...) objects, "
                f"got {type(child).__name__} {child!r}")
        _check_name(child, child.name, _where(child) if isinstance(child.name, str)
                    else parent)
        if not isinstance(child.aliases, tuple) or not all(isinstance(a, str) for a in child.aliases):
            raise DefinitionError(f"{_where(child)}: aliases must be a list of strings")
        for label in (child.name, *child.aliases):
            if label is not child.name:
                _check_name(child, label, _where(child), kind="alias")
            if label in seen:
                other = seen[label]
                what = "name" if label == child.name else "alias"
                raise DefinitionError(
                    f"{parent}: {what} '{label}' of {_where(child)} is already used by "
                    f"{_where(other)}; names and aliases must be unique among siblings — "
                    f"rename one of them")
            if top and label in RESERVED_COMMANDS:
                raise DefinitionError(
                    f"{_where(child)}: '{label}' is a built-in command "
                    f"({', '.join(RESERVED_COMMANDS)} are reserved at the top level); "
                    f"rename it, e.g. '{label}-{program.name}' or move it into a group")
            seen[label] = child
        if child.is_group:
            if not child.commands:   # type: ignore[union-attr]  # a Group
                raise DefinitionError(
                    f"{_where(child)} has no commands; add commands=[Command(...)] "
                    f"or remove the group")
            if child.options or child.setup is not None:   # type: ignore[union-attr]
                from workbench.declaration._param_checks import check_shared
                check_shared(_where(child), child, "Group")
            _check_children(program, child, top=False)


def _check_name(node, name, where: str, kind: str | None = None) -> None:
    kind = kind or ("group" if node.is_group else "command")
    if not isinstance(name, str) or not name or not set(name) <= _NAME_CHARS \
            or name[0] == "-" or name[-1] == "-":
        fixed = _suggest_name(name)
        raise DefinitionError(
            f"{where}: {kind} name {name!r} is not valid; use lowercase letters, digits "
            f"and inner hyphens" + (f", e.g. '{fixed}'" if fixed else ", e.g. 'list-all'"))


def _suggest_name(name) -> str:
    if not isinstance(name, str):
        return ""
    out = "".join(c if c in _NAME_CHARS else "-" for c in name.lower().replace("_", "-"))
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def _effects_help() -> str:
    return "; ".join(f"'{e}' ({EFFECT_MEANINGS[e]})" for e in EFFECTS)


def _check_command(program, command) -> None:
    where = _where(command)
    effects = command.effects
    if effects is None:
        raise DefinitionError(
            f"{where} has no effects; add effects=... with one of: {_effects_help()}")
    if effects == "undeclared":
        if command.adapter is None:
            raise DefinitionError(
                f"{where}: effects='undeclared' is only for adapted programs; declare what "
                f"it does with one of: {_effects_help()}")
    elif effects not in EFFECTS:
        raise DefinitionError(
            f"{where}: effects={effects!r} is not one of the known values; use one of: "
            f"{_effects_help()}")
    for attr in ("destructive", "open_world"):
        value = getattr(command, attr)
        if value is not None and not isinstance(value, bool):
            raise DefinitionError(f"{where}: {attr}= is True, False or unset, got {value!r}")
    if command.destructive and effects == "read_only":
        raise DefinitionError(
            f"{where}: a read_only command destroys nothing; drop destructive=True, or "
            f"declare effects='idempotent' (repeating it destroys nothing more) or "
            f"'non_idempotent'")
    if command.title is not None and (not isinstance(command.title, str)
                                      or not command.title.strip() or "\n" in command.title):
        raise DefinitionError(f"{where}: title= is one line of text for clients to show, "
                              f"got {command.title!r}")
    if command.run is not None and not callable(command.run):
        raise DefinitionError(f"{where}: run= must be a function taking ctx, got "
                              f"{type(command.run).__name__}")
    for attr in ("plan", "text"):
        value = getattr(command, attr)
        if value is not None and not callable(value):
            raise DefinitionError(f"{where}: {attr}= must be a function, got "
                                  f"{type(value).__name__}")
    _check_meta(where, command)
    from workbench.declaration._agentic import check_command
    check_command(where, command, program.version)
    for attr in ("help", "epilog"):
        value = getattr(command, attr, None)
        if value is not None and not isinstance(value, str):
            raise DefinitionError(f"{where}: {attr}= must be text (paragraphs separated by "
                                  f"blank lines), got {type(value).__name__}")
    clash = command.__dict__.get("_shared_clash")
    if clash is not None:
        key, node = clash
        owner = f"program '{node.name}'" if not node.path else _where(node)
        raise DefinitionError(
            f"{where} declares option '{key}', which the {owner} already gives every command "
            f"under it; drop it from the command (it takes the {owner}'s) or rename one")
    _check_options(where, command)
    _check_arguments(where, command)
    _check_errors(where, command)
    _check_contract(where, command)
    if command.output is not None:
        check_json_schema(command.output, f"{where}: output schema")
    if not isinstance(command.examples, list) or not all(isinstance(e, str) for e in command.examples):
        raise DefinitionError(f"{where}: examples must be a list of command-line strings, "
                              f"e.g. examples=['{program.name} {' '.join(command.path)}']")


def _check_meta(where: str, item) -> None:
    if item.since is not None and not isinstance(item.since, str):
        raise DefinitionError(f"{where}: since= must be a version string, e.g. since='1.2'")
    if item.deprecated is not None and not isinstance(item.deprecated, (str, bool)):
        raise DefinitionError(f"{where}: deprecated= must be True or a short reason string")
    if item.replaced_by is not None and not isinstance(item.replaced_by, str):
        raise DefinitionError(f"{where}: replaced_by= must name what replaces it, as a string")


# -- options -------------------------------------------------------------------------------

def _check_options(where: str, command) -> None:
    """Check options and that no two share a spelling (long, short, --no-, old names)."""
    flags: dict[str, Option] = {}
    shared = command.shared_keys
    for key, option in command.options.items():
        if key in FRAMEWORK_GLOBALS and key in command.framework_keys:
            continue   # the global flag itself, attached as an MCP argument
        if key not in shared:
            _check_option(where, key, option)
        if option.requires or option.conflicts:
            from workbench.declaration._param_checks import check_relations
            check_relations(where, command, key, option)
        at = f"{where}: option '{key}' ({option.flag})"
        for name in option.spellings:
            if name in GLOBAL_SPELLINGS and name not in SHARED_SPELLINGS:
                raise DefinitionError(f"{at}: {name} is a built-in flag; pick another name")
            if name in flags:
                other = flags[name]
                mine = " (given to every command by its program or group)" \
                    if key in shared or other.key in shared else ""
                if name.startswith("--"):
                    raise DefinitionError(
                        f"{at}: the flag {name} is also {other.flag}'s{mine}; rename one "
                        f"of them")
                raise DefinitionError(
                    f"{at}: short '{name}' is also used by {other.flag}{mine}; give one "
                    f"of them another letter")
            flags[name] = option


def _check_option(where: str, key, option) -> None:
    """One option on its own: key, type, default, env, short, and what it may combine."""
    if not isinstance(option, Option):
        raise DefinitionError(
            f"{where}: options['{key}'] must be Option(...), got {type(option).__name__}")
    if not isinstance(key, str) or not key or not set(key) <= _KEY_CHARS \
            or not key[0].isalpha() or key.endswith("_") or "__" in key:
        fixed = _suggest_name(key).replace("-", "_")
        raise DefinitionError(
            f"{where}: option key {key!r} is not valid; keys are lowercase snake case "
            f"(the key skip_build is the flag --skip-build)"
            + (f", e.g. '{fixed}'" if fixed else ""))
    at = f"{where}: option '{key}' ({option.flag})"
    if option.flag in GLOBAL_SPELLINGS and option.flag not in SHARED_SPELLINGS:
        reserved = ", ".join(f for f in GLOBAL_SPELLINGS
                             if f.startswith("--") and f not in SHARED_SPELLINGS)
        raise DefinitionError(
            f"{at} collides with the built-in {option.flag} ({reserved} are reserved); "
            f"rename the option, e.g. '{key}_mode'")
    _check_meta(at, option)
    _check_type(at, option, "option")
    if option.required and option.default is not None:
        raise DefinitionError(
            f"{at} is required and has a default; drop required=True (the default fills "
            f"it) or drop the default")
    if option.type == "boolean" and option.required:
        raise DefinitionError(
            f"{at} is a boolean and required; a flag is either passed or not — drop "
            f"required=True, or use type='enum' with choices")
    _check_env(at, option, key)
    if option.placeholder is not None and not isinstance(option.placeholder, str):
        raise DefinitionError(f"{at}: placeholder= must be a string, e.g. '<{key}>'")
    if len(option.alias_flags) != len(option.aliases):
        raise DefinitionError(f"{at}: aliases must be flag names, e.g. aliases=['dest']")
    if option.short is not None:
        short = option.short
        if not isinstance(short, str) or len(short) != 1 or short not in _SHORT_CHARS:
            raise DefinitionError(
                f"{at}: short={option.short!r} must be one letter or digit, e.g. "
                f"short='{key[0]}'")
        if short in RESERVED_SHORTS:
            raise DefinitionError(
                f"{at}: short '-{short}' is reserved ("
                f"{', '.join('-' + s for s in RESERVED_SHORTS)} is built in); pick another "
                f"letter")
    if option.__dict__:   # a count, a tuple, an off switch, a prompt...: checked with them
        from workbench.declaration._param_checks import check_option_features
        check_option_features(at, option)


def _check_env(at: str, item, key: str) -> None:
    """`env=` of an option or argument names an environment variable."""
    env = item.env
    if env is not None and (not isinstance(env, str) or not env or "=" in env or " " in env):
        raise DefinitionError(f"{at}: env= must be an environment variable name, "
                              f"e.g. env='{key.upper()}'")


def _check_type(at: str, item, kind: str) -> None:
    if item.type not in TYPES and not is_value_type(item.type):
        raise DefinitionError(
            f"{at}: type={item.type!r} is not a known type; use one of: {', '.join(TYPES)}, "
            f"or a value type (an object with convert, json_schema and describe methods)")
    choices = item.choices
    if item.type == "list" and item.items not in ITEM_TYPES and not is_value_type(item.items):
        raise DefinitionError(
            f"{at}: items={item.items!r} is not a list item type; use one of: "
            f"{', '.join(ITEM_TYPES)}, or a value type")
    if item.__dict__:   # min, max, the path checks
        from workbench.declaration._param_checks import check_limits
        check_limits(at, item)
    wants_choices = item.type == "enum" or (item.type == "list" and item.items == "enum")
    if wants_choices and not choices:
        raise DefinitionError(
            f"{at}: an enum needs its values; add choices=['a', 'b', ...]")
    if choices is not None and not wants_choices:
        hint = ("set items='enum'" if item.type == "list" else "use type='enum'")
        raise DefinitionError(f"{at}: choices= only applies to enums; {hint} or drop choices")
    if choices is not None:
        if len(set(map(repr, choices))) != len(choices):
            raise DefinitionError(f"{at}: choices repeat a value; list each value once")
        if not all(isinstance(c, (str, int)) and not isinstance(c, bool) for c in choices):
            raise DefinitionError(f"{at}: choices must be strings (or integers)")
    problem = item.default_problem()
    if problem:
        raise DefinitionError(f"{at}: default {item.default!r} {problem}")
    if item.default is not None and (item.min is not None or item.max is not None) \
            and item.check(item.default):
        raise DefinitionError(f"{at}: default {item.default!r} {item.check(item.default)} "
                              f"({item.range_words()}); change the default or the limits")


# -- arguments -----------------------------------------------------------------------------

def _check_arguments(where: str, command) -> None:
    keys = set(command.options)
    optional_seen = None
    stdin_seen = None
    variadic_seen = None
    arguments = command.arguments
    for index, argument in enumerate(arguments):
        if not isinstance(argument, Argument):
            raise DefinitionError(f"{where}: arguments must hold Argument(...) objects, got "
                                  f"{type(argument).__name__}")
        name = argument.name
        if not isinstance(name, str) or not name or not set(name) <= _ARG_CHARS \
                or not name[0].isalpha() or name[-1] in "-_":
            raise DefinitionError(
                f"{where}: argument name {name!r} is not valid; use lowercase letters, digits "
                f"and inner hyphens, e.g. Argument('file')")
        at = f"{where}: argument <{name}>"
        _check_type(at, argument, "argument")
        if argument.key in keys:
            raise DefinitionError(
                f"{at} has the same key '{argument.key}' as another input; inputs share one "
                f"namespace (the MCP properties) — rename one of them")
        keys.add(argument.key)
        if argument.variadic and argument.type == "list":
            raise DefinitionError(
                f"{at} is variadic and a list; variadic already collects a list — give the "
                f"item type instead, e.g. Argument('{name}', type='{argument.items}', "
                f"variadic=True)")
        _check_env(at, argument, argument.key)
        if argument.variadic and variadic_seen is not None:
            raise DefinitionError(
                f"{at} is variadic, and so is <{variadic_seen}>; only one argument may take "
                f"several values — drop variadic=True from one")
        if argument.variadic:
            variadic_seen = name
            after = arguments[index + 1:]
            loose = [a.name for a in after if isinstance(a, Argument) and not a.required]
            if loose:
                raise DefinitionError(
                    f"{at} is variadic and followed by the optional <{loose[0]}>; arguments "
                    f"after a variadic one take the last values, so they must be required — "
                    f"make <{loose[0]}> required or move <{name}> to the end")
            if argument.stdin and after:
                raise DefinitionError(f"{at} reads stdin and is followed by other arguments; "
                                      f"move it to the end or drop stdin=True")
        if argument.required and optional_seen is not None:
            raise DefinitionError(
                f"{at} is required but comes after the optional <{optional_seen}>; put "
                f"required arguments first or make <{name}> optional")
        if not argument.required and not argument.variadic:
            optional_seen = name
        if argument.required and argument.default is not None:
            raise DefinitionError(f"{at} is required and has a default; pass required=False "
                                  f"or drop the default")
        if argument.stdin:
            if stdin_seen is not None:
                raise DefinitionError(
                    f"{at} reads stdin, and so does <{stdin_seen}>; at most one input can "
                    f"read standard input — drop stdin=True from one")
            stdin_seen = name


def _check_errors(where: str, command) -> None:
    for entry in command.errors:
        if isinstance(entry, str) and entry:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("code"), str) and entry["code"]:
            problem = exit_problem(entry["code"], entry.get("exit", default_exit(entry["code"])))
            if problem is not None:
                raise DefinitionError(f"{where}: {problem}")
            continue
        raise DefinitionError(
            f"{where}: errors= lists the error codes it can raise, as strings or "
            f"dicts like {{'code': 'not_found', 'exit': 3, 'when': 'no such note'}}; "
            f"got {entry!r}")


def _check_contract(where: str, command) -> None:
    """`verdict=`, `person_only=` and `why=` (issue 34's part of the contract)."""
    if not isinstance(command.verdict, bool):
        raise DefinitionError(f"{where}: verdict= is True (a judging read that returns "
                              f"ctx.verdict(passed, details)) or False, got {command.verdict!r}")
    person_only = command.person_only
    if person_only is not None:
        if not isinstance(person_only, dict) or set(person_only) != {"reason", "how"} or \
                not all(isinstance(v, str) and v.strip() for v in person_only.values()):
            raise DefinitionError(
                f"{where}: person_only= is a dict of two sentences, e.g. person_only="
                f"{{'reason': 'promoting to production needs a person's sign-off', 'how': "
                f"'run it yourself in a terminal'}}; got {person_only!r}")
    if command.why not in (None, "required", "optional"):
        raise DefinitionError(f"{where}: why= is 'required' or 'optional' (adds --why TEXT), "
                              f"got {command.why!r}")


# -- JSON Schema (structural) --------------------------------------------------------------

_SCHEMA_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
_SUBSCHEMA = ("items", "additionalProperties", "additionalItems", "not", "contains",
              "propertyNames", "if", "then", "else", "unevaluatedItems",
              "unevaluatedProperties", "contentSchema")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
           "minContains", "maxContains")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRINGS = ("title", "description", "pattern", "format", "$ref", "$id", "$schema",
            "$comment", "$anchor", "contentMediaType", "contentEncoding")
_BOOLS = ("uniqueItems", "readOnly", "writeOnly", "deprecated")


def check_json_schema(schema, what: str = "schema", at: str = "") -> None:
    """Refuse a value that is not a structurally valid JSON Schema (draft 2020-12), naming where."""
    here = f"{what} at {at}" if at else what
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise DefinitionError(f"{here} must be a JSON Schema object (a dict), e.g. "
                              f"{{'type': 'object'}}; got {type(schema).__name__}")
    dot = at + "." if at else ""
    if "type" in schema:
        types = schema["type"]
        names = types if isinstance(types, list) else [types]
        if not names:
            raise DefinitionError(f"{here}: type is an empty list; name at least one type")
        for name in names:
            if name not in _SCHEMA_TYPES:
                fix = {"list": "array", "dict": "object", "str": "string", "int": "integer",
                       "float": "number", "bool": "boolean", "None": "null"}.get(str(name))
                raise DefinitionError(
                    f"{here}: type {name!r} is not a JSON Schema type; use "
                    + (f"'{fix}'" if fix else "one of: " + ", ".join(_SCHEMA_TYPES)))
    for key in _SUBSCHEMA:
        if key in schema:
            check_json_schema(schema[key], what, dot + key)
    for key in _SCHEMA_MAPS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, dict):
                raise DefinitionError(f"{here}: {key} must be an object mapping names to "
                                      f"schemas, e.g. {{'id': {{'type': 'integer'}}}}")
            for name, sub in value.items():
                check_json_schema(sub, what, f"{dot}{key}.{name}")
    for key in _SCHEMA_LISTS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, list) or not value:
                raise DefinitionError(f"{here}: {key} must be a non-empty list of schemas")
            for index, sub in enumerate(value):
                check_json_schema(sub, what, f"{dot}{key}[{index}]")
    if "required" in schema:
        value = schema["required"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value) \
                or len(set(value)) != len(value):
            raise DefinitionError(f"{here}: required must be a list of distinct property "
                                  f"names, e.g. ['id']")
    if "enum" in schema and not isinstance(schema["enum"], list):
        raise DefinitionError(f"{here}: enum must be a list of values")
    for key in _COUNTS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise DefinitionError(f"{here}: {key} must be a non-negative integer")
    for key in _NUMBERS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, (int, float)) or isinstance(value, bool) \
                    or (key == "multipleOf" and value <= 0):
                raise DefinitionError(f"{here}: {key} must be a number"
                                      + (" above 0" if key == "multipleOf" else ""))
    for key in _STRINGS:
        if key in schema and not isinstance(schema[key], str):
            raise DefinitionError(f"{here}: {key} must be a string")
    for key in _BOOLS:
        if key in schema and not isinstance(schema[key], bool):
            raise DefinitionError(f"{here}: {key} must be true or false")
    if "dependentRequired" in schema:
        value = schema["dependentRequired"]
        if not isinstance(value, dict) or not all(
                isinstance(v, list) and all(isinstance(s, str) for s in v) for v in value.values()):
            raise DefinitionError(f"{here}: dependentRequired must map names to lists of names")
