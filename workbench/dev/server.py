"""The dev MCP server: the program being edited, served while you edit.

The same tools and byte-equal results as `tool mcp` (it is the `workbench.mcp` server with its
program swapped on each reload), with three differences that only a workbench needs:

- tool calls run the user's code in a subprocess with a time limit (`call_timeout`), so a
  handler that hangs or crashes never takes the server down;
- every reload tells every connected client `tools/list_changed`, in both protocol eras;
- every request is handed to `on_traffic` for the Traffic view, sensitive values hidden.

It serves a `Served` (the last good program and the source its subprocesses run), swapped by
`serve()` on each good load; it never reads the workbench that made it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from workbench._text import join
from workbench.declaration.model import Command, Fail, Program
from workbench.dev import pool as _pool
from workbench.dev.processes import environ_for, run_limited
from workbench.dev.records import Served, Target, TrafficEntry
from workbench.dev.sandbox import Sandbox, apply, current, using
from workbench.runtime import envelope as _envelope
from workbench.runtime.redact import Redactor, secrets_in_arguments

if TYPE_CHECKING:
    from workbench.mcp.server import ProgramServer
    from workbench.runtime.serving import Policy

ProgressHandler = Callable[[float, float | None, str | None], None]
CallTool = Callable[[str, dict[str, Any], float], dict[str, Any]]
"""`call(tool name, arguments, timeout)` -> {"text", "is_error", "structured"}."""

INTERNAL_CLIENT = "burgee-dev"
RESULT_PREVIEW = 100_000
"""Characters of a result the traffic log keeps (the rest is dropped, not stored)."""
KNOWN_SESSIONS = 1000
"""Session ids whose client name is remembered (a flood of sessions cannot grow it)."""


class Outcome:
    """What a subprocess call produced (the same shape as `workbench.runtime.Outcome`)."""

    exit: int
    stdout: str
    stderr: str
    envelope: dict[str, Any] | None

    __slots__ = ("exit", "stdout", "stderr", "envelope")

    def __init__(self, exit: int, stdout: str, stderr: str,
                 envelope: dict[str, Any] | None) -> None:
        self.exit, self.stdout, self.stderr, self.envelope = exit, stdout, stderr, envelope


def subprocess_call(served: Served, argv: list[str], *, timeout: float,
                    environ: dict[str, str] | None = None, stdin: str | None = None,
                    on_progress: ProgressHandler | None = None) -> Outcome:
    """`runtime.call(program, argv)` in a fresh subprocess running the served source.

    A call that does not finish in `timeout` seconds is killed and becomes an `unavailable`
    (exit 7) envelope; a crash becomes an `internal` (exit 1) one. The server keeps going.
    """
    request: dict[str, Any] = {"file": served.file, "source": served.source_file,
                               "program": served.program_name, "argv": list(argv),
                               "environ": environ, "stdin": stdin,
                               "progress": on_progress is not None}
    # The same clean environment as the CLI side of a diff (an agent's, whatever markers
    # `burgee dev` itself runs with), so both transports see the same caller; inside the
    # sandbox of the workbench run that made this call, if one did (connected clients' calls
    # run as `tool mcp` would).
    env = apply(environ_for("mcp"))
    if environ is None:
        request["environ"] = dict(env)
    pool = _pool.current()
    try:
        if pool is not None and on_progress is None:   # a diff's side, in its batch
            done = pool.run({**request, "mode": "call", "cwd": served.target.folder}, timeout)
        else:
            done = run_limited([sys.executable, "-B", "-m", "workbench.dev._worker", "call"],
                               input=json.dumps(request), timeout=timeout, env=env,
                               cwd=served.target.folder, tracker=current(),
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


def _progress_reader(on_progress: ProgressHandler) -> Callable[[str], None]:
    """A stdout line handler: `{"burgee_progress": ...}` lines from the worker go to
    `on_progress`."""
    def on_line(line: str) -> None:
        if line.startswith('{"burgee_progress"'):
            try:
                report = json.loads(line)["burgee_progress"]
                on_progress(report["done"], report.get("total"), report.get("message"))
            except (ValueError, KeyError, TypeError):
                pass
    return on_line


def redact(program: Program | None, command: Command | None, arguments: Any) -> Any:
    """A copy of tool arguments with every sensitive value masked (the one policy,
    `workbench.runtime.redact`), also under a misspelt key or tool name."""
    return _redactor(program, command, arguments).value(arguments)


def redact_text(program: Program | None, command: Command | None, arguments: Any,
                text: str) -> str:
    """`text` (a result) with the sensitive values of one call's arguments masked."""
    masked: str = _redactor(program, command, arguments).text(text)
    return masked


