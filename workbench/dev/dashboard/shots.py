"""Deterministic pictures of the dashboard: the main views, as SVG, for docs, tests and CI.

Each view opens the app on a program in the stable form (no port, no timings, no clock, no
server, no watcher), sets it up (a tab, a command, maybe a run or a broken save) and exports
Textual's own SVG screenshot. The same input gives the same bytes.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from textual.widgets import Input

from workbench.dev.dashboard.app import DashboardApp
from workbench.dev.engine import Workbench
from workbench.dev.records import TrafficEntry

SIZE = (120, 36)


@dataclass(frozen=True)
class Shot:
    name: str                  # file stem: screenshots/<name>.svg
    tab: str
    command: str | None = None
    setup: str | None = None   # "environments:<argv>", "diffs", "broken", "edited", "keys",
    #                            "traffic", "breaking", "call"
    caption: str = ""
    source: str | None = None  # a program's text shown instead of FILE (see COUNTS)


COUNTS = """from workbench import Command, Program

SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}},
          "required": ["count"]}

program = Program(name="counts", version="1.0.0", description="Counts things", commands=[
    Command(name="count", description="Count things", effects="read_only", output=SCHEMA,
            examples=["counts count"], run=lambda ctx: {"count": "three"}),
])
"""
"""A program whose handler returns data its output schema refuses (the schema-violation view)."""

TRAFFIC = (
    ("initialize", None, None, None),
    ("tools/list", None, None, None),
    ("tools/call", "deploy", {"target": "staging", "build": "2026.12.01-2", "yes": True},
     '{"ok":true,"data":{"target":"staging","build":"2026.12.01-2","agent":null},"meta":'
     '{"provenance":{"target":{"source":"flag","location":"--target"},"build":{"source":'
     '"flag","location":"--build"},"yes":{"source":"flag","location":"--yes"}},'
     '"schema_version":"1"}}'),
    ("tools/call", "status", {"target": "staging"},
     '{"ok":true,"data":{"target":"staging","build":"2026.11.30-1","healthy":true},"meta":'
     '{"provenance":{"target":{"source":"flag","location":"--target"}},"schema_version":"1"}}'),
)
"""(method, tool, arguments, result) of the requests the traffic view shows (a recorded
session of a client named claude-code, replayed so the picture is the same every time)."""


VIEWS = (
    Shot("overview", "help", None, None, "the program's --help, the command tree, the header"),
    Shot("card", "card", "deploy", None, "deploy --help --json"),
    Shot("schema", "schema", "deploy", None, "deploy's input schema"),
    Shot("mcp", "mcp", None, None, "tools/list as a client sees it, annotations as badges"),
    Shot("tokens", "tokens", None, None, "tokens, characters and budgets per surface"),
    Shot("environments", "environments", "deploy", "environments:deploy --target staging",
         "one call under a terminal, a pipe, four agents, CI and MCP"),
    Shot("diff", "diff", None, "diffs", "every example: CLI --json vs MCP"),
    Shot("problems", "problems", None, None, "the lint of the declaration, with fixes"),
    Shot("error", "help", "deploy", "broken", "a broken save: the last good program stays"),
    Shot("keys", "help", None, "keys", "the ? keys screen"),
    Shot("traffic", "traffic", None, "traffic", "a whole MCP request and response (enter on "
         "a Traffic row), sensitive values masked"),
    Shot("schema-violation", "problems", None, "diffs", "a handler's data that breaks its "
         "output schema: which field, what was expected", source=COUNTS),
    Shot("cost", "cost", None, "edited", "session cost per path, deltas after an edit"),
    Shot("call", "call", "deploy", "call", "the Call pane: a form from deploy's schema, run over "
         "MCP: the request, the whole response"),
    Shot("change-review", "problems", None, "breaking", "a save that renames --build and adds "
         "--region: the breaking change first, with the likely new name"),
)


async def capture(file: str, shot: Shot, *, program_name: str | None = None,
                  size: tuple = SIZE, title: str | None = None, bench=None) -> str:
    """The SVG of one view of the dashboard on FILE (never edited: "broken" edits a copy).
    `bench`: a Workbench that already loaded FILE, drawn as it is (not loaded again); only
    for views that edit nothing."""
    # Only the broken-save view edits the file, so only it works on a copy, in a fixed folder:
    # surfaces such as client configs hold the file's path, and their token counts (in the
    # header) would change with a random folder name.
    if shot.setup in ("broken", "edited", "breaking") or shot.source is not None:
        # The folder is shared by every process on the machine (two test runs, two headless
        # runs): one capture at a time, or one's clean-up deletes the other's copy.
        lock = await asyncio.to_thread(_lock, os.path.join(tempfile.gettempdir(),
                                                           "burgee-dashboard-shot.lock"))
        try:
            return await _capture(file, shot, program_name, size, title, shared=True)
        finally:
            lock.close()
    return await _capture(file, shot, program_name, size, title, shared=False, bench=bench)


def _lock(path: str):
    """An open file holding an exclusive lock on PATH (released when it is closed)."""
    handle = open(path, "a")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


async def _capture(file: str, shot: Shot, program_name: str | None, size: tuple,
                   title: str | None, *, shared: bool, bench=None) -> str:
    folder = None
    copy = os.path.abspath(file)
    if shared:
        folder = os.path.join(tempfile.gettempdir(), "burgee-dashboard-shot")
        os.makedirs(folder, exist_ok=True)
        if shot.source is not None:
            copy = os.path.join(folder, "counts.py")
            with open(copy, "w", encoding="utf-8") as handle:
                handle.write(shot.source)
        else:
            copy = os.path.join(folder, os.path.basename(file))
            shutil.copy(file, copy)
    try:
        bench = bench or Workbench(copy, program_name=program_name)
        app = DashboardApp(bench, serve=False, watch=False, auto_diffs=False, stable=True)
        app.animation_level = "none"
        async with app.run_test(size=size) as pilot:
            await app.ready()
            await pilot.pause()
            app.select_command(shot.command)
            await pilot.pause()
            app.show_tab(shot.tab)
            await pilot.pause()
            await _setup(app, pilot, shot, copy)
            await pilot.pause()
            shown = os.path.basename(copy if shot.source is not None else file)
            svg = app.export_screenshot(title=title or f"burgee dev {shown}")
            await app.shutdown()
        return preserve_spaces(svg)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def preserve_spaces(svg: str) -> str:
    """The SVG with `xml:space="preserve"` on its root, so converters (rsvg-convert,
    cairosvg, browsers) keep the terminal's runs of spaces instead of collapsing them."""
    if 'xml:space="preserve"' in svg[:400]:
        return svg
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


