"""`burgee dev FILE --headless`: snapshots, one JSON envelope, documented exit codes; and the
CLI-vs-MCP envelope diffs it is built on."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import PROGRAMS

from workbench.dev.engine import Workbench
from workbench.dev.headless import check_snapshots
from workbench.runtime.envelope import exit_code

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

APP = textwrap.dedent('''
    import os
    from workbench import Command, Option, Program

    def status(ctx):
        return {"target": ctx.options.target, "healthy": True}

    def restart(ctx):
        return {"restarted": ctx.options.target}

    def pid(ctx):
        return {"pid": os.getpid()}     # differs on every run: CLI and MCP disagree

    program = Program(name="app", version="1.0.0", description="Runs services", commands=[
        Command(name="status", description="Show a service's status", effects="read_only",
                options={"target": Option(type="string", default="web",
                                          description="which service")},
                examples=["app status", "app status --target db"], run=status),
        Command(name="restart", description="Restart a service", effects="non_idempotent",
                options={"target": Option(type="string", required=True,
                                          description="which service")},
                examples=["app restart --target web"], run=restart),
        PID
    ])
''')

PID = ('Command(name="pid", description="Show the process id", effects="read_only", '
       'examples=["app pid"], run=pid),')


def headless(file, *extra):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--no-check", "--json",
                           *extra], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=os.path.dirname(file))
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return done.returncode, json.loads(lines[0])


def test_headless_is_clean_then_drifts_on_an_edit_then_accepts_it(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(APP.replace("PID", ""), encoding="utf-8")
    code, doc = headless(file)
    assert code == 1 and doc["error"]["code"] == "snapshot_drift"   # nothing committed yet
    code, doc = headless(file, "--update")
    assert code == 0 and doc["ok"] and doc["data"]["updated"]
    folder = tmp_path / ".burgee" / "snapshots" / "app"
    assert "status" in (folder / "help.txt").read_text()
    assert json.loads((folder / "cards" / "status.json").read_text())["command"] == "status"
    assert (folder / "mcp" / "tools-list.json").exists()
    diffs = json.loads((folder / "diffs.json").read_text())
    assert {d["example"]: d["status"] for d in diffs} == {
        "app status": "equal", "app status --target db": "equal",
        "app restart --target web": "skipped: non_idempotent: runs only with --run-writes"}

    # In-process from here on (the same check, without a new interpreter each time) ...
    doc = check_snapshots(str(file), check=False)
    assert doc["ok"] and doc["data"]["drift"] == [] and doc["data"]["diffs"]["equal"] == 2

    file.write_text(APP.replace("PID", "").replace("Show a service's status",
                                                   "Show one service's status"), encoding="utf-8")
    doc = check_snapshots(str(file), check=False)
    assert exit_code(doc) == 1 and doc["error"]["code"] == "snapshot_drift"
    drifted = {d["file"] for d in doc["data"]["drift"]}
    assert {"help.txt", "cards/status.json", "mcp/tools/status.json"} <= drifted
    help_diff = next(d for d in doc["data"]["drift"] if d["file"] == "help.txt")["diff"]
    assert "+  status" in help_diff and "one service" in help_diff

    doc = check_snapshots(str(file), update=True, check=False)
    assert doc["ok"] and "help.txt" in {d["file"] for d in doc["data"]["accepted"]}
    code, doc = headless(file)      # ... and the real command line for the last word
    assert code == 0 and doc["data"]["drift"] == []


def test_headless_fails_on_a_cli_mcp_mismatch_and_a_broken_file(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(APP.replace("PID", PID), encoding="utf-8")
    headless(file, "--update")
    code, doc = headless(file)
    assert code == 1 and doc["error"]["code"] == "envelope_mismatch"
    assert doc["error"]["failures"] == ["envelope_mismatch"]
    [mismatch] = doc["data"]["diffs"]["mismatches"]
    assert mismatch["example"] == "app pid" and '"pid":' in mismatch["diff"]

    file.write_text("def broken(:\n", encoding="utf-8")
    doc = check_snapshots(str(file), check=False)
    assert exit_code(doc) == 1 and doc["error"]["code"] == "load_failed"
    assert "SyntaxError" in doc["error"]["message"]
    code, doc = headless(tmp_path / "missing.py")
    assert code == 3 and doc["error"]["code"] == "file_not_found"


def test_diffs_show_equality_and_a_unified_diff(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(APP.replace("PID", PID), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    bench.reload()
    events = []
    bench.subscribe(events.append)
    diffs = {d.example: d for d in bench.run_diffs()}
    assert diffs["app status --target db"].equal is True
    assert diffs["app status --target db"].cli == diffs["app status --target db"].mcp
    assert diffs["app status --target db"].arguments == {"target": "db"}
    assert diffs["app restart --target web"].skipped.startswith("non_idempotent")
    pid = diffs["app pid"]
    assert pid.equal is False and pid.diff.startswith("--- cli --json\n+++ mcp tools/call")
    assert any(p.code == "envelope_mismatch" for p in bench.state.problems)
    assert [e.kind for e in events] == ["diffs"]
    writes = {d.example: d for d in bench.run_diffs(run_writes=True)}
    assert writes["app restart --target web"].equal is True


def test_an_example_whose_data_breaks_the_output_schema_is_an_error(tmp_path):
    file = tmp_path / "app.py"
    file.write_text((PROGRAMS / "counts.py").read_text(encoding="utf-8"), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    assert bench.reload().ok
    bench.run_diffs()
    [problem] = [p for p in bench.state.problems if p.code == "invalid_output"]
    assert problem.severity == "error" and problem.command == "count"
    assert "at /count: expected type integer, got \"three\"" in problem.message
    assert not any(p.code in ("example_failed", "envelope_mismatch")
                   for p in bench.state.problems)


def _person(file, *extra):
    """`--headless` without `--json`, as a person (or a CI log) reads it."""
    return subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--no-check",
                           *extra], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=os.path.dirname(file))


def test_without_json_headless_prints_a_short_report_and_with_json_the_envelope(tmp_path):
    """Text says what passed, what drifted and what to run; `--json` is one envelope whose
    `data` is the report, passed or failed; a failed check keeps the committed picture."""
    file = tmp_path / "app.py"
    file.write_text(APP.replace("PID", ""), encoding="utf-8")
    accepted = _person(file, "--update", "--picture")
    assert accepted.returncode == 0 and accepted.stderr == "", accepted.stderr
    assert accepted.stdout.startswith("\u2713 app (") and "snapshots updated" in accepted.stdout
    clean = _person(file)
    assert clean.returncode == 0 and clean.stderr == ""
    assert clean.stdout.splitlines()[0].endswith("every surface matches its snapshot")
    assert not clean.stdout.lstrip().startswith("{") and len(clean.stdout) < 400
    picture = tmp_path / ".burgee" / "snapshots" / "app.dashboard.svg"
    committed = picture.read_bytes()

    file.write_text(APP.replace("PID", "").replace("Show a service's status",
                                                   "Show one service's status"), encoding="utf-8")
    drifted = _person(file, "--picture")
    assert drifted.returncode == 1
    lines = drifted.stdout.splitlines()
    assert lines[0].startswith("\u2717 app (") and lines[0].endswith("(snapshot_drift)")
    assert "  changed  help.txt" in lines and "next:" in lines
    assert any(line.strip().endswith("--headless --update   # if intended: accept, commit")
               for line in lines)
    assert drifted.stderr.startswith("error: ") and "hint: review the drift" in drifted.stderr
    assert len(drifted.stdout) < 2000   # short: the diffs themselves are in --json
    assert picture.read_bytes() == committed   # the committed picture is kept ...
    assert picture.with_name("app.dashboard.failed.svg").exists()   # ... the failure beside it

    code, doc = headless(file, "--picture")
    assert code == 1 and list(doc) == ["ok", "error", "data", "meta"]
    assert doc["error"]["failures"] == doc["data"]["failures"] == ["snapshot_drift"]
    assert "help.txt" in {d["file"] for d in doc["data"]["drift"]}
    assert doc["data"]["dashboard_svg"].endswith("app.dashboard.failed.svg")
    assert "output" not in doc["meta"]   # the report is the envelope, not a captured string
    code, doc = headless(file, "--update", "--picture")
    assert code == 0 and not picture.with_name("app.dashboard.failed.svg").exists()


def test_headless_draws_the_dashboard_only_when_asked(tmp_path):
    """Without --picture no SVG is drawn (Textual is not even started); with it, the picture
    is drawn from the program the check loaded."""
    file = tmp_path / "app.py"
    file.write_text(APP.replace("PID", ""), encoding="utf-8")
    code, doc = headless(file, "--update")
    assert code == 0 and "dashboard_svg" not in doc["data"]
    assert list((tmp_path / ".burgee" / "snapshots").glob("*.svg")) == []
    code, doc = headless(file, "--picture")
    picture = tmp_path / ".burgee" / "snapshots" / "app.dashboard.svg"
    assert code == 0 and doc["data"]["dashboard_svg"] == str(picture), doc["data"]
    assert "Usage:" in picture.read_text(encoding="utf-8")
