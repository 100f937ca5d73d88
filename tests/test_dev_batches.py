"""Diff batches (issue 18.3): long-lived workers that fork every run in a restored sandbox, and
no more than one batch alive after any number of saves (the test counts processes)."""

import json
import os

import pytest
from _dashboard_helpers import dashboard, until
from conftest import ended, save, wait_until

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

SLOW = '''\
import os
import time
from pathlib import Path

from workbench import Command, Program, run

STATE = Path(os.environ["HOME"]) / ".local" / "state" / "slow"   # decided at import time


def nap(ctx):
    time.sleep(0.5)
    return {"slept": 0.5}


def bump(ctx):
    STATE.mkdir(parents=True, exist_ok=True)
    count = STATE / "count.txt"
    value = int(count.read_text()) + 1 if count.exists() else 1
    count.write_text(str(value))
    return {"count": value, "home": os.environ["HOME"] == str(STATE.parents[2])}


def hang(ctx):
    import subprocess
    child = subprocess.Popen(["sleep", "60"])
    Path(os.environ["HANG_PID_FILE"]).write_text(str(child.pid))
    time.sleep(60)


program = Program("slow", "1.0.0", "DESCRIPTION", commands=[
    Command("hang", "never answers", effects="read_only", run=hang),
    *[Command(f"nap{i}", f"nap number {i}", effects="read_only", run=nap,
              examples=[f"slow nap{i}"]) for i in range(12)],
    Command("bump", "count one more", effects="non_idempotent", run=bump,
            examples=["slow bump"]),
])

if __name__ == "__main__":
    run(program)
'''


def _write(path, description="a slow program"):
    save(path, SLOW.replace("DESCRIPTION", description))


