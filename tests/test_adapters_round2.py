"""Adapters, round two (issue 32): each mechanism that broke on a real program, as a minimal
program, run as itself, through `burgee run` and over MCP (the SDK's client against a real
`burgee mcp FILE` process).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, clean_env


def env(tmp_path, **extra):
    extra.setdefault("PYTHONPATH", ROOT)
    return clean_env(XDG_STATE_HOME=tmp_path / "state", HOME=tmp_path / "home", **extra)


def program(tmp_path, source, name="prog.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def burgee(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, args)],
                          env=env(tmp_path), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)


def itself(file, *args, tmp_path):
    return subprocess.run([sys.executable, str(file), *args], env=env(tmp_path),
                          capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)


async def over_mcp(file, tool, arguments, tmp_path):
    """One call over stdio through the MCP SDK's client: (is_error, the text)."""
    (result,) = await _results(file, [(tool, arguments)], tmp_path)
    return result.is_error, "".join(getattr(part, "text", "") for part in result.content)


async def _results(file, calls, tmp_path):
    """The results of several calls to one `burgee mcp FILE` server, in order."""
    from mcp import Client, StdioServerParameters
    extra = {k: str(v) for k, v in env(tmp_path).items()
             if k in ("XDG_STATE_HOME", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    server = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", str(file)],
                                   env=extra, cwd=str(tmp_path))
    async with Client(server, mode="legacy", cache=None) as client:
        return [await client.call_tool(tool, arguments) for tool, arguments in calls]


# --- 1. argparse BooleanOptionalAction --------------------------------------------------------

BOOLEAN_OPTIONAL = """
    import argparse
    p = argparse.ArgumentParser(prog="prog")
    p.add_argument("--remote", action=argparse.BooleanOptionalAction, default=None)
    def main(argv=None):
        print(f"remote={p.parse_args(argv).remote}")
    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("argv", [["--remote"], ["--no-remote"], []])
def test_a_boolean_optional_action_keeps_its_sense(argv, tmp_path):
    file = program(tmp_path, BOOLEAN_OPTIONAL)
    done = burgee("run", file, *argv, tmp_path=tmp_path)
    assert (done.returncode, done.stdout) == (0, itself(file, *argv, tmp_path=tmp_path).stdout)
    assert burgee("run", file, "--help", tmp_path=tmp_path).stdout.count("--no-no-") == 0


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_boolean_optional_action_keeps_its_sense_over_mcp(tmp_path):
    file = program(tmp_path, BOOLEAN_OPTIONAL)
    for value in (False, True):
        error, text = await over_mcp(file, "prog", {"remote": value}, tmp_path)
        assert not error and json.loads(text)["data"] == f"remote={value}"


# --- 2. main() returning True -----------------------------------------------------------------

RETURNS_TRUE = """
    import argparse, sys
    def main(argv=None):
        p = argparse.ArgumentParser(prog="prog")
        p.add_argument("--fail", action="store_true")
        args = p.parse_args(argv)
        print("checked")
        return args.fail
    parser = argparse.ArgumentParser(prog="prog")
    parser.add_argument("--fail", action="store_true")
    if __name__ == "__main__":
        sys.exit(main())
"""


@pytest.mark.parametrize("argv, status", [(["--fail"], 1), ([], 0)])
def test_main_returning_true_is_exit_1(argv, status, tmp_path):
    file = program(tmp_path, RETURNS_TRUE)
    assert itself(file, *argv, tmp_path=tmp_path).returncode == status
    assert burgee("run", file, *argv, tmp_path=tmp_path).returncode == status
    body = json.loads(burgee("run", file, *argv, "--json", tmp_path=tmp_path).stdout)
    assert body["ok"] is (status == 0)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_main_returning_true_is_an_error_over_mcp(tmp_path):
    file = program(tmp_path, RETURNS_TRUE)
    error, text = await over_mcp(file, "prog", {"fail": True}, tmp_path)
    assert error and json.loads(text)["error"]["exit"] == 1


# --- 5. Click options with expose_value=False -------------------------------------------------

QUIET = """
    import click
    def quiet(ctx, param, value):
        if value:
            ctx.ensure_object(dict)["quiet"] = True
    @click.command()
    @click.option("-q", "--quiet", is_flag=True, expose_value=False, callback=quiet)
    @click.pass_context
    def prog(ctx):
        print("quiet" if (ctx.obj or {}).get("quiet") else "loud")
    if __name__ == "__main__":
        prog()
"""


@pytest.mark.parametrize("argv", [["-q"], ["--quiet"], []])
def test_an_option_without_a_value_still_reaches_its_callback(argv, tmp_path):
    file = program(tmp_path, QUIET)
    done = burgee("run", file, *argv, tmp_path=tmp_path)
    assert (done.returncode, done.stdout) == (0, itself(file, *argv, tmp_path=tmp_path).stdout)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_an_option_without_a_value_reaches_its_callback_over_mcp(tmp_path):
    file = program(tmp_path, QUIET)
    error, text = await over_mcp(file, "prog", {"quiet": True}, tmp_path)
    assert not error and json.loads(text)["data"] == "quiet"


# --- 7. the original's own error printing -----------------------------------------------------

OWN_ERRORS = """
    import click, sys
    class Failed(click.ClickException):
        def show(self, file=None):
            print(f"FAILED: {self.message}")
    @click.group()
    def cli():
        pass
    @cli.command()
    def check():
        raise Failed("3 problems")
    @cli.command()
    def stop():
        raise click.Abort()
    if __name__ == "__main__":
        cli()
"""

TYPER_ABORT = """
    import typer
    app = typer.Typer()
    @app.command()
    def stop():
        raise typer.Abort()
    @app.command()
    def other():
        pass
    if __name__ == "__main__":
        app()
"""


RICH_CLICK_ERRORS = """
    import rich_click as click
    @click.group()
    def cli():
        \"\"\"A tool.\"\"\"
    @cli.command()
    @click.option("--name", default="x")
    def fail(name):
        raise click.ClickException(f"cannot do {name}")
    @cli.command()
    def stop():
        raise click.Abort()
    def main():
        cli()
    if __name__ == "__main__":
        main()
"""

RICH_CLICK_ALONE = RICH_CLICK_ERRORS.replace("    def main():\n        cli()\n", "").replace(
    "        main()", "        cli()")   # no entry function of its own: cli() itself


@pytest.mark.parametrize("source, argv", [
    (OWN_ERRORS, ["check"]), (OWN_ERRORS, ["stop"]), (TYPER_ABORT, ["stop"]),
    (RICH_CLICK_ERRORS, ["fail"]), (RICH_CLICK_ERRORS, ["fail", "--name", "y"]),
    (RICH_CLICK_ERRORS, ["stop"]),
    (RICH_CLICK_ALONE, ["fail"]), (RICH_CLICK_ALONE, ["stop"])])
def test_the_originals_own_error_printing_is_kept(source, argv, tmp_path):
    file = program(tmp_path, source)
    mine, theirs = burgee("run", file, *argv, tmp_path=tmp_path), itself(file, *argv,
                                                                        tmp_path=tmp_path)
    assert theirs.returncode != 0
    assert (mine.returncode, mine.stdout, mine.stderr) == (theirs.returncode, theirs.stdout,
                                                           theirs.stderr)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_custom_show_reaches_the_envelope_over_mcp(tmp_path):
    file = program(tmp_path, OWN_ERRORS)
    error, text = await over_mcp(file, "check", {}, tmp_path)
    assert error and json.loads(text)["error"]["output"] == "FAILED: 3 problems"


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_rich_click_error_panel_gives_its_message_over_mcp(tmp_path):
    file = program(tmp_path, RICH_CLICK_ERRORS)
    error, text = await over_mcp(file, "fail", {"name": "z"}, tmp_path)
    failure = json.loads(text)["error"]
    assert error and failure["message"] == "cannot do z", text
    assert "╭─ Error" in failure["stderr"], text


# --- 8. an empty-string default ---------------------------------------------------------------

def test_an_empty_string_default_is_not_the_working_directory(tmp_path):
    file = program(tmp_path, """
        import argparse
        parser = argparse.ArgumentParser(prog="prog")
        parser.add_argument("--prefix", default="", help="text put first")
    """)
    done = burgee("run", file, "--help", tmp_path=tmp_path)
    assert "working directory" not in done.stdout and "text put first" in done.stdout


# --- 9. an argparse.REMAINDER positional -----------------------------------------------------

REMAINDER = """
    import argparse
    p = argparse.ArgumentParser(prog="prog")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("tool")
    p.add_argument("args", nargs=argparse.REMAINDER)
    def main(argv=None):
        a = p.parse_args(argv)
        print(f"verbose={a.verbose} tool={a.tool} args={a.args}")
    if __name__ == "__main__":
        main()
"""


def _runs_as_itself(file, argv, tmp_path):
    """`burgee run FILE ARGV` succeeds and prints what the original prints for ARGV."""
    own = itself(file, *argv, tmp_path=tmp_path)
    done = burgee("run", file, *argv, tmp_path=tmp_path)
    assert (done.returncode, done.stdout) == (0, own.stdout), done.stderr


@pytest.mark.parametrize("argv", [["check", "--strict", "f"], ["--verbose", "check", "-x"],
                                  ["check", "--verbose", "--", "f"], ["check"]])
def test_a_remainder_argument_takes_option_looking_tokens(argv, tmp_path):
    _runs_as_itself(program(tmp_path, REMAINDER), argv, tmp_path)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_remainder_argument_takes_option_looking_values_over_mcp(tmp_path):
    file = program(tmp_path, REMAINDER)
    error, text = await over_mcp(file, "prog", {"tool": "check", "args": ["--strict", "f"]},
                                 tmp_path)
    own = itself(file, "check", "--strict", "f", tmp_path=tmp_path).stdout
    assert not error and json.loads(text)["data"] == own.strip(), text


# --- 10. a custom argparse Action taking no value --------------------------------------------

CUSTOM_VERSION = """
    import argparse, sys
    class Version(argparse.Action):
        def __init__(self, option_strings, dest, **kwargs):
            super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)
        def __call__(self, parser, namespace, values, option_string=None):
            print("prog 4.2.0 (custom)")
            sys.exit(0)
    parser = argparse.ArgumentParser(prog="prog")
    parser.add_argument("--version", action=Version)
    parser.add_argument("--trace", action=Version)
    parser.add_argument("name", nargs="?")
    def main(argv=None):
        print(f"hello {parser.parse_args(argv).name}")
    if __name__ == "__main__":
        main()
