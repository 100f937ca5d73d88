"""`burgee dev --headless` reads drift as classified changes: a breaking change without a
major version bump fails (exit 1, breaking_change); with the bump it passes; an additive change
passes without a snapshot update but is listed; a cosmetic one is still drift to review."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from workbench.dev.headless import check_snapshots
from workbench.runtime.envelope import exit_code

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

APP = textwrap.dedent('''
    from workbench import Command, Option, Program

    def status(ctx):
        return {"target": ctx.options.target}

    program = Program(name="app", version="VERSION", description="Runs services", commands=[
        Command(name="status", description="Show a service's status", effects="read_only",
                options={"target": Option(type="string", default="web",
                                          description="which service"),
                         EXTRA},
                examples=["app status --target db"], run=status),
    ])
''')
REGION = '"region": Option(type="string", description="which region")'


def write(file, version="1.0.0", extra=REGION):
    file.write_text(APP.replace("VERSION", version).replace("EXTRA", extra), encoding="utf-8")


def headless(file, *extra):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--no-check", "--json",
                           *extra], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=os.path.dirname(file))
    return done.returncode, json.loads(done.stdout.splitlines()[0])


def test_breaking_without_a_major_bump_fails_with_it_passes(tmp_path):
    file = tmp_path / "app.py"
    write(file)
    assert headless(file, "--update")[0] == 0
    write(file, extra="")                      # --region removed, still 1.0.0
    code, doc = headless(file)
    assert code == 1 and doc["error"]["code"] == "breaking_change"
    assert "without a major version bump (1.0.0 \u2192 1.0.0)" in doc["error"]["message"]
    assert "--region of 'status' was removed" in doc["error"]["message"]
    [change] = doc["data"]["changes"]["changes"]
    assert (change["kind"], change["rule"]) == ("breaking", "option_removed")

    doc = check_snapshots(str(file), update=True, check=False)   # --update cannot accept it either
    assert exit_code(doc) == 1 and doc["error"]["code"] == "breaking_change"
    assert doc["data"]["updated"] is False

    write(file, version="2.0.0", extra="")      # the same change, announced
    code, doc = headless(file)
    assert code == 0 and doc["ok"], doc
    assert doc["data"]["changes"]["major_bump"] is True
    assert doc["data"]["changes"]["counts"]["breaking"] == 1 and doc["data"]["drift"]


def test_an_additive_change_passes_without_an_update_and_is_listed(tmp_path):
    file = tmp_path / "app.py"
    write(file, extra="")
    assert exit_code(check_snapshots(str(file), update=True, check=False)) == 0
    write(file)                                 # a new optional --region, same version
    doc = check_snapshots(str(file), check=False)
    assert exit_code(doc) == 0 and doc["ok"], doc
    changes = doc["data"]["changes"]
    assert [(c["kind"], c["rule"]) for c in changes["changes"]] == [("additive", "option_added")]
    assert changes["blocked"] is False and doc["data"]["updated"] is False

    file.write_text(file.read_text().replace("Runs services", "Runs the services"))
    doc = check_snapshots(str(file), check=False)            # wording is still reviewed as drift
    assert exit_code(doc) == 1 and doc["error"]["code"] == "snapshot_drift"
    assert {c["kind"] for c in doc["data"]["changes"]["changes"]} == {"additive", "cosmetic"}
