"""What a Click or Typer program declares, burgee declares (issue 30): each feature over the
command line and MCP, each refusal's fix run as printed, and the typed form byte-identical.

The program is tests/programs/features.py (data) and features_typed.py (type hints).
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import subprocess
import sys

import pytest

from conftest import PROGRAMS, ROOT, clean_env, run_program
from workbench import Argument, Command, DefinitionError, Group, Option, Program
from workbench.runtime.pipeline import call
from workbench.testing import Runner

FEATURES = PROGRAMS / "features.py"
TYPED = PROGRAMS / "features_typed.py"


@pytest.fixture(scope="module")
def kit():
    return runpy.run_path(str(FEATURES))["program"]


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A working folder with two input files and an output folder."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(name)
    (tmp_path / "out").mkdir()
    return tmp_path


def ok(result):
    assert result.exit == 0, (result.stdout, result.stderr)
    return result.json["data"]


def refused(result, code):
    doc = result.json
    assert doc["ok"] is False and doc["error"]["code"] == code, doc
    return doc["error"]


def follow(runner, error):
    """Run a refusal's fix as printed (a command line, or MCP arguments as JSON)."""
    fix = error["fix"]
    if fix.startswith("{"):
        return None
    return runner.invoke(fix)


def filled(error, **values):
    """A refusal's MCP fix with its slots (`"$KIT_JOBS_ADD_TOKEN"`) given the values the caller
    holds, as an agent fills them: a slot is refused as a value (`input_placeholder`)."""
    fix = json.loads(error["fix"])
    assert set(values) <= set(fix), (values, fix)
    return {**fix, **values}


ADD = ["jobs", "add", "a.txt", "out", "--token", "t0k3n", "--json"]


# --- shared options and state ------------------------------------------------------------------

def test_a_program_option_goes_before_the_command_after_a_group_or_after_the_command(kit, files):
    runner = Runner(kit)
    for argv in (["--store", "out", "-vv", *ADD],
                 ["jobs", "--store", "out", "-vv", *ADD[1:]],
                 [*ADD, "--store", "out", "-v", "-v"]):
        data = ok(runner.invoke(argv))
        assert (data["options"]["store"], data["options"]["verbose"]) == ("out", 2), argv
        assert data["opened"] == ["program", "jobs"]   # each setup, outermost first
    group = ok(runner.invoke(["jobs", "--queue", "night", "show", "x", "--json"]))
    assert group == {"name": "x", "queue": "night", "opened": ["program", "jobs"]}
    assert ok(runner.invoke(["jobs", "show", "x", "--queue", "day", "--json"]))["queue"] == "day"


def test_a_group_option_before_its_group_is_moved_after_it_by_the_fix(kit):
    runner = Runner(kit)
    error = refused(runner.invoke(["--queue", "night", "jobs", "show", "x", "--json"]),
                    "unknown_option")
    assert error["fix"] == "kit jobs show --queue night x --json"
    assert ok(follow(runner, error))["queue"] == "night"


def test_options_before_no_command_are_refused_with_where_the_command_goes(kit, files):
    runner = Runner(kit)
    error = refused(runner.invoke(["--store", "out", "--json"]), "missing_command")
    assert error["fix"] == "kit <command> --store out --json" and "jobs" in error["hint"]
    error = refused(runner.invoke(["jobs", "--queue", "--json"]), "missing_value")
    assert error["fix"] == "kit jobs <command> --queue <queue> --json"
    filled = error["fix"].replace("<command>", "show x").replace("<queue>", "night")
    assert ok(runner.invoke(filled))["queue"] == "night"
    assert runner.invoke(["--store", "out", "--help"]).exit == 0   # help still answers


