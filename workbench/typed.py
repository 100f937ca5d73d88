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

TYPE_CHECKING = False   # typing costs start-up time; only checkers read these
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar, overload

    _F = TypeVar("_F", bound=Callable[..., Any])

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SUPPORTED = ("str, int, float, bool, Literal[...], an Enum, date, datetime, UUID, Path, "
              "list[T], tuple[T, T] (nargs), Optional[T] (or T | None), optionally inside "
              "Annotated[T, Opt(...)] / Annotated[T, Arg(...)], or any type with "
              "Opt(type=a value type)")
_PASSED = ("name", "aliases", "hidden", "output", "text", "plan", "since", "deprecated",
           "replaced_by", "paginated", "batch", "errors", "description", "help", "epilog",
           "destructive", "open_world", "title",
           "self_scope", "instead", "input_json", "plan_tool", "removed_in",   # issue 34
           "verdict", "person_only", "why")
_RICH = {("datetime", "datetime"): "datetime", ("datetime", "date"): "date",
         ("uuid", "UUID"): "uuid"}
"""Classes read as command-line types, by (module, name): no import needed to recognise one."""


_NOTHING = object()   # no default: the input is required


class Opt:
    """Metadata for an option: `Annotated[str, Opt(short="t", env="TOKEN", sensitive=True)]`,
    or as the default, Typer's older style: `target: str = Opt(short="t")` (required) or
    `build: str = Opt("build to ship", default="latest")` (no `typing` import needed).

    Also makes a parameter without a default a required option (instead of an argument).
    A `tuple[int, int]` hint takes two values after the flag (`--point 1 2`).

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
        min: the smallest value of an `int` or `float`.
        max: the largest value of an `int` or `float`.
        exists: a `Path` must exist.
        kind: a `Path` that exists must be a `"file"` or a `"dir"`.
        readable: a `Path` that exists must be readable.
        writable: a `Path` that exists must be writable.
        count: an `int` that counts the flag's uses (`-vvv` is 3).
        off: a `bool`'s own off switch instead of `--no-NAME`, e.g. `off="--deep"`.
        hidden: parsed, left out of human help and completions.
        prompt: ask a person for it when not given (this text, or True for its name).
        confirmation_prompt: ask twice, and require the same answer.
        hide_input: do not echo the answer.
        requires: names of other parameters that must be given with this one.
        conflicts: names of other parameters that must not be given with this one.
        type: a value type (`convert`, `json_schema`, `describe`) for a hint burgee does
            not read itself (`Annotated[ParseResult, Opt(type=URL())]`).
        untrusted: its value is text a third party wrote: listed in `meta.untrusted`, never
            put into a `next` step, escaped for terminals.
        removed_in: with `deprecated`, the version that removes it (`"3.0"`).
    """

    __slots__ = ("description", "short", "env", "sensitive", "aliases", "placeholder",
                 "since", "deprecated", "replaced_by", "negatable", "default", "settings")
    description: str | None   # the slots' types, for checkers
    short: str | None
    env: str | None
    sensitive: bool
    aliases: tuple[str, ...] | list[str]
    placeholder: str | None
    since: str | None
    deprecated: str | bool | None
    replaced_by: str | None
    negatable: bool
    default: object
    settings: dict[str, Any]

    def __init__(self, description: str | None = None, *, default: object = _NOTHING,
                 short: str | None = None,
                 env: str | None = None, sensitive: bool = False, aliases: tuple[str, ...] | list[str] = (),
                 placeholder: str | None = None, since: str | None = None,
                 deprecated: str | bool | None = None, replaced_by: str | None = None,
                 negatable: bool = True, min: float | None = None, max: float | None = None,
                 exists: bool = False, kind: str | None = None, readable: bool = False,
                 writable: bool = False, count: bool = False, off: str | None = None,
                 hidden: bool = False, prompt: str | bool | None = None,
                 confirmation_prompt: bool = False, hide_input: bool = False,
                 requires: tuple[str, ...] | list[str] = (),
                 conflicts: tuple[str, ...] | list[str] = (), type: object = None,
                 untrusted: bool = False, removed_in: str | None = None):
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
        self.settings = _given_settings(
            min=min, max=max, exists=exists, kind=kind, readable=readable, writable=writable,
            count=count, off=off, hidden=hidden, prompt=prompt,
            confirmation_prompt=confirmation_prompt, hide_input=hide_input,
            requires=tuple(requires), conflicts=tuple(conflicts), type=type,
            untrusted=untrusted, removed_in=removed_in)


