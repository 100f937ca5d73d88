"""Schema: the selected command's input schema, or the program schema (`--schema`)."""

from __future__ import annotations

from workbench.dev.dashboard.panes._base import SurfacePane


class SchemaPane(SurfacePane):
    program_surface: str = "schema.json"
    program_title: str = "--schema (program schema)"
    command_folder: str = "schemas"
    command_title: str = "--schema"
    command_note: str = " (input schema)"
