"""`tool mcp`: serve a declared program over MCP (stdio or streamable HTTP), or print a client config.

    tool mcp                          # stdio, for an MCP client to start
    tool mcp --http 127.0.0.1:8000    # streamable HTTP at http://127.0.0.1:8000/mcp
    tool mcp config --client cursor [--json]

Importing this package is cheap; the MCP SDK is imported only when a server is built
(`workbench.mcp.server`).
"""

from __future__ import annotations

import sys

USAGE = """usage: {name} mcp [--http HOST:PORT]
       {name} mcp config --client {clients} [--json]

Serve {name} as an MCP server: one tool per command (except withheld ones), each call run
as '{name} <command> --json' would run it, its text result the same JSON bytes.

  (no options)      stdio, for an MCP client to start (see 'mcp config')
  --http HOST:PORT  streamable HTTP at http://HOST:PORT/mcp (loopback by default; PORT 0
                    picks a free port)
  config --client   the configuration that registers this server with a client
"""


def _write(stream, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):
        pass


def _refuse(program, code, message, hint, fix_tokens, as_json) -> int:
    from workbench.runtime import envelope
    from workbench.runtime.pipeline import runnable
    fix = runnable(program, fix_tokens, as_json) if fix_tokens is not None else None
    doc = envelope.failure(code, message, exit=envelope.EXIT_USAGE, hint=hint, fix=fix)
    doc["meta"] = {"schema_version": program.schema_version}
    if as_json:
        _write(sys.stdout, envelope.encode(doc) + "\n")
    else:
        lines = [f"error: {message}"] + ([f"hint: {hint}"] if hint else []) + \
            ([f"next: {fix}"] if fix else [])
        _write(sys.stderr, "\n".join(lines) + "\n")
    return envelope.EXIT_USAGE


def _value(tokens, i, flag):
    """(value, next index) for `--flag VALUE` / `--flag=VALUE` at tokens[i], value None if absent."""
    token = tokens[i]
    if token.startswith(flag + "="):
        return token[len(flag) + 1:], i + 1
    if i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
        return tokens[i + 1], i + 2
    return None, i + 1


def parse_address(text: str):
    """`HOST:PORT`, `[::1]:PORT`, `:PORT` or `PORT` -> (host, port); host defaults to 127.0.0.1."""
    host, port = "127.0.0.1", text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1:end + 2] != ":":
            raise ValueError(text)
        host, port = text[1:end], text[end + 2:]
    elif ":" in text:
        host, port = text.rsplit(":", 1)
        host = host or "127.0.0.1"
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(text)
    return host, number


def serve_cli(program, argv) -> int:
    """`tool mcp ...` (argv after `mcp`); returns the exit code."""
    from workbench.surfaces.clients import CLIENTS
    tokens = list(argv)
    as_json = "--json" in tokens
    tokens = [t for t in tokens if t != "--json"]
    if "--help" in tokens or "-h" in tokens:
        _write(sys.stdout, USAGE.format(name=program.name, clients="|".join(CLIENTS)))
        return 0
    if tokens[:1] == ["config"]:
        return _config(program, tokens[1:], as_json)
    address = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--http" or token.startswith("--http="):
            value, i = _value(tokens, i, "--http")
            try:
                address = parse_address(value or "")
            except ValueError:
                return _refuse(program, "invalid_value",
                               f"--http needs HOST:PORT, e.g. 127.0.0.1:8000; got {value!r}"
                               if value else "--http needs HOST:PORT, e.g. 127.0.0.1:8000",
                               "PORT 0 picks a free port", ["mcp", "--http", "127.0.0.1:8000"],
                               False)
            continue
        from workbench._text import nearest
        close = nearest(token, ["--http", "config"], n=1)
        return _refuse(program, "unknown_option", f"'{program.name} mcp' has no option {token}",
                       f"did you mean {close[0]}?" if close else
                       "it takes --http HOST:PORT, or 'config --client NAME'",
                       ["mcp"] + ([close[0]] if close else []), False)
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


def _config(program, tokens, as_json) -> int:
    from workbench.runtime import envelope
    from workbench.surfaces.clients import CLIENTS, client_config, config_text
    client = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--client" or token.startswith("--client="):
            client, i = _value(tokens, i, "--client")
            continue
        return _refuse(program, "unknown_option",
                       f"'{program.name} mcp config' has no option {token}",
                       "it takes --client NAME", ["mcp", "config", "--client", "claude-code"],
                       as_json)
    if client not in CLIENTS:
        from workbench._text import nearest
        close = nearest(client, CLIENTS, n=1) if client else []
        return _refuse(program, "invalid_choice" if client else "missing_option",
                       (f"--client must be one of: {', '.join(CLIENTS)}; got {client!r}"
                        if client else f"mcp config needs --client ({', '.join(CLIENTS)})"),
                       f"did you mean {close[0]}?" if close else None,
                       ["mcp", "config", "--client", close[0] if close else "<client>"],
                       as_json)
    config = client_config(program, client, _script_command(program))
    if as_json:
        doc = envelope.success(config, {"schema_version": program.schema_version})
        _write(sys.stdout, envelope.encode(doc) + "\n")
    else:
        _write(sys.stdout, config_text(config))
    return 0


def _script_command(program):
    """`[python, SCRIPT, "mcp"]` when a program with no loader-set source runs as a .py script."""
    if program.source:
        return None
    import os
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if main and main.endswith(".py") and os.path.isfile(main):
        return [sys.executable, os.path.abspath(main), "mcp"]
    return None
