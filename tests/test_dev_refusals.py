"""`burgee dev` refuses, with a fix and no serving, a FILE that does not exist and a busy --port
(real processes with no terminal, the form CI and agents start)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

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
