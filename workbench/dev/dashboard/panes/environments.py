"""Environments: one input run under every simulated environment, results side by side.

The input is argv after the program name (`deploy --target prod`) or, starting with `{`, the
MCP arguments of the selected command as JSON. Each environment runs in a worker thread (the
engine starts a subprocess with a time limit, in a throwaway sandbox); results arrive one by
one; `x` cancels. A read-only command runs in every environment at once; any other asks
first (`ConfirmWrites`, naming the effect), then runs once per environment, one after another;
a command with a plan runs as `--dry-run` unless the person chose to run it for real.
"""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar

from rich.text import Text
from textual.containers import Grid
from textual.widgets import Input, ProgressBar, Static

from workbench._text import join, split
from workbench.dev.dashboard._view import dashboard, heading
from workbench.dev.dashboard.confirm import ConfirmWrites
from workbench.dev.dashboard.panes._base import Pane
from workbench.dev.environments import DEFAULT_TIMEOUT, ENVIRONMENTS
from workbench.dev.inputs import dry_run_input, example_argv, target_command, writes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import RenderableType
    from textual.app import ComposeResult
    from textual.worker import Worker

    from workbench.dev.dashboard._view import View

HINT = ("enter (or e) runs it in every environment: argv after the program name, or JSON "
        "arguments {...} for the selected command; x cancels")


def cell_id(environment: str) -> str:
    return "env-" + environment.replace(":", "-")


def exit_style(code: int | None) -> str:
    if code == 0:
        return "green"
    if code == 4:
        return "yellow"
    return "red" if code is not None else "magenta"


def default_input(view) -> str:
    """The selected command's first example (after the program name), or its path."""
    if view.node is None or view.is_group:
        return ""
    for example in view.node.examples:
        try:
            return join(example_argv(view.program, example))
        except ValueError:
            continue
    return " ".join(view.node.path)


def placeholder(view) -> str:
    """The input's hint: the first example under the selection (any command's at the root),
    so a program is only ever shown its own commands."""
    prefix = list(view.node.path) if view.node is not None else []
    for command in view.state.commands():
        if list(command.path[:len(prefix)]) != prefix:
            continue
        for example in command.examples:
            try:
                line = join(example_argv(view.program, example))
            except ValueError:
                continue
            if view.node is not None and not view.is_group:
                return f"{line}   or   JSON arguments {{...}}"
            return f"{line}   (argv after the program name)"
    return "a command line after the program name"


def parse_input(view: View, text: str) -> dict[str, Any]:
    """kwargs for `Workbench.run_environments` from the input line; raises ValueError."""
    text = text.strip()
    if not text:
        raise ValueError("type a command line (after the program name) or JSON arguments")
    if text.startswith("{"):
        if view.node is None or view.is_group:
            raise ValueError("JSON arguments need a selected command")
        try:
            arguments = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise ValueError("JSON arguments must be an object")
        return {"argv": None, "arguments": arguments, "command": view.name}
    argv = split(text)
    if argv and view.program is not None and argv[0] == view.program.name:
        argv = argv[1:]
    return {"argv": argv}


def render_result(result, stable: bool = False) -> Text:
    body = Text()
    if result.arguments is not None:
        body.append("arguments " + json.dumps(result.arguments, ensure_ascii=False) + "\n",
                    style="dim")
    if result.stdout.strip():
        body.append_text(Text.from_ansi(result.stdout.rstrip()))
    if result.stderr.strip():
        if body.plain:
            body.append("\n")
        body.append("stderr: ", style="dim")
        body.append_text(Text.from_ansi(result.stderr.rstrip(), style="red"))
    if result.error:
        if body.plain:
            body.append("\n")
        body.append(result.error, style="yellow")
    if not body.plain:
        body.append("(no output)", style="dim")
    return body


def subtitle(result, stable: bool = False) -> str:
    exit_text = "timed out" if result.timed_out else (
        "no exit" if result.exit is None else f"exit {result.exit}")
    style = exit_style(None if result.timed_out else result.exit)
    took = "" if stable else f" \u00b7 {result.seconds:.2f} s"
    return f"[{style}]{exit_text}[/]{took}"


