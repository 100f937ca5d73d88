"""Lazy groups (issue 18): `Group(name, description, load="pkg.module:attr")`.

A call imports only the group it dispatches to, root help none; every listing surface loads
them all and prints the same bytes as the program declared eagerly; a group that cannot load
is a `definition` envelope naming the group and the fix; an edited group module is checked
again (its own verdict); `burgee dev --headless` works on it. Behaviour only, never timing.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import clean_env, save

ROOT = str(Path(__file__).resolve().parents[1])

GROUP = '''from workbench import Command, Group, Option

def handler(ctx):
    return {{"group": {g}, "options": ctx.options}}

group = Group("g{g}", "group {g}", [
{commands}])
'''

COMMAND = '''    Command("c{c}", "command {c} of group {g}", effects="read_only", run=handler,
            options={{"alpha": Option(description="alpha"), "token": Option(description="a secret",
                     sensitive=True, env="BIG_TOKEN")}},
            examples=["big g{g} c{c} --alpha a"]),
'''

NESTED = '''    Group("inner", "nested in group {g}", [
        Command("deep", "a nested command", effects="read_only", run=handler,
                examples=["big g{g} inner deep"]),
    ]),
'''

LAZY = '''from workbench import Group, Program, run

program = Program("big", "1.0.0", "a lazy program", [
{groups}])

if __name__ == "__main__":
    run(program)
'''

EAGER = '''from workbench import Program, run
{imports}
program = Program("big", "1.0.0", "a lazy program", [{names}])

if __name__ == "__main__":
    run(program)
'''

GROUPS = 3


def _write(folder: Path) -> None:
    pkg = folder / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for g in range(GROUPS):
        commands = "".join(COMMAND.format(g=g, c=c) for c in range(2))
        if g == 1:
            commands += NESTED.format(g=g)
        (pkg / f"g{g}.py").write_text(GROUP.format(g=g, commands=commands))
    groups = "".join(f'    Group("g{g}", "group {g}", load="pkg.g{g}:group"),\n'
                     for g in range(GROUPS))
    (folder / "lazy.py").write_text(LAZY.format(groups=groups))
    imports = "".join(f"from pkg.g{g} import group as g{g}\n" for g in range(GROUPS))
    names = ", ".join(f"g{g}" for g in range(GROUPS))
    (folder / "eager.py").write_text(EAGER.format(imports=imports, names=names))


@pytest.fixture
def app(tmp_path):
    folder = tmp_path / "app"
    _write(folder)
    env = clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    return folder, env


def _run(folder, env, file, *argv):
    return subprocess.run([sys.executable, str(folder / file), *argv], env=env, cwd=folder,
                          capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


PROBE = ("import sys, json; sys.path.insert(0, sys.argv[1]); import lazy; "
         "from workbench.runtime.pipeline import call; "
         "outcome = call(lazy.program, sys.argv[2:]); "
         "print(json.dumps([outcome.exit, sorted(m for m in sys.modules if m.startswith('pkg.'))]))")


def _loaded(folder, env, *argv) -> tuple:
    """(exit, the group modules imported) for one in-process call in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(folder), *argv], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    code, modules = json.loads(done.stdout.splitlines()[-1])
    return code, modules


def _warm(folder, env) -> None:
    """The first start checks every group and records the verdicts."""
    done = _run(folder, env, "lazy.py", "g0", "c0", "--json")
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_call_loads_only_its_group_and_root_help_none(app):
    folder, env = app
    _warm(folder, env)
    assert _loaded(folder, env, "g1", "c0", "--alpha", "x", "--json") == (0, ["pkg.g1"])
    assert _loaded(folder, env, "g2", "c1", "--json") == (0, ["pkg.g2"])
    assert _loaded(folder, env, "--help") == (0, [])
    assert _loaded(folder, env, "g0", "c0", "--alpah", "x", "--json") == (2, ["pkg.g0"])
    assert _loaded(folder, env, "help", "--json") == (0, ["pkg.g0", "pkg.g1", "pkg.g2"])
    done = _run(folder, env, "lazy.py", "--help")
    assert "  g1  group 1\n" in done.stdout, done.stdout   # declared name and description
    call = _run(folder, env, "lazy.py", "g1", "inner", "deep", "--json")
    assert json.loads(call.stdout)["data"] == {"group": 1, "options": {}}


def test_a_sensitive_option_of_a_lazy_group_is_masked(app):
    folder, env = app
    _warm(folder, env)
    done = _run(folder, env, "lazy.py", "g2", "c0", "--tokn", "s3cr3t-value", "--json")
    assert done.returncode == 2 and "s3cr3t-value" not in done.stdout + done.stderr, done


@pytest.mark.parametrize("argv", [
    ["help", "--json"], ["help", "--json", "--level", "card"], ["--schema"],
    ["completion", "bash"], ["completion", "zsh"], ["completion", "fish"],
    ["g1", "--help", "--json"], ["g1", "c0", "--help"], ["g1", "--schema"],
])
def test_listing_surfaces_are_byte_identical_to_the_eager_program(app, argv):
    folder, env = app
    lazy, eager = _run(folder, env, "lazy.py", *argv), _run(folder, env, "eager.py", *argv)
    assert lazy.returncode == eager.returncode == 0, lazy.stderr + eager.stderr
    assert lazy.stdout == eager.stdout


