"""The declaration: Program, Group, Command, Option, Argument, Fail.

Everything a caller reads is projected from these objects. They hold data and
check it once, when the Program is constructed (a lazy group's, when it loads); every refusal is a
DefinitionError whose message names the exact fix. This module imports only
the standard library's cheapest parts: it is on every CLI start-up path.
"""

from __future__ import annotations

from workbench.declaration.params import TYPES, Argument, Option  # noqa: F401 (re-exported)

TYPE_CHECKING = False   # typing costs start-up time; only checkers and the reference read it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

EFFECTS = ("read_only", "idempotent", "non_idempotent", "withheld")
"""Declared effects a command may have; adapters also use "undeclared"."""

EFFECT_MEANINGS = {
    "read_only": "changes nothing; safe to call any time",
    "idempotent": "changes state; repeating the same call changes nothing more",
    "non_idempotent": "changes state each time it runs; do not retry blindly",
    "withheld": "runs on the command line only; not offered as an MCP tool",
    "undeclared": "effects not declared (adapted program); treat as unsafe",
}

MAX_TOOL_NAME = 40

NO_KEYS: frozenset[str] = frozenset()
"""The one empty key set every command without framework options shares."""


# -- what is derived from a Program --------------------------------------------------------
# A `Program` holds its declaration; the facts the definition checks, the runtime and
# redaction derive from it live in its `Derived` (`derived(program)`), never as loose
# attributes on the Program. Each field says who writes it:
#
# - the check verdicts (`workbench.declaration._verdict`): `verdict`, `lazy_verdicts`,
#   `lazy_trusted`, `lazy_pending`, `broken`;
# - the examples (`workbench.runtime.checks`): `examples_checked`;
# - the model itself (this module): `has_lazy`, `tools`;
# - redaction (`workbench.runtime.redact`): `redact_spellings`, `redact_options`, each with
#   the `Program.generation` it was built at (a lazy group loaded since: rebuilt).
#
# Private: nothing outside the declaration and runtime packages reads it but through
# `derived`. (Here rather than in a module of its own: every start imports the model, and a
# module costs every start ~0.06 ms to import.)


class Derived:
    """The derived state of one Program (see the comment above)."""

    __slots__ = ("examples_checked", "verdict", "lazy_verdicts", "lazy_trusted",
                 "lazy_pending", "broken", "has_lazy", "tools", "redact_spellings",
                 "redact_options")

    def __init__(self) -> None:
        self.examples_checked: bool = False
        """Every example parsed (or the check process / a verdict file says so)."""
        self.verdict: str | None = None
        """The verdict file to write once every check passed (None: nothing to record)."""
        self.lazy_verdicts: list[str | None] | None = None
        """Verdict files of the lazy groups checked with the program; None when this check
        records none (check=False, or a program trusted by its verdict)."""
        self.lazy_trusted: str | None = None
        """The verdict the program was trusted by: each lazy group is checked alone."""
        self.lazy_pending: list[tuple[Any, str | None]] = []
        """Lazy groups checked alone whose examples `ensure_checked` still parses."""
        self.broken: Exception | None = None
        """A released program's lazy group failed its first check: every call answers it."""
        self.has_lazy: bool = False
        """The program declares a lazy group (`Group(load=...)`)."""
        self.tools: dict[str, Any] | None = None
        """Tool name -> Command, built on first lookup (dropped when a lazy group loads)."""
        self.redact_spellings: tuple[int, Any] | None = None
        """(generation, (sensitive spelling -> Option, every spelling)) for redaction."""
        self.redact_options: tuple[int, list[Any]] | None = None
        """(generation, every sensitive Option) for redaction."""


def derived(program: Any) -> Derived:
    """The program's derived state (made here for a Program built without `__init__`)."""
    state = program.__dict__.get("_derived")
    if state is None:
        state = program._derived = Derived()
    return state



