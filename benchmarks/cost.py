"""Session cost: how long recomputing it takes after a reload, and the figures for docs/tokens.md.

1. Time. A generated 200-command program (benchmarks/reload.py's) is rendered and counted as
   the engine does on a reload; then one command's description is edited and the cost model
   recomputed from the new surfaces and token table (`cost.model(..., table=...)`, what
   `Workbench.build_state` runs). Medians over `--runs` rounds; each round starts from the
   unedited program's model, so every timed recompute is a real edit.
2. Figures. Sessions per path and shape, cl100k and o200k, for the bundled samples and the
   200-command program; `--figures` prints them as the Markdown tables of docs/tokens.md.

    .venv/bin/python benchmarks/cost.py --runs 20            # print the timing
    .venv/bin/python benchmarks/cost.py --runs 20 --write    # and update docs/performance.md
    .venv/bin/python benchmarks/cost.py --figures            # the tables of docs/tokens.md
    .venv/bin/python benchmarks/cost.py --smoke              # seconds: check that it runs

No test depends on these timings.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
from _bench import add_smoke, command_line, parse, replace_section  # noqa: E402

SECTION = "## Session cost"
SAMPLES = ("deploy.py", "notes.py", "warehouse.py", "click_app.py", "typer_app.py",
           "argparse_app.py")


def _program(source: str):
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["program"]


def measure(runs: int) -> dict:
    from reload import generated_program

    from workbench.dev import cost, snapshot, tokens
    base = _program(generated_program(200))
    budgets = tokens.budgets_for(base)
    surfaces = snapshot.render(base)
    table = tokens.token_table(surfaces, budgets)
    cost.model(base, surfaces, table=table)          # warm: encodings, caches
    timings = []
    for run in range(runs):
        edited = _program(generated_program(200, marker=f" (edit {run})"))
        new_surfaces = snapshot.render(edited)
        new_table = tokens.token_table(new_surfaces, budgets, table)
        started = time.perf_counter()
        cost.model(edited, new_surfaces, table=new_table)
        timings.append(time.perf_counter() - started)
        cost.model(base, surfaces, table=table)      # back to the unedited program
    return {"commands": 200, "runs": runs, "median": statistics.median(timings),
            "max": max(timings)}


def figures() -> str:
    from reload import generated_program

    from workbench.dev import cost, snapshot
    from workbench.loader import load_program
    programs = [(name, load_program(os.path.join(ROOT, "sample_programs", name)))
                for name in SAMPLES]
    programs.append(("generated, 200 commands", _program(generated_program(200))))
    lines = []
    for encoding in ("cl100k", "o200k"):
        lines += [f"#### {encoding}", "",
                  "| program | commands | path | short | typical | long | MCP cheaper from |",
                  "|---|---:|---|---:|---:|---:|---:|"]
        for name, program in programs:
            found = cost.model(program, snapshot.render(program), encoding=encoding)
            table = found.table()
            for path in cost.PATHS:
                even = "" if path == "mcp" else (
                    f"{found.break_even(path)} command" + ("s" if found.break_even(path) > 1 else "")
                    if found.break_even(path) else "never")
                lines.append(f"| {name} | {found.commands} | {cost.TITLES[path]} | "
                             + " | ".join(f"{table[shape][path]:,}" for shape in cost.SHAPES)
                             + f" | {even} |")
        lines.append("")
    return "\n".join(lines)


def render_section(result: dict) -> str:
    machine = (f"{os.cpu_count()} CPUs, {platform.machine()}, Linux {platform.release()}, "
               f"CPython {platform.python_version()}")
    verdict = "**met**" if result["median"] < 0.05 else "**not met**"
    return "\n".join([
        SECTION, "",
        "Recomputing the session cost model (docs/tokens.md) after a reload of a generated "
        "200-command program in which one command's description was edited: from the new "
        "surfaces and token table to the four paths' parts, as `Workbench.build_state` does "
        "it. Measured by `benchmarks/cost.py`.", "",
        f"- Command: `{command_line()}`",
        f"- Machine: {machine}",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
        "| program | runs | recompute median | max |", "|---|---:|---:|---:|",
        f"| {result['commands']} commands, one edited | {result['runs']} | "
        f"{result['median'] * 1000:.1f} ms | {result['max'] * 1000:.1f} ms |", "",
        f"Target (issue 17): under 50 ms incremental: {verdict}. Surface texts reuse the "
        "Tokens table's counts; command lines and MCP arguments are cached by the command's "
        "card; the three `help search` calls it measures run again (the edit can change any "
        "ranking), on a search index cached by text. Rendering the surfaces themselves is in "
        "the Reload section above.", ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    parser.add_argument("--figures", action="store_true", help="print docs/tokens.md's tables")
    add_smoke(parser, runs=1)
    options = parse(parser)
    if options.figures:
        print(figures())
        return 0
    text = render_section(measure(options.runs))
    print(text)
    if options.write:
        replace_section(SECTION, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
