"""What issues 31 and 34 left (their closing note): a refusal after `ctx.step` says what it
changed; a stream's `@end` says which fields are untrusted; `removed_in` against the program's
version; plan twins found by discovery's search; ambiguous words in a person's help. Over the
command line (a subprocess) and MCP (the SDK's client over stdio) where the behaviour is MCP's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _mcp_helpers import caller_env, stdio_params, text_of
from conftest import ROOT, SAMPLES, clean_env, run_in_pty, run_program

VOCAB = ROOT / "tests" / "programs" / "vocabulary.py"
STEPS = [{"done": "copied", "file": "a.txt"}]


def _cli(path, *argv, **env):
    return run_program(path, *argv, env=clean_env(**env))


async def _calls(path, tmp_path, calls):
    from mcp import Client
    out = []
    async with Client(stdio_params(path, caller_env(tmp_path / "state"), tmp_path),
                      mode="legacy", cache=None) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            out.append((bool(result.is_error), json.loads(text_of(result))))
    return out


# -- 1. a refusal after ctx.step: effects partial, with the steps ------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["--json", "ndjson"])
def test_a_refusal_after_a_step_says_partial_with_the_steps_on_the_cli(fmt):
    def error(*argv):
        if fmt == "ndjson":
            lines = _cli(VOCAB, *argv, "--format", "ndjson").stdout.splitlines()
            return json.loads(lines[-1])["@end"]["error"]
        return _cli(VOCAB, *argv, "--json").json["error"]
    moved = error("move", "--to", "x")              # the handler's Fail(exit=2)
    assert moved["exit"] == 2 and moved["effects"] == "partial" and moved["steps"] == STEPS
    asked = error("sync")                           # ctx.prompt with nobody to answer
    assert asked["code"] == "input_required" and asked["exit"] == 2
    assert asked["effects"] == "partial"
    assert asked["steps"] == [{"done": "pulled", "file": "a.txt"}]
    assert asked["field"] == "to" and asked["retryable"] is False
    before = error("sync", "--nope")                # refused before the handler: nothing
    assert before["effects"] == "none" and "steps" not in before


def test_a_stream_believes_a_fail_that_says_it_changed_nothing():
    lines = _cli(VOCAB, "drain", "--format", "ndjson").stdout.splitlines()
    end = json.loads(lines[-1])["@end"]
    assert end["count"] == 1 and end["error"]["effects"] == "none"   # as --json says it
    assert _cli(VOCAB, "drain", "--json").json["error"]["effects"] == "none"


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_refusal_after_a_step_says_partial_with_the_steps_over_mcp(tmp_path):
    (moved_error, moved), (asked_error, asked) = await _calls(
        VOCAB, tmp_path, [("move", {"to": "x"}), ("sync", {})])
    assert moved_error and moved["error"]["effects"] == "partial"
    assert moved["error"]["steps"] == STEPS
    assert asked_error and asked["error"]["code"] == "input_required"
    assert asked["error"]["effects"] == "partial"
    assert asked["error"]["steps"] == [{"done": "pulled", "file": "a.txt"}]


# -- 2. a stream's @end says which fields are untrusted, as an envelope's meta does ---------

AGENTIC = ROOT / "tests" / "programs" / "agentic.py"


def _end(*argv):
    lines = _cli(AGENTIC, *argv, "--format", "ndjson").stdout.splitlines()
    return json.loads(lines[-1])["@end"]


@pytest.mark.parametrize("argv", [["feed", "--text", "hi"], ["report", "--body", "hi"],
                                  ["feed", "--follow"]])
def test_a_streams_end_lists_untrusted_fields_as_the_envelope_does(argv):
    envelope = _cli(AGENTIC, *argv, "--json").json
    end = _end(*argv)
    assert end["untrusted"] == envelope["meta"]["untrusted"]
    assert end["untrusted"]["data"] == (["/*/text"] if argv[0] == "feed" else ["/body"])


@pytest.mark.parametrize("argv", [["feed", "--text", "hi"], ["report", "--body", "hi"]])
def test_a_streams_meta_says_where_untrusted_text_may_be_before_any_item(argv):
    """`@meta.untrusted` (the source document's name): the declared pointers and inputs, so
    an agent knows before the first item; the @end then says where it was."""
    lines = _cli(AGENTIC, *argv, "--format", "ndjson").stdout.splitlines()
    head = json.loads(lines[0])["@meta"]
    assert head["untrusted"] == ({"data": ["/*/text"], "inputs": ["text"]} if argv[0] == "feed"
                                 else {"data": ["/body"], "inputs": ["body"]})
    plain = json.loads(_cli(AGENTIC, "whoami", "--format", "ndjson").stdout.splitlines()[0])
    assert "untrusted" not in plain["@meta"]


def test_a_streamed_untrusted_value_never_reaches_the_streams_next():
    envelope = _cli(AGENTIC, "feed", "--follow", "--json").json
    assert envelope["next"][0]["command"] == "tasks report --body <untrusted> --json"
    end = _end("feed", "--follow")
    assert end["next"] == [{"command": "tasks report --body <untrusted> --format ndjson",
                            "when": "to report the last item"}]


# -- 3. removed_in against the program's version: refused at definition, with the fix -------

def _finishing(version, removed_in="3.0", on="command"):
    """A program at `version` whose `finish` (or its option `--quiet`) goes in `removed_in`."""
    from workbench import Command, Option, Program
    deprecation = {"deprecated": "renamed", "removed_in": removed_in}
    quiet = Option(type="boolean", description="say less",
                   **(deprecation if on == "option" else {}))
    return Program(name="tasks", version=version, commands=[
        Command(name="done", description="Mark it done", effects="idempotent",
                examples=["tasks done"], run=lambda ctx: {}),
        Command(name="finish", description="Old name of done", effects="idempotent",
                options={"quiet": quiet}, examples=["tasks finish"], run=lambda ctx: {},
                **(deprecation if on == "command" else {}))])


@pytest.mark.parametrize("version,removed_in,on", [
    ("3.0", "3.0", "command"), ("3.0.0", "3.0", "command"), ("3.1.4", "3", "option"),
    ("v4.0", "3.0", "command"), ("3.0.post1", "3.0", "option")])
def test_a_deprecation_due_for_removal_is_refused_at_definition(version, removed_in, on):
    from workbench import DefinitionError
    with pytest.raises(DefinitionError) as refused:
        _finishing(version, removed_in, on)
    said = str(refused.value)
    what = "command 'finish'" if on == "command" else "option 'quiet'"
    assert what in said and f"removed_in={removed_in!r}" in said and version in said
    assert "remove it" in said and "raise removed_in" in said   # the fix, both ways


@pytest.mark.parametrize("version,removed_in", [
    ("2.9", "3.0"), ("3.0rc1", "3.0"), ("3.0.0.dev2", "3.0"), ("0.0.0", "1.0"),
    ("dev", "3.0"), ("2.1.0", "next major")])
def test_a_deprecation_not_yet_due_or_without_a_comparable_version_is_kept(version, removed_in):
    assert _finishing(version, removed_in).version == version
    assert _finishing(version, removed_in, on="option").version == version


@pytest.mark.slow
def test_a_due_removal_is_refused_on_the_command_line_too(tmp_path):
    program = (AGENTIC.read_text(encoding="utf-8")
               .replace('version="2.1.0"', 'version="3.0.0"'))
    path = tmp_path / "tasks.py"
    path.write_text(program, encoding="utf-8")
    for argv in ([sys.executable, str(path), "--help"],   # as any definition error: raised
                 [sys.executable, "-m", "workbench.cli", "check", str(path)]):
        done = subprocess.run(argv, env=clean_env(TASKS_FILE=str(tmp_path / "tasks.json")),
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert done.returncode != 0 and done.stdout == ""
        said = done.stderr.splitlines()[-2 if "hint:" in done.stderr else -1]
        assert "command 'finish' is deprecated with removed_in='3.0'" in said
        assert "version 3.0.0: remove it" in said


# -- 4. plan twins are found by discovery's search, as the tools they are -------------------

def _progressive(tmp_path):
    path = tmp_path / "tasks.py"
    path.write_text(AGENTIC.read_text(encoding="utf-8").replace(
        'version="2.1.0",', 'version="2.1.0", discovery="progressive",'), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.asyncio
async def test_search_tools_finds_and_describe_tool_describes_a_plan_twin(tmp_path):
    from mcp import Client
    path = _progressive(tmp_path)
    async with Client(stdio_params(path, caller_env(tmp_path / "state"), tmp_path),
                      mode="legacy", cache=None) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "search_tools" in names and "done_plan" not in names
        found = json.loads(text_of(await client.call_tool(
            "search_tools", {"query": "plan marking a task done"})))["data"]["tools"]
        assert found[0] == {"name": "done_plan", "command": "done --dry-run",
                            "description": found[0]["description"]}
        assert found[0]["description"].startswith("What 'done' would change, changing nothing")
        assert "done" in [tool["name"] for tool in found]
        described = json.loads(text_of(await client.call_tool(
            "describe_tool", {"name": "done_plan"})))["data"]
        assert described["name"] == "done_plan"
        assert described["annotations"]["readOnlyHint"] is True
        assert "expect_plan" not in described["inputSchema"]["properties"]
        await client.call_tool("claim", {"title": "write the docs"})
        called = await client.call_tool("done_plan", {"id": 1})   # found, described, called
        assert json.loads(text_of(called))["data"]["plan"] == {"close": 1, "was_done": False}


@pytest.mark.slow
def test_help_search_finds_a_plan_twin_with_its_command_line_and_tool(tmp_path):
    path = _progressive(tmp_path)
    results = _cli(path, "help", "search", "plan marking a task done", "--json",
                   TASKS_FILE=str(tmp_path / "tasks.json")).json["data"]["results"]
    twin = results[0]
    assert (twin["command"], twin["tool"], twin["effects"]) == (
        "done --dry-run", "done_plan", "read_only")
    assert twin["usage"] == "tasks done --help"
    person = _cli(path, "help", "search", "plan marking a task done",
                  TASKS_FILE=str(tmp_path / "tasks.json"))
    assert person.stdout.splitlines()[0].startswith("done --dry-run  What 'done' would change")


# -- 5. a person's help lists the program's ambiguous words, as help --json does -------------

@pytest.mark.slow
def test_a_persons_help_lists_each_ambiguous_word_and_its_meanings(tmp_path):
    env = clean_env(NO_COLOR="1", TASKS_FILE=str(tmp_path / "tasks.json"))
    code, screen = run_in_pty([AGENTIC, "--help"], env, columns=100)
    assert code == 0
    lines = screen.replace("\r\n", "\n").splitlines()
    at = lines.index("Words with several meanings (alone, each is refused; run the one you "
                     "mean):")
    words = _cli(AGENTIC, "help", "--json").json["ambiguous"]
    assert lines[at + 1:at + 3] == [
        "  close  'tasks done' to mark a task done; 'tasks drop' to drop a task",
        "  take   'tasks claim' to claim a new task; 'tasks mine' to list your tasks"]
    assert list(words) == ["close", "take"]   # the same words, in the same order
    assert at < lines.index("Built-in commands:")   # after the commands, before the built-ins
    code, notes = run_in_pty([SAMPLES / "notes.py", "--help"], env, columns=80)
    assert "  delete  'notes remove' to remove one note; 'notes purge' to delete every note" \
        in notes.replace("\r\n", "\n")
    piped = _cli(AGENTIC, "--help").stdout   # agents and pipes: the same bytes as before
    assert "several meanings" not in piped


# -- 6. the dashboard's Help pane shows what a person's terminal shows ----------------------

@pytest.mark.slow
async def test_the_dashboards_help_pane_shows_the_persons_help():
    from _dashboard_helpers import dashboard

    from workbench.surfaces.help import render_help
    async with dashboard(SAMPLES / "notes.py") as (app, pilot):
        app.show_tab("help")
        await pilot.pause()
        text = app.pane("help").text
        person = render_help(app.state.program, person=True)
        assert person in text and "notes --help" in text
        assert "Words with several meanings" in text and "Built-in commands:" in text
        assert "Built in:" not in text   # the agent's line
        app.select_command("add")
        await pilot.pause()
        text = app.pane("help").text
        command = next(c for c in app.state.commands() if tuple(c.path) == ("add",))
        assert render_help(app.state.program, command, person=True) in text
        assert "For agents:" in text and "--idempotency-key" not in text