def test_a_shared_option_is_one_mcp_property_of_each_tool_and_listed_once_elsewhere(kit):
    from workbench.surfaces.cards import card, help_document
    from workbench.surfaces.help import render_help
    from workbench.surfaces.schema import input_schema, program_schema
    from workbench.surfaces.tools import list_tools
    for tool in list_tools(kit):
        assert {"store", "verbose", "queue"} <= set(tool["inputSchema"]["properties"])
    add = kit.find(["jobs", "add"])
    assert "store" in input_schema(add)["properties"]
    assert "--store" not in [o["flag"] for o in card(add)["options"]]
    assert card(add)["shared_options"] == [{"scope": "kit", "flags": ["--store", "--verbose"]},
                                           {"scope": "kit jobs", "flags": ["--queue"]}]
    document = help_document(kit, "card")
    assert [o["key"] for o in document["options"]] == ["store", "verbose"]
    assert json.dumps(document).count("where jobs are kept") == 1   # the cards name its flag
    schema = program_schema(kit)
    assert [entry["scope"] for entry in schema["shared_options"]] == ["kit", "kit jobs"]
    assert all("store" not in entry["input"]["properties"] for entry in schema["commands"])
    assert render_help(kit).count("--store") == 1
    assert "Also --store, --verbose, before or after" in render_help(kit, add)


def test_setup_and_ctx_obj_over_mcp_too(kit, files):
    result = Runner(kit).call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "x",
                                           "verbose": 3, "queue": "q", "store": "out"})
    data = result.json["data"]
    assert (data["options"]["verbose"], data["options"]["queue"], data["opened"]) == \
        (3, "q", ["program", "jobs"])


def test_a_command_option_spelt_like_a_shared_one_is_refused_with_the_fix():
    with pytest.raises(DefinitionError, match="drop it from the command"):
        Program("t", options={"store": Option()}, commands=[
            Command("c", effects="read_only", options={"store": Option()}, run=print)])
    with pytest.raises(DefinitionError, match=r"short '-s' is also used by --size \(given"):
        Program("t", options={"store": Option(short="s")}, commands=[
            Command("c", effects="read_only", options={"size": Option(short="s")},
                    run=print)])


def test_env_prefix_names_every_option_as_click_s_auto_envvar_prefix(kit, files):
    runner = Runner(kit)
    options = ok(runner.invoke(ADD, env={"KIT_STORE": "out", "KIT_JOBS_QUEUE": "env",
                                         "KIT_JOBS_ADD_PRIORITY": "7"}))["options"]
    assert (options["store"], options["queue"], options["priority"]) == ("out", "env", 7)
    assert kit.find(["jobs", "add"]).options["job_id"].env == "KIT_JOBS_ADD_JOB_ID"


# --- validation -----------------------------------------------------------------------------

def test_min_and_max_refuse_with_the_nearest_value_that_runs(kit, files):
    runner = Runner(kit)
    error = refused(runner.invoke([*ADD, "--priority", "12"]), "out_of_range")
    assert error["fix"] == "kit jobs add a.txt out --token $KIT_JOBS_ADD_TOKEN --priority 9 --json"
    assert ok(runner.invoke(error["fix"], env={"KIT_JOBS_ADD_TOKEN": "t"}))["options"][
        "priority"] == 9
    error = refused(runner.invoke(ADD, env={"KIT_JOBS_ADD_WEIGHT": "-1"}), "out_of_range")
    assert "--weight 0" in error["fix"]   # the flag given in the fix wins over the variable
    mcp = runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                   "priority": 0, "weight": 2})
    error = refused(mcp, "out_of_range")
    assert json.loads(error["fix"])["priority"] == 1 and json.loads(error["fix"])["weight"] == 1.5
    assert ok(runner.call("jobs_add", filled(error, token="t")))["options"]["weight"] == 1.5


