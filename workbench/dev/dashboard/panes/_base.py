"""The pane protocol: `show(view)` redraws from a View; `text` is what it shows, as plain text."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.dev.dashboard._view import plain


class Pane(VerticalScroll):
    """A scrolling pane made of one or more Statics; subclasses implement `render_view`."""

    DEFAULT_CSS = """
    Pane { padding: 0 1; }
    Pane > .pane-title { margin-bottom: 1; }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.stale = True
        self.text = ""

    def compose(self):
        yield Static(classes="pane-title")
        yield Static(classes="pane-body")

    def show(self, view) -> None:
        title, body = self.render_view(view)
        self.query_one(".pane-title", Static).update(title)
        self.query_one(".pane-body", Static).update(body)
        self.text = plain(title) + "\n" + plain(body)
        self.stale = False

    def render_view(self, view):  # -> (title renderable, body renderable)
        raise NotImplementedError
