"""What the live change review adds to a reload: `state.Reviews.review` (since the last load and
since the snapshot folder) against the whole `build_state`, on a generated program.

    .venv/bin/python benchmarks/change_review.py --commands 200 --runs 5
    .venv/bin/python benchmarks/change_review.py --smoke    # seconds: check that it runs
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from _bench import add_smoke, parse  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    add_smoke(parser, commands=20, runs=1)
    options = parse(parser)
    from _dashboard_helpers import generated_program

    from workbench.dev.engine import Workbench
    from workbench.dev.headless import check_snapshots
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, "big.py")
        with open(file, "w", encoding="utf-8") as handle:
            handle.write(generated_program(options.commands))
        check_snapshots(file, update=True)            # a snapshot folder to compare with
        bench = Workbench(file, load_timeout=None)
        state = bench.reload()
        reviews, builds = [], []
        for _ in range(options.runs):                 # interleaved, so the load hits both
            start = time.perf_counter()
            bench._reviews.review(bench.file, state.program, state.surfaces, True)
            reviews.append(time.perf_counter() - start)
            start = time.perf_counter()
            bench.build_state(state.program, state)
            builds.append(time.perf_counter() - start)
    review, build = sorted(reviews)[len(reviews) // 2], sorted(builds)[len(builds) // 2]
    print(f"{options.commands} commands, median of {options.runs}: reviews {review * 1000:.1f} "
          f"ms, build_state {build * 1000:.1f} ms (reviews included), share {review / build:.1%}")


if __name__ == "__main__":
    main()