def test_a_path_that_is_not_there_is_fixed_to_the_nearest_that_is(kit, files):
    runner = Runner(kit)
    error = refused(runner.invoke(["jobs", "add", "a.tx", "out", "--token", "t", "--json"]),
                    "path_not_found")
    assert error["fix"] == "kit jobs add a.txt out --token $KIT_JOBS_ADD_TOKEN --json"
    folder = refused(runner.invoke(["jobs", "add", "out", "out", "--token", "t", "--json"]),
                     "invalid_path")
    assert "is a folder, not a file" in folder["message"]
    store = refused(runner.invoke([*ADD, "--store", "a.txt"]), "invalid_path")
    assert store["fix"] == "kit jobs add a.txt out --token $KIT_JOBS_ADD_TOKEN --json"   # left out
    mcp = refused(runner.call("jobs_add", {"inputs": ["b.tx"], "target": "out", "token": "t"}),
                  "path_not_found")
    assert json.loads(mcp["fix"])["inputs"] == ["b.txt"]
    assert ok(runner.call("jobs_add", filled(mcp, token="t")))["args"]["inputs"] == ["b.txt"]


def test_an_unwritable_path_is_refused(kit, files):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    (files / "locked").mkdir(mode=0o500)
    error = refused(Runner(kit).invoke(["jobs", "add", "a.txt", "locked", "--token", "t",
                                        "--json"]), "invalid_path")
    assert "is not writable" in error["message"]


def test_dates_datetimes_and_uuids_arrive_as_objects_and_leave_as_iso_text(kit, files):
    runner = Runner(kit)
    data = ok(runner.invoke([*ADD, "--at", "2024-05-01T12:00:00+02:00", "--on", "2024-05-02",
                             "--job-id", "123E4567-E89B-12D3-A456-426614174000"]))
    assert data["options"]["at"] == "2024-05-01T10:00:00+00:00"   # aware, in UTC
    assert data["options"]["on"] == "2024-05-02"
    assert data["options"]["job_id"] == "123e4567-e89b-12d3-a456-426614174000"
    naive = ok(runner.invoke([*ADD, "--at", "2024-05-01 12:00"]))["options"]["at"]
    assert naive == "2024-05-01T12:00:00+00:00"   # no offset: UTC, never the machine's zone
    error = refused(runner.invoke([*ADD, "--on", "2024-13-01"]), "invalid_value")
    assert "a date (YYYY-MM-DD)" in error["message"]
    mcp = refused(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                           "job_id": "nope", "on": 20240101}), "invalid_value")
    assert "a UUID" in mcp["message"] and "a date" in mcp["message"]


def test_a_custom_value_type_converts_describes_schemas_and_suggests(kit, files):
    runner = Runner(kit)
    assert ok(runner.invoke([*ADD, "--share", "25%"]))["options"]["share"] == 0.25
    error = refused(runner.invoke([*ADD, "--share", "150%"]), "invalid_value")
    assert "a share is from 0% to 100%" in error["message"] and "--share 100%" in error["fix"]
    assert ok(runner.invoke(error["fix"], env={"KIT_JOBS_ADD_TOKEN": "t"}))["options"][
        "share"] == 1.0
    prop = kit.find(["jobs", "add"]).options["share"]
    assert prop.value_schema() == {"type": "string", "pattern": "^[0-9.]+%?$"}
    mcp = refused(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                           "share": "300"}), "invalid_value")
    assert json.loads(mcp["fix"])["share"] == "100%"


def test_a_broken_custom_type_is_a_refusal_never_a_traceback():
    class Broken:
        def convert(self, raw):
            return 1 / 0

        def json_schema(self):
            return {"type": "string"}

        def describe(self):
            return "anything"

    program = Program("t", commands=[Command("c", effects="read_only",
                                             options={"x": Option(type=Broken())},
                                             run=lambda ctx: 1)])
    result = Runner(program).invoke(["c", "--x", "y", "--json"])
    assert result.exit == 2 and "ZeroDivisionError" in result.json["error"]["message"]