class DefinitionError(ValueError):
    """A declaration that cannot work, raised when the `Program` is constructed; the message
    names the exact fix (`command 'deploy': effects is required; use one of: ...`)."""

    lazy = False
    """Raised while importing a lazy group (a call reports it as an envelope)."""


class Fail(Exception):
    """A domain failure a handler raises: `raise Fail("not_found", "no note 7", exit=3)`.

    It becomes the failure envelope (`{"ok": false, "error": {...}}`) on every transport, and
    the process exits with `exit`.

    Args:
        code: a stable machine-readable name, snake case (`not_found`, `conflict`); declare
            it in `Command(errors=...)` so help and cards list it.
        message: one sentence for the caller: what went wrong.
        hint: what to do about it.
        exit: the exit code, from the contract's table: 1 failure, 3 not found, 5 conflict,
            6 retry later, 7 unavailable (2, 4 and 8 are the runtime's own).
        fix: a command line that would work instead (after the program name, e.g.
            `"unlock --force"`); printed runnable, with the program name and `--json` as the
            caller used it.
        retryable: whether the same call may succeed later.
        next: up to three steps that go on from here, each `{"command": ..., "why": ...}`
            (the command line after the program name): the envelope's `next`, printed
            runnable for a command-line caller and as `tool: {name, arguments}` over MCP.
        **details: more fields for the error object, e.g. `plan=..., digest=...`; `data=`
            is not one of them: it is what the command found before failing (a check's
            report), the envelope's `data` beside `error`; nor is `effects="none"`, which
            tells the caller this failure changed nothing (without it a failure after a
            handler that writes began says `error.effects: unknown`).
    """

    def __init__(self, code: str, message: str, hint: str | None = None, exit: int = 1,
                 fix: str | None = None, retryable: bool | None = None,
                 next: Sequence[dict[str, Any]] | None = None, **details: object):
        super().__init__(message)
        self.next: list[dict[str, Any]] = list(next or ())
        self.details = details   # more fields for the error object, e.g. plan=..., digest=...
        self.code = code
        self.message = message
        self.hint = hint
        self.exit = exit
        self.fix = fix
        self.retryable = retryable