"""


def test_a_custom_action_without_a_value_is_a_flag(tmp_path):
    file = program(tmp_path, CUSTOM_VERSION)
    schema = json.loads(burgee("run", file, "--schema", tmp_path=tmp_path).stdout)
    assert _find(schema, "trace")["type"] == "boolean"
    assert _find(schema, "version_option")["type"] == "boolean"
    done = burgee("run", file, "--trace", tmp_path=tmp_path)
    assert (done.returncode, done.stdout) == (0, "prog 4.2.0 (custom)\n")
    assert burgee("run", file, "--version-option", tmp_path=tmp_path).stdout == \
        "prog 4.2.0 (custom)\n"


def _find(tree, key):
    """The first value under `key` anywhere in a JSON tree."""
    if isinstance(tree, dict):
        if key in tree:
            return tree[key]
        tree = list(tree.values())
    if isinstance(tree, list):
        for value in tree:
            found = _find(value, key)
            if found is not None:
                return found
    return None


# --- 11. schemas that change from run to run --------------------------------------------------

def test_set_choices_are_listed_in_one_order_every_run(tmp_path):
    file = program(tmp_path, """
        import argparse
        parser = argparse.ArgumentParser(prog="prog")
        parser.add_argument("--mode", choices={"delta", "alpha", "charlie", "bravo", "echo"})
    """)
    seen = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-m", "workbench.cli", "run", str(file),
                               "--schema"], env=env(tmp_path, PYTHONHASHSEED=seed),
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        seen.add(json.dumps(_find(json.loads(done.stdout), "mode")))
    assert len(seen) == 1 and '"alpha", "bravo", "charlie", "delta", "echo"' in seen.pop()


# --- 11b. a default computed when the program loads -------------------------------------------

COMPUTED_DEFAULT = """
    import argparse, os, random
    parser = argparse.ArgumentParser(prog="prog")
    parser.add_argument("--seed", type=int, default=random.randint(0, 10**9),
                        help="the random seed")
    parser.add_argument("--owner", default=f"pid-{os.getpid()}")
    parser.add_argument("--count", type=int, default=3)
    def main(argv=None):
        args = parser.parse_args(argv)
        print(args.seed == parser.get_default("seed"),
              args.owner == parser.get_default("owner"), args.count)
    if __name__ == "__main__":
        main()
