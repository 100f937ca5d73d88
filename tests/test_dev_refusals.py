"""`burgee dev` refuses, with a fix and no serving, a FILE that does not exist and a busy --port
(real processes with no terminal, the form CI and agents start)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from _dashboard_helpers import ROOT, SAMPLES

ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")


def burgee(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV,
                          cwd=cwd, timeout=120)


def test_a_missing_file_is_refused_with_exit_3_and_nothing_served(tmp_path):
    done = burgee("dev", "missing.py", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "missing.py does not exist" in done.stderr and "serving" not in done.stderr
    assert "next: burgee dev" in done.stderr and "Traceback" not in done.stderr
    as_json = burgee("dev", "missing.py", "--json", cwd=tmp_path)
    error = json.loads(as_json.stdout)["error"]
    assert as_json.returncode == 3 and error["code"] == "file_not_found" and error["fix"]


@pytest.mark.slow
def test_a_busy_port_is_refused_with_exit_2_and_a_fix(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = burgee("dev", str(SAMPLES / "deploy.py"), "--port", str(port), "--json",
                      cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "port_in_use" and str(port) in error["message"]
    assert "--port 0" in error["fix"] and "--port 0" in error["hint"]
    assert "OSError" not in done.stderr and "Traceback" not in done.stderr
    assert "serving MCP" not in done.stderr


BROKEN = '''from workbench import Command, Program
program = Program(name="bad", version="1.0.0", description="Bad", commands=[
    Command(name="go", description="Go", run=lambda ctx: {}),
])
'''


def test_a_file_that_fails_to_load_is_refused_without_a_traceback(tmp_path):
    (tmp_path / "bad.py").write_text(BROKEN)
    as_json = burgee("run", "bad.py", "go", "--json", cwd=tmp_path)
    doc = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and as_json.stderr == ""
    # one set of load codes (workbench.loader.CODES): a DefinitionError is `definition`
    assert doc["ok"] is False and doc["error"]["code"] == "definition"
    assert "add effects=" in doc["error"]["message"] and "--debug" in doc["error"]["hint"]
    for argv in (("run", "bad.py", "go"), ("mcp", "bad.py")):
        plain = burgee(*argv, cwd=tmp_path)
        assert plain.returncode == 1 and plain.stdout == ""
        assert "add effects=" in plain.stderr and "Traceback" not in plain.stderr
    debug = burgee("run", "bad.py", "go", "--debug", cwd=tmp_path)
    assert "Traceback" in debug.stderr and debug.returncode == 1
    missing = burgee("run", "nothere.py", "go", "--json", cwd=tmp_path)
    assert missing.returncode == 3 and json.loads(missing.stdout)["error"]["code"] == "not_found"


def test_a_refused_example_is_a_definition_error_not_a_traceback(tmp_path):
    """Examples are parsed when FILE loads: one that does not parse is the same refusal
    (`definition`, the fix in the message) for `burgee run` and `burgee schema`."""
    (tmp_path / "ex.py").write_text(BROKEN.replace('run=lambda', 'effects="read_only", '
                                                   'examples=["bad go --nope"], run=lambda'))
    for argv in (("run", "ex.py", "go", "--json"), ("schema", "ex.py", "--json")):
        done = burgee(*argv, cwd=tmp_path)
        error = json.loads(done.stdout)["error"]
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert error["code"] == "definition" and "write it as 'bad go'" in error["message"]
