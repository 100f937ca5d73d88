"""Typed declarations: commands from functions with type hints, built into the same Program.

    from typing import Annotated, Literal
    from workbench.typed import App, Arg, Opt

    app = App("tool", version="1.0.0", description="Ship builds")

    @app.command(effects="read_only", examples=["tool status --target prod"])
    def status(target: Literal["staging", "prod"] = "staging") -> dict:
        '''Show what is deployed where.

        Args:
            target: which target
        '''

`app.program` is a plain `Program` (checked on construction, like the data form); every
surface reads it and never this module. Hints are read from `__annotations__`,
`__defaults__`, `__kwdefaults__` and `__code__` directly, and typing's objects only through
their `__origin__`, `__args__` and `__metadata__` attributes, so reading them imports nothing
the program did not import itself (no `inspect`, no `typing`).
"""

from __future__ import annotations

import sys

from workbench.declaration.model import (
    Argument, Command, DefinitionError, Group, Option, Program,
)

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SUPPORTED = ("str, int, float, bool, Literal[...], list[T], Optional[T] (or T | None) or "
              "Path, optionally inside Annotated[T, Opt(...)] / Annotated[T, Arg(...)]")
_PASSED = ("name", "aliases", "hidden", "output", "text", "plan", "since", "deprecated",
           "replaced_by", "paginated", "batch", "errors", "description")


_NOTHING = object()   # no default: the input is required


class Opt:
    """Metadata for an option: `Annotated[str, Opt(short="t", env="TOKEN", sensitive=True)]`,
    or as the default, Typer's older style: `target: str = Opt(short="t")` (required) or
    `build: str = Opt("build to ship", default="latest")` (no `typing` import needed).

    Also makes a parameter without a default a required option (instead of an argument).

    Args:
        description: the help text (default: the docstring's line for the parameter).
        default: the value when the option is not given (as the default form's default).
        short: a one-letter short flag, with or without its dash (`"t"` or `"-t"`).
        env: an environment variable read when the flag is not given.
        sensitive: mask the value everywhere it could be shown or stored.
        aliases: other long spellings accepted (each warns in `meta.warnings`).
        placeholder: the value's name in help (`--target ENV`).
        since: the version that added the option.
        deprecated: mark the option deprecated (a message, or True).
        replaced_by: the option to use instead, named in the deprecation warning.
        negatable: for a `bool`, also accept `--no-NAME` (default True).
    """

    __slots__ = ("description", "short", "env", "sensitive", "aliases", "placeholder",
                 "since", "deprecated", "replaced_by", "negatable", "default")

    def __init__(self, description: str | None = None, *, default: object = _NOTHING,
                 short: str | None = None,
                 env: str | None = None, sensitive: bool = False, aliases: tuple[str, ...] | list[str] = (),
                 placeholder: str | None = None, since: str | None = None,
                 deprecated: str | bool | None = None, replaced_by: str | None = None,
                 negatable: bool = True):
        self.description = description
        self.short = short
        self.env = env
        self.sensitive = sensitive
        self.aliases = aliases
        self.placeholder = placeholder
        self.since = since
        self.deprecated = deprecated
        self.replaced_by = replaced_by
        self.negatable = negatable
        self.default = default


class Arg:
    """Metadata for a positional argument: `Annotated[str, Arg(stdin=True)]`, or as the
    default: `file: str = Arg(stdin=True)`, `file: str = Arg(default="-")`.

    Also makes a parameter with a default an optional argument (instead of an option).

    Args:
        description: the help text (default: the docstring's line for the parameter).
        default: the value when the argument is not given.
        stdin: `-` (or no value, when stdin is piped) reads the value from stdin.
        since: the version that added the argument.
        deprecated: mark the argument deprecated (a message, or True).
    """

    __slots__ = ("description", "stdin", "since", "deprecated", "default")

    def __init__(self, description: str | None = None, *, default: object = _NOTHING,
                 stdin: bool = False, since: str | None = None,
                 deprecated: str | bool | None = None):
        self.default = default
        self.description = description
        self.stdin = stdin
        self.since = since
        self.deprecated = deprecated