def test_requires_and_conflicts_are_checked_everywhere_and_fixed(kit, files):
    runner = Runner(kit)
    error = refused(runner.invoke([*ADD, "--notify"]), "missing_option")
    assert "--notify needs --email too" in error["message"]
    assert error["fix"] == \
        "kit jobs add a.txt out --token $KIT_JOBS_ADD_TOKEN --notify --email <email> --json"
    error = refused(runner.invoke([*ADD, "--notify", "--email", "a@b", "--quiet"]),
                    "conflicting_options")
    assert "--quiet" not in error["fix"]   # the later of the two is left out
    assert ok(runner.invoke(error["fix"], env={"KIT_JOBS_ADD_TOKEN": "t"}))["options"]["notify"]
    mcp = refused(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                           "quiet": True, "notify": True, "email": "a@b"}),
                  "conflicting_options")
    assert ok(runner.call("jobs_add", filled(mcp, token="t")))["options"]["quiet"] is True


def test_requires_and_conflicts_in_the_input_schema():
    from workbench.surfaces.schema import input_schema
    command = Command("c", effects="read_only", options={
        "a": Option(type="boolean", requires=["b"]), "b": Option(),
        "c": Option(conflicts=["a"]), "d": Option(conflicts=["b"])}, run=print)
    Program("t", commands=[command])
    schema = input_schema(command)
    assert schema["dependentRequired"] == {"a": ["b"]}
    assert schema["allOf"] == [{"not": {"required": ["a", "c"]}},
                               {"not": {"required": ["b", "d"]}}]
    from workbench.declaration._checks import check_json_schema
    check_json_schema(schema)


# --- the command line a Click or Typer user wrote ---------------------------------------------

def test_a_count_counts_and_keeps_its_maximum(kit, files):
    runner = Runner(kit)
    assert ok(runner.invoke(["-vvv", *ADD]))["options"]["verbose"] == 3
    assert ok(runner.invoke([*ADD, "--verbose=2"]))["options"]["verbose"] == 2
    assert ok(runner.invoke(ADD))["options"]["verbose"] == 0
    error = refused(runner.invoke(["-vvvv", *ADD]), "out_of_range")
    assert error["fix"] == "kit jobs add --verbose=3 a.txt out --token $KIT_JOBS_ADD_TOKEN --json"
    assert ok(runner.invoke(error["fix"], env={"KIT_JOBS_ADD_TOKEN": "t"}))["options"][
        "verbose"] == 3
    assert ok(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                       "verbose": 2}))["options"]["verbose"] == 2


def test_tuples_take_their_number_of_values(kit, files):
    runner = Runner(kit)
    data = ok(runner.invoke([*ADD, "--point", "1", "-2.5", "--label", "a", "b", "--label",
                             "c", "d"]))
    assert data["options"]["point"] == [1.0, -2.5]
    assert data["options"]["label"] == [["a", "b"], ["c", "d"]]
    error = refused(runner.invoke([*ADD, "--point", "1"]), "missing_value")
    assert error["fix"].endswith("--point 1 <y> --json")
    mcp = ok(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                      "point": [3, 4], "label": [["k", "v"]]}))
    assert mcp["options"]["point"] == [3.0, 4.0] and mcp["options"]["label"] == [["k", "v"]]
    refused(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                     "point": [3]}), "invalid_value")


def test_a_variadic_argument_before_a_fixed_one(kit, files):
    runner = Runner(kit)
    data = ok(runner.invoke(["jobs", "add", "a.txt", "b.txt", "out", "--token", "t", "--json"]))
    assert data["args"] == {"inputs": ["a.txt", "b.txt"], "target": "out"}
    error = refused(runner.invoke(["jobs", "add", "a.txt", "--token", "t", "--json"]),
                    "missing_argument")
    assert error["fix"] == "kit jobs add <inputs> a.txt --token $KIT_JOBS_ADD_TOKEN --json"


def test_an_off_switch_has_its_own_name(kit, files):
    runner = Runner(kit)
    assert ok(runner.invoke([*ADD, "--urgent"]))["options"]["urgent"] is True
    assert ok(runner.invoke([*ADD, "--relaxed"]))["options"]["urgent"] is False
    error = refused(runner.invoke([*ADD, "--no-urgent"]), "unknown_option")
    assert "--relaxed" in error["hint"] or "--urgent" in error["hint"]
    assert ok(runner.call("jobs_add", {"inputs": ["a.txt"], "target": "out", "token": "t",
                                       "urgent": False}))["options"]["urgent"] is False


