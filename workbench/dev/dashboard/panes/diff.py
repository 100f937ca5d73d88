"""Diff: every example run as CLI `--json` and as MCP tools/call: equal, or a unified diff."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text

from textual.widgets import ProgressBar, Static

from workbench._text import plural
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType
    from textual.app import ComposeResult

    from workbench.dev.dashboard._view import View


def status_of(diff) -> tuple[Any, ...]:
    """(mark, word, style) for one Diff."""
    if diff.skipped:
        return "\u2013", "skipped", "dim"
    if diff.invalid_output:
        return "\u2717", "invalid", "bold red"
    if diff.error:
        return "!", "error", "yellow"
    if diff.equal:
        return "\u2713", "equal", "green"
    return "\u2717", "differs", "bold red"


class DiffPane(Pane):
    DEFAULT_CSS: ClassVar[str] = """
    DiffPane #diff-progress { display: none; margin-bottom: 1; }
    DiffPane #diff-progress.running { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="pane-title")
        yield ProgressBar(id="diff-progress", total=None, show_eta=False,
                          show_percentage=False)
        yield Static(classes="pane-body")

    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        app = self.app
        diffs = list(getattr(app, "diffs", ()) or ())
        status = getattr(app, "diff_status", "not run")
        if view.node is not None:
            name = view.name or ""   # a node: its path
            diffs = [d for d in diffs if d.command == name or d.command.startswith(name + " ")]
            scope = name
        else:
            scope = "every command"
        equal = sum(1 for d in diffs if d.equal)
        differs = sum(1 for d in diffs if d.equal is False)
        title = heading(f"CLI --json vs MCP ({scope})",
                        f"{status}; {equal} equal, {differs} differ, {plural(len(diffs), 'example')} "
                        f"(d runs again, x cancels)")
        if not diffs:
            self._lines = ""
            hint = ("running\u2026" if status.startswith("running")
                    else "no examples here" if status.startswith("done")
                    else "press d to run every example through both transports")
            return title, Text(hint, style="dim")
        parts: list[RenderableType] = []
        lines: list[str] = []
        for diff in diffs:
            mark, word, style = status_of(diff)
            line = Text(f"{mark} {word:<8}", style=style) + Text(f" {diff.example}")
            parts.append(line)
            detail = diff.skipped or (diff.invalid_output or {}).get("message") or diff.error
            if detail:
                parts.append(Text(f"           {detail}", style="dim"))
            if diff.equal is False and diff.diff:
                parts.append(Syntax(diff.diff, "diff", theme="ansi_dark", word_wrap=True,
                                    background_color="default"))
            lines.append(f"{word} {diff.example} {detail or ''}".rstrip()
                         + ("\n" + diff.diff if diff.equal is False else ""))
        self._lines = "\n".join(lines)
        return title, Group(*parts)

    def show(self, view: View) -> None:
        super().show(view)
        running = str(getattr(self.app, "diff_status", "")).startswith("running")
        self.query_one("#diff-progress", ProgressBar).set_class(running, "running")
        self.text += "\n" + self._lines
