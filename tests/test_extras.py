"""Dependencies follow use: the core installs nothing else, and each extra is named when missing.

A fresh virtual environment gets `pip install -e .` (the core, no extra) and runs a declared
program there: help, a call, `--json`, the testing helper; `tool mcp`, `burgee dev` and
`BURGEE_VALIDATE=1` fail with the command that installs what they need.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib

import pytest

from conftest import PROGRAMS, ROOT, SAMPLES, clean_env
from workbench.runtime.extras import EXTRAS, missing

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower()
            for requirement in requirements}


def test_the_core_declares_no_dependency():
    assert PROJECT["dependencies"] == []


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_the_extras_table_matches_pyproject(extra):
    declared = _names(PROJECT["optional-dependencies"][extra])
    assert declared == {distribution for _, distribution in EXTRAS[extra]}


def test_the_test_extra_brings_everything_burgee_dev_needs():
    assert "burgee[dev,o200k,docs]" in PROJECT["optional-dependencies"]["test"]
    assert missing("dev") == [] and missing("mcp") == []


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """A fresh virtual environment holding burgee alone (`pip install -e .`, no extra)."""
    where = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True,
                   timeout=120)
    python = where / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                                "-q", "-e", str(ROOT)], capture_output=True, text=True,
                               timeout=600, env=clean_env())
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def _run(python, *args, env=None):
    return subprocess.run([str(python), *map(str, args)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL,
                          env=clean_env(PYTHONPATH="", **(env or {})), cwd=str(ROOT.parent))


def test_the_core_environment_holds_burgee_alone(core):
    listed = subprocess.run([sys.executable, "-m", "pip", "--python", str(core), "list",
                             "--format", "json"], capture_output=True, text=True, timeout=120)
    assert [item["name"] for item in json.loads(listed.stdout)] == ["burgee"]
    for module in ("mcp", "textual", "jsonschema", "anyio", "pydantic"):
        assert _run(core, "-c", f"import {module}").returncode == 1, module


def test_a_program_runs_on_the_core_alone(core):
    deploy = SAMPLES / "deploy.py"
    helped = _run(core, deploy, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("tool 1.0.0"), helped.stderr
    called = _run(core, deploy, "deploy", "--target", "staging", "--yes")
    assert called.returncode == 0 and called.stdout == "deployed latest to staging\n"
    doc = json.loads(_run(core, deploy, "status", "--json").stdout)
    assert doc["ok"] is True and doc["data"]["target"] == "staging"
    assert _run(core, deploy, "completion", "bash").returncode == 0
    assert json.loads(_run(core, deploy, "mcp", "config", "--client", "cursor", "--json")
                      .stdout)["ok"] is True


def test_the_testing_helper_runs_on_the_core_alone(core):
    code = textwrap.dedent(f"""
        from workbench.loader import load_program
        from workbench.testing import Runner
        runner = Runner(load_program({str(SAMPLES / 'deploy.py')!r}))
        print(runner.invoke("status --json").exit, runner.call("status", {{}}).exit)
    """)
    done = _run(core, "-c", code)
    assert done.stdout == "0 0\n", done.stderr


def test_mcp_without_its_extra_names_the_install_command(core):
    done = _run(core, SAMPLES / "deploy.py", "mcp", "--json")
    assert done.returncode == 7, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_extra" and error["exit"] == 7
    # burgee is installed editable from this checkout, which is on no index: the command names
    # the folder, and this venv's interpreter (the venv is not the active one here)
    command = f"{core} -m pip install -e '{ROOT}[mcp]'"
    assert error["message"] == ("'tool mcp' needs the mcp extra (missing: mcp, jsonschema): "
                                + command)
    assert str(core) in error["hint"]
    person = _run(core, SAMPLES / "deploy.py", "mcp", "--http", "127.0.0.1:0")
    assert person.returncode == 7 and person.stdout == ""
    assert command in person.stderr and "Traceback" not in person.stderr

    served = _run(core, "-m", "workbench.cli", "mcp", SAMPLES / "deploy.py", "--json")
    assert served.returncode == 7 and json.loads(served.stdout)["error"]["code"] == "missing_extra"


def test_burgee_dev_without_its_extra_names_the_install_command(core):
    done = _run(core, "-m", "workbench.cli", "dev", "--json")
    assert done.returncode == 7, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["message"].startswith("burgee dev needs the dev extra (missing: mcp, ")
    command = f"-m pip install -e '{ROOT}[dev]'"
    assert error["message"].endswith(command)
    person = _run(core, "-m", "workbench.cli", "dev", SAMPLES / "notes.py", "--headless")
    assert person.returncode == 7 and command in person.stderr
    watch = _run(core, "-m", "workbench.cli", "mcp", SAMPLES / "notes.py", "--watch")
    assert watch.returncode == 7 and command in watch.stderr
    assert "Traceback" not in done.stderr + person.stderr + watch.stderr


def test_output_validation_without_jsonschema_names_its_extra(core, tmp_path):
    done = _run(core, SAMPLES / "notes.py", "list", "--json",
                env={"BURGEE_VALIDATE": "1", "NOTES_FILE": tmp_path / "n.json"})
    assert done.returncode == 7, done.stdout + done.stderr
    assert json.loads(done.stdout)["error"]["message"].endswith(f"-e '{ROOT}[validate]'")
    plain = _run(core, SAMPLES / "notes.py", "list", "--json", env={"NOTES_FILE": tmp_path / "n.json"})
    assert plain.returncode == 0


def test_jq_without_its_extra_names_the_install_command_and_runs_nothing(core, tmp_path):
    done = _run(core, SAMPLES / "notes.py", "add", "x", "--jq", ".", "--json",
                env={"NOTES_FILE": tmp_path / "n.json"})
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 7 and error["code"] == "missing_extra"
    assert error["message"].startswith("--jq needs the jq extra (missing: jq)")
    assert error["message"].endswith(f"-e '{ROOT}[jq]'")
    assert not (tmp_path / "n.json").exists()   # checked before the handler ran


def test_colour_without_rich_is_plain_text(core):
    done = _run(core, PROGRAMS / "shelf.py", "book", "--fields", "titel",
                env={"FORCE_COLOR": "1"})
    assert done.returncode == 2 and done.stderr.startswith("error: unknown field: titel")


def test_a_command_names_a_script_bare_only_when_the_shell_would_run_this_environments(monkeypatch):
    """With this venv's bin folder first on PATH (activated) the bare names work; without it
    the printed commands name this interpreter and its scripts by path."""
    from workbench.runtime.extras import install_command, pip_command, script
    own = os.path.dirname(sys.executable)
    monkeypatch.setenv("PATH", own + os.pathsep + "/usr/bin:/bin")
    assert script("pytest") == "pytest" and pip_command() == "pip"
    assert install_command("mcp") == f"pip install -e '{ROOT}[mcp]'"
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert script("pytest") == os.path.join(own, "pytest")
    assert pip_command() == f"{sys.executable} -m pip"
    assert script("no-such-script") == "no-such-script"
