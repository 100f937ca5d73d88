"""Every benchmark in benchmarks/ runs as written: `--help` prints its usage and runs nothing,
and `--smoke` runs the whole benchmark once in a tiny configuration and prints its report.

Real processes, as a person runs them. No timing is asserted: the figures of a smoke run
mean nothing; what is checked is that the benchmark gets to its table and that neither
`--help` nor `--smoke --write` touches docs/performance.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import AGENT_VARIABLES

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")
                    if not p.name.startswith("_"))
DOC = ROOT / "docs" / "performance.md"
REPORT = {"change_review.py": "commands, median of"}   # the one that prints a line, no table

pytestmark = pytest.mark.slow
WHEEL_SMOKE = "scale.py"
"""The one benchmark whose smoke run builds its throwaway wheel venv (30-50 s); the others that
can re-run from a wheel get `--in-place`, since the re-run is one shared helper
(`_bench.in_wheel_venv`)."""
SMOKE_BOUND = 900
"""Seconds a smoke run may take before it counts as stuck. Not a speed check: a smoke run is
mostly interpreter and MCP SDK start-ups, ~15 s alone for the longest and more than 120 s
under the load of a full suite on a shared 2-core machine (call_process.py: 88-127 s in
nine runs, three at once, load 8-9); each benchmark bounds its own waits for a server."""


def _run(name: str, *args: str, timeout: float = 120,
         tmp: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=timeout)


def test_every_benchmark_is_covered():
    assert len(BENCHMARKS) >= 13 and "dashboard.py" in BENCHMARKS and "reload.py" in BENCHMARKS


@pytest.mark.parametrize("name", BENCHMARKS)
def test_help_prints_usage_and_runs_nothing(name):
    before = DOC.read_bytes()
    done = _run(name, "--help", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ") and "--smoke" in done.stdout
    assert "|---" not in done.stdout and done.stderr == ""
    assert DOC.read_bytes() == before


@pytest.mark.parametrize("name", BENCHMARKS)
def test_smoke_runs_the_benchmark_once_and_never_writes_the_doc(name):
    """The smoke run ends with its table, writes no doc and leaves nothing in its temporary
    folder (one of its own, so no other test's files count; short, for socket paths): five
    benchmarks left a folder behind on every run."""
    if name == "scale_out.py":
        from _postgres import missing
        if missing():
            pytest.skip(f"scale_out.py needs PostgreSQL: {missing()}")
    before = DOC.read_bytes()
    usage = _run(name, "--help").stdout
    args = ["--smoke"] + (["--write"] if "--write" in usage else [])
    if "--in-place" in usage and name != WHEEL_SMOKE:
        args.append("--in-place")   # one wheel venv per suite is enough to keep that path true
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        os.chmod(tmp, 0o755)   # as /tmp is to others: the throwaway PostgreSQL runs as nobody
        done = _run(name, *args, timeout=SMOKE_BOUND, tmp=Path(tmp))
        left = sorted(os.listdir(tmp))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert left == []
    assert REPORT.get(name, "\n|---") in done.stdout, done.stdout[-2000:]
    commands = [line for line in done.stdout.splitlines() if line.startswith("- Command: `")]
    assert all(" --smoke" in line for line in commands), commands   # the command as run
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert DOC.read_bytes() == before
