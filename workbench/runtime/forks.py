"""Each server call in a process of its own, forked from a fork server that holds the program.

    forks = ForkServer.start(program)        # while the process has one thread
    outcome = forks.call(["deploy", "--target", "prod", "--json"], tool="deploy")
    forks.close()

Capture works on file descriptors, and those belong to a whole process: a server that runs
handlers in its own process must run them one at a time, and whatever a handler leaves
behind (a thread that prints later, a changed global, a child process) reaches the next call.
`os._exit()` or a segfault in a handler ends the server for every client.

So `tool mcp` (stdio and HTTP) and `workbench.asgi` fork, once, a **fork server**: a
single-threaded process holding the loaded, checked program, made before the server imports
the MCP SDK or starts a thread (a fork from a threaded process may copy a lock some other
thread held). The fork server keeps `SPARES` **call processes** forked and warmed up ahead
(each has run a no-op call of a program of our own, so the pages every call touches are
already its own), and hands the server one end of each one's socket. A call takes a spare:
the server writes the request on its socket; the call process runs
`workbench.runtime.pipeline.call` (fds 1 and 2 captured there), writes progress lines and the
outcome (its end at idle priority, `_step_aside`: its exit never keeps the woken server
waiting), and `os._exit`s: what it left running dies with it, and its process group is killed
when it is reaped. The fork server forks the next spare once no call runs (at once when
no spare is left), so a fork never takes the CPU from a running call, and writes each
call process's wait status on its own copy of the socket, so a call process that died before
answering (`os._exit`, a signal, the OOM killer) is still reported: an `internal` envelope
for that call and nothing more.

Calls run at once up to `max_calls` (callers past it wait); a call that outlives `timeout`
seconds is killed with its process group and answers `timeout` (exit 7). `cancel(ticket)`
ends the call of a `Ticket` set in `TICKET` for it (its client cancelled it): SIGTERM, then
SIGKILL after `CANCEL_GRACE` seconds. `end_calls()` (a server stopping) kills the calls
still running, which answer `terminated` (exit 143), and refuses new ones the same way. The call processes' environment is the server's without
`BURGEE_MCP_TOKEN` (`serving.handler_environ`). POSIX only (`os.fork`, `SCM_RIGHTS`).
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import threading
import time
from contextvars import ContextVar

from workbench.runtime import envelope as _envelope
from workbench.runtime.pipeline import Outcome
from workbench.runtime.serving import DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_CALLS

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from workbench.declaration.model import Command, Program

SPARES = 3
"""Call processes the fork server keeps forked and warm ahead of calls."""
_WARM_UP = None
"""A no-op program every spare runs once before its call (`_warm_up`)."""
_PRCTL = None
"""libc's `prctl` where there is one (Linux), looked up once by `_prepare`."""
_LAST_BYTES = 1 << 14
"""An outcome up to this size is sent whole after `_step_aside` (a socket's buffer takes it at
once); of a longer one only its last byte, so a process at idle priority never waits for the
CPU to finish sending."""
_REAPED_WAIT = 10.0
"""Seconds to wait for a killed call's status before answering anyway."""
CANCEL_GRACE = 5.0
"""Seconds a cancelled call has between SIGTERM (its handler ends with its clean-up) and
SIGKILL of its process group."""


class Ticket:
    """One call's handle, for ending it from another thread (`ForkServer.cancel`): set as
    `TICKET` in the context the call runs in (a worker thread copies it)."""

    __slots__ = ("pid", "cancelled")

    def __init__(self) -> None:
        self.pid: int | None = None
        self.cancelled: bool = False


TICKET: ContextVar[Ticket | None] = ContextVar("burgee_call_ticket", default=None)
"""The `Ticket` of the call this context runs, if its caller may cancel it."""


def available() -> bool:
    """Whether calls can run in processes of their own here (POSIX: fork and fd passing)."""
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket,
                                                                          "SOCK_SEQPACKET")


