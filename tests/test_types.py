"""Types (issue 35 item 6): `mypy workbench` finds nothing at its default strictness, and a
user's program on both APIs passes `mypy --strict` (tests/programs/strict_typed.py), with
burgee seen as an installed, typed package is (its own errors silent). mypy comes with
`.[test]`; these tests skip only where it is not installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import PROGRAMS

ROOT = PROGRAMS.parent.parent
STRICT_USER = PROGRAMS / "strict_typed.py"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (pip install -e '.[test]')")]


def _mypy(*args: str, cwd=ROOT, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--python-executable", sys.executable,
                           "--no-error-summary", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=env)


def test_mypy_finds_no_error_in_the_package(tmp_path):
    result = _mypy("--cache-dir", str(tmp_path / "cache"), "workbench")
    assert result.returncode == 0 and "error" not in result.stdout, result.stdout + result.stderr


def test_a_users_program_passes_mypy_strict(tmp_path):
    """The typed API's decorators keep the decorated function's type (they were untyped:
    `Untyped decorator makes function untyped` under --strict), and a `text=` lambda may
    index its data."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n\n[mypy-workbench.*]\nfollow_imports = silent\n")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    result = _mypy("--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
                   str(STRICT_USER), env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_strict_program_runs():
    result = subprocess.run([sys.executable, str(STRICT_USER), "hello", "--name", "Ada",
                             "--json"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0 and '"hello Ada!"' in result.stdout, result
