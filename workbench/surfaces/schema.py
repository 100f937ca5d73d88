"""Schemas as data: `tool CMD --schema` (input JSON Schema) and `tool --schema` (the program).

`input_schema` is also what the MCP server offers as a tool's inputSchema. `program_schema`
keeps to a character budget and degrades step by step past it, saying what it dropped and
how to get the rest. The document it returns is described by
`workbench/schemas/program.schema.json`.
"""

from __future__ import annotations

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from typing import Any

    from workbench.declaration.model import Command, Group, Program

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_BUDGET = 8000
"""Characters of compact JSON `tool --schema` keeps to unless `program.budgets["schema"]` says."""

DETAILS = ("full", "no_descriptions", "property_names", "names", "groups")
"""Degradation levels of the program schema, richest first. Past the last, trailing command
names are left out: detail "names" again, with `omitted`."""

def _property(item, flag: str) -> dict:
    prop = item.value_schema()
    prop["description"] = item.description or ""
    prop["flag"] = flag
    sensitive = getattr(item, "sensitive", False)
    if sensitive:
        prop["writeOnly"] = True
    else:
        default = item.default
        if default is None and item.type == "boolean":
            default = False
        if default is not None:
            prop["default"] = list(default) if isinstance(default, tuple) else default
    if getattr(item, "deprecated", None) or getattr(item, "replaced_by", None):
        prop["deprecated"] = True
    return prop


def input_schema(command: Command) -> dict[str, Any]:
    """The command's input as JSON Schema (draft 2020-12): one property per option and
    argument (the program's and groups' shared options included: one MCP tool takes all);
    `requires` as `dependentRequired` and `conflicts` as `not`, where they can be said."""
    properties: dict = {}
    required: list = []
    for option in command.options.values():
        properties[option.key] = _property(option, option.flag)
        if option.needed:
            required.append(option.key)
    for argument in command.arguments:
        properties[argument.key] = _property(argument, argument.metavar)
        if argument.needed:
            required.append(argument.key)
    schema: dict[str, Any] = {"$schema": DRAFT, "title": " ".join(command.path),
              "description": command.description or "", "type": "object",
              "properties": properties}
    if required:
        schema["required"] = required
    _relations(command, schema)
    schema["additionalProperties"] = False
    return schema


def _relations(command, schema: dict, keys=None) -> None:
    """`dependentRequired` for `requires` (an input an environment variable may give is left
    out: the schema cannot see it), and `not: {required: [a, b]}` for each conflict (in an
    `allOf` when there are several)."""
    dependent: dict = {}
    pairs: list = []
    inputs = {**{a.key: a for a in command.arguments}, **command.options}
    for option in command.options.values():
        if keys is not None and option.key not in keys:
            continue
        wanted = [key for key in option.requires if not getattr(inputs.get(key), "env", None)]
        if wanted:
            dependent[option.key] = wanted
        for other in option.conflicts:
            pair = sorted((option.key, other))
            if pair not in pairs:
                pairs.append(pair)
    if dependent:
        schema["dependentRequired"] = dependent
    if len(pairs) == 1:
        schema["not"] = {"required": pairs[0]}
    elif pairs:
        schema["allOf"] = [{"not": {"required": pair}} for pair in pairs]


