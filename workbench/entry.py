"""The process entry point: `run(program)` parses `sys.argv`, runs, prints and exits.

It sits above both transports: a command call runs the runtime's pipeline, and `tool mcp`
is handed to the MCP transport (imported only then).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:   # typing costs start-up time; only checkers read it
    from typing import NoReturn

    from workbench.declaration.model import Program
    from workbench.typed import App

from workbench.runtime import envelope as _envelope
from workbench.runtime.pipeline import World, execute, on_terminate


def run(program: Program | App, argv: list[str] | None = None) -> NoReturn:
    """Parse `argv` (default `sys.argv[1:]`), run, print, and exit with the contract's code.

        if __name__ == "__main__":
            run(program)

    It never returns: it raises `SystemExit` with the exit code. `tool mcp` serves the
    program over MCP (with the `mcp` extra installed).

    Args:
        program: the `Program` (or typed `App`) to run.
        argv: the command line after the program name (default `sys.argv[1:]`).
    """
    if argv is None:
        argv = sys.argv[1:]
    _register_exit_freeze()
    as_program = getattr(program, "as_program", None)   # a typed App (workbench.typed)
    if as_program is not None:
        program = as_program()
    closed = [fd for fd in (1, 2) if not _is_open(fd)]
    for fd in closed:   # `>&-`: keep 1 and 2 taken, so no file the handler opens lands there
        _devnull_on(fd)
        name = "stdout" if fd == 1 else "stderr"
        if getattr(sys, name) is None:   # Python leaves a stream that started closed as None
            setattr(sys, name, open(fd, "w", encoding="utf-8", errors="backslashreplace",
                                    closefd=False))
    world = World(os.environ, sys.stdin, sys.stdout, sys.stderr,
                  stdin_tty=_isatty(sys.stdin), stdout_tty=_isatty(sys.stdout))
    world.stdout_closed = 1 in closed
    world.seal = True   # this process ends with this call (late writes of threads: nowhere)
    previous = on_terminate()   # SIGTERM: the `terminated` envelope, exit 143
    _freeze_start_up()
    try:
        code = execute(program, list(argv), world, serve=_serve_mcp)[0]
    finally:
        _thaw_start_up()
        if previous is not None:
            _restore_terminate(previous)
    if code == _envelope.EXIT_PIPE or not _flushed(sys.stdout):
        # Python would complain at exit flushing a closed pipe or a full disk
        try:
            _devnull_on(1)
        except OSError:
            pass
    if world.as_json or world.ndjson:   # the document is out: a thread the handler left
        from workbench.runtime.capture import seal_std, threads_left   # prints nothing more
        if threads_left():
            seal_std()
    if code == _envelope.EXIT_TERMINATED:
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """End a process stopped by SIGTERM now that it has said so: its exit hooks run (temporary
    folders removed, masked output flushed), but it does not wait for threads the handler
    left running, which may never end (a server, a watcher): SIGTERM must stop it."""
    import atexit
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        atexit._run_exitfuncs()
    finally:
        os._exit(code)


def _restore_terminate(previous) -> None:
    """Put back the SIGTERM handler `run` found (an embedder's process goes on)."""
    import _signal
    try:
        _signal.signal(_signal.SIGTERM, previous)
    except (ValueError, TypeError):
        pass


def _register_exit_freeze() -> None:
    """At interpreter exit, collect the young garbage, then freeze what is left (once).

    A declaration is one object graph with cycles (a command knows its program), so only
    the collector frees it, and Python's shutdown walks it and frees it object by object:
    30-45 ms at 5,000 commands, more than parsing and running the call. Freezing it at exit
    leaves it to the operating system. Garbage the call made (young, not yet collected) is
    collected first, so its finalizers (`__del__`) still run; the process is ending, so
    nothing frozen is needed again. Frozen at exit only, never earlier: a test or a server
    calling `run` keeps its collector as it was (docs/decisions.md)."""
    global _EXIT_REGISTERED
    if not _EXIT_REGISTERED:
        import atexit
        _EXIT_REGISTERED = True
        atexit.register(_freeze_at_exit)


_EXIT_REGISTERED = False


def _freeze_at_exit() -> None:
    import gc
    gc.collect(1)
    gc.freeze()


_START_UP_FROZEN = False


def _freeze_start_up() -> None:
    """While `run` runs, the collector leaves alone what existed before it (the imports, the
    declaration): `gc.freeze()`, undone by `_thaw_start_up` when `run` ends, however it ends.

    The exit hook's young collection then walks only what the call made (the garbage whose
    finalizers it must run), not every object the imports left young: ~0.3 ms of a small
    program's ~3 ms over a bare interpreter. A caller that calls `run` and goes on finds its
    freeze count as it was; what was young before the call is in the oldest generation
    after it (docs/decisions.md, 2026-12-06). Not when the collector is off or something is
    frozen already (a fork server's heap, a `run` inside a handler): that is someone else's."""
    global _START_UP_FROZEN
    import gc
    if gc.isenabled() and not gc.get_freeze_count():
        gc.freeze()
        _START_UP_FROZEN = True


def _thaw_start_up() -> None:
    global _START_UP_FROZEN
    if _START_UP_FROZEN:
        import gc
        _START_UP_FROZEN = False
        gc.unfreeze()


def _serve_mcp(program, address, policy=None) -> int:
    _thaw_start_up()   # a server runs for long: its collector sees the whole heap, as before
    from workbench.mcp import serve
    return serve(program, address, policy=policy)


def _flushed(stream) -> bool:
    """Whether `stream` took what it held (a full disk or a closed pipe did not)."""
    try:
        stream.flush()
    except (OSError, ValueError, AttributeError):
        return False
    return True


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _devnull_on(fd: int) -> None:
    null = os.open(os.devnull, os.O_WRONLY)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


def _isatty(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False
