"""Tokens: each surface's tokens, characters, budget, a bar, and the delta since the last reload."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

BAR_WIDTH = 16


def bar(percent: float | None) -> Text:
    """A bar of the budget used; red over 100 %, yellow over 80 %."""
    if percent is None:
        return Text("no budget", style="dim")
    filled = min(BAR_WIDTH, round(BAR_WIDTH * percent / 100))
    style = "red" if percent > 100 else "yellow" if percent > 80 else "green"
    return Text("\u2588" * filled, style=style) + Text("\u2591" * (BAR_WIDTH - filled),
                                                       style="bright_black") \
        + Text(f" {percent:.0f}%", style=style)


def delta(value: int | None) -> Text:
    if value is None:
        return Text("")
    if value == 0:
        return Text("0", style="dim")
    return Text(("+" if value > 0 else "\u2212") + str(abs(value)),
                style="red" if value > 0 else "green")


class TokensPane(Pane):
    def render_view(self, view):
        state = view.state
        if view.node is None:
            rows = [row for row in state.tokens if row.command is None]
            title = heading(f"tokens of {view.program.name}",
                            f"program surfaces; all {len(state.tokens)} surfaces: "
                            f"{state.tokens.read_by_agents} tokens read by agents, "
                            f"{state.tokens.not_read_by_agents} in completions and configs")
        else:
            rows = [row for row in state.tokens if row.command == view.name]
            title = heading(f"tokens of {view.name}",
                            f"{sum(row.tokens for row in rows)} tokens in {len(rows)} surfaces")
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        for column, justify in (("surface", "left"), ("tokens", "right"), ("chars", "right"),
                                ("budget", "right"), ("used", "left"), ("\u0394", "right")):
            table.add_column(column, justify=justify, no_wrap=column != "surface")
        lines = []
        for row in rows:
            budget = "" if row.budget is None else (f"{row.budget}" + (" ch" if row.unit == "chars"
                                                                         else ""))
            style = "bold red" if row.over else ""
            label = Text(row.surface + (" OVER" if row.over else ""), style=style)
            table.add_row(label, str(row.tokens), str(row.chars), budget, bar(row.percent),
                          delta(row.delta), style="on #3a0000" if row.over else None)
            lines.append(f"{row.surface} {row.tokens} {row.chars} {budget}"
                         + (" OVER" if row.over else "")
                         + ("" if row.delta is None else f" delta {row.delta:+d}"))
        self._lines = "\n".join(lines)
        return title, Group(table) if rows else Text("(no surfaces)", style="dim")

    def show(self, view) -> None:
        super().show(view)
        self.text += "\n" + self._lines
