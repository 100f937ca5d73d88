"""How long `burgee check` takes: on sample_programs/warehouse.py (the default budget, and 60
calls per command) and on a generated program of 200 commands (benchmarks/scale.py's, in 10
groups of 20, 4 options each and one example), with one checking process and with two.

Each case is a fresh `burgee check FILE --json` process, timed from spawn to exit (wall) with
its processes' CPU (user + system of the children); medians of `--runs`, the cases interleaved
round-robin so machine noise falls on all alike. In the same rounds, one fresh process running
one call of warehouse (`items list --limit 3 --json`) gives the price a checker that started a
process per call would pay per run; `per run` is the check's wall time over its runs.

    .venv/bin/python benchmarks/check.py                  # print the table
    .venv/bin/python benchmarks/check.py --runs 5 --write # and update docs/performance.md
    .venv/bin/python benchmarks/check.py --smoke          # seconds: check that it runs

The machine is shared: the default (3 runs) takes about two minutes on 2 cores. No test
depends on these timings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## burgee check"
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import add_smoke, command_line, parse, replace_section, scratch  # noqa: E402


def _timed(argv, env) -> tuple:
    """(wall seconds, CPU seconds of the children, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=1800)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    add_smoke(parser, runs=1)
    args = parse(parser)
    from scale import burgee_source
    folder = Path(scratch("burgee-bench-check-"))
    size = 20 if args.smoke else 200   # commands of the generated program
    big = folder / f"big{size}.py"
    big.write_text(burgee_source(size))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("CLAUDECODE", "CI", "AI_AGENT", "FORCE_TTY"):
        env.pop(name, None)
    burgee = [sys.executable, "-m", "workbench.cli", "check"]
    warehouse = ROOT / "sample_programs" / "warehouse.py"
    cases = {
        "warehouse.py (6 commands), 24 calls/command, 2 workers":
            burgee + [str(warehouse), "--json"],
        "warehouse.py, 24 calls/command, 1 worker":
            burgee + [str(warehouse), "--workers", "1", "--json"],
        "warehouse.py, 60 calls/command, 2 workers":
            burgee + [str(warehouse), "--calls", "60", "--json"],
        "warehouse.py, --run-writes, 2 workers":
            burgee + [str(warehouse), "--run-writes", "--json"],
        f"{size} commands, 24 calls/command, 2 workers": burgee + [str(big), "--json"],
        f"{size} commands, 24 calls/command, 1 worker":
            burgee + [str(big), "--workers", "1", "--json"],
    }
    if args.smoke:   # one case of each program, two calls a command
        cases = {case.replace("24 calls", "2 calls"): argv + ["--calls", "2"]
                 for case, argv in cases.items() if "1 worker" in case}
    one_call = [sys.executable, str(warehouse), "items", "list", "--limit", "3", "--json"]
    found = {case: [] for case in cases}
    single = []
    for _ in range(args.runs):
        for case, argv in cases.items():
            wall, cpu, out = _timed(argv, env)
            doc = json.loads(out)
            data = doc.get("data") or doc["error"]["report"]
            found[case].append((wall, cpu, data["calls"], data["runs"],
                                len(data["violations"])))
        for _ in range(5):
            single.append(_timed(one_call, env)[0])
    process = statistics.median(single)
    lines = ["| case | calls | runs | wall | CPU | per run | per run ÷ one fresh process |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    walls = {}
    for case, rows in found.items():
        wall = statistics.median(row[0] for row in rows)
        cpu = statistics.median(row[1] for row in rows)
        calls, runs, violations = rows[0][2], rows[0][3], rows[0][4]
        assert violations == 0, f"{case}: {violations} violations"
        walls[case] = wall
        lines.append(f"| {case} | {calls:,} | {runs:,} | {wall:.1f} s | {cpu:.1f} s | "
                     f"{wall / runs * 1000:.1f} ms | {wall / runs / process:.2f}× |")
    sample = walls[next(iter(cases))]
    big = next(case for case in cases if case.startswith(f"{size} commands"))
    per_command = found[big][0][2] / size
    lines += ["", "Target (issue 28): the default suits CI, a sample program well under a "
              f"minute on 2 cores — **met**: warehouse.py in {sample:.1f} s with the default "
              "budget (every sample program is under 10 s, `tests/test_check.py` runs each). "
              f"The {size}-command program, {per_command:.0f} calls a command, takes "
              f"{walls[big]:.0f} s with {big.rsplit(', ', 1)[1]}: the cost is per command, about "
              f"{walls[big] / size:.1f} s each on 2 cores; `--calls` lowers it. More calls per "
              "command only add what the command has: most of warehouse's mutations are in "
              "the default 24."]
    load = os.getloadavg()[0]
    command = command_line()
    body = "\n".join([
        SECTION, "",
        "(issue 28) `burgee check FILE` from spawn to exit, every run a fork of a worker that "
        "loaded the "
        "program once (workbench/check/runner.py). One fresh process running one call of "
        f"warehouse (`items list --limit 3 --json`) took {process * 1000:.1f} ms (median) in "
        "the same rounds: the price per run of a checker that started a process for each.", "",
        f"- Command: `{command}`",
        f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()} "
        f"{platform.release()}, CPython {platform.python_version()}",
        f"- Runs: {args.runs} per case, medians; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"load average at the end {load:.1f} (shared machine: absolute times swell with it)",
        "", *lines, ""])
    print(body)
    if args.write:
        replace_section(SECTION, body)


if __name__ == "__main__":
    main()