class Command:
    """A runnable command. `effects` is required; `run(ctx)` returns data, yields items or raises Fail.

    Args:
        name: the word that selects it (`deploy`); the MCP tool name is its path in snake
            case (`pr_merge` for `pr merge`).
        description: one line, shown in help, cards and the MCP tool.
        effects: what running it does: `read_only`; `idempotent` (repeating the call changes
            nothing more; say whether this call changed anything with `ctx.changed()`);
            `non_idempotent` (gets `--idempotency-key`); or `withheld` (command line only,
            not an MCP tool).
        options: key -> `Option`; the key `skip_build` is the flag `--skip-build` and the MCP
            property `skip_build`.
        arguments: positional `Argument`s, in order.
        examples: command lines that run as written, program name first
            (`"tool deploy --target staging"`); each is parsed when the program is first
            run, and `<placeholders>` are allowed.
        output: the JSON Schema of the data it returns: the MCP tool's output schema, checked
            under `BURGEE_VALIDATE=1` and by the MCP server.
        run: the handler, `run(ctx)` (see `Context`): returns JSON data, yields items (a
            stream), returns `ctx.partial(...)`, or raises `Fail`.
        plan: `plan(ctx)` returns what the call would change, changing nothing; adds
            `--dry-run` and `--expect-plan DIGEST`, and the handler reads `ctx.plan`.
        text: `text(data)` renders a success for a person (default: a tidy table or lines).
        aliases: other words that select it.
        hidden: left out of help, completions and `tools/list`; it still runs.
        since: the version that added it, e.g. `"1.2"`.
        deprecated: True or a short reason: help marks it, a call warns in `meta.warnings`.
        replaced_by: what to use instead, named in the warning.
        paginated: True (or a page size, e.g. 50) adds `--limit`, `--cursor`, `--all` and
            `--fields`; `run` returns the whole list and the runtime pages it.
        batch: it may return `ctx.partial(...)`: help lists `partial` (exit 8) among its
            errors.
        errors: the error codes it raises, as strings or dicts
            `{"code": "not_found", "exit": 3, "when": "no such note"}`; help and cards list
            them with their exit codes (exit 1 when not given).
        help: the long help, after the one-line description: paragraphs separated by blank
            lines, shown in `--help`, cards and the MCP tool's description.
        epilog: a closing paragraph of `--help` (and cards), e.g. where to read more.
        destructive: whether a call may destroy data (the MCP `destructiveHint`); default:
            True for `non_idempotent`, False otherwise. `notes remove` is idempotent and
            destructive; `notes add` is neither destructive nor idempotent.
        open_world: whether it reaches outside the program's own data (the network, other
            systems: the MCP `openWorldHint`); unset: not said.
        title: a human-readable name for clients to show (the MCP tool's `title`).
        self_scope: `owner(ctx)` gives the name of the agent that owns the item this call
            acts on (None: nobody's); the command gets `--agent NAME` (default: the
            detected agent) and refuses `not_yours` (exit 2) before `plan` or `run` when
            the owner is another agent. A person (no agent, no `--agent`) acts on anything.
        instead: with `self_scope`, the command an agent runs instead on its own items
            (`"list --agent {agent}"`; `{agent}` and `{owner}` are filled in); without it
            the refusal says to ask the person.
        input_json: adds `--input FILE|-`: the whole request as one JSON object (its
            properties are the MCP tool's arguments); flags given too override its fields.
        plan_tool: with `plan=`, the MCP server also offers `<tool>_plan`, a read-only twin
            that returns the plan (`--dry-run`) and changes nothing.
        removed_in: with `deprecated`, the version that removes it (`"3.0"`): said in help,
            cards, schemas, the MCP tool and the warning.
        verdict: a judging read (a check, a lint): the handler returns
            `ctx.verdict(passed, details)`; a failed verdict is `check_failed` (exit 11) with
            the details as `data`, listed among its errors.
        person_only: `{"reason": ..., "how": ...}`: only a person runs it. Any detected agent
            is refused on every surface with `person_required` (exit 13) giving the reason
            and how a person does it; it is not an MCP tool, and `help --json` lists it under
            `person_only`.
        why: `"required"` or `"optional"` adds `--why TEXT`, the caller's reason for the
            call: in `ctx.why` and `meta.why`; when required, a call without it is refused
            (exit 2) with a fix that adds `--why <why>`.
    """

    is_group = False
    _extras_attached = False   # until `attach` adds the framework's options
    options: dict[str, Option]   # the instance's attributes a checker cannot infer
    arguments: list[Argument]
    examples: list[str]
    aliases: tuple[str, ...]
    errors: tuple[str | dict[str, Any], ...]

    def __init__(self, name: str, description: str = "", effects: str | None = None,
                 options: dict[str, Option] | None = None, arguments: Sequence[Argument] = (),
                 examples: Sequence[str] = (), output: dict[str, Any] | None = None,
                 run: Callable[..., object] | None = None,
                 plan: Callable[..., object] | None = None,
                 text: Callable[[Any], str] | None = None, aliases: Sequence[str] = (),
                 hidden: bool = False, *,
                 since: str | None = None, deprecated: str | bool | None = None,
                 replaced_by: str | None = None, paginated: bool | int = False,
                 batch: bool = False, errors: Sequence[str | dict[str, Any]] = (),
                 help: str | None = None, epilog: str | None = None,
                 destructive: bool | None = None, open_world: bool | None = None,
                 title: str | None = None,
                 self_scope: Callable[..., object] | None = None, instead: str | None = None,
                 input_json: bool = False, plan_tool: bool = False,
                 removed_in: str | None = None, verdict: bool = False,
                 person_only: dict[str, str] | None = None, why: str | None = None):
        self.name = name
        self.description = description
        self.effects = effects
        self.options = dict(options or {})
        self.arguments = list(arguments)
        self.examples = list(examples)
        self.output = output
        self.run = run
        self.plan = plan
        self.text = text
        self.aliases = tuple(aliases)
        self.hidden = hidden
        self.since = since
        self.deprecated = deprecated
        self.replaced_by = replaced_by
        self.paginated = paginated
        self.batch = batch
        self.errors = tuple(errors)
        self.help = help
        self.epilog = epilog
        self.destructive = destructive
        self.open_world = open_world
        self.title = title
        self.self_scope = self_scope    # issue 34: the agent contract's further words
        self.instead = instead
        self.input_json = input_json
        self.plan_tool = plan_tool
        self.removed_in = removed_in
        self.verdict = verdict
        self.person_only = person_only
        self.why = why
        self.path: tuple[str, ...] = (name,)
        self.program: Program | None = None
        self.adapter: Any = None  # set by workbench.adapt for undeclared programs
        self.framework_keys: frozenset[str] = NO_KEYS  # options the framework added (attach)
        # ((Program or Group, keys), ...) whose options it takes
        self.inherited: tuple[tuple[Any, tuple[str, ...]], ...] = ()
        _key_options(self.options)

    @property
    def tool_name(self) -> str:
        """The MCP tool name: the command path in snake case, e.g. `pr_merge`."""
        return "_".join(self.path).replace("-", "_")

    @property
    def words(self) -> tuple[str, ...]:
        """The words that select this command after the program name: its path, or none in
        a single-command program (`black --check x.py`)."""
        return () if getattr(self.program, "single", False) else self.path

    @property
    def declared_options(self) -> dict[str, Option]:
        """Options the author declared on it (without --limit, --dry-run, ... the framework
        added, nor the options it takes from its program and groups)."""
        shared = self.shared_keys
        return {k: o for k, o in self.options.items()
                if k not in self.framework_keys and k not in shared}

    @property
    def shared_keys(self) -> frozenset[str]:
        """Keys of the options it takes from its program and groups (`Program(options=)`)."""
        if not self.inherited:
            return NO_KEYS
        return frozenset(key for _, keys in self.inherited for key in keys)

    @property
    def listed_options(self) -> dict[str, Option]:
        """The options its own help, card and usage line list: its own and the framework's,
        not the shared ones (listed once, by the program or group that declares them)."""
        if not self.inherited:
            return self.options
        shared = self.shared_keys
        return {k: o for k, o in self.options.items() if k not in shared}

    @property
    def inputs(self) -> list[Option | Argument]:
        """Options then arguments, in declaration order."""
        return [*self.options.values(), *self.arguments]

    def __repr__(self) -> str:
        return f"Command({' '.join(self.path)!r})"


