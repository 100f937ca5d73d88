"""Library-neutral part of the adapters: a described tree -> a checked Program.

Each library module (`_click`, `_typer`, `_argparse`) describes its object as `Spec`,
`GroupSpec`, `CommandSpec` and `Input` values; this module turns names into valid ones,
resolves collisions, applies the `effects` mapping and builds the Program. The library's
own runner is attached to every command as `command.adapter`.
"""

from __future__ import annotations

from workbench.declaration.builtins import RESERVED_COMMANDS, RESERVED_OPTIONS, RESERVED_SHORTS
from workbench.declaration.model import (
    EFFECTS, Argument, Command, DefinitionError, Group, Option, Program,
)

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_SHORTS = frozenset(_LOWER + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_AVOID_KEYS = frozenset(RESERVED_OPTIONS) | {"idempotency_key", "no_json", "no_help"}


class Input:
    """One parameter of the original: what the model needs, and `ref` for the runner.

    `more` holds the parameter model's further settings the original declares (`min`,
    `max`, the path checks, `count`, `nargs`, `off`, `hidden`, prompts), passed on as
    they are."""

    def __init__(self, name: str, *, positional: bool = False, type: str = "string",
                 items: str = "string", choices=None, default=None, required: bool = False,
                 variadic: bool = False, env: str | None = None, short: str | None = None,
                 sensitive: bool = False, description: str = "", level: int = 0, ref=None,
                 more: dict | None = None):
        self.name = name
        self.positional = positional
        self.type = type
        self.items = items
        self.choices = choices
        self.default = default
        self.required = required
        self.variadic = variadic
        self.env = env
        self.short = short
        self.sensitive = sensitive
        self.description = description
        self.level = level
        self.ref = ref
        self.more = dict(more or {})
        self.key = ""


class CommandSpec:
    """A runnable command: `runner(given, command, request, world)` returns data.

    `given` is a list of (Input, value) for the inputs the caller gave (flags, arguments,
    environment, stdin), never the defaults: the original applies its own defaults.
    """

    kind = "command"

    def __init__(self, name: str, description: str = "", inputs=(), runner=None, *,
                 hidden: bool = False, deprecated=None, aliases=()):
        self.name = name
        self.description = description
        self.inputs = list(inputs)
        self.runner = runner
        self.hidden = hidden
        self.deprecated = deprecated
        self.aliases = list(aliases)


class GroupSpec:
    kind = "group"

    def __init__(self, name: str, description: str = "", children=(), *,
                 hidden: bool = False, aliases=(), options=()):
        self.name = name
        self.description = description
        self.children = list(children)
        self.hidden = hidden
        self.aliases = list(aliases)
        self.options = list(options)   # the group's own options (Inputs at its level)


class Spec:
    def __init__(self, library: str, name: str, children, *, version: str | None = None,
                 description: str = "", options=()):
        self.library = library
        self.name = name
        self.children = list(children)
        self.version = version
        self.description = description
        self.single = False   # one command, no groups: it takes the program's name
        self.problems: list = []   # (severity, code, message, fix, command path) it noted
        self.options = list(options)   # the root group's own options (Inputs, level 0)


class Adapted:
    """`command.adapter`: runs the original for one command (see runtime._invoke)."""

    def __init__(self, library: str, spec: CommandSpec, inputs: dict):
        self.library = library
        self.spec = spec
        self.inputs = inputs   # key -> Input

    def invoke(self, command, request, world):
        given = []
        for key, item in self.inputs.items():
            where = request.provenance.get(key)
            if not isinstance(where, dict) or where.get("source") == "default":
                continue
            values = request.args if item.positional else request.options
            if key in values:
                given.append((item, values[key]))
        return self.spec.runner(given, command, request, world)

    def __repr__(self) -> str:
        return f"Adapted({self.library}, {self.spec.name!r})"


# -- names -----------------------------------------------------------------------------------

def command_name(raw) -> str:
    """A valid command name for a library's name: lowercase, inner hyphens."""
    text = str(raw or "").strip().lower().replace("_", "-").replace(" ", "-")
    text = "".join(c if c in _LOWER or c == "-" else "-" for c in text)
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-") or "command"


def input_key(raw) -> str:
    """A valid option key for a flag or a destination name: `--dry-run` -> `dry_run`."""
    text = str(raw or "").lstrip("-").lower()
    text = "".join(c if c in _LOWER else "_" for c in text)
    while "__" in text:
        text = text.replace("__", "_")
    text = text.strip("_")
    if not text or not text[0].isalpha():
        text = ("opt_" + text).strip("_")
    return text


def _unique(name: str, taken: set, sep: str) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate = f"{name}{sep}{n}"
        n += 1
    return candidate


def first_paragraph(text) -> str:
    """The first paragraph of a help text on one line (Click's `\\b` markers dropped)."""
    if not text:
        return ""
    lines: list = []
    for line in str(text).strip().splitlines():
        line = line.strip()
        if line == "\b":
            continue
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    return " ".join(lines)


# -- values ----------------------------------------------------------------------------------

def _scalar(kind: str, value, choices):
    if value is None or callable(value):
        return None
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if kind == "integer":
        return value if isinstance(value, int) else None
    if kind == "number":
        return value if isinstance(value, (int, float)) else None
    if kind == "enum":
        text = str(value)
        return text if choices and text in choices else None
    if isinstance(value, (str, int, float)):
        return str(value)
    if hasattr(value, "__fspath__"):
        return str(value)
    return None


def _working_directory(value) -> bool:
    """Whether a default is the directory the program was loaded in (`Path.cwd()`)."""
    if not isinstance(value, str) and not hasattr(value, "__fspath__"):
        return False
    import os
    try:
        text = os.fspath(value)
        return text not in ("", ".") and os.path.abspath(text) == os.getcwd()
    except (TypeError, ValueError, OSError):
        return False


def clean_default(item: Input):
    """The original's default when it is plain data of the input's type, else None. A
    default computed from the working directory is none: the description says so instead,
    and the original computes it again where it runs (never baked into snapshots)."""
    if _working_directory(item.default):
        item.default = None
        note = "Default: the working directory."
        if note not in item.description:
            item.description = f"{first_paragraph(item.description)} {note}".strip()
    if item.type == "list" or item.variadic:
        value = item.default
        if not isinstance(value, (list, tuple)) or not value:
            return None
        kind = item.items if item.type == "list" else item.type
        out = [_scalar(kind, v, item.choices) for v in value]
        return None if any(v is None for v in out) else _unstated(item, out)
    return _unstated(item, _scalar(item.type, item.default, item.choices))


def _unstated(item: Input, default):
    """`default`, with the original's own statement of it at the end of the description
    (`(default: True)`, `[default: 88]`, from `%(default)s`) dropped: help, cards and schemas
    state the default once, from the model."""
    if default is None:
        return None
    text = first_paragraph(item.description)
    for stated in (f"(default: {item.default})", f"[default: {item.default}]"):
        if text.endswith(stated):
            item.description = text[:-len(stated)].rstrip(" ;,")
            break
    return default


# -- the program -----------------------------------------------------------------------------

def program(spec: Spec, effects: dict | None, *, name=None, version=None, description=None,
            examples: dict | None = None):
    """Build and check the Program for a described tree."""
    effects = dict(effects or {})
    examples = {path: [value] if isinstance(value, str) else list(value)
                for path, value in (examples or {}).items()}
    for path, value in effects.items():
        if value not in EFFECTS:
            raise DefinitionError(
                f"adapt(effects=...): {path!r} maps to {value!r}; use one of: "
                f"{', '.join(EFFECTS)}")
    program_name = name or command_name(spec.name)
    if spec.single and spec.children:
        spec.children[0].name = program_name
    used: set = set()
    shared: dict = {}   # id(the original's parameter) -> its key, for options a group shares
    root_options = {} if spec.single else _shared_options(spec, spec.children, 0, shared)
    children = _nodes(spec, spec.children, (), effects, used, top=True, examples=examples,
                      shared=shared)
    paths = set(_paths(children))
    for path, lines in examples.items():
        if path not in paths:
            raise DefinitionError(
                f"adapt(examples=...): no command {path!r}; the commands are: "
                f"{', '.join(repr(p) for p in sorted(paths))}")
    unknown = [path for path in effects if path not in used]
    if unknown:
        raise DefinitionError(
            f"adapt(effects=...): no command {', '.join(map(repr, unknown))}; the commands are: "
            f"{', '.join(repr(p) for p in sorted(_paths(children)))} (paths without the "
            f"program name, space-joined)")
    if not children:
        raise DefinitionError(f"{spec.library} program {program_name!r} has no commands to adapt")
    made = Program(name=program_name, version=version or spec.version or "0.0.0",
                   description=description if description is not None else spec.description,
                   commands=children, single=spec.single, options=root_options)
    made.adapter_problems = [tuple(part.replace("{program}", program_name)
                                   if isinstance(part, str) else part for part in problem)
                             for problem in spec.problems]   # listed by the workbench's lint
    return made


def _paths(nodes, prefix=()):
    for node in nodes:
        if node.is_group:
            yield from _paths(node.commands, prefix + (node.name,))
        else:
            yield " ".join(prefix + (node.name,))


def _commands_under(items):
    for item in items:
        if item.kind == "group":
            yield from _commands_under(item.children)
        else:
            yield item


def _spelled(inp) -> set:
    """The spellings an option Input would take here: its key's flags and its short."""
    key = input_key(inp.name)
    if key in RESERVED_OPTIONS:
        key += "_option"
    return _flags(key, inp.type) | {key} | ({"-" + inp.short} if inp.short else set())


def _shared_options(spec, items, level: int, shared: dict) -> dict:
    """The options a group (the root at level 0) gives every command under it, as the
    group's own `options`: each of its option Inputs whose spellings no command under it
    uses for anything else (such a one stays a per-command option, named apart, as before).
    Records each shared parameter's key in `shared`."""
    inputs = spec.options
    if not inputs:
        return {}
    commands = list(_commands_under(items))
    options: dict = {}
    shorts: set = set(RESERVED_SHORTS)
    for inp in inputs:
        if inp.positional:
            continue
        mine = _spelled(inp)
        clash = any(mine & _spelled(other) for command in commands for other in command.inputs
                    if not other.positional and other.ref is not inp.ref)
        if clash or not commands:
            continue
        key = input_key(inp.name)
        if key in RESERVED_OPTIONS:
            key += "_option"
        if key in _AVOID_KEYS:
            continue
        options[key] = _option_for(inp, shorts)
        shared[id(inp.ref)] = key
    return options


def _option_for(inp, shorts: set):
    """The Option for an option Input, normalised as the model wants it (a short letter
    taken already, or reserved, is dropped; a choice-less enum becomes a string)."""
    short = inp.short if isinstance(inp.short, str) and len(inp.short) == 1 \
        and inp.short in _SHORTS and inp.short not in shorts else None
    if short:
        shorts.add(short)
    kind = inp.type
    choices = [str(c) for c in inp.choices] if inp.choices else None
    if kind == "enum" and not choices:
        kind = "string"
    items = inp.items
    if kind == "list" and items == "enum" and not choices:
        items = "string"
    if kind not in ("enum",) and not (kind == "list" and items == "enum"):
        choices = None
    inp.choices = choices
    inp.type = kind
    inp.items = items
    required = bool(inp.required) and kind != "boolean"
    default = None if required else clean_default(inp)
    env = inp.env if isinstance(inp.env, str) and inp.env and "=" not in inp.env \
        and " " not in inp.env else None
    more = dict(inp.more)
    bare, greedy = more.pop("bare", None), more.pop("greedy", None)
    if more.get("prompt") is not None:
        required = False   # asked for, or refused as input_required when nobody can answer
    if more.get("count") and more.get("max") is None:
        more["max"] = COUNT_LIMIT   # the runner spells a count as that many flags
    option = Option(type=kind, description=first_paragraph(inp.description),
                    required=required, default=default, choices=choices, env=env,
                    short=short, sensitive=bool(inp.sensitive), items=items, **more)
    if bare is not None:
        option.bare = bare
    if greedy is not None and kind == "list":
        option.greedy = greedy
    return option


COUNT_LIMIT = 1000
"""The most uses of an original's counted flag (`-v` × N is rebuilt as N flags): a larger
count over MCP would exhaust memory before the original ran, so it is the model's `max`."""


def _nodes(spec, items, prefix, effects, used, top, examples, shared):
    out = []
    taken: set = set(RESERVED_COMMANDS) if top else set()
    for item in items:
        base = command_name(item.name)
        if top and base in RESERVED_COMMANDS:
            base = f"{base}-{item.kind}"
        label = _unique(base, taken, "-")
        taken.add(label)
        aliases = []
        for alias in item.aliases:
            alias = command_name(alias)
            if alias not in taken:
                taken.add(alias)
                aliases.append(alias)
        path = prefix + (label,)
        if item.kind == "group":
            group_options = _shared_options(item, item.children, len(path), shared) \
                if item.options else {}
            inner = _nodes(spec, item.children, path, effects, used, top=False,
                           examples=examples, shared=shared)
            if not inner:
                continue
            out.append(Group(label, first_paragraph(item.description), inner,
                             aliases=aliases, hidden=item.hidden, options=group_options))
            continue
        joined = " ".join(path)
        effect = None
        if joined in effects:
            used.add(joined)
            effect = effects[joined]
        command = _command(spec, item, label, aliases, effect or "undeclared", joined, shared)
        command.examples = list(examples.get(joined, ()))
        out.append(command)
    return out


def _command(spec, item: CommandSpec, label, aliases, effect, where, shared):
    options: dict = {}
    arguments: list = []
    flags_taken: set = set()
    keys: set = set(_AVOID_KEYS)
    shorts: set = set(RESERVED_SHORTS)
    by_key: dict = {}
    for inp in item.inputs:   # a group's shared option: declared by the group, passed on here
        key = shared.get(id(inp.ref))
        if key is not None and not inp.positional:
            inp.key = key
            by_key[key] = inp
            keys.add(key)
            flags_taken |= _spelled(inp)
            if inp.short:
                shorts.add(inp.short)
    deepest = max([i.level for i in item.inputs], default=0)
    # The command's own options first (they keep their names), then its groups', innermost
    # first: a group option that collides gets the group's prefix.
    own_first = sorted((i for i in item.inputs if not i.positional and id(i.ref) not in shared),
                       key=lambda i: -i.level)
    for inp in own_first:
        key = input_key(inp.name)
        if key in RESERVED_OPTIONS:
            key = key + "_option"
        if key in keys or _flags(key, inp.type) & flags_taken:
            if inp.level < deepest:   # a group's option that a command also has
                key = f"group{inp.level}_{key}" if inp.level else f"root_{key}"
            key = _unique(key, keys, "_")
            while _flags(key, inp.type) & flags_taken:
                key = _unique(key + "_opt", keys, "_")
        keys.add(key)
        flags_taken |= _flags(key, inp.type)
        more = inp.more
        off = more.get("off")
        if off is not None and (off in flags_taken or _flags(off.lstrip("-").replace(
                "-", "_"), "string") & flags_taken):
            more = {k: v for k, v in more.items() if k != "off"}   # its spelling is taken
        if off is not None and "off" in more:
            flags_taken.add(off)
        inp.more = more
        options[key] = _option_for(inp, shorts)
        inp.key = key
        by_key[key] = inp
    optional_seen = False
    positionals = [i for i in item.inputs if i.positional]
    for index, inp in enumerate(positionals):
        name = command_name(inp.name)
        if not name[0].isalpha():
            name = "arg-" + name
        key = name.replace("-", "_")
        if key in keys:
            name = _unique(name + "-arg", {k.replace("_", "-") for k in keys}, "-")
            key = name.replace("-", "_")
        keys.add(key)
        later = positionals[index + 1:]   # `SRC... DST`: a variadic one before required ones
        variadic = bool(inp.variadic) and not any(a.variadic for a in positionals[:index]) \
            and all(a.required and not a.variadic for a in later)
        kind = inp.type if inp.type != "list" else inp.items
        choices = [str(c) for c in inp.choices] if inp.choices and kind == "enum" else None
        if kind == "enum" and not choices:
            kind = "string"
        inp.type, inp.choices = kind, choices
        inp.variadic = variadic
        required = bool(inp.required) and not optional_seen
        if inp.required and optional_seen:
            spec.problems.append((
                "warning", "positional_order",
                f"'{where}' argument {inp.name} is required but follows an optional one, so it "
                f"is optional here; the original still refuses a call without it",
                f"give every argument up to {inp.name} (as the original's usage line shows), "
                f"or make the earlier one an option in the original", where))
        if not required and not variadic:
            optional_seen = True
        default = None if required else clean_default(inp)
        if variadic and default is not None and not isinstance(default, list):
            default = None
        if not variadic and isinstance(default, list):
            default = None
        env = inp.env if isinstance(inp.env, str) and inp.env and "=" not in inp.env \
            and " " not in inp.env else None
        checks = {k: v for k, v in inp.more.items()
                  if k in ("min", "max", "exists", "kind", "readable", "writable")}
        arguments.append(Argument(name, type=kind, description=first_paragraph(inp.description),
                                  required=required, variadic=variadic, choices=choices,
                                  default=None if variadic else default, env=env, **checks))
        if variadic and inp.more.get("rest") and index == len(positionals) - 1:
            arguments[-1].rest = True
        inp.key = key
        by_key[key] = inp
    command = Command(label, first_paragraph(item.description), effects=effect, options=options,
                      arguments=arguments, aliases=aliases, hidden=bool(item.hidden),
                      deprecated=item.deprecated or None)
    adapter = Adapted(spec.library, item, by_key)
    command.adapter = adapter
    from workbench.adapters._capture import render_text
    command.text = render_text
    return command


def _flags(key: str, kind: str) -> set:
    """The spellings an option with this key and type would take (the parameter model's)."""
    probe = Option(type=kind)
    probe.key = key
    return set(probe.spellings)


def group_name(chain, level: int) -> str:
    """The name of the group at `level` of a chain; the root is `{program}`, filled in by
    `program()` once the program's final name is known (an entry point's, say)."""
    return "{program}" if level == 0 else chain[level][1]


def group_argument_dropped(where: str, group: str, name: str, how: str) -> tuple:
    """The problem for a command under a group that takes its own positional argument,
    which the model does not carry (the command cannot be called through it)."""
    return ("error", "group_argument_dropped",
            f"'{where}' cannot be called: its group '{group}' takes the argument {name}, which "
            f"the adapter does not model",
            f"make {name} an option of the group in the original ({how}), or call the original "
            f"directly", where)


def text_value(value) -> str:
    """A value as the original program's parser reads it (`true`/`false` for booleans; a
    datetime as `YYYY-MM-DDTHH:MM:SS`, which Click's and Typer's DateTime read)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value).__name__ == "datetime" and hasattr(value, "strftime"):
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    isoformat = getattr(value, "isoformat", None)
    if isoformat is not None:
        return isoformat()
    return str(value)


def rebuild_argv(chain, given, option_tokens) -> list:
    """The original program's own argv: each level's subcommand token then its options,
    positionals last (after `--` when one looks like a flag).

    `chain` is `[(node, token)]` from the root; `given` is `[(Input, value)]` the caller gave;
    `option_tokens(ref, item, value)` spells one option in the library's syntax.
    """
    options: list[list] = [[] for _ in chain]
    positionals: list = []
    rest: list = []
    for item, value in given:
        if not item.positional:
            options[item.level] += option_tokens(item.ref, item, value)
            continue
        values = [text_value(v) for v in value] if isinstance(value, list) \
            else [text_value(value)]
        if item.more.get("rest"):
            rest = values   # argparse's REMAINDER: taken as they come, flags and all
        else:
            positionals += values
    argv = []
    for level, (_, token) in enumerate(chain):
        if level:
            argv.append(token)
        argv += options[level]
    flagged = positionals if positionals else rest[:1]
    takes_more = any("greedy" in item.more or "bare" in item.more   # `-k a b`, `-L [x]`
                     for item, _ in given if not item.positional)
    if any(p.startswith("-") and p != "-" for p in flagged) or (positionals and takes_more):
        argv.append("--")
    return argv + positionals + rest


def takes_argument(fn) -> bool:
    """Whether an entry function takes the argv (`main(argv)`), else it reads `sys.argv`."""
    import inspect
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
               for p in parameters)