"""


def test_a_computed_default_is_described_not_baked_into_the_schema(tmp_path):
    file = program(tmp_path, COMPUTED_DEFAULT)
    schemas = {burgee("run", file, "--schema", tmp_path=tmp_path).stdout for _ in range(2)}
    assert len(schemas) == 1, schemas
    seed = _find(json.loads(schemas.pop()), "seed")
    assert "default" not in seed and "computed at run time" in seed["description"], seed
    helps = {burgee("run", file, "--help", tmp_path=tmp_path).stdout for _ in range(2)}
    assert len(helps) == 1 and "computed at run time" in helps.pop()
    card = json.loads(burgee("run", file, "--help", "--json", tmp_path=tmp_path).stdout)
    options = {option["key"]: option for option in card["options"]}
    assert "default" not in options["owner"] and options["count"]["default"] == 3, card
    assert "computed at run time" in options["owner"]["description"], card
    # the handler still gets the original's own value, computed where it runs
    done = burgee("run", file, tmp_path=tmp_path)
    assert (done.returncode, done.stdout) == (0, "True True 3\n"), done.stderr
    assert json.loads(burgee("run", file, "--json", tmp_path=tmp_path).stdout)["data"] == \
        "True True 3"


def test_a_plain_default_keeps_its_value(tmp_path):
    file = program(tmp_path, COMPUTED_DEFAULT)
    count = _find(json.loads(burgee("run", file, "--schema", tmp_path=tmp_path).stdout), "count")
    assert count["default"] == 3, count


def test_only_help_and_schemas_load_the_program_a_second_time(tmp_path):
    """The second load that tells computed defaults apart is never paid by a plain call."""
    file = program(tmp_path, COMPUTED_DEFAULT.replace(
        "import argparse, os, random", "import argparse, os, random\n"
        "    open(os.path.join(os.path.dirname(__file__), 'loads'), 'a').write('x')"))
    loads = tmp_path / "loads"
    for argv, times in ((["--count", "4"], 1), (["--version"], 1), (["--schema"], 2),
                        (["--help"], 2)):
        loads.write_text("")
        assert burgee("run", file, *argv, tmp_path=tmp_path).returncode == 0
        assert len(loads.read_text()) == times, argv

@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_computed_default_over_mcp(tmp_path):
    from mcp import Client, StdioServerParameters
    file = program(tmp_path, COMPUTED_DEFAULT)
    extra = {k: str(v) for k, v in env(tmp_path).items()
             if k in ("XDG_STATE_HOME", "HOME", "PYTHONPATH")}
    listed = []
    for _ in range(2):
        server = StdioServerParameters(command=sys.executable,
                                       args=["-m", "workbench.cli", "mcp", str(file)],
                                       env=extra, cwd=str(tmp_path))
        async with Client(server, mode="legacy", cache=None) as client:
            tools = (await client.list_tools()).tools
            listed.append(json.dumps([t.input_schema for t in tools], sort_keys=True))
            result = await client.call_tool(tools[0].name, {})
    assert listed[0] == listed[1] and "computed at run time" in listed[0], listed
    assert '"default": 3' in listed[0]
    text = "".join(getattr(part, "text", "") for part in result.content)
    assert not result.is_error and json.loads(text)["data"] == "True True 3", text


def test_headless_passes_run_after_run_with_a_computed_default(tmp_path):
    file = program(tmp_path, COMPUTED_DEFAULT)
    dev = ["dev", file, "--headless", "--no-check", "--json", "--snapshots", tmp_path / "snaps"]
    first = burgee(*dev, "--update", tmp_path=tmp_path)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    for _ in range(2):
        again = burgee(*dev, tmp_path=tmp_path)
        assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]


# --- 12. the version of an installed program --------------------------------------------------

def _installed(site):
    """A distribution `toolpkg 3.1.4` on `site`: its console script in `toolpkg.__main__`,
    its Click commands in `toolpkg.commands`, its argparse parser and main in `toolpkg.cli`."""
    package = site / "toolpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("def run():\n    pass\n")
    (package / "commands.py").write_text(textwrap.dedent("""
        import click
        @click.command()
        def tool():
            print("tool")
    """))
    (package / "cli.py").write_text(textwrap.dedent("""
        import argparse
        parser = argparse.ArgumentParser(prog="tool")
        def main(argv=None):
            parser.parse_args(argv)
            print("tool")
    """))
    meta = site / "toolpkg-3.1.4.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: toolpkg\nVersion: 3.1.4\n\n")
    (meta / "entry_points.txt").write_text("[console_scripts]\ntoolpkg = toolpkg.__main__:run\n")


@pytest.mark.parametrize("source", [
    "from toolpkg.commands import tool\n",
    "from toolpkg.cli import parser, main\n",
])
def test_an_installed_programs_version_is_its_distributions(source, tmp_path):
    site = tmp_path / "site"
    _installed(site)
    file = program(tmp_path, source, name="wrapper.py")
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "run", str(file), "--version"],
                          env=env(tmp_path, PYTHONPATH=f"{ROOT}:{site}"), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert done.stdout == "toolpkg 3.1.4\n", done


# --- 13. a near miss of a flag the adapter renamed ------------------------------------------

RENAMED = """
    import click

    @click.group()
    def cli():
        pass

    @cli.command()
    @click.option("--format", "fmt", default="text")
    @click.argument("name", required=False)
    def show(fmt, name):
        if name:
            print(fmt, name)

    if __name__ == "__main__":
        cli()