SCHEMA_PROBE = """import sys, json; sys.path.insert(0, sys.argv[1]); import lazy
from workbench.runtime.pipeline import World, execute
from workbench.surfaces.schema import _groups_within
import io
program = lazy.program
groups = _groups_within(program, program, 10 ** 9)   # reads the root's children only
program.budgets["schema"] = len(json.dumps(groups, separators=(",", ":")))
out = io.StringIO()
execute(program, sys.argv[2:], World({}, io.StringIO(), out, io.StringIO()))
print(json.dumps([json.loads(out.getvalue()),
                  sorted(m for m in sys.modules if m.startswith("pkg."))]))
"""


def test_schema_past_its_budget_lists_groups_without_loading_them_all(app):
    """The program's schema, its budget just the size of the groups document: the names do
    not fit, so it lists the groups, and the walk that found that out stopped early."""
    folder, env = app
    _warm(folder, env)
    done = subprocess.run([sys.executable, "-c", SCHEMA_PROBE, str(folder), "--schema"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    doc, modules = json.loads(done.stdout)
    assert doc["detail"] == "groups" and doc["groups"] == ["g0", "g1", "g2"], doc
    assert doc["commands"] == [] and "'big <group> --schema'" in doc["note"]
    assert "pkg.g2" not in modules, modules
    scoped = subprocess.run([sys.executable, "-c", SCHEMA_PROBE, str(folder), "g1",
                             "--schema"], env=env, capture_output=True, text=True, timeout=60)
    doc, modules = json.loads(scoped.stdout)
    assert modules == ["pkg.g1"] and doc["group"] == "g1", (doc, scoped.stderr)


def test_mcp_tools_list_is_identical_to_the_eager_program(app):
    folder, env = app
    script = ("import sys, json; sys.path.insert(0, sys.argv[1]); import importlib; "
              "from workbench.surfaces.tools import list_tools; "
              "print(json.dumps(list_tools(importlib.import_module(sys.argv[2]).program)))")
    out = [subprocess.run([sys.executable, "-c", script, str(folder), name], env=env,
                          capture_output=True, text=True, timeout=60) for name in ("lazy", "eager")]
    assert out[0].returncode == 0, out[0].stderr
    assert out[0].stdout == out[1].stdout
    assert len(json.loads(out[0].stdout)) == GROUPS * 2 + 1


@pytest.mark.parametrize("change, expected", [
    (("pkg.g1:group", "pkg.gone:group"), "names module 'pkg.gone', which is not importable"),
    (("pkg.g1:group", "pkg.g1:grop"), "module 'pkg.g1' has no attribute 'grop'"),
    (("pkg.g1:group", "pkg.g1:handler"), "it must be a Group(...) or a list of Command"),
    (("pkg.g1:group", "pkg.g1"), "must name 'package.module:attribute'"),
])
def test_a_group_that_cannot_load_is_a_definition_envelope(app, change, expected):
    folder, env = app
    source = (folder / "lazy.py").read_text()
    (folder / "lazy.py").write_text(source.replace(*change))
    for argv in (["g0", "c0", "--json"], ["g1", "c0", "--json"]):  # first start, then trusted
        done = _run(folder, env, "lazy.py", *argv)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done
        error = json.loads(done.stdout)["error"]
        assert error["code"] == "definition"
        assert "group 'g1'" in error["message"] and expected in error["message"], error


def test_a_broken_group_module_is_named_after_a_good_first_start(app):
    folder, env = app
    _warm(folder, env)
    (folder / "pkg" / "g2.py").write_text("raise RuntimeError('boom')\n")
    done = _run(folder, env, "lazy.py", "g2", "c0")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done
    assert "group 'g2': importing 'pkg.g2'" in done.stderr and "boom" in done.stderr
    assert _run(folder, env, "lazy.py", "g0", "c0", "--json").returncode == 0


def test_an_edited_lazy_module_is_checked_again(app):
    folder, env = app
    _warm(folder, env)
    cache = Path(env["XDG_CACHE_HOME"]) / "burgee" / "checked"
    before = sorted(os.listdir(cache))
    assert len([name for name in before if name.startswith("lazy-")]) == GROUPS
    module = folder / "pkg" / "g1.py"
    good = module.read_text()
    module.write_text(good.replace('effects="read_only"', 'effects="bogus"', 1))
    done = _run(folder, env, "lazy.py", "g1", "c0", "--json")
    assert done.returncode == 1, done
    assert "command 'g1 c0': effects='bogus'" in json.loads(done.stdout)["error"]["message"]
    assert _run(folder, env, "lazy.py", "g0", "c0", "--json").returncode == 0   # untouched
    module.write_text(good.replace("--alpha a", "--alpah a", 1))    # a bad example
    done = _run(folder, env, "lazy.py", "g1", "c0", "--json")
    assert done.returncode == 1 and "example 'big g1 c0 --alpah a'" in done.stdout, done
    module.write_text(good.replace("command 0 of group 1", "the first of group 1"))
    assert _run(folder, env, "lazy.py", "g1", "c0", "--json").returncode == 0
    after = sorted(os.listdir(cache))
    assert len(after) == len(before) + 1   # the edited module's own verdict, nothing else


@pytest.mark.slow
def test_headless_works_on_a_lazy_program(app):
    folder, env = app   # the program's folder is not on PYTHONPATH: dev puts it on sys.path

    def headless(*extra):
        done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", "lazy.py",
                               "--headless", "--no-check", "--json", *extra], capture_output=True, text=True,
                              timeout=300, env=env, cwd=folder)
        return done.returncode, done

    code, done = headless("--update")
    assert code == 0, done.stdout + done.stderr
    code, done = headless()
    assert code == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout.splitlines()[-1])
    assert doc["ok"] is True, doc