def _redactor(program: Program | None, command: Command | None, arguments: Any) -> Redactor:
    """The one policy's Redactor for the sensitive values of one call's arguments."""
    return Redactor(secrets_in_arguments(program, command, arguments))


class DevServer:
    """MCP over streamable HTTP (and stdio) for the program of one `Target`; see the module
    docstring. `on_traffic(entry)` hears every answered request of a connected client."""

    call_timeout: float

    def __init__(self, target: Target, *,
                 on_traffic: Callable[[TrafficEntry], None] | None = None,
                 call_timeout: float | None = None) -> None:
        self.target = target
        self.on_traffic = on_traffic
        self.call_timeout = call_timeout or target.call_timeout
        self.served: Served | None = None
        self._core: ProgramServer | None = None   # the workbench.mcp server (built lazily)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._uvicorn: Any = None
        self._serve_task: asyncio.Task[None] | None = None
        self.url: str | None = None
        self._clients: dict[str, str] = {}     # session id -> clientInfo name

    # --- the program ------------------------------------------------------------------

    @property
    def program(self) -> Program | None:
        """The program served (None until the file first loads)."""
        return self.served.program if self.served is not None else None

    def serve(self, served: Served) -> bool:
        """Serve `served` from the next request on (an attribute swap: atomic): its program
        is listed, its source is what calls run. Whether clients would list other tools (a
        reload that changed no tool needs no `list_changed`)."""
        before = self._core.tools() if self._core is not None and self.served else None
        self.served = served
        if self._core is None:
            return True
        self._core.set_program(served.program)
        return before is None or self._core.tools() != before

    def prepare(self, program: Program) -> None:
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
    def core(self) -> ProgramServer:
        """The MCP server object (`workbench.mcp`), built on first use."""
        if self._core is None:
            from workbench.mcp import server as _mcp   # the MCP SDK: only once serving
            self._core = _mcp.ProgramServer(self.program or _placeholder(self.target.file),
                                            caller=self._call, observer=self.observe)
        return self._core

    @property
    def server(self) -> Any:
        """The SDK's low-level `mcp.server.Server`."""
        return self.core.server

    # --- calls --------------------------------------------------------------------------

    def _call(self, program: Program, command: Command, argv: list[str], *,
              on_progress: ProgressHandler | None = None) -> Outcome:
        """The caller hook: run argv in a subprocess (blocking; the server runs it in a thread);
        the handler's `ctx.progress` reaches `on_progress` as it happens."""
        served = self.served
        if served is None:   # not loaded yet: the placeholder lists no tool to call
            doc = _envelope.failure("unavailable", "no program is loaded yet", exit=7)
            return Outcome(7, _envelope.encode(doc) + "\n", "", doc)
        return subprocess_call(served, argv, timeout=self.call_timeout, on_progress=on_progress)

    def observe(self, record: dict[str, Any]) -> None:
        """Called by the MCP server once per answered request (and by the Call pane for a
        call a person made through the workbench): hand it to `on_traffic`, masked."""
        if self.on_traffic is None or record.get("client") == INTERNAL_CLIENT:
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
        client = record.get("client") or (self._clients.get(session) if session else None) \
            or "unknown"
        if session is not None and client != "unknown":
            self._clients[session] = client     # requests before the session knows its name
            while len(self._clients) > KNOWN_SESSIONS:
                del self._clients[next(iter(self._clients))]   # the oldest first
        entry = TrafficEntry(at=record.get("at", time.time()), client=client,
                             session=session, method=record.get("method", "?"),
                             tool=tool, arguments=hide.value(arguments),
                             result=result, is_error=bool(record.get("is_error")),
                             seconds=record.get("seconds", 0.0), error=record.get("error"))
        self.on_traffic(entry)

    def call_tool_sync(self, name: str, arguments: dict[str, Any], *, timeout: float = 60.0,
                       sandbox: Sandbox | None = None) -> dict[str, Any]:
        """A tools/call through the server's own handlers, from any thread (not the loop's).

        Returns {"text", "is_error", "structured"}. Used by the `mcp` environment, diffs and
        replays; the command's subprocess runs in `sandbox`.
        """
        import anyio   # with the MCP SDK: only once a tool is called

        async def go() -> dict[str, Any]:
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

        box: dict[str, Any] = {}

        def runner() -> None:
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
        result: dict[str, Any] = box["value"]
        return result

    @contextlib.contextmanager
    def batch_caller(self, pool: _pool.Pool) -> Iterator[CallTool]:
        """`with server.batch_caller(pool) as call:` one client session for a whole diff batch;
        `call(name, arguments, timeout)` returns what `call_tool_sync` does, from any thread,
        and runs the command as a fork of `pool`'s workers (a session per call costs more
        than the call)."""
        from anyio import fail_after   # with the MCP SDK: only once a batch runs
        from anyio.from_thread import start_blocking_portal
        from mcp import Client
        session = Client(self.server, cache=None, client_info=_client_info(INTERNAL_CLIENT))
        with start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(session) as client:
            portal.call(_list_every_page, client)
            def call(name: str, arguments: dict[str, Any], timeout: float) -> dict[str, Any]:
                async def go() -> dict[str, Any]:
                    # The server's handler runs in a copy of this task's context.
                    with _pool.using(pool), fail_after(timeout):
                        result = await client.call_tool(name, arguments)
                    text = "".join(getattr(part, "text", "") for part in result.content)
                    return {"text": text, "is_error": bool(result.is_error),
                            "structured": result.structured_content}
                try:
                    result: dict[str, Any] = portal.call(go)
                    return result
                except BaseException as exc:  # noqa: BLE001 - the one real error
                    raise _leaf(exc) from None
            yield call

    # --- transports -----------------------------------------------------------------------

    async def start_http(self, *, host: str = "127.0.0.1", port: int | None = None,
                         policy: Policy | None = None) -> str:
        """Serve streamable HTTP at http://host:port/mcp as a task on the running loop, behind
        `policy`'s bearer token and bounds (`workbench.runtime.serving.Policy`)."""
        import uvicorn   # the HTTP server: only once serving over HTTP
        self._loop = asyncio.get_running_loop()
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp", "httpx", "httpx2"):
            logging.getLogger(name).setLevel(logging.WARNING)
        app = self.core.http_app(host=host, policy=policy)
        try:
            sock = _bind(host, port or 0)
        except OSError as exc:
            raise Fail("port_in_use", f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                       exit=2, hint="pass another --port, or --port 0 for any free port",
                       fix=join(["dev", self.target.file, "--port", "0"])) from None
        port = sock.getsockname()[1]
        config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=1)
        self._uvicorn = uvicorn.Server(config)
        self._serve_task = asyncio.create_task(self._uvicorn.serve(sockets=[sock]))
        while not self._uvicorn.started:   # uvicorn says so by a flag, not an event
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
        if self._uvicorn is not None and self._serve_task is not None:
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


def _placeholder(file: str) -> Program:
    """An empty program to serve (no tools) until the file first loads."""
    name = os.path.splitext(os.path.basename(file))[0].replace("_", "-").lower() or "app"
    return Program(name=name, version="0.0.0", description="not loaded yet", commands=[],
                   check=False)


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _list_every_page(client: Any) -> None:
    """List the tools, following `nextCursor`, so the SDK client knows every tool's output
    schema: it checks a result against it and, for a tool it has not seen, lists again, but
    only the first page (a long list comes in pages: `workbench.mcp.server.LIST_PAGE_BYTES`),
    so every call to a later tool re-listed 900 KB and was not checked."""
    result = await client.list_tools()
    while result.next_cursor:
        result = await client.list_tools(cursor=result.next_cursor)


def _client_info(name: str) -> Any:
    import mcp_types   # with the MCP SDK
    return mcp_types.Implementation(name=name, version="0")