class ForkServer:
    """The server's side of a fork server; see the module. Thread-safe."""

    def __init__(self, pid: int, control: socket.socket, program: Program, *, max_calls: int,
                 timeout: float, max_result_bytes: int | None):
        self.pid = pid
        self.program = program
        self.max_calls = max_calls
        self.timeout = timeout
        self.max_result_bytes = max_result_bytes
        self._control = control
        self._slots = threading.BoundedSemaphore(max_calls)
        self._take = threading.Lock()    # one thread at a time reads spares off the control
        self._lock = threading.Lock()
        self._running: set = set()       # pids of call processes given a call
        self._ending: str | None = None  # why new and running calls end (`end_calls`)
        self.closed: bool = False

    @classmethod
    def start(cls, program: Program, *, environ: Mapping[str, str] | None = None,
              max_calls: int = DEFAULT_MAX_CALLS,
              timeout: float = DEFAULT_CALL_TIMEOUT, max_result_bytes: int | None = None
              ) -> ForkServer:
        """Fork the fork server for `program` (call it while this process has one thread).
        `environ`: what the calls see as `os.environ` (default: this process's), without
        the bearer token either way."""
        from workbench.runtime.checks import ensure_checked
        from workbench.runtime.serving import handler_environ
        ensure_checked(program)   # once, here: every call process inherits the verdict
        _prepare(program)
        calls_environ = handler_environ(os.environ if environ is None else environ)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        _flush_std()
        pid = os.fork()
        if pid == 0:   # the fork server: never returns
            ours.close()
            _serve(program, theirs, calls_environ)
        theirs.close()
        server = cls(pid, ours, program, max_calls=max_calls, timeout=timeout,
                     max_result_bytes=max_result_bytes)
        import weakref
        weakref.finalize(server, _close, ours, pid)
        return server

    # --- calls -------------------------------------------------------------------------

    def run(self, program: Program, command: Command, argv: Sequence[str],
            on_progress: Callable[[float, float | None, str | None], None] | None = None) -> Outcome:
        """The `ProgramServer` caller hook: run argv in a call process (`program` is the one
        the fork server holds)."""
        return self.call(argv, tool=command.tool_name, on_progress=on_progress)

    def call(self, argv: Sequence[str], *, tool: str | None = None,
             on_progress: Callable[[float, float | None, str | None], None] | None = None,
             timeout: float | None = None) -> Outcome:
        """Run argv (`--json` included) in a call process; its Outcome. Blocks while
        `max_calls` others run. `tool`: the tool name, so a result over `max_result_bytes`
        is refused where it is made (`toolcall.too_large`) rather than sent whole."""
        timeout = self.timeout if timeout is None else timeout
        if self._ending:
            return self._ended()
        with self._slots:
            if self._ending:
                return self._ended()
            try:
                pid, sock = self._spare(timeout)
            except TimeoutError:
                return self._outcome(_envelope.failure(
                    "unavailable", f"no call process was ready within {timeout:g} s (the "
                    "server's fork server is stopped or the machine is overloaded); nothing ran",
                    exit=_envelope.EXIT_UNAVAILABLE, effects="none",
                    hint="retry the call; if it keeps happening, restart the server"))
            except OSError as error:
                return self._outcome(_envelope.failure(
                    "unavailable", f"the server cannot start a call process ({error})",
                    exit=_envelope.EXIT_UNAVAILABLE, effects="none",
                    hint="the server's fork server is gone; restart the server"))
            ticket = TICKET.get()
            with self._lock:
                self._running.add(pid)
                if ticket is not None:
                    ticket.pid = pid
                    if ticket.cancelled:   # cancelled while it waited for a place
                        self._signal(b"C", pid)
            try:
                request = {"argv": list(argv), "tool": tool,
                           "progress": on_progress is not None, "limit": self.max_result_bytes}
                try:
                    sock.sendall((json.dumps(request) + "\n").encode("utf-8", "surrogatepass"))
                except OSError:
                    pass   # the call process is gone already: its status says how
                return self._answer(pid, sock, on_progress, timeout)
            finally:
                sock.close()
                with self._lock:
                    self._running.discard(pid)

    def _spare(self, wait: float) -> tuple:
        """(pid, socket) of a warm call process the fork server made ready, taken for a call;
        the fork server is told, so it makes the next one while this call runs. TimeoutError
        when none is ready within `wait` seconds (a stopped fork server never hangs a call)."""
        deadline = time.monotonic() + wait
        with self._take:
            if not _readable(self._control, deadline - time.monotonic()):
                raise TimeoutError
            message, fds, _flags, _address = socket.recv_fds(self._control, 64, 1)
            if not message or not fds or message[:1] != b"S":
                for fd in fds:
                    os.close(fd)
                raise OSError("the fork server ended")
            self._control.send(b"T" + message[1:])
        return int(message[1:]), socket.socket(fileno=fds[0])

    def _answer(self, pid, ours, on_progress, timeout) -> Outcome:
        """Read the call's lines until its outcome (or its status: it died first); kill it
        past `timeout` seconds."""
        deadline = time.monotonic() + timeout
        buffer, scanned = bytearray(), 0
        killed = None   # "timeout" once this side killed it
        while True:
            end = buffer.find(b"\n", scanned)
            if end < 0:
                scanned = len(buffer)
                left = deadline - time.monotonic()
                if left <= 0:
                    if killed is not None:
                        return self._status_outcome(None, killed, timeout)
                    killed = "timeout"
                    self._kill(pid)
                    deadline = time.monotonic() + _REAPED_WAIT
                    continue
                if not _readable(ours, left):
                    continue
                chunk = ours.recv(1 << 16)
                if not chunk:
                    return self._status_outcome(None, killed, timeout)
                buffer += chunk
                continue
            message = json.loads(bytes(buffer[:end]))
            del buffer[:end + 1]
            scanned = 0
            if "progress" in message:
                if on_progress is not None and killed is None:
                    try:
                        on_progress(*message["progress"])
                    except Exception:  # noqa: BLE001 - progress is advisory
                        pass
            elif "outcome" in message:
                if killed is not None:     # answered as it was being killed
                    return self._status_outcome(None, killed, timeout)
                return Outcome(*message["outcome"])
            elif "status" in message:
                return self._status_outcome(message["status"], killed, timeout)

    def _status_outcome(self, status, killed, timeout) -> Outcome:
        """The Outcome of a call process that ended without answering."""
        if self._ending:
            return self._ended()
        if killed == "timeout":
            return self._outcome(_envelope.timed_out(timeout))
        return self._outcome(_envelope.failure(
            "internal", f"the call's process ended before answering ({_ended_how(status)})",
            exit=_envelope.EXIT_FAILURE, effects=_envelope.EFFECTS_UNKNOWN,
            hint="the handler ended its own process (os._exit), crashed, or was killed (by "
                 "the system when out of memory); the server keeps serving. Run the command "
                 "on the command line to see more"))

    def _ended(self) -> Outcome:
        return self._outcome(_envelope.terminated(self._ending))

    def _outcome(self, doc) -> Outcome:
        doc = _envelope.stamp(doc, self.program.schema_version)
        return Outcome(_envelope.exit_code(doc), _envelope.encode(doc) + "\n", "", doc)

    def _kill(self, pid) -> None:
        self._signal(b"K", pid)

    def _signal(self, kind: bytes, pid: int) -> None:
        try:
            self._control.send(kind + b"%d" % pid)
        except OSError:
            pass

    def cancel(self, ticket: Ticket) -> None:
        """End the call of `ticket` (its client cancelled it or went away): SIGTERM to its
        process group, SIGKILL `CANCEL_GRACE` seconds later if it is still running; a call
        still waiting for a place is ended as soon as it gets one. Any thread."""
        with self._lock:
            ticket.cancelled = True
            if ticket.pid is not None and ticket.pid in self._running:
                self._signal(b"C", ticket.pid)

    # --- the end -------------------------------------------------------------------------

    @property
    def running(self) -> int:
        """Calls whose process may still be running."""
        with self._lock:
            return len(self._running)

    def end_calls(self, why: str = "the server is stopping") -> None:
        """Refuse new calls and kill the running ones; both answer `terminated` (exit 143)."""
        self._ending = why
        try:
            self._control.send(b"A")
        except OSError:
            pass

    def close(self) -> None:
        """End the fork server and every call process still running."""
        if not self.closed:
            self.closed = True
            self._ending = self._ending or "the server stopped"
            _close(self._control, self.pid)


