"""The rules for serving MCP over HTTP, in one place: the bearer token, who may bind where, the
session bounds and the result size limit.

Pure checks and data, no server imports: `tool mcp --http`, `burgee mcp FILE --http` and
`burgee dev` all read them (`workbench.mcp._guard` enforces them on the wire).

    policy = http_policy("127.0.0.1", 0, environ=os.environ)      # a random token
    policy.token, policy.max_sessions, policy.idle_timeout
"""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Mapping

TOKEN_ENV = "BURGEE_MCP_TOKEN"
"""A bearer token to use instead of a random one (the same for every start)."""
MAX_SESSIONS_ENV = "BURGEE_MCP_MAX_SESSIONS"
IDLE_TIMEOUT_ENV = "BURGEE_MCP_IDLE_TIMEOUT"
MAX_RESULT_ENV = "BURGEE_MCP_MAX_RESULT_BYTES"
CALL_TIMEOUT_ENV = "BURGEE_MCP_CALL_TIMEOUT"
MAX_CALLS_ENV = "BURGEE_MCP_MAX_CONCURRENT_CALLS"

DEFAULT_MAX_SESSIONS = 100
"""Open HTTP sessions; at the limit the oldest idle one is closed for a new one."""
DEFAULT_IDLE_TIMEOUT = 600.0
"""Seconds a session may go without a request in flight before it is closed."""
DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024
"""The largest tool result (UTF-8 bytes on the wire: its text, and its data again as
`structuredContent` when sent) a stdio server sends."""
HTTP_MAX_RESULT_BYTES = 1024 * 1024 - 16 * 1024
"""The same for an HTTP server: the MCP SDK's clients (and FastMCP's, built on them) refuse a
server-sent event over 1 MiB (`mcp.client.streamable_http.DEFAULT_MAX_SSE_EVENT_SIZE`) with a
transport error; 16 KiB are left for the JSON-RPC frame around the result."""
DEFAULT_CALL_TIMEOUT = 300.0
"""Seconds a tool call may run before it is killed (a `timeout` envelope, exit 7)."""
DEFAULT_MAX_CALLS = 16
"""Tool calls that run at once, each in a process of its own; more wait for a place."""
SHUTDOWN_GRACE = 10.0
"""Seconds a stopping server (SIGTERM) gives calls in flight before it ends them
($BURGEE_MCP_SHUTDOWN_GRACE)."""
GRACE_ENV = "BURGEE_MCP_SHUTDOWN_GRACE"

LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable only from this machine: every address it resolves to is a
    loopback one (127.0.0.0/8, ::1). A name is resolved, never read: `127.example.com` may
    point anywhere. A name that does not resolve is not loopback."""
    addresses = _addresses(host) if host else []
    return bool(addresses) and all(address.is_loopback for address in addresses)


def _addresses(host: str) -> list:
    """The IP addresses `host` stands for (a literal address, or what the name resolves
    to); empty when it does not resolve."""
    import ipaddress
    try:
        return [ipaddress.ip_address(host.split("%", 1)[0])]
    except ValueError:
        pass
    import socket
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in found]


def handler_environ(environ: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a handler runs with: the server's, without the bearer token that
    authenticates its clients (a handler, or a child it starts, must not be able to read it)."""
    return {name: value for name, value in (environ or {}).items() if name != TOKEN_ENV}


class Policy:
    """How one HTTP server runs: `token` (None with --no-auth) and where it came from
    (`token_source`: "random", "file", "env" or None), the bind, the bounds."""

    __slots__ = ("host", "port", "token", "token_source", "allow_remote", "max_sessions",
                 "idle_timeout", "max_result_bytes", "call_timeout", "max_calls", "grace")
    host: str   # the slots' types, for checkers
    port: int
    token: str | None
    token_source: str | None
    allow_remote: bool
    max_sessions: int
    idle_timeout: float
    max_result_bytes: int
    call_timeout: float
    max_calls: int
    grace: float

    def __init__(self, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 token_source: str | None = None, allow_remote: bool = False,
                 max_sessions: int = DEFAULT_MAX_SESSIONS,
                 idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT, max_calls: int = DEFAULT_MAX_CALLS):
        self.host, self.port = host, port
        self.token, self.token_source = token, token_source
        self.allow_remote = allow_remote
        self.max_sessions, self.idle_timeout = max_sessions, idle_timeout
        self.max_result_bytes = max_result_bytes
        self.call_timeout, self.max_calls = call_timeout, max_calls
        self.grace = SHUTDOWN_GRACE

    @property
    def remote(self) -> bool:
        return not is_loopback(self.host)