def _key_options(options: dict) -> None:
    """Give each Option its key; one Option declared under two keys is copied for the second."""
    for key, option in options.items():
        if isinstance(option, Option):
            if option.key and option.key != key:
                option = options[key] = _copy(option)
            option.key = key


def _copy(option: Option) -> Option:
    """A copy of an Option already keyed elsewhere (its spellings derived again from the new
    key); `copy` is imported only for a program that shares one."""
    import copy
    twin = copy.copy(option)
    twin._spell()   # spelled now, so the new key spells it again
    return twin


class Group:
    """A named set of commands (and groups): `tool pr merge`.

    Args:
        name: the word that selects it (`pr`).
        description: one line, shown in help.
        commands: its `Command`s and nested `Group`s, in the order help lists them.
        aliases: other words that select it.
        hidden: left out of help, completions and `tools/list`; its commands still run.
        load: `"package.module:attribute"` instead of `commands`: a lazy group. The attribute
            (a `Group`, or a list of commands) is imported only when something needs the
            group's commands: a call into the group, or a surface that lists every command.
        options: key -> `Option` that every command under it takes, given after the group's
            name (`tool items --store x list`) or after the command's
            (`tool items list --store x`); in `ctx.options` of each.
        setup: `setup(ctx)` runs before any command under it (after the program's), e.g. to
            open what they share and put it in `ctx.obj`.
    """

    is_group = True
    aliases: tuple[str, ...]   # the instance's attributes a checker cannot infer
    options: dict[str, Option]

    def __init__(self, name: str, description: str = "",
                 commands: Sequence[Command | Group] = (), aliases: Sequence[str] = (),
                 hidden: bool = False, *, load: str | None = None,
                 options: dict[str, Option] | None = None,
                 setup: Callable[..., object] | None = None):
        self.name = name
        self.description = description
        self.aliases = tuple(aliases)
        self.hidden = hidden
        self.options = dict(options or {})
        _key_options(self.options)
        self.setup = setup
        self.path: tuple[str, ...] = (name,)
        self.load = load
        self._program: Program | None = None   # set by the Program that binds it
        if load is not None and commands:
            raise DefinitionError(f"group {name!r}: give commands= or load=, not both; "
                                  f"keep load='{load}' and move the commands into that module")
        self._commands: list[Command | Group] | None = None if load is not None \
            else list(commands)

    @property
    def loaded(self) -> bool:
        """Whether its commands are built (always, unless declared with `load=` and unused)."""
        return self._commands is not None

    @property
    def commands(self) -> list[Command | Group]:
        """Its children; a lazy group imports them here on first use."""
        if self._commands is None:
            try:
                self._commands = _import_commands(self)
                if self._program is not None:
                    self._program._bind_lazy(self)
            except DefinitionError as error:
                self._commands = None   # not loaded: the next use raises it again
                error.lazy = True   # a call reports it as an envelope (`_verdict.check_once`)
                raise
        return self._commands

    @commands.setter
    def commands(self, value: Iterable[Command | Group]) -> None:
        self._commands = list(value)

    def __repr__(self) -> str:
        return f"Group({' '.join(self.path)!r})"