def _close(control, pid) -> None:
    try:
        control.close()
    except OSError:
        pass
    try:   # it kills its calls and exits on the closed socket; reap it
        for _ in range(200):
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, OSError):
        pass


def _readable(sock, seconds: float) -> bool:
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return bool(poller.poll(max(0.0, seconds) * 1000))


def _ended_how(status) -> str:
    if status is None:
        return "no status"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}" + (", as the system does when out of memory"
                                      if number == signal.SIGKILL else "")
    return f"exit {os.waitstatus_to_exitcode(status)}"


def _flush_std() -> None:
    import sys
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass


def _prepare(program) -> None:
    """Build, once and before any fork, what every call reads: the program-wide tables of
    redaction and the tool index, and the modules a call imports (a call process is a
    fresh fork each time; what it imports or builds is thrown away with it)."""
    from workbench.runtime import capture, context, redact, toolcall  # noqa: F401
    global _WARM_UP
    _WARM_UP = _warm_up_program()
    from workbench.runtime.pipeline import call
    call(_WARM_UP, ["noop", "--json"], environ={})   # its checks and tables, once
    call(program, ["--version", "--json"], environ={})   # what `_warm_up` imports, once
    redact._spellings(program)
    redact._sensitive_options(program)
    program.tool("")
    import io  # noqa: F401 - capture's streams
    global _PRCTL
    try:   # every call process's `_die_with`: loading libc's symbols is 0.4 ms a call
        import ctypes
        _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        _PRCTL = None