class App:
    """A program (or, added to another App, a group) whose commands are typed functions.

    `@app.command(effects=...)` declares a command; `app.group(name)` returns a nested App;
    `app.program` is the checked Program every surface reads.

    Args:
        name: the program's (or group's) name, as typed on the command line.
        version: the program's version (`--version`, `meta`, the semver rules).
        description: one line saying what the program does.
        aliases: other names for the group (a mounted App only).
        hidden: keep the group out of help and tool lists (a mounted App only).
        budgets: character/token budgets per surface, as `Program(budgets=...)`.
        schema_version: the envelope's `schema_version`.
        output_budget: an agent's output budget for paginated commands, in characters.
        single: the program is its one command, typed without its name.
    """

    def __init__(self, name: str, version: str = "0.0.0", description: str = "", *,
                 aliases: tuple[str, ...] | list[str] = (), hidden: bool = False, budgets: dict | None = None,
                 schema_version: str = "1", output_budget: int | None = None,
                 single: bool = False):
        self.name = name
        self.version = version
        self.description = description
        self.aliases = tuple(aliases)
        self.hidden = hidden
        self.settings = {"budgets": budgets, "schema_version": schema_version,
                         "output_budget": output_budget, "single": single}
        self._nodes: list = []   # ("command", function, options) or ("group", App)
        self._program = None
        self._mounted = False   # a group of another App (then never a program of its own)
        caller = sys._getframe(1)
        self._frame = caller if caller.f_code.co_name == "<module>" else None

    def command(self, name: str | None = None, *, effects: str | None = None, examples: tuple[str, ...] | list[str] = (),
                **options: object):
        """Declare the decorated function as a command; its hints are its inputs.

        `name` defaults to the function's name with `_` as `-`; `description` to the
        docstring's first paragraph. Other keywords are `Command`'s (output, text, plan,
        aliases, hidden, since, deprecated, replaced_by, paginated, batch, errors).

        Args:
            name: the command's name (default: the function's, `_` as `-`).
            effects: `read_only`, `idempotent`, `non_idempotent` or `undeclared` (required).
            examples: command lines that run it, checked by parsing and run by the workbench.
            **options: any other `Command` keyword, passed through unchanged.
        """
        if callable(name) and not isinstance(name, str):
            raise DefinitionError(f"@{self.name}.command needs effects=...; write "
                                  f"@app.command(effects='read_only') (or another effect)")
        unknown = [key for key in options if key not in _PASSED]
        if unknown:
            raise DefinitionError(f"@command got unknown keyword {unknown[0]!r}; use one of: "
                                  f"{', '.join(('effects', 'examples') + _PASSED)}")
        options = {**dict.fromkeys(_PASSED), **options, "name": name, "effects": effects,
                   "examples": list(examples)}

        def declare(function):
            self._nodes.append(("command", function, options))
            self._program = None
            return function
        return declare

    def group(self, name: str, description: str = "", *, aliases: tuple[str, ...] | list[str] = (),
              hidden: bool = False) -> App:
        """A nested group: `sync = app.group("sync")`, then `@sync.command(...)`."""
        group = App(name, description=description, aliases=aliases, hidden=hidden)
        self.add_group(group)
        return group

    def add_group(self, group: App, name: str | None = None,
                  description: str | None = None) -> App:
        """Mount another App as a group of this one (Typer's `add_typer`)."""
        if not isinstance(group, App):
            raise DefinitionError(f"add_group takes an App, got {type(group).__name__}; "
                                  f"build the group with App(name, description=...)")
        if name is not None:
            group.name = name
        if description is not None:
            group.description = description
        group._mounted = True
        self._nodes.append(("group", group, None))
        self._program = None
        return group

    @property
    def program(self) -> Program:
        """The Program these declarations build (built and checked once, on first use)."""
        if self._program is None:
            settings = self.settings
            program = Program(self.name, self.version, self.description, self._children(),
                              settings["budgets"], schema_version=settings["schema_version"],
                              output_budget=settings["output_budget"], check=False,
                              single=settings["single"])
            from workbench.declaration._checks import check_once
            check_once(program, self._frame or sys._getframe(0))
            self._program = program
        return self._program

    def as_program(self) -> Program:
        """The same as `app.program`."""
        return self.program

    def _children(self) -> list:
        built = []
        for kind, item, options in self._nodes:
            if kind == "group":
                built.append(Group(item.name, item.description, item._children(),
                                   aliases=item.aliases, hidden=item.hidden))
            else:
                built.append(_command(item, options))
        return built

    def __repr__(self) -> str:
        return f"App({self.name!r}, {len(self._nodes)} entries)"


