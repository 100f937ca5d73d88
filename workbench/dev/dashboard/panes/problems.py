"""Problems: the lint of the declaration, each finding with its severity and the fix."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench._text import plural
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType

    from workbench.dev.dashboard._view import View

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SEVERITY_MARK = {"error": "\u2717", "warning": "\u26a0", "info": "i"}


def counts(problems) -> dict[str, Any]:
    found = {"error": 0, "warning": 0, "info": 0}
    for problem in problems:
        found[problem.severity] = found.get(problem.severity, 0) + 1
    return found


CHANGE_STYLE = {"breaking": "bold red", "additive": "green", "cosmetic": "dim"}
CHANGE_MARK = {"breaking": "\u2717", "additive": "+", "cosmetic": "~"}


def change_lines(review, since: str, command: str | None) -> tuple[Any, ...]:
    """(Rich Text, plain text) of one change review, breaking first, for a command's changes
    (and its subcommands') or all of them."""
    if review is None:
        return None, ""
    changes = [c for c in review.changes if command is None or c.command == command
               or (c.command or "").startswith(command + " ")]
    counts = ", ".join(f"{sum(c.kind == kind for c in changes)} {kind}"
                       for kind in ("breaking", "additive", "cosmetic"))
    head = f"changes since {since}: {counts}"
    if review.breaking:
        head += (" \u2014 blocked: no major version bump" if review.blocked
                 else f" \u2014 major bump {review.old_version} \u2192 {review.new_version}")
    text = Text()
    text.append(head + "\n", "bold")
    plain = [head]
    for change in changes:
        where = f"[{change.command}] " if change.command and command is None else ""
        text.append(f"{CHANGE_MARK[change.kind]} {change.kind:<9}", CHANGE_STYLE[change.kind])
        text.append(f" {change.rule}  ", "bold")
        text.append(f"{where}{change.reason}\n")
        plain.append(f"{change.kind} {change.rule} {where}{change.reason}")
    return text, "\n".join(plain)


def check_line(report) -> str:
    """What `burgee check` said of this load, in one line."""
    if report is None:
        return "burgee check: not run on this load (C runs it)"
    from workbench.check.report import summary_line
    return summary_line(report)


class ProblemsPane(Pane):
    """The lint, under the live change review: what this reload changed since the last good
    load and since the snapshot folder, breaking first (`workbench.dev.changes`)."""

    _lines: str   # the plain text of the change review, for `text`

    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        title, body, found = self._problems(view)
        state = view.state
        command = view.name if view.node is not None else None
        parts, lines = [], []
        for review, since in ((state.review, "the last good load"),
                              (state.review_snapshot, "the snapshot")):
            text, plain = change_lines(review, since, command)
            if text is not None:
                parts.append(text)
                lines.append(plain)
        note = check_line(state.check)
        parts.append(Text(note + "\n", style="dim"))
        lines.append(note)
        if state.review_snapshot is None:
            note = "no snapshot yet: 'burgee dev FILE --headless --update' writes one"
            parts.append(Text(note + "\n", style="dim"))
            lines.append(note)
        self._lines = "\n".join(lines) + ("\n" + self._lines if self._lines else "")
        blocked = any(review is not None and review.blocked
                      for review in (state.review, state.review_snapshot))
        if blocked and not found:   # not a green "nothing to fix" under a blocked change
            body = Text("no lint problems; the breaking change above still needs a major "
                        "version bump (or keep the old name)", style="yellow")
        return title, Group(*parts, body)

    def _problems(self, view):
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
            return title, Text("\u2713 nothing to fix", style="green"), False
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
        return title, table, True

    def show(self, view: View) -> None:
        super().show(view)
        self.text += "\n" + self._lines
