"""Big programs (issue 18): checks run once per source, lookups by dict, --schema linear.

Behaviour only, never timing: the verdict cache is written after every check passed, trusted
for the same bytes, and ignored once the source changes or the Program is not built at a
module's top level; child lookups agree with a scan in declared order; the budgeted schema
is the same document the one-name-at-a-time loop made; a call derives option spellings and
value types for its own command only.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import SAMPLES, clean_env, run_program

from workbench import Command, Group, Option, Program
from workbench.declaration.model import child_named
from workbench.loader import load_program
from workbench.surfaces import _facts
from workbench.surfaces.schema import (
    DETAILS, _command_entry, _document, _encoded_size, _string_size, program_schema,
)

GOOD = '''from workbench import Command, Option, Program, run

def hello(ctx):
    return {{"hello": ctx.options["name"]}}

program = Program("hi", "1.0.0", "greets", commands=[
    Command("hello", "say hello", effects="read_only", run=hello,
            options={{"name": Option(description="who")}},
            examples=[{example!r}]),
])

if __name__ == "__main__":
    run(program)
'''

COUNTED = ("import sys; from workbench.declaration import _checks; ran = []; "
           "real = _checks.check_program; "
           "_checks.check_program = lambda program: ran.append(1) or real(program); ")
PROBE = COUNTED + "sys.path.insert(0, sys.argv[1]); import prog; print('checked' if ran else 'trusted')"


def _verdicts(cache) -> list:
    folder = cache / "burgee" / "checked"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def _trusted(folder, env) -> str:
    """Whether `prog` in `folder`, imported fresh, ran its definition checks or trusted the
    verdict ('checked' / 'trusted')."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(folder)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def program_file(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    path = folder / "prog.py"
    path.write_text(GOOD.format(example="hi hello --name ada"))
    return path


def test_verdict_is_written_after_every_check_passed_and_then_trusted(program_file, tmp_path):
    env = clean_env(XDG_CACHE_HOME=tmp_path / "cache")
    assert _trusted(program_file.parent, env) == "checked"     # imported only: no call yet
    assert _verdicts(tmp_path / "cache") == []
    first = run_program(program_file, "hello", "--name", "x", "--json", env=env)
    assert first.exit == 0 and first.json["data"]["hello"] == "x"
    assert len(_verdicts(tmp_path / "cache")) == 1           # examples passed too
    assert _trusted(program_file.parent, env) == "trusted"
    again = run_program(program_file, "hello", "--name", "y", "--json", env=env)
    assert again.exit == 0 and again.json["data"]["hello"] == "y"
    assert len(_verdicts(tmp_path / "cache")) == 1


def test_a_changed_source_is_checked_again_and_its_error_reported(program_file, tmp_path):
    env = clean_env(XDG_CACHE_HOME=tmp_path / "cache")
    assert run_program(program_file, "hello", "--json", env=env).exit == 0
    assert len(_verdicts(tmp_path / "cache")) == 1
    program_file.write_text(GOOD.format(example="hi hello --nme ada"))   # a broken example
    broken = run_program(program_file, "hello", "--json", env=env)
    assert broken.exit != 0
    assert "example 'hi hello --nme ada'" in broken.stdout + broken.stderr
    assert len(_verdicts(tmp_path / "cache")) == 1           # a failure is never cached
    program_file.write_text(GOOD.format(example="hi hello --name ada").replace(
        'effects="read_only"', 'effects="readonly"'))            # a definition error
    broken = run_program(program_file, "hello", "--json", env=env)
    assert broken.exit != 0 and "effects" in broken.stdout + broken.stderr
    assert len(_verdicts(tmp_path / "cache")) == 1


def test_burgee_check_always_and_functions_never_use_the_cache(program_file, tmp_path):
    env = clean_env(XDG_CACHE_HOME=tmp_path / "cache")
    assert run_program(program_file, "hello", "--json", env=env).exit == 0
    assert _trusted(program_file.parent, env) == "trusted"
    assert _trusted(program_file.parent, dict(env, BURGEE_CHECK="always")) == "checked"
    built_in_a_function = program_file.read_text().replace(
        "program = Program(", "def make():\n    return Program(").replace(
        'if __name__', 'program = make()\n\nif __name__')
    program_file.write_text(built_in_a_function)
    for _ in range(2):
        assert run_program(program_file, "hello", "--json", env=env).exit == 0
        assert _trusted(program_file.parent, env) == "checked"