"""


def test_a_near_miss_of_a_renamed_flag_is_fixed_to_the_flag_it_became(tmp_path):
    file = program(tmp_path, RENAMED)
    done = burgee("run", file, "show", "--formt", "json", "--json", tmp_path=tmp_path)
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "unknown_option"
    assert error["hint"] == "did you mean --format-option?", error
    # the fix keeps the value with its flag (dropping the flag made `json` the NAME: exit 0,
    # nothing printed) and runs as the original reads `--format json`
    fix = error["fix"].split()
    assert fix == ["prog", "show", "--format-option", "json", "--json"]
    fixed = burgee("run", file, *fix[1:-1], tmp_path=tmp_path)
    assert fixed.returncode == 0 and fixed.stdout == itself(
        file, "show", "--format", "json", tmp_path=tmp_path).stdout


def test_an_unknown_flag_with_no_near_miss_is_dropped_with_its_value(tmp_path):
    # `show --zzz json`: the fix does not turn the flag's value into the NAME argument
    file = program(tmp_path, RENAMED)
    done = burgee("run", file, "show", "--zzz", "json", "--json", tmp_path=tmp_path)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "unknown_option" and error["fix"].split() == [
        "prog", "show", "--json"], error
    assert "put it back if it is an argument" in error["hint"], error


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_near_miss_of_a_renamed_flag_over_mcp_names_the_flag_it_became(tmp_path):
    file = program(tmp_path, RENAMED)
    error, text = await over_mcp(file, "show", {"formt": "json"}, tmp_path)
    refused = json.loads(text)["error"]
    assert error and refused["hint"] == "did you mean 'format_option'?", refused
    assert json.loads(refused["fix"]) == {"format_option": "json"}


# --- 14. argparse options with several values, or an optional one ---------------------------

SEVERAL_VALUES = """
    import argparse
    p = argparse.ArgumentParser(prog="prog")
    p.add_argument("-L", "--list", nargs="?", const="all", default=None)
    p.add_argument("-j", "--jobs", nargs="?", type=int, const=0, default=1)
    p.add_argument("-k", "--keys", nargs="+")
    p.add_argument("files", nargs="*")
    def main(argv=None):
        a = p.parse_args(argv)
        print(f"list={a.list} jobs={a.jobs} keys={a.keys} files={a.files}")
    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("argv", [["-L"], ["-L", "x"], ["--list"], ["-j"], ["-j", "4"],
                                  ["-k", "a", "b"], ["-k", "a", "b", "-L"],
                                  ["-L", "-k", "a", "--", "f"], ["f", "-k", "a", "-j"]])
