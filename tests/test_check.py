"""`burgee check` (issue 28): the contract as a property over generated calls.

Each rule catches a deliberately broken program (tests/programs/broken.py, one command per
rule); every program we ship passes with no violation; the report is seeded, deterministic and
bounded; writes run only when asked; the MCP side answers as a real MCP SDK client over stdio
hears the server answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROGRAMS, ROOT, SAMPLES, clean_env
from workbench.check import RULES, CheckError, check
from workbench.check.calls import MUTATIONS, generate
from workbench.loader import load_program

CORPUS = Path(__file__).resolve().parent / "corpus"
SHIPPED = sorted(SAMPLES.glob("*.py")) + sorted((SAMPLES / "typed").glob("*.py")) + \
    sorted((SAMPLES / "ported").glob("*.py")) + sorted((SAMPLES / "ported" / "typed").glob("*.py"))
FEATURES = [PROGRAMS / "features.py", PROGRAMS / "features_typed.py"]


def burgee(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, args)],
                          env=env or clean_env(PYTHONPATH=ROOT), capture_output=True, text=True,
                          timeout=600, cwd=cwd)


# -- every rule catches a broken program -------------------------------------------------------

@pytest.fixture(scope="module")
def broken():
    return check(str(PROGRAMS / "broken.py"), calls=12, run_writes=True, timeout=1.5)


CAUGHT = [("C1", "c1-stdout"), ("C2", "c2-stderr"), ("C3", "c3-exit"), ("C4", "c4-undeclared"),
          ("C5", "c5-fix"), ("C6", "c6-next"), ("C8", "c8-leak"), ("C9", "c9-print"),
          ("C10", "c10-transport"), ("C11", "c11-random"), ("C13", "c13-traceback"),
          ("C14", "c14-hang"), ("C15", "c15-exit"), ("C16", "c16-untrusted"),
          ("C17", "c17-shape"),
          ("R1", "r1-no-example"),
          ("R2", "c4-undeclared"), ("R3", "r3-list"), ("R4", "r4-no-key"),
          ("R5", "r5-confirm"), ("R6", "r6-long")]


@pytest.mark.parametrize("rule, command", CAUGHT, ids=[f"{r}-{c}" for r, c in CAUGHT])
def test_each_rule_catches_the_command_that_breaks_it(broken, rule, command):
    found = [v for v in broken.violations if v.rule == rule and v.command == command]
    assert found, [(v.rule, v.command, v.message) for v in broken.violations]
    violation = found[0]
    assert violation.name == RULES[rule].name and violation.fix
    if rule.startswith("C"):     # a call rule shows the call that broke it, as a command line
        assert violation.call and violation.environment


def test_a_command_that_keeps_every_promise_is_not_reported(broken):
    assert [v for v in broken.violations if v.command == "fine"] == []
    assert not broken.ok and "check_failed" in broken.failures


@pytest.mark.parametrize("page", ["ci.md", "contract.md"])
def test_every_rule_is_documented_with_its_code_and_name(page):
    text = (ROOT / "docs" / page).read_text()
    for code, rule in RULES.items():
        assert f"| {code} | `{rule.name}` |" in text, (page, code)


def test_the_report_is_the_workbenchs_problems(broken):
    """What the headless stage and the Problems pane will read: one error per violation."""
    problems = broken.problems()
    assert len(problems) == len(broken.violations)
    assert set(problems[0]) == {"severity", "code", "message", "fix", "command", "surface"}
    leak = next(p for p in problems if p["code"] == "secret_leaked")
    assert leak["severity"] == "error" and leak["command"] == "c8-leak"
    assert leak["message"].startswith("C8 'c8-leak': ")


def test_every_rule_is_caught_by_some_test():
    caught = {rule for rule, _ in CAUGHT} | {"C7", "C12", "R7"}   # the three below
    assert caught == set(RULES)


def test_c7_a_next_that_drops_the_callers_output_mode(monkeypatch):
    """C7 guards the framework itself (a program cannot drop the mode: burgee adds it): the
    runtime is broken here the way an NDJSON `next` used to be."""
    from workbench.runtime import pipeline
    monkeypatch.setattr(pipeline, "output_mode", lambda world, as_json: [])
    report = check(load_program(str(SAMPLES / "warehouse.py")), calls=8)
    assert any(v.rule == "C7" and v.command == "items list" for v in report.violations)


def test_c12_a_placeholder_that_runs(monkeypatch):
    """C12 guards the parser: with placeholders no longer recognised (as before issue 28),
    `--target '<target>'` reaches the handler."""
    from workbench import _text
    monkeypatch.setattr(_text, "placeholder", lambda value: None)
    report = check(load_program(str(SAMPLES / "deploy.py")), calls=16, run_writes=True)
    assert any(v.rule == "C12" and v.command == "deploy" for v in report.violations)


def test_r7_an_example_that_carries_a_secret(tmp_path):
    path = tmp_path / "login.py"
    path.write_text(
        "from workbench import Command, Option, Program\n"
        "program = Program(name='tool', version='1', commands=[Command(\n"
        "    name='login', description='Log in', effects='idempotent',\n"
        "    options={'token': Option(type='string', sensitive=True, description='token')},\n"
        "    examples=['tool login --token hunter2-literal'], run=lambda ctx: None)])\n")
    report = check(str(path), calls=4)
    found = [v for v in report.violations if v.rule == "R7"]
    assert found and found[0].command == "login"
    assert "hunter2-literal" not in json.dumps(report.to_dict())


# -- every program we ship passes ----------------------------------------------------------

@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(SAMPLES)) for p in SHIPPED])
def test_every_shipped_sample_keeps_every_promise(path):
    report = check(str(path), run_writes=True)
    assert [v.to_dict() for v in report.violations] == []
    assert report.ok, report.render()
    assert report.recovery["refusals"] > 0 and report.skipped == 0


ISSUE_30_KINDS = {"out_of_range", "path_not_found", "invalid_path", "count_value", "tuple_short",
                  "conflicting", "requires_dropped", "wrong_type"}


@pytest.mark.parametrize("path", FEATURES, ids=[p.name for p in FEATURES])
def test_what_issue_30_declares_is_mutated_and_every_fix_runs(path):
    """Limits, paths, counts, tuples, requires/conflicts, custom and shaped types: each gets
    its mutation, each refusal's fix runs (C5) and leads back to the call (recovery)."""
    program = load_program(str(path))
    kinds = {call.kind for call in generate(program, list(program.walk()), budget=80)}
    assert ISSUE_30_KINDS <= kinds, ISSUE_30_KINDS - kinds
    report = check(str(path), calls=80, run_writes=True)
    assert [v.to_dict() for v in report.violations] == []
    assert report.ok, report.render()
    reasons = {row["reason"]: row for row in report.recovery["by_reason"]}
    for reason in ("out_of_range", "path_not_found", "invalid_path", "conflicting_options",
                   "missing_option", "missing_value", "invalid_value"):
        assert reasons[reason]["rate"] == 1.0, (reason, report.render())


