"""Load a user's program file: compile and run it in a fresh module, find its Program.

A load first runs the file in a short-lived subprocess with a time limit (`_CheckRun`), so an
import that never finishes is cut off instead of freezing the workbench; only a file that
passed is then run in-process (`load`). Sibling modules are always read from source, never
from possibly stale bytecode, and are re-imported on every load so an edit to a helper module
is seen. Errors are data (`LoadError`), never exceptions, so "last good program" is a choice
the caller makes.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import subprocess
import sys
import time
import traceback
import types
from dataclasses import dataclass, field

DEFAULT_LOAD_TIMEOUT = 10.0
"""Seconds an import may take before it counts as hanging."""


@dataclass(frozen=True)
class LoadError:
    """Why a load failed: `kind` is syntax | import | timeout | no_program | ambiguous | missing."""

    kind: str
    message: str
    traceback: str = ""
    line: int | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line,
                "traceback": self.traceback}


@dataclass
class Loaded:
    """One load attempt: the Program found (or None) and the error (or None)."""

    file: str
    program: object | None = None
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


# --- reading siblings from source --------------------------------------------------------

class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles from source every time: a save within the same second as the last one can
    leave a .pyc whose mtime/size still match, which the default loader would trust."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return compile(self.get_data(path), path, "exec", dont_inherit=True)


class _SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds modules under the watched folders with `_SourceOnlyLoader`."""

    def __init__(self):
        self.roots: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if not self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not isinstance(
                spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not _under(spec.origin, self.roots) or _installed(spec.origin):
            return None
        spec.loader = _SourceOnlyLoader(fullname, spec.origin)
        spec.cached = None
        return spec


_FINDER = _SourceOnlyFinder()


def _under(path: str, roots) -> bool:
    path = _realpath(path)
    return any(path == root or path.startswith(root + os.sep) for root in roots)


_REAL: dict = {}


def _realpath(path: str) -> str:
    """`os.path.realpath`, remembered: every load asks it of every module in `sys.modules`
    (hundreds in the workbench; 20 ms of system calls a save)."""
    real = _REAL.get(path)
    if real is None:
        real = _REAL[path] = os.path.realpath(path)
    return real


_INSTALLED: set | None = None


def _installed(path: str) -> bool:
    """True for files of the interpreter, installed packages, and the workbench itself: they
    may sit under the watched folder (a project's .venv) but are never user code to reload."""
    global _INSTALLED
    if _INSTALLED is None:
        import site
        import sysconfig
        roots = {sys.prefix, sys.base_prefix, sys.exec_prefix,
                 os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
        roots.update(sysconfig.get_paths().values())
        try:
            roots.update(site.getsitepackages())
            roots.add(site.getusersitepackages())
        except AttributeError:
            pass
        _INSTALLED = {os.path.realpath(root) for root in roots if root}
    return _under(path, _INSTALLED)


def user_modules(folder: str) -> dict:
    """name -> file of the modules imported from `folder` (not installed ones)."""
    found = {}
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not origin or name.startswith("workbench"):
            continue
        if _under(origin, {folder}) and not _installed(origin):
            found[name] = _realpath(origin)
    return found


def _forget_siblings(folder: str) -> None:
    """Drop modules imported from `folder` (never installed ones) so they load afresh."""
    for name in user_modules(folder):
        sys.modules.pop(name, None)


# --- finding the program -----------------------------------------------------------------

def find_program(namespace: dict, program_name: str | None = None):
    """(variable name, Program) from a module namespace, or a LoadError.

    `program_name` matches a variable name first, then a Program's own `name`.
    """
    from workbench.declaration.model import Program
    found = [(key, value) for key, value in namespace.items()
             if isinstance(value, Program) and not key.startswith("__")]
    if "workbench.typed" in sys.modules:   # typed Apps, only if the file imported them
        from workbench.declaration.model import DefinitionError
        from workbench.typed import programs_in
        try:
            found += programs_in(namespace)
        except DefinitionError as exc:
            return LoadError("definition", f"DefinitionError: {exc}",
                             f"DefinitionError: {exc}\n", None)
    seen, unique = set(), []
    for key, value in found:
        if id(value) not in seen:
            seen.add(id(value))
            unique.append((key, value))
    if not unique or (program_name and all(program_name not in (key, value.name)
                                           for key, value in unique)):
        adapted = _adapted(namespace, program_name)   # Click/Typer/argparse (issue 7)
        if adapted is not None:
            return adapted
    if program_name:
        for key, value in unique:
            if key == program_name:
                return key, value
        for key, value in unique:
            if value.name == program_name:
                return key, value
        names = ", ".join(key for key, _ in unique) or "none"
        return LoadError("no_program", f"no program called {program_name!r} in the file "
                         f"(programs found: {names})")
    if not unique:
        return LoadError("no_program", "the file defines no module-level Program; add e.g. "
                         "`program = Program(name=..., commands=[...])` at top level")
    if len(unique) > 1:
        names = ", ".join(key for key, _ in unique)
        return LoadError("ambiguous", f"the file defines several programs ({names}); "
                         f"choose one with --program NAME")
    return unique[0]


def _adapted(namespace: dict, program_name: str | None):
    """(variable name, Program) for a Click/Typer/argparse object in the namespace, a
    LoadError, or None. The adapters load only when the file imported those libraries."""
    if not any(lib in sys.modules for lib in ("click", "typer", "argparse")):
        return None
    from workbench.adapters import adapt_namespace
    try:
        return adapt_namespace(namespace, program_name, source=namespace.get("__file__"))
    except LookupError as error:
        return LoadError("ambiguous", f"the file has several command-line objects ({error}); "
                         f"choose one with --program NAME")
    except ValueError as error:
        return LoadError("no_program", str(error))


# --- in-process load ---------------------------------------------------------------------

def module_name(file: str) -> str:
    stem = os.path.splitext(os.path.basename(file))[0]
    safe = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in stem)
    return "_burgee_app_" + safe


def exec_file(file: str, source: str | None = None, *, program_name: str | None = None,
              code=None, verdict=None, ran=None) -> Loaded:
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
    folder = os.path.dirname(file)
    loaded = Loaded(file=file)
    if source is None:
        try:
            with open(file, "rb") as handle:
                raw = handle.read()
            source = raw.decode("utf-8")
        except FileNotFoundError:
            loaded.error = LoadError("missing", f"{file} does not exist")
            return _done(loaded, started)
        except (OSError, UnicodeDecodeError) as exc:
            loaded.error = LoadError("import", f"cannot read {file}: {exc}")
            return _done(loaded, started)
    loaded.source = source
    sys.dont_write_bytecode = True
    _FINDER.roots.add(os.path.realpath(folder))
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _forget_siblings(os.path.realpath(folder))
    importlib.invalidate_caches()
    if code is None:
        try:
            code = compile(source, file, "exec", dont_inherit=True)
        except SyntaxError as exc:
            loaded.error = _syntax_error(exc, file)
            return _done(loaded, started)
    name = module_name(file)
    module = types.ModuleType(name)
    module.__file__ = file
    module.__builtins__ = __builtins__
    previous = sys.modules.get(name)
    sys.modules[name] = module
    if folder not in sys.path:
        sys.path.insert(0, folder)
    from workbench.runtime.capture import Capture
    capture = Capture(wait=False)
    try:
        # A module that prints at import must not write over a dashboard or an MCP stdio
        # wire: keep what it printed as data instead. The capture is at the fd level, so the
        # module sees real files (fileno(), .buffer), as under `run` (httpie, pre-commit).
        # It never waits: while another capture holds the fds (`burgee dev --json` runs under
        # the pipeline's, a tool call under its own) the output already goes to its files.
        with capture, _ran_checked(code if verdict is not None else None):
            exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - user code may raise anything, even SystemExit
        loaded.output = _printed(capture)
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        loaded.error = _import_error(exc, file)
        return _done(loaded, started)
    loaded.output = _printed(capture)
    found = find_program(module.__dict__, program_name)
    if isinstance(found, LoadError):
        loaded.error = found
    else:
        from workbench.declaration.model import DefinitionError
        from workbench.runtime.checks import ensure_checked
        if ran is not None:
            ran(found[1])
        if verdict is not None:
            loaded.error = verdict()
            if loaded.error is not None:
                return _done(loaded, started)
            found[1]._examples_checked = True
        try:
            ensure_checked(found[1])   # examples, parsed by the one parser
        except DefinitionError as exc:
            loaded.error = LoadError("definition", f"DefinitionError: {exc}",
                                     f"DefinitionError: {exc}\n", None)
            return _done(loaded, started)
        loaded.name, loaded.program = found
        try:
            loaded.program.source = file
        except AttributeError:
            pass
        loaded.module, loaded.code = module, code
    return _done(loaded, started)


@contextlib.contextmanager
def _ran_checked(code):
    """While `code` runs here, a Program it builds at its top level skips the definition
    checks: the load check process ran this same bytecode to its end, checks included."""
    if code is None:
        yield
        return
    from workbench.declaration._checks import _RAN_CHECKED
    _RAN_CHECKED.add(code)
    try:
        yield
    finally:
        _RAN_CHECKED.discard(code)


CODE_SUFFIX = ".code"
"""Beside a good source the workbench keeps (`engine.good_source_file`), its bytecode."""


def save_code(source_file: str, code) -> None:
    """Keep `code`, the checked bytecode of `source_file`, beside it (written whole or not at
    all), so the workbench's own subprocesses (batch workers, environment runs, MCP calls)
    run it without compiling the file and checking its definition again."""
    import marshal
    temporary = source_file + CODE_SUFFIX + ".tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(marshal.dumps(code))
        os.replace(temporary, source_file + CODE_SUFFIX)
    except (OSError, ValueError):
        pass     # they compile it, as before


def saved_code(source_file: str):
    """The bytecode `save_code` kept beside `source_file`, or None."""
    import marshal
    try:
        with open(source_file + CODE_SUFFIX, "rb") as handle:
            return marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _syntax_error(exc: SyntaxError, file: str) -> LoadError:
    return LoadError("syntax", f"{type(exc).__name__}: {exc.msg} "
                     f"({os.path.basename(file)}, line {exc.lineno})",
                     "".join(traceback.format_exception_only(type(exc), exc)), exc.lineno)


def _printed(capture) -> str:
    """What a module wrote while it loaded, stdout then stderr."""
    output = capture.output() or {}
    return output.get("stdout", "") + output.get("stderr", "")


def _done(loaded: Loaded, started: float) -> Loaded:
    loaded.seconds = time.perf_counter() - started
    return loaded


def _import_error(exc: BaseException, file: str) -> LoadError:
    if isinstance(exc, SystemExit):
        return LoadError("import", f"{os.path.basename(file)} called sys.exit({exc.code!r}) "
                         f"while loading; keep run(program) under "
                         f"`if __name__ == \"__main__\":`")
    frames = traceback.extract_tb(exc.__traceback__)
    line = None
    for frame in frames:
        if os.path.abspath(frame.filename) == file:
            line = frame.lineno
    # Hide the loader's own frames: the user's traceback starts at their file.
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(__file__):
        tb = tb.tb_next
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    kind = "definition" if type(exc).__name__ == "DefinitionError" else "import"
    return LoadError(kind, f"{type(exc).__name__}: {exc}", text, line)


# --- the subprocess check ----------------------------------------------------------------

def _begin_check(file: str, source: str | None, program_name: str | None, timeout: float,
                 checker: Checker | None):
    """A `_CheckRun` of `source` (read from `file` when None), or the LoadError that stops
    it from starting."""
    file = os.path.abspath(file)
    if source is None:
        try:
            with open(file, encoding="utf-8") as handle:
                source = handle.read()
        except FileNotFoundError:
            return LoadError("missing", f"{file} does not exist")
        except (OSError, UnicodeDecodeError) as exc:
            return LoadError("import", f"cannot read {file}: {exc}")
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

    def __init__(self, proc: subprocess.Popen, request: bytes, timeout: float, name: str):
        self.proc, self.timeout, self.name = proc, timeout, name
        self.deadline = time.monotonic() + timeout
        self._request = memoryview(request)
        self._out, self._err = bytearray(), bytearray()
        self._open = {proc.stdout.fileno(): self._out, proc.stderr.fileno(): self._err}
        self._replies: list = []
        self.refused_output: str | None = None
        self.compiled_ahead = False     # the check compiled the file as the save landed
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)

    def ran(self) -> tuple:
        """(LoadError or None, the code object the check ran, or None when it did not).

        The bytecode comes first, as soon as the file compiled, and is decoded here while
        the check process runs the file; then the word that it ran."""
        code = None
        reply = self._reply()
        if isinstance(reply, dict) and "burgee_code" in reply:
            self.compiled_ahead = bool(reply.get("ahead"))
            import base64
            import marshal
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
            _kill_group(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        if self.proc.returncode is None:
            import threading
            threading.Thread(target=_reap, args=(self.proc,), name="burgee-reap",
                             daemon=True).start()

    def _reply(self):
        """The next reply line as a dict, or the LoadError that ended the check."""
        while not self._replies:
            if self.proc.stdout.fileno() not in self._open:
                self.proc.wait()
                return LoadError("import", f"the load check exited {self.proc.returncode} "
                                 f"without a result",
                                 self._err.decode("utf-8", "replace")[-4000:])
            if not self._pump():
                return LoadError("timeout", f"loading {self.name} did not finish within "
                                 f"{self.timeout:g} s (an import that never returns?); the "
                                 f"last good program stays live")
        return self._replies.pop(0)

    def _pump(self) -> bool:
        """Move bytes once (the request out, replies and stderr in); False past the deadline
        (the process group killed)."""
        import select
        left = self.deadline - time.monotonic()
        if left <= 0:
            _kill_group(self.proc)
            return False
        stdin = self.proc.stdin
        writing = self._request is not None and not stdin.closed
        poller = select.poll()    # not select(): a busy workbench may hold fds past 1024
        for fd in self._open:
            poller.register(fd, select.POLLIN)
        if writing:
            poller.register(stdin.fileno(), select.POLLOUT)
        events = dict(poller.poll(left * 1000))
        readable = [fd for fd in list(self._open) if fd in events]
        if writing and stdin.fileno() in events:
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


def _reap(proc: subprocess.Popen) -> None:
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:   # left to subprocess's own reaping of dropped children
        pass


def _reply_error(reply: dict) -> LoadError | None:
    result = reply.get("burgee_check")
    if result is None:
        return None
    return LoadError(result["kind"], result["message"], result.get("traceback", ""),
                     result.get("line"))


def _spawn_check(cwd: str, env: dict, expect: int = 0,
                 ahead: str | None = None) -> subprocess.Popen:
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


def _kill_group(proc: subprocess.Popen) -> None:
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


class Checker:
    """Load checks for one workbench, each in a process started before it is needed.

    A check costs an interpreter start and the imports a load needs (about 90 ms) before the
    user's file even compiles; a save should not wait for that. After each check the next
    process is started (`prepare`) and waits on stdin, so the next save only pays for its
    own file. A spare started for another folder or environment is not used. `close()`
    (or the checker going away) kills the spare.
    """

    def __init__(self):
        import threading
        import weakref
        self._lock = threading.Lock()
        self._spare: list = []      # [(proc, cwd, env)], at most one
        weakref.finalize(self, _kill_spares, self._spare)

    def take(self, cwd: str, env: dict) -> subprocess.Popen:
        """The spare when it suits `cwd` and `env` and is still waiting; else a new process."""
        with self._lock:
            spare = self._spare.pop() if self._spare else None
        if spare is not None:
            proc, spare_cwd, spare_env = spare
            if proc.poll() is None and spare_cwd == cwd and spare_env == env:
                return proc
            _kill_spares([spare])
        return _spawn_check(cwd, env)

    def prepare(self, cwd: str, env: dict, expect: int = 0, ahead: str | None = None) -> None:
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


def _kill_spares(spares) -> None:
    for proc, _cwd, _env in list(spares):
        _kill_group(proc)
        try:
            proc.communicate(timeout=2)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
    if isinstance(spares, list):
        spares.clear()


def _communicate(proc: subprocess.Popen, input, timeout: float) -> subprocess.CompletedProcess:
    """`proc.communicate(input)` within `timeout`; past it the process group is killed (its
    children too) and TimeoutExpired raised."""
    with proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                out, err = proc.communicate(timeout=2)
            except subprocess.TimeoutExpired:
                out, err = "", ""
            raise subprocess.TimeoutExpired(proc.args, timeout, out, err) from None
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_limited(args, *, input=None, timeout: float, stdin=None, on_line=None, **kwargs):
    """`subprocess.run(..., capture_output=True, text=True)` in its own session; on timeout
    the whole process group is killed (a handler's children too) and TimeoutExpired raised.
    `on_line(line)` hears each stdout line as it arrives (the output is still returned)."""
    kwargs.setdefault("start_new_session", True)
    if on_line is not None:
        return _run_streaming(args, input=input, timeout=timeout, on_line=on_line, **kwargs)
    if input is not None:
        stdin = subprocess.PIPE
    proc = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)
    return _communicate(proc, input, timeout)


