"""Card: `help --json` of the selected command (the program's summary document at the top)."""

from __future__ import annotations

from workbench.dev.dashboard.panes._base import SurfacePane


class CardPane(SurfacePane):
    program_surface: str = "help-json/summary.json"
    program_title: str = "help --json"
    command_folder: str = "cards"
    command_title: str = "--help --json"
