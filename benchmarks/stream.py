"""10,000 items as NDJSON: burgee's `--format ndjson` stream vs a bare `json.dumps` loop.

Both sides produce the same items from the same generator and write to /dev/null. Two
measurements, in one run, interleaved:

- process: `python prog.py export --format ndjson` vs `python baseline.py` (start-up included);
- in-process: the runtime's stream (`execute` into a file on /dev/null) vs the bare loop,
  which isolates the per-item cost.

    .venv/bin/python benchmarks/stream.py [--items 10000] [--runs 15] [--write]
    .venv/bin/python benchmarks/stream.py --smoke    # seconds: check that it runs
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from _bench import add_smoke, command_line, parse, replace_section, scratch  # noqa: E402

ITEMS_SOURCE = '''
def items(count):
    for n in range(count):
        yield {"id": n, "sku": f"SKU-{n:05d}", "name": f"item number {n}", "count": n % 97,
               "tags": ["a", "b"], "price": n * 0.25}
'''

PROGRAM = ITEMS_SOURCE + '''
from workbench import Command, Option, Program, run

def export(ctx):
    yield from items(ctx.options.count)

program = Program(name="bench", version="1", description="stream benchmark", commands=[
    Command(name="export", description="Stream items", effects="read_only",
            options={"count": Option(type="integer", default=10000, description="how many")},
            examples=["bench export --count 3"], run=export)])

if __name__ == "__main__":
    run(program)
'''

BASELINE = ITEMS_SOURCE + '''
import json, sys
count = int(sys.argv[1])
write = sys.stdout.write
for item in items(count):
    write(json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\\n")
'''


def _median_ms(samples):
    return statistics.median(samples) * 1000


def measure(items: int, runs: int):
    folder = scratch("burgee-stream-")
    program = os.path.join(folder, "prog.py")
    baseline = os.path.join(folder, "baseline.py")
    with open(program, "w") as handle:
        handle.write(PROGRAM)
    with open(baseline, "w") as handle:
        handle.write(BASELINE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    commands = {
        "burgee --format ndjson": [sys.executable, program, "export", "--count", str(items),
                                   "--format", "ndjson"],
        "bare json.dumps loop": [sys.executable, baseline, str(items)],
    }
    process = {name: [] for name in commands}
    for _ in range(2):
        for argv in commands.values():
            subprocess.run(argv, stdout=subprocess.PIPE, env=env, check=True)
    for _ in range(runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.PIPE, env=env, check=True)   # a reader on a pipe
            process[name].append(time.perf_counter() - start)

    sys.path.insert(0, folder)
    import importlib
    module = importlib.import_module("prog")
    from workbench.runtime.pipeline import World, execute
    import json
    inproc = {"burgee --format ndjson": [], "bare json.dumps loop": []}
    with open(os.devnull, "w") as sink:
        for _ in range(runs):
            start = time.perf_counter()
            execute(module.program, ["export", "--count", str(items), "--format", "ndjson"],
                    World({}, None, sink, sink))
            inproc["burgee --format ndjson"].append(time.perf_counter() - start)
            start = time.perf_counter()
            for item in module.items(items):
                sink.write(json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n")
            sink.flush()
            inproc["bare json.dumps loop"].append(time.perf_counter() - start)
    return process, inproc


def table(title, results):
    base = _median_ms(results["bare json.dumps loop"])
    lines = [f"{title}:", "", "| writer | median | × bare loop |", "|---|---:|---:|"]
    for name, samples in results.items():
        lines.append(f"| {name} | {_median_ms(samples):.1f} ms | {_median_ms(samples) / base:.2f}× |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    add_smoke(parser, items=100, runs=1)
    options = parse(parser)
    load_before = os.getloadavg()[0]
    process, inproc = measure(options.items, options.runs)
    load_after = os.getloadavg()[0]
    body = "\n".join([
        "## Streams", "",
        f"{options.items:,} items as NDJSON: burgee's `--format ndjson` (an `@meta` line, one "
        "line per item, an `@end` line; each line flushed, so a reader sees items as they "
        "come) vs a bare `json.dumps` loop over the same generator (block-buffered). The "
        "process measurement reads both through a pipe, as an agent would; the in-process one "
        "writes to /dev/null.",
        "",
        f"- Command: `{command_line()}`",
        f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, CPython "
        f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC",
        f"- Load: 1-minute load average {load_before:.1f} before and {load_after:.1f} after "
        "(a shared machine: compare the ratios, not the times)",
        "",
        table("Whole process, read through a pipe (start-up included)", process), "",
        table("In-process, to /dev/null (the stream alone)", inproc), "",
        "The process ratio counts one write per line (each line is flushed, so a reader sees "
        "every item as it comes) against a block-buffered loop: each write wakes the reader, "
        "which costs most on a loaded machine. The in-process ratio is the stream's own cost; "
        "capturing the handler's fds adds nothing either (see Cold start: `status --json` "
        "against `status`).", ""])
    print(body)
    if options.write:
        replace_section("## Streams", body)


if __name__ == "__main__":
    main()
