"""Cost: what an agent pays per discovery path, side by side, with the deltas of the last reload."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench._text import plural
from workbench.dev import cost as _cost
from workbench.dev.dashboard._view import heading
from workbench.dev.dashboard.panes._base import Pane

CHART_WIDTH = 40


def _bar(tokens: int, most: int, cheapest: bool) -> Text:
    filled = max(1, round(CHART_WIDTH * tokens / most)) if most else 0
    style = "green" if cheapest else "cyan"
    return Text("\u2588" * filled, style=style) + Text(f" {tokens:,}", style=style)


def _delta(value) -> Text:
    if not value:
        return Text("0" if value == 0 else "", style="dim")
    return Text(("+" if value > 0 else "\u2212") + f"{abs(value):,}",
                style="red" if value > 0 else "green")


class CostPane(Pane):
    def render_view(self, view):
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
                        f"{_cost.TITLES.get(cheapest, '-')}, {cheapest_tokens or 0:,} tokens "
                        f"({found.encoding}; {plural(found.commands, 'command')})")

        if view.node is not None:
            title = Text.assemble(title, "\n", self._command_note(view))
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        table.add_column("path", no_wrap=True)
        for name in shapes:
            table.add_column(name, justify="right", no_wrap=True)
            table.add_column("\u0394", justify="right", no_wrap=True)
        table.add_column("MCP cheaper from", justify="right", no_wrap=True)
        lines = []
        for path in found.paths:
            row = [Text(_cost.TITLES[path], style="bold" if path == cheapest else "")]
            for name in shapes:
                row += [f"{table_data[name][path]:,}", _delta(changes.get(name, {}).get(path))]
            even = found.break_even(path, "mcp", typical) if path != "mcp" else None
            row.append("" if path == "mcp" else
                       f"{even} command{'s' if even > 1 else ''}" if even else
                       f"never (<= {found.commands})")
            table.add_row(*row)
            lines.append(f"{_cost.TITLES[path]}: " + ", ".join(
                f"{name} {table_data[name][path]:,}" for name in shapes))

        most = max(table_data["typical"].values()) if table_data["typical"] else 0
        chart = Table(box=None, show_header=False, pad_edge=False)
        chart.add_column(no_wrap=True)
        chart.add_column(no_wrap=True)
        for path in found.paths:
            chart.add_row(_cost.TITLES[path],
                          _bar(table_data["typical"][path], most, path == cheapest))

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

    def show(self, view) -> None:
        super().show(view)
        self.text += "\n" + self._lines
