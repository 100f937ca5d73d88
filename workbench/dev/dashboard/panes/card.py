"""Card: `help --json` of the selected command (the program's summary document at the top)."""

from __future__ import annotations

from workbench.dev.dashboard._view import group_note, heading, json_view, slug, token_note
from workbench.dev.dashboard.panes._base import Pane


class CardPane(Pane):
    def render_view(self, view):
        name = view.program.name
        if view.node is None:
            surface_id, title = "help-json/summary.json", f"{name} help --json"
        elif view.is_group:
            return heading(f"{name} {view.name} --help --json"), group_note(view)
        else:
            surface_id = f"cards/{slug(view.node.path)}.json"
            title = f"{name} {view.name} --help --json"
        return (heading(title, token_note(view.state, surface_id)),
                json_view(view.surface(surface_id)))
