"""Snapshots of the dashboard's main views: the same program gives the same SVG bytes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from _dashboard_helpers import ROOT, SAMPLES, copy_sample

from workbench.dev.dashboard.shots import VIEWS, capture

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

STABLE_VIEWS = ("overview", "card", "tokens", "problems", "error", "keys", "traffic",
                "schema-violation")
PORT = re.compile(r"127\.0\.0\.1:\d")


@pytest.mark.parametrize("name", STABLE_VIEWS)
async def test_a_main_view_renders_the_same_svg_twice(name):
    shot = next(shot for shot in VIEWS if shot.name == name)
    first = await capture(str(SAMPLES / "deploy.py"), shot)
    second = await capture(str(SAMPLES / "deploy.py"), shot)
    assert first == second
    assert first.startswith('<svg xml:space="preserve" ')
    assert ("counts.py" if shot.source else "deploy.py") in first
    assert not PORT.search(first) and "burgee-dashboard-shot" not in first
    words = {"overview": "Usage:", "card": "--help&#160;--json", "tokens": "budget",
             "problems": "problems&#160;in", "error": "still&#160;being&#160;served",
             "keys": "burgee&#160;dev&#160;keys", "traffic": "request&#160;and&#160;response",
             "schema-violation": "invalid_output"}
    assert words[name] in first, name


async def test_two_captures_of_an_edited_copy_at_once_both_finish():
    # The edited copy lives in one folder shared by every process (two test runs, two headless
    # runs); one capture's clean-up deleted the other's copy mid-load (FileNotFoundError).
    import asyncio
    shot = next(shot for shot in VIEWS if shot.name == "error")
    first, second = await asyncio.gather(capture(str(SAMPLES / "deploy.py"), shot),
                                         capture(str(SAMPLES / "deploy.py"), shot))
    assert first == second and "still&#160;being&#160;served" in first


def test_headless_writes_the_dashboard_svg_beside_the_snapshots(tmp_path):
    file = copy_sample(tmp_path, "deploy.py")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--no-check", "--json",
                           "--update", "--picture"], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    doc = json.loads(done.stdout)
    report = doc["data"]
    svg = tmp_path / ".burgee" / "snapshots" / "tool.dashboard.svg"
    assert report["dashboard_svg"] == str(svg), report.get("dashboard_svg_error")
    assert svg.read_text().startswith('<svg xml:space="preserve" ')
    assert "Usage:" in svg.read_text()
    assert not (tmp_path / ".burgee" / "snapshots" / "tool" / "tool.dashboard.svg").exists()
