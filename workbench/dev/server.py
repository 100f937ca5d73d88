"""The dev MCP server: the program being edited, served while you edit.

The same tools and byte-equal results as `tool mcp` (it is the `workbench.mcp` server with its
program swapped on each reload), with three differences that only a workbench needs:

- tool calls run the user's code in a subprocess with a time limit (`call_timeout`), so a
  handler that hangs or crashes never takes the server down;
- every reload tells every connected client `tools/list_changed`, in both protocol eras;
- every request is recorded for the Traffic view, sensitive argument values hidden.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time

INTERNAL_CLIENT = "burgee-dev"
RESULT_PREVIEW = 100_000
"""Characters of a result the traffic log keeps (the rest is dropped, not stored)."""
KNOWN_SESSIONS = 1000
"""Session ids whose client name is remembered (a flood of sessions cannot grow it)."""


class Outcome:
    """What a subprocess call produced (the same shape as `workbench.runtime.Outcome`)."""

    __slots__ = ("exit", "stdout", "stderr", "envelope")

    def __init__(self, exit, stdout, stderr, envelope):
        self.exit, self.stdout, self.stderr, self.envelope = exit, stdout, stderr, envelope


def subprocess_call(bench, argv, *, timeout: float, environ: dict | None = None,
                    stdin: str | None = None, on_progress=None):
    """`runtime.call(program, argv)` in a fresh subprocess running the last good source.

    A call that does not finish in `timeout` seconds is killed and becomes an `unavailable`
    (exit 7) envelope; a crash becomes an `internal` (exit 1) one. The server keeps going.
    """
    from workbench.runtime import envelope as _envelope
    from workbench.dev.environments import environ_for
    from workbench.dev.loader import run_limited
    request = {"file": bench.file, "source": bench.good_source_file,
               "program": bench.serving_name,
               "argv": list(argv), "environ": environ, "stdin": stdin,
               "progress": on_progress is not None}
    from workbench.dev.sandbox import apply
    # The same clean environment as the CLI side of a diff (no agent or CI markers from
    # wherever `burgee dev` itself runs), so both transports see the same caller; inside the
    # sandbox of the workbench run that made this call, if one did (connected clients' calls
    # run as `tool mcp` would).
    env = apply(environ_for("piped"))
    if environ is None:
        request["environ"] = dict(env)
    from workbench.dev.pool import current
    pool = current()
    try:
        if pool is not None and on_progress is None:   # a diff's side, in its batch
            done = pool.run({**request, "mode": "call", "cwd": os.path.dirname(bench.file)},
                            timeout)
        else:
            done = run_limited([sys.executable, "-B", "-m", "workbench.dev._worker", "call"],
                               input=json.dumps(request), timeout=timeout, env=env,
                               cwd=os.path.dirname(bench.file),
                               on_line=_progress_reader(on_progress) if on_progress else None)
    except subprocess.TimeoutExpired:
        doc = _envelope.timed_out(timeout, hint="the handler may be waiting on something; "
                                  "fix it and save, the next call runs the new code")
        return Outcome(doc["error"]["exit"], _envelope.encode(doc) + "\n", "", doc)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith('{"burgee_outcome"'):
            found = json.loads(line)["burgee_outcome"]
            return Outcome(found["exit"], found["stdout"], found["stderr"], found["envelope"])
    tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
    doc = _envelope.failure("internal", f"the command's process ended with exit "
                            f"{done.returncode} before answering: {tail[0]}", exit=1)
    return Outcome(1, _envelope.encode(doc) + "\n", done.stderr, doc)


def _progress_reader(on_progress):
    """A stdout line handler: `{"burgee_progress": ...}` lines from the worker go to `on_progress`."""
    def on_line(line: str) -> None:
        if line.startswith('{"burgee_progress"'):
            try:
                report = json.loads(line)["burgee_progress"]
                on_progress(report["done"], report.get("total"), report.get("message"))
            except (ValueError, KeyError, TypeError):
                pass
    return on_line


def redact(program, command, arguments):
    """A copy of tool arguments with every sensitive value masked (the one policy,
    `workbench.runtime.redact`), also under a misspelt key or tool name."""
    return _redactor(program, command, arguments).value(arguments)


def redact_text(program, command, arguments, text: str) -> str:
    """`text` (a result) with the sensitive values of one call's arguments masked."""
    return _redactor(program, command, arguments).text(text)


def _redactor(program, command, arguments):
    """The one policy's Redactor for the sensitive values of one call's arguments."""
    from workbench.runtime.redact import Redactor, secrets_in_arguments
    return Redactor(secrets_in_arguments(program, command, arguments))


