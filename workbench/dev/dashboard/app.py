"""The dashboard app: a header, the command tree, eleven panes and a footer over one Workbench.

The app only draws: the engine (`workbench.dev.engine.Workbench`) loads, reloads, serves MCP
and runs calls; its events arrive here as messages (`subscribe` -> `post_message`, which is
safe from any thread) and each one redraws what it touches. Runs happen in workers, so the
screen never waits on user code.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Input, TabbedContent, TabPane, Tree

from workbench._text import plural
from workbench.dev.dashboard._view import View
from workbench.dev.dashboard.confirm import ConfirmDiffWrites
from workbench.dev.dashboard.error_panel import ErrorPanel
from workbench.dev.dashboard.header import MASKED_URL, HeaderBar
from workbench.dev.dashboard.keys import KeysScreen
from workbench.dev.dashboard.palette import CommandsProvider, actions
from workbench.dev.dashboard.panes import PANES
from workbench.dev.dashboard.tree import CommandTree
from workbench.dev.inputs import SAFE_EFFECTS
from workbench.dev.replay import Recorder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from textual import events
    from textual.app import ComposeResult
    from textual.screen import Screen

    from workbench.dev.engine import Workbench
    from workbench.dev.records import Diff, Event


class EngineEvent(Message):
    """One engine Event (state, run, diffs, traffic, serving), delivered on the app's loop."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class DashboardApp(App[int]):
    """`burgee dev FILE`. See the module docstring; keys are in `keys.KEYS`."""

    TITLE: str | None = "burgee dev"
    AUTO_FOCUS: ClassVar[str | None] = "#tree"
    COMMANDS = App.COMMANDS | {CommandsProvider}
    CSS: ClassVar[str] = """
    #body { height: 1fr; }
    #tabs { width: 1fr; height: 1fr; }
    #tabs TabPane { padding: 0; height: 1fr; }
    DashboardApp.-narrow CommandTree { width: 15; }
    DashboardApp.-narrow #tabs Tab { padding: 0 0 0 1; }
    """
    NARROW = 110
    """Below this many columns the sidebar and the tab labels shrink, so at 80 columns every
    tab stays on screen."""
    SHORT_TITLES = {"environments": "Envs"}
    """Tab labels shortened in the narrow layout."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "keys", "Keys"),
        Binding("slash", "filter", "Filter"),
        Binding("e", "run_environments", "Run envs"),
        Binding("d", "run_diffs", "Diffs"),
        Binding("D", "run_write_diffs", "Diffs + writes", show=False),
        Binding("C", "run_check", "Check", show=False),
        Binding("x", "cancel", "Cancel"),
        Binding("c", "copy_config", "Copy config"),
        Binding("R", "toggle_record", "Record", show=False),
        Binding("k", "tab(11)", "Call", show=False),
        Binding("ctrl+r", "reload", "Reload", show=False),
        Binding("escape", "escape", "Back", show=False),
        *[Binding(str(number), f"tab({number})", show=False) for number in range(1, 10)],
        Binding("0", "tab(10)", show=False),
    ]

    def __init__(self, bench: Workbench, *, port: int | None = None, serve: bool = True,
                 watch: bool = True, auto_diffs: bool = True, stable: bool = False,
                 record: bool = False, auto_check: bool = False):
        super().__init__()
        self.record_on_start = record
        self.bench = bench
        self.port = port
        self.serve = serve
        self.watch_files = watch
        self.auto_diffs = auto_diffs
        self.auto_check = auto_check   # burgee check after each load's diffs (Problems)
        self.stable = stable
        self.state = bench.state
        self.selected: tuple[str, ...] = ()   # the selected path; () is the program
        self.diffs: tuple[Diff, ...] = tuple(bench.diffs)
        self.diff_status: str = "not run"
        self.mcp_error: str | None = None
        self.watching: bool = False         # the folder watcher is running
        self.notice: str = ""               # the last reload's summary
        self.last_copied: str | None = None
        self._applied = 0
        self._loaded = asyncio.Event()
        self._unsubscribe: Callable[[], None] | None = None
        self._stopped = False

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        yield ErrorPanel(id="error-panel")
        with Horizontal(id="body"):
            yield CommandTree(id="sidebar")
            with TabbedContent(id="tabs", initial="help"):
                for pane_id, title, cls in PANES:
                    with TabPane(title, id=pane_id):
                        yield cls(id=f"pane-{pane_id}")
        yield Footer()

    @property
    def panes(self) -> dict:
        return {pane_id: self.query_one(f"#pane-{pane_id}") for pane_id, _t, _c in PANES}

    def pane(self, pane_id: str):
        return self.query_one(f"#pane-{pane_id}")

    @property
    def sidebar(self) -> CommandTree:
        return self.query_one("#sidebar", CommandTree)

    @property
    def header(self) -> HeaderBar:
        return self.query_one("#header", HeaderBar)

    @property
    def error_panel(self) -> ErrorPanel:
        return self.query_one("#error-panel", ErrorPanel)

    @property
    def active_tab(self) -> str:
        return self.query_one("#tabs", TabbedContent).active

    def view(self) -> View:
        program = self.state.program
        node = program.find(list(self.selected)) if (program is not None and self.selected) \
            else None
        # a non-empty path never finds the program itself
        return View(self.state, node, self.bench, self.stable)   # type: ignore[arg-type]

    # --- the engine -----------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """The narrow layout below NARROW columns (see CSS), the wide one above."""
        narrow = width < self.NARROW
        self.set_class(narrow, "-narrow")
        tabs = self.query_one("#tabs", TabbedContent)
        for pane_id, title, _cls in PANES:
            short = self.SHORT_TITLES.get(pane_id, title) if narrow else title
            tab = tabs.get_tab(pane_id)
            if str(tab.label) != short:
                tab.label = short

    def on_mount(self) -> None:
        self._fit(self.size.width)
        self._unsubscribe = self.bench.subscribe(lambda event: self.post_message(
            EngineEvent(event)))
        self._draw_header("loading\u2026", "dim")
        self.run_worker(self._start_engine(), group="engine", exit_on_error=False)

    async def _start_engine(self) -> None:
        try:
            await self.bench.start(port=self.port, watch=self.watch_files, serve=self.serve)
        except Exception as exc:  # noqa: BLE001 - e.g. no MCP server available: keep going
            self.mcp_error = f"{type(exc).__name__}: {exc}"
            try:
                await self.bench.start(watch=self.watch_files, serve=False)
            except Exception as again:  # noqa: BLE001
                self.mcp_error += f"; {type(again).__name__}: {again}"
        self.watching = self.watch_files
        if self.record_on_start:
            self.action_toggle_record()
        self._apply_state(self.bench.state)
        self._draw_header()
        self._loaded.set()
        if self.auto_diffs and self.state.ok:
            self.action_run_diffs()

    async def ready(self) -> None:
        """Wait until the first load is drawn (tests and screenshots)."""
        await self._loaded.wait()

    @on(EngineEvent)
    def _on_engine_event(self, message: EngineEvent) -> None:
        event = message.event
        if event.kind == "state":
            self._apply_state(event.data)
        elif event.kind == "diffs":
            self._apply_diffs(event.data)
        elif event.kind == "check":
            self._apply_check()
        elif event.kind == "traffic":
            self._refresh("traffic")
        elif event.kind == "serving":
            self._draw_header()

    def _apply_state(self, state) -> None:
        if state.generation <= self._applied:
            return
        first = self.state.program is None or self._applied == 0
        self._applied = state.generation
        self.state = state
        if state.load_error is not None:
            self._draw_header(f"\u2717 load failed (generation {state.generation}): "
                              + ("last good program kept" if state.program
                                 else "nothing to serve yet"), "bold red")
            self.notify(state.load_error.message, title="load failed", severity="error")
        else:
            summary = state.changes.summary()
            review = state.review
            if review is not None and review.breaking:
                summary += f", {len(review.breaking)} breaking (see Problems)"
                self.notify(review.breaking[0].reason, title="breaking change",
                            severity="warning")
            if not first:
                self.notice = summary
                self.notify(summary, title="reloaded")
            self._draw_header(f"\u2713 generation {state.generation}: {summary}", "green")
        self.error_panel.draw(state, self.stable)
        if state.program is None:
            self.sidebar.rebuild(state, ())
            return
        if self.selected and state.program.find(list(self.selected)) is None:
            self.selected = ()
        self.sidebar.rebuild(state, self.selected)
        self.refresh_panes()
        if state.ok and self.auto_diffs and self._loaded.is_set():
            self.action_run_diffs()     # (the first load's run starts in _start_engine)

    def _apply_diffs(self, diffs) -> None:
        self.diffs = tuple(diffs)
        if self.bench.state.generation == self.state.generation:
            self.state = self.bench.state        # problems now include the diff findings
            self.sidebar.rebuild(self.state, self.selected)   # and so do the tree's counts
        self._refresh("diff", "problems")

    def _draw_header(self, status: str | None = None, style: str | None = None) -> None:
        if status is not None:
            self._status = (status, style or "")
        status, style = getattr(self, "_status", ("", ""))
        url = self.bench.url or (MASKED_URL if self.stable else None)
        policy = self.bench.policy
        self.header.draw(self.state, url=url, mcp_error=self.mcp_error, status=status,
                         status_style=style, stable=self.stable, watching=self.watching,
                         token=(policy.token if policy is not None else "") if self.bench.url
                         else "")

    # --- drawing ----------------------------------------------------------------------------

    def refresh_panes(self) -> None:
        """Redraw the visible pane now; the others when their tab is next shown."""
        if self.state.program is None:
            return
        active = self.active_tab
        view = self.view()
        for pane_id, pane in self.panes.items():
            if pane_id == active:
                pane.show(view)
            else:
                pane.stale = True

    def _refresh(self, *pane_ids) -> None:
        if self.state.program is None:
            return
        active = self.active_tab
        for pane_id in pane_ids:
            pane = self.pane(pane_id)
            if pane_id == active:
                pane.show(self.view())
            else:
                pane.stale = True

    @on(TabbedContent.TabActivated)
    def _on_tab(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id
        pane = self.panes.get(pane_id)
        if pane is not None and pane.stale and self.state.program is not None:
            pane.show(self.view())

    def show_tab(self, pane_id: str) -> None:
        """Switch to a tab and draw it now."""
        self.query_one("#tabs", TabbedContent).active = pane_id
        pane = self.pane(pane_id)
        if pane.stale and self.state.program is not None:
            pane.show(self.view())

    # --- selection ---------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def _on_highlight(self, event: Tree.NodeHighlighted) -> None:
        if event.node.data is None or self.sidebar.pending is not None:
            return          # a rebuild in progress: the selection stays as it is
        self._select(tuple(event.node.data))

    def _select(self, path: tuple[Any, ...]) -> None:
        if path != self.selected:
            self.selected = path
            self.refresh_panes()

    def select_command(self, name: str | None) -> None:
        """Select a command or group by path (`"sync push"`), or the program (None or "")."""
        path = tuple(name.split()) if name else ()
        sidebar = self.sidebar
        if path and path not in sidebar.shown and sidebar.filter_text:
            self.query_one("#filter", Input).value = ""
            sidebar.set_filter("", self.state, path)
        sidebar.move_to(path)
        self._select(path)

    @on(Input.Changed, "#filter")
    def _on_filter(self, event: Input.Changed) -> None:
        if self.state.program is not None:
            self.sidebar.set_filter(event.value, self.state, self.selected)

    @on(Input.Submitted, "#filter")
    def _on_filter_done(self, event: Input.Submitted) -> None:
        self.sidebar.tree_widget.focus()

    # --- actions -----------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_escape(self) -> None:
        focused = self.focused
        filter_input = self.query_one("#filter", Input)
        if focused is filter_input:
            self.sidebar.tree_widget.focus()
        elif filter_input.value:
            filter_input.value = ""
        else:
            self.sidebar.tree_widget.focus()

    def action_tab(self, number: int) -> None:
        """Show the number-th tab (1-based; 11 is the Call pane, key `k`)."""
        if 1 <= number <= len(PANES):
            self.show_tab(PANES[number - 1][0])
            if PANES[number - 1][0] == "call":   # keys go to the form, not the tree's filter
                self.call_after_refresh(self.pane("call").focus_first)

    def action_keys(self) -> None:
        self.push_screen(KeysScreen())

    def action_run_environments(self):
        self.show_tab("environments")
        return self.pane("environments").run_input()

    def action_run_diffs(self):
        if self.state.program is None:
            return None
        return self.run_worker(self._run_diffs(), group="diffs", exclusive=True,
                               exit_on_error=False)

    def action_run_write_diffs(self):
        """`D`: the diffs with the examples of commands that write, after a confirmation."""
        if self.state.program is None:
            return None
        writing = [c for c in self.state.commands()
                   if c.examples and c.effects not in SAFE_EFFECTS and c.effects != "withheld"]
        if not writing:
            return self.action_run_diffs()
        def chosen(run: bool) -> None:
            if run:
                self.run_worker(self._run_diffs(run_writes=True), group="diffs",
                                exclusive=True, exit_on_error=False)
        self.push_screen(ConfirmDiffWrites(writing), callback=chosen)
        return None

    async def _run_diffs(self, run_writes: bool | None = None) -> None:
        count = sum(len(c.examples) for c in self.state.commands())
        self.diff_status = f"running {plural(count, 'example')}\u2026"
        self._refresh("diff")
        try:
            diffs = await self.bench.arun_diffs(run_writes=run_writes)
        except asyncio.CancelledError:
            self.diff_status = "cancelled"
            self._refresh("diff")
            raise
        except Exception as exc:  # noqa: BLE001
            self.diff_status = f"failed: {type(exc).__name__}: {exc}"
            self._refresh("diff")
            return
        self.diff_status = "done"
        self._apply_diffs(diffs)
        if self.auto_check:
            self.action_run_check()

    def action_run_check(self):
        """`C`: `burgee check` on the file (generated calls, each in a sandbox); what it finds
        joins Problems. One at a time; a reload makes a running one's report stale (dropped)."""
        if self.state.program is None:
            return None
        return self.run_worker(self._run_check(), group="check", exclusive=True,
                               exit_on_error=False)

    async def _run_check(self) -> None:
        self.notify("burgee check: running the generated calls\u2026", title="check")
        try:
            report = await self.bench.arun_check()
        except Exception as exc:  # noqa: BLE001 - Problems keeps what it had
            self.notify(f"{type(exc).__name__}: {exc}", title="check failed", severity="error")
            return
        if report is not None:
            found = len(report.get("violations") or [])
            self.notify(f"{found} violation(s); recovery {report['recovery'].get('rate')}",
                        title="check done", severity="error" if found else "information")

    def _apply_check(self) -> None:
        if self.bench.state.generation == self.state.generation:
            self.state = self.bench.state        # problems now include the check's findings
            self.sidebar.rebuild(self.state, self.selected)
        self._refresh("problems")

    def action_cancel(self) -> None:
        cancelled = self.pane("environments").cancel()
        cancelled = bool(self.bench.cancel_runs()) or cancelled   # their processes too
        cancelled = self.bench.cancel_diffs() or cancelled
        running = [w for w in self.workers if w.group == "diffs" and w.is_running]
        for worker in running:
            worker.cancel()
        if cancelled or running:
            self.notify("cancelled the runs in progress")

    def action_copy_config(self, client: str = "claude-code") -> None:
        text = self.bench.client_config(client)
        self.last_copied = text
        self.copy_to_clipboard(text)
        self.notify(text, title=f"copied the {client} config")

    def action_toggle_record(self) -> str | None:
        """`R`: start recording MCP calls to a replay file, or stop; returns the path."""
        recorder = self.bench.recorder
        if recorder is None:
            self.bench.recorder = recorder = Recorder.beside(self.bench.file, self.bench.program)
            self.notify(recorder.path, title="recording MCP calls")
            return recorder.path
        self.bench.recorder = None
        self.notify(f"{plural(recorder.count, 'call')} in {recorder.path}",
                    title="recording stopped")
        return recorder.path

    def action_reload(self) -> None:
        self.run_worker(self.bench.areload(), group="reload", exit_on_error=False)

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit(0)

    async def shutdown(self) -> None:
        """Stop the runs, the watcher and the MCP server (once)."""
        if self._stopped:
            return
        self._stopped = True
        if self._unsubscribe is not None:
            self._unsubscribe()
        for worker in list(self.workers):
            if worker.group in ("diffs", "environments", "engine", "reload"):
                worker.cancel()
        try:
            await asyncio.wait_for(self.bench.stop(), 8)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001
            pass

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        ours = list(actions(self))
        titles = {title for title, _help, _callback in ours}
        for command in super().get_system_commands(screen):
            if command.title not in titles:      # our "Keys" replaces Textual's
                yield command
        for title, help_text, callback in ours:
            yield SystemCommand(title, help_text, callback)

