"""`workbench.testing.Runner`: a program in-process, from argv or as an MCP tool call.

Every option of `invoke` and `call`, handlers that misbehave, nothing leaking into this
process, and a tool call whose result equals the real stdio server's, byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import PROGRAMS, ROOT, SAMPLES, clean_env
from workbench import Argument, Command, Option, Program
from workbench.loader import load_program
from workbench.testing import Result, Runner


@pytest.fixture(scope="module")
def deploy():
    return Runner(load_program(str(SAMPLES / "deploy.py")))


@pytest.fixture(scope="module")
def kitchen():
    return Runner(load_program(str(PROGRAMS / "kitchen.py")))


@pytest.fixture(scope="module")
def unruly():
    return Runner(load_program(str(PROGRAMS / "unruly.py")))


@pytest.fixture
def notes(tmp_path):
    return Runner(load_program(str(SAMPLES / "notes.py")),
                  env={"NOTES_FILE": str(tmp_path / "notes.json")})


def _probe():
    """A program whose one command shows what it sees of the process around it."""
    def look(ctx):
        os.environ["LEAKED_BY_HANDLER"] = "1"
        return {"env": os.environ.get("PROBE"), "ctx_env": ctx.environ.get("PROBE"),
                "stdin": sys.stdin.read(), "tty": sys.stdin.isatty(), "agent": ctx.agent,
                "interactive": ctx.interactive}
    return Program("probe", commands=[Command("look", effects="read_only", run=look)])


# --- invoke ----------------------------------------------------------------------------------

def test_invoke_gives_exit_stdout_stderr_and_the_envelope(deploy):
    result = deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"])
    assert isinstance(result, Result) and result.exit == 0 and result.stderr == ""
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1
    assert result.json == result.envelope
    assert result.json["data"] == {"target": "staging", "build": "latest", "agent": None}


def test_invoke_takes_one_string_split_like_a_shell(deploy):
    assert deploy.invoke("deploy --target 'staging' --yes --json").json["data"]["target"] == \
        "staging"


def test_a_person_gets_text_and_the_envelope_is_still_there(deploy):
    result = deploy.invoke(["deploy", "--target", "staging", "--yes"])
    assert result.stdout == "deployed latest to staging\n"
    assert result.envelope["ok"] is True and result.envelope["data"]["target"] == "staging"


def test_help_and_schema_are_documents_without_an_envelope(deploy):
    result = deploy.invoke(["--help"])
    assert result.exit == 0 and result.stdout.startswith("tool 1.0.0") and result.envelope is None
    assert deploy.invoke(["deploy", "--schema"]).json["type"] == "object"


def test_a_refusal_is_the_usage_envelope(deploy):
    result = deploy.invoke(["deploy", "--targt", "prod", "--json"])
    assert result.exit == 2 and result.json["error"]["fix"] == "tool deploy --target prod --json"


def test_ndjson_lines_parse_one_by_one(kitchen):
    lines = kitchen.invoke(["many", "--count", "2", "--format", "ndjson"]).lines
    assert [line.get("i") for line in lines[1:-1]] == [0, 1]
    assert lines[0]["@meta"]["command"] == "many" and lines[-1]["@end"]["count"] == 2


# --- environment ----------------------------------------------------------------------------

def test_env_reaches_options_and_the_handler_and_none_removes_a_variable(kitchen, monkeypatch):
    monkeypatch.setenv("KITCHEN_SIZE", "3")
    assert kitchen.invoke(["echo", "--json"]).json["data"]["options"]["size"] == 3
    assert kitchen.invoke(["echo", "--json"], env={"KITCHEN_SIZE": "7"}) \
        .json["data"]["options"]["size"] == 7
    assert kitchen.invoke(["echo", "--json"], env={"KITCHEN_SIZE": None}) \
        .json["data"]["options"]["size"] is None


def test_runner_env_applies_to_every_run_and_a_run_env_wins(notes, tmp_path):
    assert notes.invoke(["add", "milk", "--json"]).exit == 0
    assert (tmp_path / "notes.json").is_file()
    other = tmp_path / "other.json"
    assert notes.invoke(["list", "--json"], env={"NOTES_FILE": str(other)}) \
        .json["data"]["count"] == 0
    assert notes.invoke(["list", "--json"]).json["data"]["count"] == 1


def test_the_handler_sees_the_simulated_environment_and_nothing_leaks(monkeypatch):
    monkeypatch.setenv("PROBE", "outer")
    before = dict(os.environ)
    streams = sys.stdin, sys.stdout, sys.stderr
    result = Runner(_probe()).invoke(["look", "--json"], env={"PROBE": "inner"})
    assert result.json["data"]["env"] == "inner" and result.json["data"]["ctx_env"] == "inner"
    assert dict(os.environ) == before and "LEAKED_BY_HANDLER" not in os.environ
    assert (sys.stdin, sys.stdout, sys.stderr) == streams


def test_the_testers_own_agent_and_ci_markers_are_not_inherited(deploy, monkeypatch):
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("FORCE_TTY", "1")
    environ = deploy.environ()
    assert not {"CLAUDECODE", "CI", "FORCE_TTY"} & set(environ)
    assert deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"]) \
        .json["data"]["agent"] is None
    assert deploy.invoke(["status", "--json"], env={"CI": "true"}).exit == 0


# --- stdin, agent, terminal ------------------------------------------------------------------

def test_input_is_standard_input_for_ctx_and_for_the_handler(notes, unruly):
    added = notes.invoke(["add", "-", "--json"], input="from stdin\n").json
    assert added["data"]["text"] == "from stdin"
    assert added["meta"]["provenance"]["text"] == {"source": "stdin"}
    assert unruly.invoke(["echo", "-", "--json"], input="piped").json["data"] == {"text": "piped"}
    seen = Runner(_probe()).invoke(["look", "--json"], input="raw").json["data"]
    assert seen["stdin"] == "raw" and seen["tty"] is False


def test_without_input_stdin_is_empty_and_nobody_is_asked(kitchen):
    result = kitchen.invoke(["confirm"])
    assert result.exit == 4 and result.stdout == ""
    assert result.stderr.splitlines()[1] == \
        "next: kitchen confirm --yes   # once the change is what you want"


@pytest.mark.parametrize("agent, variable", [("claude-code", "CLAUDECODE"),
                                             ("cursor", "CURSOR_AGENT"), ("codex", "CODEX_THREAD_ID"),
                                             ("gemini", "GEMINI_CLI"), ("my-bot", "AI_AGENT")])
def test_an_agent_is_simulated_by_its_own_variable(deploy, agent, variable):
    assert variable in deploy.environ(agent=agent)
    result = deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"], agent=agent)
    assert result.json["data"]["agent"] == agent


def test_an_agent_gets_action_required_with_a_runnable_next(deploy):
    first = deploy.invoke(["deploy", "--target", "prod", "--json"], agent="claude-code")
    assert first.exit == 4 and first.json["status"] == "action_required"
    command = first.json["next"][0]["command"]
    assert command == "tool deploy --target prod --yes --json"
    again = deploy.invoke(command.split()[1:], agent="claude-code")
    assert again.exit == 0 and again.json["data"]["agent"] == "claude-code"


def test_a_terminal_makes_a_person_who_answers_prompts_from_input(deploy, kitchen):
    yes = deploy.invoke(["deploy", "--target", "prod"], terminal=True, input="y\n")
    assert yes.exit == 0 and yes.stdout == "deployed latest to prod\n"
    assert yes.stderr == "deploy to prod? [y/N] "
    no = deploy.invoke(["deploy", "--target", "prod"], terminal=True, input="n\n")
    assert no.exit == 1 and "deploy cancelled" in no.stderr
    asked = kitchen.invoke(["ask"], terminal=True, input="Ada\n")
    assert asked.exit == 0 and "Ada" in asked.stdout
    seen = Runner(_probe()).invoke(["look", "--json"], terminal=True).json["data"]
    assert seen["tty"] is True and seen["interactive"] is True


def test_a_terminal_with_no_answer_left_is_input_closed(kitchen):
    result = kitchen.invoke(["ask"], terminal=True)
    assert result.exit == 4 and "standard input closed" in result.stderr


def test_json_at_a_terminal_is_never_prompted(kitchen):
    """--json asks for data: stderr stays empty, and the question is the flag to pass."""
    result = kitchen.invoke(["ask", "--json"], terminal=True, input="Ada\n")
    assert result.exit == 2 and result.stderr == ""
    assert result.json["error"]["code"] == "input_required"


def test_an_agent_on_a_terminal_is_never_prompted(deploy, kitchen):
    result = deploy.invoke(["deploy", "--target", "prod", "--json"], terminal=True,
                           agent="cursor", input="y\n")
    assert result.exit == 4 and result.json["status"] == "action_required"
    assert kitchen.invoke(["ask", "--json"], terminal=True, env={"CI": "1"}).exit == 2


# --- misbehaving handlers --------------------------------------------------------------------

def test_a_handler_that_prints_lands_in_meta_output_masked(unruly):
    result = unruly.invoke(["print", "--token", "s3cret-value", "--json"])
    assert result.exit == 0 and result.stderr == ""
    assert result.json["meta"]["output"]["stdout"] == "printed by the handler ***\n"


def test_a_person_sees_what_the_handler_printed_before_the_result(unruly):
    result = unruly.invoke(["print", "--token", "t0ken-value"])
    assert result.stdout.startswith("printed by the handler ***\n")
    assert "t0ken-value" not in result.stdout + result.stderr


def test_a_child_process_and_a_closed_stdout_are_caught(unruly):
    child = unruly.invoke(["child", "--json"])
    assert child.json["meta"]["output"]["stdout"] == "from a child process\n"
    closer = unruly.invoke(["closer", "--json"])
    assert closer.json["data"] == {"closed": True}
    assert closer.json["meta"]["output"]["stdout"] == "inside with\n"


@pytest.mark.parametrize("code, exit", [(0, 0), (3, 3), (9, 1)])
def test_sys_exit_in_a_handler_is_an_envelope(unruly, code, exit):
    result = unruly.invoke(["exit", str(code), "--json"])
    assert result.exit == exit and result.json == result.envelope


def test_a_handler_that_raises_is_internal_and_debug_adds_the_traceback(kitchen):
    result = kitchen.invoke(["explode", "--json"])
    assert result.exit == 1 and result.stderr == "" and result.json["error"]["code"] == "internal"
    debug = kitchen.invoke(["explode", "--json", "--debug"])
    assert "Traceback (most recent call last)" in debug.stderr


def test_data_that_is_not_json_is_invalid_result(unruly):
    result = unruly.invoke(["odd", "--json"])
    assert result.exit == 1 and result.json["error"]["code"] == "invalid_result"


def test_nothing_reaches_the_real_descriptors(unruly, kitchen, capfd):
    unruly.invoke(["print", "--token", "x"])
    unruly.invoke(["child"])
    unruly.invoke(["exit", "3"])
    kitchen.invoke(["explode", "--debug"])
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_mcp_serving_is_refused_in_process(deploy):
    result = deploy.invoke(["mcp", "--json"])
    assert result.exit == 2 and result.json["error"]["code"] == "unavailable_here"


# --- call ------------------------------------------------------------------------------------

def test_call_runs_a_tool_and_gives_the_result_and_its_envelope(deploy):
    result = deploy.call("deploy", {"target": "staging", "yes": True})
    assert result.exit == 0 and not result.is_error and result.stderr == ""
    assert result.result["content"][0]["text"] == result.stdout
    assert result.envelope == result.json and result.json["data"]["target"] == "staging"
    cli = deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"],
                        env={"BURGEE_AGENT": "on"})   # as every MCP call is an agent's
    assert result.stdout + "\n" == cli.stdout


def test_call_refuses_bad_arguments_and_unknown_tools_as_results(deploy):
    bad = deploy.call("deploy", {"target": 3, "yes": "maybe"})
    assert bad.is_error and bad.exit == 2 and bad.json["error"]["code"] == "invalid_value"
    unknown = deploy.call("deplyo", {})
    assert unknown.is_error and unknown.json["error"]["code"] == "unknown_tool"
    assert "did you mean: deploy?" in unknown.json["error"]["hint"]
    not_object = deploy.call("status", None)
    assert not not_object.is_error


def test_call_simulates_env_and_agent_and_catches_misbehaviour(deploy, unruly, kitchen):
    assert deploy.call("deploy", {"target": "staging", "yes": True}, agent="gemini") \
        .json["data"]["agent"] == "gemini"
    assert kitchen.call("echo", {}, env={"KITCHEN_SIZE": "5"}).json["data"]["options"]["size"] == 5
    printed = unruly.call("print", {"token": "abc"})
    assert printed.json["meta"]["output"]["stdout"] == "printed by the handler ***\n"
    exited = unruly.call("exit", {"code": 3})
    assert exited.is_error and exited.exit == 3
    raised = kitchen.call("explode", {})
    assert raised.is_error and raised.json["error"]["code"] == "internal"


def test_call_gives_structured_content_for_an_output_schema(notes):
    notes.invoke(["add", "milk", "--json"])
    result = notes.call("list", {})
    assert result.result["structuredContent"] == result.json["data"]


@pytest.mark.slow
async def test_call_equals_the_real_stdio_servers_result_bytes(tmp_path):
    """The same calls through `python deploy.py mcp` and the SDK's client, and in-process."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from _mcp_helpers import caller_env, stdio_params
    extra = caller_env(tmp_path / "state")
    runner = Runner(load_program(str(SAMPLES / "deploy.py")))
    calls = [("deploy", {"target": "staging", "yes": True}), ("deploy", {"target": "prod"}),
             ("rollback", {"target": "staging", "to": "2026.11.30-1", "why": "bad build"}),
             ("rollback", {"target": "staging", "to": "2026.11.30-1"}),   # --why required
             ("promote", {"build": "2026.11.30-1"}),   # person-only: exit 13 over MCP
             ("status", {"target": 5}), ("deplyo", {})]
    with open(tmp_path / "err.txt", "w+") as errlog:
        async with Client(stdio_client(stdio_params(SAMPLES / "deploy.py", extra, tmp_path),
                                       errlog=errlog), cache=None, mode="legacy") as client:
            for name, arguments in calls:
                served = await client.call_tool(name, arguments)
                wire = served.model_dump(mode="json", by_alias=True, exclude_none=True)
                wire.pop("resultType", None)   # the SDK's own marker, not the server's answer
                here = runner.call(name, arguments).result
                assert wire == here, name
                assert json.dumps(wire["content"], separators=(",", ":")).encode() == \
                    json.dumps(here["content"], separators=(",", ":")).encode()


