"""`burgee dev` stays off the plain CLI path, and importing `workbench.dev` stays light."""

import subprocess
import sys

HEAVY = {"mcp", "textual", "tiktoken", "watchfiles", "uvicorn", "starlette", "pydantic",
         "jsonschema", "anyio"}


def modules_after(code: str) -> set:
    done = subprocess.run([sys.executable, "-c", code + "; import sys; "
                           "print(' '.join(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


def test_the_plain_cli_path_never_imports_the_workbench():
    loaded = modules_after("import io, contextlib; from workbench.cli import program; "
                           "from workbench.runtime.pipeline import call; call(program, ['--help']); "
                           "call(program, ['dev', '--help', '--json'])")
    assert not {name for name in loaded if name.startswith("workbench.dev")}
    assert not {name.split(".")[0] for name in loaded} & HEAVY


def test_importing_workbench_dev_loads_nothing_heavy():
    loaded = modules_after("import workbench.dev; workbench.dev.main; workbench.dev.run_dev")
    assert not {name.split(".")[0] for name in loaded} & HEAVY
    assert "workbench.dev.engine" not in loaded
