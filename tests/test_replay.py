"""Recorded agent traffic replayed as a regression test: calls recorded through the MCP SDK's
own client against a real `burgee dev --record`, replayed with `--headless --replay` after a
handler changes (the change is reported, classified), and clean again once restored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from _mcp_helpers import TOKEN, authed
from conftest import wait_until

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

APP = textwrap.dedent('''
    from workbench import Command, Option, Program

    def status(ctx):
        return {"target": ctx.options.target, "healthy": True, "build": "2026.12.01"}

    def restart(ctx):
        return {"restarted": ctx.options.target}

    def login(ctx):
        return {"user": ctx.options.user}

    program = Program(name="app", version="1.0.0", description="Runs services", commands=[
        Command(name="status", description="Show a service's status", effects="read_only",
                options={"target": Option(type="string", default="web",
                                          description="which service")}, run=status),
        Command(name="restart", description="Restart a service", effects="non_idempotent",
                options={"target": Option(type="string", required=True,
                                          description="which service")}, run=restart),
        Command(name="login", description="Log in", effects="read_only",
                options={"user": Option(type="string", description="user name"),
                         "password": Option(type="string", sensitive=True,
                                            description="the password")}, run=login),
    ])
''')
ENV = {**os.environ, "PYTHONPATH": ROOT, "BURGEE_MCP_TOKEN": TOKEN}


def start_dev(file):
    """`burgee dev FILE --record`, piped: it logs to stderr; returns (process, url, replay)."""
    process = subprocess.Popen([sys.executable, "-m", "workbench.cli", "dev", str(file),
                                "--record"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, env=ENV, cwd=file.parent)
    url = path = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        if "recording MCP calls to " in line:
            path = line.split("recording MCP calls to ", 1)[1].strip()
        if "serving MCP at " in line:
            url = line.split("serving MCP at ", 1)[1].split()[0]
    assert url and path, "burgee dev did not start"
    return process, url, path


def replay(file, path, *extra):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--json",
                           "--replay", path, *extra], capture_output=True, text=True,
                          timeout=180, env=ENV, cwd=file.parent)
    return done.returncode, json.loads(done.stdout.splitlines()[0])


@pytest.mark.asyncio
async def test_recorded_calls_replay_a_handler_change_and_clean_after_restore(tmp_path):
    from mcp import Client
    file = tmp_path / "app.py"
    file.write_text(APP, encoding="utf-8")
    process, url, path = start_dev(file)
    try:
        async with Client(authed(url), mode="legacy", cache=None) as client:
            await client.call_tool("status", {"target": "db"})
            await client.call_tool("restart", {"target": "web"})
            await client.call_tool("login", {"user": "ada", "password": "hunter2"})
        wait_until(lambda: os.path.exists(path) and len(
            open(path, encoding="utf-8").read().splitlines()) >= 3, "the 3 calls recorded", 20)
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert os.path.dirname(path) == str(tmp_path / ".burgee" / "traffic")
    text = open(path, encoding="utf-8").read()
    assert "hunter2" not in text                        # masked by the one redaction policy
    calls = [json.loads(line) for line in text.splitlines()]
    assert [c["tool"] for c in calls] == ["status", "restart", "login"]
    assert calls[0]["version"] == "1.0.0" and calls[0]["effects"] == "read_only"
    assert calls[2]["masked"] is True and calls[2]["arguments"]["password"] == "***"

    code, doc = replay(file, path)
    assert code == 0 and doc["ok"], doc
    assert doc["data"]["replayed"] == 1 and doc["data"]["changes"] == []
    assert {s["why"].split(":")[0] for s in doc["data"]["skipped"]} == {
        "non_idempotent", "sensitive arguments were masked when recorded; the call cannot be "
        "sent again"}

    file.write_text(APP.replace('"healthy": True, "build": "2026.12.01"',
                                '"healthy": "yes", "since": 3'), encoding="utf-8")
    code, doc = replay(file, path)
    assert code == 1 and doc["error"]["code"] == "replay_changed"
    found = [(c["kind"], c["rule"], c["reason"]) for c in doc["data"]["changes"]]
    assert found[0][:2] == ("breaking", "result_field_retyped") and "data.healthy is now " \
        "string (was boolean)" in found[0][2] and found[0][2].startswith('status {"target": "db"}')
    assert ("breaking", "result_field_removed") in {f[:2] for f in found}
    assert found[-1][:2] == ("additive", "result_field_added") and "data.since" in found[-1][2]

    code, doc = replay(file, path, "--run-writes")      # the write too, in a sandbox
    assert code == 1 and doc["data"]["replayed"] == 2

    file.write_text(APP, encoding="utf-8")
    code, doc = replay(file, path, "--run-writes")
    assert code == 0 and doc["data"]["changes"] == [] and doc["data"]["replayed"] == 2


@pytest.mark.asyncio
async def test_r_in_the_dashboard_records_calls_to_a_replay_file(tmp_path):
    from mcp import Client

    from _dashboard_helpers import dashboard, until
    file = tmp_path / "app.py"
    file.write_text(APP, encoding="utf-8")
    async with dashboard(file, serve=True) as (app, pilot):
        await until(pilot, lambda: app.bench.url is not None, what="the MCP server")
        await pilot.press("R")
        assert app.bench.recorder is not None
        path = app.bench.recorder.path
        async with Client(authed(app.bench.url, app.bench.token), mode="legacy",
                          cache=None) as client:
            await client.call_tool("status", {"target": "db"})
        await until(pilot, lambda: app.bench.recorder.count == 1, what="the recorded call")
        await pilot.press("R")
        assert app.bench.recorder is None
    [call] = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert call["tool"] == "status" and json.loads(call["result"])["data"]["target"] == "db"
