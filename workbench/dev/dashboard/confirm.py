"""The confirmation a write needs before the Environments pane runs it.

Only `read_only` commands run without asking. For any other the screen names the command,
its effect in words, and how it will run (once per environment, one after another, each in a
throwaway sandbox); a command with a `plan` offers the dry run first. It dismisses with
"run", "dry-run" or None (cancelled).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.dev.inputs import effect_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.app import ComposeResult


def message(command, described: str, count: int) -> Text:
    """The confirmation's text for running `described` (the input) of `command`."""
    text = Text()
    text.append(f"{' '.join(command.path)} is ", style="bold")
    text.append(effect_note(command), style="bold yellow")
    text.append(f"\n\nRun {described} once in each of the {count} environments, one after "
                "another? Each run works in its own throwaway sandbox (HOME, XDG folders, "
                "TMPDIR, state dir), but a path the program hard-codes is real.")
    if command.plan is not None:
        text.append("\n\nIt has a plan: a dry run (--dry-run) shows what it would do and "
                    "changes nothing.")
    return text


class ConfirmWrites(ModalScreen[str | None]):
    """Asks before a non-read-only command runs; see the module docstring."""

    BINDINGS = [("y", "choose('run')", "Run"), ("d", "choose('dry-run')", "Dry run"),
                ("n", "choose(None)", "Cancel"), ("escape", "choose(None)", "Cancel")]
    DEFAULT_CSS: ClassVar[str] = """
    ConfirmWrites { align: center middle; }
    ConfirmWrites > Vertical { width: 76; height: auto; border: thick $warning; padding: 1 2;
                               background: $surface; }
    ConfirmWrites Horizontal { height: auto; margin: 1 0 0 0; }
    ConfirmWrites Button { margin: 0 1 0 0; }
    """

    def __init__(self, command, described: str, count: int):
        super().__init__()
        self.command = command
        self.text: Text = message(command, described, count)

    def compose(self) -> ComposeResult:
        planned = self.command.plan is not None
        with Vertical():
            yield Static(self.text, id="confirm-text")
            with Horizontal():
                if planned:
                    yield Button("Dry run (d)", id="confirm-dry-run", variant="primary")
                yield Button("Run for real (y)" if planned else "Run (y)", id="confirm-run",
                             variant="warning")
                yield Button("Cancel (n)", id="confirm-cancel")

    def on_mount(self) -> None:
        default = "#confirm-dry-run" if self.command.plan is not None else "#confirm-cancel"
        self.query_one(default, Button).focus()

    def action_choose(self, choice: str) -> None:
        if choice == "dry-run" and self.command.plan is None:
            return
        self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss({"confirm-run": "run",
                      "confirm-dry-run": "dry-run"}.get(event.button.id or ""))


class ConfirmDiffWrites(ModalScreen[bool]):
    """Asks before the Diff runs the examples of commands that write (`D`); dismisses with
    True (run them) or False."""

    BINDINGS = [("y", "choose(True)", "Run"), ("n", "choose(False)", "Cancel"),
                ("escape", "choose(False)", "Cancel")]
    DEFAULT_CSS: ClassVar[str] = ConfirmWrites.DEFAULT_CSS.replace("ConfirmWrites",
                                                                   "ConfirmDiffWrites")

    def __init__(self, commands):
        super().__init__()
        self.text: Text = Text()
        self.text.append("Run the examples of commands that write too?\n\n", style="bold")
        for command in commands:
            self.text.append(f"  {' '.join(command.path)}", style="bold")
            self.text.append(f"  {effect_note(command)}\n", style="yellow")
        self.text.append("\nEach side of each example runs once, one example after another, "
                         "each in its own throwaway sandbox (HOME, XDG folders, TMPDIR, state "
                         "dir); a path the program hard-codes is real.")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text, id="confirm-text")
            with Horizontal():
                yield Button("Run them (y)", id="confirm-run", variant="warning")
                yield Button("Cancel (n)", id="confirm-cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm-cancel", Button).focus()

    def action_choose(self, choice: bool) -> None:
        self.dismiss(bool(choice))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-run")
