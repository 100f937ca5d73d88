"""Helpers for the dashboard tests: open the app on a file under Textual's headless pilot."""

from __future__ import annotations

import asyncio
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_programs"
SAMPLE_NAMES = ("deploy.py", "notes.py", "warehouse.py")
SIZE = (120, 36)


def copy_sample(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(SAMPLES / name, target)
    return target


@asynccontextmanager
async def dashboard(file, *, serve=False, watch=False, auto_diffs=False, stable=True,
                    size=SIZE):
    from workbench.dev.dashboard.app import DashboardApp
    from workbench.dev.engine import Workbench
    bench = Workbench(str(file))
    app = DashboardApp(bench, serve=serve, watch=watch, auto_diffs=auto_diffs, stable=stable)
    app.animation_level = "none"      # the pilot waits for animations; these tests need none
    async with app.run_test(size=size) as pilot:
        await app.ready()
        await pilot.pause()
        try:
            yield app, pilot
        finally:
            if app.is_running:
                await app.shutdown()


async def until(pilot, predicate, limit: float = 20.0, what="") -> None:
    """Pause the pilot until `predicate()` holds (a wait, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {(what() if callable(what) else what) or predicate}")
        await pilot.pause(0.05)


def generated_program(commands: int = 200) -> str:
    """A program with `commands` read-only commands in 20 groups."""
    per = commands // 20
    groups = []
    for g in range(20):
        items = "".join(
            f'        Command(name="cmd-{c}", description="Command {c} of group {g}", '
            f'effects="read_only", run=run, options={{"count": Option(type="integer", '
            f'default=1, description="how many")}}, examples=["big group-{g} cmd-{c}"]),\n'
            for c in range(per))
        groups.append(f'    Group(name="group-{g}", description="Group {g}", commands=[\n'
                      f'{items}    ]),\n')
    return ("from workbench import Command, Group, Option, Program\n\n"
            "def run(ctx):\n    return {}\n\n"
            'program = Program(name="big", version="1.0.0", description="Many commands", '
            "commands=[\n" + "".join(groups) + "])\n")