def _run_streaming(args, *, input, timeout: float, on_line, **kwargs):
    """run_limited, handing each stdout line to `on_line` as it arrives, on the calling thread
    (the MCP server calls from an anyio worker thread, which progress notifications need)."""
    import queue
    import signal
    import threading
    import time
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)
    lines: queue.Queue = queue.Queue()
    out_lines: list[str] = []
    err_parts: list[str] = []

    def read_out():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    readers = [threading.Thread(target=read_out, daemon=True),
               threading.Thread(target=lambda: err_parts.append(proc.stderr.read()), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        if input:
            proc.stdin.write(input)
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    deadline = time.monotonic() + timeout
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(args, timeout)
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                raise subprocess.TimeoutExpired(args, timeout) from None
            if line is None:
                break
            out_lines.append(line)
            try:
                on_line(line.rstrip("\n"))
            except Exception:  # noqa: BLE001 - a listener must not stop the reading
                pass
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.wait()
        for reader in readers:
            reader.join(timeout=2)
        raise subprocess.TimeoutExpired(args, timeout, "".join(out_lines),
                                        "".join(err_parts)) from None
    for reader in readers:
        reader.join(timeout=5)
    return subprocess.CompletedProcess(args, proc.returncode, "".join(out_lines),
                                       "".join(err_parts))


def child_environ(extra: dict | None = None) -> dict:
    """The environment for workbench subprocesses: ours, with the workbench importable, and
    without the dev server's bearer token (`serving.handler_environ`: no handler reads it)."""
    from workbench.runtime.serving import handler_environ
    env = handler_environ(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env


def load(file: str, *, program_name: str | None = None,
         timeout: float | None = DEFAULT_LOAD_TIMEOUT, checker: Checker | None = None,
         before_verdict=None) -> Loaded:
    """Check in a subprocess (when `timeout` is not None; a `Checker`'s spare when given:
    call its `prepare` when the next check should start warm), then load in-process the
    bytecode the check compiled, its definition and examples already checked.

    `before_verdict(program)` is called with the program built here while the check process
    still checks it (work done for a load that may yet be refused); what it raises is
    ignored."""
    started = time.perf_counter()
    file = os.path.abspath(file)
    try:
        with open(file, encoding="utf-8") as handle:
            source = handle.read()
    except FileNotFoundError:
        return _done(Loaded(file=file, error=LoadError("missing", f"{file} does not exist")),
                     started)
    except (OSError, UnicodeDecodeError) as exc:
        return _done(Loaded(file=file, error=LoadError("import", f"cannot read {file}: {exc}")),
                     started)
    if timeout is None:
        return _done(exec_file(file, source, program_name=program_name), started)
    run = _begin_check(file, source, program_name, timeout, checker)
    if isinstance(run, LoadError):
        return _done(Loaded(file=file, error=run, source=source), started)
    try:
        error, code = run.ran()
        if error is not None:
            return _done(Loaded(file=file, error=error, source=source), started)
        # The check ran the file to its end: run its bytecode here while it checks the
        # definition and its examples.
        loaded = exec_file(file, source, program_name=program_name, code=code,
                           verdict=run.verdict, ran=_quietly(before_verdict))
        if run.refused_output is not None and loaded.error is not None:
            loaded.output = run.refused_output
    finally:
        run.close()
    return _done(loaded, started)


def _quietly(work):
    """`work(program)`, its exceptions ignored (the program may yet be refused); None for None."""
    if work is None:
        return None

    def call(program) -> None:
        try:
            work(program)
        except Exception:  # noqa: BLE001 - a refused definition may break any surface
            pass
    return call
