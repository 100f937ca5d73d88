"""`burgee dev FILE` as a real terminal program under tmux: it opens, reloads on an edit, and
quits with `q` (exit 0). Skipped where tmux is not installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid

import pytest

from _dashboard_helpers import ROOT, copy_sample
from conftest import save, wait_until

URL = re.compile(r"MCP http://127\.0\.0\.1:\d+/mcp")

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
              pytest.mark.slow]


def wait_for(check, what: str, show):
    """`wait_until`, 30 s at most, showing the screen `show()` if it fails."""
    return wait_until(check, lambda: f"{what}; the screen:\n{show()}", 30, every=0.1)


def _start(tmp_path, width, height):
    """`burgee dev` on a copy of deploy.py in a detached tmux session of that size; returns
    (file, the file its exit code lands in, the tmux command prefix, a screen reader)."""
    file = copy_sample(tmp_path, "deploy.py")
    rc = tmp_path / "rc"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1",
           "TERM": "xterm-256color"}
    command = (f"{sys.executable} -m workbench.cli dev {file.name}; "
               f"echo $? > {rc}; sleep 30")
    tmux = ["tmux", "-L", f"burgee-test-{uuid.uuid4().hex[:8]}"]
    subprocess.run(tmux + ["new-session", "-d", "-s", "dash", "-x", str(width), "-y", str(height),
                           "-c", str(tmp_path), command], check=True, env=env)

    def screen():
        return subprocess.run(tmux + ["capture-pane", "-p", "-t", "dash"],
                              capture_output=True, text=True).stdout
    return file, rc, tmux, screen


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_dashboard_runs_in_a_real_terminal(tmp_path, size):
    width, height = size
    file, rc, tmux, screen = _start(tmp_path, width, height)
    try:
        wait_for(lambda: "rollback" in screen() and URL.search(screen()),
                 what="the dashboard to open and serve", show=screen)
        lines = screen().splitlines()
        assert len(lines) == height and max(len(line) for line in lines) <= width
        assert "burgee dev tool" in lines[0] and URL.search(lines[1]), lines[:3]
        tabs = ("Envs", "Problems") if width < 110 else ("Environments", "Problems")
        assert all(title in lines[2] for title in ("Help", *tabs, "Diff", "Traffic",
                                                   "Call")), lines[2]
        source = file.read_text()
        save(file, source.replace("    ],\n)", '        Command(name="ping", description="Check'
                                  '", effects="read_only", examples=["tool ping"],\n'
                                  '                run=lambda ctx: {}),\n    ],\n)'))
        wait_for(lambda: "ping" in screen() and "+1 command" in screen(),
                 what="the reload to show", show=screen)
        subprocess.run(tmux + ["send-keys", "-t", "dash", "q"], check=True)
        code = wait_for(lambda: rc.exists() and rc.read_text().strip(), what="the quit", show=screen)
        assert code == "0", screen()

    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def test_ctrl_c_quits_a_real_terminal(tmp_path):
    file, rc, tmux, screen = _start(tmp_path, 80, 24)
    try:
        wait_for(lambda: "rollback" in screen() and "generation 1" in screen(),
                 what="the dashboard to open", show=screen)
        subprocess.run(tmux + ["send-keys", "-t", "dash", "C-c"], check=True)
        code = wait_for(lambda: rc.exists() and rc.read_text().strip(), what="the quit", show=screen)
        assert code == "0", screen()
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
