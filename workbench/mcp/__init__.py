"""`tool mcp`: serve a declared program over MCP (stdio or streamable HTTP), or print a client config.

    tool mcp                          # stdio, for an MCP client to start
    tool mcp --http 127.0.0.1:8000    # streamable HTTP at http://127.0.0.1:8000/mcp
    tool mcp config --client cursor [--json]

Importing this package is cheap; the MCP SDK is imported only when a server is built
(`workbench.mcp.server`).
"""

from __future__ import annotations

import sys


def _write(stream, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):
        pass


def serve(program, address=None, *, policy=None) -> int:
    """Serve `program` over stdio (address None) or streamable HTTP at (host, port); the exit
    code. `tool mcp` (parsed by the one parser, `workbench.runtime.builtins`) lands here.
    `policy` (`workbench.runtime.serving.Policy`): the token, bounds and result limit."""
    from workbench.mcp.server import ProgramServer, quiet_logging
    from workbench.runtime import serving
    quiet_logging()
    if policy is None:
        policy = serving.http_policy(*address) if address is not None else serving.Policy()
    served = ProgramServer(program, max_result_bytes=policy.max_result_bytes)
    import anyio
    try:
        if address is None:
            if sys.stdin is not None and sys.stdin.isatty():
                _write(sys.stderr, f"{program.name}: serving MCP over stdio (an MCP client "
                       f"starts this; see '{program.name} mcp config'). Ctrl-C stops.\n")
            anyio.run(served.run_stdio)
        else:
            host, port = address
            anyio.run(lambda: served.serve_http(host, port, policy=policy, announce=lambda url: \
                _write(sys.stderr, announcement(program.name, url, policy))))
    except KeyboardInterrupt:
        return 130
    return 0


def announcement(name: str, url: str, policy) -> str:
    """What a person sees on stderr once an HTTP server listens: its address first (one line,
    `NAME: serving MCP at URL`), then how to authenticate and who can reach it."""
    from workbench.runtime.serving import exposure
    from workbench.surfaces.clients import TOKEN_PLACEHOLDER, http_config
    shown = policy.token if policy.token_source in ("random", None) else TOKEN_PLACEHOLDER
    claude = http_config(name, "claude-code", url, shown)["snippet"]
    return "".join(f"{name}: {line}\n" for line in [
        f"serving MCP at {url}", *exposure(policy, url), f"connect Claude Code: {claude}",
        f"other clients: {name} mcp config --client cursor --url {url}"])
