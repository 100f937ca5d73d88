"""Data that breaks a command's output schema is one clear error everywhere (issue 12, item 5):
`invalid_output`, naming the field and what was expected, in headless and in the dashboard's
Problems pane (one problem list), and an `isError` result over MCP instead of structured
content the client's SDK rejects."""

import json
import os
import subprocess
import sys

import pytest
from conftest import PROGRAMS

from workbench.runtime.envelope import from_output_problem, stamp
from workbench.surfaces.output import (output_problem, projected_in,
                                       validation_asked)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MESSAGE = "'count' returned data its output schema refuses: at /count: expected type integer, " \
          "got \"three\""


@pytest.fixture
def app(tmp_path):
    file = tmp_path / "app.py"
    file.write_text((PROGRAMS / "counts.py").read_text(encoding="utf-8"), encoding="utf-8")
    return file


def _env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CLAUDECODE", "AI_AGENT")}
    env.update(PYTHONPATH=ROOT, HOME=str(tmp_path), **extra)
    return env


def test_output_problem_names_the_field_and_what_was_expected():
    from workbench import Command
    command = Command(name="count", description="x", effects="read_only", run=lambda ctx: {},
                      output={"type": "object", "required": ["count"],
                              "properties": {"count": {"type": "integer"},
                                             "tags": {"type": "array",
                                                      "items": {"type": "string"}}}})
    assert output_problem(command, {"count": 3, "tags": ["a"]}) is None
    problem = output_problem(command, {"count": "three"})
    assert problem == {"code": "invalid_output", "message": MESSAGE,
                       "hint": "fix the handler's return value or Command(output=...) of "
                               "'count'",
                       "field": "/count", "expected": "type integer", "got": '"three"'}
    assert output_problem(command, {"count": 1, "tags": ["a", 2]})["field"] == "/tags/1"
    missing = output_problem(command, {})
    assert missing["field"] == "" and missing["expected"] == "the required field 'count'"
    # --fields asks for a projection: a required field may be left out, a wrong type not
    assert output_problem(command, {"tags": ["a"]}, projected=True) is None
    assert output_problem(command, {"count": "three"}, projected=True)["field"] == "/count"
    assert projected_in({"ok": True, "meta": {"provenance": {"fields": {"source": "flag"}}}})
    assert not projected_in({"ok": True, "meta": {"provenance": {}}})
    doc = stamp(from_output_problem(problem), "1")
    assert doc == {"ok": False, "error": {"code": "invalid_output", "exit": 1,
                                          "message": MESSAGE, "hint": problem["hint"],
                                          "field": "/count", "expected": "type integer",
                                          "got": '"three"', "effects": "none"},
                   "meta": {"schema_version": "1"}}
    assert validation_asked({"BURGEE_VALIDATE": "1"}) and not validation_asked({})


@pytest.mark.slow
async def test_an_mcp_client_gets_an_is_error_result_not_an_sdk_exception(app, tmp_path):
    from mcp import Client, StdioServerParameters
    params = StdioServerParameters(command=sys.executable, args=[str(app), "mcp"],
                                   env={"PYTHONPATH": ROOT, "HOME": str(tmp_path)},
                                   cwd=str(tmp_path))
    async with Client(params) as client:
        result = await client.call_tool("count", {})
        assert result.is_error is True and result.structured_content is None
        doc = json.loads(result.content[0].text)
        assert doc["error"]["code"] == "invalid_output"
        assert doc["error"]["message"] == MESSAGE and doc["error"]["field"] == "/count"
        good = await client.call_tool("fine", {})
        assert good.is_error is False and good.structured_content == {"count": 3}


@pytest.mark.slow
def test_headless_reports_the_same_error_as_its_problem_list(app, tmp_path):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(app), "--headless", "--no-check", "--json",
                           "--update"], capture_output=True, text=True, timeout=180,
                          env=_env(tmp_path), cwd=str(tmp_path))
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and doc["error"]["code"] == "invalid_output", done.stdout
    assert doc["error"]["failures"] == ["invalid_output"]
    assert doc["error"]["message"] == "'app count': " + MESSAGE
    [item] = [p for p in doc["data"]["problems"]["items"] if p["code"] == "invalid_output"]
    assert item["message"] == doc["error"]["message"] and item["command"] == "count"
    assert doc["data"]["diffs"]["mismatches"] == []      # not a transport mismatch
    statuses = json.loads((tmp_path / ".burgee/snapshots/app/diffs.json").read_text())
    assert [d["status"] for d in statuses] == ["invalid_output", "equal"]


@pytest.mark.slow
async def test_the_dashboard_problems_pane_shows_that_error(app):
    from _dashboard_helpers import dashboard, until
    async with dashboard(app, auto_diffs=True) as (app_, pilot):
        await until(pilot, lambda: app_.diff_status == "done", what="the diffs")
        # bench.state.problems: the list headless reports as report.problems.items
        [problem] = [p for p in app_.state.problems if p.code == "invalid_output"]
        assert problem.message == "'app count': " + MESSAGE
        app_.show_tab("problems")
        await pilot.pause()
        text = app_.pane("problems").text
        assert MESSAGE in text and "ExceptionGroup" not in text and "TaskGroup" not in text
        app_.show_tab("diff")
        await pilot.pause()
        assert "invalid app count" in app_.pane("diff").text


def test_the_plain_cli_prints_the_data_unchecked(app, tmp_path):
    done = subprocess.run([sys.executable, str(app), "count", "--json"], capture_output=True,
                          text=True, env=_env(tmp_path), timeout=60)
    assert json.loads(done.stdout)["data"] == {"count": "three"}


def test_the_cli_checks_output_under_json_when_asked(app, tmp_path):
    done = subprocess.run([sys.executable, str(app), "count", "--json"], capture_output=True,
                          text=True, env=_env(tmp_path, BURGEE_VALIDATE="1"), timeout=60)
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and done.stderr == ""
    assert doc["error"]["code"] == "invalid_output" and doc["error"]["message"] == MESSAGE
    assert doc["error"]["field"] == "/count" and doc["error"]["expected"] == "type integer"
