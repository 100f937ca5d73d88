"""Cost: what an agent pays per discovery path, side by side, with the deltas of the last reload."""

from __future__ import annotations

from rich.console import Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from workbench._text import plural
from workbench.dev import cost as _cost
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import RenderableType

    from workbench.dev.dashboard._view import View

CHART_WIDTH = 40


class _ChartBar:
    """One path's bar in the chart: as wide as its column allows (at most CHART_WIDTH), in
    proportion to the largest; the figure stands in a column of its own, never cut."""

    def __init__(self, tokens: int, most: int, cheapest: bool):
        self.share = tokens / most if most else 0.0
        self.style = "green" if cheapest else "cyan"

    def __rich_measure__(self, console, options) -> Measurement:
        return Measurement(1, CHART_WIDTH)

    def __rich_console__(self, console, options):
        width = max(1, min(CHART_WIDTH, options.max_width))
        yield Text("\u2588" * max(1, round(width * self.share)), style=self.style)


def _numbers(table: Table, header: str, cells: list[str]) -> None:
    """A right-aligned column as wide as its widest figure: a narrow screen narrows the text
    columns, never a number (`6,3…` reads like 6.3)."""
    table.add_column(header, justify="right", no_wrap=True,
                     min_width=max(len(cell) for cell in [header, *cells]))


def _delta(value) -> Text:
    if not value:
        return Text("0" if value == 0 else "", style="dim")
    return Text(("+" if value > 0 else "\u2212") + f"{abs(value):,}",
                style="red" if value > 0 else "green")


class CostPane(Pane):
    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        state = view.state
        found = state.cost
        if found is None:
            return heading("session cost"), Text("(not measured: the program did not load, "
                                                 "or a surface failed to render)", style="dim")
        shapes = _cost.SHAPES
        table_data = found.table()
        changes = _cost.deltas(state.cost_before, found)
        typical = shapes["typical"]
        cheapest, cheapest_tokens = found.cheapest(typical)
        title = heading(f"session cost of {found.program}",
                        f"cheapest typical session ({typical.label}): "
                        f"{_cost.TITLES.get(cheapest or '', '-')}, {cheapest_tokens or 0:,} tokens "
                        f"({found.encoding}; {plural(found.commands, 'command')})")

        if view.node is not None:
            title = Text.assemble(title, "\n", self._command_note(view))
        # Delta columns only for shapes whose figures moved (none on a first load or a
        # reload that changed nothing); on a narrow pane only the typical session's.
        moved = [name for name in shapes if any(changes.get(name, {}).values())]
        if moved and 0 < self.size.width < 90:
            moved = [name for name in moved if name == "typical"]
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        table.add_column("path", no_wrap=True, min_width=8)
        for name in shapes:
            _numbers(table, name, [f"{table_data[name][path]:,}" for path in found.paths])
            if name in moved:
                _numbers(table, "\u0394", [_delta(changes[name].get(path)).plain
                                           for path in found.paths])
        cheaper = {path: "" if path == "mcp" else
                   (lambda even: f"{plural(even, 'command')}" if even else
                    f"never (<= {found.commands})")(found.break_even(path, "mcp", typical))
                   for path in found.paths}
        table.add_column("MCP cheaper from", justify="right",
                         min_width=max(map(len, cheaper.values()), default=0))
        lines = []
        for path in found.paths:
            row: list[Text | str] = [Text(_cost.TITLES[path],
                                          style="bold" if path == cheapest else "")]
            for name in shapes:
                row.append(f"{table_data[name][path]:,}")
                if name in moved:
                    row.append(_delta(changes[name].get(path)))
            row.append(cheaper[path])
            table.add_row(*row)
            lines.append(f"{_cost.TITLES[path]}: " + ", ".join(
                f"{name} {table_data[name][path]:,}" for name in shapes))

        most = max(table_data["typical"].values()) if table_data["typical"] else 0
        chart = Table(box=None, show_header=False, pad_edge=False)
        chart.add_column(no_wrap=True, min_width=max(len(_cost.TITLES[p]) for p in found.paths))
        chart.add_column()   # the bars: a narrow pane shortens them
        _numbers(chart, "", [f"{table_data['typical'][path]:,}" for path in found.paths])
        for path in found.paths:
            tokens = table_data["typical"][path]
            style = "green" if path == cheapest else "cyan"
            chart.add_row(_cost.TITLES[path], _ChartBar(tokens, most, path == cheapest),
                          Text(f"{tokens:,}", style=style))

        said = _cost.sentences({"typical": changes["typical"]} if changes else {})
        if state.cost_before is None:
            news = Text("first load: deltas appear after the next reload", style="dim")
        elif said:
            news = Text("\n".join(said[:6]))
        else:
            news = Text("this edit changed no session's cost", style="dim")
        lines += said

        dominant = Table(box=None, pad_edge=False, header_style="bold")
        dominant.add_column("what each path reads most", no_wrap=True)
        dominant.add_column("tokens", justify="right")
        for path, parts in found.paths.items():
            for label, tokens in parts.parts[:2]:
                dominant.add_row(f"{_cost.TITLES[path]}: {label}", f"{tokens:,}")
                lines.append(f"{_cost.TITLES[path]} reads most: {label} {tokens:,}")
        note = Text(f"envelopes: {found.envelopes_run} of {plural(found.commands, 'command')} from real "
                    "example runs (d runs them); others count the smallest envelope. "
                    "Every text read stays in context for the turns after it.", style="dim")
        self._lines = "\n".join(lines)
        legend = Text("  ".join(f"{name}: {shape.label}" for name, shape in shapes.items()),
                      style="dim")
        return title, Group(table, legend, Text(""), Text(f"typical session ({typical.label})",
                                                 style="bold"), chart, Text(""), news,
                            Text(""), dominant, Text(""), note)

    @staticmethod
    def _command_note(view) -> Text:
        """What the selected command adds: its tool every MCP turn, its card on first use."""
        rows = {row.kind: row.tokens for row in view.state.tokens.for_command(view.name)}
        if view.is_group:
            return Text(f"{view.name}: a group; select a command for its share", style="dim")
        tool = (f"its tool is {rows['tool']:,} tokens in context every MCP turn"
                if "tool" in rows else "no MCP tool")
        card = f"its card {rows.get('card', 0):,} tokens on first use (CLI, search, skills)"
        return Text(f"{view.name}: {tool}; {card}", style="cyan")

    def show(self, view: View) -> None:
        super().show(view)
        self.text += "\n" + self._lines