def test_a_hidden_option_parses_and_stays_out_of_help_and_completions(kit, files):
    from workbench.surfaces.cards import card
    from workbench.surfaces.completion import completion_script
    from workbench.surfaces.help import render_help
    from workbench.surfaces.schema import input_schema
    runner = Runner(kit)
    assert ok(runner.invoke([*ADD, "--trace-level", "4"]))["options"]["trace_level"] == 4
    add = kit.find(["jobs", "add"])
    assert "--trace-level" not in render_help(kit, add)
    assert "trace-level" not in completion_script(kit, "bash")
    assert "trace_level" in input_schema(add)["properties"]
    assert [o for o in card(add)["options"] if o["key"] == "trace_level"][0]["hidden"] is True


def test_an_argument_reads_its_environment_variable(kit):
    runner = Runner(kit)
    assert ok(runner.invoke(["jobs", "show", "--json"], env={"KIT_JOB": "nightly"}))["name"] \
        == "nightly"
    error = refused(runner.invoke(["jobs", "show", "--json"]), "missing_argument")
    assert "KIT_JOB" in error["hint"] and error["fix"] == "kit jobs show <name> --json"
    assert ok(runner.call("jobs_show", {}, env={"KIT_JOB": "env"}))["name"] == "env"


def test_a_prompt_asks_a_person_checks_the_answer_and_asks_again(kit, files):
    runner = Runner(kit)
    result = runner.invoke(ADD[:4], terminal=True, input="one\ntwo\nsecret\nsecret\n")
    assert result.exit == 0 and result.envelope["data"]["options"]["token"] == "***"
    assert result.stderr.count("API token: ") == 2 and "do not match" in result.stderr
    assert result.envelope["meta"]["provenance"]["token"] == {"source": "prompt"}
    # under --json nobody is asked, even at a terminal: a JSON caller's stderr stays empty
    # (issue 28, docs/decisions.md), and the refusal names the flag
    result = runner.invoke(ADD[:4] + ["--json"], terminal=True, input="secret\nsecret\n")
    assert refused(result, "input_required") and result.stderr == ""


def test_a_prompt_nobody_can_answer_is_input_required_with_a_fix(kit, files):
    runner = Runner(kit)
    for who in ({"agent": "claude-code"}, {}):
        error = refused(runner.invoke(ADD[:4] + ["--json"], **who), "input_required")
        assert error["fix"] == "kit jobs add a.txt out --token $KIT_JOBS_ADD_TOKEN --json"
        assert ok(runner.invoke(error["fix"], env={"KIT_JOBS_ADD_TOKEN": "tok-3141"}))[
            "options"]["token"] == "***"
    program = Program("t", commands=[Command("c", effects="read_only", run=lambda ctx: 1,
                                             options={"name": Option(prompt=True)})])
    mcp = refused(Runner(program).call("c", {}), "input_required")
    assert json.loads(mcp["fix"]) == {"name": "<name>"}


def test_long_help_and_an_epilog(kit):
    from workbench.surfaces.cards import card
    from workbench.surfaces.help import render_help
    from workbench.surfaces.tools import tool_definition
    add = kit.find(["jobs", "add"])
    text = render_help(kit, add)
    assert "\nA job runs at a time, with a priority.\n\nIt is kept in the store.\n" in text
    assert "\nJobs run in priority order.\n" in text
    assert card(add)["help"] == "A job runs at a time, with a priority.\n\nIt is kept in the store."
    assert tool_definition(add)["description"].startswith("Add a job\n\nA job runs")


def test_floats_are_floats_from_the_command_line_mcp_and_defaults(files):
    program = Program("t", commands=[Command("c", effects="read_only", run=lambda ctx: dict(
        ctx.options), options={"x": Option(type="number"), "y": Option(type="number",
                                                                         default=2)})])
    runner = Runner(program)
    assert runner.invoke(["c", "--x", "1", "--json"]).stdout.startswith(
        '{"ok":true,"data":{"x":1.0,"y":2.0}')
    assert runner.call("c", {"x": 3}).json["data"] == {"x": 3.0, "y": 2.0}


