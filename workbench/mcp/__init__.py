"""`tool mcp`: serve a declared program over MCP (stdio or streamable HTTP), or print a client config.

    tool mcp                          # stdio, for an MCP client to start
    tool mcp --http 127.0.0.1:8000    # streamable HTTP at http://127.0.0.1:8000/mcp
    tool mcp config --client cursor [--json]

`asgi(program)` is the same server as an ASGI app for uvicorn/gunicorn workers (scale-out).

Importing this package is cheap; the MCP SDK is imported only when a server is built
(`workbench.mcp.server`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False   # typing's own flag costs an import of typing
if TYPE_CHECKING:
    import os
    import socket

    from starlette.applications import Starlette

    from workbench.declaration.model import Program
    from workbench.runtime.serving import Policy


def _write(stream, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):
        pass


def serve(program: Program, address: tuple[str, int] | None = None, *,
          policy: Policy | None = None) -> int:
    """Serve `program` over stdio (address None) or streamable HTTP at (host, port); the exit
    code. `tool mcp` (parsed by the one parser, `workbench.runtime.builtins`) lands here.
    `policy` (`workbench.runtime.serving.Policy`): the token, bounds, result limit and call
    bounds. Each tool call runs in a process of its own (`workbench.runtime.forks`); the
    fork server is forked here, before the MCP SDK is imported or a thread started."""
    from workbench.runtime import serving
    if policy is None:
        policy = serving.http_policy(*address) if address is not None else serving.Policy()
    sock = listen(*address) if address is not None else None   # a Fail names the fix
    forks = _fork_server(program, None, policy)
    from workbench.mcp.server import ProgramServer, quiet_logging
    quiet_logging()
    served = ProgramServer(program, max_result_bytes=policy.max_result_bytes, forks=forks)
    served.grace = policy.grace
    import anyio
    import signal

    def stopped(signum, frame):   # what uvicorn raises again once it stopped on SIGTERM
        raise _Stopped()
    signal.signal(signal.SIGTERM, stopped)   # the server stops itself (`stop_calls`)
    try:
        if address is None:
            if sys.stdin is not None and sys.stdin.isatty():
                _write(sys.stderr, f"{program.name}: serving MCP over stdio (an MCP client "
                       f"starts this; see '{program.name} mcp config'). Ctrl-C stops.\n")
            anyio.run(served.run_stdio)
        else:
            host, port = address
            anyio.run(lambda: served.serve_http(host, port, policy=policy, sock=sock,
                                                announce=lambda url: _write(
                                                    sys.stderr,
                                                    announcement(program.name, url, policy))))
    except KeyboardInterrupt:
        return 130
    except BaseException as error:   # noqa: BLE001 - re-raised unless it is the stop
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        if not isinstance(error, _Stopped):
            raise
    finally:
        if forks is not None:
            forks.close()
    return 0


class _Stopped(Exception):
    """SIGTERM, once the server has stopped gracefully: a clean end (exit 0)."""


def _fork_server(program, environ, policy):
    """The fork server every call of this server runs from (None where processes cannot be
    forked: calls then run in this process, one at a time)."""
    from workbench.runtime import forks
    if not forks.available():
        return None
    return forks.ForkServer.start(program, environ=environ, max_calls=policy.max_calls,
                                  timeout=policy.call_timeout,
                                  max_result_bytes=policy.max_result_bytes)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening at host:port (port 0: a free one), or the `Fail` that names
    the fix: the port in use, an address this machine does not have, a port it may not use."""
    import errno
    import socket
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        from workbench.declaration.model import Fail
        shown = f"[{host}]" if ":" in host else host
        reason = error.strerror or str(error)
        if error.errno == errno.EADDRINUSE:
            raise Fail("port_in_use", f"cannot listen on {shown}:{port}: {reason}", exit=2,
                       hint="another process listens there; pick another port, or 0 for any "
                            "free one", fix=f"mcp --http {shown}:0") from None
        raise Fail("cannot_listen", f"cannot listen on {shown}:{port}: {reason}", exit=2,
                   hint="serve on an address of this machine and a port you may use (ports "
                        "under 1024 need privileges), or 127.0.0.1:0",
                   fix="mcp --http 127.0.0.1:0") from None
    return sock