# --- the fork server ------------------------------------------------------------------------

def _serve(program, control: socket.socket, environ: dict) -> None:
    """The fork server's loop; never returns. See the module docstring."""
    code = 0
    try:
        os.environ.clear()
        os.environ.update(environ)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)    # never the stdio client's requests nor its wire
        os.dup2(null, 1)
        os.close(null)
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):   # the server decides when to stop
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        import gc
        gc.collect()
        gc.freeze()   # a call's collections never walk (and so never copy) the program
        _loop(program, control, wake_read, wake_write)
    except BaseException:  # noqa: BLE001 - say why on stderr, then go
        code = 70
        try:
            import traceback
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _loop(program, control, wake_read, wake_write) -> None:
    _Forker(program, control, wake_read, wake_write).run()


class _Forker:
    """The fork server's state. It keeps `SPARES` call processes forked ahead and warmed up
    (`_spare`), each with its socket handed to the server (`S<pid>` and the fd); the server
    writes a request on one and tells the fork server it took it (`T<pid>`), which forks the
    next one once no call runs (`_replace`). So neither the fork nor the first touch of the
    pages a call uses is on the call's path, and the fork server is not on it at all.
    `K<pid>` kills a call's process group, `C<pid>` cancels a call (SIGTERM to its group,
    SIGKILL after `CANCEL_GRACE` seconds), `A` kills every call's; the end of the control
    socket ends them all."""

    def __init__(self, program, control, wake_read, wake_write):
        self.program, self.control = program, control
        self.wake_read, self.wake_write = wake_read, wake_write
        self.children: dict = {}   # pid -> the fork server's copy of its socket
        self.busy: set = set()     # pids given a call
        self.doomed: dict = {}     # pid -> when a cancelled call's group gets SIGKILL
        self.owed = 0              # spares taken and not yet replaced (`_replace`)

    def run(self) -> None:
        poller = select.poll()
        poller.register(self.control.fileno(), select.POLLIN)
        poller.register(self.wake_read, select.POLLIN)
        for _ in range(SPARES):
            self._fork_spare()
        open_control = True
        while open_control or self.busy:
            for fd, _ in poller.poll(self._wait_ms(open_control)):
                if fd == self.wake_read:
                    try:
                        os.read(self.wake_read, 4096)
                    except BlockingIOError:
                        pass
                elif fd == self.control.fileno() and not self._message():
                    open_control = False   # the server is gone: so are its calls
                    poller.unregister(self.control.fileno())
                    for pid in list(self.children):
                        _kill_group(pid)
            self._reap()
            self._kill_doomed()
            if open_control:
                self._replace()

    def _wait_ms(self, open_control: bool):
        """How long to wait for the next message: until the next cancelled call's SIGKILL."""
        wait = None if open_control else 1000
        if self.doomed:
            soonest = max(0, int((min(self.doomed.values()) - time.monotonic()) * 1000) + 1)
            wait = soonest if wait is None else min(wait, soonest)
        return wait

    def _kill_doomed(self) -> None:
        now = time.monotonic()
        for pid, when in list(self.doomed.items()):
            if pid not in self.busy:
                del self.doomed[pid]
            elif when <= now:
                del self.doomed[pid]
                _kill_group(pid)

    def _message(self) -> bool:
        """Handle one message from the server; False at its end."""
        try:
            message = self.control.recv(64)
        except OSError:
            return False
        if not message:
            return False
        kind, ident = message[:1], message[1:]
        pid = int(ident) if ident.isdigit() else 0
        if kind == b"T" and pid:
            if pid in self.children:
                self.busy.add(pid)
            # one new spare for each taken, even one whose call has ended and been reaped
            # before this message was read (a loaded machine): else the spares dwindle to
            # none and the next call waits for one for ever
            self.owed += 1
        elif kind == b"K" and pid in self.busy:
            _kill_group(pid)
        elif kind == b"C" and pid in self.busy and pid not in self.doomed:
            _kill_group(pid, signal.SIGTERM)
            self.doomed[pid] = time.monotonic() + CANCEL_GRACE
        elif kind == b"A":
            for busy in self.busy:
                _kill_group(busy)
        return True

    def _replace(self) -> None:
        """Fork the spares owed for taken ones once no call runs, or at once when none is
        left: a fork and a spare's warm-up take the CPU a running call needs (on 2 cores
        under load they made every call 2-8 times slower), so they wait for it."""
        while self.owed and (not self.busy or len(self.children) <= len(self.busy)):
            self.owed -= 1
            self._fork_spare()

    def _fork_spare(self) -> None:
        """Fork a call process and hand the server its socket."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        inherited = [self.control.fileno(), self.wake_read, self.wake_write, ours.fileno(),
                     *self.children.values()]
        me = os.getpid()
        pid = os.fork()
        if pid == 0:
            _spare(self.program, theirs.fileno(), inherited, me)
        try:
            os.setpgid(pid, pid)   # as the child does: a kill cannot come first
        except OSError:
            pass
        self.children[pid] = theirs.detach()   # to write its status once it is reaped
        try:
            socket.send_fds(self.control, [b"S%d" % pid], [ours.fileno()])
        except OSError:
            _kill_group(pid)
        ours.close()

    def _reap(self) -> None:
        """Collect every ended call process: kill what it left in its group, then write its
        wait status on its socket (the server reads it when no outcome came first)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            sock = self.children.pop(pid, None)
            self.busy.discard(pid)
            if sock is None:
                continue
            _kill_group(pid)
            try:   # never blocking: a caller that stopped reading must not stall every call
                os.set_blocking(sock, False)
                os.write(sock, b'{"status":%d}\n' % status)
            except OSError:
                pass
            os.close(sock)


