"""The declaration: Program, Group, Command, Option, Argument, Fail.

Everything a caller reads is projected from these objects. They hold data and
check it once, when the Program is constructed; every refusal is a
DefinitionError whose message names the exact fix. This module imports only
the standard library's cheapest parts: it is on every CLI start-up path.
"""

from __future__ import annotations

EFFECTS = ("read_only", "idempotent", "non_idempotent", "withheld")
"""Declared effects a command may have; adapters also use "undeclared"."""

EFFECT_MEANINGS = {
    "read_only": "changes nothing; safe to call any time",
    "idempotent": "changes state; repeating the same call changes nothing more",
    "non_idempotent": "changes state each time it runs; do not retry blindly",
    "withheld": "runs on the command line only; not offered as an MCP tool",
    "undeclared": "effects not declared (adapted program); treat as unsafe",
}

TYPES = ("string", "integer", "number", "boolean", "enum", "list")

RESERVED_COMMANDS = ("help", "completion", "mcp")
RESERVED_OPTIONS = ("json", "help", "schema", "version", "debug", "format", "progress")
RESERVED_SHORTS = ("h",)

MAX_TOOL_NAME = 40

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


class DefinitionError(ValueError):
    """A declaration that cannot work; the message names the fix."""


class Fail(Exception):
    """A domain failure a handler raises: `raise Fail("not_found", "no note 7", exit=3)`."""

    def __init__(self, code: str, message: str, hint: str | None = None, exit: int = 1,
                 fix: str | None = None, retryable: bool | None = None, **details):
        super().__init__(message)
        self.details = details   # more fields for the error object, e.g. plan=..., digest=...
        self.code = code
        self.message = message
        self.hint = hint
        self.exit = exit
        self.fix = fix
        self.retryable = retryable


def _check_name(kind: str, name, where: str) -> None:
    if not isinstance(name, str) or not name or not set(name) <= _NAME_CHARS \
            or name[0] == "-" or name[-1] == "-":
        raise DefinitionError(
            f"{where}: {kind} name {name!r} is not valid; use lowercase letters, digits "
            f"and inner hyphens, e.g. 'deploy' or 'list-all'")


class Option:
    """A named input: the key `skip_build` is the flag `--skip-build` and the MCP property `skip_build`."""

    __slots__ = ("key", "type", "description", "required", "default", "choices", "env",
                 "short", "sensitive", "placeholder", "since", "deprecated", "replaced_by",
                 "aliases", "items")

    def __init__(self, type: str = "string", description: str = "", required: bool = False,
                 default=None, choices=None, env: str | None = None, short: str | None = None,
                 sensitive: bool = False, placeholder: str | None = None, *,
                 since: str | None = None, deprecated: str | bool | None = None,
                 replaced_by: str | None = None, aliases=(), items: str = "string"):
        self.key = ""
        self.type = type
        self.description = description
        self.required = required
        self.default = default
        self.choices = list(choices) if choices is not None else None
        self.env = env
        self.short = short
        self.sensitive = sensitive
        self.placeholder = placeholder
        self.since = since
        self.deprecated = deprecated
        self.replaced_by = replaced_by
        self.aliases = tuple(aliases)
        self.items = items

    @property
    def flag(self) -> str:
        """The long flag, e.g. `--skip-build`."""
        return "--" + self.key.replace("_", "-")

    @property
    def metavar(self) -> str:
        """What stands for the value in help and fixes, e.g. `<target>`."""
        return self.placeholder or "<" + self.key.replace("_", "-") + ">"

    def __repr__(self) -> str:
        return f"Option({self.flag}, type={self.type!r})"


class Argument:
    """A positional input. `variadic` takes the rest; `stdin` accepts `-` to read standard input."""

    __slots__ = ("name", "type", "description", "required", "variadic", "stdin", "items",
                 "sensitive", "choices", "default")

    def __init__(self, name: str, type: str = "string", description: str = "",
                 required: bool = True, variadic: bool = False, stdin: bool = False, *,
                 choices=None, default=None, items: str = "string"):
        self.name = name
        self.type = type
        self.description = description
        self.required = required
        self.variadic = variadic
        self.stdin = stdin
        self.choices = list(choices) if choices is not None else None
        self.default = default
        self.items = items
        self.sensitive = False

    @property
    def key(self) -> str:
        return self.name.replace("-", "_")

    @property
    def metavar(self) -> str:
        return "<" + self.name + ">" + ("..." if self.variadic else "")

    def __repr__(self) -> str:
        return f"Argument({self.name!r}, type={self.type!r})"


