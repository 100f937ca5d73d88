"""Problems: the lint of the declaration, each finding with its severity and the fix."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from workbench._text import plural
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SEVERITY_MARK = {"error": "\u2717", "warning": "\u26a0", "info": "i"}


def counts(problems) -> dict:
    found = {"error": 0, "warning": 0, "info": 0}
    for problem in problems:
        found[problem.severity] = found.get(problem.severity, 0) + 1
    return found


class ProblemsPane(Pane):
    def render_view(self, view):
        state = view.state
        if view.node is None:
            problems = list(state.problems)
            scope = f"{view.program.name} (all commands)"
        else:
            problems = [p for p in state.problems
                        if p.command == view.name
                        or (p.command or "").startswith(view.name + " ")]
            scope = view.name
        found = counts(problems)
        title = heading(f"problems in {scope}", f"{plural(found['error'], 'error')}, "
                        f"{plural(found['warning'], 'warning')}, {plural(found['info'], 'info')}")
        if not problems:
            self._lines = ""
            return title, Text("\u2713 nothing to fix", style="green")
        table = Table(box=None, pad_edge=False, expand=True, show_header=False)
        table.add_column("", no_wrap=True)
        table.add_column("", ratio=1)
        lines = []
        for problem in problems:
            style = SEVERITY_STYLE.get(problem.severity, "")
            what = Text(problem.message)
            if view.node is None and problem.command:
                what = Text(f"[{problem.command}] ", style="bold") + what
            what.append("\nfix: ", style="dim")
            what.append(problem.fix, style="italic")
            table.add_row(Text(f"{SEVERITY_MARK.get(problem.severity, '?')} {problem.code}",
                               style=style), what)
            table.add_row("", "")
            lines.append(f"{problem.severity} {problem.code} {problem.message} fix: {problem.fix}")
        self._lines = "\n".join(lines)
        return title, table

    def show(self, view) -> None:
        super().show(view)
        self.text += "\n" + self._lines