def _kill_group(pid: int, signum=signal.SIGKILL) -> None:
    try:
        os.killpg(pid, signum)
    except OSError:
        pass


# --- a call process --------------------------------------------------------------------------

def _spare(program, channel_fd: int, inherited: list, fork_server: int) -> None:
    """A call process: set up, warm up, wait for the request on its socket, run the call and
    `os._exit`; never returns."""
    code = 0
    try:
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        _die_with(fork_server)
        for fd in inherited:
            try:
                os.close(fd)
            except OSError:
                pass
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        from workbench.runtime.pipeline import on_terminate
        on_terminate()        # SIGTERM ends the handler with a `terminated` envelope
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 2)      # outside the capture a handler's writes go nowhere
        os.close(null)
        _adjust_oom_score()
        channel = socket.socket(fileno=channel_fd)
        _warm_up(program, channel)
        _call(program, channel)
    except BaseException:  # noqa: BLE001 - the server answers `internal` from the status
        code = 70
    finally:
        os._exit(code)


def _warm_up(program, channel: socket.socket) -> None:
    """Touch, before the call comes, the pages every call touches (the first write to a page
    after a fork copies it, and Python writes to every object it uses): the whole pipeline
    on a no-op command of a program of our own (parse, capture, handler, envelope, the
    encoder), and the served program's root on `--version --json`. Nothing of the served
    program's runs. A call that comes meanwhile stops it between steps (each ~0.5 ms)."""
    from workbench.runtime.pipeline import call
    try:
        call(_WARM_UP, ["noop", "--json"], environ={})   # type: ignore[arg-type]  # set by _prepare
        if _readable(channel, 0):
            return
        call(program, ["--version", "--json"], environ={})
        json.loads(json.dumps({"outcome": [0, "", "", {"ok": True}]}))
    except Exception:  # noqa: BLE001 - a warm-up that fails only costs time
        pass


