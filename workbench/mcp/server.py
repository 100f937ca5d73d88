"""The MCP server for a declared program, on the SDK's low-level `mcp.server.Server`.

A `tools/call` runs the command exactly as a `--json` caller would, through
`workbench.runtime.toolcall` (the same path `workbench.testing` takes without the SDK): the
arguments are checked, mapped to argv, run through `workbench.runtime.call`, and the text
result is the CLI's stdout without its final newline, byte for byte. Nothing a caller sends
becomes a protocol error: unknown tools, bad arguments and handler crashes are all tool
results.

`ProgramServer` can swap its program (`set_program`) and tell clients of both protocol eras
that the tools changed (`notify_tools_changed`): handshake-era connections through the
session handles it keeps, 2026-era clients through their `subscriptions/listen` streams.
Importing this module imports the MCP SDK (about a second); the core never does.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types
from mcp.server import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus, ListenHandler, ResourcesListChanged, ToolsListChanged,
)
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from workbench.runtime import toolcall as _toolcall
from workbench.surfaces import tools as _tools

from workbench.runtime.serving import LOOPBACK, SHUTDOWN_GRACE

if TYPE_CHECKING:
    import socket
    from collections.abc import Callable, Iterable, Mapping

    from mcp.server.models import InitializationOptions

    from workbench.declaration.model import Program
    from workbench.runtime.forks import ForkServer
    from workbench.runtime.serving import Policy

logger: logging.Logger = logging.getLogger("workbench.mcp")
_NOT_AN_OBJECT: ContextVar = ContextVar("burgee_arguments_not_an_object", default=None)
"""The `arguments` of the tools/call being handled, when they are not an object."""


class _Server(Server):
    """The SDK server, advertising `tools.listChanged` on every transport.

    The streamable-HTTP session manager and the in-memory transport build their initialize
    result from `create_initialization_options()` with no arguments, so the default is
    changed here rather than passed in.
    """

    def create_initialization_options(
            self, notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True,
                                                        resources_changed=True),
            experimental_capabilities or _experimental(), extensions)


def _experimental() -> dict[str, dict[str, Any]]:
    """`capabilities.experimental.burgee.capabilities`: the program's features, as data."""
    from workbench.declaration.capabilities import capabilities
    return {"burgee": {"capabilities": capabilities()}}


def _instructions(program) -> str:
    """The server's instructions: the program's description, then its capabilities."""
    from workbench.declaration.capabilities import capabilities
    line = "capabilities: " + ", ".join(capabilities(program))
    return f"{program.description}\n\n{line}" if program.description else line


def default_caller(program, command, argv, *, environ=None, on_progress=None):
    """Run argv in this process, as the CLI would (`workbench.runtime.call`)."""
    from workbench.runtime.pipeline import call
    return call(program, argv, environ=environ, on_progress=on_progress)


def _progress_token(ctx):
    """The progress token the client sent with this request, or None."""
    meta = getattr(ctx, "meta", None)
    if isinstance(meta, dict):
        return meta.get("progress_token", meta.get("progressToken"))
    return getattr(meta, "progress_token", None)


WORKER_THREADS = 256
"""Threads that wait on calls at once when they run in processes of their own; the calls
themselves are bounded by the fork server's `max_calls` (a refusal never waits behind them)."""
IN_PROCESS_THREADS = 40
"""Threads for calls with another caller (the dev server's subprocesses) or none (anyio's
default), so that bound is as it was."""

LIST_PAGE_BYTES = 900_000
"""A tools/list answer longer than this (encoded) is split into pages, each pointing to the next
with `nextCursor`: the MCP SDK's Python client refuses a server-sent event over 1 MiB, and
5,000 commands list 3.6 MB. Shorter lists are one page, as before."""


