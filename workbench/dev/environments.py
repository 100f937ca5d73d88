"""Simulated environments: the same call as a terminal, a pipe, an agent, CI, or an MCP client.

Each run is a real subprocess of the program being served (its last good source), with a
time limit, so a handler that hangs or crashes never freezes the workbench.

- terminal: stdin and stdout on a real pseudo-terminal (stderr on a pipe, so the columns stay
  apart); no agent variables; a run that goes quiet waiting for input is stopped and says so.
- piped: stdin, stdout and stderr are pipes; no agent variables.
- agent:claude-code / agent:cursor / agent:codex / agent:gemini: piped, with that agent's
  variable set (CLAUDECODE=1, CURSOR_AGENT=1, CODEX_THREAD_ID=..., GEMINI_CLI=1).
- ci: piped, CI=1, standard input closed.
- mcp: a tools/call through the dev server (the same path a connected client takes).

Every run gets its own throwaway sandbox (`workbench.dev.sandbox`: HOME, XDG folders, TMPDIR,
BURGEE_STATE_DIR), so it works on an empty scratch copy of whatever the program keeps under
the user's folders. Effects decide how a run goes (`plan_runs`): a `read_only` command runs
in every environment at once; anything else (`idempotent`, `non_idempotent`, `undeclared`)
runs only when a person asked (the dashboard confirms first, naming the effect), then once per
environment, one after another; a command with a `plan` runs as `--dry-run` unless the person
asked for the real thing.

Runs take a `Served` (what the last good load left for subprocesses) and, for the mcp
environment, the `DevServer` whose tools/call they go through; never the workbench itself.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from workbench.dev.inputs import arguments_from_argv, argv_from_arguments, resolve_command
from workbench.dev.inputs import target_command, writes
from workbench.dev.processes import ENVIRONMENTS, environ_for, kill_group, run_limited
from workbench.dev.processes import worker_command
from workbench.dev.records import RunResult, Served
from workbench.dev.sandbox import Sandbox
from workbench.dev.server import DevServer
from workbench.runtime.envelope import exit_code

__all__ = ["ENVIRONMENTS", "DEFAULT_TIMEOUT", "run_one", "run_all", "arun_all"]

DEFAULT_TIMEOUT = 10.0
TERMINAL_IDLE = 2.0
"""Seconds of silence after which a terminal run that printed something counts as waiting."""


def run_one(served: Served | None, server: DevServer, environment: str,
            argv: Sequence[str] | None, *, arguments: dict[str, Any] | None = None,
            command: str | None = None, stdin: str | None = None,
            timeout: float = DEFAULT_TIMEOUT, since: int | None = None) -> RunResult:
    """One input under one environment, in a sandbox of its own (`cancel_all` kills it).
    `since`: `cancels()` when its batch began; a batch cancelled before this run began (it
    waited for a thread) has its processes killed as they start."""
    with Sandbox() as box:
        with _LIVE_LOCK:
            _LIVE.add(box)
            cancelled = since is not None and since != _CANCELS[0]
        if cancelled:
            box.kill()
        try:
            return _run_one(served, server, environment, argv, box, arguments=arguments,
                            command=command, stdin=stdin, timeout=timeout)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(box)


_LIVE: set[Sandbox] = set()
"""The sandboxes of the environment runs in progress in this process."""
_LIVE_LOCK = threading.Lock()
_CANCELS = [0]
"""How many times `cancel_all` ran (a batch that began before the last one is cancelled)."""


def cancels() -> int:
    """How many times `cancel_all` has run: a batch's `since`."""
    return _CANCELS[0]


def cancel_all() -> int:
    """Kill the processes of every environment run in progress (each run then ends at once,
    its result discarded by whoever cancelled it), and of any run of a batch begun before
    this that has yet to start; how many process groups were running."""
    with _LIVE_LOCK:
        _CANCELS[0] += 1
        boxes = list(_LIVE)
    return sum(box.kill() for box in boxes)


