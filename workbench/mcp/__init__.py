"""`tool mcp`: serve a declared program over MCP (stdio or streamable HTTP), or print a client config.

    tool mcp                          # stdio, for an MCP client to start
    tool mcp --http 127.0.0.1:8000    # streamable HTTP at http://127.0.0.1:8000/mcp
    tool mcp config --client cursor [--json]

Importing this package is cheap; the MCP SDK is imported only when a server is built
(`workbench.mcp.server`).
"""

from __future__ import annotations

import os
import sys


def _write(stream, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):
        pass


def serve(program, address=None) -> int:
    """Serve `program` over stdio (address None) or streamable HTTP at (host, port); the exit
    code. `tool mcp` (parsed by the one parser, `workbench.runtime.builtins`) lands here."""
    from workbench.mcp.server import ProgramServer, quiet_logging
    quiet_logging()
    served = ProgramServer(program)
    import anyio
    try:
        if address is None:
            if sys.stdin is not None and sys.stdin.isatty():
                _write(sys.stderr, f"{program.name}: serving MCP over stdio (an MCP client "
                       f"starts this; see '{program.name} mcp config'). Ctrl-C stops.\n")
            anyio.run(served.run_stdio)
        else:
            host, port = address
            anyio.run(lambda: served.serve_http(host, port, announce=lambda url: _write(
                sys.stderr, f"{program.name}: serving MCP at {url}\n")))
    except KeyboardInterrupt:
        return 130
    return 0


def serve_file(path: str, argv) -> int:
    """`burgee mcp FILE [--program NAME] [--watch] ...`: load the Program declared in FILE and
    serve it; with --watch, over stdio, reloading on each save (`workbench.dev`)."""
    from workbench.loader import LoadError, load_program
    tokens = list(argv)
    name = None
    if "--program" in tokens[:-1]:
        at = tokens.index("--program")
        name = tokens[at + 1]
        del tokens[at:at + 2]
    if "--watch" in tokens:   # reload on save, tell the client (workbench.dev owns this)
        tokens.remove("--watch")
        if tokens:
            return _refuse_watch(tokens)
        from workbench.dev import serve_stdio_watch
        return serve_stdio_watch(path, program_name=name)
    try:
        program = load_program(path, name)
    except LoadError as error:
        _write(sys.stderr, f"error: {error.message}\n" + (error.details or ""))
        return 3 if error.code == "not_found" else 1
    from workbench.runtime.pipeline import World, execute
    world = World(os.environ, sys.stdin, sys.stdout, sys.stderr)
    return execute(program, ["mcp", *tokens], world, serve=serve)[0]


def _refuse_watch(tokens) -> int:
    _write(sys.stderr, f"error: 'burgee mcp FILE --watch' serves stdio only; it takes no "
           f"{' '.join(tokens)}\nhint: for HTTP while editing, run 'burgee dev FILE'\n")
    return 2
