"""The error panel: a broken save's traceback, and that the last good program is still served."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from textual.app import ComposeResult

    from workbench.dev.state import State


class ErrorPanel(VerticalScroll):
    DEFAULT_CSS: ClassVar[str] = """
    ErrorPanel { display: none; height: auto; max-height: 14; border: heavy $error;
                 background: $error 10%; padding: 0 1; }
    ErrorPanel.visible { display: block; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text: str = ""

    def compose(self) -> ComposeResult:
        yield Static(id="error-text")

    def draw(self, state: State, stable: bool = False) -> None:
        error = state.load_error
        if error is None:
            self.remove_class("visible")
            self.text = ""
            return
        text = Text(f"\u2717 {error.message}\n", style="bold red")
        if state.program is not None:
            text.append(f"The last good program ({state.program.name}) is still being served; "
                        "the next good save replaces it.\n", style="bold")
        else:
            text.append("No program has loaded yet; fix the file and save.\n", style="bold")
        if getattr(error, "traceback", None):
            trace = error.traceback.rstrip()
            if stable:   # screenshots: no temporary folders in view
                trace = trace.replace(os.path.dirname(state.file) + os.sep, "")
            text.append(trace, style="")
        self.text = text.plain
        self.query_one("#error-text", Static).update(text)
        self.border_title = "load failed"
        self.add_class("visible")