def programs_in(namespace: dict) -> list:
    """(variable name, Program) for each App at the top of a module namespace (groups
    mounted in another App are part of that one)."""
    return [(key, value.program) for key, value in list(namespace.items())
            if isinstance(value, App) and not value._mounted and not key.startswith("__")]


# --- one function -> one Command -------------------------------------------------------------

def _where(function) -> str:
    code = getattr(function, "__code__", None)
    at = f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code else ""
    return f"function {getattr(function, '__name__', function)!r}{at}"


def _command(function, options: dict) -> Command:
    where = _where(function)
    code = getattr(function, "__code__", None)
    if code is None:
        raise DefinitionError(f"{where}: @command decorates a plain function (def ...); "
                              f"got {type(function).__name__}")
    if options["effects"] is None:
        raise DefinitionError(f"{where} has no effects; write @app.command(effects=...) with "
                              f"one of: 'read_only', 'idempotent', 'non_idempotent', 'withheld'")
    if code.co_flags & 0x0C:
        raise DefinitionError(f"{where} takes *args or **kwargs; declare each input as its "
                              f"own parameter with a type hint")
    if code.co_posonlyargcount:
        raise DefinitionError(f"{where} has positional-only parameters (before '/'); drop "
                              f"the '/' so inputs can be passed by name")
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    defaults = _defaults(function, code, names)
    hints = _hints(function, where)
    summary, described = _docstring(function.__doc__)
    option_map, arguments, inputs, context = {}, [], [], None
    for name in names:
        if _is_context(name, hints.get(name)):
            context = name
            continue
        if name not in hints:
            raise DefinitionError(f"{where}: parameter {name!r} has no type hint; annotate it, "
                                  f"e.g. `{name}: str`, so burgee knows its type")
        param, convert, positional = _param(name, hints[name], defaults, described, where)
        if positional:
            arguments.append(param)
        else:
            option_map[name] = param
        inputs.append((name, positional, convert))
    returned = hints.get("return")
    output, plain = options["output"], False
    if output is None and returned is not None:
        output, plain = _output_schema(returned, getattr(function, "__globals__", {}))
    plan = options["plan"]
    if plan is not None and getattr(plan, "__code__", None) is not None:
        plan = _caller(plan, _plan_inputs(plan, inputs, where), _context_of(plan), False)
    name = options["name"] or function.__name__.replace("_", "-")
    description = options["description"]
    return Command(name, summary if description is None else description, options["effects"],
                   option_map, arguments, options["examples"], output,
                   _caller(function, inputs, context, plain), plan, options["text"],
                   options["aliases"] or (), options["hidden"] or False,
                   since=options["since"], deprecated=options["deprecated"],
                   replaced_by=options["replaced_by"], paginated=options["paginated"] or False,
                   batch=options["batch"] or False, errors=options["errors"] or ())


def _defaults(function, code, names) -> dict:
    out = {}
    positional = names[:code.co_argcount]
    values = function.__defaults__ or ()
    for name, value in zip(positional[len(positional) - len(values):], values):
        out[name] = value
    out.update(function.__kwdefaults__ or {})
    return out


def _hints(function, where) -> dict:
    """The function's annotations, strings (`from __future__ import annotations`) evaluated
    in its module's globals."""
    raw = getattr(function, "__annotations__", None) or {}
    out = {}
    for name, hint in raw.items():
        if isinstance(hint, str) or hasattr(hint, "__forward_arg__"):
            hint = _evaluate(hint, getattr(function, "__globals__", {}), f"{where}: the hint "
                             f"of {name!r}")
        out[name] = hint
    return out


def _evaluate(text, namespace: dict, what: str):
    """A string annotation (or typing's ForwardRef) evaluated in `namespace`."""
    while isinstance(text, str) or hasattr(text, "__forward_arg__"):
        text = text if isinstance(text, str) else text.__forward_arg__
        try:
            text = eval(text, dict(namespace))   # noqa: S307 - the program's own annotation
        except Exception as error:  # noqa: BLE001 - any failure is a definition problem
            raise DefinitionError(f"{what} {text!r} cannot be evaluated ({type(error).__name__}"
                                  f": {error}); import the names it uses at module level") \
                from None
    return text


def _is_context(name: str, hint) -> bool:
    """Whether a parameter receives `ctx`: named `ctx`, or annotated `Context`."""
    if name == "ctx" or hint == "Context":
        return True
    return isinstance(hint, type) and hint.__name__ == "Context" and \
        hint.__module__ == "workbench.runtime.context"


