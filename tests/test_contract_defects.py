"""The defects `burgee check` found on ordinary paths (issue 28), each pinned as it was reported:
a confirm that ignored its flag, fixes that did not run, cards that lied, placeholders that ran,
raw terminal escapes, misplaced secrets echoed, MCP's `-`, an NDJSON `next` that lost its
format, and an exit code allowed at run time but refused at definition."""

from __future__ import annotations

import shlex

import pytest

from conftest import SAMPLES, clean_env, run_program
from test_runtime import _run_in_pty
from workbench import Argument, Command, Fail, Option, Program
from workbench.declaration.model import DefinitionError
from workbench.testing import Runner

LOGIN = '''
from workbench import Command, Option, Program, run

program = Program(name="tool", version="1.0.0", description="Log in", commands=[
    Command(name="login", description="Log in", effects="idempotent",
            options={"token": Option(type="string", sensitive=True, description="the token")},
            examples=["tool login"], run=lambda ctx: {"logged_in": bool(ctx.options.token)}),
])

if __name__ == "__main__":
    run(program)
'''


@pytest.fixture
def notes_env(tmp_path):
    return clean_env(NOTES_FILE=tmp_path / "notes.json", BURGEE_STATE_DIR=tmp_path / "state")


def _notes(*args, env, **kw):
    return run_program(SAMPLES / "notes.py", *args, env=env, **kw)


# -- confirm honours its flag ------------------------------------------------------------------

def test_confirm_honours_its_flag_without_a_terminal(notes_env):
    _notes("add", "x", env=notes_env)
    result = _notes("purge", "--yes", "--json", env=notes_env)
    assert result.exit == 0, result
    assert result.json["data"] == {"deleted": 1}


def test_confirm_honours_its_flag_at_a_terminal(notes_env):
    _notes("add", "x", env=notes_env)
    code, output = _run_in_pty([str(SAMPLES / "notes.py"), "purge", "--yes"], notes_env,
                               answer="n")   # asked anyway: "no", so a prompt cannot pass
    assert "[y/N]" not in output
    assert code == 0 and "deleted" in output


def test_confirm_without_its_flag_still_offers_a_next_that_runs(notes_env):
    result = _notes("purge", "--json", env=notes_env)
    assert result.exit == 4
    command = result.json["next"][0]["command"]
    assert command == "notes purge --yes --json"
    assert _notes(*shlex.split(command)[1:], env=notes_env).exit == 0


# -- a fix drops an unknown flag with its value ------------------------------------------------

@pytest.mark.parametrize("flag", [["--request-id", "r1"], ["--jmespath", "[0]"], ["--input", "-"],
                                  ["--timeout", "1"]])
def test_a_fix_drops_an_unknown_flag_with_its_value(flag):
    argv = ["deploy", "--target", "staging", "--yes", *flag, "--json"]
    result = run_program(SAMPLES / "deploy.py", *argv)
    assert result.exit == 2 and result.json["error"]["code"] == "unknown_option"
    fix = result.json["error"]["fix"]
    assert fix == "tool deploy --target staging --yes --json"
    again = run_program(SAMPLES / "deploy.py", *shlex.split(fix)[1:])
    assert again.exit == 0, again


def test_a_fix_that_cannot_know_points_at_the_help(notes_env):
    """`notes show --bogus abc`: without `abc` the note's id is missing, with it the id is not
    a number; no line can be printed that runs, so the fix is the command's help."""
    result = _notes("show", "--bogus", "abc", "--json", env=notes_env)
    assert result.json["error"]["code"] == "unknown_option"
    assert result.json["error"]["fix"] == "notes show --help --json"


def test_a_fix_that_may_drop_an_argument_says_so():
    """`items import` takes any number of lines: `x` may be --bogus's value or a line. The
    fix drops it (flags are given values far more often), and the hint says so."""
    result = run_program(SAMPLES / "warehouse.py", "items", "import", "--bogus", "x",
                         "SKU-0001=1", "--json")
    error = result.json["error"]
    assert error["fix"] == "warehouse items import SKU-0001=1 --json"
    assert "put it back if it is an argument" in error["hint"]


def test_a_fix_keeps_a_value_that_is_the_commands_argument(tmp_path):
    program = Program(name="t", version="1", commands=[
        Command(name="show", description="d", effects="read_only",
                arguments=[Argument("id", type="integer", description="the id")],
                run=lambda ctx: ctx.args.id)])
    result = Runner(program).invoke(["show", "--verbose", "7", "--json"])
    assert result.json["error"]["fix"] == "t show 7 --json"


# -- cards list every code the framework can raise ---------------------------------------------

def _card(path, *words):
    return run_program(path, *words, "--help", "--json").json