def _warm_up_program():
    from workbench.declaration.model import Command, Program
    return Program(name="warm-up", version="0", description="warms a call process up",
                   commands=[Command(name="noop", description="nothing", effects="read_only",
                                     run=lambda ctx: {"ok": True})])


def _call(program, channel: socket.socket) -> None:
    """Read the request, run it, send progress and the outcome."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = channel.recv(1 << 16)
        if not chunk:
            return
        data += chunk
    request = json.loads(data)
    lock = threading.Lock()

    def send(message, *, last: bool = False) -> None:
        data = (json.dumps(message) + "\n").encode("utf-8", "surrogatepass")
        with lock:
            if last:   # the outcome's end (what wakes the server) after `_step_aside`
                head, data = ((data[:-1], data[-1:]) if len(data) > _LAST_BYTES
                              else (b"", data))
                channel.sendall(head)
                _step_aside()
            channel.sendall(data)

    def on_progress(done, total=None, message=None) -> None:
        send({"progress": [done, total, message]})

    from workbench.runtime.pipeline import call
    outcome = call(program, request["argv"],
                   on_progress=on_progress if request.get("progress") else None)
    outcome = _within_limit(program, request, outcome)
    send({"outcome": [outcome.exit, outcome.stdout, outcome.stderr, outcome.envelope]},
         last=True)


def _step_aside() -> None:
    """Run the rest of this call process (its `os._exit`: unmapping its memory takes about
    0.5 ms) only on a CPU nothing else wants. The server's thread woken by the outcome often
    lands on this process's CPU; at the same priority it waited for the exit, which was
    half of a warm call's latency (docs/decisions.md, 2026-12-06, "Performance, round 9")."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):   # not Linux
        try:
            os.nice(19)
        except OSError:
            pass


def _within_limit(program, request, outcome) -> Outcome:
    """A result over the server's limit refused here (`result_too_large`), never sent whole."""
    limit, tool = request.get("limit"), request.get("tool")
    command = program.tool(tool) if limit and tool else None
    if command is None:
        return outcome
    from workbench.runtime.toolcall import too_large
    refusal = too_large(program, command, outcome, limit)
    if refusal is None:
        return outcome
    return Outcome(_envelope.exit_code(refusal), _envelope.encode(refusal) + "\n", "", refusal)


def _die_with(fork_server: int) -> None:
    """Linux: SIGKILL this call process when the fork server ends. A call process has a
    process group of its own, so a kill of the server's group (a client ending the server
    with SIGKILL) would otherwise leave a hanging call running, an orphan, for good."""
    if _PRCTL is None:
        return
    _PRCTL(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != fork_server:   # it ended before the line above
        os._exit(70)


def _adjust_oom_score() -> None:
    """Make the system's out-of-memory killer pick a call before the server (Linux)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("500")
    except OSError:
        pass