async def _setup(app, pilot, shot: Shot, copy: str) -> None:
    setup = shot.setup or ""
    if setup.startswith("environments:"):
        app.query_one("#env-input", Input).value = setup.split(":", 1)[1]
        worker = app.action_run_environments()
        if worker is not None:
            await worker.wait()
    elif setup == "diffs":
        worker = app.action_run_diffs()
        if worker is not None:
            await worker.wait()
    elif setup == "broken":
        with open(copy, "a", encoding="utf-8") as handle:
            handle.write("\n\ndef broken(:\n    pass\n")
        await app.bench.areload()
        await pilot.pause()
    elif setup == "edited":   # a longer description: the Cost pane shows what it costs
        with open(copy, encoding="utf-8") as handle:
            source = handle.read()
        with open(copy, "w", encoding="utf-8") as handle:
            handle.write(source.replace('description="Deploy a build"',
                                        'description="Deploy a build to a target, after a plan '
                                        'and a confirmation, and report what shipped"', 1))
        await app.bench.areload()
        await pilot.pause()
    elif setup == "breaking":   # --build renamed (breaking), --region added (additive)
        with open(copy, encoding="utf-8") as handle:
            source = handle.read()
        with open(copy, "w", encoding="utf-8") as handle:
            handle.write(source.replace(
                '"build": Option(type="string", default="latest", description="build to ship")',
                '"build_id": Option(type="string", default="latest", description="build to '
                'ship"), "region": Option(type="string", description="where to run")', 1))
        await app.bench.areload()
        await pilot.pause()
        app.show_tab("problems")
    elif setup == "call":       # fill deploy's form and run it over MCP (a write: two presses)
        pane = app.pane("call")
        pane.set_value("target", "staging")
        pane.set_value("yes", True)
        await pilot.pause()
        pane.run("mcp")
        worker = pane.run("mcp")
        if worker is not None:
            await worker.wait()
    elif setup == "keys":
        await pilot.press("question_mark")
    elif setup == "traffic":
        for at, (method, tool, arguments, result) in enumerate(TRAFFIC):
            app.bench.record_traffic(TrafficEntry(
                at=float(at), client="claude-code", session="3f2a", method=method, tool=tool,
                arguments=arguments, result=result, is_error=False, seconds=0.0))
        await pilot.pause()
        app.show_tab("traffic")
        await pilot.pause()
        app.pane("traffic").open_row(2)
    await pilot.pause()


def write_views(file: str, folder: str, *, names=None, png: bool = True) -> list:
    """Write `<folder>/<view>.svg` (and `.png` when a converter is there); returns paths."""
    os.makedirs(folder, exist_ok=True)
    written = []
    for shot in VIEWS:
        if names and shot.name not in names:
            continue
        svg = asyncio.run(capture(file, shot))
        path = os.path.join(folder, shot.name + ".svg")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(svg)
        written.append(path)
        if png:
            made = svg_to_png(svg, os.path.join(folder, shot.name + ".png"))
            if made:
                written.append(made)
    return written


def svg_to_png(svg: str, path: str, width: int = 1600) -> str | None:
    """PNG of a Textual SVG via cairosvg or rsvg-convert, with DejaVu Sans Mono for Fira Code
    (the SVG asks for Fira Code from the web; offline the grid drifts without a substitute).
    Returns the path, or None when neither converter is available."""
    svg = svg.replace("Fira Code", "DejaVu Sans Mono")
    try:
        import cairosvg  # type: ignore[import-not-found]  # optional: PNG pictures only
    except ImportError:
        cairosvg = None
    if cairosvg is not None:
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=path, output_width=width)
        return path
    converter = shutil.which("rsvg-convert")
    if converter is None:
        return None
    subprocess.run([converter, "-w", str(width), "-o", path], input=svg.encode("utf-8"),
                   check=True)
    return path
