"""The `?` screen: every key of the dashboard."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.app import ComposeResult

KEYS = (
    ("/", "filter the command tree (enter or esc goes back to the tree)"),
    ("up / down, enter", "move in the tree; the panes follow the selection"),
    ("1 \u2026 9, 0", "Help, Card, Schema, MCP, Tokens, Environments, Diff, Traffic, Problems, "
                     "Cost"),
    ("k", "the Call pane: a form from the selected command's schema, run as CLI or MCP"),
    ("tab / shift+tab", "move focus between the tree, the tabs and inputs"),
    ("e", "run the Environments input in every environment"),
    ("d", "run every example CLI --json vs MCP (Diff; read-only commands only)"),
    ("D", "the same with the examples of commands that write, after a confirmation"),
    ("C", "burgee check: generated calls against every rule; findings join Problems (also "
          "after each load's diffs)"),
    ("x", "cancel the runs in progress"),
    ("c", "copy a client config for the live MCP server (Claude Code)"),
    ("R", "record every MCP call to .burgee/traffic/*.jsonl, or stop (a replay file)"),
    ("ctrl+r", "reload the file now (saves reload by themselves)"),
    ("ctrl+p", "command palette: every action, every command, every client config"),
    ("?", "this screen"),
    ("enter (Traffic)", "the whole request and response of the row (esc closes)"),
    ("q, ctrl+c", "quit (stops the MCP server)"),
)


class KeysScreen(ModalScreen[None]):
    BINDINGS = [("escape", "dismiss", "Close"), ("question_mark", "dismiss", "Close"),
                ("q", "dismiss", "Close")]
    DEFAULT_CSS: ClassVar[str] = """
    KeysScreen { align: center middle; }
    KeysScreen > VerticalScroll { width: 84; max-width: 100%; height: auto; max-height: 100%;
                                  border: thick $primary; padding: 1 2; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, pad_edge=False)
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with VerticalScroll():
            yield Static(Text("burgee dev keys", style="bold"))
            yield Static(table)
            yield Static(Text("esc closes", style="dim"))