def asgi(program: Program | str | os.PathLike[str], *, stateless: bool = True, path: str = "/mcp",
         allowed_hosts: list[str] | None = None, environ: dict[str, str] | None = None,
         token: str | None = None, auth: bool = True) -> Starlette:
    """An ASGI app serving `program` (a Program, or a file burgee can load) over streamable
    HTTP at `path`, for any ASGI server:

        # app.py
        from workbench.mcp import asgi
        from mytool import program
        app = asgi(program)

        uvicorn app:app --workers 4
        gunicorn app:app -k uvicorn_worker.UvicornWorker -w 4

    Stateless (the default) keeps no session between requests, so a load balancer may send
    each request to any worker or machine; idempotency keys are shared through
    BURGEE_IDEMPOTENCY_URL (docs/mcp.md). `Host` must be loopback or one of `allowed_hosts`
    (default: BURGEE_MCP_ALLOWED_HOSTS, comma-separated), else 421; a foreign `Origin` is 403.
    Every request needs `Authorization: Bearer TOKEN` (401 otherwise), the same token in every
    worker: `token`, else BURGEE_MCP_TOKEN; with neither, building the app is refused.
    `auth=False` leaves the check to your own middleware or proxy.

    Args:
        program: the `Program` to serve, or the path of a file burgee can load (a declared
            program, or a Click, Typer or argparse one).
        stateless: keep no session between requests (any worker may answer any request);
            False keeps sessions, which then need sticky routing.
        path: where the MCP endpoint is mounted.
        allowed_hosts: names (besides loopback) that the `Host` and `Origin` headers may
            carry, on any port; None reads BURGEE_MCP_ALLOWED_HOSTS.
        environ: the environment the calls see (default: the process's), which selects the
            idempotency store (BURGEE_IDEMPOTENCY_URL, BURGEE_STATE_DIR).
        token: the bearer token clients send (default: BURGEE_MCP_TOKEN).
        auth: False serves without the token check (behind your own auth only).
    """
    import os

    from workbench.runtime.extras import require
    require("mcp", "workbench.mcp.asgi")   # a Fail naming pip install 'burgee[mcp]'
    from workbench.runtime.serving import TOKEN_ENV, Policy, call_bounds, env_token, limits
    env = environ if environ is not None else os.environ
    if auth:
        token = token or env_token(env)
        if token is None:
            from workbench.declaration.model import Fail
            raise Fail("missing_token", "asgi() serves behind a bearer token and none was given",
                       exit=2, hint=f"set {TOKEN_ENV} to the same secret in every worker (e.g. "
                       "python -c \"import secrets; print(secrets.token_urlsafe(32))\"), or pass "
                       "token=...; auth=False only behind your own auth middleware")
    else:
        token = None
    max_sessions, idle_timeout, max_result = limits(env, http=True)
    call_timeout, max_calls = call_bounds(env)
    policy = Policy("127.0.0.1", token=token, token_source="env" if token else None,
                    max_sessions=max_sessions, idle_timeout=idle_timeout,
                    max_result_bytes=max_result, call_timeout=call_timeout,
                    max_calls=max_calls)
    if allowed_hosts is None:
        listed = env.get("BURGEE_MCP_ALLOWED_HOSTS", "")
        allowed_hosts = [name.strip() for name in listed.split(",") if name.strip()]
    if isinstance(program, (str, os.PathLike)):
        from workbench.loader import load_program
        program = load_program(os.fspath(program))
    forks = _fork_server(program, environ, policy)   # before the SDK is imported
    from workbench.mcp.server import ProgramServer, quiet_logging
    quiet_logging()
    served = ProgramServer(program, environ=environ, forks=forks)
    return served.http_app(path=path, stateless=stateless, allowed_hosts=list(allowed_hosts),
                           policy=policy)


def announcement(name: str, url: str, policy: Policy) -> str:
    """What a person sees on stderr once an HTTP server listens: its address first (one line,
    `NAME: serving MCP at URL`), then how to authenticate and who can reach it."""
    from workbench.runtime.serving import exposure
    from workbench.surfaces.clients import TOKEN_PLACEHOLDER, http_config
    shown = policy.token if policy.token_source in ("random", None) else TOKEN_PLACEHOLDER
    claude = http_config(name, "claude-code", url, shown)["snippet"]
    return "".join(f"{name}: {line}\n" for line in [
        f"serving MCP at {url}", *exposure(policy, url), f"connect Claude Code: {claude}",
        f"other clients: {name} mcp config --client cursor --url {url}"])
