"""The dev loader: fresh namespace, time limit, last good program kept, no stale siblings."""

import contextlib
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import hello_program, save, wait_until

from workbench.dev import loader
from workbench.dev.processes import child_environ
from workbench.dev.engine import Workbench

GOOD = hello_program()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_loads_the_module_level_program(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD), timeout=10)
    assert loaded.ok and loaded.name == "program" and loaded.program.name == "app"
    assert loaded.program.source == str(tmp_path / "app.py")


def test_syntax_error_is_data_with_the_line(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\ndef broken(:\n"), timeout=10)
    assert not loaded.ok and loaded.error.code == "syntax_error"
    assert loaded.error.line == GOOD.count("\n") + 2
    assert "SyntaxError" in loaded.error.traceback


def test_import_exception_keeps_the_traceback(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\n1 / 0\n"), timeout=10)
    assert loaded.error.code == "import_failed"
    assert "ZeroDivisionError" in loaded.error.message
    assert "app.py" in loaded.error.traceback and "1 / 0" in loaded.error.traceback


def test_definition_error_is_its_own_kind(tmp_path):
    bad = GOOD.replace('effects="read_only",', "")
    loaded = loader.load(write(tmp_path / "app.py", bad), timeout=10)
    assert loaded.error.code == "definition" and "effects" in loaded.error.message


@pytest.mark.slow
def test_hanging_import_is_cut_off(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\nwhile True:\n    pass\n"),
                         timeout=1.0)
    assert loaded.error.code == "timeout" and "did not finish" in loaded.error.message


@pytest.mark.slow
def test_no_program_and_several_programs(tmp_path):
    none = loader.load(write(tmp_path / "none.py", "x = 1\n"), timeout=10)
    assert none.error.code == "no_program" and "Program(" in none.error.message
    two = GOOD + "\nother = Program(name='other', description='Other', commands=[Command(name='x', description='X', effects='read_only', run=hello)])\n"
    several = loader.load(write(tmp_path / "two.py", two), timeout=10)
    assert several.error.code == "several_programs" and "--program" in several.error.message
    chosen = loader.load(str(tmp_path / "two.py"), program_name="other", timeout=10)
    assert chosen.ok and chosen.program.name == "other"
    by_name = loader.load(str(tmp_path / "two.py"), program_name="app", timeout=10)
    assert by_name.ok and by_name.name == "program"


@pytest.mark.slow
def test_a_failed_reload_keeps_the_last_good_program(tmp_path):
    file = write(tmp_path / "app.py", GOOD)
    # A loaded machine can take over a second to load a good program: only the endless
    # import runs under the short timeout, so no other case can be mistaken for it.
    bench = Workbench(file, load_timeout=30.0)
    events = []
    bench.subscribe(events.append)
    first = bench.reload()
    assert first.ok and first.generation == 1
    for broken, kind in ((GOOD + "\ndef broken(:\n", "syntax_error"),
                         (GOOD + "\nraise RuntimeError('boom')\n", "import_failed"),
                         (GOOD + "\nimport time\nwhile True:\n    time.sleep(1)\n", "timeout")):
        write(tmp_path / "app.py", broken)
        bench.load_timeout = 1.0 if kind == "timeout" else 30.0
        state = bench.reload()
        assert state.load_error.code == kind
        assert state.program is first.program          # still the last good one
        assert state.surfaces is first.surfaces
        assert "last good" in state.changes.summary()
    write(tmp_path / "app.py", GOOD.replace('"Say hello"', '"Say hello twice"'))
    recovered = bench.reload()
    assert recovered.ok and recovered.load_error is None
    assert recovered.changes.changed == ("hello",)
    assert [e.kind for e in events] == ["state"] * 5
    assert [e.data.generation for e in events] == [1, 2, 3, 4, 5]


@pytest.mark.slow
def test_an_edited_sibling_is_never_read_from_stale_bytecode(tmp_path):
    helper = tmp_path / "helper.py"
    write(helper, 'WORD = "aaaa"\n')
    write(tmp_path / "app.py", GOOD.replace('{"hello": "world"}', "{'word': helper.WORD}")
          .replace("from workbench", "import helper\nfrom workbench"))
    # Compile helper.pyc as a normal import would, then edit helper within the same
    # second and with the same size: a .pyc check on mtime+size would pass.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import sys; sys.dont_write_bytecode = False; "
                    "import helper"], cwd=tmp_path, check=True, env=env)
    assert list((tmp_path / "__pycache__").glob("helper*.pyc"))
    stat = os.stat(helper)
    first = loader.load(str(tmp_path / "app.py"), timeout=10)
    assert first.module.helper.WORD == "aaaa"
    write(helper, 'WORD = "bbbb"\n')
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = loader.load(str(tmp_path / "app.py"), timeout=10)
    assert second.module.helper.WORD == "bbbb"


def test_a_module_that_touches_stdout_at_import_gets_real_files(tmp_path):
    # httpie calls curses.setupterm(fd=sys.stdout.fileno()); pre-commit wraps sys.stdout.buffer
    prefix = ("import os\nimport sys\nsys.stdout.fileno(), sys.stderr.fileno()\n"
              "OUT = sys.stdout.buffer\nOUT.write(b'bytes at import\\n')\nOUT.flush()\n"
              "print('text at import')\nos.write(2, b'straight to fd 2\\n')\n")
    loaded = loader.load(write(tmp_path / "app.py", prefix + GOOD), timeout=10)
    assert loaded.ok, loaded.error and loaded.error.message
    assert "bytes at import\ntext at import\n" in loaded.output
    assert "straight to fd 2\n" in loaded.output


# --- a warm check process per save (issue 18) ------------------------------------------------

RECORDS = GOOD + textwrap.dedent('''
    import os as _os
    with open(_os.environ["BURGEE_TEST_RECORD"], "a") as _record:
        _record.write(f"{_os.getpid()} {_os.environ.get('BURGEE_TEST_MARK', '-')}\\n")
''')


def warm_load(file, checker, timeout=10):
    """A load with `checker`, then its next process started, as the workbench does."""
    loaded = loader.load(file, timeout=timeout, checker=checker)
    checker.prepare(os.path.dirname(file), child_environ())
    return loaded


def _records(path):
    return [line.split() for line in path.read_text().splitlines()]


def test_a_checker_runs_the_next_check_in_the_process_it_started_ahead(tmp_path, monkeypatch):
    record = tmp_path / "record.txt"
    monkeypatch.setenv("BURGEE_TEST_RECORD", str(record))
    file = write(tmp_path / "app.py", RECORDS)
    checker = loader.Checker()
    try:
        first = warm_load(file, checker, timeout=10)
        assert first.ok, first.error
        (spare, _cwd, _env), = checker._spare           # started after the check, waiting
        assert spare.poll() is None
        second = warm_load(file, checker, timeout=10)
        assert second.ok, second.error
        pids = [pid for pid, _mark in _records(record)]
        # each load: the check process, then this process; the second check ran in the spare
        assert pids[1] == pids[3] == str(os.getpid())
        assert pids[2] == str(spare.pid) and pids[0] != pids[2]
    finally:
        checker.close()
    assert spare.wait(5) is not None      # killed after its verdict (reaped in a thread)


def test_a_spare_started_under_another_environment_is_not_used(tmp_path, monkeypatch):
    record = tmp_path / "record.txt"
    monkeypatch.setenv("BURGEE_TEST_RECORD", str(record))
    file = write(tmp_path / "app.py", RECORDS)
    checker = loader.Checker()
    try:
        assert warm_load(file, checker, timeout=10).ok
        (stale, _cwd, _env), = checker._spare
        monkeypatch.setenv("BURGEE_TEST_MARK", "changed")
        assert warm_load(file, checker, timeout=10).ok
        check_pid, mark = _records(record)[2]
        assert mark == "changed" and check_pid != str(stale.pid)
        wait_until(lambda: stale.poll() is not None, "the stale spare to be killed", 30)
    finally:
        checker.close()


def test_a_spare_readies_a_heap_sized_to_the_source_and_still_checks(tmp_path):
    """A spare faults in malloc's heap for the source it expects (compiling a big file
    otherwise spends a fifth of its time in page faults); the check it then runs is the
    same. The heap is kept (`VmRSS` stays up) while it waits."""
    file = write(tmp_path / "app.py", GOOD)
    checker = loader.Checker()
    try:
        checker.prepare(str(tmp_path), child_environ(), expect=600_000)
        (spare, _cwd, _env), = checker._spare
        assert "--heap" in spare.args and int(spare.args[-1]) == 60_000_000
        status = f"/proc/{spare.pid}/status"
        if os.path.exists(status) and sys.platform.startswith("linux"):
            wait_until(lambda: _rss_kb(status) >= 50_000, "~57 MB faulted in and kept", 30)
        loaded = loader.load(file, timeout=10, checker=checker)
        assert loaded.ok and loaded.program.name == "app"
        assert spare.wait(5) is not None         # it was the one used, then killed
        checker.prepare(str(tmp_path), child_environ(), expect=1_000)
        (small, _cwd, _env), = checker._spare
        assert "--heap" not in small.args        # a small file: nothing to ready
    finally:
        checker.close()


@contextlib.contextmanager
def _compiling_ahead(tmp_path, file):
    """A Checker whose spare watches `file` to compile it as a save lands (its watch set)."""
    checker = loader.Checker()
    try:
        checker.prepare(str(tmp_path), child_environ(), ahead=file)
        (spare, _cwd, _env), = checker._spare
        assert spare.args[-2:] == ["--ahead", file]
        wait_until(lambda: _threads(spare.pid) >= 2, "the spare's watch thread (the watch is "
                   "added before it starts)", 30)
        yield checker
    finally:
        checker.close()


def _check_through(checker, file, source=None):
    """(Loaded, whether the check used code it compiled as the save landed)."""
    run = loader._begin_check(file, source, None, 10, checker)
    try:
        error, code = run.ran()
        assert error is None, error
        return loader.load_in_process(file, source, code=code, verdict=run.verdict), \
            run.compiled_ahead
    finally:
        run.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_a_spare_compiles_the_file_as_a_save_lands_and_the_load_uses_it(tmp_path):
    file = write(tmp_path / "app.py", GOOD)
    with _compiling_ahead(tmp_path, file) as checker:
        save(file, GOOD.replace("Say hello", "Say hello again"))
        loaded, ahead = _check_through(checker, file)
    assert ahead and loaded.ok
    assert loaded.program.tool("hello").description == "Say hello again"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_code_compiled_ahead_is_used_only_for_the_very_source_sent(tmp_path):
    """The file changed again after the save the spare compiled (or the source sent is not
    the file's): the check compiles what it was sent."""
    file = write(tmp_path / "app.py", GOOD)
    with _compiling_ahead(tmp_path, file) as checker:
        save(file, GOOD.replace("Say hello", "Say hello, first"))   # compiled there,
        sent = GOOD.replace("Say hello", "Say hello, second")        # by the request at latest
        loaded, ahead = _check_through(checker, file, sent)
    assert not ahead and loaded.program.tool("hello").description == "Say hello, second"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_a_syntax_error_saved_under_a_spare_compiling_ahead_is_reported_as_before(tmp_path):
    file = write(tmp_path / "app.py", GOOD)
    with _compiling_ahead(tmp_path, file) as checker:
        save(file, GOOD + "\ndef broken(:\n")
        loaded = loader.load(file, timeout=10, checker=checker)
    assert loaded.error.code == "syntax_error" and loaded.error.line == GOOD.count("\n") + 2


def _threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _rss_kb(status: str) -> int:
    for line in open(status):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.slow
def test_a_hanging_import_in_a_warm_check_is_cut_off_and_the_next_check_works(tmp_path):
    checker = loader.Checker()
    try:
        file = write(tmp_path / "app.py", GOOD)
        assert warm_load(file, checker, timeout=10).ok
        write(tmp_path / "app.py", GOOD + "\nwhile True:\n    pass\n")
        hung = warm_load(file, checker, timeout=1.5)
        assert hung.error is not None and hung.error.code == "timeout"
        write(tmp_path / "app.py", GOOD)
        again = warm_load(file, checker, timeout=10)
        assert again.ok, again.error
    finally:
        checker.close()


def test_a_warm_check_still_reports_syntax_and_definition_errors(tmp_path):
    checker = loader.Checker()
    try:
        syntax = loader.load(write(tmp_path / "app.py", GOOD + "\ndef broken(:\n"), timeout=10,
                             checker=checker)
        assert syntax.error.code == "syntax_error" and syntax.error.line == GOOD.count("\n") + 2
        bad = GOOD.replace('examples=["app hello"]', 'examples=["app hello --nope"]')
        definition = warm_load(write(tmp_path / "app.py", bad), checker, timeout=10)
        assert definition.error.code == "definition" and "--nope" in definition.error.message
    finally:
        checker.close()


def test_the_load_runs_the_bytecode_the_check_compiled(tmp_path):
    file = write(tmp_path / "app.py", GOOD)
    run = loader._begin_check(file, None, None, 10, None)
    try:
        error, code = run.ran()
        assert error is None
        assert code.co_filename == file and code.co_code == compile(
            GOOD, file, "exec", dont_inherit=True).co_code
        loaded = loader.load_in_process(file, GOOD, code=code, verdict=run.verdict)
    finally:
        run.close()
    assert loaded.ok and loaded.program.name == "app"


def test_examples_refused_by_the_check_fail_the_load_that_already_ran_the_file(tmp_path):
    """The workbench runs the file while the check process still checks the examples: a
    refused example must still fail the load (and the last good program stays)."""
    bench = Workbench(write(tmp_path / "app.py", GOOD))
    assert bench.reload().ok
    bad = GOOD.replace('examples=["app hello"]', 'examples=["app hello --nope"]')
    write(tmp_path / "app.py", bad)
    state = bench.reload()
    assert state.load_error.code == "definition" and "--nope" in state.load_error.message
    assert state.program is not None and state.program.name == "app"   # the last good one


@pytest.mark.slow
def test_a_definition_refused_after_the_first_reply_reads_as_a_plain_run_reports_it(tmp_path):
    """The check process answers once the file ran, then checks the definition: a refusal
    found then must read exactly as a run checked as it goes reports it (its line, the
    user's traceback, nothing printed past the refusal), and the last good program stays."""
    bad = GOOD.replace('effects="read_only",', "") + '\nprint("after the program")\n'
    file = write(tmp_path / "app.py", bad)
    plain = loader.load_in_process(file)                # in this process, checked as it goes
    assert plain.error.code == "definition" and plain.output == ""
    bench = Workbench(write(tmp_path / "app.py", GOOD))
    assert bench.reload().ok
    write(tmp_path / "app.py", bad)
    state = bench.reload()
    assert state.load_error.to_dict() == plain.error.to_dict() and state.load_output == ""
    assert state.load_error.line == bad.count("\n", 0, bad.index("program = ")) + 1
    assert state.program is not None and state.program.name == "app"   # the last good one
    prepared = []
    checked = loader.load(file, timeout=10, before_verdict=prepared.append)
    assert checked.error.to_dict() == plain.error.to_dict() and checked.output == ""
    assert [program.name for program in prepared] == ["app"]   # built, then refused


def test_work_before_the_verdict_that_raises_does_not_break_the_load(tmp_path):
    def broken(program):
        raise RuntimeError("a surface of a program the check may yet refuse")
    loaded = loader.load(write(tmp_path / "app.py", GOOD), timeout=10, before_verdict=broken)
    assert loaded.ok and loaded.program.name == "app"


def test_bytecode_the_check_ran_is_not_checked_again_here(tmp_path, monkeypatch):
    from workbench.declaration import _checks, _verdict
    checked = []
    real = _checks.check_program
    monkeypatch.setattr(_checks, "check_program", lambda program: checked.append(program.name)
                        or real(program))
    file = write(tmp_path / "app.py", GOOD)
    run = loader._begin_check(file, None, None, 10, None)
    try:
        error, code = run.ran()
        assert error is None
        trusted = loader.load_in_process(file, GOOD, code=code, verdict=run.verdict)
    finally:
        run.close()
    assert trusted.ok and checked == []
    assert not _verdict._RAN_CHECKED                     # trusted only while it ran
    assert loader.load_in_process(file, GOOD).ok and checked == ["app"]   # any other load: checked


async def test_the_garbage_collector_waits_while_a_save_is_loaded_and_its_state_built(tmp_path):
    import gc
    bench = Workbench(write(tmp_path / "app.py", GOOD))
    seen = []
    real = bench._next_state
    bench._next_state = lambda loaded: seen.append(gc.isenabled()) or real(loaded)
    real_load = bench._load
    bench._load = lambda: seen.append(gc.isenabled()) or real_load()
    assert gc.isenabled()
    state = await bench.areload()
    assert state.ok and seen == [False, False] and gc.isenabled()
    gc.disable()          # off before (someone else's choice): stays off after
    try:
        await bench.areload()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_check_works_when_the_workbench_holds_more_than_1024_files(tmp_path):
    """select() cannot watch an fd past 1024; a long session with many clients gets there."""
    from _fds import past_1024
    with past_1024():
        checker = loader.Checker()
        try:
            for _ in range(2):                 # a cold check, then the warm spare's
                loaded = warm_load(write(tmp_path / "app.py", GOOD), checker, timeout=10)
                assert loaded.ok, loaded.error
        finally:
            checker.close()


def test_the_bytecode_arrives_while_the_check_process_still_runs_the_file(tmp_path):
    """The workbench decodes the check's bytecode while that process runs the file: the code
    comes as soon as it compiled, the word that the file ran only after its top level ended.
    The file here waits for a `go` file, so the order is seen without any timing."""
    go = tmp_path / "go"
    source = GOOD.replace("from workbench import", f"import os, time\nwhile not os.path.exists("
                          f"{str(go)!r}):\n    time.sleep(0.01)\nfrom workbench import", 1)
    file = write(tmp_path / "app.py", source)
    run = loader._begin_check(str(file), None, None, 60, None)
    try:
        first = run._reply()
        assert set(first) == {"burgee_code", "ahead"}    # the file is still waiting for `go`
        assert not go.exists()
        go.write_text("")
        assert run._reply() == {"burgee_ran": True}
        assert run.verdict() is None
    finally:
        run.close()
    loaded = loader.load(str(file), timeout=60)    # the whole path, with the code decoded
    assert loaded.ok and loaded.program.tool("hello") is not None
