"""Issue 34, part A: exits 11/13/14, person-only commands, `--why`, and what every failure says
(`field`, `retryable`, `next`, `effects`), over the command line (a subprocess) and MCP (the
SDK's client over stdio, against the same program file)."""

from __future__ import annotations

import json
import shlex

import pytest

from _mcp_helpers import caller_env, stdio_params, text_of
from conftest import ROOT, SAMPLES, clean_env, run_program
from workbench import Command, DefinitionError, Fail, Option, Program
from workbench.testing import Runner

DEPLOY = SAMPLES / "deploy.py"
WAREHOUSE = SAMPLES / "warehouse.py"
VOCAB = ROOT / "tests" / "programs" / "vocabulary.py"
AGENT = {"CLAUDECODE": "1"}


def _cli(path, *argv, **env):
    return run_program(path, *argv, env=clean_env(**env))


def _rerun(path, line: str, program: str, **env):
    """Run a printed command line (`fix` or `next`) exactly as printed."""
    words = shlex.split(line)
    assert words[0] == program, line
    return _cli(path, *words[1:], **env)


# -- 1. the exit table: 11 check_failed, 13 person_required, 14 limit_reached -----------------

def test_the_exit_table_grows_without_renumbering():
    doc = _cli(DEPLOY, "help", "--json").json
    table = {row["exit"]: row["code"] for row in doc["exit_codes"]}
    assert table[11] == "check_failed" and table[13] == "person_required"
    assert table[14] == "limit_reached"
    assert [table[n] for n in (0, 1, 2, 3, 4, 5, 6, 7, 8)] == [
        "ok", "failure", "usage", "not_found", "action_required", "conflict", "retry_later",
        "unavailable", "partial"]


def test_new_exits_are_accepted_at_definition_and_at_run_time_alike():
    def needs_person(ctx):
        raise Fail("person_required", "a person must sign", exit=13, how="sign it")
    program = Program(name="t", version="1", commands=[
        Command(name="sign", description="d", effects="read_only", run=needs_person,
                errors=[{"code": "person_required", "exit": 13}, "limit_reached"])])
    card = Runner(program).invoke(["sign", "--help", "--json"]).json
    assert any(e["code"] == "limit_reached" and e["exit"] == 14 for e in card["errors"])
    assert 13 in card["exit_codes"] and 14 in card["exit_codes"]
    result = Runner(program).invoke(["sign", "--json"])
    assert result.exit == 13 and result.json["error"]["code"] == "person_required"
    with pytest.raises(DefinitionError, match="exit 12, which is not in the exit-code table"):
        Program(name="t", version="1", commands=[
            Command(name="go", description="d", effects="read_only", run=needs_person,
                    errors=[{"code": "quota", "exit": 12}])])


def test_a_verdict_passes_with_exit_0_and_fails_with_exit_11_keeping_what_it_found():
    passed = _cli(WAREHOUSE, "items", "audit", "--min", "0", "--json")
    assert passed.exit == 0 and passed.json["data"]["passed"] is True
    failed = _cli(WAREHOUSE, "items", "audit", "--min", "1", "--json")
    doc = failed.json
    assert failed.exit == 11 and doc["error"]["code"] == "check_failed"
    assert doc["data"]["passed"] is False and doc["data"]["details"]["below_min"]
    assert doc["error"]["effects"] == "none"   # a judging read changes nothing
    card = _cli(WAREHOUSE, "items", "audit", "--help", "--json").json
    assert card["verdict"] is True and 11 in card["exit_codes"]
    person = _cli(WAREHOUSE, "items", "audit", "--min", "1")
    assert person.exit == 11 and "fewer than 1 in stock" in person.stderr
    assert "SKU-0023" in person.stdout   # what it found, for a person too


def test_a_verdict_needs_its_declaration():
    program = Program(name="t", version="1", commands=[
        Command(name="lint", description="d", effects="read_only",
                run=lambda ctx: ctx.verdict(True, {}))])
    result = Runner(program).invoke(["lint", "--json"])
    assert result.exit == 1 and "Command(verdict=True)" in result.json["error"]["message"]


