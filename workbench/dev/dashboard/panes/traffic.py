"""Traffic: live MCP requests from connected clients, in time order (sensitive values already
hidden); Enter on a row opens the whole request and response (`TrafficDetail`)."""

from __future__ import annotations

import json
import time
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from workbench._text import plural
from workbench.dev.dashboard._view import dashboard, heading, plain
from workbench.dev.dashboard.header import MASKED_URL
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType
    from textual.app import ComposeResult

    from workbench.dev.dashboard._view import View
    from workbench.dev.records import TrafficEntry

SHOWN = 200
COLUMNS = ("time", "client", "method", "tool", "arguments", "result", "ms")


def _short(value, width: int = 60) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def outcome(entry: TrafficEntry) -> str:
    """What a row says in its result column: housekeeping that ended is not an error."""
    if entry.housekeeping and entry.error:
        return "ended"
    return entry.error or entry.result or ""


def detail(entry, stable: bool = False) -> str:
    """The whole request and response of one entry, as plain text (masked as recorded)."""
    when = "--:--:--" if stable else time.strftime("%H:%M:%S", time.localtime(entry.at))
    request = {"method": entry.method}
    if entry.tool is not None:
        request["params"] = {"name": entry.tool, "arguments": entry.arguments}
    lines = [f"{entry.method} {entry.tool or ''}".rstrip(),
             f"client {entry.client}, session {entry.session or '-'}, at {when}"
             + ("" if stable else f", {entry.seconds * 1000:.0f} ms"),
             "", "request:", json.dumps(request, ensure_ascii=False, indent=2), "",
             "response:" + (" (protocol housekeeping)" if entry.housekeeping else "")]
    response = outcome(entry)
    try:
        lines.append(json.dumps(json.loads(response), ensure_ascii=False, indent=2))
    except (TypeError, ValueError):
        lines.append(response or "(no content)")
    if entry.is_error and not entry.housekeeping:
        lines.append("(an error)")
    return "\n".join(lines)


class TrafficDetail(ModalScreen[None]):
    """One request and its response, whole; escape or enter closes it."""

    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close")]
    DEFAULT_CSS: ClassVar[str] = """
    TrafficDetail { align: center middle; }
    TrafficDetail > VerticalScroll { width: 90%; height: 90%; border: thick $primary;
                                     padding: 0 1; background: $surface; }
    """

    def __init__(self, entry, stable: bool = False):
        super().__init__()
        self.entry = entry
        self.text: str = detail(entry, stable)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(heading("request and response", "escape closes"))
            yield Static(Text(self.text), id="traffic-detail")


class TrafficPane(Pane):
    BINDINGS = [Binding("enter", "open", "Whole request", show=False)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list = []

    def compose(self):
        yield Static(classes="pane-title")
        yield Static(classes="pane-body")
        table = DataTable(id="traffic-table", cursor_type="row", zebra_stripes=False)
        table.display = False
        yield table

    def show(self, view: View) -> None:
        title, body = self.render_view(view)
        self.query_one(".pane-title", Static).update(title)
        self.query_one(".pane-body", Static).update(body)
        self.query_one(".pane-body", Static).display = not self.entries
        self._fill(view.stable)
        self.text = plain(title) + "\n" + plain(body) + "\n" + self._lines
        self.stale = False

    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        entries = sorted(view.bench.traffic, key=lambda e: e.at)[-SHOWN:]
        command = view.command
        if command is not None:
            tool = command.tool_name
            scope = f"tool {tool}"
            entries = [e for e in entries if e.tool == tool]
        else:
            scope = "all tools"
        self.entries = entries
        url = MASKED_URL if view.stable else (view.state.url or view.bench.url)
        title = heading(f"MCP traffic ({scope})",
                        f"{plural(len(entries), 'request')}; clients connect to "
                        f"{url or '(not serving)'}" + ("; enter shows a whole request"
                                                       if entries else ""))
        self._lines = "\n".join(
            f"{e.client} {e.method} {e.tool or ''} {_short(e.arguments, 200)} "
            f"{'quiet' if e.housekeeping else 'error' if e.is_error else 'ok'}" for e in entries)
        if not entries:
            return title, Text("no requests yet: connect a client (c copies a config) and "
                               "call a tool", style="dim")
        return title, Text("")

    def _fill(self, stable: bool) -> None:
        table = self.query_one("#traffic-table", DataTable)
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        kept = table.cursor_row
        table.clear(columns=not table.columns)
        if not table.columns:
            for column in COLUMNS:
                table.add_column(column, key=column)
        for index, entry in enumerate(self.entries):
            clock = "--:--:--" if stable else time.strftime("%H:%M:%S", time.localtime(entry.at))
            quiet = entry.housekeeping
            style = "dim" if quiet else ""
            result_style = "dim" if quiet else "red" if entry.is_error else ""
            cells = [Text(clock, style=style), Text(entry.client, style=style),
                     Text(entry.method, style=style), Text(entry.tool or "", style=style),
                     Text(_short(entry.arguments, 40), style=style),
                     Text(_short(outcome(entry), 50), style=result_style),
                     Text("" if stable else f"{entry.seconds * 1000:.0f}", style=style,
                          justify="right")]
            table.add_row(*cells, key=str(index))
        table.display = bool(self.entries)
        if self.entries:   # follow new rows unless the cursor was moved up to read one
            table.move_cursor(row=len(self.entries) - 1 if following
                              else min(kept, len(self.entries) - 1))

    def action_open(self) -> None:
        self.open_row()

    def open_row(self, row: int | None = None):
        """Open the detail of row `row` (the cursor's by default); returns the screen."""
        table = self.query_one("#traffic-table", DataTable)
        index = table.cursor_row if row is None else row
        if not self.entries or not 0 <= index < len(self.entries):
            return None
        screen = TrafficDetail(self.entries[index], stable=dashboard(self.app).stable)
        self.app.push_screen(screen)
        return screen

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_row(event.cursor_row)
