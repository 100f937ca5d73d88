"""MCP: the selected command as `tools/list` shows it (annotations as badges), or the whole list."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench.dev.dashboard._view import group_note, heading, json_view, token_note
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType

    from workbench.dev.dashboard._view import View

BADGES = (
    ("readOnlyHint", "read-only", "black on green"),
    ("idempotentHint", "idempotent", "black on cyan"),
    ("destructiveHint", "destructive", "white on red"),
    ("openWorldHint", "open world", "black on yellow"),
)


def badges(tool: dict[str, Any]) -> Text:
    """One badge per true hint (a false destructiveHint reads as 'safe')."""
    annotations = tool.get("annotations") or {}
    text = Text()
    for key, label, style in BADGES:
        if annotations.get(key):
            text.append(f" {label} ", style=style)
            text.append(" ")
    if annotations.get("destructiveHint") is False and not annotations.get("readOnlyHint"):
        text.append(" not destructive ", style="black on bright_black")
    return text


class McpPane(Pane):
    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        if view.node is None:
            return self._tools_list(view)
        command = view.command
        if command is None:   # a group
            return heading("tools/list"), group_note(view)
        if command.effects == "withheld":
            return (heading(f"tool {command.tool_name}"),
                    Text("withheld: this command is not an MCP tool (command line only)",
                         style="dim"))
        surface_id = f"mcp/tools/{command.tool_name}.json"
        surface = view.surface(surface_id)
        if surface is None:
            listing = view.surface("mcp/tools-list.json")
            if listing is not None and listing.error:
                return heading(f"tool {command.tool_name}"), Text(listing.text, style="red")
            return heading(f"tool {command.tool_name}"), Text("(not in tools/list)", style="dim")
        title = heading(f"tool {command.tool_name}", token_note(view.state, surface_id))
        tool = surface.data if isinstance(surface.data, dict) else {}
        return title, Group(badges(tool), Text(""), json_view(surface))

    def _tools_list(self, view):
        surface_id = "mcp/tools-list.json"
        surface = view.surface(surface_id)
        url = view.state.url or view.bench.url
        if view.stable:
            url = "http://127.0.0.1:<port>/mcp"
        served = Text("served at ", style="dim") + Text(url or "(not serving)", style="bold")
        title = heading("tools/list", token_note(view.state, surface_id))
        if surface is None or surface.error:
            return title, Group(served, Text(""), json_view(surface))
        table = Table(box=None, pad_edge=False, expand=True)
        table.add_column("tool", style="bold", no_wrap=True)
        table.add_column("annotations", no_wrap=True)
        table.add_column("description", ratio=1)
        for tool in surface.data.get("tools", []):
            table.add_row(tool.get("name", "?"), badges(tool), tool.get("description", ""))
        lines = [f"{t.get('name')}: {t.get('description', '')}"
                 for t in surface.data.get("tools", [])]
        self._plain_tools = "\n".join(lines)
        return title, Group(served, Text(""), table)

    def show(self, view: View) -> None:
        super().show(view)
        if view.node is None and getattr(self, "_plain_tools", None):
            self.text += "\n" + self._plain_tools