def _import_commands(group) -> list:
    """The commands `group.load` names, or a DefinitionError naming the group and the fix."""
    where = f"group '{' '.join(group.path)}'"
    spec = group.load
    module_name, colon, attribute = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not module_name or not colon or not attribute:
        raise DefinitionError(f"{where}: load={spec!r} must name 'package.module:attribute', "
                              f"e.g. load='mytool.groups.{group.name}:group'")
    import importlib
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise DefinitionError(
                f"{where}: load='{spec}' names module '{module_name}', which is not "
                f"importable (no module named '{error.name}'); create it, put its package "
                f"on the import path, or correct load=") from None
        raise DefinitionError(f"{where}: importing '{module_name}' for load='{spec}' failed: "
                              f"{type(error).__name__}: {error}; fix that module") from None
    except Exception as error:  # noqa: BLE001 (any failure of the author's module is reported)
        raise DefinitionError(f"{where}: importing '{module_name}' for load='{spec}' failed: "
                              f"{type(error).__name__}: {error}; fix that module") from None
    found = getattr(module, attribute, None)
    if found is None:
        raise DefinitionError(f"{where}: load='{spec}': module '{module_name}' has no "
                              f"attribute '{attribute}'; define `{attribute} = Group(...)` "
                              f"there or correct load=")
    if isinstance(found, Group):
        if found.name != group.name:
            raise DefinitionError(f"{where}: load='{spec}' is Group({found.name!r}); name it "
                                  f"{group.name!r} or point load= at the right group")
        if found.options or found.setup is not None:
            raise DefinitionError(f"{where}: load='{spec}' is a Group with options= or setup=; "
                                  f"declare them on Group({group.name!r}, load=...) in the "
                                  f"program, where they are read without importing the group")
        return list(found.commands)
    if isinstance(found, (list, tuple)):
        return list(found)
    raise DefinitionError(f"{where}: load='{spec}' is a {type(found).__name__}; it must be a "
                          f"Group(...) or a list of Command(...)/Group(...)")