def _context_of(function) -> str | None:
    """The name of the parameter of `function` that receives `ctx`, or None."""
    code = function.__code__
    hints = getattr(function, "__annotations__", None) or {}
    for name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
        if _is_context(name, hints.get(name)):
            return name
    return None


def _special(hint) -> str | None:
    """'Literal', 'Union', 'Annotated', 'list'... for typing's objects, read from attributes."""
    if type(hint).__name__ == "UnionType":
        return "Union"
    if getattr(hint, "__metadata__", None) is not None:
        return "Annotated"
    origin = getattr(hint, "__origin__", None)
    if origin is None:
        return None
    if origin is list or origin is tuple or origin is set or origin is dict:
        return origin.__name__
    return getattr(origin, "_name", None)


def _unwrap(hint):
    """(hint without Annotated and Optional, [Opt/Arg metadata], optional?)."""
    meta, optional = [], False
    if _special(hint) == "Annotated":
        meta = [m for m in hint.__metadata__ if isinstance(m, (Opt, Arg))]
        hint = hint.__origin__
    if _special(hint) == "Union":
        rest = [a for a in hint.__args__ if a is not type(None)]
        optional = len(rest) < len(hint.__args__)
        hint = rest[0] if len(rest) == 1 else hint
        if _special(hint) == "Annotated":
            inner, more, _ = _unwrap(hint)
            hint, meta = inner, meta + more
    return hint, meta, optional


def _scalar(hint, where: str, name: str):
    """(type, choices, convert) of a scalar hint, or a DefinitionError naming the fix."""
    kind = _SCALARS.get(hint) if isinstance(hint, type) else None
    if kind is not None:
        return kind, None, None
    special = _special(hint)
    if special == "Literal":
        choices = list(hint.__args__)
        if not (all(isinstance(c, str) for c in choices) or
                all(isinstance(c, int) and not isinstance(c, bool) for c in choices)):
            raise DefinitionError(f"{where}: parameter {name!r}: Literal values must be all "
                                  f"strings or all integers, e.g. Literal['low', 'high']")
        return "enum", choices, None
    if isinstance(hint, type):
        if hint.__module__ == "pathlib" or (hint.__module__ == "os" and
                                            hint.__name__ == "PathLike"):
            return "string", None, (hint if hint.__module__ == "pathlib" else None)
        enum = sys.modules.get("enum")
        if enum is not None and issubclass(hint, enum.Enum):
            return "enum", [member.value for member in hint], hint
    if special == "Union":
        raise DefinitionError(f"{where}: parameter {name!r} has the union {hint!r}; a command "
                              f"line value has one type: use one type, or Optional[T] "
                              f"(T | None) for a value that may be absent")
    raise DefinitionError(f"{where}: parameter {name!r} has the type hint {hint!r}, which "
                          f"burgee cannot read from a command line; use {_SUPPORTED}")


