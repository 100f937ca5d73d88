"""Startup of adapted real programs: `burgee run PROG --help` against the original's `--help`.

Each corpus program of tests/test_corpus.py (sqlite-utils, black, httpie, flask,
`python -m json.tool`) is started `--runs` times both ways, alternating, in an empty working
directory; the table gives the medians and the ratio. `--write` puts it in docs/performance.md
under "Adapted programs".

    .venv/bin/python benchmarks/adapters.py --runs 15 --write
    .venv/bin/python benchmarks/adapters.py --smoke    # seconds: check that it runs
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import add_smoke, parse, replace_section  # noqa: E402

BIN = Path(sys.executable).parent
PROGRAMS = {   # name: (wrapper in tests/corpus, the original's argv)
    "sqlite-utils": ("sqlite_utils_cli", [str(BIN / "sqlite-utils")]),
    "black": ("black_cli", [str(BIN / "black")]),
    "http": ("httpie_cli", [str(BIN / "http")]),
    "flask": ("flask_cli", [str(BIN / "flask")]),
    "python -m json.tool": ("json_tool_cli", [sys.executable, "-m", "json.tool"]),
}
SECTION = "## Adapted programs"


def _once(argv, cwd, env) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


def measure(runs: int) -> list:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ROOT))
    rows = []
    with tempfile.TemporaryDirectory() as cwd:
        # httpie would fork a daemon fetching packages.httpie.io after every start
        Path(cwd, "httpie").mkdir()
        Path(cwd, "httpie", "config.json").write_text('{"disable_update_warnings": true}\n')
        env["HTTPIE_CONFIG_DIR"] = str(Path(cwd, "httpie"))
        for name, (wrapper, original) in PROGRAMS.items():
            ours = [sys.executable, "-m", "workbench.cli", "run", str(CORPUS / f"{wrapper}.py"),
                    "--help"]
            theirs = original + ["--help"]
            _once(ours, cwd, env), _once(theirs, cwd, env)   # warm the file cache
            a, b = [], []
            for _ in range(runs):
                a.append(_once(theirs, cwd, env))
                b.append(_once(ours, cwd, env))
            rows.append((name, statistics.median(a), statistics.median(b)))
    return rows


def table(rows, runs: int) -> str:
    lines = [f"| program | original `--help` | `burgee run PROG --help` | ratio |",
             "|---|---|---|---|"]
    for name, theirs, ours in rows:
        lines.append(f"| {name} | {theirs * 1000:.0f} ms | {ours * 1000:.0f} ms | "
                     f"{ours / theirs:.2f}x |")
    return "\n".join(lines) + f"\n\nMedians of {runs} runs each, alternating."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    add_smoke(parser, runs=1)
    args = parse(parser)
    text = table(measure(args.runs), args.runs)
    print(text)
    if args.write:
        body = (f"{SECTION}\n\nStartup of the corpus programs of `tests/test_corpus.py`, adapted "
                f"(`burgee run WRAPPER --help`, the wrapper importing the program's own object) "
                f"against the original's own `--help`. Made with:\n\n"
                f"```sh\n.venv/bin/python benchmarks/adapters.py --runs {args.runs} --write\n```"
                f"\n\n{text}\n")
        replace_section(SECTION, body)


if __name__ == "__main__":
    main()
