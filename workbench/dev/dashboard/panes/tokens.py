"""Tokens: each surface's tokens, characters, budget, a bar, and the delta since the last reload."""

from __future__ import annotations

from rich.console import Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import RenderableType

    from workbench.dev.dashboard._view import View

BAR_WIDTH = 16


def _style(percent: float) -> str:
    return "red" if percent > 100 else "yellow" if percent > 80 else "green"


def used(percent: float | None) -> Text:
    """The share of the budget used: `41%`, red over 100 %, yellow over 80 %."""
    if percent is None:
        return Text("")
    return Text(f"{percent:.0f}%", style=_style(percent))


class Bar:
    """A bar of the budget used that fills the width its column gets (at most BAR_WIDTH): a
    narrow screen shortens the bar, never the names or the numbers."""

    def __init__(self, percent: float | None):
        self.percent = percent

    def __rich_measure__(self, console, options) -> Measurement:
        return Measurement(0 if self.percent is None else 1, BAR_WIDTH)

    def __rich_console__(self, console, options):
        if self.percent is None:
            return
        width = max(1, min(BAR_WIDTH, options.max_width))
        filled = min(width, round(width * self.percent / 100))
        yield Text("\u2588" * filled, style=_style(self.percent)) + Text(
            "\u2591" * (width - filled), style="bright_black")


def delta(value: int | None) -> Text:
    if value is None:
        return Text("")
    if value == 0:
        return Text("0", style="dim")
    return Text(("+" if value > 0 else "\u2212") + str(abs(value)),
                style="red" if value > 0 else "green")


class TokensPane(Pane):
    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        state = view.state
        if view.node is None:
            rows = [row for row in state.tokens if row.command is None]
            title = heading(f"tokens of {view.loaded.name}",
                            f"program surfaces; all {len(state.tokens)} surfaces: "
                            f"{state.tokens.read_by_agents} tokens read by agents, "
                            f"{state.tokens.not_read_by_agents} in completions and configs")
        else:
            rows = [row for row in state.tokens if row.command == view.name]
            title = heading(f"tokens of {view.name}",
                            f"{sum(row.tokens for row in rows)} tokens in {len(rows)} surfaces")
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        budgets = {row.surface: "none" if row.budget is None else
                   f"{row.budget}" + (" ch" if row.unit == "chars" else "") for row in rows}
        widest = max((len(row.surface) + (5 if row.over else 0) for row in rows), default=7)
        table.add_column("surface", no_wrap=True, min_width=min(widest, 30))
        for column, cells in (("tokens", [str(r.tokens) for r in rows]),
                              ("chars", [str(r.chars) for r in rows]),
                              ("budget", list(budgets.values())), ("used", ["100%"]),
                              ("\u0394", [delta(r.delta).plain for r in rows])):
            table.add_column(column, justify="right", no_wrap=True,
                             min_width=max(map(len, [column, *cells])))
        table.add_column("", no_wrap=True)   # the bar: what a narrow screen shortens
        lines = []
        for row in rows:
            budget = budgets[row.surface]
            style = "bold red" if row.over else ""
            label = Text(row.surface + (" OVER" if row.over else ""), style=style)
            table.add_row(label, str(row.tokens), str(row.chars), budget, used(row.percent),
                          delta(row.delta), Bar(row.percent),
                          style="on #3a0000" if row.over else None)
            lines.append(f"{row.surface} {row.tokens} {row.chars} "
                         f"{'' if row.budget is None else budget}"
                         + (" OVER" if row.over else "")
                         + ("" if row.delta is None else f" delta {row.delta:+d}"))
        self._lines = "\n".join(lines)
        return title, Group(table) if rows else Text("(no surfaces)", style="dim")

    def show(self, view: View) -> None:
        super().show(view)
        self.text += "\n" + self._lines
