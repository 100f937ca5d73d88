"""The workbench never touches real data: every run it makes works in a throwaway sandbox, and
only read-only examples run by themselves (issue 12, items 1 and 2).

The test process gets a home of its own (HOME, no XDG variables, TMPDIR inside it) holding a
"real" store; after `burgee dev` (Textual's pilot) and `--headless` (a subprocess) that folder
must be byte for byte what it was.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from _dashboard_helpers import until
from workbench.dev.engine import Workbench
from workbench.dev.sandbox import VARIABLES, Sandbox, current, using

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

APP = textwrap.dedent('''
    import json, os, tempfile, time
    from workbench import Argument, Command, Option, Program

    def _folder(variable, default):
        base = os.environ.get(variable) or os.path.expanduser(default)
        path = os.path.join(base, "keeper")
        os.makedirs(path, exist_ok=True)
        return path

    def _store():
        return os.path.join(_folder("XDG_STATE_HOME", "~/.local/state"), "items.json")

    def _load():
        try:
            with open(_store()) as handle:
                return json.load(handle)
        except FileNotFoundError:
            return []

    def _log(what):
        log = os.environ.get("KEEPER_LOG")     # an absolute path: real, not sandboxed
        if log:
            with open(log, "a") as handle:
                handle.write(what + "\\n")

    def list_items(ctx):
        # a read-only command that still leaves traces: a cache, a config, data, a temp file
        for variable, default in (("XDG_CONFIG_HOME", "~/.config"),
                                  ("XDG_DATA_HOME", "~/.local/share"),
                                  ("XDG_CACHE_HOME", "~/.cache")):
            with open(os.path.join(_folder(variable, default), "seen"), "a") as handle:
                handle.write("list\\n")
        with open(os.path.join(tempfile.gettempdir(), "keeper-scratch"), "a") as handle:
            handle.write("list\\n")
        return {"count": len(_load())}

    def set_remote(ctx):
        path = os.path.join(_folder("XDG_CONFIG_HOME", "~/.config"), "remote")
        old = open(path).read() if os.path.exists(path) else None
        ctx.changed(old != ctx.args.url)
        with open(path, "w") as handle:
            handle.write(ctx.args.url)
        return {"remote": ctx.args.url}

    def add(ctx):
        _log("start")
        items = _load() + [ctx.args.item]
        if os.environ.get("KEEPER_LOG"):
            time.sleep(0.3)
        with open(_store(), "w") as handle:
            json.dump(items, handle)
        _log("end")
        return {"count": len(items)}

    def _plan(ctx):
        return {"add": ctx.options.many, "from": len(_load())}

    def fill(ctx):
        items = _load() + ["x"] * ctx.options.many
        with open(_store(), "w") as handle:
            json.dump(items, handle)
        return {"count": len(items)}

    program = Program(name="keeper", version="1.0.0", description="Keeps items", commands=[
        Command(name="list", description="Count the items", effects="read_only",
                examples=["keeper list"], run=list_items,
                text=lambda d: f"{d['count']} items"),
        Command(name="set-remote", description="Set the remote", effects="idempotent",
                arguments=[Argument("url", description="the remote URL")],
                examples=["keeper set-remote https://example.invalid"], run=set_remote),
        Command(name="add", description="Add an item", effects="non_idempotent",
                arguments=[Argument("item", description="what to add")],
                examples=["keeper add milk"], run=add,
                text=lambda d: f"now {d['count']} items"),
        Command(name="fill", description="Add many items", effects="non_idempotent",
                options={"many": Option(type="integer", default=3, description="how many")},
                plan=_plan, examples=["keeper fill --many 2"], run=fill),
    ])
''')


def _tree(folder) -> dict:
    """relative path -> bytes (None for a folder): everything under `folder`."""
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs:
            found[os.path.relpath(os.path.join(root, name), folder)] = None
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, folder)] = handle.read()
    return found


@pytest.fixture
def real_home(tmp_path, monkeypatch):
    """A home for this test process with real data in it; returns (home, file, snapshot)."""
    home = tmp_path / "home"
    (home / ".local" / "state" / "keeper").mkdir(parents=True)
    (home / ".local" / "state" / "keeper" / "items.json").write_text(
        json.dumps(["a", "b", "c", "d", "e"]))
    (home / ".config" / "keeper").mkdir(parents=True)
    (home / ".config" / "keeper" / "remote").write_text("https://my-real-remote.example")
    (home / "tmp").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(home / "tmp"))
    for name in VARIABLES:
        if name not in ("HOME", "TMPDIR"):
            monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    file = project / "keeper.py"
    file.write_text(APP, encoding="utf-8")
    return home, file, _tree(home)


def test_a_sandbox_points_every_variable_inside_itself_and_is_removed():
    with Sandbox() as box:
        env = box.environ({"HOME": "/home/someone", "PATH": "/bin"})
        assert env["PATH"] == "/bin"
        for name in VARIABLES:
            assert env[name].startswith(box.root + os.sep) and os.path.isdir(env[name]), name
        assert current() is None
        with using(box):
            assert current() is box
        assert current() is None
    assert not os.path.exists(box.root)


def test_headless_never_touches_the_real_home(real_home):
    home, file, before = real_home
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CLAUDECODE")}
    env["PYTHONPATH"] = ROOT
    for extra in ([], ["--run-writes"]):
        done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file),
                               "--headless", "--no-check", "--json", "--update", *extra], capture_output=True,
                              text=True, timeout=180, env=env, cwd=str(file.parent))
        doc = json.loads(done.stdout)
        assert doc["ok"], done.stdout + done.stderr
        report = doc["data"]
        statuses = {d["example"]: d["status"] for d in
                    json.loads((file.parent / ".burgee/snapshots/keeper/diffs.json").read_text())}
        if not extra:      # only read-only examples run by themselves
            assert statuses == {
                "keeper list": "equal",
                "keeper set-remote https://example.invalid":
                    "skipped: idempotent: runs only with --run-writes",
                "keeper add milk": "skipped: non_idempotent: runs only with --run-writes",
                "keeper fill --many 2": "skipped: non_idempotent: runs only with --run-writes"}
        else:              # asked for: each side starts from the same empty sandbox
            assert set(statuses.values()) == {"equal"}, statuses
            assert report["diffs"]["equal"] == 4
        assert _tree(home) == before


def _results_text(results) -> dict:
    return {name: result.stdout for name, result in results.items()}


async def test_the_dashboard_runs_only_read_only_examples_and_confirms_writes(real_home,
                                                                             tmp_path,
                                                                             monkeypatch):
    from workbench.dev.dashboard.app import DashboardApp
    home, file, before = real_home
    log = tmp_path / "runs.log"
    monkeypatch.setenv("KEEPER_LOG", str(log))
    app = DashboardApp(Workbench(str(file)), serve=True, watch=False, auto_diffs=True,
                       stable=True)
    app.animation_level = "none"
    async with app.run_test(size=(120, 36)) as pilot:
        await app.ready()
        # Opening the dashboard diffs the examples: only the read-only one ran.
        await until(pilot, lambda: app.diff_status == "done", what="the first diffs")
        ran = {d.example: d for d in app.diffs}
        assert ran["keeper list"].equal is True and '"count":0' in ran["keeper list"].cli
        for example in ("keeper set-remote https://example.invalid", "keeper add milk"):
            assert ran[example].skipped is not None and ran[example].cli is None, example

        # A write asks first, naming its effect; cancelling runs nothing.
        app.select_command("add")
        pane = app.pane("environments")
        app.show_tab("environments")
        pane.timeout = 20
        app.query_one("#env-input").value = "add milk"
        assert app.action_run_environments() is None
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmWrites",
                    what="the confirmation")
        assert "non_idempotent" in str(app.screen.text)
        await pilot.press("n")
        await until(pilot, lambda: pane.status.startswith("cancelled"), what="the cancel")
        assert pane.worker is None and not log.exists()

        # Confirmed: once per environment, one after another, each on an empty sandbox.
        await pilot.press("e")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmWrites",
                    what="the confirmation")
        await pilot.press("y")
        await until(pilot, lambda: pane.worker is not None, what="the run to start")
        await pane.worker.wait()
        assert len(pane.results) == 8
        for name, result in pane.results.items():
            assert result.exit == 0, (name, result)
            assert "now 1 items" in result.stdout or '"count":1' in result.stdout, (name, result)
        assert log.read_text().split() == ["start", "end"] * 8     # never two at once

        # A command with a plan runs as --dry-run unless asked otherwise.
        app.select_command("fill")
        app.query_one("#env-input").value = "fill --many 4"
        await pilot.press("e")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmWrites",
                    what="the confirmation")
        await pilot.press("d")
        await until(pilot, lambda: pane.worker is not None, what="the dry run to start")
        await pane.worker.wait()
        for name, result in pane.results.items():
            assert result.argv[-1] == "--dry-run" or (result.arguments or {}).get("dry_run"), \
                (name, result)
            assert result.exit == 0, (name, result)

        # `D` runs the write examples too, once the person confirms; still sandboxed.
        app.screen.set_focus(None)
        await pilot.press("D")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDiffWrites",
                    what="the diff confirmation")
        assert "set-remote  idempotent" in str(app.screen.text)
        await pilot.press("y")
        await until(pilot, lambda: app.diff_status == "done" and all(
            d.skipped is None for d in app.diffs), what="the diffs with writes")
        assert all(d.equal for d in app.diffs), [d for d in app.diffs if not d.equal]
        await app.shutdown()
    assert _tree(home) == before


def test_an_input_that_does_not_parse_still_counts_as_a_write(tmp_path):
    """`add` with its argument missing (or given through the environment at run time) is
    still the non-idempotent `add`: the pane must ask before running it."""
    from workbench.dev.inputs import dry_run_input, target_command, writes
    file = tmp_path / "keeper.py"
    file.write_text(APP, encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    program = bench.reload().program
    assert target_command(program, ["add"]).name == "add"
    assert writes(target_command(program, ["add", "--bogus"]))
    assert not writes(target_command(program, ["list"]))
    assert target_command(program, ["nope"]) is None
    fill = target_command(program, ["fill"])
    assert dry_run_input(fill, ["fill", "--many", "2"])[0] == ["fill", "--many", "2", "--dry-run"]
    assert dry_run_input(fill, ["fill", "--dry-run"])[0] == ["fill", "--dry-run"]
    assert dry_run_input(fill, None, {"many": 2}) == (None, {"many": 2, "dry_run": True})
