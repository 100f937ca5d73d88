"""The workbench engine: the loaded-program state, reloads, and results the dashboard draws.

    bench = Workbench("app.py")                       # nothing runs yet
    unsubscribe = bench.subscribe(on_event)           # on_event(Event) for every change
    url = await bench.start(port=None)                # load, serve MCP over HTTP, watch
    results = await bench.arun_environments(["deploy", "--target", "prod"])
    results = await bench.arun_environments(command="deploy", arguments={"target": "prod"})
    diffs = await bench.arun_diffs()                  # run_writes=True: writes too
    state = await bench.areload()                     # force a reload (bench.reload(): sync)
    await bench.stop()

Events (`Event.kind`, `Event.data`), published on the loop that runs `start()` (Textual's,
when the dashboard awaits it in an async worker), or on the calling thread for the sync
methods `reload()` and `run_diffs()`:

- "state":   the new `State` (each reload, good or failed);
- "run":     a `RunResult` (one environment finished; `arun_environments`);
- "diffs":   a tuple of `Diff` (`arun_diffs` / `run_diffs` finished);
- "traffic": a `TrafficEntry` (a connected MCP client's request was answered);
- "serving": the MCP URL (the HTTP server is listening).

`State` is immutable; the engine replaces it (`bench.state` is always the latest):
`generation`, `file`, `program` (last good, or None), `load_error` (`LoadError`: kind,
message, traceback, line; None when the latest load succeeded), `load_output`, `surfaces`
(id -> `Surface`: id, kind, command, text, data, error, title), `surface(kind, command)`,
`surfaces_for(command)`, `tokens` (`TokenTable` of `TokenRow`: surface, kind, command, tokens,
chars, budget, unit, percent, delta, over; `.for_command(name)`, `.get(id)`, `.total`),
`problems` (`Problem`: severity, code, message, fix, command, surface; `problems_for(cmd)`),
`changes` (`Changes`: added, removed, changed, tokens_delta, `summary()` e.g. "+1 command,
-40 tokens"), `budgets`, `url`. Commands are named by their path as a string ("pr merge").
Also on the bench: `traffic` (a deque of `TrafficEntry`), `diffs`, `url`, `token` (the bearer
token HTTP clients send; `policy` holds it and the bounds, `workbench.runtime.serving`),
`client_config(client)` (a config for the live HTTP server), `ENVIRONMENTS` in
`workbench.dev.environments`.

The last good program stays in the state (and served) when a load fails.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import os
import threading
import time
from dataclasses import dataclass, field, replace

from workbench.dev import loader as _loader
from workbench.dev.snapshot import Changes
from workbench.dev.tokens import TokenTable

WATCHED_NAMES = ("pyproject.toml",)
WATCHED_SUFFIXES = (".py",)
DEFAULT_DEBOUNCE_MS = 50
DEFAULT_CALL_TIMEOUT = 30.0
AGENTS_FIRST_SECONDS = 0.5
"""After a save, how long the state build waits for notified MCP clients to list again."""


@dataclass(frozen=True)
class Problem:
    """One lint finding: severity is "error" | "warning" | "info"; `fix` says what to change."""

    severity: str
    code: str
    message: str
    fix: str
    command: str | None = None     # the command path as a string ("pr merge"), or None
    surface: str | None = None     # a surface id, where one is concerned

    def to_dict(self) -> dict:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "fix": self.fix, "command": self.command, "surface": self.surface}


@dataclass(frozen=True)
class State:
    """What the workbench shows, as of one reload.

    `program` is the last good Program (None until one loads); `load_error` is the error of
    the latest attempt (None when it succeeded). `surfaces` (id -> Surface), `tokens`,
    `problems` and `changes` describe `program`. `generation` grows by one per state.
    """

    generation: int = 0
    file: str = ""
    program: object | None = None
    program_name: str | None = None
    load_error: _loader.LoadError | None = None
    surfaces: dict = field(default_factory=dict)
    tokens: TokenTable = field(default_factory=TokenTable)
    problems: tuple = ()
    changes: Changes = field(default_factory=Changes)
    budgets: dict = field(default_factory=dict)
    loaded_at: float = 0.0
    load_seconds: float = 0.0
    url: str | None = None
    load_output: str = ""      # what the file printed while loading (latest attempt)
    cost: object = None        # `cost.CostModel` of `program` (cl100k); None if unmeasured
    cost_before: object = None  # that of the previous good program (deltas per reload)
    review: object = None      # `changes.Review` since the previous good program (None: first)
    review_snapshot: object = None  # `changes.Review` since the snapshot folder (None: none)
    memo: object = field(default=None, repr=False, compare=False)
    # `snapshot.Memo` of `program`'s render: the next reload reuses what did not change

    @property
    def ok(self) -> bool:
        return self.load_error is None and self.program is not None

    def commands(self) -> list:
        return list(self.program.walk()) if self.program is not None else []

    def problems_for(self, command: str | None) -> list:
        return [p for p in self.problems if p.command == command]

    def surfaces_for(self, command: str | None) -> list:
        """Surfaces of one command (`"pr merge"`), or of the program itself for None."""
        return [s for s in self.surfaces.values() if s.command_name == command]

    def surface(self, kind: str, command: str | None = None):
        """The one surface of `kind` for `command` (`"pr merge"`, or None for the program),
        e.g. `surface("card", "deploy")`, `surface("help")`, `surface("tools_list")`."""
        if command is not None and kind == "help":
            kind = "command_help"
        for candidate in self.surfaces.values():
            if candidate.kind == kind and candidate.command_name == command:
                return candidate
        return None


@dataclass(frozen=True)
class Event:
    kind: str
    data: object = None


@dataclass(frozen=True)
class RunResult:
    """One call under one simulated environment."""

    environment: str
    argv: tuple               # after the program name
    exit: int | None          # None when it timed out or could not start
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str | None = None  # why it could not run, if it could not
    arguments: dict | None = None   # the MCP arguments (mcp environment)

    def to_dict(self) -> dict:
        return {"environment": self.environment, "argv": list(self.argv), "exit": self.exit,
                "stdout": self.stdout, "stderr": self.stderr,
                "seconds": round(self.seconds, 4), "timed_out": self.timed_out,
                "error": self.error, "arguments": self.arguments}


@dataclass(frozen=True)
class Diff:
    """One example: the CLI `--json` output vs the MCP tools/call text result."""

    command: str
    example: str
    argv: tuple
    arguments: dict | None
    cli: str | None           # stdout without its final newline
    mcp: str | None           # the text content of the tool result
    cli_exit: int | None = None
    mcp_is_error: bool | None = None
    equal: bool | None = None  # None when not run
    diff: str = ""            # unified diff when not equal
    skipped: str | None = None  # why it was not run (e.g. writes need --run-writes)
    error: str | None = None
    invalid_output: dict | None = None  # the data broke the output schema: the error
    # (`workbench.surfaces.output.output_problem`: code, message, hint, field, expected, got)

    def to_dict(self) -> dict:
        return {"command": self.command, "example": self.example, "argv": list(self.argv),
                "arguments": self.arguments, "equal": self.equal, "cli_exit": self.cli_exit,
                "mcp_is_error": self.mcp_is_error, "cli": self.cli, "mcp": self.mcp,
                "diff": self.diff, "skipped": self.skipped, "error": self.error,
                "invalid_output": self.invalid_output}


HOUSEKEEPING = frozenset(("initialize", "ping", "server/discover", "subscriptions/listen",
                          "logging/setLevel"))
"""MCP methods that are protocol housekeeping (see `TrafficEntry.housekeeping`)."""


@dataclass(frozen=True)
class TrafficEntry:
    """One MCP request from a connected client (sensitive argument values hidden)."""

    at: float
    client: str
    session: str | None
    method: str
    tool: str | None
    arguments: dict | None
    result: str | None
    is_error: bool
    seconds: float
    error: str | None = None

    @property
    def housekeeping(self) -> bool:
        """Protocol housekeeping (handshake, discovery, ping, the notification stream), not a
        tool or a listing: shown quietly; its end when a client leaves is not an error."""
        return self.method in HOUSEKEEPING or self.method.startswith("notifications/")

    def to_dict(self) -> dict:
        return {"at": self.at, "client": self.client, "session": self.session,
                "method": self.method, "tool": self.tool, "arguments": self.arguments,
                "result": self.result, "is_error": self.is_error,
                "seconds": round(self.seconds, 4), "error": self.error}


_pauses = [0, False]      # saves in flight, and whether the collector was on before them
_pauses_lock = threading.Lock()


class _CollectorPause:
    """Python's cyclic garbage collector waits while a save is loaded, served, announced and
    its state built (any bench, any thread). A big program's heap makes a full collection
    long (about 190 ms at 1,000 commands) and a reload allocates enough to start one: it used
    to land on the path from a save to the new tools/list. It runs again once no save is in
    flight (and stays off if it was off before). `release()` may be called more than once."""

    def __init__(self):
        with _pauses_lock:
            if _pauses[0] == 0:
                _pauses[1] = gc.isenabled()
                gc.disable()
            _pauses[0] += 1
        self._held = True

    def release(self, *_ignored) -> None:
        with _pauses_lock:
            if not self._held:
                return
            self._held = False
            _pauses[0] -= 1
            if _pauses[0] == 0 and _pauses[1]:
                gc.enable()


def watch_filter(change, path: str) -> bool:
    """Only Python files and pyproject.toml wake a reload (not caches or editor swap files)."""
    name = os.path.basename(path)
    if "__pycache__" in path or name.startswith(".#"):
        return False
    return name.endswith(WATCHED_SUFFIXES) or name in WATCHED_NAMES


class _Flag:
    def __init__(self):
        self._set = False

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True


class _Either:
    """Set when any of its events is: stops a watch on shutdown or to watch other folders."""

    def __init__(self, *events):
        self.events = [event for event in events if event is not None]

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)

    def set(self) -> None:
        for event in self.events:
            event.set()


class Workbench:
    """The live engine over one program file. See the module docstring."""

    def __init__(self, file: str, *, program_name: str | None = None, run_writes: bool = False,
                 load_timeout: float | None = _loader.DEFAULT_LOAD_TIMEOUT,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT,
                 debounce_ms: int = DEFAULT_DEBOUNCE_MS, traffic_limit: int = 1000,
                 policy=None):
        self.file = os.path.abspath(file)
        self.policy = policy        # workbench.runtime.serving.Policy; made by start() if None
        self.program_name = program_name
        self.run_writes = run_writes
        self.snapshots: str | None = None   # the snapshot folder reviews compare with
        self.recorder = None       # a `replay.Recorder` while recording calls
        self._contract = None      # `changes.contract` of the last good program
        self._stored_contract = None   # (folder signature, contract) of the snapshot folder
        self.load_timeout = load_timeout
        self.call_timeout = call_timeout
        self.debounce_ms = debounce_ms
        self.state = State(file=self.file)
        self.traffic: collections.deque = collections.deque(maxlen=traffic_limit)
        self.diffs: tuple = ()
        self.url: str | None = None
        self.server = None          # the dev MCP server (workbench.dev.server.DevServer)
        self._subscribers: list = []
        self._reload_lock = threading.Lock()
        self._good_source: str | None = None
        self._good_source_file: str | None = None
        self._tasks: list = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._areload_lock: asyncio.Lock | None = None
        self._state_lock: asyncio.Lock | None = None
        self._loads = 0             # loads finished by areload (the newest one's state wins)
        self._building: set = set()  # state builds the watcher started
        self._serving_name: str | None = None
        self._source_dir: str | None = None
        self._source_count = 0
        self._old_sources: list = []
        self._batch = None          # the running diff batch (workbench.dev.pool.Pool)
        self._batch_lock = threading.Lock()
        self._checker = None       # a `loader.Checker` while watching: saves' checks start warm
        self._watched_after_load: list = []   # `watch_paths()` as of the latest load

    # --- subscriptions ------------------------------------------------------------------

    def subscribe(self, callback):
        """Call `callback(event)` on each Event; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe():
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def publish(self, kind: str, data=None) -> None:
        event = Event(kind, data)
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # noqa: BLE001 - a subscriber's bug must not stop the engine
                import traceback
                traceback.print_exc()

    # --- loading ------------------------------------------------------------------------

    @property
    def program(self):
        """The last good program, or None."""
        return self.state.program

    @property
    def serving_name(self) -> str | None:
        """The module-level name of the served program (what subprocess calls look up)."""
        return self._serving_name or self.program_name

    @property
    def good_source_file(self) -> str | None:
        """A file holding the source of the last good program (what subprocess calls run)."""
        return self._good_source_file

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

    async def _aload(self) -> tuple:
        """Load and (when good) serve, one at a time; (ticket, Loaded, `_CollectorPause`) for
        `_astate`: the caller releases the pause once the state is built (or skipped)."""
        self._loop = asyncio.get_running_loop()
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

    async def _astate(self, ticket: int, loaded) -> State:
        """The State of load number `ticket`, published; skipped (the current State returned)
        when a newer load was served before its turn came."""
        if loaded.ok and self.server is not None:
            # Agents first: the clients just told of the change list the tools before the
            # dashboard's surfaces are built, which would otherwise share the GIL with them.
            await self.server.told_clients_listed(AGENTS_FIRST_SECONDS)
        async with self._state_lock:
            if ticket != self._loads:
                return self.state
            state = await asyncio.to_thread(self._next_state, loaded)
            self.state = state
        self.publish("state", state)
        return state

    def _load_locked(self):
        with self._reload_lock:
            return self._load()

    def _load(self):
        """Load FILE (checked in a warm process); the program's tools/list is computed here,
        while the check process still checks it, so the listing clients ask for on
        `list_changed` is ready once it is served."""
        server = self.server
        loaded = _loader.load(self.file, program_name=self.program_name,
                              timeout=self.load_timeout, checker=self._checker,
                              before_verdict=server.prepare if server is not None else None)
        if loaded.ok and server is not None:
            server.prepare(loaded.program)    # done already unless it raised
        self._watched_after_load = self.watch_paths()   # here, not on the loop: it stats files
        return loaded

    def _serve(self, loaded) -> None:
        """Make a good load the served program, and tell connected clients; a diff batch of
        the previous program is cancelled."""
        if loaded.source != self._good_source:
            self.cancel_diffs()
        self._remember_source(loaded.source, loaded.code)
        self._serving_name = loaded.name
        if self.server is not None:
            self.server.set_program(loaded.program)   # tools/list serves it from now on
            self.server.tools_changed()

    def _next_state(self, loaded) -> State:
        try:
            return self._build_next_state(loaded)
        finally:
            if self._checker is not None:   # the next save's check starts warm, started
                # now that this one is done rather than beside its critical path
                self._checker.prepare(os.path.dirname(self.file), _loader.child_environ(),
                                      len(loaded.source or ""), self.file)

    def _build_next_state(self, loaded) -> State:
        previous = self.state
        now = time.time()
        if not loaded.ok:
            return replace(previous, generation=previous.generation + 1,
                           load_error=loaded.error, loaded_at=now,
                           load_seconds=loaded.seconds, load_output=loaded.output,
                           changes=Changes(error=loaded.error.message))
        state = self.build_state(loaded.program, previous, loaded_at=now,
                                 load_seconds=loaded.seconds, program_name=loaded.name)
        return replace(state, load_output=loaded.output)

    def _remember_source(self, source: str, code=None) -> None:
        """Keep the good source in a file of this bench's own temporary folder (removed when
        the bench goes away), and beside it the bytecode it was checked as; calls already
        running keep the few previous ones."""
        if self._good_source == source and self._good_source_file:
            return
        if self._source_dir is None:
            import shutil
            import tempfile
            import weakref
            self._source_dir = tempfile.mkdtemp(prefix="burgee-dev-")
            weakref.finalize(self, shutil.rmtree, self._source_dir, True)
        self._source_count += 1
        path = os.path.join(self._source_dir, f"good-{self._source_count}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        if code is not None:
            _loader.save_code(path, code)
        old = self._good_source_file
        self._good_source, self._good_source_file = source, path
        if old:
            self._old_sources.append(old)
            while len(self._old_sources) > 4:
                gone = self._old_sources.pop(0)
                for stale in (gone, gone + _loader.CODE_SUFFIX):
                    try:
                        os.remove(stale)
                    except OSError:
                        pass

    def build_state(self, program, previous: State | None = None, *, loaded_at=0.0,
                    load_seconds=0.0, program_name=None) -> State:
        """Render surfaces, count tokens and lint `program` into a new State."""
        from workbench.dev import problems as _problems
        from workbench.dev import snapshot as _snapshot
        from workbench.dev import tokens as _tokens
        previous = previous or State(file=self.file)
        before = previous if previous.program is not None else None
        memo = _snapshot.Memo(before.memo if before is not None else None)
        surfaces = _snapshot.render(program, memo)
        budgets = _tokens.budgets_for(program, self.file)
        table = _tokens.token_table(surfaces, budgets, before and before.tokens,
                                    before and before.surfaces)
        changes = _snapshot.compare(before and before.surfaces, surfaces,
                                    previous.tokens.read_by_agents, table.read_by_agents)
        problems = tuple(_problems.lint(program, surfaces, table, diffs=self.diffs, memo=memo))
        from workbench.dev import cost as _cost
        try:
            cost = _cost.model(program, surfaces, table=table, memo=memo,
                               envelopes=_cost.envelopes_from(self.diffs))
        except Exception:  # noqa: BLE001 - the Cost pane says it is unmeasured; nothing else
            cost = None
        review, review_snapshot = self._reviews(program, surfaces, previous)
        memo.finish()
        return State(cost=cost, cost_before=before and before.cost, memo=memo,
                     review=review, review_snapshot=review_snapshot,
                     generation=previous.generation + 1, file=self.file, program=program,
                     program_name=program_name, load_error=None, surfaces=surfaces,
                     tokens=table, problems=problems, changes=changes, budgets=budgets,
                     loaded_at=loaded_at, load_seconds=load_seconds, url=self.url)

    def _reviews(self, program, surfaces, previous) -> tuple:
        """The change review since the previous good program and since the snapshot folder
        (`--headless`'s default, beside FILE); None where there is nothing to compare. The
        contracts are kept: the previous one on the bench, the folder's until a file in it
        changes."""
        from workbench.dev import changes as _changes
        from workbench.dev import headless as _headless
        try:
            now = _changes.contract(_changes.live_files(surfaces))
            before, self._contract = self._contract, now
            review = None
            if previous.program is not None and before is not None:
                review = _changes.review_contracts(before, now)
            folder = _headless.snapshot_folder(self.file, program.name, self.snapshots)
            stored = self._snapshot_contract(folder)
            return review, (_changes.review_contracts(stored, now) if stored else None)
        except Exception:  # noqa: BLE001 - a review never stops a reload
            return None, None

    def _snapshot_contract(self, folder: str):
        """`changes.contract` of the snapshot folder, read again only when it changed."""
        from workbench.dev import changes as _changes
        from workbench.dev import headless as _headless
        signature = []
        for root, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    signature.append((root, name, os.stat(os.path.join(root, name)).st_mtime_ns))
                except OSError:
                    pass
        signature = tuple(sorted(signature))
        if not signature:
            return None
        cached = self._stored_contract
        if cached is None or cached[0] != signature:
            stored = {rel: text for rel, text in _headless.read_tree(folder).items()
                      if rel not in _headless.META_FILES}
            cached = self._stored_contract = (signature, _changes.contract(stored))
        return cached[1]

    # --- watching -----------------------------------------------------------------------

    def watch_paths(self) -> list:
        """Folders to watch (not recursively): FILE's, those of the modules it imported from
        under it (a package beside it), and that of the pyproject.toml its budgets come from."""
        from workbench.dev.tokens import find_pyproject
        folder = os.path.dirname(self.file)
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
        import watchfiles
        if self._checker is None:
            self._checker = _loader.Checker()
            self._checker.prepare(os.path.dirname(self.file), _loader.child_environ(),
                                  len(self._good_source or ""), self.file)
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

    async def start(self, *, port: int | None = None, host: str = "127.0.0.1",
                    watch: bool = True, serve: bool = True) -> str | None:
        """Load, then serve MCP over streamable HTTP and watch the folder, as tasks on the
        running loop. Returns the MCP URL (None when not serving)."""
        self._loop = asyncio.get_running_loop()
        if self.state.generation == 0:
            await self.areload()
        self._stop = asyncio.Event()
        if serve:
            from workbench.dev.server import DevServer
            self.server = self.server or DevServer(self)
            if self.program is not None:
                self.server.set_program(self.program)
            if self.policy is None:
                from workbench.runtime.serving import http_policy
                self.policy = http_policy(host, port or 0, environ=os.environ)
            self.url = await self.server.start_http(host=host, port=port, policy=self.policy)
            self.state = replace(self.state, url=self.url)
            self.publish("serving", self.url)
        if watch:
            ready = asyncio.Event()
            self._tasks.append(asyncio.create_task(self._watch_task(ready)))
            await ready.wait()
        return self.url

    async def _watch_task(self, ready) -> None:
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
        if getattr(self, "_stop", None) is not None:
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

    def run_environments(self, argv=None, *, arguments: dict | None = None,
                         command: str | None = None, environments=None, stdin: str | None = None,
                         timeout: float | None = None) -> list:
        """Run one input under each environment (default: all); a RunResult each.

        Give the input as `argv` (after the program name) or as MCP `arguments` for
        `command` (its path, `"pr merge"`, or tool name).
        """
        from workbench.dev import environments as _env
        return _env.run_all(self, argv=argv, arguments=arguments, command=command,
                            environments=environments, stdin=stdin,
                            timeout=timeout or self.call_timeout)

    async def arun_environments(self, argv=None, **kwargs) -> list:
        """`run_environments` off the loop; publishes a "run" event as each one finishes."""
        from workbench.dev import environments as _env
        return await _env.arun_all(self, argv=argv, **kwargs)

    def run_diffs(self, *, run_writes: bool | None = None) -> tuple:
        """CLI `--json` vs MCP for each example of each command; publishes "diffs"."""
        return self._commit_diffs(self._compute_diffs(run_writes, self._new_batch()))

    async def arun_diffs(self, *, run_writes: bool | None = None) -> tuple:
        """`run_diffs` in a worker thread; the "diffs" event is published on the loop.

        Starting a batch cancels the one running (one batch alive at a time); so do a reload
        and `cancel_diffs()`. A cancelled batch raises `asyncio.CancelledError` here."""
        from workbench.dev.pool import Cancelled
        batch = self._new_batch()
        try:
            diffs = await asyncio.to_thread(self._compute_diffs, run_writes, batch)
        except Cancelled:
            raise asyncio.CancelledError() from None
        except asyncio.CancelledError:
            batch.close()       # the awaiting task went away: its processes go too
            raise
        return self._commit_diffs(diffs)

    def cancel_diffs(self) -> bool:
        """Cancel the running diff batch (its processes killed); whether one was running."""
        with self._batch_lock:
            batch, self._batch = self._batch, None
        if batch is None or batch.cancelled:
            return False
        batch.close()
        return True

    def _new_batch(self):
        from workbench.dev.diffs import PARALLEL
        from workbench.dev.pool import Pool
        self.cancel_diffs()
        batch = Pool(self, size=PARALLEL)
        with self._batch_lock:
            self._batch = batch
        return batch

    def _compute_diffs(self, run_writes, batch):
        from workbench.dev import diffs as _diffs
        writes = self.run_writes if run_writes is None else run_writes
        try:
            return tuple(_diffs.run_diffs(self, run_writes=writes, pool=batch))
        finally:
            batch.close()
            with self._batch_lock:
                if self._batch is batch:
                    self._batch = None

    def _commit_diffs(self, diffs) -> tuple:
        self.diffs = diffs
        if self.state.program is not None:
            from workbench.dev import problems as _problems
            problems = tuple(_problems.lint(self.state.program, self.state.surfaces,
                                            self.state.tokens, diffs=diffs))
            self.state = replace(self.state, problems=problems)
        self.publish("diffs", diffs)
        return diffs

    def record_traffic(self, entry: TrafficEntry) -> None:
        self.traffic.append(entry)
        recorder = self.recorder
        if recorder is not None:
            try:
                recorder.record(entry, self.program)
            except OSError:   # a full disk stops the recording, never the server
                self.recorder = None
        self.publish("traffic", entry)

    def start_recording(self, path: str | None = None) -> str:
        """Append every answered tools/call to a replay file (`workbench.dev.replay`); returns
        its path (default `.burgee/traffic/<program>-<time>.jsonl` beside FILE)."""
        from workbench.dev.replay import Recorder
        name = self.program.name if self.program is not None else "program"
        self.recorder = Recorder(path) if path else Recorder.beside(self.file, name)
        return self.recorder.path

    def stop_recording(self):
        """Stop recording; returns the Recorder that was writing (path, count), or None."""
        recorder, self.recorder = self.recorder, None
        return recorder

    @property
    def token(self) -> str | None:
        """The bearer token HTTP clients send (None before serving, or with --no-auth)."""
        return self.policy.token if self.policy is not None else None

    def client_config(self, client: str = "claude-code") -> str:
        """A client configuration for the live HTTP server, its bearer token included (what
        the dashboard copies); `workbench.surfaces.clients.http_config` writes it."""
        from workbench.surfaces.clients import TOKEN_PLACEHOLDER, http_config
        url = self.url or "http://127.0.0.1:<port>/mcp"
        name = self.program.name if self.program is not None else "burgee-dev"
        token = self.token if self.policy is not None else TOKEN_PLACEHOLDER
        config = http_config(name, client, url, token)
        if client == "codex" and token is not None:
            return config["snippet"] + f"# {config['note']}\n"
        return config["snippet"]