def _param(name: str, hint, defaults: dict, described: dict, where: str):
    """(Option or Argument, convert or None, positional?) for one parameter."""
    base, meta, _optional = _unwrap(hint)
    if len(meta) > 1:
        raise DefinitionError(f"{where}: parameter {name!r} has {len(meta)} Opt/Arg markers; "
                              f"keep one")
    marker = meta[0] if meta else None
    if marker is not None and marker.default is not _NOTHING:
        raise DefinitionError(f"{where}: parameter {name!r}: inside Annotated[...] give the "
                              f"default after '=', not as {type(marker).__name__}(default=...)")
    given = defaults.get(name, _NOTHING)
    if isinstance(given, (Opt, Arg)):   # Typer's older style: the marker is the default
        if marker is not None:
            raise DefinitionError(f"{where}: parameter {name!r} has metadata both in "
                                  f"Annotated[...] and as its default; keep one")
        marker = given
        defaults = dict(defaults)
        if given.default is _NOTHING:
            defaults.pop(name, None)
        else:
            defaults[name] = given.default
    many = base is list or _special(base) in ("list", "tuple", "set")
    if many:
        args = getattr(base, "__args__", None) or (str,)
        if _special(base) == "tuple" and (len(args) != 2 or args[1] is not Ellipsis):
            raise DefinitionError(f"{where}: parameter {name!r}: use list[T] (or "
                                  f"tuple[T, ...]) for several values")
        kind, choices, convert = _scalar(_unwrap(args[0])[0], where, name)
        if kind == "boolean":
            raise DefinitionError(f"{where}: parameter {name!r}: a list of booleans cannot be "
                                  f"given on a command line; use list[str] or a single bool flag")
    else:
        kind, choices, convert = _scalar(base, where, name)
    has_default = name in defaults
    default = defaults.get(name)
    if convert is not None and default is not None:   # Path / Enum defaults as plain values
        default = [_plain_value(d) for d in default] if many else _plain_value(default)
    if default is False and kind == "boolean" or (many and default is not None and
                                                  not default):
        default = None   # a flag's False and an empty list are what absence gives anyway
    if isinstance(default, tuple):
        default = list(default)
    description = (marker.description if marker is not None and marker.description is not None
                   else described.get(name, ""))
    positional = isinstance(marker, Arg) or (marker is None and not has_default
                                             and kind != "boolean")
    if positional:
        if kind == "boolean":
            raise DefinitionError(f"{where}: parameter {name!r} is a bool marked Arg(); a bool "
                                  f"is a --flag: drop Arg(...)")
        marker = marker or Arg()
        return Argument(name.replace("_", "-"), kind, description, required=not has_default,
                        variadic=many, stdin=marker.stdin, choices=choices,
                        default=default if has_default else None, since=marker.since,
                        deprecated=marker.deprecated), convert, True
    marker = marker or Opt()
    option = Option("list" if many else kind, description,
                    required=not has_default and kind != "boolean", default=default,
                    choices=choices, env=marker.env, short=marker.short,
                    sensitive=marker.sensitive, placeholder=marker.placeholder,
                    since=marker.since, deprecated=marker.deprecated,
                    replaced_by=marker.replaced_by, aliases=marker.aliases,
                    items=kind if many else "string", negatable=marker.negatable)
    return option, convert, False


def _plain_value(value):
    return getattr(value, "value", None) if hasattr(value, "_value_") else str(value)


def _plan_inputs(plan, inputs, where) -> list:
    code = plan.__code__
    wanted = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    known = {item[0]: item for item in inputs}
    for name in wanted:
        if name not in known and name != _context_of(plan):
            raise DefinitionError(f"{where}: its plan function takes {name!r}, which is not "
                                  f"one of the command's inputs ({', '.join(known) or 'none'}); "
                                  f"rename it to match, or take ctx")
    return [known[name] for name in wanted if name in known]


def _caller(function, inputs, context, plain):
    """`run(ctx)` (or `plan(ctx)`) calling `function` with its inputs as keyword arguments."""
    def run(ctx):
        options, args = ctx.options, ctx.args
        kwargs = {}
        for name, positional, convert in inputs:
            value = (args if positional else options)[name]
            if convert is not None and value is not None:
                value = [convert(v) for v in value] if isinstance(value, list) \
                    else convert(value)
            kwargs[name] = value
        if context is not None:
            kwargs[context] = ctx
        result = function(**kwargs)
        return _to_data(result) if plain else result
    run.__name__ = getattr(function, "__name__", "run")
    run.__qualname__ = getattr(function, "__qualname__", run.__name__)
    run.__doc__ = function.__doc__
    run.__module__ = getattr(function, "__module__", None)
    run.__wrapped__ = function
    return run


