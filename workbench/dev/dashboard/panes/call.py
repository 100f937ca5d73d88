"""Call: a form built from the selected command's input schema, run as the CLI or over MCP.

Fields follow the schema (text for strings, numbers checked as typed, a checkbox for a
boolean, a picker for an enum, comma-separated lists; `*` marks required, defaults are
prefilled). Each run shows the request, the whole response and the time it took; a write
runs only after a second press, and every run is in a sandbox. The result can become an
example of the program (the source edit is shown as a diff first and written only by "Write
example") or a line of a replay file (`workbench.dev.replay`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any, ClassVar

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from workbench.dev.calls import (
    add_example, arguments_from, example_line, form_fields, replay_entry,
)
from workbench.dev.dashboard._view import dashboard, heading
from workbench.dev.dashboard.panes._base import Pane
from workbench.dev.inputs import SAFE_EFFECTS
from workbench.dev.replay import Recorder, traffic_folder
from workbench.runtime.arguments import to_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import ComposeResult

    from workbench.dev.calls import Field
    from workbench.dev.dashboard._view import View


CALL_PANE_CLIENT = "burgee dev (Call pane)"
"""The client Traffic names for a Run MCP from the Call pane."""


def field_id(key: str) -> str:
    return "call-field-" + key


class CallPane(Pane):
    DEFAULT_CSS: ClassVar[str] = """
    CallPane #call-form { height: auto; }
    CallPane .call-row { height: auto; }
    CallPane .call-row Label { width: 22; padding: 1 1 0 0; }
    CallPane .call-row Input, CallPane .call-row Select { width: 1fr; }
    CallPane .call-row Checkbox { width: auto; min-width: 9; }
    CallPane #call-buttons { height: auto; margin: 1 0; }
    CallPane #call-buttons Horizontal { height: auto; }
    CallPane #call-buttons Button { margin-right: 1; min-width: 10; }
    CallPane #call-output { height: auto; }
    """

    fields: list[Field]   # the attributes' types, for checkers
    last: dict[str, Any] | None   # {"via", "request", "text", "exit", "seconds", "arguments"}
    pending: tuple[str, str, str, str] | None   # (path, source, new source, diff)
    status: str
    output: RenderableType
    output_text: str

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._for = object()
        self._view = None
        self.fields = []
        self.last = None              # {"via", "request", "text", "exit", "seconds", "arguments"}
        self.pending = None           # (path, new source, diff) of an example not written yet
        self.armed: str | None = None  # "cli"/"mcp": a write confirmed by a second press
        self.status = ""
        self.output = Text("")
        self.output_text = ""          # `output` as plain text (what `text` shows)
        self._title = ""

    def compose(self) -> ComposeResult:
        yield Static(classes="pane-title")
        yield Vertical(id="call-form")
        with Vertical(id="call-buttons"):   # two rows: every button on screen at 80 columns
            with Horizontal():
                yield Button("Run CLI", id="call-cli")
                yield Button("Run MCP", id="call-mcp", variant="primary")
            with Horizontal():
                yield Button("Save as example", id="call-example")
                yield Button("Write example", id="call-write", variant="warning")
                yield Button("Add to replay", id="call-replay")
        yield Static(id="call-status")
        yield Static(id="call-output")

    # --- drawing -------------------------------------------------------------------------

    def show(self, view: View) -> None:
        self._view = view
        command = view.node if view.node is not None and not view.is_group else None
        if view.name != self._for:
            self._for = view.name
            self.last, self.pending, self.armed, self.status = None, None, None, ""
            self.output, self.output_text = Text(""), ""
            self._build_form(command)
        what = view.name or view.loaded.name
        title = heading(f"call {what}", "fill the form; Run CLI or Run MCP"
                        if command is not None else "select a command in the tree")
        self._title = title.plain
        self.query_one(".pane-title", Static).update(title)
        self._draw()
        self.stale = False

    def _build_form(self, command) -> None:
        form = self.query_one("#call-form", Vertical)
        form.remove_children()
        self.fields = form_fields(command) if command is not None else []
        rows = []
        for field in self.fields:
            widget = _widget(field)
            widget.tooltip = field.description or None
            rows.append(Horizontal(Label(field.label, classes="required" if field.required
                                         else ""), widget, classes="call-row"))
        if rows:
            form.mount(*rows)
        self.query_one("#call-buttons").display = command is not None

    def _draw(self) -> None:
        self.query_one("#call-status", Static).update(Text(self.status, style="dim"))
        self.query_one("#call-output", Static).update(self.output)
        lines = [f"field {f.label} {f.kind}"
                 + (f" default {f.default!r}" if f.default is not None else "")
                 + (f" choices {', '.join(map(str, f.choices))}" if f.choices else "")
                 for f in self.fields]
        self.text = "\n".join([self._title, *lines, self.status, self.output_text])

    # --- the form --------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """Raw values of the form: text, a bool, or None for a blank picker."""
        found: dict[str, Any] = {}
        for field in self.fields:
            widget: Any = self.query_one("#" + field_id(field.key))
            if isinstance(widget, Select):
                found[field.key] = None if widget.value is Select.BLANK else widget.value
            else:
                found[field.key] = widget.value     # an Input's text, a Checkbox's bool
        return found

    def focus_first(self) -> None:
        """Focus the form's first field (else Run MCP), so typing fills the form rather than
        filtering the tree."""
        target: Any = (self.query_one("#" + field_id(self.fields[0].key)) if self.fields
                       else self.query_one("#call-mcp", Button))
        if target.display and self.query_one("#call-buttons").display:
            target.focus()

    def set_value(self, key: str, value: Any) -> None:
        """Fill one field (tests, screenshots): text, a bool, or a choice."""
        widget: Any = self.query_one("#" + field_id(key))
        widget.value = value

    def arguments(self) -> dict[str, Any] | None:
        try:
            return arguments_from(self.fields, self.values())
        except ValueError as exc:
            self.status = f"cannot run: {exc}"
            self._draw()
            return None

    # --- running ---------------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {"call-cli": lambda: self.run("cli"), "call-mcp": lambda: self.run("mcp"),
                  "call-example": self.save_example, "call-write": self.write_example,
                  "call-replay": self.add_to_replay}.get(event.button.id or "")
        if action is not None:
            action()

    def run(self, via: str):
        """Run the form as the CLI (`--json`, piped) or over MCP; returns the worker, or None
        when the form is refused or a write waits for a second press."""
        view = self._view
        command = view.node if view is not None else None
        arguments = self.arguments()
        if command is None or arguments is None:
            return None
        if command.effects not in SAFE_EFFECTS and self.armed != via:
            self.armed = via
            self.status = (f"{' '.join(command.path)} is {command.effects}: press Run "
                           f"{via.upper()} again to run it (in a throwaway sandbox)")
            self._draw()
            return None
        self.armed = None
        return self.run_worker(self._run(view, command, arguments, via), group="call",
                               exclusive=True, exit_on_error=False)

    async def _run(self, view, command, arguments, via) -> None:
        bench = view.bench
        call: tuple[list[str] | None]
        kwargs: dict[str, Any]
        if via == "cli":
            argv = [*to_argv(command, arguments), "--json"]
            request = "$ " + example_line(command, arguments) + " --json"
            kwargs = {"environments": ["piped"]}
            call = (argv,)
        else:
            request = "tools/call " + json.dumps({"name": command.tool_name,
                                                  "arguments": arguments}, ensure_ascii=False)
            kwargs = {"arguments": arguments, "command": " ".join(command.path),
                      "environments": ["mcp"]}
            call = (None,)
        self.status = f"running over {via.upper()}\u2026"
        self._draw()
        started = time.time()
        [result] = await asyncio.to_thread(bench.run_environments, *call, **kwargs)
        text = result.stdout[:-1] if result.stdout.endswith("\n") else result.stdout
        if via == "mcp":   # a call a person made: Traffic shows it beside the clients' own
            bench.dev_server().observe({
                "at": started, "client": CALL_PANE_CLIENT, "session": None,
                "method": "tools/call", "tool": command.tool_name, "arguments": arguments,
                "result": text, "is_error": result.exit != 0, "seconds": result.seconds,
                "error": result.error})
        self.last = {"via": via, "request": request, "text": text, "exit": result.exit,
                     "seconds": result.seconds, "arguments": arguments,
                     "command": " ".join(command.path), "error": result.error,
                     "stderr": result.stderr}
        stable = bool(getattr(self.app, "stable", False))
        took = "timing hidden" if stable else f"{result.seconds * 1000:.0f} ms"
        self.status = f"{via.upper()}: exit {result.exit} \u00b7 {took}"
        self.output, self.output_text = _render(self.last)
        self._draw()

    # --- keeping the result ------------------------------------------------------------------

    def save_example(self) -> str | None:
        """Show the source edit that adds this call as an example; returns the diff."""
        view = self._view
        command = view.node if view is not None else None
        arguments = self.arguments()
        if command is None or arguments is None:
            return None
        path = view.bench.file
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            new, diff = add_example(source, command, example_line(command, arguments),
                                    os.path.basename(path))
        except (OSError, ValueError, SyntaxError) as exc:
            self.status = f"cannot add the example: {exc}"
            self._draw()
            return None
        self.pending = (path, source, new, diff)
        self.status = "the edit below is not written yet: press Write example to write it"
        self.output = Group(Text("proposed edit of " + os.path.basename(path), style="bold"),
                            Syntax(diff, "diff", theme="ansi_dark", background_color="default"))
        self.output_text = "proposed edit\n" + diff
        self._draw()
        return diff

    def write_example(self) -> bool:
        """Write the edit `save_example` showed (if the file has not changed since)."""
        if self.pending is None:
            self.status = "nothing to write: press Save as example first (it shows the diff)"
            self._draw()
            return False
        path, source, new, _diff = self.pending
        with open(path, encoding="utf-8") as handle:
            if handle.read() != source:
                self.pending = None
                self.status = "the file changed since the diff was shown; press Save as " \
                              "example again"
                self._draw()
                return False
        temporary = path + ".burgee-tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(new)
        os.replace(temporary, path)
        self.pending = None
        self.status = f"wrote the example to {os.path.basename(path)}; it reloads"
        self._draw()
        dashboard(self.app).action_reload()
        return True

    def add_to_replay(self) -> str | None:
        """Append the last result as a replay line (the recording's file, or
        `.burgee/traffic/<program>-calls.jsonl`); returns the path."""
        view = self._view
        if self.last is None or view is None or view.node is None:
            self.status = "run the call first (Run CLI or Run MCP)"
            self._draw()
            return None
        bench = view.bench
        recorder = bench.recorder or Recorder(os.path.join(
            traffic_folder(bench.file), f"{view.program.name}-calls.jsonl"))
        entry = replay_entry(view.node, self.last["arguments"], self.last["text"],
                             self.last["exit"] != 0, time.time())
        recorder.record(entry, view.program)
        self.status = f"added to {recorder.path}"
        self._draw()
        return recorder.path


def _widget(field):
    wid = field_id(field.key)
    if field.kind == "boolean":
        return Checkbox(value=bool(field.default), id=wid)
    if field.kind == "enum":
        options = [(str(choice), choice) for choice in field.choices]
        value = field.default if field.default in field.choices else Select.BLANK
        return Select(options, value=value, allow_blank=not field.required or value is
                      Select.BLANK, id=wid)
    placeholder = {"integer": "an integer", "number": "a number",
                   "array": f"{field.items} values, comma separated"}.get(field.kind, "text")
    default = field.default
    if isinstance(default, list):
        default = ", ".join(map(str, default))
    kind = {"integer": "integer", "number": "number"}.get(field.kind, "text")
    return Input(value="" if default is None else str(default), placeholder=placeholder,
                 type=kind, id=wid)


def _render(last: dict[str, Any]) -> tuple[Group, str]:
    parts: list[Text | Syntax] = [Text("request", style="bold"),
                                  Text(last["request"] + "\n"), Text("response", style="bold")]
    try:
        parts.append(Syntax(json.dumps(json.loads(last["text"]), indent=2, ensure_ascii=False),
                            "json", theme="ansi_dark", background_color="default",
                            word_wrap=True))
    except ValueError:
        parts.append(Text(last["text"] or "(nothing on stdout)"))
    if last.get("stderr"):
        parts.append(Text("stderr: " + last["stderr"].rstrip(), style="red"))
    if last.get("error"):
        parts.append(Text(last["error"], style="yellow"))
    plain = "\n".join(["request", last["request"], "response", last["text"],
                       last.get("stderr") or "", last.get("error") or ""])
    return Group(*parts), plain
