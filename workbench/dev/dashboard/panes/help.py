"""Help: exactly what a terminal shows for `--help` of the program or the selected node."""

from __future__ import annotations

from rich.text import Text

from workbench.dev.dashboard._view import heading, slug, token_note
from workbench.dev.dashboard.panes._base import Pane


class HelpPane(Pane):
    def render_view(self, view):
        if view.node is None:
            surface_id = "help.txt"
            title = f"{view.program.name} --help"
        else:
            surface_id = f"help/{slug(view.node.path)}.txt"
            title = f"{view.program.name} {view.name} --help"
        surface = view.surface(surface_id)
        if surface is None:
            return heading(title), Text("(not rendered)", style="dim")
        body = Text(surface.text, style="red" if surface.error else "")
        return heading(title, token_note(view.state, surface_id)), body