def test_a_card_lists_the_codes_its_handler_raises():
    card = _card(SAMPLES / "notes.py", "show")
    assert {"code": "not_found", "exit": 3} in [{k: e[k] for k in ("code", "exit")}
                                                for e in card["errors"]]
    assert 3 in card["exit_codes"]


def test_a_card_lists_the_codes_the_framework_raises_for_it():
    card = _card(SAMPLES / "warehouse.py", "items", "restock")
    codes = {entry["code"]: entry["exit"] for entry in card["errors"]}
    assert codes["plan_changed"] == 5
    assert codes["idempotency_conflict"] == 5
    assert codes["in_progress"] == 6
    assert 5 in card["exit_codes"] and 6 in card["exit_codes"]


# -- template placeholders are refused ---------------------------------------------------------

@pytest.mark.parametrize("value", ["<target>", "$TARGET", "${TARGET}", "YOUR_TARGET",
                                   "{{target}}"])
def test_a_placeholder_value_is_refused(value):
    result = run_program(SAMPLES / "deploy.py", "deploy", "--target", value, "--yes", "--json")
    assert result.exit == 2, result
    error = result.json["error"]
    assert error["code"] == "input_placeholder"
    assert "--target" in error["message"] and "real value" in error["hint"]


def test_a_placeholder_for_a_variable_names_the_variable(notes_env):
    result = _notes("sync", "push", "--token", "$NOTES_TOKEN", "--json", env=notes_env)
    assert result.exit == 2
    error = result.json["error"]
    assert error["code"] == "input_placeholder"
    assert "NOTES_TOKEN" in error["hint"]
    # the variable, unquoted: the shell that runs the fix expands it (quoted, it was not)
    assert error["fix"] == "notes sync push --token $NOTES_TOKEN --json"
    env = {**notes_env, "NOTES_TOKEN": "tok-271828"}
    from workbench._text import split
    ran = _notes(*split(error["fix"], env)[1:], env=env)   # as a shell runs it
    assert ran.exit != 2, ran


def test_a_placeholder_is_refused_over_mcp_too():
    from workbench.loader import load_program
    runner = Runner(load_program(str(SAMPLES / "deploy.py")))
    result = runner.call("deploy", {"target": "<target>", "yes": True})
    assert result.is_error and result.json["error"]["code"] == "input_placeholder"


@pytest.mark.slow
def test_values_that_only_look_alike_still_run(notes_env):
    for text in ["<b>bold</b>", "costs $5", "a <note>", "$", "your move"]:
        assert _notes("add", text, "--json", env=notes_env).exit == 0, text


# -- control characters are escaped in human output --------------------------------------------

def test_control_characters_in_data_are_escaped_for_a_person(notes_env):
    _notes("add", "\x1b]0;pwned\x07hi", env=notes_env)
    listed = _notes("list", env=notes_env)
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    assert "\\x1b]0;pwned\\x07hi" in listed.stdout
    exact = _notes("list", "--json", env=notes_env)
    assert exact.json["data"]["notes"][0]["text"] == "\x1b]0;pwned\x07hi"


def test_our_own_refusals_escape_control_characters(notes_env):
    for argv in (["\x1b[31mred"], ["list", "--\x1b[2Jx"]):
        result = _notes(*argv, env=notes_env)
        assert result.exit == 2
        assert "\x1b" not in result.stderr and "\\x1b" in result.stderr, result


# -- misplaced sensitive values are masked ----------------------------------------------------

@pytest.mark.parametrize("argv", [["login", "--", "--token", "SECRET-VALUE-1"],
                                  ["login", "SECRET-VALUE-1"]])
@pytest.mark.parametrize("json", [True, False])
def test_a_misplaced_secret_is_never_echoed(tmp_path, argv, json):
    path = tmp_path / "login.py"
    path.write_text(LOGIN)
    result = run_program(path, argv[0], *(["--json"] if json else []), *argv[1:])
    assert result.exit == 2
    assert "SECRET-VALUE-1" not in result.stdout + result.stderr, result
    if json:
        fix = result.json["error"]["fix"]
        assert fix in ("tool login --json", "tool login --token <token> --json")
        filled = fix.replace("<token>", "SECRET-VALUE-1")
        assert run_program(path, *shlex.split(filled)[1:]).exit == 0


# -- MCP "-" is a literal ----------------------------------------------------------------------

def test_a_dash_over_mcp_is_a_literal(tmp_path):
    from workbench.loader import load_program
    runner = Runner(load_program(str(SAMPLES / "notes.py")),
                    env={"NOTES_FILE": str(tmp_path / "n.json")})
    result = runner.call("add", {"text": "-"})
    assert result.envelope["ok"] is True
    assert result.envelope["data"]["text"] == "-"
    assert result.envelope["meta"]["provenance"]["text"] == {"source": "argument", "location": 1}