# --- imports ---------------------------------------------------------------------------------

def test_the_helper_never_imports_the_mcp_sdk_and_is_a_lazy_export():
    code = textwrap.dedent(f"""
        import sys
        import workbench
        assert "workbench.testing" not in sys.modules
        from workbench.loader import load_program
        runner = workbench.testing.Runner(load_program({str(SAMPLES / 'deploy.py')!r}))
        assert runner.call("status", {{}}).exit == 0
        assert runner.invoke(["status", "--json"]).exit == 0
        heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("mcp", "mcp_types", "textual"))
        print(heavy)
    """)
    done = subprocess.run([sys.executable, "-c", code], env=clean_env(PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


def test_a_custom_program_needs_no_file():
    program = Program("hello", commands=[Command(
        "greet", effects="read_only", arguments=[Argument("name")],
        options={"shout": Option(type="boolean")},
        run=lambda ctx: {"greeting": ("HELLO " if ctx.options.shout else "hello ") + ctx.args.name})])
    runner = Runner(program)
    assert runner.invoke(["greet", "ada", "--shout", "--json"]).json["data"] == \
        {"greeting": "HELLO ada"}
    assert runner.call("greet", {"name": "ada"}).json["data"] == {"greeting": "hello ada"}


def test_ctx_stdin_and_sys_stdin_are_one_stream():
    def both(ctx):
        return {"ctx": ctx.stdin(), "sys": sys.stdin.read()}
    program = Program("both", commands=[Command("read", effects="read_only", run=both)])
    assert Runner(program).invoke(["read", "--json"], input="once").json["data"] == \
        {"ctx": "once", "sys": ""}


def test_an_adapted_program_runs_too():
    """An argparse program, adapted: the person sees its own output, a JSON caller the data."""
    runner = Runner(load_program(str(SAMPLES / "argparse_app.py")))
    assert runner.invoke("temp 100").stdout == "100 c = 212.00 f\n"
    assert runner.invoke("temp 100 --json").json["data"] == "100 c = 212.00 f"
    assert runner.call("temp", {"value": 100}).json["data"] == "100 c = 212.00 f"


# --- what click.testing.CliRunner users rely on (issue 30) ------------------------------------

def _failing_program():
    from workbench import Fail

    def boom(ctx):
        raise ValueError("the handler broke")

    def refuse(ctx):
        raise Fail("not_found", "no such thing", exit=3)

    def stop(ctx):
        sys.exit(5)

    return Program("t", commands=[Command("boom", effects="read_only", run=boom),
                                  Command("refuse", effects="read_only", run=refuse),
                                  Command("stop", effects="read_only", run=stop),
                                  Command("fine", effects="read_only", run=lambda ctx: 1)])


def test_result_exception_and_exc_info_say_what_the_handler_raised():
    runner = Runner(_failing_program())
    boom = runner.invoke(["boom"])
    assert boom.exit == 1 and isinstance(boom.exception, ValueError)
    assert boom.exc_info[0] is ValueError and boom.exc_info[2] is not None   # a traceback
    assert type(runner.invoke(["refuse", "--json"]).exception).__name__ == "Fail"
    assert isinstance(runner.invoke(["stop", "--json"]).exception, SystemExit)
    assert runner.invoke(["fine"]).exception is None
    assert runner.invoke(["nope"]).exception is None   # refused before anything ran
    assert isinstance(runner.call("boom", {}).exception, ValueError)


def test_catch_exceptions_false_lets_a_handler_bug_propagate():
    runner = Runner(_failing_program(), catch_exceptions=False)
    with pytest.raises(ValueError, match="the handler broke"):
        runner.invoke(["boom", "--json"])
    with pytest.raises(ValueError, match="the handler broke"):
        runner.call("boom", {})
    assert runner.invoke(["refuse", "--json"]).exit == 3   # a domain failure is not a bug


def test_isolated_filesystem_is_a_fresh_working_folder_removed_after():
    runner = Runner(_failing_program())
    before = os.getcwd()
    with runner.isolated_filesystem() as path:
        assert os.getcwd() == path and os.listdir(path) == []
        with open("made.txt", "w") as handle:
            handle.write("x")
    assert os.getcwd() == before and not os.path.exists(path)


def test_a_runner_takes_a_typed_app():
    from workbench.typed import App
    app = App("t")

    @app.command(effects="read_only")
    def hello(name: str) -> dict:
        """Say hello"""
        return {"hello": name}

    runner = Runner(app)
    assert runner.invoke(["hello", "ada", "--json"]).json["data"] == {"hello": "ada"}
    assert runner.call("hello", {"name": "bob"}).json["data"] == {"hello": "bob"}