def _pages(wire: dict[str, Any], serial: int, sizes: list[Any] | None = None) -> list[Any]:
    """`wire` (a ListToolsResult in wire form) as pages of at most `LIST_PAGE_BYTES` encoded
    (a tool bigger than that is a page alone); cursors `tools-SERIAL-PAGE`. `sizes`, when
    given, are the tools' encoded lengths."""
    import pydantic_core
    tools = wire["tools"]
    if sizes is None:
        if len(pydantic_core.to_json(wire)) <= LIST_PAGE_BYTES:
            return [wire]
        sizes = [len(pydantic_core.to_json(tool)) for tool in tools]
    elif sum(sizes) + len(sizes) + 1024 <= LIST_PAGE_BYTES:
        return [wire]
    pages, start, used = [], 0, 0
    for at, size in enumerate(sizes):
        if used + size + 1 > LIST_PAGE_BYTES - 1024 and at > start:
            pages.append(tools[start:at])
            start, used = at, 0
        used += size + 1
    pages.append(tools[start:])
    rest = {key: value for key, value in wire.items() if key != "tools"}
    return [{**rest, "tools": page, **({"nextCursor": f"tools-{serial}-{number + 1}"}
                                       if number + 1 < len(pages) else {})}
            for number, page in enumerate(pages)]


_WIRE_TOOLS: ContextVar = ContextVar("burgee_wire_tools", default=None)
"""Set by the middleware around a tools/list: where the handler leaves the page's tools,
already in wire form, so the SDK validates an empty page instead of them all again."""


class _Listing:
    """One program's tools/list: its tools as `surfaces.tools` writes them and, per protocol
    version, the pages the SDK's per-version sieve makes of them.

    The sieve (`mcp_types.methods.serialize_server_result`, which the SDK's runner applies
    to every spec result) validates every tool: about 50 ms at 1,000 tools. For handshake-era
    versions it runs once per program and version, and only on the tools whose encoding
    changed since the listing before (`previous`): a save that edits one command sieves one
    tool. A 2026-era result's sieve needs its envelope (`ttlMs`, `cacheScope`, `resultType`),
    so those pages are the monolith model's dump and the SDK sieves them on each request.
    """

    def __init__(self, program, previous: _Listing | None):
        self.program, self.serial = program, 0    # its serial: given once it is kept
        self.tools = _tools.list_tools(program)
        self._previous = previous
        self._pages: dict = {}     # version -> pages in wire form
        self._sieved: dict = {}    # version -> {encoded tool: (wire tool, encoded size)}

    def pages(self, version: str) -> list[Any]:
        """The pages in wire form for `version`, computed on first use (any thread)."""
        pages = self._pages.get(version)
        if pages is None:
            pages = self._pages[version] = self._compute(version)
        return pages

    def sieved(self, version: str) -> bool:
        """Whether `pages(version)` holds the tools in the sieve's wire form already."""
        return version not in MODERN_PROTOCOL_VERSIONS

    def _compute(self, version: str) -> list[Any]:
        import pydantic_core
        from mcp_types import methods
        if not self.sieved(version):   # the model's own defaults fill the envelope
            wire = mcp_types.ListToolsResult.model_validate({"tools": self.tools}) \
                .model_dump(by_alias=True, mode="json", exclude_none=True)
            return _pages(wire, self.serial)
        before = self._previous._sieved.get(version, {}) if self._previous else {}
        encoded = [pydantic_core.to_json(tool) for tool in self.tools]
        sieved = {key: before[key] for key in encoded if key in before}
        fresh = [(key, tool) for key, tool in zip(encoded, self.tools) if key not in sieved]
        if fresh:
            wire = methods.serialize_server_result("tools/list", version,
                                                   {"tools": [tool for _, tool in fresh]})
            for (key, _), out in zip(fresh, wire["tools"]):
                sieved[key] = (out, len(pydantic_core.to_json(out)))
        self._sieved[version] = sieved
        chosen = [sieved[key] for key in encoded]
        return _pages({"tools": [wire for wire, _ in chosen]}, self.serial,
                      [size for _, size in chosen])

    def forget_previous(self) -> None:
        """Drop the listing before this one (kept only to reuse its sieved tools)."""
        self._previous = None