def test_a_limit_keeps_the_best_so_far_and_next_continues_with_a_larger_one():
    done = _cli(WAREHOUSE, "items", "find", "--name", "bolt", "--want", "5", "--max-scan", "20",
                "--json")
    doc = done.json
    assert done.exit == 14 and doc["error"]["code"] == "limit_reached"
    assert doc["error"]["limit"] == 20 and doc["data"]["found"] == [
        "SKU-0006", "SKU-0012", "SKU-0018"]
    [step] = doc["next"]
    assert step["command"] == ("warehouse items find --name bolt --want 5 --max-scan 80 "
                               "--json") and step["why"]
    again = _rerun(WAREHOUSE, step["command"], "warehouse")
    assert again.exit == 0 and len(again.json["data"]["found"]) == 5


def test_person_required_from_a_handler_names_how_and_never_loops():
    done = _cli(VOCAB, "login", "--json")
    doc = done.json
    assert done.exit == 13 and doc["status"] == "person_required" and doc["reason"] == "login"
    assert doc["how"] == doc["error"]["how"] == "run `vocab login --web` in a terminal"
    # the step that repeats the failed call is dropped, and said so
    assert [step["command"] for step in doc["next"]] == ["vocab login --web --json"]
    assert "asking again would loop" in doc["meta"]["warnings"][0]
    person = _cli(VOCAB, "login")
    assert person.exit == 13 and person.stdout == ""
    assert person.stderr.splitlines()[:3] == [
        "person required: nobody is logged in", "how: run `vocab login --web` in a terminal",
        "next: vocab login --web   # opens the login page for the person"]


# -- 2. person-only commands ------------------------------------------------------------------

def test_a_person_only_command_refuses_any_agent_and_runs_for_a_person():
    for env in (AGENT, {"AI_AGENT": "some-agent"}, {"BURGEE_AGENT": "on"}):
        done = _cli(DEPLOY, "promote", "--build", "b1", "--json", **env)
        doc = done.json
        assert done.exit == 13, env
        assert doc["error"]["code"] == "person_required" and doc["reason"] == "person_only"
        assert "sign-off" in doc["message"] and doc["how"].startswith("run `tool promote")
        assert doc["error"]["effects"] == "none" and doc["error"]["retryable"] is False
    early = _cli(DEPLOY, "promote", "--json", **AGENT)   # --build missing: 13 comes first
    assert early.exit == 13 and early.json["reason"] == "person_only"
    text = _cli(DEPLOY, "promote", "--build", "b1", **AGENT)
    assert text.exit == 13 and text.stderr.startswith("person required: ")
    person = _cli(DEPLOY, "promote", "--build", "b1", "--json")
    assert person.exit == 0 and person.json["data"]["promoted"] is True


@pytest.mark.slow
def test_person_only_commands_are_listed_before_an_agent_tries():
    doc = _cli(DEPLOY, "help", "--json", **AGENT).json
    assert doc["person_only"] == [{"command": "promote",
                                   "reason": "promoting to production needs a person's sign-off",
                                   "how": "run `tool promote --build BUILD` yourself in a "
                                          "terminal"}]
    card = _cli(DEPLOY, "promote", "--help", "--json").json
    assert "tool" not in card and card["person_only"]["how"]
    assert 13 in card["exit_codes"]
    assert "Person only: promoting to production" in _cli(DEPLOY, "promote", "--help").stdout
    skill = _cli(DEPLOY, "skills").stdout
    assert "a person runs it, never an agent" in skill and "Exit 13" in skill


def test_a_person_only_definition_is_checked():
    with pytest.raises(DefinitionError, match="person_only= is a dict of two sentences"):
        Program(name="t", version="1", commands=[
            Command(name="go", description="d", effects="read_only", run=lambda ctx: 1,
                    person_only={"reason": "because"})])


# -- 3. --why ---------------------------------------------------------------------------------

def test_why_required_is_refused_without_it_with_a_fix_that_adds_it():
    done = _cli(DEPLOY, "rollback", "--target", "staging", "--to", "b1", "--json")
    error = done.json["error"]
    assert done.exit == 2 and error["code"] == "missing_option" and error["field"] == "why"
    assert error["fix"] == "tool rollback --target staging --to b1 --why <why> --json"
    fixed = _rerun(DEPLOY, error["fix"].replace("<why>", "'build broke login'"), "tool")
    doc = fixed.json
    assert fixed.exit == 0 and doc["meta"]["why"] == "build broke login"
    assert doc["data"]["why"] == "build broke login"   # the handler read ctx.why