def test_options_with_several_or_optional_values_take_what_the_original_takes(argv, tmp_path):
    _runs_as_itself(program(tmp_path, SEVERAL_VALUES), argv, tmp_path)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_options_with_several_or_optional_values_over_mcp(tmp_path):
    file = program(tmp_path, SEVERAL_VALUES)
    bodies = await _calls(file, [("prog", {"list": "all", "keys": ["a", "b"], "files": ["f"]}),
                                 ("prog", {"jobs": 0})], tmp_path)
    own = [itself(file, *argv, tmp_path=tmp_path).stdout.strip()
           for argv in (["-L", "-k", "a", "b", "--", "f"], ["-j"])]
    assert [b.get("data") for b in bodies] == own, bodies


# --- 15. the program's own top-level error handler -------------------------------------------

OWN_HANDLER = """
    import click, sys
    class AppError(Exception):
        pass
    @click.group()
    @click.option("--name", default="prog")
    @click.pass_context
    def cli(ctx, name):
        ctx.obj = name
    @cli.command()
    @click.argument("thing")
    @click.pass_obj
    def show(obj, thing):
        if thing == "missing":
            raise AppError(f"no such thing: {thing}")
        print(f"{obj}: {thing}")
    def main():
        try:
            cli(obj=None)
        except AppError as error:
            click.echo(f"prog: error: {error}", err=True)
            sys.exit(3)
    if __name__ == "__main__":
        main()
"""