def _run_one(served: Served | None, server: DevServer, environment: str,
             argv: Sequence[str] | None, box: Sandbox, *, arguments: dict[str, Any] | None,
             command: str | None, stdin: str | None, timeout: float) -> RunResult:
    if served is None:
        return RunResult(environment, tuple(argv or ()), None, "", "", 0.0,
                         error="no program is loaded")
    try:
        if argv is None:
            target = resolve_command(served.program, command)
            argv = argv_from_arguments(target, arguments or {})
    except Exception as exc:  # noqa: BLE001
        return RunResult(environment, (), None, "", "", 0.0, error=str(exc))
    argv = tuple(argv)
    if environment == "mcp":
        return _run_mcp(served, server, argv, arguments, command, timeout, box)
    if environment == "terminal":
        return _run_pty(served, argv, stdin, timeout, box)
    close_stdin = environment == "ci"
    env = box.environ(environ_for(environment))
    started = time.perf_counter()
    try:
        done = run_limited(worker_command(served, argv, close_stdin=close_stdin),
                           input=None if close_stdin else (stdin or ""),
                           stdin=subprocess.DEVNULL if close_stdin else None,
                           timeout=timeout, env=env, cwd=served.target.folder, tracker=box)
    except subprocess.TimeoutExpired as exc:
        return RunResult(environment, argv, None, _text(exc.stdout), _text(exc.stderr),
                         time.perf_counter() - started, timed_out=True,
                         error=f"stopped after {timeout:g} s")
    return RunResult(environment, argv, done.returncode, done.stdout, done.stderr,
                     time.perf_counter() - started)


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _readable(fds: Sequence[int], timeout: float) -> list[int]:
    """Those of `fds` with something to read (or closed) within `timeout` seconds; poll(),
    not select(), which cannot watch an fd past 1024 (a busy workbench gets there)."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return [fd for fd, _event in poller.poll(timeout * 1000)]


def _run_pty(served: Served, argv: tuple[str, ...], stdin: str | None, timeout: float,
             box: Sandbox) -> RunResult:
    master, slave = pty.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    except OSError:
        pass
    started = time.perf_counter()
    proc = subprocess.Popen(worker_command(served, argv), stdin=slave, stdout=slave,
                            stderr=subprocess.PIPE, env=box.environ(environ_for("terminal")),
                            cwd=served.target.folder, start_new_session=True,
                            close_fds=True)
    box.started(proc.pid)
    assert proc.stderr is not None
    os.close(slave)
    out, err = bytearray(), bytearray()
    reason: str | None = None
    code: int | None = None
    try:
        reason = _read_pty(proc, master, stdin, started + timeout, timeout, out, err)
        if reason is not None:
            kill_group(proc)
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
    except BaseException:   # never a run left behind nor a descriptor open
        kill_group(proc)
        raise
    finally:
        box.ended(proc.pid)
        os.close(master)
        proc.stderr.close()
    timed_out = reason is not None
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    return RunResult("terminal", argv, None if timed_out else code, text,
                     err.decode("utf-8", "replace"), time.perf_counter() - started,
                     timed_out=timed_out, error=reason)


def _read_pty(proc: subprocess.Popen, master: int, stdin: str | None, deadline: float,
              timeout: float, out: bytearray, err: bytearray) -> str | None:
    """Read a terminal run's screen and stderr until it ends; why it was stopped, if it was."""
    assert proc.stderr is not None
    if stdin:
        os.write(master, stdin.encode("utf-8"))
    last_output: float | None = None
    streams = {master: out, proc.stderr.fileno(): err}
    while streams:
        now = time.perf_counter()
        if now >= deadline:
            return f"stopped after {timeout:g} s"
        if (last_output is not None and proc.poll() is None and not stdin
                and now - last_output > TERMINAL_IDLE):
            return "waiting for input (a prompt nobody answered); stopped"
        ready = _readable(list(streams), 0.05)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                del streams[fd]
                continue
            streams[fd].extend(chunk)
            last_output = time.perf_counter()
        if not ready and proc.poll() is not None and master in streams:
            # The child exited; drain what is left without blocking.
            try:
                while True:
                    if not _readable([master], 0):
                        break
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    out.extend(chunk)
            except OSError:
                pass
            streams.pop(master, None)
    return None


def _run_mcp(served: Served, server: DevServer, argv: tuple[str, ...],
             arguments: dict[str, Any] | None, command: str | None, timeout: float,
             box: Sandbox) -> RunResult:
    started = time.perf_counter()
    program = served.program
    try:
        if arguments is None or command is None:
            target, arguments = arguments_from_argv(program, list(argv))
        else:
            target = resolve_command(program, command)
    except Exception as exc:  # noqa: BLE001 - a refusal: show it as the mcp result
        return RunResult("mcp", argv, None, "", "", time.perf_counter() - started,
                         error=f"cannot express this call as MCP arguments: {exc}")
    try:
        result = server.call_tool_sync(target.tool_name, arguments, timeout=timeout + 5,
                                             sandbox=box)
    except Exception as exc:  # noqa: BLE001
        return RunResult("mcp", argv, None, "", "", time.perf_counter() - started,
                         error=f"{type(exc).__name__}: {exc}", arguments=arguments)
    text = result["text"]
    code = 1 if result["is_error"] else 0
    try:   # the envelope says which exit code the CLI would have given
        code = exit_code(json.loads(text))
    except (ValueError, KeyError, TypeError):
        pass
    return RunResult("mcp", argv, code, text, "", time.perf_counter() - started,
                     arguments=arguments)


def run_all(served: Served | None, server: DevServer, *, argv: Sequence[str] | None = None,
            arguments: dict[str, Any] | None = None, command: str | None = None,
            environments: Sequence[str] | None = None, stdin: str | None = None,
            timeout: float = DEFAULT_TIMEOUT,
            on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Every environment; results in the order asked.

    A read-only command runs in every environment at once (parallel threads); any other
    runs once per environment, one after another, so a write never races another.
    """
    names = list(environments or ENVIRONMENTS)
    sequential = writes(target_command(served.program if served else None, argv, command))
    since = cancels()

    def one(name: str) -> RunResult:
        return run_one(served, server, name, argv, arguments=arguments, command=command,
                       stdin=stdin, timeout=timeout, since=since)

    results: list[RunResult] = []
    if sequential:
        for name in names:
            results.append(one(name))
            if on_result is not None:
                on_result(results[-1])
        return results
    with ThreadPoolExecutor(max_workers=min(8, len(names))) as pool:
        futures = [pool.submit(one, name) for name in names]
        for future in futures:
            result = future.result()
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


async def arun_all(served: Served | None, server: DevServer, *,
                   argv: Sequence[str] | None = None, arguments: dict[str, Any] | None = None,
                   command: str | None = None, environments: Sequence[str] | None = None,
                   stdin: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                   on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """`run_all` off the event loop; `on_result(result)` hears each one as it arrives."""
    loop = asyncio.get_running_loop()
    names = list(environments or ENVIRONMENTS)
    since = cancels()

    async def one(name: str) -> RunResult:
        result = await loop.run_in_executor(None, lambda: run_one(
            served, server, name, argv, arguments=arguments, command=command, stdin=stdin,
            timeout=timeout, since=since))
        if on_result is not None:
            on_result(result)
        return result

    if writes(target_command(served.program if served else None, argv, command)):
        return [await one(name) for name in names]
    return list(await asyncio.gather(*(one(name) for name in names)))
