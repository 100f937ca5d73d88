"""Run one generated call as a caller would: a CLI process in one of four environments, or an
MCP `tools/call`. Each run is a fork of the process that loaded the program, so it starts as a
fresh interpreter would (its own memory, environment, streams and process group, killed with
its children past the time limit) without paying for a new interpreter and a new load.

Environments (`ENVIRONMENTS`): `terminal` (standard input, output and error are terminals — a
pseudo-terminal each — and nobody types: every read sees end of file), `piped` (output to
pipes, standard input from a file or /dev/null), `agent` (piped, with `CLAUDECODE=1`), `ci`
(piped, with `CI=true`). The MCP calls run in `agent` too (`MCP_ENVIRONMENT`), as
`runtime.context.mcp_call_environ` makes a server's (an MCP client is an agent), so the
CLI-vs-MCP comparison (C10) reads the agent's `--json` run. Output modes (`MODES`): `json`
(`--json`), `text` (a person's), `ndjson` (`--format ndjson`).

The MCP side runs the project's own tools/call core, `workbench.runtime.toolcall.call_tool`
(the one the MCP server runs), in the fork: the arguments an MCP client would send for the
call's command line, the result as the server would answer it (a test compares that with a real
MCP SDK client over stdio, tests/test_check.py).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass

from workbench.runtime.context import mcp_call_environ

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from workbench.check.sandbox import Sandbox
    from workbench.declaration.model import Program

ENVIRONMENTS: dict[str, dict[str, str]] = {
    "terminal": {"TERM": "xterm-256color"},
    "piped": {},
    "agent": {"CLAUDECODE": "1"},
    "ci": {"CI": "true"},
}
"""Environment name -> the variables it adds (`terminal` also gets terminals for its streams)."""

MCP_ENVIRONMENT = "agent"
"""Where the MCP side runs, and the CLI side it is compared with (C10)."""

MODES: dict[str, tuple[str, ...]] = {"json": ("--json",), "text": (), "ndjson": ("--format", "ndjson")}
"""Output mode -> the flags that ask for it."""

BASE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "COLUMNS": "100", "LINES": "40",
        "BURGEE_VALIDATE": "1", "BURGEE_STDIN_TIMEOUT": "2"}
"""What every run's environment holds besides PATH, the sandbox's folders and its own."""

DEFAULT_TIMEOUT = 10.0
"""Seconds a run may take before it is killed (and reported as hung)."""


@dataclass(frozen=True)
class Run:
    """What one run gave.

    Attributes:
        argv: the command line after the program name, as run (output flags included).
        environment: `terminal`, `piped`, `agent`, `ci`, or `mcp`.
        mode: `json`, `text`, `ndjson`, or `mcp`.
        exit: the exit code (for MCP, the one the result's envelope stands for); None when
            it was killed at the time limit.
        stdout: what it wrote on standard output (for MCP, the result's text).
        stderr: what it wrote on standard error (for MCP, stray output of the call).
        result: for MCP, the CallToolResult as the server answers it.
        env: the variables the call added.
    """

    argv: tuple[str, ...]
    environment: str
    mode: str
    exit: int | None
    stdout: str
    stderr: str
    result: dict[str, Any] | None = None
    env: tuple[tuple[str, str], ...] = ()

    @property
    def timed_out(self) -> bool:
        return self.exit is None

    def document(self) -> Any:
        """stdout parsed as one JSON document (`--json`, MCP), or None."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None


class Runner:
    """Runs calls of `program` in forks, inside `sandbox` (restored before each run).

    `exit_hooks`: run the program's `atexit` functions and wait for its threads at the end of
    each run, as an interpreter does (only where this process is a checker of its own, not a
    test process whose hooks are not the program's)."""

    program: Program
    sandbox: Sandbox
    count: int

    def __init__(self, program: Program, sandbox: Sandbox, timeout: float = DEFAULT_TIMEOUT,
                 exit_hooks: bool = True) -> None:
        self.program = program
        self.sandbox = sandbox
        self.timeout = timeout
        self.exit_hooks = exit_hooks
        self.count = 0
        self._cache: dict = {}
        _warm()
        self._base = dict(BASE)
        for name in ("PATH", "PYTHONPATH"):
            if os.environ.get(name):
                self._base[name] = os.environ[name]

    def close(self) -> None:
        """Give the loading process its collector back (`_warm` froze its heap)."""
        import gc
        gc.unfreeze()

    def forget(self) -> None:
        """Drop the runs kept so far (each command's calls start afresh)."""
        self._cache.clear()

    def environ(self, environment: str,
                env: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
        base = dict(self._base)
        base.update(self.sandbox.environ())
        base.update(ENVIRONMENTS.get(environment, {}))
        base.update(dict(env))
        if environment == MCP_ENVIRONMENT:   # as an MCP server's call runs
            return mcp_call_environ(base)
        return base

    def cli(self, argv: Sequence[str], environment: str, mode: str | None,
            env: Iterable[tuple[str, str]] = (), stdin: str | None = None,
            again: bool = False) -> Run:
        """The call as a process would run it; `mode` None: argv already carries its flags.
        Cached by everything that decides the outcome unless `again` (a second run)."""
        full = tuple(argv) + (MODES[mode] if mode else ())
        if mode:
            at = list(argv).index("--") if "--" in argv else len(argv)
            full = tuple(argv[:at]) + MODES[mode] + tuple(argv[at:])
        key = ("cli", full, environment, tuple(env), stdin)
        if key in self._cache and not again:
            return self._cache[key]
        environ = self.environ(environment, env)
        program = self.program

        def body():
            from workbench.entry import run
            run(program, list(full))

        exit, out, err, _ = self._fork(body, environ, environment == "terminal", stdin)
        found = Run(full, environment, mode or "raw", exit, out, err, env=tuple(env))
        self._cache[key] = found
        return found

    def mcp(self, tool: str, arguments: dict[str, Any], env: Iterable[tuple[str, str]] = (), again: bool = False) -> Run:
        """The tools/call an MCP client would send, answered by the server's own core, in the
        `MCP_ENVIRONMENT` (an agent's, as `tool mcp` runs every call)."""
        key = ("mcp", tool, json.dumps(arguments, sort_keys=True), tuple(env))
        if key in self._cache and not again:
            return self._cache[key]
        environ = self.environ(MCP_ENVIRONMENT, env)
        program = self.program

        def body():
            from workbench.runtime.pipeline import call
            from workbench.runtime.toolcall import call_tool
            result = call_tool(program, tool, arguments,
                               lambda command, argv: call(program, argv,
                                                          environ=dict(os.environ)))
            data = json.dumps(result, ensure_ascii=False).encode("utf-8", "surrogatepass")
            while data:
                data = data[os.write(3, data):]
            return 0

        exit, out, err, raw = self._fork(body, environ, False, None, result_pipe=True,
                                         hooks=False)
        result = None
        try:
            result = json.loads(raw) if raw else None
        except ValueError:
            pass
        text = ""
        if isinstance(result, dict):
            content = result.get("content") or [{}]
            text = content[0].get("text", "") if isinstance(content[0], dict) else ""
            doc = _loads(text)
            if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
                exit = doc["error"].get("exit", exit) if doc.get("ok") is not True else exit
            if isinstance(doc, dict) and doc.get("ok") is True:
                exit = 0
        found = Run((tool, json.dumps(arguments, sort_keys=True)), "mcp", "mcp", exit, text,
                    out + err, result, env=tuple(env))
        self._cache[key] = found
        return found

    # -- the fork ---------------------------------------------------------------------

    def _fork(self, body, environ: dict[str, Any], terminal: bool, stdin: str | None,
              result_pipe: bool = False, hooks: bool = True):
        """(exit or None, stdout, stderr, result-pipe bytes) of `body` run in a fork; `hooks`:
        end it as an interpreter ends (threads, atexit), as a CLI process does (not an MCP
        call: a server does not end after each)."""
        self.sandbox.restore()
        self.count += 1
        parent_close, readers, child = [], {}, {}
        if terminal:
            import termios
            out_master, out_slave = os.openpty()
            err_master, err_slave = os.openpty()
            for fd in (out_slave, err_slave):
                _plain_terminal(fd, termios)
            os.write(out_master, b"\x04" * 4)    # nobody types: each read is end of file
            child = {0: out_slave, 1: out_slave, 2: err_slave}
            readers = {out_master: "stdout", err_master: "stderr"}
            parent_close = [out_slave, err_slave]
        else:
            import tempfile
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            if stdin is None:
                in_fd = os.open(os.devnull, os.O_RDONLY)
            else:
                handle = tempfile.TemporaryFile(dir=self.sandbox.root)
                handle.write(stdin.encode("utf-8", "surrogateescape"))
                handle.flush()
                in_fd = os.dup(handle.fileno())
                handle.close()
                os.lseek(in_fd, 0, os.SEEK_SET)
            child = {0: in_fd, 1: out_w, 2: err_w}
            readers = {out_r: "stdout", err_r: "stderr"}
            parent_close = [in_fd, out_w, err_w]
        if result_pipe:
            res_r, res_w = os.pipe()
            child[3] = res_w
            readers[res_r] = "result"
            parent_close.append(res_w)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        pid = os.fork()
        if pid == 0:     # pragma: no cover - the child's coverage is not collected
            self._child(body, environ, child, list(readers), terminal,
                        hooks and self.exit_hooks)
        for fd in parent_close:
            os.close(fd)
        buffers, exit = _collect(pid, readers, self.timeout,
                                 out_master if terminal else None)
        for fd in readers:
            try:
                os.close(fd)
            except OSError:
                pass
        return (exit, _text(buffers.get("stdout", b"")), _text(buffers.get("stderr", b"")),
                buffers.get("result", b"").decode("utf-8", "surrogatepass"))

    def _child(self, body, environ, fds, parent_fds, terminal, hooks) -> None:
        code = 70
        try:
            os.setsid()
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for target, fd in sorted(fds.items()):
                if fd != target:
                    os.dup2(fd, target)
            for fd in set(fds.values()) | set(parent_fds):
                if fd not in fds:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            os.environ.clear()
            os.environ.update(environ)
            os.chdir(self.sandbox.work)
            _fresh_streams(terminal)
            code = body()
        except SystemExit as stop:
            code = _exit_code(stop.code)
        except BaseException:   # noqa: BLE001 - the run's crash is its stderr and exit 70
            import traceback
            traceback.print_exc()
        finally:
            try:
                if hooks:
                    code = _as_interpreter_ends(code)
            finally:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (OSError, ValueError, AttributeError):
                        pass
                os._exit(code if isinstance(code, int) else 1)


WARM = ("workbench.runtime.capture", "workbench.runtime.toolcall", "workbench.runtime._paging",
        "workbench.runtime.builtins", "workbench.surfaces.cards", "workbench.surfaces.help",
        "workbench.surfaces.output", "workbench.surfaces.tools", "tempfile", "threading",
        "traceback", "jsonschema", "select", "hashlib", "sqlite3", "secrets")
"""What a run would import by itself: imported once here, so no fork pays for it again."""


def _warm() -> None:
    """Import `WARM` (what is installed of it), then freeze the heap: every run is a fork of
    this process, and a collection in it (the exit hook of `run` collects) would otherwise
    walk, and so copy, every page the program and its imports hold."""
    import gc
    import importlib
    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    gc.collect()
    gc.freeze()


def _loads(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError, AttributeError):
        pass
    return 1


def _as_interpreter_ends(code: int) -> int:
    """What an interpreter does after `sys.exit`: wait for the threads still running, then
    run the `atexit` functions (a handler's may still write, or call sys.exit)."""
    import threading
    try:
        threading._shutdown()   # type: ignore[attr-defined]
    except BaseException:   # noqa: BLE001
        pass
    import atexit
    try:
        atexit._run_exitfuncs()
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException:   # noqa: BLE001 - printed by atexit itself
        pass
    return code


def _fresh_streams(terminal: bool) -> None:
    """sys.stdin/stdout/stderr on fds 0, 1 and 2, as a new interpreter opens them (whatever
    the loading process had in their place: a test runner's capture, a closed stream)."""
    streams = (
        ("stdin", 0, "r", "surrogateescape"),
        ("stdout", 1, "w", "strict"),
        ("stderr", 2, "w", "backslashreplace"),
    )
    for name, fd, how, errors in streams:
        stream = open(fd, how, encoding="utf-8", errors=errors, closefd=False,   # noqa: SIM115
                      buffering=-1 if how == "r" else 1 if terminal or name == "stderr" else -1)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _plain_terminal(fd: int, termios) -> None:
    """A terminal that passes output through unchanged (no `\\n` -> `\\r\\n`) and echoes
    nothing, 100 columns wide."""
    attrs = termios.tcgetattr(fd)
    attrs[1] &= ~termios.OPOST
    attrs[3] &= ~(termios.ECHO | termios.ECHONL)
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    import fcntl
    import struct
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _collect(pid: int, readers: dict[int, str], timeout: float, terminal: int | None = None):
    """Read every stream of the run until it ends (its own end, then what is left to read),
    or kill its process group past `timeout`; (buffers by name, exit or None). The run's end
    is watched through a pidfd, so nothing sleeps. `terminal`: the run's terminal, answered
    with one more end of file after each output (a prompt that flushed what was queued, as
    `getpass` does, still reads nobody)."""
    buffers = {name: bytearray() for name in readers.values()}
    poller = select.poll()
    for fd in readers:
        poller.register(fd, select.POLLIN)
    ended = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None   # Linux 5.3+
    if ended is not None:
        poller.register(ended, select.POLLIN)
    open_fds = set(readers)
    deadline = time.monotonic() + timeout
    status = None
    try:
        while open_fds or status is None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if ended is None and status is None:    # no pidfd: look every 5 ms
                done, waited = os.waitpid(pid, os.WNOHANG)
                status = waited if done else None
                left = min(left, 0.005)
            events = poller.poll(0 if status is not None else left * 1000)
            if not events and status is not None:
                break       # ended, and nothing more to read (a grandchild may hold a pipe)
            for fd, _ in events:
                if fd == ended:
                    poller.unregister(ended)
                    status = os.waitpid(pid, 0)[1]
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except OSError:     # a terminal whose other side is closed
                    chunk = b""
                if chunk:
                    buffers[readers[fd]] += chunk
                    if terminal is not None:   # a prompt goes to stdout or stderr
                        try:
                            os.write(terminal, b"\x04")
                        except OSError:
                            pass
                else:
                    poller.unregister(fd)
                    open_fds.discard(fd)
    finally:
        if ended is not None:
            os.close(ended)
    try:
        os.killpg(pid, signal.SIGKILL)      # what the run left behind, or the run itself
    except OSError:
        pass
    if status is None:
        os.waitpid(pid, 0)
        return {name: bytes(data) for name, data in buffers.items()}, None
    return {name: bytes(data) for name, data in buffers.items()}, \
        os.waitstatus_to_exitcode(status)