class ProgramServer:
    """One declared program served over MCP. See the module docstring.

    `forks` (a `workbench.runtime.forks.ForkServer`) runs every call in a process of its own
    (`tool mcp` and `asgi` give one); without it a call runs in this process. `caller(program,
    command, argv) -> Outcome` replaces either (the dev workbench runs calls in a
    subprocess); it is called in a worker thread, with `on_progress=` as well when its
    signature has that parameter. `observer(record)` hears every answered request: `{"at",
    "client", "session", "method", "tool", "arguments", "result", "is_error", "seconds",
    "error"}`.
    """

    program: Program   # the attributes' types, for checkers
    caller: Callable[..., Any] | None
    observer: Callable[[dict[str, Any]], object] | None
    environ: Mapping[str, str] | None
    forks: ForkServer | None
    max_result_bytes: int
    drain_seconds: float
    server: _Server

    def __init__(self, program: Program, *, caller: Callable[..., Any] | None = None,
                 observer: Callable[[dict[str, Any]], object] | None = None,
                 environ: Mapping[str, str] | None = None,
                 max_result_bytes: int | None = None, forks: ForkServer | None = None) -> None:
        from workbench.runtime.serving import DEFAULT_MAX_RESULT_BYTES
        self.program = program
        self.max_result_bytes = max_result_bytes or DEFAULT_MAX_RESULT_BYTES
        self.forks = forks
        self.caller = caller or (forks.run if forks is not None else None)
        self.observer = observer
        self.environ = environ
        self.stopping: str | None = None   # why new calls are refused (a SIGTERM)
        self.grace = SHUTDOWN_GRACE
        self._calls = 0                    # tools/call being answered
        self._threads: anyio.CapacityLimiter | None = None   # made on first use
        self.bus: InMemorySubscriptionBus = InMemorySubscriptionBus()
        self.listen: ListenHandler = ListenHandler(self.bus)
        self._connections: dict[int, Any] = {}
        self._listings: list = []         # `_Listing`s: the newest, and the served one
        self._listing_lock = threading.Lock()   # the loop and a loading thread both list
        self._serial = 0                  # listings computed: a page cursor names its listing
        self._versions: set = set()       # protocol versions that asked for tools/list
        self._told: set = set()           # connections told of a change, not yet listed again
        self._all_listed = asyncio.Event()
        self._all_listed.set()
        self._writing_listings = 0        # tools/list answers over HTTP not yet fully sent
        self._listings_written = asyncio.Event()
        self._listings_written.set()
        self._unanswered: dict = {}    # request id -> count, read from stdio but not answered
        self.drain_seconds = 10.0
        self.server = _Server(
            program.name, version=program.version,
            instructions=_instructions(program),
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_list_resources=self._on_list_resources,
            on_read_resource=self._on_read_resource,
            on_subscriptions_listen=self.listen,
            get_tool_input_schema=self._input_schema,
        )
        self.server.middleware.append(self._middleware)

    # --- the program -------------------------------------------------------------------

    def set_program(self, program: Program) -> None:
        """Serve `program` from the next request on; call `notify_tools_changed` to tell clients."""
        self.program = program

    def tools(self) -> list[dict[str, Any]]:
        """The current tools/list, computed once per program (a reload is a new program)."""
        return self._listing_of(self.program).tools

    def prepare(self, program: Program) -> None:
        """Compute `program`'s tools/list now (any thread) in the wire form of every protocol
        version that listed before, so that once it is served the first request after
        `list_changed` only encodes it."""
        listing = self._listing_of(program)
        for version in list(self._versions):
            listing.pages(version)

    def _listing_of(self, program) -> _Listing:
        """The `_Listing` of `program`, kept for the served program and the newest other one
        asked (a load being prepared in the loading thread, which may still be refused)."""
        def kept():
            return next((listing for listing in self._listings if listing.program is program),
                        None)
        with self._listing_lock:
            listing = kept()
            previous = self._listings[0] if self._listings else None
        if listing is not None:
            return listing
        made = _Listing(program, previous)    # outside the lock: the loop may be listing
        with self._listing_lock:
            listing = kept()
            if listing is not None:
                return listing
            self._serial += 1
            made.serial = self._serial
            for older in self._listings:
                older.forget_previous()
            served = [listing for listing in self._listings if listing.program is self.program]
            self._listings = [made, *served[:1]]
            return made

    async def notify_tools_changed(self) -> None:
        """`notifications/tools/list_changed` to every connected client, both protocol eras."""
        self._told = set(self._connections)
        self._all_listed = asyncio.Event()
        if not self._told:
            self._all_listed.set()
        for key, connection in list(self._connections.items()):
            try:
                await connection.send_tool_list_changed()
                await connection.send_resource_list_changed()   # cards and schema changed too
            except Exception:  # noqa: BLE001 - a dead connection must not stop the others
                self._connections.pop(key, None)
                self._listed_by(key)
        await self.bus.publish(ToolsListChanged())
        await self.bus.publish(ResourcesListChanged())

    async def told_clients_listed(self, timeout: float) -> bool:
        """Wait until every handshake-era client told of the last change asked for tools/list
        again (or went away) and the answers were sent, `timeout` seconds at most; whether
        they all did."""
        async def listed() -> None:
            await self._all_listed.wait()
            await self._listings_written.wait()
        try:
            await asyncio.wait_for(listed(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    def _listed_by(self, key) -> None:
        self._told.discard(key)
        if not self._told:
            self._all_listed.set()

    @property
    def connected(self) -> int:
        """How many handshake-era connections are being kept for notifications."""
        return len(self._connections)

    # --- handlers ----------------------------------------------------------------------

    def _input_schema(self, name: str):
        command = _tools.callable_tool(self.program, name)
        if command is None:
            from workbench.surfaces.discovery import input_schema as discovery_schema
            return discovery_schema(self.program, name)
        from workbench.surfaces.schema import input_schema
        return input_schema(command)

    async def _on_list_tools(self, ctx, params):
        listing = self._listing_of(self.program)
        self._versions.add(ctx.protocol_version)    # `prepare` makes its pages ahead
        pages = listing.pages(ctx.protocol_version)
        cursor = getattr(params, "cursor", None) if params is not None else None
        serial, _, number = str(cursor).removeprefix("tools-").partition("-")
        if cursor is None:
            page = pages[0]
        elif serial == str(listing.serial) and number.isdigit() and 0 < int(number) < len(pages):
            page = pages[int(number)]
        else:
            page = None
        if page is not None:
            wire_tools = _WIRE_TOOLS.get()
            if wire_tools is None or not listing.sieved(ctx.protocol_version):
                return page
            wire_tools.append(page["tools"])
            return {**page, "tools": []}
        from mcp.shared.exceptions import MCPError
        raise MCPError(code=-32602, message=f"unknown cursor {cursor!r}: the tool list changed "
                       f"since it was given (list_changed was sent); list again without a cursor")

    async def _call(self, ctx, params) -> dict[str, Any]:
        """The tools/call core (`workbench.runtime.toolcall.call_tool`, as `workbench.testing`
        runs it) in a worker thread: the run blocks on a call process (or runs in-process)."""
        program = self.program
        name, arguments = params.name, params.arguments
        if _NOT_AN_OBJECT.get() is not None:   # refused below by check_arguments, with a fix
            arguments = _NOT_AN_OBJECT.get()
        if self.stopping:
            from workbench.runtime import envelope as _envelope
            return _toolcall.result(_envelope.stamp(_envelope.terminated(self.stopping),
                                                    program.schema_version), False)
        if self._threads is None:   # calls in processes of their own are bounded there
            self._threads = anyio.CapacityLimiter(
                WORKER_THREADS if self.forks is not None else IN_PROCESS_THREADS)

        def answer() -> dict[str, Any]:
            return _toolcall.call_tool(
                program, name, arguments,
                lambda command, argv: self._run(ctx, program, command, argv),
                self.max_result_bytes)
        self._calls += 1
        try:
            if self.forks is None:   # a call in this process cannot be stopped: wait for it
                return await anyio.to_thread.run_sync(answer, limiter=self._threads)
            return await self._cancellable(answer)
        finally:
            self._calls -= 1

    async def _cancellable(self, answer) -> dict[str, Any]:
        """`answer()` in a worker thread, its call process ended (`ForkServer.cancel`) when
        this request is cancelled: the client sent notifications/cancelled, gave up or went
        away. Its answer is then dropped, as the SDK drops any cancelled request's."""
        from workbench.runtime.forks import TICKET, Ticket
        ticket = Ticket()
        token = TICKET.set(ticket)   # the worker thread runs in a copy of this context
        try:
            return await anyio.to_thread.run_sync(answer, limiter=self._threads,
                                                  abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            self.forks.cancel(ticket)   # type: ignore[union-attr]  # only called with forks
            raise
        finally:
            TICKET.reset(token)

    async def _on_list_resources(self, ctx, params):
        """The program's schema, cards, skills and llms.txt (`workbench.surfaces.resources`)."""
        from workbench.surfaces.resources import resources
        return mcp_types.ListResourcesResult(resources=[
            mcp_types.Resource.model_validate(entry) for entry in resources(self.program)])

    async def _on_read_resource(self, ctx, params):
        from mcp.shared.exceptions import MCPError

        from workbench.surfaces.resources import read
        found = read(self.program, str(params.uri))
        if found is None:
            raise MCPError(-32602, f"no resource at {params.uri}; resources/list names every "
                           f"one this server has")
        text, mime = found
        return mcp_types.ReadResourceResult(contents=[mcp_types.TextResourceContents(
            uri=str(params.uri), mime_type=mime, text=text)])

    async def _on_call_tool(self, ctx, params):
        return mcp_types.CallToolResult.model_validate(await self._call(ctx, params))

    def _run(self, ctx, program, command, argv):
        def on_progress(done, total=None, message=None):
            # a no-op in the SDK unless the caller asked for progress (a progress token)
            try:
                anyio.from_thread.run(ctx.session.report_progress, float(done),
                                      None if total is None else float(total), message)
            except Exception:  # noqa: BLE001 - progress is advisory
                pass
        if self.caller is not None:
            code = getattr(self.caller, "__code__", None)
            if _progress_token(ctx) is not None and code is not None and "on_progress" in \
                    code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
                return self.caller(program, command, argv, on_progress=on_progress)
            return self.caller(program, command, argv)
        return default_caller(program, command, argv, environ=self.environ,
                              on_progress=on_progress)

    async def _middleware(self, ctx, call_next):
        key = None
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            key = self._remember(ctx)
        call_next = _objects_only(call_next)
        if ctx.method == "tools/list":
            call_next = self._sieved_once(call_next)
        try:
            if self.observer is None or ctx.request_id is None:
                return await call_next(ctx)
            return await self._observed(ctx, call_next)
        finally:
            if key in self._told and ctx.method == "tools/list":
                self._listed_by(key)

    def _sieved_once(self, call_next):
        """`call_next` for a tools/list: the SDK runs the request as for any other (its
        checks, its envelope) on an empty page, then the page's tools go in, already in the
        wire form its sieve made of them for this protocol version (`_Listing`)."""
        async def go(ctx):
            wire_tools: list = []
            token = _WIRE_TOOLS.set(wire_tools)
            try:
                result = await call_next(ctx)
            finally:
                _WIRE_TOOLS.reset(token)
            if wire_tools and isinstance(result, dict) and result.get("tools") == []:
                result = {**result, "tools": wire_tools[0]}
            return result
        return go

    async def _observed(self, ctx, call_next):
        params = ctx.params or {}
        record = {"at": time.time(), "client": _client_name(ctx), "session": _session_id(ctx),
                  "method": ctx.method, "tool": None, "arguments": None, "result": None,
                  "is_error": False, "seconds": 0.0, "error": None}
        if ctx.method == "tools/call" and isinstance(params, dict):
            record["tool"] = params.get("name")
            record["arguments"] = params.get("arguments")
        started = time.perf_counter()
        try:
            result = await call_next(ctx)
        except BaseException as error:
            record["error"] = str(error) or type(error).__name__
            record["is_error"] = True
            record["seconds"] = time.perf_counter() - started
            self._observe(record)
            raise
        record["seconds"] = time.perf_counter() - started
        if ctx.method == "tools/call" and isinstance(result, dict):
            content = result.get("content") or [{}]
            record["result"] = content[0].get("text")
            record["is_error"] = bool(result.get("isError"))
        elif ctx.method == "tools/list" and isinstance(result, dict):   # the names sent
            listed = {"tools": [tool.get("name") for tool in result.get("tools") or ()
                                if isinstance(tool, dict)]}
            if result.get("nextCursor"):
                listed["nextCursor"] = result["nextCursor"]
            record["result"] = json.dumps(listed, ensure_ascii=False)
        self._observe(record)
        return result

    def _observe(self, record: dict[str, Any]) -> None:
        try:
            self.observer(record)   # type: ignore[misc]  # only called with an observer
        except Exception:  # noqa: BLE001 - an observer must never break a request
            logger.debug("observer failed", exc_info=True)

    def _remember(self, ctx):
        """Keep a handshake-era connection's handle so list_changed can reach it later; its
        key."""
        session = ctx.session
        connection = getattr(session, "_connection", None)
        if connection is None or not hasattr(connection, "send_tool_list_changed"):
            connection = session   # SDK without Connection: ServerSession has the same method
        key = id(connection)
        if key in self._connections:
            return key
        self._connections[key] = connection
        stack = getattr(connection, "exit_stack", None)
        if stack is not None:
            stack.callback(self._gone, key)
        return key

    def _gone(self, key) -> None:
        self._connections.pop(key, None)
        if key in self._told:
            self._listed_by(key)

    # --- transports ----------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve over this process's stdin/stdout until the client closes stdin, or SIGTERM
        (then calls in flight get `grace` seconds, `stop_calls`)."""
        from mcp.server.stdio import stdio_server
        async with stdio_server() as (read_stream, write_stream):
            async with anyio.create_task_group() as group:
                group.start_soon(self._stop_on_sigterm, group.cancel_scope)
                answering = _Answering(write_stream, self)
                await self.server.run(_Draining(read_stream, self, answering), answering,
                                      self.server.create_initialization_options())
                group.cancel_scope.cancel()

    async def _stop_on_sigterm(self, scope) -> None:
        import signal
        try:
            receiver = anyio.open_signal_receiver(signal.SIGTERM)
            signals = receiver.__enter__()
        except (ValueError, RuntimeError, NotImplementedError):   # not the main thread
            return
        try:
            async for _ in signals:
                await self.stop_calls()
                with anyio.move_on_after(5):   # the answers of the calls just ended, written
                    while self._unanswered:
                        await anyio.sleep(0.01)
                scope.cancel()
                return
        finally:
            receiver.__exit__(None, None, None)

    async def stop_calls(self, why: str = "the server is stopping") -> None:
        """Stop gracefully: refuse new calls (`terminated`, exit 143); give the calls in flight
        `grace` seconds; then end them (each answers `terminated`, when calls run in
        processes of their own) and wait a little for their answers."""
        self.stopping = why
        with anyio.move_on_after(self.grace):
            while self._calls:
                await anyio.sleep(0.05)
        if self._calls and self.forks is not None:
            self.forks.end_calls(why)
        with anyio.move_on_after(5):
            while self._calls:
                await anyio.sleep(0.02)

    async def _drain(self) -> None:
        """At end of input, let requests already read be answered (bounded by drain_seconds)."""
        for _ in range(10):
            await anyio.lowlevel.checkpoint()
        with anyio.move_on_after(self.drain_seconds):
            while self._unanswered:
                await anyio.sleep(0.005)
        self._unanswered.clear()

    def http_app(self, host: str = "127.0.0.1", path: str = "/mcp", *, policy: Policy | None = None,
                 stateless: bool = False, allowed_hosts: Iterable[str] = ()) -> Any:
        """The ASGI app for streamable HTTP at `path`: DNS-rebinding protection on, behind the
        bearer-token check, sessions bounded (`policy`, a `workbench.runtime.serving.Policy`;
        None: a random token the caller cannot know, so pass one).

        `Host` must name `host` or one of `allowed_hosts` (any port; else 421), and an `Origin`
        must be http(s) on one of them (else 403); a wildcard bind leaves names to the token.
        `stateless=True` keeps no session between requests (the SDK's stateless mode), so any
        worker of a pool can answer any request.
        """
        from workbench.mcp._guard import bound_sessions, guard, json_rpc_errors
        from workbench.runtime.serving import WILDCARD, Policy, new_token
        policy = policy or Policy(host, token=new_token(), token_source="random")
        names = ([] if host in LOOPBACK else [host]) + [h for h in allowed_hosts if h]
        security = None
        if host in WILDCARD:   # any name may reach it: the token is the protection
            from mcp.server.transport_security import TransportSecuritySettings
            security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        elif names:
            from mcp.server.transport_security import TransportSecuritySettings
            if host in LOOPBACK:
                names = [*LOOPBACK, *names]
            shown = [f"[{name}]" if ":" in name else name for name in names]
            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=[f"{name}{port}" for name in shown for port in ("", ":*")],
                allowed_origins=[f"{scheme}://{name}{port}" for name in shown
                                 for scheme in ("http", "https") for port in ("", ":*")])
        store = None
        if not stateless:   # a dropped stream resumes (another worker could not replay it)
            from workbench.mcp._events import RETRY_MS, MemoryEventStore
            store = MemoryEventStore()
        app = self.server.streamable_http_app(
            streamable_http_path=path, host=host, transport_security=security,
            stateless_http=stateless, max_sessions=policy.max_sessions,
            session_idle_timeout=policy.idle_timeout, event_store=store,
            retry_interval=RETRY_MS if store is not None else None)
        manager = getattr(self.server, "_session_manager", None)
        if manager is not None and not stateless:
            bound_sessions(manager)
        self.max_result_bytes = policy.max_result_bytes
        return guard(json_rpc_errors(self._counting_listings(app)), policy.token)

    def _counting_listings(self, app):
        """`app`, counting the tools/list answers being written (`told_clients_listed` waits
        for them: an answer of 1,000 tools is encoded and sent on the event loop)."""
        async def counted(scope, receive, send):
            if scope["type"] != "http" or scope.get("method") != "POST":
                return await app(scope, receive, send)
            listing = False

            async def peek():
                nonlocal listing
                message = await receive()
                if not listing and b'"tools/list"' in message.get("body", b""):
                    listing = True
                    self._writing_listings += 1
                    self._listings_written.clear()
                return message
            try:
                return await app(scope, peek, send)
            finally:
                if listing:
                    self._writing_listings -= 1
                    if not self._writing_listings:
                        self._listings_written.set()
        return counted

    async def serve_http(self, host: str = "127.0.0.1", port: int = 0, *,
                         announce: Callable[[str], object] | None = None,
                         policy: Policy | None = None, sock: socket.socket | None = None) -> None:
        """Serve streamable HTTP at http://host:port/mcp until cancelled or shut down.

        `announce(url)` is called once the socket listens (port 0 picks a free port); `sock`:
        a socket already listening there (`listen`). On SIGTERM (or Ctrl-C) it stops
        accepting, gives calls in flight `grace` seconds (`stop_calls`), then exits."""
        import uvicorn
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).setLevel(logging.WARNING)
        if sock is None:
            from workbench.mcp import listen
            sock = listen(host, port)
        port = sock.getsockname()[1]
        config = uvicorn.Config(self.http_app(host=host, policy=policy), host=host, port=port,
                                log_config=None, log_level="warning", lifespan="on",
                                timeout_graceful_shutdown=self.grace + 6)  # type: ignore[arg-type]
        served = self
        loop = asyncio.get_running_loop()

        class Server(uvicorn.Server):
            def handle_exit(self, sig, frame) -> None:
                first = not self.should_exit
                super().handle_exit(sig, frame)
                if first:
                    loop.call_soon_threadsafe(lambda: loop.create_task(wind_down()))

        try:   # the SDK's event streams (sse-starlette) would end at the signal, calls in
            from sse_starlette.sse import AppStatus   # flight unanswered: they end below
            AppStatus.disable_automatic_graceful_drain()
        except ImportError:
            AppStatus = None   # type: ignore[misc, assignment]

        async def wind_down() -> None:
            await served.stop_calls()
            await anyio.sleep(0.2)       # their answers written
            if AppStatus is not None:    # then the event streams (GET) end, and the server
                AppStatus.should_exit = True   # with them
            else:
                server.force_exit = True

        server = Server(config)
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/mcp"

        async def tell():
            while not server.started:
                await anyio.sleep(0.01)
            if announce is not None:
                announce(url)

        async with anyio.create_task_group() as group:
            group.start_soon(tell)
            await server.serve(sockets=[sock])
            group.cancel_scope.cancel()


def _objects_only(call_next):
    """`call_next` for a tools/call whose `arguments` are not an object (a list, a string, a
    number): the SDK would answer with a protocol error (invalid params); instead the call goes
    on without them and `_call` refuses those arguments as a tool result with a fix."""
    async def go(ctx):
        params = ctx.params
        arguments = params.get("arguments") if ctx.method == "tools/call" and \
            isinstance(params, dict) else None
        if arguments is None or isinstance(arguments, dict):
            return await call_next(ctx)
        token = _NOT_AN_OBJECT.set(arguments)
        try:
            return await call_next(replace(ctx, params={**params, "arguments": None}))
        finally:
            _NOT_AN_OBJECT.reset(token)
    return go


class _Draining:
    """A stdio read stream whose end waits for the requests already read to be answered.

    The SDK's dispatcher cancels requests still running when input ends; a client that
    writes its requests and closes stdin (`printf ... | tool mcp`) still gets every answer.
    A line that is not a JSON-RPC message (not JSON, a batch, no method) is answered here with
    the spec's error (`invalid_line`), which the SDK would only log.
    """

    def __init__(self, inner, served: ProgramServer, reply=None):
        self._inner = inner
        self._served = served
        self._reply = reply

    @property
    def last_context(self):
        return getattr(self._inner, "last_context", None)

    async def receive(self):
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._served._drain()
                raise
            if not isinstance(item, Exception) or self._reply is None:
                break
            from mcp.shared.message import SessionMessage
            await self._reply.send(SessionMessage(invalid_line(item)))
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCRequest):
            pending = self._served._unanswered
            pending[message.id] = pending.get(message.id, 0) + 1
        return item

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.aclose()


def invalid_line(error: Exception) -> JSONRPCError:
    """The JSON-RPC error for a line the SDK could not read as a message (`error`, its
    validation error): -32700 when it is not JSON, -32600 for a batch (MCP dropped JSON-RPC
    batches in 2025-06-18) or an object that is no request, notification or response; `id`
    is the line's own when it has one, else null, as JSON-RPC 2.0 says."""
    errors = error.errors() if hasattr(error, "errors") else []
    first = errors[0] if errors else {}
    value = first.get("input")
    if first.get("type") == "json_invalid" or not errors:
        code, message, ident = -32700, ("Parse error: the line is not JSON; send one JSON-RPC "
                                        "message per line"), None
    elif isinstance(value, list):
        code, message, ident = -32600, ("Invalid Request: JSON-RPC batches are not supported "
                                        "(MCP removed them in 2025-06-18); send each message "
                                        "on a line of its own"), None
    else:
        ident = value.get("id") if isinstance(value, dict) else None
        if isinstance(ident, bool) or not isinstance(ident, (int, str)):
            ident = None
        code, message = -32600, ("Invalid Request: not a JSON-RPC 2.0 request, notification "
                                 "or response (each needs \"jsonrpc\": \"2.0\"; a request a "
                                 "\"method\" and an \"id\")")
    return JSONRPCError(jsonrpc="2.0", id=ident,
                        error=mcp_types.ErrorData(code=code, message=message))


class _Answering:
    """A stdio write stream that marks a request answered once its response is handed over."""

    def __init__(self, inner, served: ProgramServer):
        self._inner = inner
        self._served = served

    def __getattr__(self, name):
        return getattr(self._inner, name)

    async def send(self, item) -> None:
        await self._inner.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, (JSONRPCResponse, JSONRPCError)):
            pending = self._served._unanswered
            left = pending.get(message.id)
            if left is not None:
                if left <= 1:
                    del pending[message.id]
                else:
                    pending[message.id] = left - 1

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.aclose()


def _client_name(ctx):
    """The client's `clientInfo.name`: from the session, or from `initialize` itself."""
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    if name is None and ctx.method == "initialize" and isinstance(ctx.params, dict):
        info = ctx.params.get("clientInfo")
        name = info.get("name") if isinstance(info, dict) else None
    return name


def _session_id(ctx):
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is not None:
        found = headers.get("mcp-session-id")
        if found:
            return found
    connection = getattr(ctx.session, "_connection", None)
    return getattr(connection, "session_id", None) or ("stdio" if request is None else None)


def build(program: Program, **kwargs: Any) -> ProgramServer:
    """A ProgramServer for `program` (see the class)."""
    return ProgramServer(program, **kwargs)


def quiet_logging() -> None:
    """Keep the SDK's and uvicorn's routine logging off stderr; errors still show."""
    if not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
        logging.getLogger().addHandler(handler)
    for name in ("mcp", "uvicorn", "uvicorn.error", "uvicorn.access", "httpx", "httpx2"):
        logging.getLogger(name).setLevel(logging.ERROR)
