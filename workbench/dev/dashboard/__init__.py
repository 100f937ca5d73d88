"""The `burgee dev` dashboard: a Textual app that draws the engine's state (it computes nothing).

Textual is imported only inside this package's functions and modules, never on the plain CLI
path. Entry points:

    run_dashboard(file, *, port=None, program_name=None, run_writes=False, record=False) -> int
        the interactive `burgee dev FILE` (serves MCP, reloads on save, `q` quits)
    write_svg(file, path, *, program_name=None, tab="help", size=(120, 36)) -> str
        an SVG of the dashboard for FILE, deterministic (no port, no timings), for
        `--headless` and the screenshots script
"""

from __future__ import annotations

import asyncio
import os

__all__ = ["run_dashboard", "write_svg", "render_svg", "svg_path_for_snapshots"]


def run_dashboard(file: str, *, port: int | None = None, program_name: str | None = None,
                  run_writes: bool = False, record: bool = False,
                  policy=None) -> int:
    """Open the dashboard on FILE in this terminal until `q`; returns the exit code.
    `record`: record MCP calls from the start (as `R` does)."""
    from workbench.dev.dashboard.app import DashboardApp   # Textual: only once drawn
    from workbench.dev.engine import Workbench
    bench = Workbench(file, program_name=program_name, run_writes=run_writes, policy=policy)
    app = DashboardApp(bench, port=port, record=record, auto_check=True)
    try:
        result = app.run()
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


async def render_svg(file: str, *, program_name: str | None = None, tab: str = "help",
                     command: str | None = None, size: tuple = (120, 36),
                     title: str | None = None, bench=None) -> str:
    """The dashboard for FILE as SVG text, in the stable form (masked URL, no timings).
    `bench`: a Workbench that already loaded FILE (drawn without loading it again)."""
    from workbench.dev.dashboard.shots import Shot, capture   # Textual: only once drawn
    return await capture(file, Shot("view", tab, command), program_name=program_name,
                         size=size, title=title, bench=bench)


def write_svg(file: str, path: str, *, program_name: str | None = None, tab: str = "help",
              command: str | None = None, size: tuple = (120, 36), bench=None) -> str:
    """Write `render_svg(...)` to `path` (folders made as needed); returns the path."""
    svg = asyncio.run(render_svg(file, program_name=program_name, tab=tab, command=command,
                                 size=size, bench=bench))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(svg)
    return path


def svg_path_for_snapshots(folder: str) -> str:
    """Where `--headless` puts the dashboard SVG: beside the program's snapshot folder
    (`.burgee/snapshots/tool.dashboard.svg`), so it never counts as snapshot drift."""
    folder = os.path.abspath(folder)
    return os.path.join(os.path.dirname(folder), os.path.basename(folder) + ".dashboard.svg")