def test_why_optional_runs_without_it_and_records_it_when_given():
    plain = _cli(DEPLOY, "deploy", "--target", "staging", "--yes", "--json")
    assert plain.exit == 0 and "why" not in plain.json["meta"]
    given = _cli(DEPLOY, "deploy", "--target", "staging", "--yes", "--why", "hotfix", "--json")
    assert given.exit == 0 and given.json["meta"]["why"] == "hotfix"
    card = _cli(DEPLOY, "rollback", "--help", "--json").json
    assert card["why"] == "required"
    assert any(option["flag"] == "--why" for option in card["options"])


# -- 4. field, retryable, next, effects -------------------------------------------------------

def test_every_usage_refusal_names_its_field_and_is_not_retryable():
    cases = [(["deploy", "--targt", "prod"], "targt"),
             (["status", "--target", "mars"], "target"),
             (["deploy"], "target"),
             (["deploy", "--target"], "target"),
             (["deplyo"], None)]
    for argv, field in cases:
        error = _cli(DEPLOY, *argv, "--json").json["error"]
        assert error["exit"] == 2, argv
        assert error["field"] == field and error["retryable"] is False, (argv, error)
        assert error["effects"] == "none", argv


def test_a_fail_with_next_prints_each_step_runnable_in_the_callers_mode():
    doc = _cli(VOCAB, "find", "--name", "bolt", "--json").json
    assert doc["next"] == [{"command": "vocab list --prefix b --json",
                            "why": "to see the items with its first letter"}]
    assert _rerun(VOCAB, doc["next"][0]["command"], "vocab").exit == 0
    person = _cli(VOCAB, "find", "--name", "bolt")
    assert "next: vocab list --prefix b   # to see the items with its first letter" in \
        person.stderr
    lines = _cli(VOCAB, "find", "--name", "bolt", "--format", "ndjson").stdout.splitlines()
    end = json.loads(lines[-1])["@end"]
    assert end["next"][0]["command"] == "vocab list --prefix b --format ndjson"


def test_effects_say_what_a_failure_changed():
    def effects(*argv):
        return _cli(VOCAB, *argv, "--json").json["error"]
    assert effects("find", "--name", "x")["effects"] == "none"        # read-only
    assert effects("write")["effects"] == "unknown"                  # a write that blew up
    upload = effects("upload")
    assert upload["effects"] == "partial" and upload["steps"] == [
        {"done": "uploaded", "file": "a.txt"}, {"done": "indexed", "file": "a.txt"}]
    assert effects("careful")["effects"] == "none"   # Fail(effects="none") is believed
    assert effects("login")["effects"] == "none"     # asked before acting
    assert effects("nothere")["effects"] == "none"   # refused before the handler


# -- the same over MCP ------------------------------------------------------------------------

async def _calls(path, tmp_path, calls):
    from mcp import Client
    out = []
    async with Client(stdio_params(path, caller_env(tmp_path / "state"), tmp_path),
                      mode="legacy", cache=None) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            out.append((bool(result.is_error), json.loads(text_of(result))))
    return names, out


