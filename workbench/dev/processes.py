"""The workbench's subprocesses: their environment, their command line, their time limit.

Every process the workbench starts goes through here: load checks (`loader`), environment
runs (`environments`), example diffs and their batch workers (`diffs`, `pool`), and the dev
MCP server's tool calls (`server`). Each runs in a session of its own, so a time limit kills
the whole process group (a handler's children too).

- `child_environ()`: our environment, with the workbench importable, no bytecode written and
  no bearer token;
- `environ_for(environment)`: that of one simulated environment (`ENVIRONMENTS`); `mcp` is
  what the dev server's tool calls and the CLI side of a diff run with (an agent's);
- `worker_command(served, argv)`: `python -m workbench.dev._worker run ...` for the last good
  program;
- `run_limited(args, timeout=...)`: `subprocess.run` with the group killed past the limit.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from workbench.dev.records import Served
from workbench.runtime.context import AGENT_MARKERS, mcp_call_environ
from workbench.runtime.serving import handler_environ
from workbench.surfaces.output import VALIDATE_VARIABLE

ENVIRONMENTS: tuple[str, ...] = ("terminal", "piped", "agent:claude-code", "agent:cursor",
                                 "agent:codex", "agent:gemini", "ci", "mcp")
"""Every simulated environment, in the order the Environments pane shows them."""

AGENT_ENVIRONMENT: dict[str, dict[str, str]] = {
    "agent:claude-code": {"CLAUDECODE": "1"},
    "agent:cursor": {"CURSOR_AGENT": "1"},
    "agent:codex": {"CODEX_THREAD_ID": "burgee-dev"},
    "agent:gemini": {"GEMINI_CLI": "1"},
}

_CLEARED = AGENT_MARKERS + ("CI", "FORCE_TTY", "NO_COLOR", "PYTEST_CURRENT_TEST")

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def child_environ(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for workbench subprocesses: ours, with the workbench importable, and
    without the dev server's bearer token (`serving.handler_environ`: no handler reads it)."""
    env = handler_environ(os.environ)
    paths = [_ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                       if p and p != _ROOT]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env


def environ_for(environment: str) -> dict[str, str]:
    """The environment variables a run under `environment` gets."""
    env = child_environ()
    for name in _CLEARED:
        env.pop(name, None)
    env["COLUMNS"], env["LINES"] = "100", "30"
    # The workbench always checks output against the declared schema (a CLI that honours it
    # refuses with invalid_output, as the MCP server does).
    env[VALIDATE_VARIABLE] = "1"
    if environment == "terminal":
        env["TERM"] = "xterm-256color"
    env.update(AGENT_ENVIRONMENT.get(environment, {}))
    if environment == "ci":
        env["CI"] = "1"
    return mcp_call_environ(env) if environment == "mcp" else env


def worker_command(served: Served, argv: Sequence[str], *,
                   close_stdin: bool = False) -> list[str]:
    """The command line of one CLI run of the served program (`workbench.dev._worker run`)."""
    command = [sys.executable, "-B", "-m", "workbench.dev._worker", "run", "--file", served.file]
    if served.source_file:
        command += ["--source", served.source_file]
    if served.program_name:
        command += ["--program", served.program_name]
    if close_stdin:
        command.append("--close-stdin")
    return command + ["--", *argv]


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL the process group `proc` leads (it runs in a session of its own)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


def kill_session(sid: int) -> None:
    """SIGKILL every process whose session is `sid` (a run's children too), then the group."""
    try:
        names = os.listdir("/proc")
    except OSError:
        names = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            if int(fields[3]) == sid:      # fields after the name: state ppid pgrp session
                os.kill(int(name), signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            pass
    try:
        os.killpg(sid, signal.SIGKILL)
    except OSError:
        pass


def reap(proc: subprocess.Popen[Any]) -> None:
    """Wait for a killed process in a thread of its own, off the caller's path."""
    def wait() -> None:
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:   # left to subprocess's own reaping of dropped ones
            pass
    threading.Thread(target=wait, name="burgee-reap", daemon=True).start()


def _communicate(proc: subprocess.Popen[str], input: str | None,
                 timeout: float) -> subprocess.CompletedProcess[str]:
    """`proc.communicate(input)` within `timeout`; past it the process group is killed (its
    children too) and TimeoutExpired raised."""
    with proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            try:
                out, err = proc.communicate(timeout=2)
            except subprocess.TimeoutExpired:
                out, err = "", ""
            raise subprocess.TimeoutExpired(proc.args, timeout, out, err) from None
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


class Tracker(Protocol):
    """Hears of each process group a run starts and ends (a sandbox, which can kill them)."""

    def started(self, group: int) -> None: ...

    def ended(self, group: int) -> None: ...


def run_limited(args: Sequence[str], *, input: str | None = None, timeout: float,
                stdin: int | None = None, on_line: Callable[[str], None] | None = None,
                tracker: Tracker | None = None,
                **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(..., capture_output=True, text=True)` in its own session; on timeout
    the whole process group is killed (a handler's children too) and TimeoutExpired raised.
    `on_line(line)` hears each stdout line as it arrives (the output is still returned);
    `tracker` hears of the process group while it runs (so a cancel can kill it)."""
    kwargs.setdefault("start_new_session", True)
    if on_line is not None or input is not None:
        stdin = subprocess.PIPE
    proc = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)
    if tracker is not None:
        tracker.started(proc.pid)
    try:
        if on_line is not None:   # each line on the calling thread: the MCP server's worker
            return _stream(proc, args, input, timeout, on_line)   # (progress needs it)
        return _communicate(proc, input, timeout)
    finally:
        if tracker is not None:
            tracker.ended(proc.pid)


def _stream(proc: subprocess.Popen[str], args: Sequence[str], input: str | None,
            timeout: float, on_line: Callable[[str], None]) -> subprocess.CompletedProcess[str]:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout, proc.stderr
    lines: queue.Queue[str | None] = queue.Queue()
    out_lines: list[str] = []
    err_parts: list[str] = []

    def read_out() -> None:
        for line in stdout:
            lines.put(line)
        lines.put(None)

    readers = [threading.Thread(target=read_out, daemon=True),
               threading.Thread(target=lambda: err_parts.append(stderr.read()), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        if input:
            proc.stdin.write(input)
        proc.stdin.close()
    except OSError:
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
        kill_group(proc)
        proc.wait()
        for reader in readers:
            reader.join(timeout=2)
        raise subprocess.TimeoutExpired(args, timeout, "".join(out_lines),
                                        "".join(err_parts)) from None
    for reader in readers:
        reader.join(timeout=5)
    return subprocess.CompletedProcess(args, proc.returncode, "".join(out_lines),
                                       "".join(err_parts))
