"""Data flows one way: the `[tool.importlinter]` layers contracts in pyproject.toml hold, and bite.

The contracts: the package's layers, the layers inside `workbench.dev` (docs/architecture.md
draws them) and its dashboard, and the idempotency stores inside `workbench.runtime`. The
tests run the real `lint-imports` console script from this interpreter's environment.
"""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, clean_env

LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([LINT_IMPORTS, "--no-cache", "--no-logo", str(cwd / "pyproject.toml")],
                          cwd=cwd, env=clean_env(PYTHONPATH=str(cwd)), capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_every_import_points_down_the_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_workbench_contract_refuses_an_import_back_up(tmp_path):
    """A copy where the records (the bottom of `workbench.dev`) import the engine."""
    shutil.copytree(ROOT / "workbench", tmp_path / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    records = tmp_path / "workbench" / "dev" / "records.py"
    records.write_text(records.read_text() + "\n\ndef _upward():\n"
                       "    from workbench.dev import engine\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "workbench.dev.records is not allowed to import workbench.dev.engine" in result.stdout


LAZY = {"mcp", "mcp_types", "anyio", "uvicorn", "watchfiles", "tiktoken", "bpe_openai",
        "cairosvg", "ctypes", "workbench.mcp", "workbench.check"}
"""What a function inside `workbench.dev` may import where it is used rather than at the top:
the MCP SDK (and `workbench.mcp`, which imports it), the HTTP server, the file watcher, the
tokenizers, an optional PNG converter, libffi (Linux-only tricks of the load check), and the
contract checker (`import workbench.check` is ~40 ms: its call generator and runner), loaded
when a check runs or its report is drawn."""

ENTRY_POINTS = {"__init__.py", "dashboard/__init__.py", "_check.py"}
"""Where every import may be local: `import workbench.dev` and its dashboard package must
load no room before one is used (tests/test_dev_imports.py), and the load check imports what
a load needs after it turned the garbage collector off."""


def test_workbench_modules_import_at_the_top_but_what_is_heavy():
    """A function-local import used to stand in for an import loop; the layers above forbid the
    loop, and this keeps local imports to the heavy ones (docs/architecture.md)."""
    found = []
    for path in sorted((ROOT / "workbench" / "dev").rglob("*.py")):
        relative = path.relative_to(ROOT / "workbench" / "dev").as_posix()
        if relative in ENTRY_POINTS:
            continue
        for node in _local_imports(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) else \
                [alias.name for alias in node.names]
            for name in names:
                if not any(name == lazy or name.startswith(lazy + ".") for lazy in LAZY):
                    found.append(f"{relative}:{node.lineno}: {name}")
    assert found == []


def _local_imports(tree):
    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            yield from visit(child, inside or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    return list(visit(tree, False))
