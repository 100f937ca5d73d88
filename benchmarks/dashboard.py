"""Dashboard responsiveness on a generated 200-command program, measured with Textual's pilot.

    .venv/bin/python benchmarks/dashboard.py            # print the table
    .venv/bin/python benchmarks/dashboard.py --write    # also replace "## Dashboard" in
                                                        # docs/performance.md
    .venv/bin/python benchmarks/dashboard.py --smoke    # seconds: check that it runs

Each figure is the wall time of one `pilot.press(...)` (the key, our handlers, and the screen
update the pilot waits for), headless at 120x36 with animations off, or of one save until the
tree shows the change. Medians and p90 over many presses.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from _bench import add_smoke, command_line, parse, replace_section, scratch  # noqa: E402

SECTION = "## Dashboard"


def clock() -> tuple:
    return time.perf_counter(), time.process_time()


def since(wall: float, cpu: float) -> tuple:
    """(wall seconds, CPU seconds) since `clock()` returned (wall, cpu)."""
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(rounds: int = 3, commands: int = 200, presses: int = 30) -> dict:
    from _dashboard_helpers import dashboard, generated_program

    from _bench import save
    folder = scratch("burgee-dash-bench-")
    file = os.path.join(folder, "big.py")
    with open(file, "w", encoding="utf-8") as handle:
        handle.write(generated_program(commands))
    from pathlib import Path
    labels = ("open", "unbound key (pilot baseline)", "filter key", "clear filter",
              "tree move (Help)", "tree move (Schema)", "tab switch", "save to tree")
    times = {label: [] for label in labels}
    for _ in range(rounds):
        t, c = clock()
        async with dashboard(file, watch=True) as (app, pilot):
            times["open"].append(since(t, c))
            for _ in range(10):
                t, c = clock()
                await pilot.press("f12")
                times["unbound key (pilot baseline)"].append(since(t, c))
            await pilot.press("slash")
            for key in "group-17 cmd-3":
                t, c = clock()
                await pilot.press(key)
                times["filter key"].append(since(t, c))
            t, c = clock()
            await pilot.press("escape", "escape")
            times["clear filter"].append(since(t, c))
            assert len(app.sidebar.shown) == commands + 20
            app.sidebar.tree_widget.focus()
            for tab, label in (("help", "tree move (Help)"), ("schema", "tree move (Schema)")):
                app.show_tab(tab)
                for _ in range(presses):
                    t, c = clock()
                    await pilot.press("down")
                    times[label].append(since(t, c))
            for _ in range(2):
                for number in range(1, 10):
                    t, c = clock()
                    await pilot.press(str(number))
                    times["tab switch"].append(since(t, c))
            source = Path(file).read_text()
            for i in range(3):
                marker = f"edit-{len(times['save to tree'])}"
                t, c = clock()
                save(Path(file), source.replace('description="Group 3"',
                                                f'description="Group 3 {marker}"'))
                while not (app.state.program and marker in
                           app.state.program.find(["group-3"]).description):
                    await pilot.pause(0.005)
                times["save to tree"].append(since(t, c))
            save(Path(file), source)
    return times


def ms(values) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def p90(values) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] * 1000:.0f} ms"


def render(times: dict) -> str:
    import textwrap

    import textual
    lines = [SECTION, "",
             "Responsiveness of the `burgee dev` dashboard on a generated program with 200 "
             "commands in 20 groups, measured with Textual's pilot (headless, 120x36, "
             "animations off). Each figure is the wall time of one key press as the pilot "
             "sees it: the key, the dashboard's handlers (tree rebuild, pane redraw) and the "
             "screen update; the unbound key shows what the pilot itself costs per press (mostly "
             "waiting for the next screen refresh). CPU is this process's CPU time over the "
             "same span (the dashboard and the pilot; the engine's subprocesses excluded). "
             "\"save to tree\" is an atomic save of the file until the "
             "dashboard holds the new state (the engine's reload, surfaces and token counts "
             "of 200 commands included).", "",
             f"- Command: `{command_line()}`",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, "
             f"{platform.system()} {platform.release()}, "
             f"{platform.python_implementation()} {platform.python_version()}, "
             f"Textual {textual.__version__}",
             f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             "| action | wall median | wall p90 | CPU median | samples |",
             "|---|---:|---:|---:|---:|"]
    for label, pairs in times.items():
        wall = [w for w, _ in pairs]
        cpu = [c for _, c in pairs]
        lines.append(f"| {label} | {ms(wall)} | {p90(wall)} | {ms(cpu)} | {len(pairs)} |")
    lines += ["", "The panes draw lazily: moving in the tree redraws only the visible pane; "
              "the others redraw when their tab is shown. Long calls (environments, diffs) "
              "run in workers and never block these figures.", ""]
    return "\n".join(textwrap.fill(line, 88) if not line.startswith(("|", "-", "#")) and line
                     else line for line in lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="dashboards opened (default 3)")
    parser.add_argument("--write", action="store_true",
                        help='replace the "## Dashboard" section of docs/performance.md')
    add_smoke(parser, rounds=1, commands=20, presses=2)
    options = parse(parser, argv)
    times = asyncio.run(measure(options.rounds, getattr(options, "commands", 200),
                                getattr(options, "presses", 30)))
    text = render(times)
    print(text)
    if options.write:
        replace_section(SECTION, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
