"""The built-ins, declared once as data: global flags and built-in commands.

The parser reads these exactly as it reads a program's own commands, so a built-in refuses
bad input the same way (an envelope under `--json`, exit 2, a runnable fix); the definition
checks read them for collisions; help and completions list them. What each built-in *does*
lives in the runtime (`workbench.runtime.builtins`).
"""

from __future__ import annotations

from workbench.declaration.model import Command
from workbench.declaration.params import Argument, Option

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

MCP_CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini")
"""Clients `tool mcp config --client` writes a configuration for."""

MCP_SCOPES = ("user", "project")
"""Where `tool mcp install` writes: the user's own file (every project), or the project's."""

SKILL_CLIENTS = ("claude-code",)
"""Clients `tool skills --client` installs skills for."""

HELP_LEVELS = ("names", "summary", "card")


def http_options() -> dict[str, Option]:
    """The HTTP server's flags, the same for `tool mcp --http` and `burgee dev` (rules:
    `workbench.runtime.serving`); fresh Option objects for each command that declares them."""
    return {
        "token_file": Option("string", "the bearer token HTTP clients must send, read from "
                             "this file (default: $BURGEE_MCP_TOKEN, else a random one, "
                             "printed)", placeholder="<path>"),
        "no_auth": Option("boolean", "HTTP on 127.0.0.1 without a bearer token (any local "
                          "process can call every tool)", negatable=False),
        "allow_remote": Option("boolean", "allow an HTTP address other machines can reach (a "
                               "bearer token stays required)", negatable=False),
        "max_sessions": Option("integer", "open HTTP sessions kept; the oldest idle one is "
                               "closed for a new one (default 100; $BURGEE_MCP_MAX_SESSIONS)",
                               placeholder="<n>"),
        "idle_timeout": Option("number", "seconds before an idle HTTP session is closed "
                               "(default 600; $BURGEE_MCP_IDLE_TIMEOUT)",
                               placeholder="<seconds>"),
    }


SHELLS = ("bash", "zsh", "fish")
FORMATS = ("json", "ndjson", "table", "tsv")
"""`--format`: aligned text, tab-separated values, one envelope, a stream."""


def fields_option() -> Option:
    """`--fields a,b.c`: a global flag; also each paginated command's `fields` MCP argument,
    and every command's where the program opts in (`workbench.declaration.model.attach`), so one
    description serves both."""
    return Option("string", "keep only these fields of the data, comma-separated (a.b: a "
                  "nested one; null when unset)", placeholder="<a,b.c>")


def jq_option() -> Option:
    """`--jq EXPR`: a global flag; also an MCP argument where the program opts in
    (`Program(mcp_filters=True)`), so one description serves both."""
    return Option("string", "filter the data through this jq expression (the jq extra); one "
                  "result is the data, several a list", placeholder="<expr>")


def _global_options() -> dict[str, Option]:
    options = {
        "json": Option("boolean", "one JSON document on stdout (the envelope)", negatable=False),
        "help": Option("boolean", "this help; with --json, help as data", short="h",
                       negatable=False),
        "schema": Option("boolean", "input JSON Schema, as data", negatable=False),
        "version": Option("boolean", "print the version", negatable=False),
        "debug": Option("boolean", "tracebacks on stderr", negatable=False),
        "format": Option("enum", "output format: json (one envelope, as --json), ndjson (a "
                         "stream), table (aligned text) or tsv (tab-separated, a header row; "
                         "the default when piped)", choices=FORMATS),
        "progress": Option("boolean", "report progress on stderr", negatable=False),
        "fields": fields_option(),
        "jq": jq_option(),
        "no_color": Option("boolean", "no colour, even at a terminal (as NO_COLOR=1)",
                           negatable=False),
    }
    for key, option in options.items():
        option.key = key
    return options


GLOBAL_OPTIONS = _global_options()
"""Flags every command accepts anywhere before `--`, by key."""

GLOBAL_SPELLINGS = {spelling: option for option in GLOBAL_OPTIONS.values()
                    for spelling in option.spellings}
"""`--json`, `-h`, `--format`, ... -> the global Option."""

SHARED_SPELLINGS = frozenset(("--no-color",))
"""Global spellings a command may also declare (a Click `--color/--no-color`, a typed
`color: bool`): given to such a command, the token is the global flag *and* the command's own
(`workbench.runtime.parser.parse`), so adapting such a program never fails on it."""

RESERVED_OPTIONS: tuple[str, ...] = tuple(key for key, option in GLOBAL_OPTIONS.items()
                         if not set(option.spellings) <= SHARED_SPELLINGS)
RESERVED_SHORTS: tuple[str, ...] = tuple(o.short for o in GLOBAL_OPTIONS.values() if o.short)


class Builtin(Command):
    """A built-in command, declared as a program's own commands are: its path
    (`("mcp", "config")`), options and arguments. Never an MCP tool."""

    path: tuple[str, ...]

    def __init__(self, path: Sequence[str], description: str,
                 options: dict[str, Option] | None = None, arguments: Sequence[Argument] = (),
                 errors: Sequence[str | dict[str, Any]] = ()) -> None:
        super().__init__(path[-1], description, effects="withheld", options=options,
                         arguments=arguments, errors=errors)
        self.path = tuple(path)

    def __repr__(self) -> str:
        return f"Builtin({' '.join(self.path)!r})"


