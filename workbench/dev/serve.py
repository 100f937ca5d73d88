"""The long-running forms: `burgee dev FILE` (HTTP, until Ctrl-C) and `burgee mcp FILE --watch`."""

from __future__ import annotations

import asyncio
import os
import sys


def serve_http_forever(file: str, *, port: int | None = None, program_name: str | None = None,
                       run_writes: bool = False, out=None, record: bool = False,
                       policy=None) -> int:
    """Load FILE, serve it over streamable HTTP on 127.0.0.1, reload on save, until Ctrl-C.

    Prints the URL and a client config; each reload prints one line. Returns the exit code.
    """
    from workbench.dev.engine import Workbench
    out = out or sys.stderr
    bench = Workbench(file, program_name=program_name, run_writes=run_writes, policy=policy)

    def show(event):
        if event.kind == "state":
            state = event.data
            if state.load_error is not None:
                print(f"burgee dev: {state.load_error.message}", file=out)
                if state.load_error.traceback:
                    print(state.load_error.traceback.rstrip(), file=out)
                if state.program is not None:
                    print("burgee dev: still serving the last good program", file=out)
            else:
                print(f"burgee dev: {os.path.basename(file)} (generation {state.generation}): "
                      f"{state.changes.summary()}", file=out)
        elif event.kind == "traffic":
            entry = event.data
            print(f"burgee dev: {entry.client} {entry.method}"
                  + (f" {entry.tool}" if entry.tool else "")
                  + f" ({entry.seconds * 1000:.0f} ms)" + (" error" if entry.is_error else ""),
                  file=out)
        out.flush()

    bench.subscribe(show)

    async def main():
        url = await bench.start(port=port)
        from workbench.runtime.serving import exposure
        if record:
            print(f"burgee dev: recording MCP calls to {bench.start_recording()}", file=out)
        print(f"burgee dev: serving MCP at {url} (Ctrl-C to stop)", file=out)
        for line in exposure(bench.policy, url):
            print(f"burgee dev: {line}", file=out)
        print(f"burgee dev: connect Claude Code with: {bench.client_config('claude-code')}",
              file=out)
        out.flush()
        try:
            await asyncio.Event().wait()
        finally:
            await bench.stop()

    return _run_until_interrupted(main)


def serve_stdio_forever(file: str, *, program_name: str | None = None) -> int:
    """`burgee mcp FILE --watch`: MCP over stdio; each save reloads and tells the client.

    Nothing but protocol goes to stdout; load errors go to stderr (the client's log).
    """
    from workbench.dev.engine import Workbench
    bench = Workbench(file, program_name=program_name)

    def show(event):
        if event.kind == "state" and event.data.load_error is not None:
            error = event.data.load_error
            sys.stderr.write(f"burgee mcp --watch: {error.message}\n{error.traceback}")
            sys.stderr.flush()

    bench.subscribe(show)

    async def main():
        from workbench.dev.server import DevServer
        bench.server = DevServer(bench)
        bench.server._loop = asyncio.get_running_loop()
        await bench.start(serve=False, watch=True)   # loads first; the server gets the program
        try:
            await bench.server.serve_stdio()
        finally:
            await bench.stop()

    return _run_until_interrupted(main)


def _run_until_interrupted(main) -> int:
    """Run the coroutine function `main` until it ends (0) or Ctrl-C (130)."""
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0