@pytest.mark.slow
@pytest.mark.asyncio
async def test_over_mcp_person_only_is_hidden_and_refused_with_exit_13(tmp_path):
    names, [(error, doc)] = await _calls(DEPLOY, tmp_path, [("promote", {"build": "b1"})])
    assert "promote" not in names and "rollback" in names
    assert error and doc["error"]["exit"] == 13 and doc["reason"] == "person_only"
    assert doc["how"].startswith("run `tool promote") and "an MCP caller" in doc["message"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_over_mcp_why_field_and_next_as_a_tool_call(tmp_path):
    _, results = await _calls(DEPLOY, tmp_path, [
        ("rollback", {"target": "staging", "to": "b1"}),
        ("rollback", {"target": "staging", "to": "b1", "why": "bad build"}),
        ("deploy", {"targt": "prod"})])
    (missing_error, missing), (ok_error, ok), (_, unknown) = results
    assert missing_error and missing["error"]["field"] == "why"
    assert missing["error"]["retryable"] is False and missing["error"]["effects"] == "none"
    assert json.loads(missing["error"]["fix"])["why"] == "<why>"
    assert not ok_error and ok["meta"]["why"] == "bad build"
    assert unknown["error"]["field"] == "targt" and unknown["error"]["retryable"] is False


@pytest.mark.slow
@pytest.mark.asyncio
async def test_over_mcp_exits_11_13_14_and_their_next_steps(tmp_path):
    _, results = await _calls(WAREHOUSE, tmp_path, [
        ("items_audit", {"min": 1}),
        ("items_find", {"name": "bolt", "want": 5, "max_scan": 20}),
        ("items_find", {"name": "bolt", "want": 5, "max_scan": 80})])
    (_, verdict), (_, limit), (again_error, again) = results
    assert verdict["error"]["exit"] == 11 and verdict["data"]["passed"] is False
    assert limit["error"]["exit"] == 14 and limit["data"]["scanned"] == 20
    assert limit["next"] == [{"tool": {"name": "items_find",
                                       "arguments": {"name": "bolt", "want": 5,
                                                     "max_scan": 80}},
                              "why": "to look at more items"}]
    assert not again_error and len(again["data"]["found"]) == 5   # the step, sent as is
    _, [(_, person), (_, found), (_, upload)] = await _calls(
        VOCAB, tmp_path, [("login", {}), ("find", {"name": "bolt"}), ("upload", {})])
    assert person["error"]["exit"] == 13 and person["next"] == [
        {"tool": {"name": "login", "arguments": {"web": True}},
         "why": "opens the login page for the person"}]
    assert found["next"][0]["tool"] == {"name": "list", "arguments": {"prefix": "b"}}
    assert upload["error"]["effects"] == "partial" and len(upload["error"]["steps"]) == 2


# -- 5. change review and the checker know the additions ---------------------------------------

def test_change_review_classifies_person_only_verdict_why_and_exits():
    from workbench.dev.changes import review_files
    from workbench.dev.review import files_of_program

    def program(**extra):
        return Program(name="t", version="1.0.0", commands=[
            Command(name="go", description="d", effects="read_only", run=lambda ctx: 1,
                    examples=["t go"], **extra)])
    before = files_of_program(program())
    rules = {}
    for extra in ({"person_only": {"reason": "r", "how": "h"}}, {"verdict": True},
                  {"why": "required"}, {"errors": ["limit_reached"]}):
        review = review_files(before, files_of_program(program(**extra)))
        rules.update({change.rule: change.kind for change in review.changes})
    assert rules["person_only_added"] == "breaking" and rules["verdict_changed"] == "breaking"
    assert rules["why_changed"] == "breaking" and rules["error_added"] == "additive"


def test_more_than_three_next_steps_are_cut_and_a_bad_step_is_left_out_saying_so():
    def lost(ctx):
        raise Fail("not_found", "nothing", exit=3, next=[
            {"command": f"go --n {n}", "why": "try"} for n in range(5)] + ["not a step"])
    program = Program(name="t", version="1", commands=[
        Command(name="go", description="d", effects="read_only", run=lost,
                options={"n": Option(type="integer", description="n")}, errors=["not_found"])])
    doc = Runner(program).invoke(["go", "--json"]).json
    assert [step["command"] for step in doc["next"]] == [
        "t go --n 0 --json", "t go --n 1 --json", "t go --n 2 --json"]
    warnings = " ".join(doc["meta"]["warnings"])
    assert "'not a step' was left out" in warnings and "the first 3 are kept" in warnings


def test_the_typed_api_passes_verdict_person_only_and_why():
    from workbench.typed import App
    app = App("tt", "1.0")

    @app.command(effects="read_only", verdict=True, examples=["tt lint"])
    def lint(ctx) -> dict:
        """Lint."""
        return ctx.verdict(False, {"x": 1})

    @app.command(effects="idempotent", person_only={"reason": "r", "how": "h"},
                 why="required", examples=["tt wipe --why x"])
    def wipe(ctx) -> dict:
        """Wipe."""
        return {"why": ctx.why}

    runner = Runner(app)
    assert runner.invoke(["lint", "--json"]).exit == 11
    assert runner.invoke(["wipe", "--json"], agent="claude-code").exit == 13
    done = runner.invoke(["wipe", "--why", "x", "--json"])
    assert done.exit == 0 and done.json["meta"]["why"] == "x"