class PolicyError(ValueError):
    """A refused HTTP setting: `code`, the message, a `hint` and the flags that fix it
    (`fix`: tokens to put in place of the refused ones)."""

    code: str
    message: str
    hint: str
    fix: list[str]

    def __init__(self, code: str, message: str, hint: str, fix: list[str]):
        super().__init__(message)
        self.code, self.message, self.hint, self.fix = code, message, hint, fix


def new_token() -> str:
    """A fresh random bearer token (256 bits, URL-safe)."""
    import secrets
    return secrets.token_urlsafe(32)


def _read_token(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as error:
        raise PolicyError("invalid_value", f"cannot read --token-file {path}: "
                          f"{error.strerror or error}",
                          "give a readable file holding the token on one line",
                          ["--token-file", "<path>"]) from None
    if not token or any(c.isspace() for c in token):
        raise PolicyError("invalid_value", f"--token-file {path} holds no token (an empty "
                          "file, or whitespace inside it)",
                          "write one token on one line, e.g. python -c \"import secrets; "
                          "print(secrets.token_urlsafe(32))\" > FILE",
                          ["--token-file", "<path>"])
    return token


def _number(environ, name, value, default, kind, flag):
    if value is None:
        text = (environ or {}).get(name)
        if text in (None, ""):
            return default
        try:
            value = kind(text)
        except ValueError:
            raise PolicyError("invalid_value", f"{name}={text!r} is not a number",
                              f"set {name} to a positive number, or unset it", [flag, "<n>"]) \
                from None
    if not value > 0 or value != value or value == float("inf"):
        raise PolicyError("invalid_value", f"{flag} must be a positive number; got {value!r}",
                          f"pass a positive number, e.g. {flag} {default:g}",
                          [flag, f"{default:g}"])
    return value


def limits(environ: Mapping[str, str] | None = None, *, max_sessions: int | None = None,
           idle_timeout: float | None = None, max_result_bytes: int | None = None,
           http: bool = False) -> tuple[int, float, int]:
    """(max_sessions, idle_timeout, max_result_bytes): each flag, else its variable, else
    its default (for the result over `http`, the smaller `HTTP_MAX_RESULT_BYTES`). Raises
    PolicyError for a value that is not a positive number."""
    return (_number(environ, MAX_SESSIONS_ENV, max_sessions, DEFAULT_MAX_SESSIONS, int,
                    "--max-sessions"),
            _number(environ, IDLE_TIMEOUT_ENV, idle_timeout, DEFAULT_IDLE_TIMEOUT, float,
                    "--idle-timeout"),
            _number(environ, MAX_RESULT_ENV, max_result_bytes,
                    HTTP_MAX_RESULT_BYTES if http else DEFAULT_MAX_RESULT_BYTES, int,
                    "--max-result-bytes"))


def call_bounds(environ: Mapping[str, str] | None = None, *, call_timeout: float | None = None,
                max_calls: int | None = None) -> tuple[float, int]:
    """(call_timeout, max_calls): each flag, else its variable, else its default. Raises
    PolicyError for a value that is not a positive number."""
    return (_number(environ, CALL_TIMEOUT_ENV, call_timeout, DEFAULT_CALL_TIMEOUT, float,
                    "--call-timeout"),
            _number(environ, MAX_CALLS_ENV, max_calls, DEFAULT_MAX_CALLS, int,
                    "--max-concurrent-calls"))


def shutdown_grace(environ: Mapping[str, str] | None = None) -> float:
    """Seconds calls in flight get when the server stops: $BURGEE_MCP_SHUTDOWN_GRACE, else
    the default (0 ends them at once)."""
    text = (environ or {}).get(GRACE_ENV)
    if text in (None, ""):
        return SHUTDOWN_GRACE
    try:
        grace = float(text)
    except ValueError:
        grace = -1.0
    if not 0 <= grace < float("inf"):
        raise PolicyError("invalid_value", f"{GRACE_ENV}={text!r} is not a number of seconds",
                          f"set {GRACE_ENV} to seconds (0 or more), or unset it", [])
    return grace


def max_result_bytes(environ: Mapping[str, str] | None = None, value: int | None = None) -> int:
    """The result size limit: `value`, else BURGEE_MCP_MAX_RESULT_BYTES, else the default."""
    return limits(environ, max_result_bytes=value)[2]


def env_token(environ: Mapping[str, str] | None) -> str | None:
    """The bearer token $BURGEE_MCP_TOKEN gives (surrounding whitespace dropped), or None."""
    return (environ or {}).get(TOKEN_ENV, "").strip() or None


def http_policy(host: str, port: int, *, environ: Mapping[str, str] | None = None,
                token_file: str | None = None, no_auth: bool = False, allow_remote: bool = False,
                max_sessions: int | None = None, idle_timeout: float | None = None,
                max_result_bytes: int | None = None) -> Policy:
    """The Policy for an HTTP server at host:port, or PolicyError naming the fix.

    The token: `token_file`'s, else $BURGEE_MCP_TOKEN, else a random one; none with
    `no_auth`, which only a loopback address may use. A non-loopback address needs
    `allow_remote` (and so a token).
    """
    if host not in WILDCARD and not _addresses(host):
        raise PolicyError(
            "unknown_host", f"{host} does not resolve to an address of this machine's "
            "resolver, so the server cannot listen there",
            "check the name, or serve on 127.0.0.1", ["--http", f"127.0.0.1:{port}"])
    remote = not is_loopback(host)
    if remote and not allow_remote:
        raise PolicyError(
            "remote_bind", f"{host or '0.0.0.0'} is reachable from other machines; "
            "serving there needs --allow-remote",
            "pass --allow-remote to expose the server (a bearer token stays required), or "
            "serve on 127.0.0.1", ["--allow-remote"])
    if remote and no_auth:
        raise PolicyError(
            "remote_bind", f"--no-auth is for 127.0.0.1 only; {host} is reachable from other "
            "machines", "drop --no-auth (clients send the printed bearer token), or serve on "
            "127.0.0.1", ["--allow-remote"])
    sessions, idle, result = limits(environ, max_sessions=max_sessions,
                                    idle_timeout=idle_timeout,
                                    max_result_bytes=max_result_bytes,
                                    http=True)
    token, source = None, None
    if not no_auth:
        if token_file:
            token, source = _read_token(token_file), "file"
        elif env_token(environ):
            token, source = env_token(environ), "env"
        else:
            token, source = new_token(), "random"
    return Policy(host, port, token, source, allow_remote, sessions, idle, result)


def exposure(policy: Policy, url: str) -> list[str]:
    """The lines a person sees beside "serving MCP at URL": how to authenticate, and who can
    reach the server. The token itself only when it was made for this start."""
    lines = []
    if policy.token is None:
        lines.append("no authentication (--no-auth): any process on this machine can call "
                     "every tool")
    elif policy.token_source == "random":
        lines.append(f"bearer token (this start only): {policy.token}")
        lines.append("clients send the header: Authorization: Bearer <token>")
    else:
        where = "--token-file" if policy.token_source == "file" else f"${TOKEN_ENV}"
        lines.append(f"bearer token: the one in {where}; clients send "
                     "Authorization: Bearer <token>")
    if policy.remote:
        shown = "every network interface" if policy.host in WILDCARD else policy.host
        lines.append(f"exposed on {shown} (--allow-remote): any machine that can reach port "
                     f"{url.rsplit(':', 1)[-1].split('/')[0]} and holds the token can call "
                     "every tool; plain HTTP, so put TLS in front for untrusted networks")
    return lines