CORPUS_FILES = sorted(CORPUS.glob("*_cli.py"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.stem for p in CORPUS_FILES])
def test_the_adapted_real_programs_keep_every_promise(path):
    """The programs tests/test_corpus.py adapts (black, flask, httpie, json.tool,
    sqlite-utils): their refusals all run; their handlers (undeclared effects) do not."""
    report = check(str(path))
    assert [v.to_dict() for v in report.violations] == []
    assert report.ok, report.render()
    assert report.recovery["refusals"] > 0 and report.skipped > 0


# -- the command line -----------------------------------------------------------------------

def test_the_cli_prints_the_report_as_an_envelope_and_exits_0():
    done = burgee("check", SAMPLES / "deploy.py", "--json")
    assert done.returncode == 0 and done.stderr == ""
    data = json.loads(done.stdout)["data"]
    assert data["violations"] == [] and data["ok"] is True
    assert data["calls_per_command"] == 24 and data["recovery"]["budget"] == 0.95
    reasons = {row["reason"] for row in data["recovery"]["by_reason"]}
    assert {"unknown_option", "missing_option", "input_placeholder"} <= reasons


def test_the_cli_fails_a_broken_program_with_exit_1_and_the_report():
    done = burgee("check", PROGRAMS / "broken.py", "--calls", "4", "--timeout", "1.5", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "check_failed" and error["exit"] == 1
    assert error["report"]["violations"] and "check_failed" in error["failures"]


def test_a_person_reads_the_violations_then_the_error():
    done = burgee("check", PROGRAMS / "broken.py", "--calls", "4", "--timeout", "1.5")
    assert done.returncode == 1
    assert "C4 exit_on_card  'c4-undeclared'" in done.stdout
    assert done.stderr.startswith("error: ")


def test_a_missing_file_is_exit_3():
    done = burgee("check", "no/such/app.py", "--json")
    assert done.returncode == 3 and json.loads(done.stdout)["error"]["code"] == "file_not_found"


def test_a_file_that_does_not_load_is_load_failed(tmp_path):
    (tmp_path / "bad.py").write_text("raise RuntimeError('nope')\n")
    with pytest.raises(CheckError) as failed:
        check(str(tmp_path / "bad.py"))
    assert failed.value.code in ("import_failed", "load_failed") and "nope" in \
        failed.value.message


# -- the recovery budget ----------------------------------------------------------------------

GO = '''
from workbench import Command, Option, Program

def go(ctx):
    if not ctx.options.yes:      # asks for a decision, and says nothing of how to give it
        ctx.action_required("confirm", "going needs a decision")
    return {{"gone": True}}

program = Program(name="t", version="1", description="d", commands=[
    Command(name="go", description="Go", effects="read_only",
            options={{"yes": Option(type="boolean", description="decided")}},
            errors=[{{"code": "action_required", "exit": 4, "when": "undecided"}}],
            examples=["t go --yes"], run=go)]{budgets})
'''


@pytest.mark.parametrize("where", ["program", "pyproject", "flag"])
def test_a_recovery_below_its_budget_fails(tmp_path, where):
    """`t go` without --yes stops for a decision with no `next`: that refusal cannot recover,
    so a budget of 1.0 fails, wherever it is set."""
    (tmp_path / "app.py").write_text(GO.format(
        budgets=', budgets={"recovery": 1.0}' if where == "program" else ""))
    if where == "pyproject":
        (tmp_path / "pyproject.toml").write_text("[tool.burgee.budgets]\nrecovery = 1.0\n")
    extra = ["--recovery", "1"] if where == "flag" else []
    done = burgee("check", tmp_path / "app.py", "--json", *extra)
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 1 and error["code"] == "recovery_below_budget", error
    recovery = error["report"]["recovery"]
    assert recovery["budget"] == 1.0 and recovery["rate"] < 1.0
    assert error["report"]["violations"] == []
    assert [(r["reason"], r["why"]) for r in recovery["unrecovered"]] == [
        ("action_required", "no fix and no next")]
    assert burgee("check", tmp_path / "app.py", "--recovery", "0.5").returncode == 0


# -- seeded, deterministic, bounded --------------------------------------------------------

def test_the_same_seed_gives_the_same_report_whatever_the_workers():
    one = check(str(SAMPLES / "deploy.py"), seed=3, workers=1).to_dict()
    two = check(str(SAMPLES / "deploy.py"), seed=3, workers=3).to_dict()
    assert one == two


def test_the_seed_picks_the_sample_and_the_budget_bounds_it():
    program = load_program(str(SAMPLES / "warehouse.py"))
    command = program.find(["items", "restock"])
    seven = generate(program, [command], budget=12, seed=7)
    again = generate(program, [command], budget=12, seed=7)
    other = generate(program, [command], budget=12, seed=8)
    assert seven == again and seven != other
    assert len(seven) == 12
    assert len(generate(program, [command], budget=60, seed=7)) > 12
    kinds = [call.kind for call in seven if not call.is_source]
    assert len(set(kinds)) == len(kinds)   # each kind once before any repeats
    assert set(kinds) <= set(MUTATIONS)


def test_the_workbench_budget_bounds_a_big_programs_check():
    """24 calls a command up to 100 commands, then about 2,400 in all, never under one a
    command (its sources): `--headless` of 1,000 commands made 24,000 calls (8 minutes)."""
    from workbench.check.calls import DEFAULT_BUDGET, workbench_budget
    assert [workbench_budget(n) for n in (1, 6, 100, 101, 150, 1000, 5000)] == \
        [DEFAULT_BUDGET, DEFAULT_BUDGET, 24, 23, 16, 2, 1]


def test_a_small_budget_spreads_the_mutation_kinds_over_the_commands(tmp_path):
    """With fewer calls a command than it has kinds of mutation, each command starts the round
    at a kind of its own: before, every command got the first kind (a misspelt flag) only."""
    from _dashboard_helpers import generated_program
    file = tmp_path / "big.py"
    file.write_text(generated_program(40))
    program = load_program(str(file))
    commands = list(program.walk())
    sources = sum(call.is_source for call in generate(program, commands[:1], budget=1))
    calls = generate(program, commands, budget=sources + 1)
    kinds = [call.kind for call in calls if not call.is_source]
    assert len(kinds) == len(commands) and len(set(kinds)) >= 5, sorted(set(kinds))
    assert calls == generate(program, commands, budget=sources + 1)   # still the seed's


def test_the_number_of_calls_per_command_is_the_flags():
    """Up to N calls per command (every mutation once there are fewer)."""
    few = json.loads(burgee("check", SAMPLES / "deploy.py", "--calls", "4", "--json").stdout)
    data = few["data"]
    assert data["calls_per_command"] == 4 and data["calls"] == 4 * 4   # 4 commands


# -- writes run only when asked ---------------------------------------------------------------

WRITER = '''
import os
from workbench import Command, Option, Program
MARK = {mark!r}
def write(ctx):
    open(MARK, "a").write("ran\\n")
    return {{"wrote": True}}
program = Program(name="w", version="1", description="d", commands=[
    Command(name="write", description="Writes a file outside the sandbox",
            effects="non_idempotent",
            options={{"note": Option(type="string", description="a note")}},
            examples=["w write --note x"], run=write)])
'''


def test_a_write_runs_only_with_run_writes_and_its_refusals_always(tmp_path):
    mark = tmp_path / "ran.txt"
    (tmp_path / "w.py").write_text(WRITER.format(mark=str(mark)))
    quiet = check(str(tmp_path / "w.py"))
    assert not mark.exists() and quiet.skipped > 0
    assert quiet.recovery["refusals"] > 0     # the refusals ran: they reach no handler
    check(str(tmp_path / "w.py"), run_writes=True)
    assert mark.exists()


# -- the MCP side is the server's answer --------------------------------------------------

async def test_the_mcp_side_answers_as_the_server_does_over_stdio(tmp_path):
    """The checker's MCP runs (the tools/call core, in a fork) against `notes.py mcp` driven
    by the MCP SDK's own client over stdio, in the same sandbox, call for call."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from workbench.check.runner import Runner
    from workbench.check.sandbox import Sandbox
    from workbench.runtime.arguments import from_argv
    program = load_program(str(SAMPLES / "notes.py"))
    box = Sandbox()
    runner = Runner(program, box, exit_hooks=False)
    try:
        calls = []
        for command in program.walk():
            if command.effects != "read_only":
                continue
            for call in generate(program, [command], budget=24):
                try:
                    calls.append((command.tool_name, from_argv(program, list(call.argv))[1]))
                except ValueError:
                    continue
        assert len(calls) >= 6
        ours = [runner.mcp(tool, arguments) for tool, arguments in calls]
        env = runner.environ("piped")
        params = StdioServerParameters(command=sys.executable,
                                       args=[str(SAMPLES / "notes.py"), "mcp"], env=env,
                                       cwd=box.work)
        with open(tmp_path / "err.txt", "w+") as errlog:
            async with Client(stdio_client(params, errlog=errlog), cache=None,
                              mode="legacy") as client:
                for (tool, arguments), run in zip(calls, ours):
                    result = await client.call_tool(tool, arguments)
                    text = "".join(getattr(part, "text", "") for part in result.content)
                    assert (text, result.is_error) == (run.stdout, run.result["isError"]), tool
    finally:
        runner.close()   # it froze this process's heap for its forks (`check.runner._warm`)
        box.close()


def test_a_progress_bar_drawn_at_a_terminal_is_not_a_difference(tmp_path):
    """How many frames a person's bar draws depends on time by design; C11 compares what is
    left (the last frame, the result), so a command that reports progress is deterministic."""
    app = tmp_path / "bar.py"
    app.write_text(
        "import time\n"
        "from workbench import Command, Program\n\n"
        "def copy(ctx):\n"
        "    for done in range(1, 31):\n"
        "        time.sleep(0.01 * (done % 3))\n"
        "        ctx.progress(done, 30, 'copying')\n"
        "    return {'copied': 30}\n\n"
        "program = Program(name='bar', version='1.0', description='a bar', commands=[\n"
        "    Command(name='copy', description='copy things', effects='read_only', run=copy,\n"
        "            examples=['bar copy'], output={'type': 'object'})])\n")
    report = check(str(app), calls=2, workers=1)
    assert [v for v in report.violations if v.rule == "C11"] == []
