"""Typed declarations (workbench.typed): hints, metadata, docstrings, groups, output schemas,
ctx, definition errors that name the fix, loaders, and what reading hints imports."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, List, Literal, Optional, Tuple, TypedDict

import pytest

from workbench import Context, DefinitionError, Fail
from workbench.runtime.pipeline import call
from workbench.surfaces.cards import card
from workbench.surfaces.help import render_help
from workbench.typed import App, Arg, Opt

ROOT = Path(__file__).resolve().parent.parent


class Level(enum.Enum):
    LOW = "low"
    HIGH = "high"


def one(function=None, **options):
    """The single command an App builds from `function` (effects read_only unless given)."""
    app = App("tool", version="1.0.0", description="A tool")
    options.setdefault("effects", "read_only")
    app.command(**options)(function)
    return app.program.find([options.get("name") or function.__name__.replace("_", "-")])


def run(app, *argv, **kwargs):
    outcome = call(app, [*argv, "--json"], **kwargs)   # call() takes an App as run() does
    return outcome.exit, outcome.envelope


# --- every hint form ------------------------------------------------------------------------

def test_scalars_become_typed_options_with_defaults_and_arguments_without():
    def go(name: str, count: int = 3, ratio: float = 0.5, label: str = "x"):
        """Go"""
    command = one(go)
    assert [a.name for a in command.arguments] == ["name"]
    assert command.arguments[0].type == "string" and command.arguments[0].required
    options = command.declared_options
    assert [(k, o.type, o.default, o.required) for k, o in options.items()] == [
        ("count", "integer", 3, False), ("ratio", "number", 0.5, False),
        ("label", "string", "x", False)]


def test_a_bool_is_a_flag_with_its_negation_and_no_default_written():
    def go(dry_run: bool = False, color: bool = True, force: bool = False):
        """Go"""
    command = one(go)
    dry, color = command.options["dry_run"], command.options["color"]
    assert (dry.flag, dry.negation, dry.type, dry.default) == \
        ("--dry-run", "--no-dry-run", "boolean", None)
    assert color.default is True
    app = App("tool")

    @app.command(effects="read_only")
    def show(dry_run: bool = False, color: bool = True):
        """Show"""
        return {"dry_run": dry_run, "color": color}
    assert run(app, "show")[1]["data"] == {"dry_run": False, "color": True}
    assert run(app, "show", "--dry-run", "--no-color")[1]["data"] == \
        {"dry_run": True, "color": False}


def test_a_bool_without_a_default_is_an_optional_flag():
    def go(verbose: bool):
        """Go"""
    option = one(go).options["verbose"]
    assert option.type == "boolean" and not option.required


def test_literal_gives_an_enum_of_strings_or_integers():
    def go(level: Literal["low", "high"] = "low", size: Literal[1, 2, 4] = 2):
        """Go"""
    options = one(go).options
    assert (options["level"].type, options["level"].choices) == ("enum", ["low", "high"])
    assert (options["size"].type, options["size"].choices, options["size"].default) == \
        ("enum", [1, 2, 4], 2)


def test_enum_classes_are_enums_and_the_handler_gets_members():
    app = App("tool")

    @app.command(effects="read_only")
    def go(level: Level = Level.LOW):
        """Go"""
        return {"level": level.name}
    option = app.program.find(["go"]).options["level"]
    assert (option.type, option.choices, option.default) == ("enum", ["low", "high"], "low")
    assert run(app, "go", "--level", "high")[1]["data"] == {"level": "HIGH"}


def test_lists_are_repeatable_options_or_variadic_arguments():
    def go(files: list[str], tag: list[str] = [], port: List[int] = (),
           level: list[Literal["a", "b"]] = ["a"], words: Tuple[str, ...] = ()):
        """Go"""
    command = one(go)
    files = command.arguments[0]
    assert (files.name, files.type, files.variadic, files.required) == \
        ("files", "string", True, True)
    options = command.options
    assert (options["tag"].type, options["tag"].items, options["tag"].default) == \
        ("list", "string", None)
    assert (options["port"].items, options["port"].default) == ("integer", None)
    assert (options["level"].items, options["level"].choices, options["level"].default) == \
        ("enum", ["a", "b"], ["a"])
    assert options["words"].items == "string"


def test_optional_and_union_with_none_unwrap_to_their_type():
    def go(a: Optional[int] = None, b: "str | None" = None, c: int | None = 5):
        """Go"""
    options = one(go).options
    assert [(o.type, o.default, o.required) for o in (options["a"], options["b"], options["c"])] \
        == [("integer", None, False), ("string", None, False), ("integer", 5, False)]


def test_path_is_a_path_on_the_line_and_a_path_in_the_handler(tmp_path):
    app = App("tool")

    @app.command(effects="read_only")
    def read(src: Path, out: Optional[Path] = None, more: list[Path] = []):
        """Read"""
        return {"src": type(src).__name__, "out": out, "more": [type(m).__name__ for m in more]}
    command = app.program.find(["read"])
    assert command.arguments[0].type == "path" and command.options["out"].type == "path"
    assert command.options["more"].items == "path"
    code, doc = run(app, "read", str(tmp_path), "--more", "a", "--more", "b")
    assert doc["data"]["src"] == "PosixPath" and doc["data"]["more"] == ["PosixPath"] * 2
    assert doc["data"]["out"] is None


def test_underscores_are_dashes_in_flags_and_argument_names_keys_stay():
    def go(note_id: int, skip_build: bool = False, build_tag: str = "x"):
        """Go"""
    command = one(go)
    assert command.arguments[0].name == "note-id" and command.arguments[0].key == "note_id"
    assert [o.flag for o in command.declared_options.values()] == ["--skip-build", "--build-tag"]


def test_annotated_metadata_reaches_the_option():
    def go(token: Annotated[Optional[str], Opt("API token", env="TOKEN", sensitive=True)] = None,
           target: Annotated[str, Opt(short="-t", aliases=["dest"], placeholder="<where>")] = "x",
           since_v: Annotated[str, Opt(since="1.2", deprecated="old", replaced_by="--x")] = "y",
           loud: Annotated[bool, Opt(negatable=False)] = False):
        """Go"""
    options = one(go).options
    token, target = options["token"], options["target"]
    assert (token.description, token.env, token.sensitive) == ("API token", "TOKEN", True)
    assert (target.short_flag, target.alias_flags, target.metavar) == \
        ("-t", ("--dest",), "<where>")
    assert (options["since_v"].since, options["since_v"].deprecated) == ("1.2", "old")
    assert options["loud"].negation is None


def test_opt_without_a_default_is_a_required_option_arg_with_one_an_optional_argument():
    def go(target: Annotated[str, Opt()], file: Annotated[str, Arg("input", stdin=True)] = "-"):
        """Go"""
    command = one(go)
    assert command.options["target"].required and command.options["target"].flag == "--target"
    file = command.arguments[0]
    assert (file.name, file.required, file.default, file.stdin, file.description) == \
        ("file", False, "-", True, "input")


def test_opt_and_arg_as_the_default_need_no_annotated():
    def go(target: str = Opt("where", short="t"), build: str = Opt(default="latest"),
           name: str = Arg(), file: str = Arg("input", default="-")):
        """Go"""
    command = one(go)
    target, build = command.options["target"], command.options["build"]
    assert (target.required, target.short_flag, target.description) == (True, "-t", "where")
    assert (build.required, build.default) == (False, "latest")
    assert [(a.name, a.required, a.default) for a in command.arguments] == \
        [("name", True, None), ("file", False, "-")]

    def twice(target: Annotated[str, Opt()] = Opt()):
        """Twice"""
    assert "keep one" in refused(twice)

    def inside(target: Annotated[str, Opt(default="x")]):
        """Inside"""
    assert "give the default after '='" in refused(inside)


def test_string_annotations_from_a_future_import_are_read(tmp_path):
    source = tmp_path / "prog.py"
    source.write_text(textwrap.dedent('''
        from __future__ import annotations
        from typing import Annotated, Literal, TypedDict
        from workbench.typed import App, Opt

        class Out(TypedDict):
            name: str
            size: int

        app = App("prog", description="A program")

        @app.command(effects="read_only", examples=["prog show x --size 2"])
        def show(ctx, name: str, size: Annotated[int, Opt(short="s")] = 1,
                 kind: Literal["a", "b"] = "a") -> Out:
            """Show a thing"""
            return {"name": name, "size": size}
        '''), encoding="utf-8")
    from workbench.loader import load_program
    program = load_program(str(source))
    command = program.find(["show"])
    assert command.options["size"].short_flag == "-s"
    assert command.options["kind"].choices == ["a", "b"]
    assert command.output["required"] == ["name", "size"]
    assert call(program, ["show", "x", "-s", "2", "--json"]).envelope["data"] == \
        {"name": "x", "size": 2}


# --- handler calls and ctx --------------------------------------------------------------------

def test_the_handler_gets_keyword_arguments_and_ctx_by_name_or_by_type():
    app = App("tool")

    @app.command(effects="read_only")
    def by_name(ctx, who: str, times: int = 1):
        """By name"""
        return {"who": who, "times": times, "ctx": type(ctx).__name__}

    @app.command(effects="read_only")
    def by_type(who: str, context: Context = None):
        """By type"""
        return {"agent": context.agent, "who": who}

    @app.command(effects="read_only")
    def without(who: str):
        """Without"""
        return {"who": who}
    assert "ctx" not in app.program.find(["by-name"]).options
    assert run(app, "by-name", "ann", "--times", "2")[1]["data"] == \
        {"who": "ann", "times": 2, "ctx": "Context"}
    assert run(app, "by-type", "bo", environ={"AI_AGENT": "x"})[1]["data"] == \
        {"agent": "x", "who": "bo"}
    assert run(app, "without", "cy")[1]["data"] == {"who": "cy"}


def test_fail_generators_and_plans_work_through_the_typed_handler():
    app = App("tool")

    @app.command(effects="read_only")
    def find(id: int):
        """Find"""
        raise Fail("not_found", f"no {id}", exit=3)

    @app.command(effects="read_only")
    def count(upto: int = 3):
        """Count"""
        yield from range(upto)

    def plan(target, count):
        return {"target": target, "count": count}

    @app.command(effects="idempotent", plan=plan)
    def apply(ctx, target: str, count: int = 1):
        """Apply"""
        return {"applied": ctx.plan}
    assert run(app, "find", "7") == (3, run(app, "find", "7")[1])
    assert run(app, "find", "7")[1]["error"]["code"] == "not_found"
    assert run(app, "count", "--upto", "2")[1]["data"] == [0, 1]
    code, doc = run(app, "apply", "x", "--count", "2", "--dry-run")
    assert doc["data"]["plan"] == {"target": "x", "count": 2}
    assert run(app, "apply", "x", "--count", "2", "--expect-plan", doc["data"]["digest"])[1][
        "data"] == {"applied": {"target": "x", "count": 2}}


def test_command_keywords_pass_through():
    def go():
        """Go"""
    command = one(go, name="run", aliases=["r"], hidden=True, since="1.0", paginated=True,
                  errors=["not_found"], text=lambda d: "t", description="Other words")
    assert (command.name, command.aliases, command.hidden, command.since, command.paginated,
            command.errors, command.description) == \
        ("run", ("r",), True, "1.0", True, ("not_found",), "Other words")


# --- groups -----------------------------------------------------------------------------------

def test_groups_nest_and_apps_mount_as_groups():
    app = App("tool", description="A tool")
    remote = app.group("remote", "Remotes", aliases=["r"])
    branch = remote.group("branch", "Branches")

    @branch.command(effects="read_only")
    def show(name: str):
        """Show a branch"""
        return {"name": name}

    other = App("ignored-name", description="Ignored")

    @other.command(effects="read_only")
    def ping():
        """Ping"""
        return {}
    app.add_group(other, name="net", description="Network")
    program = app.program
    assert [" ".join(g.path) for g in program.groups()] == ["remote", "remote branch", "net"]
    assert program.find(["r", "branch", "show"]).tool_name == "remote_branch_show"
    assert program.find(["net"]).description == "Network"
    assert run(app, "remote", "branch", "show", "main")[1]["data"] == {"name": "main"}
    assert "Branches" in render_help(program, program.find(["remote"]))


def test_adding_a_command_after_the_program_was_built_rebuilds_it():
    app = App("tool")

    @app.command(effects="read_only")
    def first():
        """One"""
    first = app.program

    @app.command(effects="read_only")
    def two():
        """Two"""
    assert app.program is not first and app.program.find(["two"]) is not None


# --- docstrings -------------------------------------------------------------------------------

def test_google_docstrings_give_the_summary_and_each_parameter():
    def go(target: str, build: str = "latest", dry_run: bool = False):
        """Deploy a build
        to a target.

        Longer text that is not the summary.

        Args:
            target (str): where to deploy,
                continued on the next line
            build: build to ship
            dry_run: show the plan only

        Returns:
            dict: what was deployed
        """
    command = one(go)
    assert command.description == "Deploy a build to a target."
    assert command.arguments[0].description == "where to deploy, continued on the next line"
    assert command.options["build"].description == "build to ship"
    assert command.options["dry_run"].description == "show the plan only"


def test_numpy_docstrings_give_each_parameter():
    def go(target: str, build: str = "latest"):
        """Deploy a build

        Parameters
        ----------
        target : str
            where to deploy
        build : str, optional
            build to ship,
            the newest by default

        Returns
        -------
        dict
        """
    command = one(go)
    assert command.arguments[0].description == "where to deploy"
    assert command.options["build"].description == "build to ship, the newest by default"


def test_metadata_descriptions_win_over_the_docstring_and_no_docstring_is_empty():
    def go(build: Annotated[str, Opt("from Opt")] = "x"):
        """Go

        Args:
            build: from the docstring
        """
    assert one(go).options["build"].description == "from Opt"

    def bare(build: str = "x"):
        pass
    command = one(bare)
    assert command.description == "" and command.options["build"].description == ""


# --- output schemas ---------------------------------------------------------------------------

class Item(TypedDict):
    sku: str
    count: int
    tags: list[str]
    level: Literal["low", "high"]
    note: Optional[str]


class Partly(TypedDict, total=False):
    sku: str
    count: int


@dataclass
class Record:
    id: int
    text: str
    items: list[Item]
    extra: dict = field(default_factory=dict)
    score: float = 0.0


def test_a_typeddict_return_is_an_open_object_schema():
    def go() -> Item:
        """Go"""
    assert one(go).output == {"type": "object", "properties": {
        "sku": {"type": "string"}, "count": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "level": {"type": "string", "enum": ["low", "high"]},
        "note": {"type": ["string", "null"]}},
        "required": ["sku", "count", "tags", "level", "note"]}

    def partly() -> list[Partly]:
        """Partly"""
    assert one(partly).output == {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "count": {"type": "integer"}}}}


def test_a_dataclass_return_is_a_closed_schema_and_instances_become_data():
    app = App("tool")

    @app.command(effects="read_only")
    def go() -> Record:
        """Go"""
        return Record(1, "x", [{"sku": "a", "count": 1, "tags": [], "level": "low",
                                "note": None}])
    output = app.program.find(["go"]).output
    assert output["additionalProperties"] is False and output["required"] == ["id", "text",
                                                                            "items"]
    assert output["properties"]["items"]["items"]["required"][0] == "sku"
    assert output["properties"]["extra"] == {"type": "object"}
    assert run(app, "go", environ={"BURGEE_VALIDATE_OUTPUT": "1"})[1]["data"] == {
        "id": 1, "text": "x", "items": [{"sku": "a", "count": 1, "tags": [], "level": "low",
                                         "note": None}], "extra": {}, "score": 0.0}


def test_other_returns_give_no_schema_and_output_wins():
    def plain() -> dict:
        """Plain"""
    assert one(plain).output is None

    def told() -> Item:
        """Told"""
    assert one(told, output={"type": "object"}).output == {"type": "object"}
    assert card(one(told))["output"]["required"][0] == "sku"


# --- definition errors name the fix -----------------------------------------------------------

def refused(function, **options) -> str:
    with pytest.raises(DefinitionError) as error:
        one(function, **options)
    return str(error.value)


def test_missing_effects_says_how_to_declare_them():
    def go():
        """Go"""
    message = refused(go, effects=None)
    assert "has no effects" in message and "@app.command(effects=...)" in message
    assert "'read_only'" in message and "test_typed.py:" in message


def test_a_bare_decorator_asks_for_effects():
    app = App("tool")
    with pytest.raises(DefinitionError, match=r"needs effects=\.\.\.; write "
                                              r"@app.command\(effects='read_only'\)"):
        @app.command
        def go():
            """Go"""


@pytest.mark.parametrize("hint, fix", [
    (None, "has no type hint; annotate it, e.g. `value: str`"),
    (dict, "use str, int, float, bool, Literal[...], an Enum, date, datetime, UUID, Path"),
    (int | str, "use one type, or Optional[T]"),
    (list[bool], "use a single bool flag"),
    (Literal["a", 1], "all strings or all integers"),
    (tuple[str, int], "a tuple's values share one type here"),
    (Annotated[bool, Arg()], "a bool is a --flag: drop Arg(...)"),
    (Annotated[str, Opt(), Arg()], "keep one"),
    ("Missing[int]", "import the names it uses at module level"),
])
def test_unsupported_hints_name_the_fix(hint, fix):
    def go(value=None):
        """Go"""
    go.__annotations__ = {} if hint is None else {"value": hint}
    if isinstance(hint, tuple) or hint is None or hint is dict:
        go.__defaults__ = None
    assert fix in refused(go)


def test_star_args_positional_only_and_a_stray_plan_parameter_name_the_fix():
    def star(*names: str):
        """Star"""
    assert "declare each input as its own parameter" in refused(star)

    def positional(name: str, /):
        """Positional"""
    assert "drop the '/'" in refused(positional)

    def plan(target, nope):
        return {}

    def apply(target: str):
        """Apply"""
    assert "its plan function takes 'nope'" in refused(apply, effects="idempotent", plan=plan)


def test_unknown_keywords_and_the_model_checks_still_refuse():
    app = App("tool")
    with pytest.raises(DefinitionError, match="unknown keyword 'effect'; use one of: effects"):
        app.command(effect="read_only")

    def go(a: Annotated[str, Opt(short="x")] = "", b: Annotated[str, Opt(short="x")] = ""):
        """Go"""
    assert "-x" in refused(go)


def test_a_loader_names_a_typed_definition_error(tmp_path):
    source = tmp_path / "bad.py"
    source.write_text("from workbench.typed import App\napp = App('bad')\n"
                      "@app.command()\ndef go(x: int):\n    '''Go'''\n", encoding="utf-8")
    from workbench.loader import LoadError, load_program
    with pytest.raises(LoadError, match="has no effects; write @app.command"):
        load_program(str(source))


# --- entry points, loaders and imports --------------------------------------------------------

def test_run_app_and_burgee_run_accept_an_app(tmp_path):
    file = ROOT / "sample_programs" / "typed" / "deploy.py"
    environ = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    direct = subprocess.run([sys.executable, str(file), "status", "--json"], env=environ,
                            capture_output=True, text=True, timeout=60)
    via = subprocess.run([sys.executable, "-m", "workbench.cli", "run", str(file), "--",
                          "status", "--json"], env=environ, capture_output=True, text=True,
                         timeout=60)
    assert direct.returncode == via.returncode == 0, direct.stderr + via.stderr
    assert json.loads(direct.stdout)["data"]["target"] == "staging"
    assert direct.stdout == via.stdout


def modules_after(code: str) -> set:
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                           "print(' '.join(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


_TYPED = '''
from workbench.typed import App
from workbench.runtime.pipeline import call
app = App("t", description="x")
@app.command(effects="read_only", examples=["t go a --n 2"])
def go(path: str, n: int = 1, tag: list[str] = [], yes: bool = False) -> dict:
    """Go somewhere

    Args:
        path: where
    """
    return {}
call(app.program, ["--help"])
'''

_DATA = '''
from workbench import Argument, Command, Option, Program
from workbench.runtime.pipeline import call
program = Program("t", description="x", commands=[Command("go", "Go somewhere", "read_only",
    {"n": Option("integer", default=1), "tag": Option("list"), "yes": Option("boolean")},
    [Argument("path", description="where")], examples=["t go a --n 2"], run=lambda ctx: {})])
call(program, ["--help"])
'''


def test_reading_hints_imports_nothing_the_data_form_does_not():
    typed, data = modules_after(_TYPED), modules_after(_DATA)
    assert typed - data == {"workbench.typed"}
    assert "typing" not in typed and "inspect" not in typed


def test_hints_from_typing_add_no_module_beyond_typing_itself():
    typed = modules_after("import typing\nfrom typing import Annotated, Literal, Optional\n"
                          + _TYPED.replace("n: int = 1", "n: Annotated[Optional[int], "
                                           "__import__('workbench.typed').typed.Opt()] = 1")
                          .replace("yes: bool", "yes: Literal['a', 'b'] = 'a', y: bool"))
    data = modules_after("import typing\n" + _DATA)
    assert typed - data == {"workbench.typed"}
    assert "inspect" not in typed


def test_the_public_names_load_typed_lazily():
    loaded = modules_after("import workbench\nworkbench.Program")
    assert "workbench.typed" not in loaded
    assert "workbench.typed" in modules_after("import workbench\nworkbench.App")
    import workbench
    assert {"App", "Opt", "Arg"} <= set(workbench.__all__) and workbench.App is App


def test_the_workbench_loader_finds_an_app_and_names_its_definition_error(tmp_path):
    from workbench.dev import loader
    loaded = loader.load(str(ROOT / "sample_programs" / "typed" / "notes.py"), timeout=30)
    assert loaded.error is None and loaded.name == "app" and loaded.program.name == "notes"
    bad = tmp_path / "bad.py"
    bad.write_text("from workbench.typed import App\napp = App('bad')\n"
                   "@app.command(effects='read_only')\ndef go(x):\n    '''Go'''\n",
                   encoding="utf-8")
    loaded = loader.load(str(bad), timeout=30)
    assert loaded.error.code == "definition"
    assert "parameter 'x' has no type hint; annotate it" in loaded.error.message


def test_the_loader_compiles_a_file_without_its_own_future_imports(tmp_path):
    """`burgee run FILE` used to compile FILE with the loader's `from __future__ import
    annotations`, turning every hint into a string the file's module could no longer resolve."""
    from workbench.loader import exec_file, load_program
    source = tmp_path / "plain.py"
    source.write_text("def f(x: int): pass\nHINT = f.__annotations__['x']\n", encoding="utf-8")
    assert exec_file(str(source)).HINT is int
    program = load_program(str(ROOT / "sample_programs" / "typed" / "notes.py"))
    notes = program.find(["list"]).output["properties"]["notes"]
    assert notes["items"]["additionalProperties"] is False


def test_opt_passes_untrusted_and_removed_in_to_the_option():
    from typing import Annotated

    from workbench.typed import App, Opt
    app = App("relay", version="1.0", description="relays text")

    @app.command(effects="read_only")
    def send(body: Annotated[str, Opt(untrusted=True)],
             old: Annotated[str, Opt(deprecated="use --body", removed_in="3.0")] = ""):
        """Send a body."""
        return {"body": body}

    options = app.program.commands[0].options
    assert options["body"].untrusted is True and options["old"].removed_in == "3.0"
