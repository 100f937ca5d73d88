"""Schema: the selected command's input schema, or the program schema (`--schema`)."""

from __future__ import annotations

from workbench.dev.dashboard._view import group_note, heading, json_view, slug, token_note
from workbench.dev.dashboard.panes._base import Pane


class SchemaPane(Pane):
    def render_view(self, view):
        name = view.program.name
        if view.node is None:
            surface_id, title = "schema.json", f"{name} --schema (program schema)"
        elif view.is_group:
            return heading(f"{name} {view.name} --schema"), group_note(view)
        else:
            surface_id = f"schemas/{slug(view.node.path)}.json"
            title = f"{name} {view.name} --schema (input schema)"
        return (heading(title, token_note(view.state, surface_id)),
                json_view(view.surface(surface_id)))