def _to_data(value):
    """Dataclass instances (anywhere in lists and dicts) as plain dicts."""
    fields = getattr(type(value), "__dataclass_fields__", None)
    if fields is not None:
        return {key: _to_data(getattr(value, key)) for key in fields}
    if isinstance(value, (list, tuple)):
        return [_to_data(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_data(item) for key, item in value.items()}
    return value


# --- docstrings ------------------------------------------------------------------------------

_SECTIONS = ("args:", "arguments:", "parameters:", "params:")


def _docstring(doc) -> tuple[str, dict]:
    """(first paragraph as one line, {parameter: description}) from a Google-style
    `Args:` block or a NumPy-style `Parameters` / `----------` block."""
    if not doc:
        return "", {}
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    cut = min(indents) if indents else 0
    lines = [lines[0].strip()] + [line[cut:].rstrip() for line in lines[1:]]
    while lines and not lines[0]:
        lines.pop(0)
    summary = []
    for line in lines:
        if not line.strip():
            break
        summary.append(line.strip())
    described: dict = {}
    for index, line in enumerate(lines):
        head = line.strip().lower()
        numpy = head in ("parameters", "arguments", "args") and index + 1 < len(lines) and \
            lines[index + 1].strip() and set(lines[index + 1].strip()) == {"-"}
        if head in _SECTIONS or numpy:
            _entries(lines[index + (2 if numpy else 1):], numpy, described)
    return " ".join(summary), described


def _entries(lines, numpy: bool, described: dict) -> None:
    base, current = None, None
    for number, line in enumerate(lines):
        if not line.strip():
            if numpy and number + 1 < len(lines) and _header_next(lines, number + 1):
                return
            continue
        indent = len(line) - len(line.lstrip())
        if base is None:
            base = indent
        if indent < base or (numpy and _header_next(lines, number)):
            return
        text = line.strip()
        if indent == base:
            name, sep, rest = text.partition(":") if not numpy else text.partition(" :")
            if numpy and not sep:
                name, rest = text, ""
            name = name.split("(")[0].strip().lstrip("*")
            if not name or " " in name:
                return
            current = name
            described[current] = "" if numpy else rest.strip()
        elif current is not None:
            described[current] = (described[current] + " " + text).strip()


def _header_next(lines, number: int) -> bool:
    following = lines[number + 1].strip() if number + 1 < len(lines) else ""
    return bool(following) and set(following) == {"-"}


# --- output schema from the return annotation --------------------------------------------

def _output_schema(hint, namespace: dict):
    """(JSON Schema, holds dataclasses?) for a TypedDict / dataclass (or a list of one)
    return annotation; (None, False) for anything else."""
    hint = _unwrap(hint)[0]
    target = hint
    if _special(hint) == "list" and getattr(hint, "__args__", None):
        target = _unwrap(hint.__args__[0])[0]
    if not _is_record(target):
        return None, False
    holder: list = []
    return _schema(hint, holder, namespace), bool(holder)


def _is_record(hint) -> bool:
    return isinstance(hint, type) and (hasattr(hint, "__dataclass_fields__") or (
        issubclass(hint, dict) and hasattr(hint, "__required_keys__")))


def _schema(hint, holder: list, namespace: dict) -> dict:
    if isinstance(hint, str) or hasattr(hint, "__forward_arg__"):
        hint = _evaluate(hint, namespace, "the output hint")
    hint, _meta, optional = _unwrap(hint)
    special = _special(hint)
    if special in ("Required", "NotRequired", "ReadOnly"):
        return _schema(hint.__args__[0], holder, namespace)
    if isinstance(hint, type) and _is_record(hint):
        schema = _record(hint, holder, namespace)
    elif hint is list or special in ("list", "tuple", "set"):
        args = getattr(hint, "__args__", None)
        schema = {"type": "array"}
        if args:
            schema["items"] = _schema(args[0], holder, namespace)
    elif hint is dict or special == "dict":
        schema = {"type": "object"}
    elif special == "Literal":
        values = list(hint.__args__)
        schema = {"type": "string", "enum": values} if all(isinstance(v, str) for v in values) \
            else {"enum": values}
    elif isinstance(hint, type) and hint in _SCALARS:
        schema = {"type": _SCALARS[hint]}
    else:
        schema = {}
    if optional and "type" in schema:
        schema["type"] = [schema["type"], "null"]
    return schema


def _record(kind, holder: list, namespace: dict) -> dict:
    module = sys.modules.get(kind.__module__)   # its own module, else the function's
    namespace = vars(module) if module is not None else namespace
    fields = getattr(kind, "__dataclass_fields__", None)
    if fields is not None:
        holder.append(kind)
        missing = getattr(sys.modules.get("dataclasses"), "MISSING", None)
        items = [(name, field.type) for name, field in fields.items()
                 if getattr(field, "_field_type", None) is None or
                 getattr(field._field_type, "name", "_FIELD") == "_FIELD"]
        required = [name for name, field in fields.items() if field.default is missing and
                    field.default_factory is missing]
    else:
        items = list(kind.__annotations__.items())
        keys = kind.__required_keys__
        required = [name for name, _ in items if name in keys]
    properties = {}
    for name, hint in items:
        if isinstance(hint, str) or hasattr(hint, "__forward_arg__"):
            hint = _evaluate(hint, namespace, f"{kind.__name__}.{name}: the hint")
        properties[name] = _schema(hint, holder, namespace)
    schema: dict = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if fields is not None or getattr(kind, "__closed__", False):
        schema["additionalProperties"] = False
    return schema
