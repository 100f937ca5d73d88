"""Card: `help --json` of the selected command (the program's summary document at the top)."""

from __future__ import annotations

from workbench.dev.dashboard.panes._base import SurfacePane


class CardPane(SurfacePane):
    program_surface, program_title = "help-json/summary.json", "help --json"
    command_folder, command_title = "cards", "--help --json"