def test_a_program_built_in_process_refuses_a_bad_lazy_group(tmp_path, monkeypatch):
    from workbench import DefinitionError, Group, Program
    package = tmp_path / "lazybad"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "g0.py").write_text(GROUP.format(g=0, commands=COMMAND.format(g=0, c=0))
                                   .replace('effects="read_only"', 'effects="bogus"'))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DefinitionError, match="command 'g0 c0': effects='bogus'"):
        Program("big", "1.0.0", "x", [Group("g0", "group 0", load="lazybad.g0:group")])
    with pytest.raises(DefinitionError, match="group 'g1': load='lazybad.g1:group' names"):
        Program("big", "1.0.0", "x", [Group("g1", "group 1", load="lazybad.g1:group")])
    with pytest.raises(DefinitionError, match="give commands= or load=, not both"):
        Group("g0", "group 0", [object()], load="lazybad.g0:group")


def test_headless_refuses_a_lazy_group_that_cannot_load(app):
    folder, env = app
    source = (folder / "lazy.py").read_text()
    (folder / "lazy.py").write_text(source.replace("pkg.g2:group", "pkg.g2:gone"))
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", "lazy.py", "--headless", "--no-check", "--json",
                           "--json"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=folder)
    assert done.returncode != 0, done.stdout + done.stderr
    error = json.loads(done.stdout.splitlines()[-1])["error"]   # as for any failed load
    assert "group 'g2': load='pkg.g2:gone': module 'pkg.g2' has no attribute 'gone'" \
        in error["message"], error


@pytest.mark.asyncio
@pytest.mark.slow
async def test_mcp_clients_see_the_same_tools_and_call_a_lazy_one(app):
    from mcp import Client, StdioServerParameters
    folder, env = app
    listed = {}
    for name in ("lazy", "eager"):
        params = StdioServerParameters(command=sys.executable, args=[f"{name}.py", "mcp"],
                                       env=env, cwd=str(folder))
        async with Client(params, mode="legacy", cache=None) as client:
            tools = (await client.list_tools()).tools
            listed[name] = [tool.model_dump(mode="json") for tool in tools]
            result = await client.call_tool("g1_inner_deep", {})
            assert not result.is_error and '"group":1' in result.content[0].text
    assert listed["lazy"] == listed["eager"]
    assert len(listed["lazy"]) == GROUPS * 2 + 1


@pytest.mark.asyncio
@pytest.mark.slow
async def test_mcp_watch_reloads_an_edited_lazy_module(app):
    import asyncio

    from mcp import Client, StdioServerParameters
    folder, env = app
    heard = asyncio.Event()

    async def on_message(message):
        if type(message).__name__ == "ToolListChangedNotification":
            heard.set()

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", "lazy.py", "--watch"],
                                   env=env, cwd=str(folder))
    async with Client(params, mode="legacy", message_handler=on_message, cache=None) as client:
        before = [tool.name for tool in (await client.list_tools()).tools]
        assert "g2_c2" not in before
        module = folder / "pkg" / "g2.py"
        extra = COMMAND.format(g=2, c=2)
        save(module, module.read_text().replace("\n])", "\n" + extra + "])"))
        await asyncio.wait_for(heard.wait(), 30)
        after = [tool.name for tool in (await client.list_tools()).tools]
        assert after == before + ["g2_c2"]


def test_a_programs_repr_imports_no_lazy_group_and_never_raises():
    """repr() is what a debugger, a log line or a failed assertion shows: it names what is
    loaded and counts the lazy groups still waiting, without importing them (one that cannot
    load must not make repr raise)."""
    from workbench import Command, Group, Program
    program = Program("big", "1.0.0", "d", [
        Command("ok", "fine", effects="read_only", run=lambda ctx: {}),
        Group("far", "never imported", load="no_such_module_here:group"),
    ], check=False)     # a checked program would have loaded (and refused) it already
    before = set(sys.modules)
    assert repr(program) == "Program('big', 1 command, 1 lazy group not loaded)"
    assert "no_such_module_here" not in sys.modules and set(sys.modules) == before
