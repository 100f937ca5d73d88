"""`burgee check` as a stage of `burgee dev --headless` and live in the dashboard's Problems
(issue 28, item 1 and 3): its violations and a recovery rate under budget fail headless with
their own codes, its report is in the headless report and `check.json` of the snapshot folder,
and the dashboard lists what it found. Real subprocesses; Textual's pilot for the dashboard."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _dashboard_helpers import dashboard, until
from conftest import ROOT, clean_env

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

UNDECIDED = '''
from workbench import Command, Option, Program

def go(ctx):
    if not ctx.options.yes:      # asks for a decision, and says nothing of how to give it
        ctx.action_required("confirm", "going needs a decision")
    return {"gone": True}

program = Program(name="t", version="1.0.0", description="Go somewhere",
    budgets={"recovery": 1.0}, commands=[
    Command(name="go", description="Go", effects="read_only",
            options={"yes": Option(type="boolean", description="decided")},
            errors=[{"code": "action_required", "exit": 4, "when": "undecided"}],
            examples=["t go --yes"], run=go)])
'''

UNDECLARED = '''
from workbench import Command, Fail, Program

def lock(ctx):
    raise Fail("locked", "the thing is locked", hint="unlock it first", exit=5)

program = Program(name="t", version="1.0.0", description="Lock something", commands=[
    Command(name="lock", description="Lock the thing", effects="read_only",
            examples=["t lock"], run=lock)])
'''


def headless(file, *extra):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless",
                           *extra], env=clean_env(PYTHONPATH=ROOT), capture_output=True,
                          text=True, timeout=600, cwd=file.parent)
    return done


def test_a_recovery_under_its_budget_fails_headless_and_no_check_skips_it(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(UNDECIDED)
    done = headless(file, "--update", "--json")
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and doc["error"]["code"] == "recovery_below_budget", doc["error"]
    assert doc["error"]["failures"] == ["recovery_below_budget"]
    check = doc["data"]["check"]
    assert check["violations"] == [] and check["recovery"]["budget"] == 1.0
    assert [r["reason"] for r in check["recovery"]["unrecovered"]] == ["action_required"]
    assert "recovery_below_budget" in [p["code"] for p in doc["data"]["problems"]["items"]]
    stored = json.loads((tmp_path / ".burgee/snapshots/t/check.json").read_text())
    assert stored["recovery"]["within_budget"] is False and stored["violations"] == []

    skipped = headless(file, "--no-check", "--json")
    report = json.loads(skipped.stdout)
    assert skipped.returncode == 0, report
    assert report["data"]["check"] is None and report["data"]["drift"] == []


def test_a_violation_fails_headless_naming_its_rule_and_command(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(UNDECLARED)
    done = headless(file, "--update", "--json")
    doc = json.loads(done.stdout)
    assert done.returncode == 1 and "check_failed" in doc["error"]["failures"], doc["error"]
    violations = doc["data"]["check"]["violations"]
    assert ("C4", "lock") in {(v["rule"], v["command"]) for v in violations}, violations
    items = [p for p in doc["data"]["problems"]["items"] if p["command"] == "lock"
             and p["message"].startswith("C4 ")]
    assert items and items[0]["severity"] == "error" and "errors=" in items[0]["fix"]
    text = headless(file)                          # what a person reads
    assert text.returncode == 1
    assert "burgee check: " in text.stdout and "check_failed" in text.stdout
    assert text.stderr.startswith("error: ")


def test_a_clean_program_passes_with_the_check_line(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(UNDECIDED.replace('"recovery": 1.0', '"recovery": 0.5'))
    assert headless(file, "--update").returncode == 0
    again = headless(file)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "burgee check: " in again.stdout and "0 violations" in again.stdout


async def test_the_dashboard_lists_what_check_found_in_problems(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(UNDECIDED)
    async with dashboard(file) as (app, pilot):
        app.show_tab("problems")
        assert "burgee check: not run on this load" in app.pane("problems").text
        await app.action_run_check().wait()
        await until(pilot, lambda: app.state.check is not None, 120, "the check's report")
        await pilot.pause()
        text = app.pane("problems").text
        assert "recovery_below_budget" in text and "refusals recover (budget 100%)" in text
        assert "nothing to fix" not in text


def test_the_workbench_checks_a_big_program_with_fewer_calls_a_command(monkeypatch):
    """`burgee dev` and `--headless` check with `workbench_budget` calls a command by default
    (about 2,400 calls in all), here made 4 for deploy.py's 4 commands: one call each."""
    from conftest import SAMPLES
    from workbench.check import calls
    from workbench.dev.engine import Workbench
    monkeypatch.setattr(calls, "WORKBENCH_CALLS", 4)
    bench = Workbench(str(SAMPLES / "deploy.py"))
    bench.reload()
    report = bench.run_check()
    assert report is not None and report["calls_per_command"] == 1, report
    assert report["commands"] == 4 and report["calls"] <= 4 * 2   # its sources only
    assert bench.run_check(calls=3)["calls_per_command"] == 3   # --check-calls wins