def _encoded_size(doc) -> int:
    import json
    return len(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


def _string_size(text: str) -> int:
    """`_encoded_size(text)` for a string, without encoding one that needs no escape."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return len(text) + 2   # ensure_ascii=False escapes only quotes, backslashes, controls
    return _encoded_size(text)


_VERBATIM = frozenset(("enum", "const", "default", "examples", "required", "flag"))
_SCHEMA_MAPS = frozenset(("properties", "patternProperties", "$defs", "dependentSchemas"))


def _strip_descriptions(schema, top: bool = True):
    """A copy of a JSON Schema without any `description` below its top level."""
    if isinstance(schema, list):
        return [_strip_descriptions(item, False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description" and not top:
            continue
        if key in _VERBATIM:
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _strip_descriptions(sub, False) for name, sub in value.items()}
        else:
            out[key] = _strip_descriptions(value, False)
    return out


def _command_entry(command, detail: str) -> dict | str:
    path = " ".join(command.path)
    if detail == "names":
        return path
    entry: dict = {"command": path, "description": command.description or "",
                   "effects": command.effects}
    if command.effects != "withheld":
        entry["tool"] = command.tool_name
    if command.aliases:
        entry["aliases"] = list(command.aliases)
    if command.deprecated or command.replaced_by:
        entry["deprecated"] = command.deprecated if isinstance(command.deprecated, str) else True
        if command.replaced_by:
            entry["replaced_by"] = command.replaced_by
    if detail == "property_names":
        schema = _own_input(command)
        entry["inputs"] = list(schema["properties"])
        entry["required"] = schema.get("required", [])
    else:
        schema = _own_input(command)
        for key in ("$schema", "title", "description"):
            del schema[key]  # the entry itself says these
        output = command.output
        if detail == "no_descriptions":
            schema = _strip_descriptions(schema)
            output = _strip_descriptions(output) if output is not None else None
        entry["input"] = schema
        if output is not None:
            entry["output"] = output
    entry["exit_codes"] = _facts.exit_codes(command)
    return entry


def _own_input(command) -> dict:
    """The input schema without the options the command shares with others (listed once, in
    the document's `shared_options`)."""
    schema = input_schema(command)
    shared = command.shared_keys
    if not shared:
        return schema
    schema["properties"] = {key: prop for key, prop in schema["properties"].items()
                            if key not in shared}
    required = [key for key in schema.pop("required", []) if key not in shared]
    rest: dict[str, Any] = {key: schema.pop(key) for key in ("dependentRequired", "not", "allOf",
                                             "additionalProperties") if key in schema}
    if required:
        schema["required"] = required
    dependent = {key: value for key, value in rest.pop("dependentRequired", {}).items()
                 if key not in shared}
    if dependent:
        schema["dependentRequired"] = dependent
    schema.update(rest)
    return schema


def shared_options(program: Program, scope: Program | Group | Command,
                   detail: str = "full") -> list[dict[str, Any]]:
    """The options the program and the groups down to `scope` give every command under them,
    once each: `[{"scope": "tool items", "properties": {...}, "required": [...]}]`."""
    out = []
    nodes = list(getattr(scope, "_chain", ()))
    if detail != "names":   # and every group under the scope that declares options
        nodes += [(group, group.options) for group in _groups_under(scope) if group.options]
    for node, options in nodes:
        entry: dict = {"scope": " ".join((program.name, *node.path))}
        properties = {option.key: _property(option, option.flag)
                      for option in options.values()}
        if detail == "property_names":
            entry["inputs"] = list(properties)
        else:
            entry["properties"] = {name: _strip_descriptions(prop, False)
                                   for name, prop in properties.items()} \
                if detail == "no_descriptions" else properties
        required = [option.key for option in options.values() if option.needed]
        if required:
            entry["required"] = required
        out.append(entry)
    return out


def _groups_under(node):
    """Every listed group under a program or group, depth first."""
    for child in _facts.visible(node):
        if child.is_group:
            yield child
            if child.loaded:   # a lazy group is not imported for its children's options
                yield from _groups_under(child)


def _note(program, detail: str, budget: int, dropped: int = 0) -> str:
    name = program.name
    what = {
        "no_descriptions": "property descriptions were dropped",
        "property_names": "input and output schemas were replaced by property names",
        "names": "only command names are listed",
    }
    if dropped:
        return (f"over the {budget}-character budget: {dropped} command(s) left out; "
                f"'{name} help --json --level names' lists all, '{name} <command> --schema' "
                f"gives one")
    if detail == "groups":
        return (f"over the {budget}-character budget, so only its own commands and its groups "
                f"are listed; '{name} <group> --schema' lists a group's commands")
    return (f"over the {budget}-character budget, so {what[detail]}; run '{name} <command> "
            f"--schema' for one command's full input schema, or '{name} <command> --help "
            f"--json' for its card")


def program_schema(program: Program, budget: int | None = None,
                   node: Program | Group | None = None) -> dict[str, Any]:
    """The whole program as data, kept within `budget` characters of compact JSON.

    `node`, a Group, scopes the document to the commands under it (`tool GROUP --schema`).
    Past the budget it degrades one step at a time (DETAILS): property descriptions go,
    then input/output schemas become property names, then only command names remain, then
    only the commands directly under it and its groups (when it has groups), then trailing
    command names are left out. `detail` says which step, `note` what was dropped and how
    to get it. A budget smaller than the bare header cannot be met; the header is returned
    anyway. Each step stops at the first entry past the budget, so a lazy group past that
    point is not imported.
    """
    if budget is None:
        budget = program.budgets.get("schema", DEFAULT_BUDGET)
    scope = program if node is None else node
    for detail in DETAILS[:-1]:
        entries = _entries_within(program, scope, detail, budget)
        if entries is not None:
            return _document(program, scope, detail, budget, entries)
    groups = _groups_within(program, scope, budget)
    if groups is not None:
        return groups
    names = [_command_entry(c, "names") for c in _facts.iter_listed(scope)]
    sizes = [_string_size(str(name)) for name in names]
    total = sum(sizes)
    headers: dict = {}
    keep = len(names) - 1
    while keep > 0:
        total -= sizes[keep]
        if _names_size(program, scope, budget, headers, total, keep,
                       len(names) - keep) <= budget:
            break
        keep -= 1
    keep = max(keep, 0)
    return _document(program, scope, "names", budget, names[:keep],
                     omitted=len(names) - keep)


def _entries_within(program, scope, detail: str, budget: int) -> list | None:
    """The command entries at `detail` if the document they make fits `budget`, else None.

    The document's size is its size without commands plus each entry's and one comma
    between two, so building stops at the first entry past the budget.
    """
    used = _encoded_size(_document(program, scope, detail, budget, []))
    if used > budget:
        return None
    entries: list = []
    for command in _facts.iter_listed(scope):
        entry = _command_entry(command, detail)
        used += (_string_size(str(entry)) if detail == "names" else _encoded_size(entry)) + \
            (1 if entries else 0)
        if used > budget:
            return None
        entries.append(entry)
    return entries


def _groups_within(program, scope, budget: int) -> dict | None:
    """The groups document (the commands directly under `scope`, and its groups) if `scope`
    has a group and the document fits `budget`, else None."""
    commands: list = []
    groups: list = []
    for child in _facts.visible(scope):
        (groups if child.is_group else commands).append(" ".join(child.path))
    if not groups:
        return None    # the names document already listed exactly these
    doc = _document(program, scope, "groups", budget, commands, groups=groups)
    return doc if _encoded_size(doc) <= budget else None


def _names_size(program, scope, budget: int, headers: dict, total: int, count: int,
                omitted: int) -> int:
    """The encoded size of the names document listing `count` names of `total` characters."""
    digits = len(str(omitted)) if omitted else 0
    if digits not in headers:   # the header depends on `omitted` only through its digits
        headers[digits] = _encoded_size(_document(program, scope, "names", budget, [],
                                                  omitted=omitted))
    return headers[digits] + total + max(count - 1, 0)


def _document(program, scope, detail: str, budget: int, commands: list, omitted: int = 0,
              groups: list | None = None) -> dict:
    doc = {"name": program.name, "version": program.version,
           "description": program.description, "schema_version": program.schema_version}
    if scope is not program:
        doc["group"] = " ".join(scope.path)
        doc["group_description"] = scope.description or ""
    doc["detail"] = detail
    doc["budget"] = budget
    if detail != "full":
        doc["note"] = _note(program, detail, budget, omitted)
    table = _facts.exit_table()
    if detail != "full":
        table = [{"exit": row["exit"], "code": row["code"]} for row in table]
    doc["exit_codes"] = table
    if detail in ("full", "no_descriptions", "property_names"):
        shared = shared_options(program, scope, detail)
        if shared:
            doc["shared_options"] = shared
    doc["commands"] = commands
    if groups is not None:
        doc["groups"] = groups
    if omitted:
        doc["omitted"] = omitted
    return doc