def test_a_dash_on_the_command_line_still_reads_stdin(notes_env):
    result = _notes("add", "-", "--json", env=notes_env, input="from a pipe\n")
    assert result.json["data"]["text"] == "from a pipe"


# -- an NDJSON stream's next keeps its format --------------------------------------------------

def test_an_ndjson_next_keeps_the_format():
    result = run_program(SAMPLES / "warehouse.py", "items", "list", "--limit", "2", "--format",
                         "ndjson")
    end = [line for line in result.stdout.splitlines() if line.startswith('{"@end"')][0]
    import json
    command = json.loads(end)["@end"]["next"][0]["command"]
    assert command == "warehouse items list --limit 2 --cursor 2 --format ndjson"
    again = run_program(SAMPLES / "warehouse.py", *shlex.split(command)[1:])
    assert again.stdout.startswith('{"@meta"')


def test_an_ndjson_refusal_fix_keeps_the_format():
    result = run_program(SAMPLES / "warehouse.py", "items", "list", "--limt", "2", "--format",
                         "ndjson")
    import json
    end = json.loads(result.stdout.splitlines()[-1])["@end"]
    assert end["error"]["fix"] == "warehouse items list --limit 2 --format ndjson"


# -- an exit not in the table: refused the same way at run and definition time ----------------

def _raises(exit):
    def run(ctx):
        raise Fail("quota", "over quota", exit=exit)
    return run


def test_an_exit_not_in_the_table_is_refused_at_run_time_as_at_definition():
    program = Program(name="t", version="1", commands=[
        Command(name="go", description="d", effects="read_only", run=_raises(12))])
    result = Runner(program).invoke(["go", "--json"])
    error = result.json["error"]
    with pytest.raises(DefinitionError) as refused:
        Program(name="t", version="1", commands=[
            Command(name="go", description="d", effects="read_only", run=_raises(1),
                    errors=[{"code": "quota", "exit": 12}])])
    assert result.exit == 1
    assert error["code"] == "invalid_exit"
    assert "quota" in error["message"] and "12" in error["message"]
    # the same sentence names the same fix at both times
    assert error["message"].split(": ", 1)[1] in str(refused.value)


# -- a repeated boolean flag: accepted as Click does (last wins), never a fix that fails -------

def test_a_repeated_boolean_flag_runs_as_in_click(tmp_path):
    """`repo clone foo -vvv` answered duplicate_option with a fix `-v -v`, refused again.
    Click accepts a flag given again (the last spelling wins); so does burgee."""
    home = str(tmp_path / "repo")
    for flags in (["-vvv"], ["-v", "-v"], ["--verbose", "-v"]):
        result = run_program(SAMPLES / "ported" / "repo.py", "--repo-home", home, "clone",
                             "foo", *flags, "--json")
        assert result.exit == 0, (flags, result.stdout, result.stderr)
    program = Program(name="t", version="1", commands=[
        Command(name="go", description="d", effects="read_only",
                options={"yes": Option(type="boolean", description="yes")},
                run=lambda ctx: ctx.options.yes)])
    runner = Runner(program)
    assert runner.invoke(["go", "--yes", "--no-yes", "--json"]).json["data"] is False
    assert runner.invoke(["go", "--no-yes", "--yes", "--json"]).json["data"] is True
    # an option that takes one value, given twice, is still refused with a fix that runs
    keeps = Program(name="t", version="1", commands=[
        Command(name="go", description="d", effects="read_only",
                options={"n": Option(type="integer", description="n")},
                run=lambda ctx: ctx.options.n)])
    error = Runner(keeps).invoke(["go", "--n", "1", "--n", "2", "--json"]).json["error"]
    assert error["code"] == "duplicate_option"
    assert Runner(keeps).invoke(error["fix"]).exit == 0


def test_a_printed_line_splits_as_a_shell_runs_it():
    """A fix's `$VAR` is for the shell that runs it: expanded outside single quotes, an unset
    one alone is no word; without an environment nothing expands."""
    from workbench._text import split
    env = {"TOKEN": "t 1", "EMPTY": ""}
    assert split("a --token $TOKEN b", env) == ["a", "--token", "t 1", "b"]
    assert split("a \"${TOKEN}x\" '$TOKEN' $UNSET \"$EMPTY\" $ $1", env) == \
        ["a", "t 1x", "$TOKEN", "", "$", "$1"]
    assert split("a --token $TOKEN") == ["a", "--token", "$TOKEN"]
