"""Schema: the selected command's input schema, or the program schema (`--schema`)."""

from __future__ import annotations

from workbench.dev.dashboard.panes._base import SurfacePane


class SchemaPane(SurfacePane):
    program_surface, program_title = "schema.json", "--schema (program schema)"
    command_folder, command_title, command_note = "schemas", "--schema", " (input schema)"
