"""Startup of adapted real programs: `burgee run PROG --help` against the original's `--help`.

Each corpus program of tests/test_corpus.py (sqlite-utils, black, httpie, flask,
`python -m json.tool`) is started `--runs` times both ways, alternating, in an empty working
directory; the table gives the medians and the ratio. Both sides run under one interpreter:
a throwaway venv with burgee installed from a wheel (`--in-place`: this one), each
original as its own console script. `--write` puts it in docs/performance.md
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
from _bench import (add_in_place, add_smoke, in_wheel_venv, install, parse,  # noqa: E402
                    replace_section, source_bin, tree_path)

BIN = source_bin()
PROGRAMS = {   # name: (wrapper in tests/corpus, the original's argv): each original's own
    # console script, run by this interpreter (as burgee's side is) whatever its shebang
    "sqlite-utils": ("sqlite_utils_cli", [sys.executable, str(BIN / "sqlite-utils")]),
    "black": ("black_cli", [sys.executable, str(BIN / "black")]),
    "http": ("httpie_cli", [sys.executable, str(BIN / "http")]),
    "flask": ("flask_cli", [sys.executable, str(BIN / "flask")]),
    "python -m json.tool": ("json_tool_cli", [sys.executable, "-m", "json.tool"]),
}
SECTION = "## Adapted programs"


def _once(argv, cwd, env) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


def measure(runs: int) -> list:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **tree_path())
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
            for argv in (ours, theirs):   # warm the file cache; a failing start is no figure
                done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n"
                                     + done.stderr[-2000:])
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
    add_in_place(parser)
    add_smoke(parser, runs=1)
    args = parse(parser)
    if not args.in_place:
        raise SystemExit(in_wheel_venv(__file__, sys.argv[1:]))
    text = table(measure(args.runs), args.runs) + f"\n\nInstall: {install()}."
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
