"""The package builds as a user or an index would build it: `python -m build` from a clean copy
of the tree, with no warning from the build backend, and the wheel carries the license file and
the metadata the index shows (an SPDX license, classifiers, an author)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, clean_env

pytest.importorskip("build", reason="the test extra installs `build`")


@pytest.mark.slow
def test_python_m_build_makes_a_wheel_and_sdist_without_warnings(tmp_path):
    tree = tmp_path / "tree"
    # a copy without the venv, caches and earlier build output, as a fresh clone is
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", "build", "dist", "site", "_venv*"))
    env = clean_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # its only effect is a byte-compiling notice
    built = subprocess.run([sys.executable, "-m", "build", "-o", str(tmp_path / "out"), str(tree)],
                           env=env, capture_output=True, text=True, timeout=600,
                           stdin=subprocess.DEVNULL)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    log = (built.stdout + built.stderr).lower()
    warnings = [line for line in log.splitlines()
                if "warning" in line and "location 'file://" not in line]   # pip's local-index notice
    assert not warnings, "\n".join(warnings)
    wheel = next((tmp_path / "out").glob("burgee-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    text = metadata.decode()
    assert "License-Expression: MIT" in text
    assert "Classifier: Programming Language :: Python :: 3.11" in text
    assert "Author: The burgee developers" in text
    assert next((tmp_path / "out").glob("burgee-*.tar.gz"))
