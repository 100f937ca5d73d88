"""The header: program, file, what a typical agent session costs, MCP URL (c copies a client config) and the reload status."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from workbench._text import plural
from workbench.dev.cost import cheapest_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from workbench.dev.state import State

MASKED_URL = "http://127.0.0.1:<port>/mcp"


def session_cost(state: State) -> dict[str, Any] | None:
    """The cheapest complete path of a typical session (dev/cost.py), None when unmeasured."""
    if getattr(state, "cost", None) is None:
        return None
    return cheapest_path(state)


def shown_file(path: str, stable: bool) -> str:
    if stable:
        return os.path.basename(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


class HeaderBar(Static):
    DEFAULT_CSS: ClassVar[str] = """
    HeaderBar { height: 2; background: $primary 25%; padding: 0 1;
                text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text: str = ""

    def draw(self, state: State, *, url: str | None, mcp_error: str | None, status: str,
             status_style: str, stable: bool, watching: bool = False,
             token: str | None = "") -> None:
        """Line 1: the program and its counts; line 2: the MCP URL first (it must stay on
        screen at 80 columns), the start of its bearer token (`token`; None: --no-auth, ""
        unknown; the whole token is in the copied config), then the reload status and the
        watcher. Lines never wrap."""
        program = state.program
        line1 = Text("burgee dev ", style="bold")
        line1.append(program.name if program is not None else "(no program)", style="bold cyan")
        if program is not None and getattr(program, "version", None):
            line1.append(f" {program.version}", style="dim")
        line1.append("  " + shown_file(state.file, stable), style="")
        if program is not None:
            tokens = state.tokens
            line1.append(f"  {plural(len(state.commands()), 'command')}, ", style="dim")
            cheapest = session_cost(state)
            if cheapest is not None:
                line1.append(f"a session {cheapest['tokens']} tokens via {cheapest['title']}, ",
                             style="dim")
            line1.append(f"{tokens.read_by_agents} tokens read by agents "
                         f"(+{tokens.not_read_by_agents} in completions/configs)", style="dim")
        line2 = Text("MCP ", style="bold")
        if url:
            line2.append(MASKED_URL if stable else url, style="underline")
            if token is None:
                line2.append("  no auth", style="yellow")
            elif token:
                line2.append("  token " + ("<token>" if stable else token[:6] + "\u2026"),
                             style="dim")
        elif mcp_error:
            short = mcp_error if len(mcp_error) <= 80 else mcp_error[:79] + "\u2026"
            line2.append(f"not serving: {short}", style="yellow")
        else:
            line2.append("starting\u2026", style="dim")
        line2.append("  ")
        line2.append(status, style=status_style)
        if watching:
            line2.append("  watching for saves", style="dim")
        if url:
            line2.append("   c copies a client config (ctrl+p: other clients)", style="dim")
        self.text = line1.plain + "\n" + line2.plain
        shown = line1 + Text("\n") + line2
        shown.no_wrap = True
        shown.overflow = "ellipsis"
        self.update(shown)