class Program:
    """A whole command line: `Program(name, version, description, commands)`; checked on construction.

    Every surface (parser, help, cards, schemas, MCP tools, completions) is projected from it.
    A declaration that cannot work raises `DefinitionError` here, naming the fix.

    Args:
        name: the program's name as typed (`tool`); it starts every example and every
            runnable `fix` and `next`.
        version: printed by `--version`.
        description: one line, shown in help and as the MCP server's instructions.
        commands: its `Command`s and `Group`s, in the order help lists them.
        budgets: token budgets per surface for `burgee dev` and `--headless`, e.g.
            `{"card": 800, "help/deploy.txt": 300, "session.mcp": 30000}` (docs/ci.md);
            `"schema"` is the character budget `tool --schema` keeps to.
        schema_version: the version of the envelopes' data, carried in every `meta`; raise it
            when the data changes shape.
        output_budget: characters of a page an agent gets before whole items are held back
            for the next call (default 16,000; commands declared `paginated`).
        check: False skips the definition checks (for programs built from already-checked
            data); examples are still checked when the program first runs.
        single: one command, typed without its name (`black --check x.py`).
        options: key -> `Option` that every command takes, given before the command's name
            (`tool --store x items list`) or after it; in `ctx.options` of each.
        setup: `setup(ctx)` runs before every command, e.g. to open what they share and put
            it in `ctx.obj` (Click's group callback, Typer's `@app.callback()`).
        env_prefix: every option without its own `env` reads `PREFIX` + its command's path +
            its key, upper case, as Click's `auto_envvar_prefix` does: with `"TOOL_"`,
            `tool items list --bin` reads `TOOL_ITEMS_LIST_BIN` and a program option
            `--store` reads `TOOL_STORE`.
        discovery: what MCP `tools/list` holds: `"full"` every tool; `"progressive"` only
            `search_tools`, `describe_tool` and the read-only top-level commands, every tool
            still callable by name; `"auto"` (the default) progressive past 1,000 tools.
        ambiguous: word -> its meanings, each `{"means": "...", "use": "remove {args}
            {flags}"}`: calling the word is refused (exit 2) listing each meaning's command
            with the caller's arguments and flags filled in (sensitive values masked).
        mcp_filters: True gives every MCP tool the optional `fields` and `jq` arguments, the
            CLI's `--fields` and `--jq` (off by default: two more properties in every tool's
            schema, which every session pays for; a paginated tool has `fields` either way).
    """

    is_group = True
    adapter_problems: Sequence[tuple[Any, ...]] = ()
    defaults_settler: Callable[[], None] | None = None
    """Set by the adapters: drops the defaults the original computes as it loads."""
    commands: list[Command | Group]   # the instance's attributes a checker cannot infer
    budgets: dict[str, int]
    options: dict[str, Option]
    """What adapting an undeclared program found: (severity, code, message, fix, where)."""

    def __init__(self, name: str, version: str = "0.0.0", description: str = "",
                 commands: Sequence[Command | Group] = (), budgets: dict[str, int] | None = None, *, schema_version: str = "1",
                 output_budget: int | None = None, check: bool = True, single: bool = False,
                 options: dict[str, Option] | None = None,
                 setup: Callable[..., object] | None = None, env_prefix: str | None = None,
                 discovery: str = "auto", mcp_filters: bool = False,
                 ambiguous: dict[str, Sequence[dict[str, str]]] | None = None):
        self.name = name
        self.single = single  # one command, typed without its name (adapted `black`, `http`)
        self.version = version
        self.description = description
        self.commands = list(commands)
        self.budgets = dict(budgets or {})
        self.schema_version = schema_version
        self.output_budget = output_budget
        self.path: tuple[str, ...] = ()
        self.options = dict(options or {})
        _key_options(self.options)
        self.setup = setup
        self.env_prefix = env_prefix
        self.discovery = discovery
        self.mcp_filters = mcp_filters
        self.ambiguous: dict[str, Sequence[dict[str, str]]] = \
            ambiguous if ambiguous is not None else {}   # word -> meanings
        self.source: str | None = None  # file it was loaded from, set by loaders
        self._index: dict[tuple[str, ...], Command | Group] = {}
        if single and (len(self.commands) != 1 or self.commands[0].is_group):
            raise DefinitionError(f"program {name!r}: single=True needs exactly one command and "
                                  f"no groups; drop single=True or keep one Command")
        self._ordered = True    # _index is in declaration order (a lazy load appends)
        self._derived = Derived()   # what checks, runtime and redaction derive (`Derived`)
        self._chain = _shared(self, (), env_prefix)
        self._bind(self, (), self._chain)
        if check:
            import sys
            from workbench.declaration._verdict import check_once
            check_once(self, sys._getframe(1))

    def _bind(self, node, path, chain) -> None:
        """Wire the children of `node`: paths, the program, the options each command takes
        from `chain` (the program's and its groups', outermost first) and the framework's."""
        prefix = self.env_prefix
        for child in node.commands:
            child.path = path + (child.name,)
            if not child.is_group:
                child.program = self
                if prefix is not None or chain:
                    from workbench.declaration._inherit import derive_env, inherit
                    if prefix is not None:
                        derive_env(child, prefix, child.path, child.options)
                    inherit(child, chain)
                attach(child)
            self._index[child.path] = child
            if child.is_group:
                child._program = self
                child._chain = chain + _shared(child, child.path, prefix)
                if child.load is not None:
                    self._derived.has_lazy = True
                if child.loaded:
                    self._bind(child, child.path, child._chain)

    def _bind_lazy(self, group) -> None:
        """Wire a lazy group's commands once they are imported (as `_bind` does the rest),
        then check them once (`_verdict.check_lazy`)."""
        self._bind(group, group.path, group._chain)
        self._ordered = False
        self._derived.tools = None
        from workbench.declaration._verdict import check_lazy
        check_lazy(self, group)

    def _load_all(self) -> None:
        """Import every lazy group (nested ones too); put `_index` back in declared order."""
        pending = [node for node in self._index.values()
                   if isinstance(node, Group) and not node.loaded]
        while pending:
            for group in pending:
                group.commands   # noqa: B018 (imports and binds it)
            pending = [node for node in self._index.values()
                       if isinstance(node, Group) and not node.loaded]
        if not self._ordered:
            index: dict = {}

            def visit(node):
                for child in node.commands:
                    index[child.path] = child
                    if child.is_group:
                        visit(child)
            visit(self)
            self._index = index
            self._ordered = True

    def settle_defaults(self) -> None:
        """Before help, cards or schemas are made: an adapted program's defaults that the
        original computes as it loads (a random seed) are described, not shown (once)."""
        settle, self.defaults_settler = self.defaults_settler, None
        if settle is not None:
            settle()

    def walk(self, *, load: bool = True) -> Iterator[Command]:
        """Every runnable command, depth first in declaration order (hidden ones included).

        `load=False` skips lazy groups not imported yet (what one call has touched)."""
        if load:
            self._load_all()
        for node in list(self._index.values()):
            if not node.is_group:
                yield node   # type: ignore[misc]  # not a group: a Command

    def groups(self) -> list[Group]:
        """Every group, depth first in declaration order."""
        self._load_all()
        return [node for node in self._index.values() if node.is_group]  # type: ignore[misc]

    @property
    def generation(self) -> int:
        """How many commands are bound so far: grows when a lazy group loads (cache key)."""
        return len(self._index)

    def find(self, path: Iterable[str]) -> Program | Command | Group | None:
        """The command or group at `path` (names or aliases; the program itself for an empty
        path), or None."""
        node: Program | Command | Group | None = self
        for part in path:
            if node is None or isinstance(node, Command):
                return None   # nothing is under a command (was an AttributeError)
            node = child_named(node, part)
        return node

    def tool(self, tool_name: str) -> Command | None:
        """The command whose MCP tool name is `tool_name`, or None."""
        tools = self._derived.tools
        if tools is None:
            tools = self._derived.tools = {command.tool_name: command
                                           for command in self.walk()}
        return tools.get(tool_name)

    def __repr__(self) -> str:
        """`Program('tool', 3 commands)`, plus the lazy groups not loaded yet (never loaded
        here: a repr imports nothing and cannot fail)."""
        nodes = list(self._index.values())
        commands = sum(not node.is_group for node in nodes)
        waiting = sum(isinstance(node, Group) and not node.loaded for node in nodes)
        shown = f"{commands} command" + ("" if commands == 1 else "s")
        if waiting:
            shown += f", {waiting} lazy group" + ("" if waiting == 1 else "s") + " not loaded"
        return f"Program({self.name!r}, {shown})"