def _given_settings(**settings: object) -> dict[str, Any]:
    """The keyword arguments that were given (not their defaults), passed on as they are."""
    return {key: value for key, value in settings.items()
            if value is not None and value is not False and value != ()}


class Arg:
    """Metadata for a positional argument: `Annotated[str, Arg(stdin=True)]`, or as the
    default: `file: str = Arg(stdin=True)`, `file: str = Arg(default="-")`.

    Also makes a parameter with a default an optional argument (instead of an option).
    A `list[T]` argument takes several values, and may come before required ones
    (`src: list[Path], dst: Path` reads `copy A B C DEST`).

    Args:
        description: the help text (default: the docstring's line for the parameter).
        default: the value when the argument is not given.
        stdin: `-` (or no value, when stdin is piped) reads the value from stdin.
        since: the version that added the argument.
        deprecated: mark the argument deprecated (a message, or True).
        env: an environment variable read when the argument is not given.
        min: the smallest value of an `int` or `float`.
        max: the largest value of an `int` or `float`.
        exists: a `Path` must exist.
        kind: a `Path` that exists must be a `"file"` or a `"dir"`.
        readable: a `Path` that exists must be readable.
        writable: a `Path` that exists must be writable.
        type: a value type (`convert`, `json_schema`, `describe`) for a hint burgee does
            not read itself.
    """

    __slots__ = ("description", "stdin", "since", "deprecated", "default", "settings")
    description: str | None   # the slots' types, for checkers
    stdin: bool
    since: str | None
    deprecated: str | bool | None
    default: object
    settings: dict[str, Any]

    def __init__(self, description: str | None = None, *, default: object = _NOTHING,
                 stdin: bool = False, since: str | None = None,
                 deprecated: str | bool | None = None, env: str | None = None,
                 min: float | None = None, max: float | None = None, exists: bool = False,
                 kind: str | None = None, readable: bool = False, writable: bool = False,
                 type: object = None):
        self.default = default
        self.description = description
        self.stdin = stdin
        self.since = since
        self.deprecated = deprecated
        self.settings = _given_settings(env=env, min=min, max=max, exists=exists, kind=kind,
                                        readable=readable, writable=writable, type=type)


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
        env_prefix: every option without its own `env` reads `PREFIX` + its command's path +
            its name, upper case (Click's `auto_envvar_prefix`), as `Program(env_prefix=)`.
        ambiguous: words with several meanings, as `Program(ambiguous=)`.
    """

    def __init__(self, name: str, version: str = "0.0.0", description: str = "", *,
                 aliases: tuple[str, ...] | list[str] = (), hidden: bool = False, budgets: dict[str, int] | None = None,
                 schema_version: str = "1", output_budget: int | None = None,
                 single: bool = False, env_prefix: str | None = None,
                 ambiguous: dict[str, Sequence[dict[str, str]]] | None = None):
        self.name = name
        self.version = version
        self.description = description
        self.aliases: tuple[str, ...] = tuple(aliases)
        self.hidden = hidden
        self.settings: dict[str, Any] = {"budgets": budgets, "schema_version": schema_version,
                         "output_budget": output_budget, "single": single,
                         "env_prefix": env_prefix, "ambiguous": ambiguous}
        self._nodes: list = []   # ("command", function, options) or ("group", App)
        self._callback: Callable[..., Any] | None = None   # of @app.callback(), if any
        self._program: Program | None = None
        self._mounted = False   # a group of another App (then never a program of its own)
        caller = sys._getframe(1)
        self._frame = caller if caller.f_code.co_name == "<module>" else None

    def command(self, name: str | None = None, *, effects: str | None = None, examples: tuple[str, ...] | list[str] = (),
                **options: object) -> Callable[[_F], _F]:
        """Declare the decorated function as a command; its hints are its inputs.

        `name` defaults to the function's name with `_` as `-`; `description` to the
        docstring's first paragraph. Other keywords are `Command`'s (output, text, plan,
        aliases, hidden, since, deprecated, replaced_by, paginated, batch, errors,
        destructive, open_world, title, self_scope, instead, input_json, plan_tool,
        removed_in, verdict, person_only, why).

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

        def declare(function: _F) -> _F:
            self._nodes.append(("command", function, options))
            self._program = None
            return function
        return declare

    if TYPE_CHECKING:
        @overload
        def callback(self, function: _F) -> _F: ...
        @overload
        def callback(self, function: None = None) -> Callable[[_F], _F]: ...

    def callback(self, function=None):
        """Declare the options every command of this program (or group) takes, and what runs
        before each of them (Typer's `@app.callback()`): the function's parameters are
        options, given before the command's name (`tool --verbose create x`) or after it; it
        runs before the command with them, and may set `ctx.obj` (take `ctx` to). Its
        docstring's first line describes the program (or group) when it has no description.

            @app.callback()
            def main(ctx, verbose: bool = False):
                ctx.obj = {"verbose": verbose}
        """
        def declare(function: _F) -> _F:
            self._callback = function
            self._program = None
            return function
        return declare(function) if callable(function) else declare

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
            settings: dict = self.settings
            options, setup, summary = _callback(self._callback)
            program = Program(self.name, self.version, self.description or summary,
                              self._children(), settings["budgets"],
                              schema_version=settings["schema_version"],
                              output_budget=settings["output_budget"], check=False,
                              single=settings["single"], options=options, setup=setup,
                              env_prefix=settings["env_prefix"],
                              ambiguous=settings["ambiguous"])
            from workbench.declaration._verdict import check_once
            check_once(program, self._frame or sys._getframe(0))
            self._program = program
        return self._program

    def as_program(self) -> Program:
        """The same as `app.program`."""
        return self.program

    def _children(self) -> list:
        built: list = []
        for kind, item, options in self._nodes:
            if kind == "group":
                shared, setup, summary = _callback(item._callback)
                built.append(Group(item.name, item.description or summary, item._children(),
                                   aliases=item.aliases, hidden=item.hidden, options=shared,
                                   setup=setup))
            else:
                built.append(_command(item, options))
        return built

    def __repr__(self) -> str:
        return f"App({self.name!r}, {len(self._nodes)} entries)"


def programs_in(namespace: dict[str, Any]) -> list[tuple[str, Program]]:
    """(variable name, Program) for each App at the top of a module namespace (groups
    mounted in another App are part of that one)."""
    return [(key, value.program) for key, value in list(namespace.items())
            if isinstance(value, App) and not value._mounted and not key.startswith("__")]


# --- one function -> one Command -------------------------------------------------------------

def _callback(function) -> tuple:
    """(options, setup, summary) of an `@app.callback()` function, or ({}, None, "")."""
    if function is None:
        return {}, None, ""
    where = _where(function)
    code = getattr(function, "__code__", None)
    if code is None or code.co_flags & 0x0C:
        raise DefinitionError(f"{where}: @callback decorates a plain function (def ...) whose "
                              f"parameters are options")
    options, arguments, inputs, context, _ = _read_inputs(function, code, where)
    if arguments:
        raise DefinitionError(f"{where}: parameter {arguments[0].key!r} of a callback would be "
                              f"an argument; a callback takes options only: give it a "
                              f"default, or mark it Opt(...)")
    return options, _caller(function, inputs, context, False), _docstring(function.__doc__)[0]


def _read_inputs(function, code, where) -> tuple:
    """(options, arguments, [(name, positional, convert)], the ctx parameter or None, hints)
    of a function's parameters."""
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    defaults = _defaults(function, code, names)
    hints = _hints(function, where)
    described = _docstring(function.__doc__)[1]
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
    return option_map, arguments, inputs, context, hints


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
    option_map, arguments, inputs, context, hints = _read_inputs(function, code, where)
    summary = _docstring(function.__doc__)[0]
    body = _body(function.__doc__)
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
                   batch=options["batch"] or False, errors=options["errors"] or (),
                   help=options["help"] if options["help"] is not None else body,
                   epilog=options["epilog"], destructive=options["destructive"],
                   open_world=options["open_world"], title=options["title"],
                   self_scope=options["self_scope"], instead=options["instead"],
                   input_json=options["input_json"] or False,
                   plan_tool=options["plan_tool"] or False, removed_in=options["removed_in"],
                   verdict=options["verdict"] or False, person_only=options["person_only"],
                   why=options["why"])


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
        if hint.__module__ == "pathlib":
            return "path", None, hint
        if hint.__module__ == "os" and hint.__name__ == "PathLike":
            return "path", None, None
        rich = _RICH.get((hint.__module__, hint.__name__))
        if rich is not None:
            return rich, None, None
        enum = sys.modules.get("enum")
        if enum is not None and issubclass(hint, enum.Enum):
            return "enum", [member.value for member in hint], hint  # type: ignore[attr-defined]
    if special == "Union":
        raise DefinitionError(f"{where}: parameter {name!r} has the union {hint!r}; a command "
                              f"line value has one type: use one type, or Optional[T] "
                              f"(T | None) for a value that may be absent")
    raise DefinitionError(f"{where}: parameter {name!r} has the type hint {hint!r}, which "
                          f"burgee cannot read from a command line; use {_SUPPORTED}")


