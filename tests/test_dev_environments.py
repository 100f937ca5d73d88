"""Simulated environments: one call under a real pty, a pipe, each agent and CI, as subprocesses."""

import json
import os
import textwrap

import pytest
from conftest import ended, wait_until

from workbench.dev.engine import Workbench

APP = textwrap.dedent('''
    import os, time
    from workbench import Command, Option, Program

    def deploy(ctx):
        if not ctx.options.yes and not ctx.interactive:
            ctx.action_required(reason="confirm", message="deploying needs confirmation",
                                next=[{"command": "deploy --yes", "when": "once reviewed"}])
        if not ctx.options.yes and not ctx.confirm("deploy now?"):
            return {"deployed": False}
        return {"deployed": True, "agent": ctx.agent, "ci": os.environ.get("CI")}

    def hang(ctx):
        import subprocess
        child = subprocess.Popen(["sleep", "300"])
        with open(os.environ["HANG_PID_FILE"], "w") as handle:
            handle.write(str(child.pid))
        time.sleep(60)

    program = Program(name="app", version="1.0.0", description="Deploys", commands=[
        Command(name="deploy", description="Deploy", effects="non_idempotent",
                options={"yes": Option(type="boolean", description="skip the confirmation")},
                examples=["app deploy --yes"], run=deploy),
        Command(name="hang", description="Never returns", effects="read_only",
                examples=["app hang"], run=hang),
    ])
''')


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    folder = tmp_path_factory.mktemp("env")
    (folder / "app.py").write_text(APP, encoding="utf-8")
    bench = Workbench(str(folder / "app.py"), load_timeout=None)
    assert bench.reload().ok
    return bench


@pytest.mark.slow
def test_a_terminal_sees_the_prompt_and_an_agent_gets_exit_4_with_next(bench):
    names = ["terminal", "piped", "agent:claude-code", "agent:cursor", "agent:codex",
             "agent:gemini", "ci"]
    results = {r.environment: r for r in bench.run_environments(["deploy"], environments=names,
                                                                  timeout=20)}
    terminal = results["terminal"]
    assert terminal.exit is None and terminal.timed_out
    assert "deploy now?" in terminal.stdout + terminal.stderr
    assert "waiting for input" in terminal.error
    for name in names[1:]:
        assert results[name].exit == 4, (name, results[name])
        assert "next: app deploy --yes" in results[name].stderr


@pytest.mark.slow
def test_each_agent_is_named_and_ci_has_stdin_closed(bench):
    names = ["agent:claude-code", "agent:cursor", "agent:codex", "agent:gemini", "ci", "piped"]
    results = bench.run_environments(["deploy", "--yes", "--json"], environments=names, timeout=20)
    data = {r.environment: json.loads(r.stdout)["data"] for r in results}
    assert [data[n]["agent"] for n in names] == ["claude-code", "cursor", "codex", "gemini",
                                                 None, None]
    assert data["ci"]["ci"] == "1" and data["piped"]["ci"] is None
    assert all(r.exit == 0 and r.stderr == "" for r in results)


def test_a_terminal_answer_goes_through_the_pty(bench):
    [result] = bench.run_environments(["deploy"], environments=["terminal"], stdin="y\n",
                                      timeout=20)
    assert result.exit == 0 and not result.timed_out
    assert "deployed" in result.stdout.lower() or "true" in result.stdout.lower()


@pytest.mark.slow
def test_a_hanging_handler_is_cut_off_with_its_children(bench, tmp_path, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("HANG_PID_FILE", str(pid_file))
    [result] = bench.run_environments(["hang"], environments=["piped"], timeout=1.0)
    assert result.timed_out and result.exit is None and "stopped after 1 s" in result.error
    child = int(pid_file.read_text())
    wait_until(lambda: ended(child), f"the handler's child {child} to end", 30)
    [after] = bench.run_environments(["deploy", "--yes"], environments=["piped"], timeout=20)
    assert after.exit == 0


def test_arguments_become_argv_for_the_command(bench):
    [result] = bench.run_environments(command="deploy", arguments={"yes": True},
                                      environments=["agent:codex"], timeout=20)
    assert result.argv == ("deploy", "--yes") and result.exit == 0


def test_runs_use_the_last_good_source_not_the_broken_file(bench, tmp_path):
    path = bench.file
    good = open(path, encoding="utf-8").read()
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("this is not python(\n")
        assert bench.reload().load_error.code == "syntax_error"
        [result] = bench.run_environments(["deploy", "--yes"], environments=["piped"], timeout=20)
        assert result.exit == 0
    finally:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(good)
        os.utime(path)
        bench.reload()


@pytest.mark.slow
def test_the_mcp_environment_calls_the_tool_and_reports_the_envelope_exit(bench):
    results = bench.run_environments(["deploy"], environments=["mcp", "agent:claude-code"],
                                     timeout=20)
    mcp, agent = results
    assert mcp.arguments == {} and mcp.exit == 4 == agent.exit
    assert '"status":"action_required"' in mcp.stdout and '"next":' in mcp.stdout
    [done] = bench.run_environments(["deploy", "--yes"], environments=["mcp"], timeout=20)
    assert done.exit == 0 and done.arguments == {"yes": True}


def test_argv_becomes_the_arguments_a_client_would_send():
    from workbench.dev.inputs import arguments_from_argv
    from workbench.dev.loader import load_in_process
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    notes = load_in_process(os.path.join(root, "sample_programs", "notes.py")).program
    command, arguments = arguments_from_argv(notes, ["add", "buy milk", "--tag", "home", "--json"])
    assert command.name == "add" and arguments == {"text": "buy milk", "tag": ["home"]}
    assert arguments_from_argv(notes, ["list"])[1] == {}     # defaults and env are not sent


def test_a_terminal_and_a_pipe_run_when_the_workbench_holds_more_than_1024_files(bench):
    """select() cannot watch an fd past 1024; a long session with many clients gets there."""
    from _fds import past_1024
    with past_1024():
        results = bench.run_environments(["deploy", "--yes", "--json"],
                                         environments=["terminal", "piped"], timeout=20)
    assert [r.exit for r in results] == [0, 0], results
    assert all('"deployed":true' in r.stdout.replace(" ", "") for r in results), results
