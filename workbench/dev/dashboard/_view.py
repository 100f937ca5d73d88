"""What every pane draws from: one View (state, selected node) and small rendering helpers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.syntax import Syntax
from rich.text import Text

from workbench.declaration.model import Group

if TYPE_CHECKING:
    from workbench.declaration.model import Command, Program
    from workbench.dev.engine import Workbench
    from workbench.dev.records import Surface
    from workbench.dev.state import State

JSON_THEME = "monokai"


@dataclass(frozen=True)
class View:
    """The engine's state and the selected node (None: the program itself)."""

    state: State
    node: Command | Group | None  # the selected Command or Group, or None
    bench: Workbench              # traffic, diffs, client configs
    stable: bool = False          # screenshots: no ports, no timings

    @property
    def name(self) -> str | None:
        """The selected node's path as a string (`"sync push"`), or None for the program."""
        return " ".join(self.node.path) if self.node is not None else None

    @property
    def is_group(self) -> bool:
        return self.node is not None and bool(getattr(self.node, "is_group", False))

    @property
    def program(self) -> Program | None:
        return self.state.program

    @property
    def loaded(self) -> Program:
        """The program, for a pane's drawing: panes are drawn only when one loaded
        (`DashboardApp.refresh_panes`)."""
        program = self.state.program
        if program is None:
            raise LookupError("no program loaded: a pane draws only a loaded program")
        return program

    @property
    def command(self) -> Command | None:
        """The selected command; None for the program or a group."""
        node = self.node
        return None if node is None or isinstance(node, Group) else node

    def surface(self, surface_id: str) -> Surface | None:
        return self.state.surfaces.get(surface_id)


class Dashboard(Protocol):
    """What panes, screens and the palette ask of the app (`app.DashboardApp`, a layer up)."""

    stable: bool

    def view(self) -> View: ...

    def action_reload(self) -> None: ...

    def select_command(self, name: str | None) -> None: ...


def dashboard(app: Any) -> Dashboard:
    """`app` (a widget's `self.app`) as the dashboard it is."""
    return cast(Dashboard, app)


def slug(path) -> str:
    """The snapshot slug of a command path (`("sync", "push")` -> `sync-push`)."""
    return "-".join(path) if path else "_program"


def json_view(surface) -> Syntax | Text:
    """A JSON surface, indented and highlighted; the error text when it failed to render."""
    if surface is None:
        return Text("(not rendered)", style="dim")
    if surface.error is not None:
        return Text(surface.text, style="red")
    return Syntax(json.dumps(surface.data, ensure_ascii=False, indent=2), "json",
                  theme=JSON_THEME, word_wrap=True, background_color="default")


def heading(title: str, detail: str = "") -> Text:
    text = Text(title, style="bold")
    if detail:
        text.append("  " + detail, style="dim")
    return text


def token_note(state, surface_id: str) -> str:
    row = state.tokens.get(surface_id)
    if row is None:
        return ""
    note = f"{row.tokens} tokens, {row.chars} chars"
    if row.budget is not None:
        note += f", budget {row.budget}" + (" chars" if row.unit == "chars" else "")
    return note


def group_note(view: View) -> Text:
    node = view.node
    children = ", ".join(child.name for child in node.commands) \
        if isinstance(node, Group) else ""
    return Text(f"'{view.name}' is a group; select one of its commands: {children}", style="dim")


def plain(renderable) -> str:
    """Plain text of a Rich renderable (tests and the palette read it)."""
    if isinstance(renderable, Text):
        return renderable.plain
    if isinstance(renderable, Syntax):
        return renderable.code
    if isinstance(renderable, str):
        return renderable
    parts = getattr(renderable, "renderables", None)
    if parts is not None:
        return "\n".join(plain(part) for part in parts)
    return ""