def _shape(base, where: str, name: str):
    """(list?, nargs, item hint) of a hint: `list[T]` and `tuple[T, ...]` take several values
    (a list), `tuple[T, T]` a fixed number (nargs), `list[tuple[T, T]]` both."""
    special = _special(base)
    if not (base is list or special in ("list", "tuple", "set")):
        return False, 1, base
    args: tuple = getattr(base, "__args__", None) or (str,)
    if special == "tuple" and not (len(args) == 2 and args[1] is Ellipsis):
        return False, _fixed(args, where, name), args[0]
    inner = _unwrap(args[0])[0]
    if _special(inner) == "tuple":
        inner_args: tuple = getattr(inner, "__args__", None) or ()
        if len(inner_args) == 2 and inner_args[1] is Ellipsis:
            raise DefinitionError(f"{where}: parameter {name!r}: a list of lists cannot be "
                                  f"given on a command line; use list[T] or "
                                  f"list[tuple[T, T]]")
        return True, _fixed(inner_args, where, name), inner_args[0]
    return True, 1, args[0]


def _fixed(args, where: str, name: str) -> int:
    """The number of values of a `tuple[T, T, ...]` hint whose items share one type."""
    if not args or any(arg != args[0] for arg in args):
        raise DefinitionError(f"{where}: parameter {name!r}: a tuple's values share one type "
                              f"here (tuple[float, float]); convert mixed values in the "
                              f"function, or use tuple[str, str]")
    return len(args)


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
    settings = dict(marker.settings) if marker is not None else {}
    custom = settings.pop("type", None)
    many, nargs, item = _shape(base, where, name)
    if custom is not None:
        kind, choices, convert = custom, None, None
    else:
        kind, choices, convert = _scalar(_unwrap(item)[0], where, name)
    if kind == "boolean" and (many or nargs > 1):
        raise DefinitionError(f"{where}: parameter {name!r}: booleans cannot be given as "
                              f"several values on a command line; use a single bool flag")
    has_default = name in defaults
    default = defaults.get(name)
    if default is not None and (convert is not None or kind in ("date", "datetime", "uuid")):
        default = _plain_default(default, many, nargs)   # Path, Enum, date... as plain values
    if default is False and kind == "boolean" or (many and default is not None and
                                                  not default):
        default = None   # a flag's False and an empty list are what absence gives anyway
    if isinstance(default, tuple) and nargs == 1:
        default = list(default)
    description = (marker.description if marker is not None and marker.description is not None
                   else described.get(name, ""))
    positional = isinstance(marker, Arg) or (marker is None and not has_default
                                             and kind != "boolean")
    if positional:
        if kind == "boolean":
            raise DefinitionError(f"{where}: parameter {name!r} is a bool marked Arg(); a bool "
                                  f"is a --flag: drop Arg(...)")
        if nargs > 1:
            raise DefinitionError(f"{where}: parameter {name!r}: an argument takes one value "
                                  f"or, as list[T], several; make a tuple an option (Opt())")
        marker = marker or Arg()
        return Argument(name.replace("_", "-"), kind, description, required=not has_default,
                        variadic=many, stdin=marker.stdin, choices=choices,
                        default=default if has_default else None, since=marker.since,
                        deprecated=marker.deprecated, **settings), convert, True
    marker = marker or Opt()
    prompted = settings.get("prompt") is not None
    option = Option("list" if many else kind, description,
                    required=not has_default and kind != "boolean" and not prompted
                    and not settings.get("count"), default=default,
                    choices=choices, env=marker.env, short=marker.short,
                    sensitive=marker.sensitive, placeholder=marker.placeholder,
                    since=marker.since, deprecated=marker.deprecated,
                    replaced_by=marker.replaced_by, aliases=marker.aliases,
                    items=kind if many else "string", negatable=marker.negatable,
                    nargs=nargs, **settings)
    return option, convert, False