# --- one declaration, every surface -------------------------------------------------------------

def both():
    data = runpy.run_path(str(FEATURES))["program"]
    typed = runpy.run_path(str(TYPED))["app"].program
    return data, typed


def test_the_typed_form_is_byte_identical_on_every_surface(files):
    from test_typed_equivalence import argv_surfaces, pure_surfaces
    data, typed = both()
    left, right = pure_surfaces(data), pure_surfaces(typed)
    assert list(left) == list(right)
    for name in left:
        assert left[name] == right[name], name
    environ = {"HOME": str(files), "PATH": "/usr/bin:/bin"}
    for argv in argv_surfaces(data):
        one, other = call(data, argv, environ=environ), call(typed, argv, environ=environ)
        assert (one.exit, one.stdout, one.stderr) == (other.exit, other.stdout, other.stderr)


@pytest.mark.parametrize("argv", [
    [*ADD, "-vv", "--store", "out", "--priority", "3", "--weight", "1", "--at", "2024-01-01",
     "--on", "2024-01-02", "--job-id", "123e4567-e89b-12d3-a456-426614174000", "--share",
     "50", "--point", "1", "2", "--label", "a", "b", "--notify", "--email", "x@y",
     "--relaxed", "--trace-level", "1"],
    [*ADD, "--priority", "0"], [*ADD, "--notify"], [*ADD, "--quiet", "--notify", "--email", "e"],
    ["jobs", "add", "nope", "out", "--json"], ["jobs", "show", "--json"], ["-vvvvv", *ADD],
])
def test_the_typed_form_runs_the_same(files, argv):
    data, typed = both()
    env = {"HOME": str(files), "PATH": "/usr/bin:/bin"}
    one, other = Runner(data).invoke(argv, env=env), Runner(typed).invoke(argv, env=env)
    assert (one.exit, one.stdout, one.stderr) == (other.exit, other.stdout, other.stderr)


@pytest.mark.slow
def test_a_real_process_and_a_real_mcp_client(files):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from _mcp_helpers import caller_env, stdio_params
    done = run_program(FEATURES, "--store", "out", "-vv", "jobs", "add", "a.txt", "b.txt", "out",
                       "--token", "t", "--point", "1", "2", "--json",
                       env=clean_env(PYTHONPATH=ROOT))
    assert done.exit == 0, done.stderr
    assert done.json["data"]["args"] == {"inputs": ["a.txt", "b.txt"], "target": "out"}

    async def session():
        params = stdio_params(FEATURES, caller_env(files / "state"), files)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                ran = await client.call_tool("jobs_add", {
                    "inputs": ["a.txt"], "target": "out", "token": "t", "verbose": 2,
                    "point": [1, 2], "store": "out"})
                out = await client.call_tool("jobs_add", {
                    "inputs": ["a.txt"], "target": "out", "token": "t", "priority": 10})
                return tools, ran, out
    tools, ran, out = asyncio.run(session())
    schema = tools["jobs_add"].input_schema
    assert schema["properties"]["priority"]["maximum"] == 9
    assert "store" in schema["properties"]   # the program's option, under its key (no flag:
    assert "flag" not in schema["properties"]["store"]   # an MCP caller never types one)
    data = json.loads(ran.content[0].text)["data"]
    assert (data["options"]["verbose"], data["options"]["point"]) == (2, [1.0, 2.0])
    error = json.loads(out.content[0].text)["error"]
    assert out.is_error and error["code"] == "out_of_range"
    assert json.loads(error["fix"])["priority"] == 9