class EnvironmentsPane(Pane):
    DEFAULT_CSS: ClassVar[str] = """
    EnvironmentsPane #env-results { grid-size: 2; grid-gutter: 0 1; height: auto; }
    EnvironmentsPane .env-cell { height: auto; min-height: 4; border: round $primary 60%;
                                 padding: 0 1; }
    EnvironmentsPane #env-progress { margin: 1 0 0 0; }
    EnvironmentsPane .hint { color: $text-muted; }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.results: dict = {}
        self.status: str = "not run"
        self.timeout = DEFAULT_TIMEOUT
        self._for = object()
        self._view = None
        self.worker: Worker[Any] | None = None   # the last run's (None while a confirm is open)

    def compose(self) -> ComposeResult:
        yield Static(classes="pane-title")
        yield Input(id="env-input", placeholder="a command line after the program name")
        yield Static(HINT, classes="hint")
        yield ProgressBar(id="env-progress", total=len(ENVIRONMENTS), show_eta=False)
        yield Static(id="env-status")
        with Grid(id="env-results"):
            for name in ENVIRONMENTS:
                cell = Static(Text("not run", style="dim"), id=cell_id(name), classes="env-cell")
                cell.border_title = name
                yield cell

    def show(self, view: View) -> None:
        self._view = view
        if view.name != self._for:
            self._for = view.name
            field = self.query_one("#env-input", Input)
            field.value = default_input(view)
            field.placeholder = placeholder(view)
        title = heading(f"environments for {view.name or view.loaded.name}",
                        "terminal, pipe, agents, CI and MCP side by side")
        self.query_one(".pane-title", Static).update(title)
        self._title = title.plain
        self._show_status()
        self.stale = False

    def _show_status(self) -> None:
        self.query_one("#env-status", Static).update(Text(self.status, style="dim"))
        lines = [getattr(self, "_title", ""),
                 "input " + self.query_one("#env-input", Input).value,
                 f"status {self.status}"]
        for name, result in self.results.items():
            lines.append(f"{name} exit {result.exit} {render_result(result).plain}")
        self.text = "\n".join(lines)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "env-input":
            event.stop()
            self.run_input()

    def run_input(self, confirmed: str | None = None):
        """Run what the input says under every environment; returns the worker, or None when
        it could not start or waits for the person's confirmation (a write).

        `confirmed` is what the person chose for a write: "run" or "dry-run".
        """
        view = self._view or dashboard(self.app).view()
        try:
            request = parse_input(view, self.query_one("#env-input", Input).value)
        except ValueError as exc:
            self.status = f"cannot run: {exc}"
            self._show_status()
            return None
        command = target_command(view.program, request.get("argv"), request.get("command"))
        if command is not None and writes(command) and confirmed not in ("run", "dry-run"):
            self.worker = None
            self.status = (f"{' '.join(command.path)} is {command.effects}: "
                           "confirm to run it (y), or cancel (n)")
            self._show_status()
            self.app.push_screen(ConfirmWrites(command, _described(request), len(ENVIRONMENTS)),
                                 callback=self._on_confirm)
            return None
        if command is not None and command.plan is not None and confirmed != "run":
            request["argv"], request["arguments"] = dry_run_input(
                command, request.get("argv"), request.get("arguments"))
        self.worker = self.run_worker(self._run(view.bench, request, writes(command)),
                                      group="environments", exclusive=True,
                                      exit_on_error=False)
        return self.worker

    def _on_confirm(self, choice) -> None:
        if choice is None:
            self.status = "cancelled: nothing ran"
            self._show_status()
            return
        self.run_input(confirmed=choice)

    def cancel(self) -> bool:
        """Cancel a run in progress; True if there was one."""
        running = [w for w in self.workers if w.group == "environments" and w.is_running]
        for worker in running:
            worker.cancel()
        return bool(running)

    async def _run(self, bench, request, one_by_one: bool = False) -> list[Any]:
        stable = bool(getattr(self.app, "stable", False))
        progress = self.query_one("#env-progress", ProgressBar)
        progress.update(total=len(ENVIRONMENTS), progress=0)
        self.results = {}
        described = _described(request)
        for name in ENVIRONMENTS:
            cell = self.query_one("#" + cell_id(name), Static)
            cell.update(Text("running\u2026", style="dim"))
            cell.border_subtitle = ""
        self.status = (f"running {described!s} in {len(ENVIRONMENTS)} environments"
                       + (", one after another" if one_by_one else "") + "\u2026")
        self._show_status()

        async def one(name):
            found = await asyncio.to_thread(bench.run_environments, request.get("argv"),
                                            arguments=request.get("arguments"),
                                            command=request.get("command"),
                                            environments=[name], timeout=self.timeout)
            result = found[0]
            self.results[name] = result
            cell = self.query_one("#" + cell_id(name), Static)
            cell.update(render_result(result, stable))
            cell.border_subtitle = subtitle(result, stable)
            progress.advance(1)
            self._show_status()
            return result

        try:
            if one_by_one:     # a write: never two at once
                results = [await one(name) for name in ENVIRONMENTS]
            else:
                results = await asyncio.gather(*(one(name) for name in ENVIRONMENTS))
        except asyncio.CancelledError:
            for name in ENVIRONMENTS:
                if name not in self.results:
                    self.query_one("#" + cell_id(name), Static).update(
                        Text("cancelled (a call already started ends at its time limit)",
                             style="yellow"))
            self.status = f"cancelled after {len(self.results)} of {len(ENVIRONMENTS)}"
            self._show_status()
            raise
        self.status = f"done: {described}"
        self._show_status()
        return results


def _described(request) -> str:
    if request.get("arguments") is not None:
        return json.dumps(request["arguments"], ensure_ascii=False)
    return join(request["argv"])
