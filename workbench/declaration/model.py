"""The declaration: Program, Group, Command, Option, Argument, Fail.

Everything a caller reads is projected from these objects. They hold data and
check it once, when the Program is constructed; every refusal is a
DefinitionError whose message names the exact fix. This module imports only
the standard library's cheapest parts: it is on every CLI start-up path.
"""

from __future__ import annotations

from workbench.declaration.params import TYPES, Argument, Option  # noqa: F401 (re-exported)

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
    def words(self) -> tuple:
        """The words that select this command after the program name: its path, or none in
        a single-command program (`black --check x.py`)."""
        return () if getattr(self.program, "single", False) else self.path

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
                 output_budget: int | None = None, check: bool = True, single: bool = False):
        self.name = name
        self.single = single  # one command, typed without its name (adapted `black`, `http`)
        self.version = version
        self.description = description
        self.commands = list(commands)
        self.budgets = dict(budgets or {})
        self.schema_version = schema_version
        self.output_budget = output_budget
        self.path: tuple[str, ...] = ()
        self.source: str | None = None  # file it was loaded from, set by loaders
        self._index: dict[tuple[str, ...], Command | Group] = {}
        if single and (len(self.commands) != 1 or self.commands[0].is_group):
            raise DefinitionError(f"program {name!r}: single=True needs exactly one command and "
                                  f"no groups; drop single=True or keep one Command")
        self._bind(self, ())
        if check:
            import sys
            from workbench.declaration._checks import check_once
            check_once(self, sys._getframe(1))

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
        tools = self.__dict__.get("_tools")
        if tools is None:
            tools = self._tools = {command.tool_name: command for command in self.walk()}
        return tools.get(tool_name)

    def __repr__(self) -> str:
        return f"Program({self.name!r}, {len(list(self.walk()))} commands)"


def child_named(node, name: str):
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
        built = node._children = (len(node.commands), names)
    return built[1].get(name) if isinstance(name, str) else None
