"""Shared helpers: run sample programs as real subprocesses with a clean environment; save a
file as an editor does; the small program the workbench tests load; wait for a state (a poll
with a generous bound that fails by name, never a fixed sleep) and read a process's state from
/proc. The `slow` marker names the tests the quick subset (`pytest -m "not slow"`, README)
leaves out."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_programs"
PROGRAMS = Path(__file__).resolve().parent / "programs"
# A runner started in the background (nohup, `&` in a non-interactive shell) ignores SIGINT, and
# an ignored signal stays ignored across exec: every program a test starts would then shrug off
# the Ctrl-C the interrupt tests send. Handling it here makes children start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

from workbench.runtime.context import AGENT_MARKERS  # noqa: E402

AGENT_VARIABLES = AGENT_MARKERS + ("CI", "FORCE_TTY")


@pytest.fixture(autouse=True)
def _no_frozen_heap_left_behind():
    """Fail the test that leaves this process's heap frozen (`gc.freeze`): every later test
    would run without a collector for what existed then (a check `Runner` left open did, and
    `test_scale`'s freeze test skipped in every full run because of it)."""
    import gc
    frozen = gc.get_freeze_count()
    yield
    if gc.get_freeze_count() and not frozen:
        gc.unfreeze()
        pytest.fail("the test left the heap frozen (gc.freeze without gc.unfreeze: close "
                    "what froze it, e.g. a workbench.check.runner.Runner)")


def clean_env(**extra) -> dict:
    """The test process's environment without agent/CI markers, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Result:
    def __init__(self, completed):
        self.exit = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    @property
    def json(self):
        assert self.stdout.endswith("\n") and self.stdout.count("\n") == 1, self.stdout
        return json.loads(self.stdout)

    def __repr__(self):
        return f"Result(exit={self.exit}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def run_in_pty(argv, env, answers=None, timeout=30, columns=80):
    """Run `python ARGV...` on a real pseudo-terminal `columns` wide, typing each answer of
    `answers` ({prompt text: answer}) once that prompt shows; (exit code, everything it
    wrote)."""
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        os.execve(sys.executable, [sys.executable, *map(str, argv)], env)
    output, seen, pending = b"", 0, dict(answers or {})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        for prompt in list(pending):
            at = output.find(prompt.encode(), seen)
            if at != -1:
                os.write(fd, pending.pop(prompt).encode() + b"\n")
                seen = at + len(prompt)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output.decode(errors="replace")


HELLO = textwrap.dedent('''
    from workbench import Command, Program

    def hello(ctx):
        return {"hello": "world"}

    program = Program(name="app", version="1.0.0", description="A test program", commands=[
        Command(name="hello", description="DESCRIPTION", effects="read_only",
                examples=["app hello"], run=hello),
        EXTRA
    ])
''')
"""The smallest program the workbench tests load: `app hello`, read-only."""


def hello_program(extra: str = "", description: str = "Say hello") -> str:
    """`HELLO` with `extra` (more `Command(...)`, ending with a comma) and a description."""
    return HELLO.replace("DESCRIPTION", description).replace("EXTRA", extra)


def save(path, text: str) -> str:
    """Save as editors do: write a temporary file, rename it over the original (a watcher
    sees one complete file); returns the path as a string."""
    temporary = Path(path).with_name("." + Path(path).name + ".swp~")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return str(path)


def wait_until(predicate, what, timeout: float = 60.0, every: float = 0.02):
    """Poll `predicate` until it returns something true, and return that; fail naming `what`
    (a text, or a function returning one: what was seen) after `timeout` seconds (the bound
    only stops a broken run from hanging the suite)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, _in_vain(what, timeout)
        time.sleep(every)


async def eventually(predicate, what, timeout: float = 60.0, every: float = 0.02):
    """`wait_until` in an async test: the event loop runs while it polls."""
    import anyio
    deadline = anyio.current_time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert anyio.current_time() < deadline, _in_vain(what, timeout)
        await anyio.sleep(every)


def _in_vain(what, timeout: float) -> str:
    return f"waited {timeout:g} s for {what() if callable(what) else what}, in vain"


def _proc_stat(pid: int) -> list:
    """The fields of /proc/PID/stat after the command name; [] once the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return []


def ended(pid: int) -> bool:
    """Whether `pid` no longer runs: gone, or a zombie nobody has reaped yet (state Z or X).
    A SIGKILL lands asynchronously: wait for this rather than sampling it once."""
    return _proc_stat(pid)[:1] in ([], ["Z"], ["X"])


def descendants(pid: int) -> list:
    """The process ids below `pid`: its children, theirs, and so on (from /proc)."""
    parents: dict = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        stat = _proc_stat(int(entry))
        if stat:
            parents.setdefault(int(stat[1]), []).append(int(entry))
    found, level = [], [pid]
    while level:
        level = [child for parent in level for child in parents.get(parent, [])]
        found += level
    return found


def asleep(pid: int) -> bool:
    """Whether `pid` sleeps on a timer (time.sleep: a poll loop between two looks), as the
    kernel's /proc/PID/wchan tells; a process blocked reading a pipe or socket is not."""
    try:
        with open(f"/proc/{pid}/wchan", encoding="utf-8") as handle:
            return "nanosleep" in handle.read()
    except OSError:
        return False


def run_program(path, *args, env=None, input=None, timeout=60) -> Result:
    """Run `python PATH ARGS...` with stdin closed unless `input` is given."""
    completed = subprocess.run(
        [sys.executable, str(path), *map(str, args)], env=env or clean_env(),
        input=input, stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout)
    return Result(completed)


@pytest.fixture
def deploy():
    return lambda *args, **kw: run_program(SAMPLES / "deploy.py", *args, **kw)


@pytest.fixture
def notes(tmp_path):
    store = tmp_path / "notes.json"

    def runner(*args, env=None, **kw):
        return run_program(SAMPLES / "notes.py", *args,
                           env=env or clean_env(NOTES_FILE=store), **kw)
    runner.store = store
    return runner


def keyed_runner(tmp_path, env: dict):
    """tests/programs/keyed.py `act --log LOG ARGS...` under `env`: call it to run it, `.start(...)`
    to start it in the background (a Popen); `.env`, `.log`, `.gate` (the file whose existence
    lets the body finish) and `.runs()` (how many bodies started)."""
    log = tmp_path / "runs.log"
    argv = [sys.executable, str(PROGRAMS / "keyed.py"), "act", "--log", str(log)]

    def runner(*args):
        return run_program(PROGRAMS / "keyed.py", *argv[2:], *args, env=env)
    runner.env, runner.log, runner.gate = env, log, tmp_path / "gate"
    runner.runs = lambda: sum(line.startswith("start") for line in
                              (log.read_text() if log.exists() else "").splitlines())
    runner.start = lambda *args: subprocess.Popen(
        argv + list(map(str, args)), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    return runner


@pytest.fixture
def kitchen():
    return lambda *args, **kw: run_program(PROGRAMS / "kitchen.py", *args, **kw)


@pytest.fixture(scope="session")
def postgres_url():
    """A throwaway PostgreSQL server for the whole session (tests/_postgres.py), removed after;
    skipped with the reason when Debian's `postgresql` package is not installed here."""
    from _postgres import missing, throwaway_postgres
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with throwaway_postgres() as url:
        yield url
