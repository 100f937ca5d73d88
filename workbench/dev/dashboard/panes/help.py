"""Help: exactly what a person's terminal shows for `--help` of the program or the selected
node (80 columns); the token note counts the text agents and pipes read (`help.txt`)."""

from __future__ import annotations

from rich.text import Text

from workbench.dev.dashboard._view import heading, slug, token_note
from workbench.dev.dashboard.panes._base import Pane
from workbench.surfaces.help import render_help

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import RenderableType

    from workbench.dev.dashboard._view import View


class HelpPane(Pane):
    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        if view.node is None:
            surface_id = "help.txt"
            title = f"{view.loaded.name} --help"
        else:
            surface_id = f"help/{slug(view.node.path)}.txt"
            title = f"{view.loaded.name} {view.name} --help"
        surface = view.surface(surface_id)
        if surface is None:
            return heading(title), Text("(not rendered)", style="dim")
        body = Text(surface.text, style="red") if surface.error else \
            Text(render_help(view.program, view.node, person=True))
        note = token_note(view.state, surface_id)
        return heading(title, note and f"agents read {note}"), body