class Command:
    """A runnable command. `effects` is required; `run(ctx)` returns data, yields items or raises Fail."""

    is_group = False

    def __init__(self, name: str, description: str = "", effects: str | None = None,
                 options: dict | None = None, arguments=(), examples=(), output: dict | None = None,
                 run=None, plan=None, text=None, aliases=(), hidden: bool = False, *,
                 since: str | None = None, deprecated: str | bool | None = None,
                 replaced_by: str | None = None, paginated: bool = False, batch: bool = False,
                 errors=()):
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
        self.path: tuple[str, ...] = (name,)
        self.program: Program | None = None
        self.adapter = None  # set by workbench.adapt for undeclared programs
        self.framework_keys: frozenset = frozenset()  # options the framework added (_extras)
        for key, option in self.options.items():
            option.key = key

    @property
    def tool_name(self) -> str:
        """The MCP tool name: the command path in snake case, e.g. `pr_merge`."""
        return "_".join(self.path).replace("-", "_")

    @property
    def declared_options(self) -> dict:
        """Options the author declared (without --limit, --dry-run, ... the framework added)."""
        return {k: o for k, o in self.options.items() if k not in self.framework_keys}

    @property
    def inputs(self) -> list:
        """Options then arguments, in declaration order."""
        return list(self.options.values()) + self.arguments

    def __repr__(self) -> str:
        return f"Command({' '.join(self.path)!r})"


class Group:
    """A named set of commands (and groups): `tool pr merge`."""

    is_group = True

    def __init__(self, name: str, description: str = "", commands=(), aliases=(),
                 hidden: bool = False):
        self.name = name
        self.description = description
        self.commands = list(commands)
        self.aliases = tuple(aliases)
        self.hidden = hidden
        self.path: tuple[str, ...] = (name,)

    def __repr__(self) -> str:
        return f"Group({' '.join(self.path)!r})"


class Program:
    """A whole command line: `Program(name, version, description, commands)`; checked on construction."""

    is_group = True

    def __init__(self, name: str, version: str = "0.0.0", description: str = "", commands=(),
                 budgets: dict | None = None, *, schema_version: str = "1",
                 output_budget: int | None = None, check: bool = True):
        self.name = name
        self.version = version
        self.description = description
        self.commands = list(commands)
        self.budgets = dict(budgets or {})
        self.schema_version = schema_version
        self.output_budget = output_budget
        self.path: tuple[str, ...] = ()
        self.source: str | None = None  # file it was loaded from, set by loaders
        self._index: dict[tuple[str, ...], Command | Group] = {}
        self._bind(self, ())
        if check:
            from workbench.declaration._checks import check_program
            check_program(self)

    def _bind(self, node, path) -> None:
        for child in node.commands:
            child.path = path + (child.name,)
            if not child.is_group:
                child.program = self
                from workbench.declaration._extras import attach
                attach(child)
            self._index[child.path] = child
            if child.is_group:
                self._bind(child, child.path)

    def walk(self):
        """Every runnable command, depth first in declaration order (hidden ones included)."""
        for node in self._index.values():
            if not node.is_group:
                yield node

    def groups(self):
        """Every group, depth first in declaration order."""
        return [node for node in self._index.values() if node.is_group]

    def find(self, path) -> Command | Group | None:
        """The command or group at `path` (names or aliases), or None."""
        node = self
        for part in path:
            node = child_named(node, part)
            if node is None:
                return None
        return node

    def tool(self, tool_name: str) -> Command | None:
        """The command whose MCP tool name is `tool_name`, or None."""
        for command in self.walk():
            if command.tool_name == tool_name:
                return command
        return None

    def __repr__(self) -> str:
        return f"Program({self.name!r}, {len(list(self.walk()))} commands)"


def child_named(node, name: str):
    """The child of a Program or Group called `name` (or with that alias), or None."""
    for child in node.commands:
        if child.name == name or name in child.aliases:
            return child
    return None