def _plain_default(value, many: bool, nargs: int):
    """A default written as objects (Path, Enum, date, UUID), as the text a caller types."""
    def one(item):
        if nargs > 1 and isinstance(item, (list, tuple)):
            return tuple(_plain_value(v) for v in item)
        return _plain_value(item)
    return [one(item) for item in value] if many else one(value)


def _plain_value(value):
    if hasattr(value, "_value_"):
        return getattr(value, "value", None)
    isoformat = getattr(value, "isoformat", None)
    return isoformat() if isoformat is not None else str(value)


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
                value = _converted(convert, value)
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


def _converted(convert, value):
    """`convert` (Path, an Enum) applied to a value, each value of a list, each of a tuple."""
    if isinstance(value, list):
        return [_converted(convert, item) for item in value]
    if isinstance(value, tuple):
        return tuple(convert(item) for item in value)
    return convert(value)


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


_OTHER_SECTIONS = ("returns:", "return:", "raises:", "yields:", "examples:", "example:",
                   "notes:", "note:", "see also:")


def _body(doc) -> str | None:
    """The docstring after its first paragraph, up to its `Args:` (or any other section):
    the command's long help, each paragraph on one line (an indented block as written);
    None when there is none."""
    if not doc:
        return None
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    cut = min(indents) if indents else 0
    lines = [lines[0].strip()] + [line[cut:].rstrip() for line in lines[1:]]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and lines[0].strip():   # the summary
        lines.pop(0)
    body = []
    for index, line in enumerate(lines):
        head = line.strip().lower()
        numpy = index + 1 < len(lines) and lines[index + 1].strip() and \
            set(lines[index + 1].strip()) == {"-"}
        if head in _SECTIONS or head in _OTHER_SECTIONS or numpy:
            break
        body.append(line)
    paragraphs = []   # a paragraph's lines joined (source wrapping is not content), an
    for block in "\n".join(body).strip().split("\n\n"):   # indented block kept as written
        rows = [row for row in block.split("\n") if row.strip()]
        if rows and not any(row.startswith(" ") for row in rows):
            paragraphs.append(" ".join(row.strip() for row in rows))
        elif rows:
            paragraphs.append("\n".join(rows))
    return "\n\n".join(paragraphs) or None


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