def _shared(node, path, prefix) -> tuple:
    """`((node, options),)` when the program or group `node` declares options its commands
    take, else `()`; with an env prefix, each option without `env` gets one first."""
    options = getattr(node, "options", None)
    if not options:
        return ()
    if prefix is not None:
        from workbench.declaration._inherit import derive_env
        derive_env(node, prefix, path, options)
    return ((node, options),)


def object_output(command: Command) -> dict[str, Any] | None:
    """The declared `output` when its root is an object (what an MCP outputSchema may be:
    `surfaces.tools.output_schema`), else None."""
    output = command.output
    if isinstance(output, dict) and output.get("type") == "object":
        return output
    return None


def child_named(node: Program | Group, name: str) -> Command | Group | None:
    """The child of a Program or Group called `name` (or with that alias), or None.

    A dict built on first use (rebuilt if `commands` changed length); the first child in
    declared order that has the name or alias wins, as a scan would find it.
    """
    built = node.__dict__.get("_children")
    if built is None or built[0] != len(node.commands):
        names: dict = {}
        for child in node.commands:
            names.setdefault(child.name, child)
            for alias in child.aliases:
                names.setdefault(alias, child)
        built = (len(node.commands), names)
        node.__dict__["_children"] = built
    return built[1].get(name) if isinstance(name, str) else None


