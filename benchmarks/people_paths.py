"""Cold start of a person's, a pipe's and an agent's paths, this tree against another commit.

Each case runs `sample_programs/notes.py` in a fresh interpreter; the person cases on a real
pseudo-terminal 80 columns wide (colour on unless NO_COLOR), the others piped. The two trees
are picked with PYTHONPATH (the same interpreter, bytecode compiled in both) and run
interleaved, case by case, so load falls on both alike. The figure is the child's CPU time
(user + system, from `wait4`), which a loaded machine disturbs far less than wall time.

    .venv/bin/python benchmarks/people_paths.py                 # against main
    .venv/bin/python benchmarks/people_paths.py --base e014c35 --rounds 30
    .venv/bin/python benchmarks/people_paths.py --smoke      # seconds: check that it runs
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from _bench import add_smoke, parse  # noqa: E402

CASES = (
    # (name, on a terminal, argv after notes.py, environment)
    ("person --help, coloured", True, ["--help"], {}),
    ("person --help, NO_COLOR=1", True, ["--help"], {"NO_COLOR": "1"}),
    ("person add --help, coloured", True, ["add", "--help"], {}),
    ("person usage error, coloured", True, ["add", "--tga", "x", "y"], {}),
    ("piped list", False, ["list"], {}),
    ("agent list --json (AI_AGENT=x)", False, ["list", "--json"], {"AI_AGENT": "x"}),
    ("piped --help", False, ["--help"], {}),
)
_DROPPED = ("AI_AGENT", "CLAUDECODE", "CURSOR_AGENT", "CODEX_THREAD_ID", "GEMINI_CLI", "CI",
            "COLUMNS", "NO_COLOR", "FORCE_COLOR", "FORCE_TTY")


def _environ(tree: str, extra: dict, store: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(extra, PYTHONPATH=tree, NOTES_FILE=store)
    return env


def _on_terminal(argv: list, env: dict) -> float:
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.execve(argv[0], argv, env)
    while True:
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
    _, _, usage = os.wait4(pid, 0)
    os.close(fd)
    return usage.ru_utime + usage.ru_stime


def _piped(argv: list, env: dict) -> float:
    child = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    child.stdout.read()
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    child.stdout.close()
    return usage.ru_utime + usage.ru_stime


def measure(trees: dict, rounds: int, warmup: int = 2) -> dict:
    """{(case, tree label): [CPU seconds]} over `rounds` interleaved rounds."""
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", f"{tree}/workbench",
                        f"{tree}/sample_programs"], check=True)
    times: dict = {(case[0], label): [] for case in CASES for label in trees}
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "notes.json")
        for index in range(warmup + rounds):
            for name, terminal, argv, extra in CASES:
                for label, tree in trees.items():
                    command = [sys.executable, "-X", "frozen_modules=on",
                               f"{tree}/sample_programs/notes.py", *argv]
                    took = (_on_terminal if terminal else _piped)(
                        command, _environ(tree, extra, store))
                    if index >= warmup:
                        times[(name, label)].append(took)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="main", help="the commit to compare against")
    parser.add_argument("--rounds", type=int, default=30, help="timed rounds (default 30)")
    add_smoke(parser, rounds=1)
    args = parse(parser, argv)
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.base], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        trees = {args.base: folder, "this tree": ROOT}
        times = measure(trees, args.rounds, warmup=0 if args.smoke else 2)
    print(f"CPU time (user + system) of the child, median of {args.rounds} interleaved rounds; "
          f"`python {' '.join(['benchmarks/people_paths.py', *(argv or sys.argv[1:])])}`\n")
    print(f"| case | {args.base} | this tree | ratio |\n|---|---:|---:|---:|")
    for name, *_ in CASES:
        base, ours = (statistics.median(times[(name, label)]) * 1000 for label in trees)
        print(f"| {name} | {base:.1f} ms | {ours:.1f} ms | {ours / base:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
