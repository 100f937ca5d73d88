"""Dependency keys: what the surfaces read of a command or group, as comparable plain data.

The workbench renders every surface again after each save; a surface of one command can be
reused when its key is equal to the key it was rendered under. A key is built from values
only (never object identity, since a reload builds new objects), so it must hold every
field any surface of that command or group reads. The field lists below are that contract:
a declaration field that is in none of them and not in `NOT_SHOWN` fails a test, so a new
field cannot be forgotten silently.
"""

from __future__ import annotations

COMMAND = ("name", "path", "description", "effects", "aliases", "hidden", "since", "deprecated",
           "replaced_by", "paginated", "batch", "errors", "examples", "output",
           "framework_keys", "help", "epilog", "destructive", "open_world", "title",
           "instead", "input_json", "plan_tool", "removed_in", "verdict", "person_only", "why")
"""Command fields the surfaces read (help, card, input schema, tool, completion, lint)."""

OPTION = ("key", "type", "items", "choices", "description", "required", "default", "sensitive",
          "env", "short", "placeholder", "aliases", "negatable", "since", "deprecated",
          "replaced_by", "min", "max", "exists", "kind", "readable", "writable", "count",
          "nargs", "off", "hidden", "prompt", "confirmation_prompt", "hide_input", "requires",
          "conflicts", "untrusted", "removed_in", "cli_only")
"""Option fields; its spellings (`flag`, `short_flag`, `metavar`...) derive from these."""

ARGUMENT = ("name", "type", "items", "choices", "description", "required", "variadic", "stdin",
            "default", "sensitive", "since", "deprecated", "replaced_by", "env", "min", "max",
            "exists", "kind", "readable", "writable")
"""Argument fields; `key` and `metavar` derive from these."""

GROUP = ("name", "path", "description", "aliases", "hidden", "load")
"""Group fields; its children's keys are part of its key too."""

PRESENT = ("plan", "adapter", "self_scope")
"""Fields read only as `is not None` (a plan adds options and exit 4; an adapter changes
lint fixes and the MCP server command)."""

PROGRAM = ("name", "single")
"""The program's fields a command's or group's own surfaces show (usage lines, help)."""

NOT_SHOWN = {
    "run": "the handler runs calls; no surface reads it",
    "text": "renders a person's output of a call; no surface reads it",
    "program": "its name and `single` are keyed (PROGRAM)",
    "options": "keyed option by option (OPTION); a group's too (group_key)",
    "arguments": "keyed argument by argument (ARGUMENT)",
    "value_type": "derived from type, items and choices",
    "flag": "derived from key", "short_flag": "derived from short",
    "negation": "derived from type, key and negatable", "alias_flags": "derived from aliases",
    "metavar": "derived from placeholder and key", "spellings": "derived from the above",
    "inherited": "keyed as the paths and keys it names (command_key)",
    "shared_clash": "a definition error: no surface is rendered",
    "env_for": "marks an env derived from env_prefix; env itself is keyed",
    "setup": "runs before calls; no surface reads it",
    "chain": "derived from the program's and groups' options",
    "shared_table": "derived from the chain",
    "dict__": "the `__dict__` slot that holds rarely declared settings, each keyed by name",
    "marks_untrusted": "a cache of whether calls mark untrusted text (options, output)",
}
"""Declaration fields deliberately left out of keys, and why."""


class _Unique:
    """A key part equal to nothing else: a value the key cannot compare by content (an
    arbitrary object), so whatever depends on it is rendered again every time."""

    __slots__ = ()


def frozen(value):
    """`value` as hashable data that compares equal exactly when the surfaces would print it
    the same: types are kept (True, 1 and 1.0 differ), containers in their order."""
    kind = type(value)
    if kind is str:
        return value
    if kind is int or kind is bool or value is None:
        return (kind, value)
    if kind is float:
        return (kind, repr(value))   # -0.0 and 0.0 print differently
    if kind is list or kind is tuple or kind is frozenset or kind is set:
        if _STRINGS.issuperset(map(type, value)):   # names, paths, examples: as they are
            items = tuple(value) if kind is list or kind is tuple else tuple(sorted(value))
        else:
            items = tuple(map(frozen, value))
            if kind is frozenset or kind is set:
                items = tuple(sorted(items, key=repr))
        return (kind, items)
    if kind is dict:
        return (kind, tuple([(frozen(k), frozen(v)) for k, v in value.items()]))
    return _Unique()


_STRINGS = frozenset((str,))


_SCALARS = frozenset((str, int, bool, type(None)))


def _reader(names):
    from operator import attrgetter
    read = attrgetter(*names) if len(names) > 1 else lambda item: (getattr(item, names[0]),)

    def fields(item) -> tuple:
        """The named fields of `item`: their values and exact types when all are strings,
        integers, booleans or None (the usual case, compared as they are), else `frozen`."""
        try:
            values = read(item)
        except AttributeError:   # a field its class does not have: equal to nothing
            values = tuple(getattr(item, name, _Unique()) for name in names)
        types = tuple(map(type, values))
        if _SCALARS.issuperset(types):
            return (values, types)
        return (None, tuple(map(frozen, values)))
    return fields


_program, _command, _option, _argument, _group = map(
    _reader, (PROGRAM, COMMAND, OPTION, ARGUMENT, GROUP))


def program_part(program) -> tuple:
    """What of the program every command and group key holds (PROGRAM)."""
    return _program(program)


def node_key(node, program_part: tuple, children: tuple = ()) -> tuple:
    """`group_key` or `command_key` of `node`; a node whose fields cannot be read (a property
    that raises) gets a key equal to nothing, so its surfaces fail as they would anyway."""
    try:
        if node.is_group:
            return group_key(node, program_part, children)
        return command_key(node, program_part)
    except Exception:  # noqa: BLE001 - whatever it raises, the surfaces show it
        return ("unkeyable", _Unique())


def command_key(command, program_part: tuple) -> tuple:
    """Everything a command's own surfaces read: its fields, options, arguments, whether it
    has a plan and an adapter, and `program_part` (`program_part(program)`)."""
    return ("command", program_part, _command(command),
            tuple(map(_option, command.options.values())),
            tuple([(node.path, keys) for node, keys in command.inherited]),
            tuple(map(_argument, command.arguments)),
            tuple([getattr(command, name) is not None for name in PRESENT]))


def group_key(group, program_part: tuple, children: tuple) -> tuple:
    """A group's fields, `program_part`, and `children`: the keys (or stand-ins equal
    exactly when the keys are) of its children, in order."""
    return ("group", program_part, _group(group),
            tuple(map(_option, group.options.values())), children)