def test_bash_completes_past_a_shared_option_s_value(kit, tmp_path):
    from workbench.surfaces.completion import completion_script
    script = tmp_path / "kit.bash"
    script.write_text(completion_script(kit, "bash"))

    def complete(line):
        words = line.split(" ")
        code = (f"source {script}; COMP_WORDS=({' '.join(repr(w) for w in words)}); "
                f"COMP_CWORD={len(words) - 1}; _kit_complete; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        done = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return sorted(done.stdout.split())

    assert complete("kit --store jobs ") == ["jobs"] or complete("kit --store x ") == \
        sorted(["completion", "help", "jobs", "mcp", "skills"])
    assert complete("kit --store jobs jobs ") == ["add", "show"]
    assert "--relaxed" in complete("kit jobs add --")
    assert "--trace-level" not in complete("kit jobs add --")


# --- the plain path stays light ---------------------------------------------------------------

def _modules(*args):
    """The modules a run imports beyond what the interpreter's own start-up imports here
    (an editable install's finder imports pathlib and re before any program runs)."""
    def imported(argv):
        done = subprocess.run([sys.executable, "-X", "importtime", *map(str, argv)],
                              env=clean_env(PYTHONPATH=ROOT), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        return {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    return imported(args) - imported(["-c", "pass"])


def test_a_program_using_none_of_it_imports_no_date_uuid_path_or_re_module():
    plain = _modules(ROOT / "sample_programs" / "deploy.py", "deploy", "--target", "staging",
                     "--yes", "--json")
    assert plain and not plain & {"datetime", "uuid", "pathlib", "re", "typing", "json",
                                  "workbench.declaration._inherit"}


def test_a_date_module_is_imported_only_when_a_date_is_parsed(files):
    shown = _modules(FEATURES, "jobs", "show", "x", "--json")
    assert not shown & {"datetime", "uuid", "pathlib", "re"}
    dated = _modules(FEATURES, "jobs", "add", "a.txt", "out", "--token", "t", "--on",
                     "2024-01-01", "--json")
    assert "datetime" in dated and "uuid" not in dated


# --- what the definition checks refuse ---------------------------------------------------------

@pytest.mark.parametrize("option, fix", [
    (Option(type="string", min=1), "drop min= or use type='integer'"),
    (Option(type="integer", min=5, max=1), "swap them"),
    (Option(type="integer", default=20, max=9), "change the default or the limits"),
    (Option(exists=True), "use type='path' or drop exists="),
    (Option(type="path", kind="folder"), "must be 'file' or 'dir'"),
    (Option(type="number", count=True), "drop type='number'"),
    (Option(type="boolean", nargs=2), "drop nargs="),
    (Option(type="string", off="--other"), "off='--deep' for --shallow"),
    (Option(hide_input=True), "add prompt='...' or drop them"),
    (Option(requires=["nope"]), "not an input of the command"),
    (Option(conflicts=["x"]), "option 'x' conflicts itself"),
    (Option(type="integer", nargs=2, default=(1,)), "use a tuple of 2"),
])
def test_a_declaration_that_cannot_work_names_its_fix(option, fix):
    with pytest.raises(DefinitionError, match=None) as info:
        Program("t", commands=[Command("c", effects="read_only", options={"x": option},
                                       run=print)])
    assert fix in str(info.value)


def test_program_and_group_options_are_checked_where_they_are_declared():
    with pytest.raises(DefinitionError, match="program 't': option key 'bad key' is not valid"):
        Program("t", options={"bad key": Option()}, commands=[Command("c", effects="read_only",
                                                                      run=print)])
    with pytest.raises(DefinitionError, match="group 'g': setup= must be a function"):
        Program("t", commands=[Group("g", setup=3, commands=[Command("c", effects="read_only",
                                                                     run=print)])])
    with pytest.raises(DefinitionError, match="env_prefix='T_'"):
        Program("t", env_prefix="bad prefix", commands=[Command("c", effects="read_only",
                                                                run=print)])
    with pytest.raises(DefinitionError, match="variadic, and so is"):
        Program("t", commands=[Command("c", effects="read_only", run=print, arguments=[
            Argument("a", variadic=True), Argument("b", variadic=True)])])
