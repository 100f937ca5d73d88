"""Adapters: Click, Typer and argparse programs as Programs, run through every transport.

Real parts: the sample programs run as their own CLI and through `burgee run` in
subprocesses, over MCP through the SDK's client against a real `burgee mcp FILE` process,
and under `burgee dev FILE --headless`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLES, clean_env
from workbench import DefinitionError, adapt
from workbench.loader import LoadError, load_program
from workbench.runtime.pipeline import call
from workbench.surfaces.tools import list_tools

CLICK, TYPER, ARGPARSE = (SAMPLES / "click_app.py", SAMPLES / "typer_app.py",
                          SAMPLES / "argparse_app.py")

# (file, a call that writes or computes, its original stdout, a call that prints JSON, its data)
CASES = {
    "click": (CLICK, ["add", "write docs", "-p", "high", "-t", "docs"], "added task 1: write docs",
              ["list", "--output", "json"],
              [{"id": 1, "title": "write docs", "priority": "high", "tags": ["docs"],
                "due_days": None, "done": False}]),
    "typer": (TYPER, ["add", "https://example.org", "--title", "Example", "--rating", "4"],
              "saved https://example.org", ["list", "--sort", "title"],
              [{"url": "https://example.org", "title": "Example", "tags": [], "rating": 4}]),
    "argparse": (ARGPARSE, ["temp", "100", "--to", "k"], "100 c = 373.15 k",
                 ["--precision", "1", "table", "temp", "--steps", "2", "--json"], None),
}
# The argparse sample's own --json (a reserved flag here) is adapted as --json-option.
CASES["argparse"] = CASES["argparse"][:3] + (
    ["table", "temp", "--steps", "2", "--precision", "1", "--json-option"],
    [{"value": 0.0, "from": "c", "to": "f", "result": 32.0},
     {"value": 10.0, "from": "c", "to": "f", "result": 50.0}])

# A value the framework's parser accepts but the original refuses: (argv, flag in the fix).
USAGE = {
    "typer": (["add", "ftp://x.org"], "marks add <url> --json"),
    "argparse": (["temp", "1", "--precision", "20"],
                 "units temp --precision <precision> 1 --json"),
}
"""Usage errors only the original can find (a check in its own code), by library."""

RANGES = {
    "click": (["done", "0"], "tasks done 1 --json"),
    "typer": (["add", "https://x.org", "--rating", "9"],
              "marks add https://x.org --rating 5 --json"),
}
"""IntRange and Typer's min/max: the model's own limits, refused before the original runs."""


def env(tmp_path, **extra):
    return clean_env(XDG_STATE_HOME=tmp_path / "state", HOME=tmp_path / "home",
                     PYTHONPATH=ROOT, **extra)


def burgee(*args, tmp_path, timeout=120, **extra):
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, args)],
                          env=env(tmp_path, **extra), capture_output=True, text=True,
                          timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)


def original(file, *args, tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, str(file), *args], env=env(tmp_path),
                          capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)


def envelope(done):
    assert done.stdout.endswith("\n") and done.stdout.count("\n") == 1, done
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout)


# --- through the framework's CLI: the original's output, as data -----------------------------

@pytest.mark.parametrize("library", list(CASES))
def test_burgee_run_gives_an_envelope_with_the_original_output(library, tmp_path):
    file, write, text, read, data = CASES[library]
    plain = original(file, *write, tmp_path=tmp_path / "plain")
    assert plain.returncode == 0, plain
    assert plain.stdout == text + "\n"
    done = burgee("run", file, *write, "--json", tmp_path=tmp_path)
    doc = envelope(done)
    assert done.returncode == 0 and doc["ok"] is True, doc
    assert doc["data"] == text
    doc = envelope(burgee("run", file, *read, "--json", tmp_path=tmp_path))
    assert doc["ok"] is True and doc["data"] == data   # printed JSON arrives parsed


@pytest.mark.parametrize("library", list(CASES))
def test_text_mode_prints_exactly_what_the_original_printed(library, tmp_path):
    file, write, text, _, _ = CASES[library]
    done = burgee("run", file, *write, tmp_path=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, text + "\n", "")


@pytest.mark.parametrize("library", list(USAGE))
def test_a_usage_error_of_the_original_becomes_a_refusal_with_a_fix(library, tmp_path):
    file = CASES[library][0]
    argv, fix = USAGE[library]
    assert original(file, *argv, tmp_path=tmp_path / "plain").returncode == 2
    done = burgee("run", file, *argv, "--json", tmp_path=tmp_path)
    doc = envelope(done)
    assert done.returncode == 2
    assert doc["error"]["code"] == "invalid_value" and doc["error"]["exit"] == 2, doc
    assert doc["error"]["fix"] == fix
    assert "--help" in doc["error"]["hint"]


@pytest.mark.parametrize("library", list(RANGES))
def test_a_range_of_the_original_is_the_models_and_its_fix_runs(library, tmp_path):
    file = CASES[library][0]
    argv, fix = RANGES[library]
    assert original(file, *argv, tmp_path=tmp_path / "plain").returncode == 2
    doc = envelope(burgee("run", file, *argv, "--json", tmp_path=tmp_path))
    assert (doc["error"]["code"], doc["error"]["fix"]) == ("out_of_range", fix)
    fixed = burgee("run", file, *fix.split()[1:-1], tmp_path=tmp_path)
    assert fixed.returncode in (0, 3), fixed.stderr   # it ran: `done 1` may find no task


def test_the_framework_parser_refuses_first_since_the_model_carries_the_options(tmp_path):
    done = burgee("run", ARGPARSE, "length", "3", "--from", "km", "--to", "parsec", "--json",
                  tmp_path=tmp_path)
    doc = envelope(done)
    assert done.returncode == 2 and doc["error"]["code"] == "invalid_choice"
    assert doc["error"]["fix"] == "units length 3 --from km --to m --json"   # runnable


def test_the_original_exit_code_is_kept_in_a_failure_envelope(tmp_path):
    done = burgee("run", CLICK, "done", "9", "--json", tmp_path=tmp_path)
    doc = envelope(done)
    assert done.returncode == 3
    assert doc["error"] == {"code": "failed", "exit": 3, "message": "no task 9",
                            "effects": "unknown"}   # an adapted command: effects undeclared
    done = burgee("run", TYPER, "remove", "https://nowhere.org", "--json", tmp_path=tmp_path)
    assert done.returncode == 3 and envelope(done)["error"]["message"] == \
        "no bookmark https://nowhere.org"


def test_env_vars_carry_over_and_reach_the_original(tmp_path):
    store = tmp_path / "elsewhere.json"
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "run", str(CLICK), "add", "x",
                           "--json"], env=env(tmp_path, TASKS_DB=store), capture_output=True,
                          text=True, timeout=60)
    doc = envelope(done)
    assert doc["meta"]["provenance"]["db"] == {"source": "env", "location": "TASKS_DB"}
    assert json.loads(store.read_text())["tasks"][0]["title"] == "x"


# --- the model: what carries over -------------------------------------------------------------

def _options(program, path):
    command = program.find(path)
    return {key: (o.type, o.items if o.type == "list" else None, o.choices, o.default, o.env,
                  o.short, o.required) for key, o in command.options.items()}


def test_click_options_arguments_types_choices_defaults_env_groups_carry_over():
    program = load_program(str(CLICK))
    assert program.name == "tasks" and program.description == "Keep a small list of tasks."
    assert [" ".join(c.path) for c in program.walk()] == \
        ["add", "list", "done", "tags list", "tags rename"]
    assert _options(program, ["add"]) == {
        "priority": ("enum", None, ["low", "normal", "high"], "normal", None, "p", False),
        "tag": ("list", "string", None, None, None, "t", False),
        "due_days": ("integer", None, None, None, None, None, False),
        "db": ("path", None, None, None, "TASKS_DB", None, False)}
    assert list(program.options) == ["db"]   # the group's option: declared once, shared
    assert (program.options["db"].kind, program.options["db"].readable) == ("file", True)
    add = program.find(["add"])
    assert (add.options["due_days"].min, add.options["due_days"].max) == (0, 365)
    assert program.find(["done"]).arguments[0].min == 1
    assert [(a.name, a.type, a.required) for a in add.arguments] == [("title", "string", True)]
    assert add.options["priority"].description == "How urgent it is."
    assert add.description == "Add a task."
    assert program.find(["tags", "list"]).options["counts"].default is True
    assert program.find(["list"]).options["limit"].default == 20
    assert all(c.effects == "undeclared" and c.examples == [] for c in program.walk())


def test_typer_annotations_give_the_types_and_choices():
    program = load_program(str(TYPER))
    assert program.name == "marks"
    assert _options(program, ["list"]) == {
        "store": ("string", None, None, None, "BOOKMARKS_FILE", None, False),
        "sort": ("enum", None, ["added", "title", "rating"], "added", None, None, False),
        "min_rating": ("integer", None, None, 1, None, None, False),
        "reverse": ("boolean", None, None, False, None, None, False)}
    assert _options(program, ["add"])["tag"] == ("list", "string", None, None, None, "t", False)
    assert program.find(["add"]).arguments[0].description == "The address to keep."
    assert program.find(["tags"]).is_group


def test_argparse_subparsers_aliases_version_and_choices_carry_over():
    program = load_program(str(ARGPARSE))
    assert (program.name, program.version) == ("units", "1.2.0")
    assert [" ".join(c.path) for c in program.walk()] == \
        ["temp", "length", "table temp", "table length"]
    assert program.find(["len"]) is program.find(["length"])
    assert _options(program, ["length"])["from"] == \
        ("enum", None, ["m", "km", "ft", "mi"], None, None, None, True)
    temp = program.find(["temp"])
    # %(default)s filled in, and that statement of the default left to the model's own
    assert temp.options["precision"].description == "decimal places, 0 to 10"
    assert temp.options["precision"].default == "2"   # its own type=: a string here
    assert temp.options["json_option"].type == "boolean"   # its own --json, renamed
    assert [(a.name, a.type) for a in temp.arguments] == [("value", "number")]


# --- effects, MCP tools -----------------------------------------------------------------------

@pytest.mark.parametrize("file", [CLICK, TYPER, ARGPARSE], ids=lambda p: p.stem)
def test_listed_tools_have_input_schemas_and_no_hints(file):
    tools = list_tools(load_program(str(file)))
    assert len(tools) >= 4
    for tool in tools:
        assert tool["inputSchema"]["type"] == "object", tool
        assert tool["inputSchema"]["additionalProperties"] is False
        assert "annotations" not in tool, tool


def test_an_effects_mapping_declares_them_and_gives_hints():
    import click
    from click.testing import CliRunner  # noqa: F401  (click is really there)
    sys.path.insert(0, str(SAMPLES))
    try:
        import click_app
    finally:
        sys.path.remove(str(SAMPLES))
    program = adapt(click_app.cli, effects={"list": "read_only", "tags rename": "idempotent"},
                    examples={"list": ["tasks list --status all"]})
    tools = {tool["name"]: tool for tool in list_tools(program)}
    assert tools["list"]["annotations"] == {"readOnlyHint": True, "idempotentHint": True,
                                            "destructiveHint": False}
    assert tools["tags_rename"]["annotations"]["idempotentHint"] is True
    assert "annotations" not in tools["add"]
    assert program.find(["list"]).examples == ["tasks list --status all"]
    with pytest.raises(DefinitionError, match="no command 'lst'.*'list'"):
        adapt(click_app.cli, effects={"lst": "read_only"})
    with pytest.raises(DefinitionError, match="use one of"):
        adapt(click_app.cli, effects={"list": "readonly"})
    with pytest.raises(DefinitionError, match="did you mean --status"):
        adapt(click_app.cli, examples={"list": ["tasks list --stat all"]})
    with pytest.raises(TypeError, match="click.Command"):
        adapt(object())
    assert isinstance(click.Group, type)


def test_stderr_of_a_successful_call_is_a_warning_under_json(tmp_path):
    import argparse

    def shout(args):
        print('{"said": "%s"}' % args.word)
        sys.stderr.write("careful\n")
    parser = argparse.ArgumentParser(prog="say")
    sub = parser.add_subparsers()
    one = sub.add_parser("shout", help="say it loud")
    one.add_argument("word")
    one.set_defaults(func=shout)
    two = sub.add_parser("quiet", help="say nothing")
    two.set_defaults(func=lambda args: 5)
    program = adapt(parser)
    outcome = call(program, ["shout", "hi", "--json"])
    assert outcome.envelope["data"] == {"said": "hi"}
    assert outcome.envelope["meta"]["warnings"] == ["careful"]
    assert outcome.stderr == ""
    outcome = call(program, ["shout", "hi"])
    assert (outcome.stdout, outcome.stderr) == ('{"said": "hi"}\n', "careful\n")
    outcome = call(program, ["quiet", "--json"])
    assert outcome.exit == 5 and outcome.envelope["error"]["code"] == "failed"


def test_the_loader_finds_objects_by_name_and_refuses_several(tmp_path):
    app = tmp_path / "two.py"
    app.write_text("import click\n\n@click.command()\ndef one():\n    click.echo('1')\n\n"
                   "@click.command()\ndef two():\n    click.echo('2')\n")
    with pytest.raises(LoadError, match="several command-line objects.*one, two"):
        load_program(str(app))
    program = load_program(str(app), "two")
    assert call(program, ["--json"]).envelope["data"] == "2"   # text; only {..} [..] parse
    nothing = tmp_path / "none.py"
    nothing.write_text("import argparse\nX = 1\n")
    with pytest.raises(LoadError, match="declares no Program"):
        load_program(str(nothing))


def test_a_typer_app_is_adapted_without_importing_click(tmp_path):
    code = ("import sys; from workbench.loader import load_program; "
            f"p = load_program({str(TYPER)!r}); "
            "from workbench.runtime.pipeline import call; o = call(p, ['tags', 'show', '--json']); "
            "print(o.exit, 'click' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], env=env(tmp_path), capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.split() == ["0", "False"], done


def test_a_declared_programs_plain_cli_path_imports_neither_click_nor_typer(tmp_path):
    probe = ("import atexit, runpy, sys\n"
             "def report():\n"
             "    found = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'typer')\n"
             "                   or m.startswith('workbench.adapters'))\n"
             "    sys.stderr.write('MODULES=' + ','.join(found) + '\\n')\n"
             "atexit.register(report)\n"
             "sys.argv = [sys.argv[1]] + sys.argv[2:]\n"
             "if sys.argv[0] == 'burgee':\n"
             "    from workbench.cli import main; main(sys.argv[1:])\n"
             "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    for argv in ([str(SAMPLES / "deploy.py"), "status", "--target", "staging", "--json"],
                 ["burgee", "run", str(SAMPLES / "deploy.py"), "status", "--target", "staging",
                  "--json"]):
        done = subprocess.run([sys.executable, "-c", probe, *argv], env=env(tmp_path),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done
        assert done.stderr.strip().splitlines()[-1] == "MODULES=", done.stderr


# --- MCP and the workbench ----------------------------------------------------------------------

@pytest.mark.asyncio
@pytest.mark.parametrize("library", list(CASES))
@pytest.mark.slow
async def test_an_adapted_call_gives_the_same_bytes_over_mcp_and_the_cli(library, tmp_path):
    from mcp import Client, StdioServerParameters
    file, write, _, read, _ = CASES[library]
    program = load_program(str(file))
    from workbench.runtime.arguments import from_argv
    command, arguments = from_argv(program, read)
    extra = {k: str(v) for k, v in env(tmp_path).items()
             if k in ("XDG_STATE_HOME", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    assert burgee("run", file, *write, tmp_path=tmp_path).returncode == 0
    cli = burgee("run", file, *read, "--json", tmp_path=tmp_path,
                 BURGEE_AGENT="on")   # as an MCP call runs: an agent's
    server = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", str(file)],
                                   env=extra, cwd=str(tmp_path))
    async with Client(server, mode="legacy", cache=None) as client:
        listed = (await client.list_tools()).tools
        assert all(tool.annotations is None for tool in listed)
        assert all(tool.input_schema["type"] == "object" for tool in listed)
        result = await client.call_tool(command.tool_name, arguments)
    text = "".join(getattr(part, "text", "") for part in result.content)
    assert text == cli.stdout[:-1]
    assert not result.is_error


@pytest.mark.parametrize("file", [CLICK, TYPER, ARGPARSE], ids=lambda p: p.stem)
@pytest.mark.slow
def test_burgee_dev_headless_works_on_each(file, tmp_path):
    snapshots = tmp_path / "snapshots"
    first = burgee("dev", file, "--headless", "--no-check", "--json", "--update", "--snapshots", snapshots,
                   tmp_path=tmp_path)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    again = burgee("dev", file, "--headless", "--no-check", "--json", "--snapshots", snapshots, tmp_path=tmp_path)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    report = json.loads(again.stdout.strip().splitlines()[-1])
    assert report["ok"] is True
    body = report["data"]
    codes = {item["code"] for item in body["problems"]["items"]}
    assert "effects_undeclared" in codes
    tools = json.loads(next(snapshots.rglob("tools-list.json")).read_text())
    assert tools and all("annotations" not in tool for tool in tools)


def test_single_commands_without_groups_are_one_command_programs():
    import argparse

    import click
    import typer

    app = typer.Typer()

    @app.command()
    def greet(name: str, times: int = 1, loud: bool = False):
        """Greet someone."""
        for _ in range(times):
            print(("HI " if loud else "hi ") + name)

    program = adapt(app, name="greeter")
    assert [c.path for c in program.walk()] == [("greeter",)]
    outcome = call(program, ["bob", "--times", "2", "--loud", "--json"])
    assert outcome.envelope["data"] == "HI bob\nHI bob"

    @click.command()
    @click.option("--n", type=int, default=1, help="how many")
    def count(n):
        click.echo(json.dumps({"n": n}))

    assert call(adapt(count), ["--n", "3", "--json"]).envelope["data"] == {"n": 3}

    parser = argparse.ArgumentParser(description="Sum numbers.")
    parser.add_argument("nums", type=int, nargs="+")

    def main(argv=None):
        print(sum(parser.parse_args(argv).nums))

    program = adapt(parser, main=main, source="/somewhere/sum_up.py")
    assert program.name == "sum-up" and [c.path for c in program.walk()] == [("sum-up",)]
    assert program.find(["sum-up"]).arguments[0].variadic
    assert call(program, ["1", "2", "-3", "--json"]).envelope["data"] == "0"


def test_problems_for_adapted_commands_point_at_adapt_not_at_command():
    from workbench.dev.problems import lint
    from workbench.loader import load_program
    problems = lint(load_program(str(SAMPLES / "click_app.py")))
    fixes = {p.code: p.fix for p in problems}
    assert "adapt(cli, examples=" in fixes["examples_missing"]
    assert "adapt(cli, effects=" in fixes["effects_undeclared"]
    assert "Command(" not in " ".join(p.fix for p in problems)


BLACK_LIKE = '''import click


@click.command()
@click.option("--check", is_flag=True, help="Don't write the files back.")
@click.option("-l", "--line-length", type=int, default=88, help="Characters per line.")
@click.argument("src", nargs=-1, required=True)
def main(check, line_length, src):
    """The uncompromising code formatter."""
    for name in src:
        click.echo(f"would reformat {name}" if check else f"reformatted {name} at {line_length}")
    if check:
        click.echo("Oh no! 1 file would be reformatted.", err=True)
        raise SystemExit(1)
'''


def test_a_single_command_program_is_typed_without_a_command_name(tmp_path):
    app = tmp_path / "black_app.py"
    app.write_text(BLACK_LIKE)
    program = load_program(str(app))
    assert program.name == "black-app" and program.single   # the file, not the function `main`
    assert [c.tool_name for c in program.walk()] == ["black_app"]
    done = burgee("run", app, "x.py", "--json", tmp_path=tmp_path)
    assert json.loads(done.stdout)["data"] == "reformatted x.py at 88"
    help_text = burgee("run", app, "--help", tmp_path=tmp_path).stdout
    assert "Usage: black-app [options] <src>..." in help_text and "black-app main" not in help_text
    refused = json.loads(burgee("run", app, "-l", "wide", "x.py", "--json",
                                tmp_path=tmp_path).stdout)
    fix = refused["error"]["fix"]
    assert fix == "black-app -l 88 x.py --json"   # its default: what leaving it out gives
    words = fix.split()
    assert words[0] == program.name   # runnable as printed, after the program's name
    done = burgee("run", app, *words[1:], tmp_path=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["data"] == "reformatted x.py at 88"


def original(app, *args, tmp_path):
    """The original program run as itself."""
    return subprocess.run([sys.executable, str(app), *map(str, args)], env=env(tmp_path),
                          capture_output=True, text=True, timeout=60)


def test_human_mode_shows_what_a_failing_original_printed_byte_for_byte(tmp_path):
    app = tmp_path / "black_app.py"
    app.write_text(BLACK_LIKE + "\n\nif __name__ == '__main__':\n    main()\n")
    args = ["--check", "x.py", "y.py"]
    own, ours = original(app, *args, tmp_path=tmp_path), burgee("run", app, *args,
                                                                 tmp_path=tmp_path)
    assert own.returncode == ours.returncode == 1
    assert (ours.stdout, ours.stderr) == (own.stdout, own.stderr)
    assert own.stdout == "would reformat x.py\nwould reformat y.py\n"
    body = json.loads(burgee("run", app, *args, "--json", tmp_path=tmp_path).stdout)
    assert body["error"]["exit"] == 1
    assert body["error"]["message"] == "Oh no! 1 file would be reformatted."
    assert body["error"]["output"] == own.stdout.rstrip("\n")


UNRULY = '''import argparse
import subprocess
import sys

parser = argparse.ArgumentParser(prog="unruly")
parser.add_argument("what", choices=["close", "true", "minus", "colour", "child"])


def main(argv=None):
    what = parser.parse_args(argv).what
    if what == "close":
        with sys.stdout as out:   # json.tool writes so when the output is stdout
            out.write('{"closed": true}\\n')
    elif what == "true":
        sys.exit(True)
    elif what == "minus":
        sys.exit(-1)
    elif what == "colour":
        print("\\x1b[1;32mgreen\\x1b[0m done\\r")
    else:
        sys.stdout.flush()
        subprocess.run([sys.executable, "-c", "print('from a child')"], check=True)


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("what, status", [("close", 0), ("true", 1), ("minus", 255),
                                          ("colour", 0), ("child", 0)])
def test_an_unruly_original_behaves_as_itself(what, status, tmp_path):
    app = tmp_path / "unruly.py"
    app.write_text(UNRULY)
    own, ours = original(app, what, tmp_path=tmp_path), burgee("run", app, what,
                                                               tmp_path=tmp_path)
    assert own.returncode == ours.returncode == status
    assert (ours.stdout, ours.stderr) == (own.stdout, own.stderr)
    done = burgee("run", app, what, "--json", tmp_path=tmp_path)
    assert done.returncode == status
    body = json.loads(done.stdout)   # one envelope, nothing before it
    if status:
        assert body["error"]["exit"] == status and body["ok"] is False
    elif what == "close":
        assert body["data"] == {"closed": True}
    elif what == "colour":
        assert body["data"] == "green done"
    else:
        assert body["data"] == "from a child"   # fd level: the child's output is data


def test_versions_come_from_version_option_and_the_version_action():
    import argparse

    import click

    @click.command()
    @click.version_option("2.5.1", prog_name="tool")
    def tool():
        click.echo("ok")

    assert adapt(tool).version == "2.5.1"
    parser = argparse.ArgumentParser(prog="uname")
    parser.add_argument("--version", action="version", version="%(prog)s 9.4 (GNU coreutils) Linux")
    parser.set_defaults(func=lambda ns: print("x"))
    assert adapt(parser).version == "9.4"


def test_an_installed_program_is_named_by_its_console_script():
    from black import main
    program = adapt(main)
    assert (program.name, program.single) == ("black", True)
    from importlib import metadata
    assert program.version == metadata.version("black")


def test_the_console_script_is_found_without_importing_importlib_metadata():
    # importing importlib.metadata cost about 0.2 s of `burgee run black --help`
    code = ("import sys, black\nbefore = 'importlib.metadata' in sys.modules\n"
            "from workbench import adapt\nprogram = adapt(black.main)\n"
            "print(program.name, program.version, before, 'importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=clean_env(PYTHONPATH=ROOT))
    from importlib import metadata
    name, version, before, after = done.stdout.split()
    assert (name, version) == ("black", metadata.version("black")), done.stderr
    assert after == before   # the adapter imported nothing black had not (False today)


def test_case_insensitive_choices_and_abbreviated_long_flags_stay_as_the_original_reads_them():
    import argparse

    import click

    @click.command()
    @click.argument("kind", type=click.Choice(["TEXT", "FLOAT"], case_sensitive=False))
    def column(kind):
        click.echo(kind)

    assert call(adapt(column), ["float", "--json"]).envelope["data"] == "FLOAT"

    @click.command()
    @click.option("--kind", type=click.Choice(["TEXT", "FLOAT"], case_sensitive=False),
                  default="text")
    def typed(kind):
        click.echo(kind)

    assert adapt(typed).commands[0].options["kind"].default == "text"   # not dropped
    assert call(adapt(typed), ["--json"]).envelope["data"] == "TEXT"
    parser = argparse.ArgumentParser(prog="isort")
    parser.add_argument("--df", "--diff", dest="show_diff", action="store_true")
    parser.set_defaults(func=lambda ns: print("diff" if ns.show_diff else "no diff"))
    program = adapt(parser)
    assert "diff" in program.commands[0].options
    assert call(program, ["--diff", "--json"]).envelope["data"] == "diff"


def test_a_lazy_group_is_expanded_and_what_it_cannot_load_is_an_error():
    import click

    from workbench.dev.problems import lint

    @click.command()
    def real():
        click.echo("real")

    class Lazy(click.Group):
        def list_commands(self, ctx):
            return ["real", "broken"]

        def get_command(self, ctx, name):
            if name == "broken":
                raise ImportError("no module named plugin")
            return real

    @click.option("--pair", nargs=2)
    @click.command()
    def pairs(pair):
        click.echo(" ".join(pair or ()))

    cli = Lazy(name="lazy", commands={})
    cli.add_command(pairs)
    program = adapt(cli)
    assert [c.path for c in program.walk()] == [("real",)]
    assert call(program, ["real", "--json"]).envelope["data"] == "real"
    found = {p.code: p for p in lint(program)}
    assert found["command_not_adapted"].severity == "error"
    assert "broken" in found["command_not_adapted"].message
    pair = adapt(pairs).commands[0].options["pair"]
    assert (pair.nargs, pair.value_schema()["minItems"]) == (2, 2)
    assert call(adapt(pairs), ["--pair", "a", "b", "--json"]).envelope["data"] == "a b"


def test_a_working_directory_default_is_described_not_baked_in(tmp_path, monkeypatch):
    from pathlib import Path

    import click
    monkeypatch.chdir(tmp_path)

    @click.command()
    @click.option("--root", type=click.Path(), default=Path.cwd(), help="Where to look.")
    def find(root):
        click.echo(str(root))

    option = adapt(find).commands[0].options["root"]
    assert option.default is None
    assert option.description == "Where to look. Default: the working directory."
    assert call(adapt(find), ["--json"]).envelope["data"] == str(tmp_path)


def test_a_required_argument_after_an_optional_one_is_a_listed_problem():
    import argparse

    from workbench.dev.problems import lint
    parser = argparse.ArgumentParser(prog="fetch")
    parser.add_argument("method", nargs="?", default="GET")
    parser.add_argument("url")
    parser.set_defaults(func=lambda ns: print(ns.method, ns.url))
    program = adapt(parser)
    assert call(program, ["GET", "example.org", "--json"]).envelope["data"] == "GET example.org"
    problem = {p.code: p for p in lint(program)}["positional_order"]
    assert problem.command == "fetch" and "url" in problem.message


def test_a_groups_own_argument_is_a_listed_error_not_silently_dropped():
    import click

    from workbench.dev.problems import lint

    @click.group()
    @click.argument("db")
    def root(db):
        pass

    @root.command()
    def tables():
        click.echo("t")

    problem = {p.code: p for p in lint(adapt(root))}["group_argument_dropped"]
    assert problem.severity == "error" and problem.command == "tables"
    import argparse   # a root positional before the subparsers, likewise
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("db")
    parser.add_subparsers(dest="cmd").add_parser("tables").set_defaults(func=print)
    problem = {p.code: p for p in lint(adapt(parser, name="tl"))}["group_argument_dropped"]
    assert problem.severity == "error" and problem.command == "tables"
    assert "its group 'tl' takes the argument db" in problem.message and "option" in problem.fix


def test_version_of_a_single_command_program_prints_its_version_and_runs_nothing():
    import argparse

    import click

    @click.command()
    @click.version_option("2.5.1", prog_name="tool")
    @click.argument("src", nargs=-1, required=True)
    def tool(src):
        click.echo("ran")

    done = call(adapt(tool, name="tool"), ["--version"])   # black --version ran black
    assert (done.exit, done.stdout) == (0, "tool 2.5.1\n")
    from workbench.declaration.capabilities import capabilities
    assert json.loads(call(adapt(tool, name="tool"), ["--version", "--json"]).stdout) == {
        "name": "tool", "version": "2.5.1", "capabilities": capabilities()}
    parser = argparse.ArgumentParser(prog="pretty")
    parser.add_argument("--version", action="version", version="%(prog)s 3.1")
    parser.add_argument("infile", nargs="?")
    parser.set_defaults(func=lambda ns: print("read stdin"))   # json.tool read stdin
    done = call(adapt(parser), ["--version"])
    assert (done.exit, done.stdout) == (0, "pretty 3.1\n")


def test_a_command_a_group_loads_in_resolve_command_keeps_its_options_and_description():
    import click

    @click.command(help="Download files from the Hub.")
    @click.argument("repo")
    @click.option("--revision", help="A branch or tag.")
    def download(repo, revision):
        click.echo(f"{repo}@{revision}")

    @click.group(help="Manage authentication.")
    def auth():
        pass

    @auth.command(help="Who you are.")
    def whoami():
        click.echo("me")

    # huggingface_hub's `hf`: placeholders without params or help (LazyHfCommand,
    # LazyHfGroup) that its group swaps for the real command in resolve_command()
    class LazyCommand(click.Command):
        def __init__(self, name, real):
            super().__init__(name=name)
            self.real = real

    class LazyGroup(click.Group):
        def __init__(self, name, real):
            super().__init__(name=name)
            self.real = real

        def list_commands(self, ctx):
            return self.real.list_commands(ctx)

        def get_command(self, ctx, name):
            return self.real.get_command(ctx, name)

    class Hf(click.Group):
        def resolve_command(self, ctx, args):
            cmd = self.get_command(ctx, args[0])
            if isinstance(cmd, (LazyCommand, LazyGroup)):
                self.commands[args[0]] = cmd.real
            return super().resolve_command(ctx, args)

    hf = Hf(name="hf")
    hf.add_command(LazyCommand("download", download))
    hf.add_command(LazyGroup("auth", auth))
    program = adapt(hf)
    assert [c.path for c in program.walk()] == [("download",), ("auth", "whoami")]
    command = program.find(("download",))
    assert command.description == "Download files from the Hub."
    assert [a.key for a in command.arguments] == ["repo"] and "revision" in command.options
    assert program.groups()[0].description == "Manage authentication."
    assert call(program, ["download", "gpt2", "--revision", "v1", "--json"]).envelope[
        "data"] == "gpt2@v1"


def test_a_groups_eager_actions_are_not_copied_onto_its_commands_but_listed():
    import click

    from workbench.dev.problems import lint

    def _complete(ctx, param, value):
        if value:
            click.echo("installed")
            ctx.exit()

    @click.group()
    @click.option("--install-completion", is_flag=True, is_eager=True, callback=_complete,
                  help="Install completion for the current shell.")
    @click.option("--verbose", is_flag=True, help="Say more.")
    def tool(install_completion, verbose):
        pass

    @tool.command()
    def sync():
        click.echo("synced")

    program = adapt(tool, name="tl")   # named as its entry point is, not as its function
    assert list(program.find(("sync",)).options) == ["verbose"]   # not --install-completion
    found = {p.code: p for p in lint(program)}["group_action_not_modelled"]
    assert found.severity == "info" and "'tl' option --install-completion" in found.message
    assert found.fix == "run it on the original program: tl --install-completion"
    assert call(program, ["sync", "--verbose", "--json"]).envelope["data"] == "synced"


def test_an_option_taking_two_values_refuses_a_wrong_count_with_a_runnable_fix():
    import click

    @click.command()
    @click.option("-p", "--param", multiple=True, nargs=2, help="Named parameter.")
    @click.argument("table")
    def rows(param, table):
        click.echo(f"{table} {dict(param)}")

    program = adapt(rows, name="rows")
    assert program.commands[0].options["param"].nargs == 2
    assert call(program, ["-p", "a", "3", "dogs", "--json"]).envelope["data"] == \
        "dogs {'a': '3'}"
    done = call(program, ["-p", "a", "dogs", "--json"])   # `dogs` is a's second value
    error = done.envelope["error"]
    assert (done.exit, error["code"]) == (2, "missing_argument")
    assert error["fix"] == "rows -p a dogs <table> --json"
    fixed = call(program, error["fix"].replace("<table>", "t").split()[1:])
    assert fixed.envelope["data"] == "t {'a': 'dogs'}"
    short = call(program, ["dogs", "-p", "a", "--json"]).envelope["error"]
    assert (short["code"], short["fix"]) == ("missing_value", "rows dogs -p a <param> --json")


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_refusal_the_original_makes_gives_its_fix_as_arguments_over_mcp(tmp_path):
    from mcp import Client, StdioServerParameters
    extra = {k: str(v) for k, v in env(tmp_path).items()
             if k in ("XDG_STATE_HOME", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    server = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", str(TYPER)],
                                   env=extra, cwd=str(tmp_path))
    async with Client(server, mode="legacy", cache=None) as client:
        result = await client.call_tool("add", {"url": "ftp://x"})   # the original's check
        ranged = await client.call_tool("add", {"url": "https://x", "rating": 0})
    body = json.loads("".join(getattr(part, "text", "") for part in result.content))
    assert result.is_error and body["error"]["code"] == "invalid_value"
    assert json.loads(body["error"]["fix"]) == {"url": "<url>"}   # not 'marks add ...'
    body = json.loads("".join(getattr(part, "text", "") for part in ranged.content))
    assert body["error"]["code"] == "out_of_range"   # the model's: min=1 carried over
    assert json.loads(body["error"]["fix"]) == {"url": "https://x", "rating": 1}


def test_an_argparse_option_taking_two_values_refuses_a_wrong_count_too():
    import argparse
    parser = argparse.ArgumentParser(prog="rows")
    parser.add_argument("-p", "--param", nargs=2, action="append", help="Named parameter.")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("--secret-mode", help=argparse.SUPPRESS)
    parser.add_argument("table")
    parser.set_defaults(func=lambda ns: print(ns.table, ns.param, ns.verbose, ns.secret_mode))
    program = adapt(parser)
    options = program.commands[0].options
    assert (options["param"].nargs, options["verbose"].count, options["secret_mode"].hidden) \
        == (2, True, True)
    assert call(program, ["-p", "a", "3", "-vv", "--secret-mode", "x", "dogs",
                          "--json"]).envelope["data"] == "dogs [['a', '3']] 2 x"
    error = call(program, ["dogs", "-p", "a", "--json"]).envelope["error"]
    assert (error["code"], error["fix"]) == ("missing_value", "rows dogs -p a <param> --json")


def test_a_group_without_a_callback_is_versioned_by_its_classs_console_script():
    from flask.cli import cli   # FlaskGroup: no callback; its --version is its own callback
    from importlib import metadata
    program = adapt(cli)
    assert (program.name, program.version) == ("flask", metadata.version("flask"))


# --- what the originals declare, the model carries (issue 30) ----------------------------------

def _click_features():
    import click

    @click.group(context_settings={"auto_envvar_prefix": "TOOL"})
    @click.option("--home", type=click.Path(file_okay=False), default=".")
    @click.option("-v", "--verbose", count=True)
    @click.pass_context
    def cli(ctx, home, verbose):
        ctx.obj = (home, verbose)

    @cli.command()
    @click.argument("src", type=click.Path(exists=True, dir_okay=False), nargs=-1)
    @click.argument("dst", type=click.Path(), envvar="DEST")
    @click.option("--when", type=click.DateTime())
    @click.option("--id", "ident", type=click.UUID)
    @click.option("--point", nargs=2, type=float)
    @click.option("--shallow/--deep", default=False)
    @click.option("--secret", hidden=True)
    @click.option("--level", type=click.IntRange(1, 5), default=1)
    @click.pass_obj
    def copy(obj, src, dst, when, ident, point, shallow, secret, level):
        click.echo(f"{obj} {list(src)} {dst} {when} {ident} {point} {shallow} {secret} {level}")

    @cli.command()
    @click.option("--name", prompt="Your name")
    def hello(name):
        click.echo(f"hello {name}")

    return cli


def test_click_features_map_onto_the_model(tmp_path, monkeypatch):
    from workbench.testing import Runner
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a")
    program = adapt(_click_features(), name="tool")
    assert list(program.options) == ["home", "verbose"]   # the group's: given before commands
    assert (program.options["verbose"].count, program.options["home"].kind) == (True, "dir")
    assert program.options["home"].env == "TOOL_HOME"
    copy = program.find(["copy"])
    options, (src, dst) = copy.options, copy.arguments
    assert (src.variadic, src.exists, src.kind, dst.env) == (True, True, "file", "DEST")
    assert options["when"].type == "datetime" and options["id"].type == "uuid"
    assert (options["point"].nargs, options["shallow"].negation) == (2, "--deep")
    assert options["secret"].hidden and (options["level"].min, options["level"].max) == (1, 5)
    done = call(program, ["-vv", "--home", ".", "copy", "a.txt", "out", "--when", "2024-01-02",
                          "--id", "123e4567-e89b-12d3-a456-426614174000", "--point", "1", "2",
                          "--deep", "--secret", "s", "--level", "3", "--json"])
    assert done.envelope["data"] == ("('.', 2) ['a.txt'] out 2024-01-02 00:00:00 "
                                     "123e4567-e89b-12d3-a456-426614174000 (1.0, 2.0) False s 3")
    assert program.options["verbose"].max == 1000   # rebuilt as that many flags: bounded
    huge = Runner(program).call("copy", {"src": ["a.txt"], "dst": "out", "verbose": 10 ** 9})
    assert huge.json["error"]["code"] == "out_of_range"
    missing = call(program, ["copy", "b.txt", "out", "--json"]).envelope["error"]
    assert (missing["code"], missing["fix"]) == ("path_not_found", "tool copy a.txt out --json")
    assert call(program, ["copy", "a.txt", "--json"], environ={"DEST": "d"}).exit == 0


def test_a_click_prompt_nobody_can_answer_is_input_required():
    program = adapt(_click_features(), name="tool")
    error = call(program, ["hello", "--json"]).envelope["error"]
    assert (error["code"], error["fix"]) == ("input_required", "tool hello --name <name> --json")
    assert call(program, ["hello", "--name", "ada", "--json"]).envelope["data"] == "hello ada"
    from workbench.testing import Runner
    asked = Runner(program).invoke(["hello"], terminal=True, input="bob\n")
    assert asked.exit == 0 and asked.stdout == "hello bob\n" and "Your name" in asked.stderr


def test_a_group_option_a_command_also_spells_stays_the_command_s():
    import click

    @click.group()
    @click.option("--verbose", is_flag=True)
    def cli(verbose):
        pass

    @cli.command()
    @click.option("--verbose", is_flag=True)
    def run(verbose):
        click.echo(str(verbose))

    program = adapt(cli, name="tool")
    assert program.options == {}   # both cannot be one option: each keeps its place
    assert sorted(program.find(["run"]).options) == ["root_verbose", "verbose"]
