"""Traffic: live MCP requests from connected clients (sensitive values already hidden)."""

from __future__ import annotations

import json
import time

from rich.table import Table
from rich.text import Text

from workbench._text import plural
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

SHOWN = 200


def _short(value, width: int = 60) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "\u2026"


class TrafficPane(Pane):
    def render_view(self, view):
        entries = list(view.bench.traffic)[-SHOWN:]
        if view.node is not None and not view.is_group:
            tool = view.node.tool_name
            scope = f"tool {tool}"
            entries = [e for e in entries if e.tool == tool]
        else:
            scope = "all tools"
        url = view.state.url or view.bench.url
        if view.stable:
            url = "http://127.0.0.1:<port>/mcp"
        title = heading(f"MCP traffic ({scope})",
                        f"{plural(len(entries), 'request')}; clients connect to {url or '(not serving)'}")
        if not entries:
            self._lines = ""
            return title, Text("no requests yet: connect a client (c copies a config) and "
                               "call a tool", style="dim")
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        for column in ("time", "client", "method", "tool", "arguments", "result", "ms"):
            table.add_column(column, no_wrap=column not in ("arguments", "result"),
                             justify="right" if column == "ms" else "left")
        lines = []
        for entry in entries:
            clock = "--:--:--" if view.stable else time.strftime("%H:%M:%S",
                                                                 time.localtime(entry.at))
            result = entry.error or entry.result
            table.add_row(clock, entry.client, entry.method, entry.tool or "",
                          _short(entry.arguments, 40), Text(_short(result),
                                                            style="red" if entry.is_error else ""),
                          "" if view.stable else f"{entry.seconds * 1000:.0f}")
            lines.append(f"{entry.client} {entry.method} {entry.tool or ''} "
                         f"{_short(entry.arguments, 200)} {'error' if entry.is_error else 'ok'}")
        self._lines = "\n".join(lines)
        return title, table

    def show(self, view) -> None:
        super().show(view)
        self.text += "\n" + self._lines