OWN_HANDLER_TYPER = """
    import sys, typer
    class AppError(Exception):
        pass
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    @app.callback()
    def root(name: str = "prog"):
        pass
    @app.command()
    def show(thing: str):
        if thing == "missing":
            raise AppError(f"no such thing: {thing}")
        print(thing)
    @app.command()
    def other():
        pass
    def main():
        try:
            app()
        except AppError as error:
            print(f"prog: error: {error}", file=sys.stderr)
            sys.exit(3)
    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("source", [OWN_HANDLER, OWN_HANDLER_TYPER], ids=["click", "typer"])
@pytest.mark.parametrize("argv", [["show", "missing"], ["--name", "x", "show", "there"]])
def test_the_programs_own_error_handler_is_kept(argv, source, tmp_path):
    file = program(tmp_path, source)
    own = itself(file, *argv, tmp_path=tmp_path)
    done = burgee("run", file, *argv, tmp_path=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (own.returncode, own.stdout,
                                                           own.stderr)
    body = json.loads(burgee("run", file, *argv, "--json", tmp_path=tmp_path).stdout)
    assert body["ok"] is (own.returncode == 0)
    if not body["ok"]:
        assert (body["error"]["code"], body["error"]["exit"]) == ("failed", 3), body


@pytest.mark.asyncio
@pytest.mark.slow
async def test_the_programs_own_error_handler_is_kept_over_mcp(tmp_path):
    error, text = await over_mcp(program(tmp_path, OWN_HANDLER), "show", {"thing": "missing"},
                                 tmp_path)
    failure = json.loads(text)["error"]
    assert error and (failure["code"], failure["exit"]) == ("failed", 3), text
    assert "no such thing: missing" in failure["message"], text


# --- 16. budgets for an installed program -----------------------------------------------------

def test_an_installed_programs_budgets_come_from_the_project_that_runs_it(tmp_path):
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "tool"
    site.mkdir(parents=True)
    (site / "cli.py").write_text(textwrap.dedent("""
        import argparse
        parser = argparse.ArgumentParser(prog="tool", description="x " * 400)
        parser.add_argument("--name")
    """))
    project = tmp_path / "project"   # the venv lives elsewhere (pipx, a shared one)
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.burgee.budgets]\ncommand_help = 5000\n"
                                            "tool = 5000\nhelp = 5000\n")
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(site / "cli.py"),
                           "--headless"], env=env(tmp_path), capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, cwd=project)
    report = done.stdout + done.stderr
    assert "21 surfaces" in report and "budget_exceeded" not in report, report



def _many_options(help_text):
    lines = ["import argparse", "parser = argparse.ArgumentParser(prog='tool')"]
    lines += [f"parser.add_argument('--option-{i}', help={help_text!r})" for i in range(30)]
    return "\n".join(lines) + "\n"


def test_an_adapted_command_with_many_inputs_passes_headless_on_default_budgets(tmp_path):
    """The original's thirty options cannot be removed by whoever adapts it: each may carry
    a two-line description within the default budgets; a whole docstring per option is over."""
    two_lines = ("Write the changes to the files named instead of printing a diff of them; "
                 "with --check, only report which files would change and exit 1.")
    file = program(tmp_path, _many_options(two_lines), name="tool.py")
    done = burgee("dev", file, "--headless", "--no-check", "--json", "--update",
                  "--snapshots", tmp_path / "snaps", tmp_path=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["data"]["over_budget"] == [], \
        done.stdout[-3000:]
    file = program(tmp_path, _many_options(two_lines * 4), name="tool.py")
    done = burgee("dev", file, "--headless", "--no-check", "--json", "--update",
                  "--snapshots", tmp_path / "snaps", tmp_path=tmp_path)
    over = {row["kind"] for row in json.loads(done.stdout)["data"]["over_budget"]}
    assert done.returncode == 1 and {"command_help", "card", "tool"} <= over, done.stdout[-3000:]


def test_integer_choices_in_a_range_are_an_integer_with_bounds(tmp_path):
    file = program(tmp_path, """
        import argparse
        parser = argparse.ArgumentParser(prog="prog")
        parser.add_argument("-q", "--quiet-level", type=int, choices=range(64), default=34)
        parser.add_argument("--mode", type=int, choices=[1, 2, 4])
        def main(argv=None):
            print(parser.parse_args(argv).quiet_level)
    """)
    schema = json.loads(burgee("run", file, "--schema", tmp_path=tmp_path).stdout)
    level = schema["properties"]["quiet_level"]
    assert (level["type"], level["minimum"], level["maximum"], level["default"]) == (
        "integer", 0, 63, 34) and "enum" not in level, level
    assert schema["properties"]["mode"]["enum"] == ["1", "2", "4"]
    assert burgee("run", file, "-q", "7", tmp_path=tmp_path).stdout == "7\n"
    refused = burgee("run", file, "-q", "70", "--json", tmp_path=tmp_path)
    assert refused.returncode == 2 and json.loads(refused.stdout)["error"]["fix"] == \
        "prog -q 63 --json", refused.stdout

# --- 3, 4, 6: a call is a process of its own (signals, stdin's buffer, fresh logging) ---------

PROCESS_STATE = """
    import click, json, logging, os, signal, sys, threading, time, warnings
    CALLS = []
    @click.group()
    def cli():
        pass
    @cli.command()
    def state():
        CALLS.append(1)
        threads = threading.active_count()
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        print(json.dumps({"calls": len(CALLS), "threads": threads, "pid": os.getpid(),
                          "main_thread": threading.current_thread() is threading.main_thread()}))
    @cli.command()
    def pipe():
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        print("default SIGPIPE")
    @cli.command()
    def config():
        print(type(sys.stdin.buffer.read()).__name__)
    @cli.command()
    @click.option("--quiet", is_flag=True)
    def log(quiet):
        logging.basicConfig(level=logging.INFO, format="LOG %(levelname)s %(message)s")
        if quiet:
            logging.getLogger().setLevel(logging.ERROR)
        logging.getLogger("prog").info("working")
        warnings.warn("old spelling", UserWarning)
        print("done")
    if __name__ == "__main__":
        cli()