# -- the framework's own options ---------------------------------------------------------
# Options the framework adds to a command from what it declares (pages, plans, keys).
# They are attached to `command.options` when the Program is built, so the parser, help,
# cards, schemas and MCP tools all show them without knowing where they came from; the
# runtime reads them from `request.extras` and the handler never sees them in `ctx.options`.
# (Here rather than in a module of their own: every Program's construction runs them, and a
# module costs every start ~0.06 ms to import.)

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
    extras.update(_agentic_options(command))
    if getattr(command, "why", None):
        extras["why"] = Option(type="string", required=command.why == "required",
                               description="why you are making this call, kept in meta.why",
                               placeholder="<why>")
    return extras


def _agentic_options(command) -> dict:
    """`--agent` for a self-scoped command, `--input` for one that takes its request as
    JSON (issue 34)."""
    extras = {}
    if command.self_scope is not None:
        extras["agent"] = Option(type="string", description="who is acting: only items this "
                                 "agent owns are touched (default: the detected agent)",
                                 placeholder="<agent>")
    if command.input_json:
        extras["input"] = Option(type="string", description="the whole request as one JSON "
                                 "object, from FILE or - (stdin); flags override its fields",
                                 placeholder="<file>")
        extras["input"].cli_only = True   # over MCP the arguments are the request already
    return extras


def attach(command) -> None:
    """Add the framework options to `command.options` (once) and record their keys."""
    if getattr(command, "_extras_attached", False):   # read, not via __dict__: reading that
        return                                         # builds a dict for every command
    command._extras_attached = True
    extras = options_for(command)
    for key in extras:
        if key in command.options:
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
    if key in ("agent", "input"):   # issue 34
        return "self_scope=" if key == "agent" else "input_json=True"
    if key == "why":
        return "why="
    return "plan=" if key in ("dry_run", "expect_plan") else "effects=non_idempotent"
