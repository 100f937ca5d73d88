"""The workbench's loads: the one program loader (`workbench.loader`), made safe to repeat.

On top of what the CLI does (`workbench.loader`: run the file in a fresh module, find its
Program by the one matching rule, check its examples, one `LoadError`), a workbench load:

- first runs the file in a short-lived subprocess with a time limit (`load`, `Checker`), so
  an import that never finishes is cut off instead of freezing the workbench; only a file
  that ran there is then run in-process, as the very bytecode the check compiled;
- reads sibling modules from source, never from possibly stale bytecode, and imports them
  afresh on every load, so an edit to a helper module is seen (`load_in_process`);
- keeps what the module printed while it loaded as data (`Loaded.output`), never on a screen
  or an MCP wire;
- keeps each good source in a file, its bytecode beside it (`GoodSources`): what the
  workbench's subprocesses run, while the file on disk may be mid-edit.

Errors are data (`Loaded.error`, a `LoadError`), never raised, so "the last good program
stays live" is a choice the engine makes.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import json
import marshal
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.declaration._verdict import _RAN_CHECKED
from workbench.declaration.model import Program
from workbench.dev.files import installed, realpath, under
from workbench.dev.processes import child_environ, kill_group, reap
from workbench.dev.records import DEFAULT_LOAD_TIMEOUT
from workbench.loader import (
    LoadError, check_examples, compile_source, find_program, run_module, syntax_error,
)
from workbench.runtime.capture import Capture
from workbench.runtime.checks import mark_examples_checked

__all__ = ["LoadError", "Loaded", "load", "load_in_process", "Checker", "GoodSources",
           "user_modules", "saved_code", "CODE_SUFFIX"]


@dataclass
class Loaded:
    """One load attempt: the Program found (or None) and the error (or None)."""

    file: str
    program: Program | None = None
    name: str | None = None          # the module-level variable that holds it
    error: LoadError | None = None
    source: str = ""
    seconds: float = 0.0
    output: str = ""                 # what the file printed while loading (stdout and stderr)
    module: types.ModuleType | None = field(default=None, repr=False)
    code: types.CodeType | None = field(default=None, repr=False)   # the bytecode it ran

    @property
    def ok(self) -> bool:
        return self.error is None


def read_text(file: str) -> str:
    """FILE as text (UTF-8), as every load and the compile-ahead read it; LoadError when it
    cannot be read (`not_found`) or decoded (`syntax_error`)."""
    try:
        with open(file, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise LoadError("not_found", f"cannot read {file}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise syntax_error(error, file) from None


# --- reading siblings from source --------------------------------------------------------

class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles from source every time: a save within the same second as the last one can
    leave a .pyc whose mtime/size still match, which the default loader would trust."""

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        code: types.CodeType = compile(self.get_data(path), path, "exec", dont_inherit=True)
        return code