class DevServer:
    """MCP over streamable HTTP (and stdio) for a Workbench; see the module docstring."""

    def __init__(self, bench, *, call_timeout: float | None = None):
        self.bench = bench
        self.call_timeout = call_timeout or bench.call_timeout
        self.program = None
        self._core = None           # the workbench.mcp server object (built lazily)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._uvicorn = None
        self._serve_task = None
        self.url: str | None = None
        self._clients: dict = {}     # session id -> clientInfo name

    # --- the program ------------------------------------------------------------------

    def set_program(self, program) -> None:
        """Serve `program` from the next request on (an attribute swap: atomic)."""
        self.program = program
        if self._core is not None:
            self._core.set_program(program)

    def prepare(self, program) -> None:
        """Compute `program`'s tools/list ahead of serving it (from the loading thread), when
        the MCP server exists."""
        if self._core is not None:
            self._core.prepare(program)

    async def told_clients_listed(self, timeout: float) -> bool:
        """Wait (`timeout` seconds at most) until the clients told of the last change listed
        the tools again; whether they all did (True when none were told)."""
        if self._core is None:
            return True
        return await self._core.told_clients_listed(timeout)

    def tools_changed(self) -> None:
        """Tell every connected client the tool list changed; safe from any thread."""
        if self._core is None or self._loop is None or self._loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._loop.create_task(self._core.notify_tools_changed())
        else:
            asyncio.run_coroutine_threadsafe(self._core.notify_tools_changed(), self._loop)

    @property
    def core(self):
        """The MCP server object (`workbench.mcp`), built on first use."""
        if self._core is None:
            from workbench.mcp import server as _mcp
            self._core = _mcp.ProgramServer(self.program or _placeholder(self.bench),
                                            caller=self._call, observer=self._observe)
        return self._core

    @property
    def server(self):
        """The SDK's low-level `mcp.server.Server`."""
        return self.core.server

    # --- calls --------------------------------------------------------------------------

    def _call(self, program, command, argv, *, on_progress=None):
        """The caller hook: run argv in a subprocess (blocking; the server runs it in a thread);
        the handler's `ctx.progress` reaches `on_progress` as it happens."""
        return subprocess_call(self.bench, argv, timeout=self.call_timeout,
                               on_progress=on_progress)

    def _observe(self, record: dict) -> None:
        """Called by the MCP server once per answered request: keep it for the Traffic view."""
        from workbench.dev.engine import TrafficEntry
        if record.get("client") == INTERNAL_CLIENT:
            return   # the workbench's own calls (environments, diffs) are not traffic
        program = self.program
        tool = record.get("tool")
        command = program.tool(tool) if (program is not None and tool) else None
        arguments = record.get("arguments")
        hide = _redactor(program, command, arguments)
        result = record.get("result")
        if isinstance(result, str):   # the log keeps a preview, never a whole large result
            result = hide.text(result[:2 * RESULT_PREVIEW])
            if len(result) > RESULT_PREVIEW:
                result = result[:RESULT_PREVIEW] + "\u2026"
        session = record.get("session")
        client = record.get("client") or self._clients.get(session) or "unknown"
        if session is not None and client != "unknown":
            self._clients[session] = client     # requests before the session knows its name
            while len(self._clients) > KNOWN_SESSIONS:
                del self._clients[next(iter(self._clients))]   # the oldest first
        entry = TrafficEntry(at=record.get("at", time.time()), client=client,
                             session=session, method=record.get("method", "?"),
                             tool=tool, arguments=hide.value(arguments),
                             result=result, is_error=bool(record.get("is_error")),
                             seconds=record.get("seconds", 0.0), error=record.get("error"))
        self.bench.record_traffic(entry)

    def call_tool_sync(self, name: str, arguments: dict, *, timeout: float = 60.0,
                       sandbox=None) -> dict:
        """A tools/call through the server's own handlers, from any thread (not the loop's).

        Returns {"text", "is_error", "structured"}. Used by the `mcp` environment and diffs;
        the command's subprocess runs in `sandbox` (a `workbench.dev.sandbox.Sandbox`).
        """
        import anyio

        from workbench.dev.sandbox import using

        async def go():
            from mcp import Client
            # Set before the client starts the in-memory server: its tasks and the worker
            # thread that runs the call copy this context, so subprocess_call finds the box.
            with using(sandbox), anyio.fail_after(timeout):
                async with Client(self.server, cache=None,
                                  client_info=_client_info(INTERNAL_CLIENT)) as client:
                    await _list_every_page(client)
                    result = await client.call_tool(name, arguments)
            text = "".join(getattr(part, "text", "") for part in result.content)
            return {"text": text, "is_error": bool(result.is_error),
                    "structured": result.structured_content}

        box = {}

        def runner():
            try:
                box["value"] = anyio.run(go)
            except BaseException as exc:  # noqa: BLE001 - hand it to the caller's thread
                box["error"] = exc

        thread = threading.Thread(target=runner, daemon=True)
        thread.start()
        thread.join(timeout + 5)
        if "error" in box:
            raise _leaf(box["error"])
        if "value" not in box:
            raise TimeoutError(f"tools/call {name} did not answer within {timeout:g} s")
        return box["value"]

    @contextlib.contextmanager
    def batch_caller(self, pool):
        """`with server.batch_caller(pool) as call:` one client session for a whole diff batch;
        `call(name, arguments, timeout)` returns what `call_tool_sync` does, from any thread,
        and runs the command as a fork of `pool`'s workers (a session per call costs more
        than the call)."""
        from anyio import fail_after
        from anyio.from_thread import start_blocking_portal

        from workbench.dev import pool as _pool

        from mcp import Client
        session = Client(self.server, cache=None, client_info=_client_info(INTERNAL_CLIENT))
        with start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(session) as client:
            portal.call(_list_every_page, client)
            def call(name: str, arguments: dict, timeout: float) -> dict:
                async def go():
                    # The server's handler runs in a copy of this task's context.
                    with _pool.using(pool), fail_after(timeout):
                        result = await client.call_tool(name, arguments)
                    text = "".join(getattr(part, "text", "") for part in result.content)
                    return {"text": text, "is_error": bool(result.is_error),
                            "structured": result.structured_content}
                try:
                    return portal.call(go)
                except BaseException as exc:  # noqa: BLE001 - the one real error
                    raise _leaf(exc) from None
            yield call

    # --- transports -----------------------------------------------------------------------

    async def start_http(self, *, host: str = "127.0.0.1", port: int | None = None,
                         policy=None) -> str:
        """Serve streamable HTTP at http://host:port/mcp as a task on the running loop, behind
        `policy`'s bearer token and bounds (`workbench.runtime.serving.Policy`)."""
        import logging

        import uvicorn
        self._loop = asyncio.get_running_loop()
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp", "httpx", "httpx2"):
            logging.getLogger(name).setLevel(logging.WARNING)
        app = self.core.http_app(host=host, policy=policy)
        try:
            sock = _bind(host, port or 0)
        except OSError as exc:
            from workbench._text import join
            from workbench.declaration.model import Fail
            raise Fail("port_in_use", f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                       exit=2, hint="pass another --port, or --port 0 for any free port",
                       fix=join(["dev", self.bench.file, "--port", "0"])) from None
        port = sock.getsockname()[1]
        config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=1)
        self._uvicorn = uvicorn.Server(config)
        self._serve_task = asyncio.create_task(self._uvicorn.serve(sockets=[sock]))
        while not self._uvicorn.started:
            if self._serve_task.done():
                self._serve_task.result()
            await asyncio.sleep(0.01)
        self.url = f"http://{host}:{port}/mcp"
        return self.url

    async def serve_stdio(self) -> None:
        """Serve over this process's stdin/stdout until the client goes away."""
        self._loop = asyncio.get_running_loop()
        await self.core.run_stdio()

    async def stop(self) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
            try:
                await asyncio.wait_for(self._serve_task, 5)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                self._serve_task.cancel()
            self._uvicorn = None


def _leaf(error: BaseException) -> BaseException:
    """The one real error inside task-group wrappers ("unhandled errors in a TaskGroup")."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _placeholder(bench):
    """An empty program to serve (no tools) until the file first loads."""
    from workbench.declaration.model import Program
    name = os.path.splitext(os.path.basename(bench.file))[0].replace("_", "-").lower() or "app"
    return Program(name=name, version="0.0.0", description="not loaded yet", commands=[],
                   check=False)


def _bind(host: str, port: int):
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _list_every_page(client) -> None:
    """List the tools, following `nextCursor`, so the SDK client knows every tool's output
    schema: it checks a result against it and, for a tool it has not seen, lists again, but
    only the first page (a long list comes in pages: `workbench.mcp.server.LIST_PAGE_BYTES`),
    so every call to a later tool re-listed 900 KB and was not checked."""
    result = await client.list_tools()
    while result.next_cursor:
        result = await client.list_tools(cursor=result.next_cursor)


def _client_info(name: str):
    import mcp_types
    return mcp_types.Implementation(name=name, version="0")
