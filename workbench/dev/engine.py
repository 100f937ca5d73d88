"""The workbench engine: the loop that loads, serves and publishes; the rest is done below it.

    bench = Workbench("app.py")                       # nothing runs yet
    unsubscribe = bench.subscribe(on_event)           # on_event(Event) for every change
    url = await bench.start(port=None)                # load, serve MCP over HTTP, watch
    results = await bench.arun_environments(["deploy", "--target", "prod"])
    results = await bench.arun_environments(command="deploy", arguments={"target": "prod"})
    diffs = await bench.arun_diffs()                  # run_writes=True: writes too
    state = await bench.areload()                     # force a reload (bench.reload(): sync)
    await bench.stop()

The engine is a thin loop over rooms that never read it back (docs/architecture.md): a load
is `loader.load` (checked in a warm subprocess), a state is `state.build_state` (pure), the
MCP server is a `server.DevServer`, runs are `environments` and `diffs` given a `Served` (the
last good source) and that server. Recording is a `TrafficRecorder` handed to
`bench.recorder` (`workbench.dev.replay.Recorder`), never imported here.

Events (`Event.kind`, `Event.data`), published on the loop that runs `start()` (Textual's,
when the dashboard awaits it in an async worker), or on the calling thread for the sync
methods `reload()` and `run_diffs()`:

- "state":   the new `State` (each reload, good or failed);
- "run":     a `RunResult` (one environment finished; `arun_environments`);
- "diffs":   a tuple of `Diff` (`arun_diffs` / `run_diffs` finished);
- "check":   `burgee check`'s report as data, None if it could not run (`arun_check` /
             `run_check` finished; its findings are in `state.problems`);
- "traffic": a `TrafficEntry` (a connected MCP client's request was answered);
- "serving": the MCP URL (the HTTP server is listening).

`State` (`workbench.dev.state`) is immutable; the engine replaces it (`bench.state` is always
the latest): `generation`, `file`, `program` (last good, or None), `load_error` (a
`workbench.loader.LoadError`: code, message, traceback, line; None when the latest load
succeeded), `load_output`, `surfaces` (id -> `Surface`), `tokens` (`TokenTable`),
`problems` (`Problem`), `changes` (`Changes`), `budgets`, `url`, `cost`, `review`. Commands
are named by their path as a string ("pr merge"). Also on the bench: `traffic` (a deque of
`TrafficEntry`), `diffs`, `url`, `token` (the bearer token HTTP clients send; `policy` holds
it and the bounds, `workbench.runtime.serving`), `client_config(client)`.

The last good program stays in the state (and served) when a load fails.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import os
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from workbench.declaration.model import Program
from workbench.dev import diffs as _diffs
from workbench.dev import environments as _environments
from workbench.dev import loader as _loader
from workbench.dev.pool import Cancelled, Pool
from workbench.dev.processes import child_environ
from workbench.dev.records import (
    DEFAULT_CALL_TIMEOUT, DEFAULT_LOAD_TIMEOUT, Diff, Event, RunResult, Served, Target,
    TrafficEntry, TrafficRecorder,
)
from workbench.dev.server import DevServer
from workbench.dev.state import (
    Reviews, State, build_state, failed_state, with_check, with_diffs,
)
from workbench.dev.tokens import find_pyproject
from workbench.runtime.serving import Policy, http_policy
from workbench.surfaces.clients import TOKEN_PLACEHOLDER, http_config

__all__ = ["Workbench", "watch_filter", "AGENTS_FIRST_SECONDS"]

WATCHED_NAMES = ("pyproject.toml",)
WATCHED_SUFFIXES = (".py",)
DEFAULT_DEBOUNCE_MS = 50
AGENTS_FIRST_SECONDS = 0.5
"""After a save, how long the state build waits for notified MCP clients to list again."""

Subscriber = Callable[[Event], object]


class Workbench:
    """The live engine over one program file. See the module docstring."""

    target: Target
    state: State

    def __init__(self, file: str, *, program_name: str | None = None, run_writes: bool = False,
                 load_timeout: float | None = DEFAULT_LOAD_TIMEOUT,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT,
                 debounce_ms: int = DEFAULT_DEBOUNCE_MS, traffic_limit: int = 1000,
                 policy: Policy | None = None) -> None:
        self.target = Target(os.path.abspath(file), program_name, load_timeout, call_timeout)
        self.policy = policy        # made by start() if None
        self.run_writes = run_writes
        self.snapshots: str | None = None   # the snapshot folder reviews compare with
        self.recorder: TrafficRecorder | None = None   # hears every answered tools/call
        self.debounce_ms = debounce_ms
        self.state = State(file=self.file)
        self.served: Served | None = None   # the last good program, as subprocesses run it
        self.traffic: collections.deque[TrafficEntry] = collections.deque(maxlen=traffic_limit)
        self.diffs: tuple[Diff, ...] = ()
        self.url: str | None = None
        self.server: DevServer | None = None
        self._subscribers: list[Subscriber] = []
        self._sources = _loader.GoodSources()
        self._reviews = Reviews()
        self._reload_lock = threading.Lock()
        self._tasks: list[asyncio.Task[Any]] = []
        self._stop: asyncio.Event | None = None
        self._areload_lock: asyncio.Lock | None = None
        self._state_lock: asyncio.Lock | None = None
        self._loads = 0             # loads finished by areload (the newest one's state wins)
        self._building: set[asyncio.Task[State]] = set()   # state builds the watcher started
        self._batch: Pool | None = None     # the running diff batch
        self._batch_lock = threading.Lock()
        self._checker: _loader.Checker | None = None   # while watching: checks start warm
        self._watched_after_load: list[str] = []       # `watch_paths()` as of the latest load

    # --- the target -----------------------------------------------------------------------

    @property
    def file(self) -> str:
        return self.target.file

    @property
    def program_name(self) -> str | None:
        return self.target.program_name

    @property
    def load_timeout(self) -> float | None:
        return self.target.load_timeout

    @load_timeout.setter
    def load_timeout(self, seconds: float | None) -> None:
        self.target = replace(self.target, load_timeout=seconds)

    @property
    def call_timeout(self) -> float:
        return self.target.call_timeout

    @property
    def program(self) -> Program | None:
        """The last good program, or None."""
        return self.state.program

    @property
    def serving_name(self) -> str | None:
        """The module-level name of the served program (what subprocess calls look up)."""
        return self.served.program_name if self.served is not None else self.program_name

    @property
    def good_source_file(self) -> str | None:
        """A file holding the source of the last good program (what subprocess calls run)."""
        return self.served.source_file if self.served is not None else None

    # --- subscriptions ------------------------------------------------------------------

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(event)` on each Event; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def publish(self, kind: str, data: object = None) -> None:
        event = Event(kind, data)
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # noqa: BLE001 - a subscriber's bug must not stop the engine
                traceback.print_exc()

    # --- loading ------------------------------------------------------------------------

    def reload(self) -> State:
        """Load the file now; publish and return the new state (sync; events on this thread)."""
        with self._reload_lock:
            loaded = self._load()
            if loaded.ok:
                self._serve(loaded)
            state = self._next_state(loaded)
            self.state = state
        self.publish("state", state)
        return state

    async def areload(self) -> State:
        """Load in a worker thread, so the loop (and the dashboard) never waits on user code.

        A good load is served, and connected MCP clients told, before the surfaces are
        rendered; the "state" event is published on the running loop. The next save's load
        does not wait for this one's surfaces: when it is served before they start, this
        state is skipped (its successor's replaces it) and the current state returned.
        """
        ticket, loaded, pause = await self._aload()
        try:
            return await self._astate(ticket, loaded)
        finally:
            pause.release()

    async def _aload(self) -> tuple[int, _loader.Loaded, _CollectorPause]:
        """Load and (when good) serve, one at a time; (ticket, Loaded, `_CollectorPause`) for
        `_astate`: the caller releases the pause once the state is built (or skipped)."""
        if self._areload_lock is None:
            self._areload_lock, self._state_lock = asyncio.Lock(), asyncio.Lock()
        async with self._areload_lock:
            pause = _CollectorPause()
            try:
                loaded = await asyncio.to_thread(self._load_locked)
                if loaded.ok:
                    self._serve(loaded)
            except BaseException:
                pause.release()
                raise
            self._loads += 1
            return self._loads, loaded, pause

    async def _astate(self, ticket: int, loaded: _loader.Loaded) -> State:
        """The State of load number `ticket`, published; skipped (the current State returned)
        when a newer load was served before its turn came."""
        if loaded.ok and self.server is not None:
            # Agents first: the clients just told of the change list the tools before the
            # dashboard's surfaces are built, which would otherwise share the GIL with them.
            await self.server.told_clients_listed(AGENTS_FIRST_SECONDS)
        assert self._state_lock is not None
        async with self._state_lock:
            if ticket != self._loads:
                return self.state
            state = await asyncio.to_thread(self._next_state, loaded)
            self.state = state
        self.publish("state", state)
        return state

    def _load_locked(self) -> _loader.Loaded:
        with self._reload_lock:
            return self._load()

    def _load(self) -> _loader.Loaded:
        """Load FILE (checked in a warm process); the program's tools/list is computed here,
        while the check process still checks it, so the listing clients ask for on
        `list_changed` is ready once it is served."""
        server = self.server
        loaded = _loader.load(self.file, program_name=self.program_name,
                              timeout=self.load_timeout, checker=self._checker,
                              before_verdict=server.prepare if server is not None else None)
        if loaded.ok and server is not None and loaded.program is not None:
            server.prepare(loaded.program)    # done already unless it raised
        self._watched_after_load = self.watch_paths()   # here, not on the loop: it stats files
        return loaded

    def _serve(self, loaded: _loader.Loaded) -> None:
        """Make a good load the served program, and tell connected clients; a diff batch of
        the previous program is cancelled."""
        assert loaded.program is not None
        if loaded.source != self._sources.source:
            self.cancel_diffs()
        source_file = self._sources.keep(loaded.source, loaded.code)
        self.served = Served(self.target, loaded.program, source_file, loaded.name)
        if self.server is not None and self.server.serve(self.served):
            self.server.tools_changed()   # tools/list serves it from now on

    def _next_state(self, loaded: _loader.Loaded) -> State:
        try:
            return self._build_next_state(loaded)
        finally:
            if self._checker is not None:   # the next save's check starts warm, started
                # now that this one is done rather than beside its critical path
                self._checker.prepare(self.target.folder, child_environ(),
                                      len(loaded.source or ""), self.file)

    def _build_next_state(self, loaded: _loader.Loaded) -> State:
        now = time.time()
        if loaded.error is not None or loaded.program is None:
            assert loaded.error is not None
            return failed_state(self.state, loaded.error, loaded_at=now,
                                load_seconds=loaded.seconds, output=loaded.output)
        state = self.build_state(loaded.program, self.state, loaded_at=now,
                                 load_seconds=loaded.seconds, program_name=loaded.name)
        return replace(state, load_output=loaded.output)

    def build_state(self, program: Program, previous: State | None = None, *,
                    loaded_at: float = 0.0, load_seconds: float = 0.0,
                    program_name: str | None = None) -> State:
        """Render surfaces, count tokens and lint `program` into a new State
        (`workbench.dev.state.build_state`, with this bench's file, diffs and reviews)."""
        return build_state(program, previous or State(file=self.file), file=self.file,
                           reviews=self._reviews, diffs=self.diffs, snapshots=self.snapshots,
                           loaded_at=loaded_at, load_seconds=load_seconds,
                           program_name=program_name, url=self.url)

    # --- watching -----------------------------------------------------------------------

    def watch_paths(self) -> list[str]:
        """Folders to watch (not recursively): FILE's, those of the modules it imported from
        under it (a package beside it), and that of the pyproject.toml its budgets come from."""
        folder = self.target.folder
        paths = {folder}
        for module_file in _loader.user_modules(os.path.realpath(folder)).values():
            paths.add(os.path.dirname(module_file))
        pyproject = find_pyproject(self.file)
        if pyproject:
            paths.add(os.path.dirname(pyproject))
        return sorted(path for path in paths if os.path.isdir(path))

    async def watch(self, stop_event: asyncio.Event | None = None) -> None:
        """Reload on each save (.py files and pyproject.toml) in `watch_paths()`; when a reload
        changes those folders (a new sibling package imported), watch the new set."""
        import watchfiles   # Rust notify bindings: only once a workbench watches
        if self._checker is None:
            self._checker = _loader.Checker()
            self._checker.prepare(self.target.folder, child_environ(),
                                  len(self._sources.source or ""), self.file)
        while not (stop_event is not None and stop_event.is_set()):
            paths = self.watch_paths()
            restart = _Flag()
            async for _changes in watchfiles.awatch(
                    *paths, watch_filter=watch_filter, debounce=self.debounce_ms, step=10,
                    stop_event=_Either(stop_event, restart), recursive=False,
                    ignore_permission_denied=True):
                # The next save is loaded and served while this one's surfaces are built.
                ticket, loaded, pause = await self._aload()
                task = asyncio.create_task(self._astate(ticket, loaded))
                task.add_done_callback(pause.release)   # also when cancelled before it ran
                self._building.add(task)
                task.add_done_callback(self._building.discard)
                if self._watched_after_load != paths:
                    restart.set()

    # --- serving MCP --------------------------------------------------------------------

    def dev_server(self) -> DevServer:
        """The dev MCP server (made, not started, on first use), serving the last good
        program: connected clients, the mcp environment, diffs and replays call through it."""
        if self.server is None:
            self.server = DevServer(self.target, on_traffic=self.record_traffic)
            if self.served is not None:
                self.server.serve(self.served)
        return self.server

    async def start(self, *, port: int | None = None, host: str = "127.0.0.1",
                    watch: bool = True, serve: bool = True) -> str | None:
        """Load, then serve MCP over streamable HTTP and watch the folder, as tasks on the
        running loop. Returns the MCP URL (None when not serving)."""
        if self.state.generation == 0:
            await self.areload()
        self._stop = asyncio.Event()
        if serve:
            server = self.dev_server()
            if self.policy is None:
                self.policy = http_policy(host, port or 0, environ=os.environ)
            self.url = await server.start_http(host=host, port=port, policy=self.policy)
            self.state = replace(self.state, url=self.url)
            self.publish("serving", self.url)
        if watch:
            ready = asyncio.Event()
            self._tasks.append(asyncio.create_task(self._watch_task(ready)))
            await ready.wait()
        return self.url

    async def _watch_task(self, ready: asyncio.Event) -> None:
        # awatch starts its notifier on first iteration; give it a moment before "ready".
        task = asyncio.create_task(self.watch(self._stop))
        await asyncio.sleep(0.15)
        ready.set()
        await task

    async def stop(self) -> None:
        """Stop watching and serving (and the diff batch); waits for both to finish."""
        self.cancel_diffs()
        if self._checker is not None:
            self._checker.close()
        if self._stop is not None:
            self._stop.set()
        for task in self._tasks + list(self._building):
            try:
                await asyncio.wait_for(task, 5)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
                task.cancel()
        self._tasks.clear()
        if self.server is not None:
            await self.server.stop()

    # --- calls --------------------------------------------------------------------------

    def run_environments(self, argv: Sequence[str] | None = None, *,
                         arguments: dict[str, Any] | None = None, command: str | None = None,
                         environments: Sequence[str] | None = None, stdin: str | None = None,
                         timeout: float | None = None) -> list[RunResult]:
        """Run one input under each environment (default: all); a RunResult each.

        Give the input as `argv` (after the program name) or as MCP `arguments` for
        `command` (its path, `"pr merge"`, or tool name).
        """
        return _environments.run_all(self.served, self.dev_server(), argv=argv,
                                     arguments=arguments, command=command,
                                     environments=environments, stdin=stdin,
                                     timeout=timeout or self.call_timeout)

    async def arun_environments(self, argv: Sequence[str] | None = None, *,
                                arguments: dict[str, Any] | None = None,
                                command: str | None = None,
                                environments: Sequence[str] | None = None,
                                stdin: str | None = None,
                                timeout: float | None = None) -> list[RunResult]:
        """`run_environments` off the loop; publishes a "run" event as each one finishes."""
        return await _environments.arun_all(
            self.served, self.dev_server(), argv=argv, arguments=arguments, command=command,
            environments=environments, stdin=stdin,
            timeout=timeout or min(self.call_timeout, _environments.DEFAULT_TIMEOUT),
            on_result=lambda result: self.publish("run", result))

    def run_diffs(self, *, run_writes: bool | None = None) -> tuple[Diff, ...]:
        """CLI `--json` vs MCP for each example of each command; publishes "diffs"."""
        return self._commit_diffs(self._compute_diffs(run_writes, self._new_batch()))

    async def arun_diffs(self, *, run_writes: bool | None = None) -> tuple[Diff, ...]:
        """`run_diffs` in a worker thread; the "diffs" event is published on the loop.

        Starting a batch cancels the one running (one batch alive at a time); so do a reload
        and `cancel_diffs()`. A cancelled batch raises `asyncio.CancelledError` here."""
        batch = self._new_batch()
        try:
            diffs = await asyncio.to_thread(self._compute_diffs, run_writes, batch)
        except Cancelled:
            raise asyncio.CancelledError() from None
        except asyncio.CancelledError:
            if batch is not None:
                batch.close()       # the awaiting task went away: its processes go too
            raise
        return self._commit_diffs(diffs)

    def cancel_runs(self) -> int:
        """Kill the processes of the environment runs in progress; how many were running."""
        return _environments.cancel_all()

    def cancel_diffs(self) -> bool:
        """Cancel the running diff batch (its processes killed); whether one was running."""
        with self._batch_lock:
            batch, self._batch = self._batch, None
        if batch is None or batch.cancelled:
            return False
        batch.close()
        return True

    def _new_batch(self) -> Pool | None:
        """A pool for a new batch (the running one cancelled), or None with nothing loaded."""
        self.cancel_diffs()
        if self.served is None:
            return None
        batch = Pool(self.served, size=_diffs.PARALLEL)
        with self._batch_lock:
            self._batch = batch
        return batch

    def _compute_diffs(self, run_writes: bool | None, batch: Pool | None) -> tuple[Diff, ...]:
        if batch is None:
            return ()
        writes = self.run_writes if run_writes is None else run_writes
        try:
            return tuple(_diffs.run_diffs(self.served, self.dev_server(), run_writes=writes,
                                          pool=batch))
        finally:
            batch.close()
            with self._batch_lock:
                if self._batch is batch:
                    self._batch = None

    def _commit_diffs(self, diffs: tuple[Diff, ...]) -> tuple[Diff, ...]:
        self.diffs = diffs
        self.state = with_diffs(self.state, diffs)
        self.publish("diffs", diffs)
        return diffs

    # --- burgee check ----------------------------------------------------------------------

    def run_check(self, *, calls: int | None = None, run_writes: bool | None = None
                  ) -> dict[str, Any] | None:
        """`burgee check` on the file (`workbench.check.check`: generated calls, each in a
        sandbox; `calls` per command, default `workbench.check.calls.workbench_budget`); its
        findings join the state's problems; publishes "check". The report as
        data (`Report.to_dict()`), or None when no good program is loaded or the file changed
        while it ran (its report would describe a program no longer shown)."""
        if not self.state.ok:
            return None
        generation = self.state.generation
        report, found = self._compute_check(calls, run_writes)
        if self.state.generation != generation:
            return None
        return self._commit_check(report, found)

    async def arun_check(self, *, calls: int | None = None, run_writes: bool | None = None
                         ) -> dict[str, Any] | None:
        """`run_check` in a worker thread (its checker processes run apart); the "check"
        event is published on the loop."""
        if not self.state.ok:
            return None
        generation = self.state.generation
        report, found = await asyncio.to_thread(self._compute_check, calls, run_writes)
        if self.state.generation != generation:
            return None
        return self._commit_check(report, found)

    def _compute_check(self, calls: int | None, run_writes: bool | None
                       ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        from workbench.check import CheckError, check
        from workbench.check.calls import workbench_budget
        writes = self.run_writes if run_writes is None else run_writes
        if calls is None:
            program = self.state.program
            calls = workbench_budget(sum(1 for _ in program.walk()) if program else 1)
        try:
            report = check(self.file, calls=calls, run_writes=writes, program=self.program_name)
        except CheckError as error:
            return None, [{"severity": "error", "code": "check_failed",
                           "message": f"burgee check could not check the file: {error.message}",
                           "fix": f"run burgee check {os.path.basename(self.file)} to see why",
                           "command": None, "surface": None}]
        return report.to_dict(), report.problems()

    def _commit_check(self, report: dict[str, Any] | None, found: list[dict[str, Any]]
                      ) -> dict[str, Any] | None:
        self.state = with_check(self.state, report, found)
        self.publish("check", report)
        return report

    # --- traffic ------------------------------------------------------------------------

    def record_traffic(self, entry: TrafficEntry) -> None:
        """Keep a connected client's answered request, hand it to the recorder (if
        recording) and publish it."""
        self.traffic.append(entry)
        recorder = self.recorder
        if recorder is not None:
            try:
                recorder.record(entry, self.program)
            except OSError:   # a full disk stops the recording, never the server
                self.recorder = None
        self.publish("traffic", entry)

    @property
    def token(self) -> str | None:
        """The bearer token HTTP clients send (None before serving, or with --no-auth)."""
        return self.policy.token if self.policy is not None else None

    def client_config(self, client: str = "claude-code") -> str:
        """A client configuration for the live HTTP server, its bearer token included (what
        the dashboard copies); `workbench.surfaces.clients.http_config` writes it."""
        url = self.url or "http://127.0.0.1:<port>/mcp"
        name = self.program.name if self.program is not None else "burgee-dev"
        token = self.token if self.policy is not None else TOKEN_PLACEHOLDER
        config = http_config(name, client, url, token)
        if client == "codex" and token is not None:
            return str(config["snippet"]) + f"# {config['note']}\n"
        return str(config["snippet"])


# --- the loop's helpers ----------------------------------------------------------------------

_pauses: list[Any] = [0, False]   # saves in flight, and whether the collector was on before
_pauses_lock = threading.Lock()


class _CollectorPause:
    """Python's cyclic garbage collector waits while a save is loaded, served, announced and
    its state built (any bench, any thread). A big program's heap makes a full collection
    long (about 190 ms at 1,000 commands) and a reload allocates enough to start one: it used
    to land on the path from a save to the new tools/list. It runs again once no save is in
    flight (and stays off if it was off before). `release()` may be called more than once."""

    def __init__(self) -> None:
        with _pauses_lock:
            if _pauses[0] == 0:
                _pauses[1] = gc.isenabled()
                gc.disable()
            _pauses[0] += 1
        self._held = True

    def release(self, *_ignored: object) -> None:
        with _pauses_lock:
            if not self._held:
                return
            self._held = False
            _pauses[0] -= 1
            if _pauses[0] == 0 and _pauses[1]:
                gc.enable()


def watch_filter(change: object, path: str) -> bool:
    """Only Python files and pyproject.toml wake a reload (not caches or editor swap files)."""
    name = os.path.basename(path)
    if "__pycache__" in path or name.startswith(".#"):
        return False
    return name.endswith(WATCHED_SUFFIXES) or name in WATCHED_NAMES


class _Flag:
    def __init__(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True


class _Either:
    """Set when any of its events is: stops a watch on shutdown or to watch other folders."""

    def __init__(self, *events: asyncio.Event | _Flag | None) -> None:
        self.events = [event for event in events if event is not None]

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)

    def set(self) -> None:
        for event in self.events:
            event.set()