class _SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds modules under the watched folders with `_SourceOnlyLoader`."""

    def __init__(self) -> None:
        self.roots: set[str] = set()

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not isinstance(
                spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not under(spec.origin, self.roots) or installed(spec.origin):
            return None
        spec.loader = _SourceOnlyLoader(fullname, spec.origin)
        spec.cached = None
        return spec


_FINDER = _SourceOnlyFinder()


def user_modules(folder: str) -> dict[str, str]:
    """name -> file of the modules imported from `folder` (not installed ones)."""
    found = {}
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not origin or name.startswith("workbench"):
            continue
        if under(origin, {folder}) and not installed(origin):
            found[name] = realpath(origin)
    return found


def _fresh_siblings(folder: str) -> None:
    """Read modules under `folder` from source from now on, and drop those imported already
    (never installed ones), so they load afresh."""
    sys.dont_write_bytecode = True
    root = os.path.realpath(folder)
    _FINDER.roots.add(root)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name in user_modules(root):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()


# --- in-process load ---------------------------------------------------------------------

def load_in_process(file: str, source: str | None = None, *, program_name: str | None = None,
              code: types.CodeType | None = None,
              verdict: Callable[[], LoadError | None] | None = None,
              ran: Callable[[Program], None] | None = None) -> Loaded:
    """Compile and run `file` (or `source`, with `file` as its name) in a fresh module.

    No time limit here: `load` checks in a subprocess first. Bytecode is never written, siblings
    are read from source and re-imported. `code` is `source` already compiled (by the check,
    which compiled the same bytes). `ran(program)` is called once the module ran and its
    Program was found, before the examples are checked. `verdict()` replaces that check with
    the load check's own (a LoadError or None): the check process checked this same bytecode's
    definition and parsed its examples.
    """
    started = time.perf_counter()
    file = os.path.abspath(file)
    loaded = Loaded(file=file)
    try:
        loaded.source = source = read_text(file) if source is None else source
        _fresh_siblings(os.path.dirname(file))
        code = compile_source(source, file) if code is None else code
        # A module that prints at import must not write over a dashboard or an MCP stdio
        # wire: keep what it printed as data instead. The capture is at the fd level, so the
        # module sees real files (fileno(), .buffer), as under `run` (httpie, pre-commit).
        # It never waits: while another capture holds the fds (`burgee dev --json` runs under
        # the pipeline's, a tool call under its own) the output already goes to its files.
        capture = Capture(wait=False)
        try:
            with capture, _ran_checked(code if verdict is not None else None):
                module = run_module(file, code)
        finally:
            loaded.output = _printed(capture)
        name, program = find_program(module.__dict__, program_name, file)
        program.settle_defaults()   # the workbench shows help and schemas of every load
        if ran is not None:
            ran(program)
        if verdict is not None:
            refused = verdict()
            if refused is not None:
                raise refused
            mark_examples_checked(program)   # the check process parsed them
        check_examples(program)
    except LoadError as error:
        loaded.error = error
        return _done(loaded, started)
    loaded.name, loaded.program = name, program
    with contextlib.suppress(AttributeError):
        program.source = file
    loaded.module, loaded.code = module, code
    return _done(loaded, started)


@contextlib.contextmanager
def _ran_checked(code: types.CodeType | None) -> Iterator[None]:
    """While `code` runs here, a Program it builds at its top level skips the definition
    checks: the load check process ran this same bytecode to its end, checks included."""
    if code is None:
        yield
        return
    _RAN_CHECKED.add(code)
    try:
        yield
    finally:
        _RAN_CHECKED.discard(code)


def _printed(capture: Capture) -> str:
    """What a module wrote while it loaded, stdout then stderr."""
    output = capture.output() or {}
    return str(output.get("stdout", "")) + str(output.get("stderr", ""))


def _done(loaded: Loaded, started: float) -> Loaded:
    loaded.seconds = time.perf_counter() - started
    return loaded


# --- the good sources subprocesses run -----------------------------------------------------

CODE_SUFFIX = ".code"
"""Beside a good source the workbench keeps (`GoodSources`), its bytecode."""


def save_code(source_file: str, code: types.CodeType) -> None:
    """Keep `code`, the checked bytecode of `source_file`, beside it (written whole or not at
    all), so the workbench's own subprocesses (batch workers, environment runs, MCP calls)
    run it without compiling the file and checking its definition again."""
    temporary = source_file + CODE_SUFFIX + ".tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(marshal.dumps(code))
        os.replace(temporary, source_file + CODE_SUFFIX)
    except (OSError, ValueError):
        pass     # they compile it, as before


def saved_code(source_file: str) -> types.CodeType | None:
    """The bytecode `save_code` kept beside `source_file`, or None."""
    try:
        with open(source_file + CODE_SUFFIX, "rb") as handle:
            code = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


class GoodSources:
    """Each source that loaded, kept in a file of a temporary folder of its own (removed when
    this goes away), its checked bytecode beside it: what the workbench's subprocesses run.
    The few before the latest stay for calls still running."""

    KEPT = 4

    def __init__(self) -> None:
        self.source: str | None = None       # the latest good source
        self.file: str | None = None         # the file holding it
        self._folder: str | None = None
        self._count = 0
        self._old: list[str] = []

    def keep(self, source: str, code: types.CodeType | None = None) -> str:
        """The file holding `source` (written unless it is the latest already)."""
        if self.source == source and self.file:
            return self.file
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="burgee-dev-")
            weakref.finalize(self, shutil.rmtree, self._folder, True)
        self._count += 1
        path = os.path.join(self._folder, f"good-{self._count}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        if code is not None:
            save_code(path, code)
        if self.file:
            self._old.append(self.file)
            while len(self._old) > self.KEPT:
                gone = self._old.pop(0)
                for stale in (gone, gone + CODE_SUFFIX):
                    with contextlib.suppress(OSError):
                        os.remove(stale)
        self.source, self.file = source, path
        return path


# --- the subprocess check ----------------------------------------------------------------

def _begin_check(file: str, source: str | None, program_name: str | None, timeout: float,
                 checker: Checker | None) -> _CheckRun | LoadError:
    """A `_CheckRun` of `source` (read from `file` when None), or the LoadError that stops
    it from starting."""
    file = os.path.abspath(file)
    if source is None:
        try:
            source = read_text(file)
        except LoadError as error:
            return error
    request = json.dumps({"file": file, "source": source, "program": program_name,
                          "code": True}).encode("utf-8", "surrogatepass")
    cwd, env = os.path.dirname(file), child_environ()
    proc = checker.take(cwd, env) if checker is not None else _spawn_check(cwd, env)
    return _CheckRun(proc, request, timeout, os.path.basename(file))


class _CheckRun:
    """One load check in flight, in two steps: `ran()` waits until the file ran in the check
    process (its bytecode comes back), `verdict()` until that process checked the examples.
    The workbench runs the bytecode itself between the two, while the examples are checked.
    Both steps share one deadline; past it the process group is killed."""

    def __init__(self, proc: subprocess.Popen[bytes], request: bytes, timeout: float,
                 name: str) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc, self.timeout, self.name = proc, timeout, name
        self.stdin, self.stdout = proc.stdin, proc.stdout
        self.deadline = time.monotonic() + timeout
        self._request: memoryview | None = memoryview(request)
        self._out, self._err = bytearray(), bytearray()
        self._open = {proc.stdout.fileno(): self._out, proc.stderr.fileno(): self._err}
        self._replies: list[dict[str, Any]] = []
        self.refused_output: str | None = None
        self.compiled_ahead = False     # the check compiled the file as the save landed
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)

    def ran(self) -> tuple[LoadError | None, types.CodeType | None]:
        """(LoadError or None, the code object the check ran, or None when it did not).

        The bytecode comes first, as soon as the file compiled, and is decoded here while
        the check process runs the file; then the word that it ran."""
        code = None
        reply = self._reply()
        if isinstance(reply, dict) and "burgee_code" in reply:
            self.compiled_ahead = bool(reply.get("ahead"))
            try:
                code = marshal.loads(base64.b64decode(reply["burgee_code"]))
            except (ValueError, EOFError, TypeError):
                code = None        # compiled again by the load
            reply = self._reply()
        if isinstance(reply, LoadError):
            return reply, None
        if "burgee_ran" not in reply:
            return _reply_error(reply), None    # the file did not compile, or did not run
        return None, code

    def verdict(self) -> LoadError | None:
        """The check's verdict once the definition and examples were checked: the error, or
        None. A definition refused after the first reply sets `refused_output`: what the
        file printed when run again, stopped by the refusal (the run here went past it)."""
        reply = self._reply()
        if isinstance(reply, LoadError):
            return reply
        self.refused_output = reply.get("output")
        return _reply_error(reply)

    def close(self) -> None:
        """Kill the process group (after its verdict it has nothing left to say, and a big
        program's interpreter takes tens of milliseconds to tear itself down); it is reaped
        in a thread, off the load's path, since the kernel may take a while to free it."""
        if self.proc.poll() is None:
            kill_group(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self.proc.returncode is None:
            reap(self.proc)

    def _reply(self) -> dict[str, Any] | LoadError:
        """The next reply line as a dict, or the LoadError that ended the check."""
        while not self._replies:
            if self.stdout.fileno() not in self._open:
                self.proc.wait()
                return LoadError("import_failed", f"the load check exited "
                                 f"{self.proc.returncode} without a result",
                                 self._err.decode("utf-8", "replace")[-4000:])
            if not self._pump():
                return LoadError("timeout", f"loading {self.name} did not finish within "
                                 f"{self.timeout:g} s (an import that never returns?); the "
                                 f"last good program stays live")
        return self._replies.pop(0)

    def _pump(self) -> bool:
        """Move bytes once (the request out, replies and stderr in); False past the deadline
        (the process group killed)."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            kill_group(self.proc)
            return False
        stdin = self.stdin
        writing = self._request is not None and not stdin.closed
        poller = select.poll()    # not select(): a busy workbench may hold fds past 1024
        for fd in self._open:
            poller.register(fd, select.POLLIN)
        if writing:
            poller.register(stdin.fileno(), select.POLLOUT)
        events = dict(poller.poll(left * 1000))
        readable = [fd for fd in list(self._open) if fd in events]
        if writing and self._request is not None and stdin.fileno() in events:
            try:
                sent = os.write(stdin.fileno(), self._request[:1 << 16])
                self._request = self._request[sent:] if sent < len(self._request) else None
            except BlockingIOError:
                pass
            except OSError:            # it went away: what it said is read below
                self._request = None
            if self._request is None:
                stdin.close()
        for fd in readable:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                del self._open[fd]
                continue
            self._open[fd].extend(chunk)
        while b"\n" in self._out:
            line, _, rest = bytes(self._out).partition(b"\n")
            self._out[:] = rest
            if line.startswith(b'{"burgee_'):
                self._replies.append(json.loads(line))
        return True


def _reply_error(reply: dict[str, Any]) -> LoadError | None:
    result = reply.get("burgee_check")
    return None if result is None else LoadError.from_dict(result)


def _spawn_check(cwd: str, env: dict[str, str], expect: int = 0,
                 ahead: str | None = None) -> subprocess.Popen[bytes]:
    """A load-check process (`workbench.dev._check`): it imports what a load needs, readies
    the heap a source of `expect` bytes compiles in, compiles `ahead` as soon as a save lands
    in it, and waits for its one request on stdin."""
    heap = min(CHECK_HEAP_PER_BYTE * expect, CHECK_HEAP_MAX)
    return subprocess.Popen([sys.executable, "-B", "-m", "workbench.dev._check",
                             *(["--heap", str(heap)] if heap >= 1 << 20 else []),
                             *(["--ahead", ahead] if ahead else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)


CHECK_HEAP_PER_BYTE = 100
"""Heap a spare check process readies per byte of the source it expects: compiling the
1,000-command benchmark program (444 KB) faults in about 36 MB."""
CHECK_HEAP_MAX = 256 << 20

_Spare = tuple[subprocess.Popen[bytes], str, dict[str, str]]


class Checker:
    """Load checks for one workbench, each in a process started before it is needed.

    A check costs an interpreter start and the imports a load needs (about 90 ms) before the
    user's file even compiles; a save should not wait for that. After each check the next
    process is started (`prepare`) and waits on stdin, so the next save only pays for its
    own file. A spare started for another folder or environment is not used. `close()`
    (or the checker going away) kills the spare.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: list[_Spare] = []      # at most one
        weakref.finalize(self, _kill_spares, self._spare)

    def take(self, cwd: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """The spare when it suits `cwd` and `env` and is still waiting; else a new process."""
        with self._lock:
            spare = self._spare.pop() if self._spare else None
        if spare is not None:
            proc, spare_cwd, spare_env = spare
            if proc.poll() is None and spare_cwd == cwd and spare_env == env:
                return proc
            _kill_spares([spare])
        return _spawn_check(cwd, env)

    def prepare(self, cwd: str, env: dict[str, str], expect: int = 0,
                ahead: str | None = None) -> None:
        """Start the next check's process now, unless one is waiting; `expect` is the size
        of the source it will likely be sent (the file as it is now), `ahead` the file it
        will likely be sent, compiled there as soon as a save lands in it."""
        with self._lock:
            if self._spare:
                return
            try:
                self._spare.append((_spawn_check(cwd, env, expect, ahead), cwd, env))
            except OSError:
                pass     # the next check starts its own

    def close(self) -> None:
        with self._lock:
            spares, self._spare[:] = list(self._spare), []
        _kill_spares(spares)


def _kill_spares(spares: list[_Spare]) -> None:
    for proc, _cwd, _env in list(spares):
        kill_group(proc)
        try:
            proc.communicate(timeout=2)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
    spares.clear()


def load(file: str, *, program_name: str | None = None,
         timeout: float | None = DEFAULT_LOAD_TIMEOUT, checker: Checker | None = None,
         before_verdict: Callable[[Program], object] | None = None) -> Loaded:
    """Check in a subprocess (when `timeout` is not None; a `Checker`'s spare when given:
    call its `prepare` when the next check should start warm), then load in-process the
    bytecode the check compiled, its definition and examples already checked.

    `before_verdict(program)` is called with the program built here while the check process
    still checks it (work done for a load that may yet be refused); what it raises is
    ignored."""
    started = time.perf_counter()
    file = os.path.abspath(file)
    try:
        source = read_text(file)
    except LoadError as error:
        return _done(Loaded(file=file, error=error), started)
    if timeout is None:
        return _done(load_in_process(file, source, program_name=program_name), started)
    run = _begin_check(file, source, program_name, timeout, checker)
    if isinstance(run, LoadError):
        return _done(Loaded(file=file, error=run, source=source), started)
    try:
        refused, code = run.ran()
        if refused is not None:
            return _done(Loaded(file=file, error=refused, source=source), started)
        # The check ran the file to its end: run its bytecode here while it checks the
        # definition and its examples.
        loaded = load_in_process(file, source, program_name=program_name, code=code,
                           verdict=run.verdict, ran=_quietly(before_verdict))
        if run.refused_output is not None and loaded.error is not None:
            loaded.output = run.refused_output
    finally:
        run.close()
    return _done(loaded, started)


def _quietly(work: Callable[[Program], object] | None) -> Callable[[Program], None] | None:
    """`work(program)`, its exceptions ignored (the program may yet be refused); None for None."""
    if work is None:
        return None

    def call(program: Program) -> None:
        try:
            work(program)
        except Exception:  # noqa: BLE001 - a refused definition may break any surface
            pass
    return call
