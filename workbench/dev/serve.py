"""The long-running forms: `burgee dev FILE` (HTTP, until Ctrl-C) and `burgee mcp FILE --watch`."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TextIO

from workbench.dev.engine import Workbench
from workbench.dev.records import Event
from workbench.dev.replay import Recorder
from workbench.runtime.serving import Policy, exposure


def serve_http_forever(file: str, *, port: int | None = None, program_name: str | None = None,
                       run_writes: bool = False, out: TextIO | None = None,
                       record: bool = False, policy: Policy | None = None) -> int:
    """Load FILE, serve it over streamable HTTP on 127.0.0.1, reload on save, until Ctrl-C.

    Prints the URL and a client config; each reload prints one line. Returns the exit code.
    """
    log: TextIO = out or sys.stderr
    bench = Workbench(file, program_name=program_name, run_writes=run_writes, policy=policy)

    def show(event: Event) -> None:
        if event.kind == "state":
            state = event.data
            if state.load_error is not None:
                print(f"burgee dev: {state.load_error.message}", file=log)
                if state.load_error.traceback:
                    print(state.load_error.traceback.rstrip(), file=log)
                if state.program is not None:
                    print("burgee dev: still serving the last good program", file=log)
            else:
                print(f"burgee dev: {os.path.basename(file)} (generation {state.generation}): "
                      f"{state.changes.summary()}", file=log)
        elif event.kind == "traffic":
            entry = event.data
            print(f"burgee dev: {entry.client} {entry.method}"
                  + (f" {entry.tool}" if entry.tool else "")
                  + f" ({entry.seconds * 1000:.0f} ms)" + (" error" if entry.is_error else ""),
                  file=log)
        log.flush()

    bench.subscribe(show)

    async def main() -> None:
        url = await bench.start(port=port)
        if record:
            bench.recorder = Recorder.beside(bench.file, bench.program)
            print(f"burgee dev: recording MCP calls to {bench.recorder.path}", file=log)
        print(f"burgee dev: serving MCP at {url} (Ctrl-C to stop)", file=log)
        assert bench.policy is not None and url is not None   # start() serves, so both are set
        for line in exposure(bench.policy, url):
            print(f"burgee dev: {line}", file=log)
        print(f"burgee dev: connect Claude Code with: {bench.client_config('claude-code')}",
              file=log)
        log.flush()
        try:
            await asyncio.Event().wait()
        finally:
            await bench.stop()

    return _run_until_interrupted(main)


def serve_stdio_forever(file: str, *, program_name: str | None = None) -> int:
    """`burgee mcp FILE --watch`: MCP over stdio; each save reloads and tells the client.

    Nothing but protocol goes to stdout; load errors go to stderr (the client's log).
    """
    bench = Workbench(file, program_name=program_name)

    def show(event: Event) -> None:
        if event.kind == "state" and event.data.load_error is not None:
            error = event.data.load_error
            sys.stderr.write(f"burgee mcp --watch: {error.message}\n{error.traceback}")
            sys.stderr.flush()

    bench.subscribe(show)

    async def main() -> None:
        server = bench.dev_server()
        server._loop = asyncio.get_running_loop()    # tools_changed() works before it serves
        await bench.start(serve=False, watch=True)   # loads first; the server gets the program
        try:
            await server.serve_stdio()
        finally:
            await bench.stop()

    return _run_until_interrupted(main)


def _run_until_interrupted(main: Callable[[], Coroutine[Any, Any, None]]) -> int:
    """Run the coroutine function `main` until it ends (0) or Ctrl-C (130)."""
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0