def _builtins() -> dict[tuple[str, ...], Builtin]:
    table = [
        Builtin(("help",), "help for the program, a group or a command",
                {"level": Option("enum", "how much to show (with --json)", choices=HELP_LEVELS,
                                 default="summary")},
                [Argument("path", description="a group or command, e.g. 'pr merge'",
                          required=False, variadic=True)]),
        Builtin(("help", "search"), "find commands by what they do",
                arguments=[Argument("words", description="what you want to do",
                                    required=False, variadic=True)]),
        Builtin(("completion",), "a shell completion script",
                arguments=[Argument("shell", "enum", "the shell", choices=SHELLS)]),
        Builtin(("mcp",), "serve the program over MCP (stdio, or streamable HTTP); "
                "'mcp config' and 'mcp install' register it with a client, 'mcp doctor' says why "
                "a client cannot reach it",
                {"http": Option("string", "serve streamable HTTP at HOST:PORT (PORT 0 picks a "
                                "free port)", placeholder="<host:port>"),
                 **http_options(),
                 "max_result_bytes": Option("integer", "the largest tool result sent, in bytes "
                                            "(default 4 MiB; $BURGEE_MCP_MAX_RESULT_BYTES)",
                                            placeholder="<n>"),
                 "call_timeout": Option("number", "seconds a tool call may run before it is "
                                        "killed with its processes and answers timeout "
                                        "(default 300; $BURGEE_MCP_CALL_TIMEOUT)",
                                        placeholder="<seconds>"),
                 "max_concurrent_calls": Option("integer", "tool calls run at once, each in a "
                                                "process of its own; more wait their turn "
                                                "(default 16; "
                                                "$BURGEE_MCP_MAX_CONCURRENT_CALLS)",
                                                placeholder="<n>")}),
        Builtin(("mcp", "config"), "the configuration that registers this server with a client",
                {"client": Option("enum", "the MCP client", required=True,
                                  choices=MCP_CLIENTS),
                 "url": Option("string", "a running HTTP server's URL (tool mcp --http): "
                               "configure the client for it, bearer token header included",
                               placeholder="<url>"),
                 "token_file": Option("string", "with --url: the server's bearer token, read "
                                      "from this file (default: $BURGEE_MCP_TOKEN)",
                                      placeholder="<path>")}),
        Builtin(("mcp", "install"), "register this server in a client's own configuration "
                "file: merged, the previous file kept as a backup",
                {"client": Option("enum", "the MCP client", required=True,
                                  choices=MCP_CLIENTS),
                 "scope": Option("enum", "the user's file (every project) or the project's "
                                 "(the current folder)", choices=MCP_SCOPES, default="user"),
                 "dry_run": Option("boolean", "print what would change; write nothing",
                                   negatable=False)},
                errors=[{"code": "invalid_config", "exit": 5,
                         "when": "the client's file does not parse (or holds the server in a "
                                 "form burgee cannot replace): it is left as it was"}]),
        Builtin(("mcp", "doctor"), "why this program's setup fails: the program, its server "
                "command, the MCP server's answer, its contract (a quick burgee check), each "
                "client's configuration",
                {"client": Option("enum", "check only this client's files",
                                  choices=MCP_CLIENTS),
                 "timeout": Option("number", "seconds the MCP server has to answer "
                                   "initialize", default=10.0, min=0.1,
                                   placeholder="<seconds>"),
                 "check": Option("boolean", "also run a quick burgee check (3 calls per "
                                 "command) on the program's file; --no-check skips it",
                                 default=True)},
                errors=[{"code": "setup_problems", "exit": 1,
                         "when": "a check failed; each finding names its fix"}]),
        Builtin(("skills",), "Agent Skills (SKILL.md) and llms.txt for this program: print or "
                "install them",
                {"client": Option("enum", "install into this client's skills folder",
                                  choices=SKILL_CLIENTS),
                 "project": Option("boolean", "with --client: the project's folder "
                                   "(./.claude/skills), not the user's", negatable=False),
                 "dir": Option("string", "write the skill folders under this folder",
                               placeholder="<folder>"),
                 "llms": Option("boolean", "print llms.txt instead", negatable=False)}),
    ]
    return {builtin.path: builtin for builtin in table}


BUILTINS: dict[tuple[str, ...], Builtin]
"""Built-in commands by path: made on first use (`__getattr__`), as a call of a program's
own command never needs them (~0.1 ms of Options and Commands on every start)."""

RESERVED_COMMANDS: tuple[str, ...] = ("help", "completion", "mcp", "skills")
"""Top-level names a program may not use for its own commands: the first words of
`BUILTINS`' paths (a test holds them equal)."""


def __getattr__(name: str) -> object:
    if name == "BUILTINS":
        return _table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _table() -> dict[tuple[str, ...], Builtin]:
    table = globals().get("BUILTINS")
    if table is None:
        table = globals()["BUILTINS"] = _builtins()
    return table


def find_builtin(tokens: Sequence[str]) -> tuple[Builtin | None, int]:
    """(Builtin, number of tokens its path used) for argv starting with a built-in, else
    (None, 0). The longest path wins: `help search x` is `help search`, `help x` is `help`."""
    if not tokens or tokens[0] not in RESERVED_COMMANDS:
        return None, 0
    table = _table()
    if len(tokens) > 1 and (tokens[0], tokens[1]) in table:
        return table[(tokens[0], tokens[1])], 2
    return table[(tokens[0],)], 1
