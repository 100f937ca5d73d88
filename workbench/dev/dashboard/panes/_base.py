"""The pane protocol: `show(view)` redraws from a View; `text` is what it shows, as plain text."""

from __future__ import annotations

from typing import ClassVar

from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.dev.dashboard._view import group_note, heading, json_view, plain, slug, token_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType
    from textual.app import ComposeResult

    from workbench.dev.dashboard._view import View


class Pane(VerticalScroll):
    """A scrolling pane made of one or more Statics; subclasses implement `render_view`."""

    DEFAULT_CSS: ClassVar[str] = """
    Pane { padding: 0 1; }
    Pane > .pane-title { margin-bottom: 1; }
    """

    stale: bool   # drawn from an older View: redraw when next shown
    text: str     # what it shows, as plain text

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stale = True
        self.text = ""

    def compose(self) -> ComposeResult:
        yield Static(classes="pane-title")
        yield Static(classes="pane-body")

    def show(self, view: View) -> None:
        title, body = self.render_view(view)
        self.query_one(".pane-title", Static).update(title)
        self.query_one(".pane-body", Static).update(body)
        self.text = plain(title) + "\n" + plain(body)
        self.stale = False

    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        raise NotImplementedError


class SurfacePane(Pane):
    """A pane showing one JSON surface: the program's at the root, a command's below it."""

    program_surface: str = ""
    """Surface id at the root, e.g. `schema.json`."""
    program_title: str = ""
    """Title at the root, after the program's name."""
    command_folder: str = ""
    """Folder of per-command surfaces, e.g. `schemas`."""
    command_title: str = ""
    """Title for a command or group, after its name."""
    command_note: str = ""
    """Said after the title for a command (not for a group)."""

    def render_view(self, view: View) -> tuple[RenderableType, RenderableType]:
        name = view.loaded.name
        if view.node is None:
            surface_id, title = self.program_surface, f"{name} {self.program_title}"
        elif view.is_group:
            return heading(f"{name} {view.name} {self.command_title}"), group_note(view)
        else:
            surface_id = f"{self.command_folder}/{slug(view.node.path)}.json"
            title = f"{name} {view.name} {self.command_title}{self.command_note}"
        return (heading(title, token_note(view.state, surface_id)),
                json_view(view.surface(surface_id)))