"""


async def _calls(file, calls, tmp_path):
    """The envelopes of several calls to one `burgee mcp FILE` server, in order."""
    return [json.loads("".join(getattr(p, "text", "") for p in result.content))
            for result in await _results(file, calls, tmp_path)]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_signal_handler_can_be_set_in_an_mcp_call(tmp_path):
    body, = await _calls(program(tmp_path, PROCESS_STATE), [("pipe", {})], tmp_path)
    assert body.get("data") == "default SIGPIPE", body


@pytest.mark.asyncio
@pytest.mark.slow
async def test_an_adapted_mcp_call_shares_no_interpreter_state_with_the_previous_one(tmp_path):
    # each call its own process, on its main thread; a global one call changed, a thread it
    # left running and the process id are not the next call's
    bodies = await _calls(program(tmp_path, PROCESS_STATE), [("state", {})] * 3, tmp_path)
    seen = [b["data"] for b in bodies]
    assert [s["calls"] for s in seen] == [1, 1, 1], bodies
    assert [s["threads"] for s in seen] == [1, 1, 1], bodies
    assert all(s["main_thread"] for s in seen), bodies
    assert len({s["pid"] for s in seen}) == 3, bodies


@pytest.mark.asyncio
@pytest.mark.slow
async def test_logging_and_warnings_start_fresh_in_every_mcp_call(tmp_path):
    bodies = await _calls(program(tmp_path, PROCESS_STATE),
                          [("log", {}), ("log", {"quiet": True}), ("log", {})], tmp_path)
    assert [b["data"] for b in bodies] == ["done"] * 3, bodies
    stderr = ["\n".join(b["meta"].get("warnings", [])) for b in bodies]
    # basicConfig takes effect beside the server's own handler; the quiet call's level does
    # not reach the next call; the warning shows in every call, not once per location
    assert ["LOG INFO working" in text for text in stderr] == [True, False, True], stderr
    assert all("UserWarning: old spelling" in text for text in stderr), stderr


@pytest.mark.asyncio
@pytest.mark.slow
async def test_stdin_has_a_buffer_over_mcp(tmp_path):
    file = program(tmp_path, PROCESS_STATE)
    error, text = await over_mcp(file, "config", {}, tmp_path)
    assert not error and json.loads(text)["data"] == "bytes", text
    done = burgee("run", file, "config", "--json", tmp_path=tmp_path)
    assert json.loads(done.stdout)["data"] == "bytes"
