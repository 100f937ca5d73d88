"""Data flows one way: the `[tool.importlinter]` layers contract in pyproject.toml holds, and bites.

Both tests run the real `lint-imports` console script from this interpreter's environment.
"""

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, clean_env

LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([LINT_IMPORTS, "--no-cache", "--no-logo", str(cwd / "pyproject.toml")],
                          cwd=cwd, env=clean_env(PYTHONPATH=str(cwd)), capture_output=True,
                          text=True, timeout=300)


def test_every_import_points_down_the_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_the_layers_contract_refuses_an_upward_import(tmp_path):
    """A copy of the package where the exit-code table (bottom layer) imports the CLI (top)."""
    shutil.copytree(ROOT / "workbench", tmp_path / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    exits = tmp_path / "workbench" / "declaration" / "exits.py"
    exits.write_text(exits.read_text() + "\n\ndef _upward():\n    import workbench.cli\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "workbench.declaration is not allowed to import workbench.cli" in result.stdout
    assert "workbench.declaration.exits -> workbench.cli" in result.stdout