def batches(file) -> dict:
    """batch id -> pids of the live processes (workers and their forked runs) of `file`."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                argv = handle.read().decode("utf-8", "replace").split("\0")
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state == b"Z" or "workbench.dev._worker" not in argv or str(file) not in argv:
            continue
        if "--batch" in argv:
            found.setdefault(argv[argv.index("--batch") + 1], []).append(int(name))
    return found


def test_each_run_forks_from_the_loaded_program_in_a_restored_sandbox(tmp_path):
    from workbench.dev.engine import Workbench
    from workbench.dev.processes import environ_for
    from workbench.dev.pool import Cancelled, Pool
    file = tmp_path / "slow.py"
    _write(file)
    bench = Workbench(str(file))
    bench.reload()
    request = {"mode": "run", "argv": ["bump", "--json"], "stdin": "",
               "environ": environ_for("piped"), "cwd": str(tmp_path)}
    with Pool(bench.served, size=1) as pool:
        answers = [pool.run(request, 20) for _ in range(3)]
        workers = batches(file)
        assert list(workers) == [pool.batch] and len(workers[pool.batch]) == 1
    for done in answers:   # every run starts from the state the load left: no run sees another
        assert done.returncode == 0, done.stderr
        assert '"count":1,' in done.stdout and '"home":true' in done.stdout, done.stdout
    assert not batches(file)                    # closing the pool ended its worker
    assert not (tmp_path / ".local").exists()
    try:
        pool.run(request, 20)
    except Cancelled:
        pass
    else:
        raise AssertionError("a closed pool ran a request")


def test_a_hanging_run_is_cut_off_with_its_children_and_the_worker_goes_on(tmp_path,
                                                                          monkeypatch):
    import subprocess

    from workbench.dev.engine import Workbench
    from workbench.dev.processes import environ_for
    from workbench.dev.pool import Pool
    file = tmp_path / "slow.py"
    _write(file)
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("HANG_PID_FILE", str(pid_file))
    bench = Workbench(str(file))
    bench.reload()
    request = {"stdin": "", "environ": environ_for("piped"), "cwd": str(tmp_path)}
    with Pool(bench.served, size=1) as pool:
        try:
            pool.run({**request, "mode": "run", "argv": ["hang", "--json"]}, 1.0)
        except subprocess.TimeoutExpired:
            pass
        else:
            raise AssertionError("the hanging run was not cut off")
        child = int(pid_file.read_text())
        wait_until(lambda: ended(child), f"the handler's child {child} to end", 30)
        done = pool.run({**request, "mode": "call", "argv": ["nap0", "--json"]}, 20)
        outcome = json.loads(done.stdout.splitlines()[-1])["burgee_outcome"]
        assert outcome["exit"] == 0 and outcome["envelope"]["data"] == {"slept": 0.5}, outcome


async def test_no_more_than_one_diff_batch_is_alive_after_many_saves(tmp_path):
    file = tmp_path / "slow.py"
    _write(file)
    seen = set()

    def at_most_one() -> bool:
        alive = batches(file)
        assert len(alive) <= 1, alive
        seen.update(alive)
        return True

    async with dashboard(file, watch=True, auto_diffs=True) as (app, pilot):
        await until(pilot, lambda: at_most_one() and seen, what="the first diff batch")
        for number in range(6):
            generation = app.state.generation
            _write(file, f"a slow program, edit {number}")
            await until(pilot, lambda: at_most_one() and app.state.generation > generation,
                        what=f"the reload of save {number}")
            await until(pilot, lambda: at_most_one() and len(seen) > number + 1,
                        what=f"the batch of save {number}")
        await until(pilot, lambda: at_most_one() and app.diff_status == "done", limit=60,
                    what="the last batch to finish")
        assert len(app.diffs) == 13 and all(d.equal for d in app.diffs if not d.skipped)
        await until(pilot, lambda: not batches(file), what="the last batch's processes to end")
    assert len(seen) >= 7


def test_a_worker_builds_the_program_wide_tables_before_it_forks(tmp_path):
    """Built in every fork, redaction's tables walked every option of the program and so
    copied every page a fork touched: the worker builds them once, and a run only reads them."""
    from workbench.declaration.model import derived
    from workbench.dev import _worker
    from workbench.dev.loader import load_in_process
    from workbench.entry import run
    file = tmp_path / "slow.py"
    _write(file)
    program = load_in_process(str(file)).program
    _worker._tables_before_forks(program)
    state = derived(program)
    tables = {name: getattr(state, name)
              for name in ("redact_spellings", "redact_options", "tools")}
    try:
        run(program, ["nap0", "--json", "--token", "x"])
    except SystemExit:
        pass
    assert all(getattr(state, name) is table for name, table in tables.items())


def test_a_batch_runs_when_the_workbench_holds_more_than_1024_files(tmp_path):
    """select() cannot watch an fd past 1024; a long session with many clients gets there."""
    from _fds import past_1024

    from workbench.dev.engine import Workbench
    from workbench.dev.processes import environ_for
    from workbench.dev.pool import Pool
    file = tmp_path / "slow.py"
    _write(file)
    bench = Workbench(str(file))
    bench.reload()
    request = {"mode": "run", "argv": ["nap0", "--json"], "stdin": "",
               "environ": environ_for("piped"), "cwd": str(tmp_path)}
    with past_1024(), Pool(bench.served, size=1) as pool:
        done = pool.run(request, 20)
    assert done.returncode == 0 and '"slept":0.5' in done.stdout, done.stderr


def test_the_workbench_s_subprocesses_run_the_bytecode_it_checked(tmp_path, monkeypatch):
    """Batch workers, environment runs and MCP calls load the last good source: they run the
    bytecode the workbench kept beside it, neither compiled nor checked again."""
    from workbench.declaration import _checks
    from workbench.dev import _worker, loader
    from workbench.dev.engine import Workbench
    file = tmp_path / "slow.py"
    _write(file)
    bench = Workbench(str(file))
    assert bench.reload().ok
    kept = bench.good_source_file + loader.CODE_SUFFIX
    assert os.path.exists(kept)
    checked = []
    real = _checks.check_program
    monkeypatch.setattr(_checks, "check_program",
                        lambda program: checked.append(program.name) or real(program))
    program = _worker._load(str(file), bench.good_source_file, None)
    assert program.name == "slow" and program.tool("nap0") is not None and checked == []
    os.remove(kept)               # none kept (or unreadable): compiled and checked, as before
    assert _worker._load(str(file), bench.good_source_file, None).name == "slow"
    assert checked == ["slow"]


def test_a_diff_batch_lists_a_paged_tool_list_once_not_per_call(tmp_path, monkeypatch):
    """The SDK client checks a result against the tool's output schema and, for a tool it
    has not seen, lists again, first page only: with the list in pages, every call to a
    later tool re-listed (900 KB at 5,000 commands). The batch's client lists every page once."""
    from workbench.dev.engine import Workbench
    from workbench.mcp import server as mcp_server
    monkeypatch.setattr(mcp_server, "LIST_PAGE_BYTES", 300)     # a page per tool or two
    file = tmp_path / "slow.py"
    save(file, SLOW.replace("time.sleep(0.5)", "time.sleep(0)"))
    bench = Workbench(str(file))
    assert bench.reload().ok
    diffs = bench.run_diffs()
    core = bench.server.core
    from mcp_types.version import LATEST_HANDSHAKE_VERSION
    pages = len(core._listing_of(bench.program).pages(LATEST_HANDSHAKE_VERSION))
    assert pages >= 5
    listed = []
    real = core._listing_of
    monkeypatch.setattr(core, "_listing_of", lambda program: listed.append(1) or real(program))
    diffs = bench.run_diffs()
    assert len(diffs) == 13 and all(d.equal for d in diffs if d.skipped is None), diffs
    assert len(listed) == pages            # each page once, by the batch's one client