def test_the_dev_loader_always_checks(program_file, tmp_path):
    """`burgee dev` runs the source it was given, not the file's bytes: never trusted."""
    env = clean_env(XDG_CACHE_HOME=tmp_path / "cache")
    assert run_program(program_file, "hello", "--json", env=env).exit == 0
    code = COUNTED + ("from workbench.dev.loader import load_in_process; load_in_process(sys.argv[1]); "
                      "print('checked' if ran else 'trusted')")
    done = subprocess.run([sys.executable, "-c", code, str(program_file)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "checked"


def test_child_lookup_agrees_with_a_scan_in_declared_order():
    def handler(ctx):
        return {}
    first = Command("first", effects="read_only", run=handler, aliases=("shared",))
    second = Command("shared", effects="read_only", run=handler)   # unchecked: a clash
    group = Group("g", commands=[first, second, Command("third", effects="read_only",
                                                        run=handler, aliases=("t",))])
    program = Program("p", commands=[group], check=False)

    def scan(node, name):
        return next((c for c in node.commands if c.name == name or name in c.aliases), None)
    for name in ("first", "shared", "third", "t", "nope", "g"):
        assert child_named(group, name) is scan(group, name)
        assert child_named(program, name) is scan(program, name)
    late = Command("late", effects="read_only", run=handler)
    group.commands.append(late)
    assert child_named(group, "late") is late
    assert program.find(["g", "t"]).name == "third"


def _one_name_at_a_time(program, budget):
    """The names step as it was before issue 18 (the groups step between): the oracle the
    new one must match."""
    names = [" ".join(c.path) for c in _facts.listed_commands(program)]
    doc = _document(program, program, "names", budget, names)
    if _encoded_size(doc) <= budget:
        return doc
    groups = _document(program, program, "groups", budget,
                       [c.name for c in program.commands if not c.is_group],
                       groups=[c.name for c in program.commands if c.is_group])
    if groups["groups"] and _encoded_size(groups) <= budget:
        return groups
    for keep in range(len(names) - 1, -1, -1):
        doc = _document(program, program, "names", budget, names[:keep],
                        omitted=len(names) - keep)
        if _encoded_size(doc) <= budget:
            break
    return doc


def _big(commands):
    def handler(ctx):
        return {}
    groups = []
    for g in range(commands // 20):
        groups.append(Group(f"g{g}", f"group {g}", commands=[
            Command(f"c{c}", f"command {c} of group {g}", effects="read_only", run=handler,
                    options={"alpha": Option(description="alpha value"),
                             "beta": Option(type="integer", default=1)},
                    examples=[f"big g{g} c{c} --alpha a"]) for c in range(20)]))
    return Program("big", "1.0.0", "generated", commands=groups)


@pytest.mark.parametrize("budget", [0, 150, 700, 999, 1000, 1001, 1234, 2500, 4000])
def test_schema_names_trimming_matches_the_one_name_at_a_time_loop(budget):
    program = _big(200)
    doc = program_schema(program, budget)
    assert json.dumps(doc) == json.dumps(_one_name_at_a_time(program, budget)) or \
        doc["detail"] not in ("names", "groups")
    if doc["detail"] == "names":
        assert _encoded_size(doc) <= budget or doc["commands"] == []
        if doc.get("omitted"):   # one more name would not have fitted
            names = [" ".join(c.path) for c in _facts.listed_commands(program)]
            keep = len(doc["commands"])
            fuller = _document(program, program, "names", budget, names[:keep + 1],
                               omitted=len(names) - keep - 1)
            assert _encoded_size(fuller) > budget or keep + 1 == len(names)


def test_a_name_is_sized_as_its_encoding_is():
    import random
    rng = random.Random(18)
    alphabet = 'ab -_"\\\x00\x1f\x7f\té€\u2028\U0001f600\ud800'
    texts = ["", "g0 c1", 'say "hi"', "back\\slash", "tab\there", "\x7f", "é", "\ud800"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
              for _ in range(3000)]
    for text in texts:
        assert _string_size(text) == _encoded_size(text), repr(text)


def test_schema_of_a_program_with_no_listed_command_matches_the_old_loop():
    def handler(ctx):
        return {}
    program = Program("p", commands=[Command("x", effects="read_only", run=handler,
                                             hidden=True)])
    assert _facts.listed_commands(program) == []
    for budget in (0, 10, 10 ** 6):
        doc = program_schema(program, budget)
        assert doc["commands"] == [] and "omitted" not in doc


@pytest.mark.parametrize("sample", ["notes", "warehouse", "deploy"])
def test_each_level_is_the_first_that_fits(sample):
    program = load_program(str(SAMPLES / f"{sample}.py"))
    for budget in (300, 800, 1500, 3000, 6000, 8000, 20000, 10 ** 6):
        doc = program_schema(program, budget)
        assert _encoded_size(doc) <= budget or doc["detail"] == "names"
        richer = list(DETAILS) + ["names, some left out"]
        got = "names, some left out" if doc.get("omitted") else doc["detail"]
        for detail in richer[:richer.index(got)]:
            if detail == "groups":
                top = _facts.visible(program)
                whole = _document(program, program, detail, budget,
                                  [c.name for c in top if not c.is_group],
                                  groups=[c.name for c in top if c.is_group])
                assert _encoded_size(whole) > budget or not whole["groups"]
                continue
            whole = _document(program, program, detail, budget, [
                _command_entry(c, detail) for c in _facts.listed_commands(program)])
            assert _encoded_size(whole) > budget


def test_tools_list_is_built_once_per_program_generation():
    import asyncio
    from types import SimpleNamespace

    import mcp.types as mcp_types
    from mcp_types import methods

    from workbench.mcp.server import ProgramServer
    from workbench.surfaces.tools import list_tools
    first = load_program(str(SAMPLES / "notes.py"))
    server = ProgramServer(first)
    legacy, modern = SimpleNamespace(protocol_version="2025-06-18"), \
        SimpleNamespace(protocol_version="2026-07-28")
    answer = asyncio.run(server._on_list_tools(legacy, None))
    assert answer == methods.serialize_server_result("tools/list", "2025-06-18",
                                                     {"tools": list_tools(first)})
    assert asyncio.run(server._on_list_tools(legacy, None)) is answer    # same generation
    assert asyncio.run(server._on_list_tools(modern, None)) == mcp_types.ListToolsResult \
        .model_validate({"tools": list_tools(first)}).model_dump(
            by_alias=True, mode="json", exclude_none=True)
    reloaded = load_program(str(SAMPLES / "notes.py"))
    server.set_program(reloaded)
    fresh = asyncio.run(server._on_list_tools(legacy, None))
    assert fresh is not answer and fresh == answer                       # new generation


def _derived(param, name: str) -> bool:
    """Whether `param` has derived the slot `name` yet (read without deriving it)."""
    slot = next(cls.__dict__[name] for cls in type(param).__mro__ if name in cls.__dict__)
    try:
        slot.__get__(param)
    except AttributeError:
        return False
    return True


def test_a_call_derives_what_only_its_own_command_reads(capsys):
    """A call at 5,000 commands spelled and typed all 20,000 options: spellings and value
    types are derived on first read, so a call derives them for its own command only.
    (check=False stands for a released program trusted by its verdict: no check reads them.)"""
    from workbench import run
    program = Program("big", commands=[Group(f"g{g}", commands=[
        Command(f"c{c}", effects="read_only", run=lambda ctx: ctx.options, options={
            "alpha": Option(), "delta": Option(type="enum", choices=["x", "y"])})
        for c in range(3)]) for g in range(3)], check=False)
    with pytest.raises(SystemExit) as done:
        run(program, ["g1", "c2", "--alpha", "a", "--json"])
    assert done.value.code == 0, capsys.readouterr()
    assert json.loads(capsys.readouterr().out)["data"] == {"alpha": "a", "delta": None}
    called = program.find(["g1", "c2"])
    assert _derived(called.options["alpha"], "spellings")
    derived = [(command, key, name) for command in program.walk() if command is not called
               for key, option in command.options.items()
               for name in ("spellings", "value_type") if _derived(option, name)]
    assert derived == []


def test_an_option_is_spelled_from_its_latest_key():
    option = Option(type="boolean", short="v")
    Command("a", effects="read_only", options={"dry_run": option})
    assert option.flag == "--dry-run" and option.negation == "--no-dry-run"
    option.key = "check_only"          # spelled already: a new key spells it again
    assert option.spellings == {"--check-only": (False, None), "-v": (False, None),
                                "--no-check-only": (True, None)}
    option.key = "dry_run"
    other = Command("b", effects="read_only", options={"check_only": option})
    assert option.flag == "--dry-run"  # a second key gets a copy (test_definition_checks)
    assert other.options["check_only"].spellings == {"--check-only": (False, None),
                                                     "-v": (False, None),
                                                     "--no-check-only": (True, None)}
    assert Option(type="enum", choices=["x"]).value_type.words == "one of: x"


EXITING = '''import atexit, gc, os, sys
from workbench import Command, Program, run

atexit.register(lambda: sys.stderr.write(f"frozen={{gc.get_freeze_count()}}\\n"))


class Holder:   # in a cycle: only the collector can finalize it
    def __init__(self, path):
        self.me = self
        self.path = path

    def __del__(self):
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"finalized")
        os.close(fd)


def make(ctx):
    Holder({path!r})
    return {{"made": True}}


program = Program("ex", "1.0.0", "exits", commands=[
    Command("make", "make garbage", effects="read_only", run=make, examples=["ex make"])])
run(program)
'''


def test_a_process_leaves_its_declaration_to_the_os_but_finalizes_the_calls_garbage(tmp_path):
    """Python's shutdown would walk the declaration's cycles (~45 ms at 5,000 commands): `run`
    freezes it at exit, after collecting the young garbage the call made."""
    written = tmp_path / "written.txt"
    path = tmp_path / "ex.py"
    path.write_text(EXITING.format(path=str(written)))
    done = run_program(path, "make", "--json", env=clean_env(XDG_CACHE_HOME=tmp_path / "c"))
    assert done.exit == 0, done.stderr
    assert json.loads(done.stdout)["data"] == {"made": True}
    frozen = int(done.stderr.split("frozen=")[1].split()[0])
    assert frozen > 100   # the declaration and what was imported, left to the OS
    assert written.read_text() == "finalized"


def test_run_freezes_what_existed_before_it_only_while_it_runs(capsys, monkeypatch):
    """The exit hook's young collection walks only what the call made: `run` freezes the
    start-up heap while it runs and thaws it when it ends; someone else's freeze, or a
    collector turned off, is left as it was."""
    import gc

    from workbench import entry, run

    seen = []
    program = Program("p", "1.0.0", "", commands=[
        Command("x", effects="read_only", examples=["p x"],
                run=lambda ctx: seen.append(gc.get_freeze_count()) or {})])
    monkeypatch.setattr(entry, "_EXIT_REGISTERED", True)   # no exit hook from a test
    if gc.get_freeze_count():
        pytest.skip("this test process froze its heap already")
    with pytest.raises(SystemExit):
        run(program, ["x", "--json"])
    assert seen[-1] > 0 and gc.get_freeze_count() == 0
    gc.freeze()   # someone else's (a fork server's): neither added to nor thawed
    try:
        frozen = gc.get_freeze_count()
        with pytest.raises(SystemExit):
            run(program, ["x", "--json"])
        assert seen[-1] == frozen and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with pytest.raises(SystemExit):
            run(program, ["x", "--json"])
        assert seen[-1] == 0 and gc.get_freeze_count() == 0 and not gc.isenabled()
    finally:
        gc.enable()


def test_run_in_a_long_lived_process_freezes_nothing_until_it_exits(capsys, monkeypatch):
    """A test or a server calling `run` keeps its collector: freezing waits for exit, and
    registers once however many calls."""
    import atexit
    import gc

    from workbench import entry, run

    program = Program("p", "1.0.0", "", commands=[
        Command("x", effects="read_only", run=lambda ctx: {}, examples=["p x"])])
    monkeypatch.setattr(entry, "_EXIT_REGISTERED", False)   # as in a fresh process
    frozen, callbacks = gc.get_freeze_count(), atexit._ncallbacks()
    for _ in range(3):
        with pytest.raises(SystemExit):
            run(program, ["x", "--json"])
    assert gc.get_freeze_count() == frozen
    assert atexit._ncallbacks() - callbacks == 1    # a second freeze at exit does nothing
