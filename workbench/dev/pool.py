"""Long-lived workers for a batch of example runs: the program loaded once, each run forked.

A diff batch (every example, CLI `--json` and MCP side; `workbench.dev.diffs`) used to start
two fresh interpreters per example, each compiling and building the whole program. A `Pool`
instead starts at most `size` workers (`python -m workbench.dev._worker serve`), each of
which loads the last good source once, records the state of its sandbox right after the load,
and then answers run requests one at a time by forking:

- every run is a process of its own (its own memory, its own process group, killed with its
  children on timeout), started from the loaded program as a fresh interpreter would be;
- every run sees the worker's sandbox (`workbench.dev.sandbox`) restored to the state it had
  after the load, so no run sees another's writes and nothing reaches the user's folders,
  paths computed at import time included (they point into that sandbox).

`close()` (a reload, a new batch, `x`, or the end of the batch) kills every worker and every
process in their sessions: nothing of a cancelled batch keeps running. Later requests raise
`Cancelled`. `current()` is the pool of the batch making a call on this thread (a context
variable, as `sandbox.current()`), which is how the dev MCP server's tools/call of a diff
runs in the same pool.

A pool is made from a `Served` (the last good source and its module-level name), never from
the workbench itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

from workbench.dev.processes import environ_for, kill_session
from workbench.dev.records import Served
from workbench.dev.sandbox import Sandbox

READY_TIMEOUT = 120.0
"""Seconds a worker may take to load the program before the batch reports it."""

_CURRENT: contextvars.ContextVar[Pool | None] = contextvars.ContextVar("burgee_pool",
                                                                       default=None)
_IDS = itertools.count(1)


class Cancelled(Exception):
    """The batch was cancelled (a reload, a newer batch, or the person asked)."""


class _Worker:
    def __init__(self, pool: Pool) -> None:
        self.box = Sandbox(prefix="burgee-batch-")
        self.spare = tempfile.mkdtemp(prefix="burgee-batch-io-")
        command = [sys.executable, "-B", "-m", "workbench.dev._worker", "serve",
                   "--file", pool.file, "--scratch", self.box.root, "--spare", self.spare,
                   "--batch", pool.batch]
        if pool.source:
            command += ["--source", pool.source]
        if pool.name:
            command += ["--program", pool.name]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=pool.cwd,
                                     env=self.box.environ(environ_for("piped")),
                                     start_new_session=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self._buffer = b""
        with pool._lock:
            pool._starting.append(self)     # close() kills it while it loads, too
            cancelled = pool.cancelled
        try:
            if cancelled:
                raise Cancelled()
            ready = self.read(time.monotonic() + READY_TIMEOUT)
            if not ready.get("ready"):
                raise RuntimeError(ready.get("error") or "the batch worker did not start")
        except BaseException:
            self.kill()
            raise
        finally:
            with pool._lock:
                pool._starting.remove(self)

    def read(self, deadline: float) -> dict[str, Any]:
        """The next reply line; EOFError if the worker ended, TimeoutError past `deadline`."""
        fd = self.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the batch worker did not answer")
            poller = select.poll()    # not select(): fds may be numbered past 1024
            poller.register(fd, select.POLLIN)
            if poller.poll(left * 1000):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError(self._last_words())
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _last_words(self) -> str:
        try:
            self.proc.wait(2)
            assert self.proc.stderr is not None
            err = self.proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError, AssertionError, subprocess.TimeoutExpired):
            err = []
        return err[0] if err else f"the batch worker ended (exit {self.proc.returncode})"

    def kill(self) -> None:
        """Kill the worker and every process of its session (runs and their children)."""
        kill_session(self.proc.pid)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.box.close()
        shutil.rmtree(self.spare, ignore_errors=True)


class Pool:
    """Up to `size` long-lived workers running the served program; see the module."""

    file: str
    source: str | None
    name: str | None
    cwd: str
    size: int
    batch: str
    cancelled: bool

    def __init__(self, served: Served, size: int = 4) -> None:
        self.file, self.source, self.name = served.file, served.source_file, served.program_name
        self.cwd = os.path.dirname(served.file)
        self.size = size
        self.batch = f"{os.getpid()}-{next(_IDS)}"
        self.cancelled = False
        self.failed: str | None = None
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        self._workers: list[_Worker | None] = []   # None: a place taken by a worker starting
        self._starting: list[_Worker] = []         # workers still loading the program
        self._lock = threading.Lock()

    def run(self, request: dict[str, Any], timeout: float) -> subprocess.CompletedProcess[str]:
        """One run in a fresh fork of a worker: `request` is {"mode": "run" | "call", "argv",
        "environ", "stdin", ...}; TimeoutExpired if it did not finish in `timeout` seconds."""
        worker = self._take()
        try:
            os.write(worker.stdin.fileno(),
                     (json.dumps({**request, "timeout": timeout}) + "\n").encode("utf-8"))
            reply = worker.read(time.monotonic() + timeout + 10)
        except (OSError, EOFError, TimeoutError, ValueError) as exc:
            self._drop(worker)
            if self.cancelled:
                raise Cancelled() from None
            if isinstance(exc, TimeoutError):
                raise subprocess.TimeoutExpired(request.get("argv", []), timeout) from None
            raise RuntimeError(f"the batch worker failed: {exc}") from None
        self._idle.put(worker)
        if reply.get("timeout"):
            raise subprocess.TimeoutExpired(request.get("argv", []), timeout,
                                            reply.get("stdout"), reply.get("stderr"))
        return subprocess.CompletedProcess(request.get("argv", []), reply["exit"],
                                           reply["stdout"], reply["stderr"])

    def _take(self) -> _Worker:
        while True:
            if self.cancelled:
                raise Cancelled()
            with self._lock:
                spawn = self._idle.empty() and len(self._workers) < self.size
                if spawn:
                    self._workers.append(None)     # a place, taken before the slow start
            if spawn:
                break
            try:
                worker = self._idle.get(timeout=0.2)
            except queue.Empty:
                continue                           # a dropped worker may have freed a place
            if worker is None:
                self._idle.put(None)               # cancelled: wake the next waiter too
                raise Cancelled()
            return worker
        try:
            if self.failed:
                raise RuntimeError(self.failed)
            worker = _Worker(self)
        except BaseException as exc:
            with self._lock:
                self._workers.remove(None)
            if self.cancelled:
                raise Cancelled() from None
            self.failed = self.failed or str(exc)    # the next runs say so without retrying
            raise
        with self._lock:
            self._workers[self._workers.index(None)] = worker
            if self.cancelled:
                self._workers.remove(worker)
                worker.kill()
                raise Cancelled()
        return worker

    def _drop(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
        worker.kill()

    def close(self) -> None:
        """Kill every worker and what they run; later requests raise Cancelled."""
        with self._lock:
            self.cancelled = True
            workers = [worker for worker in self._workers if worker is not None]
            self._workers = [None for worker in self._workers if worker is None]
            starting = list(self._starting)
        for worker in starting:        # its start then fails and cleans up after itself
            kill_session(worker.proc.pid)
        for worker in workers:
            worker.kill()
        self._idle.put(None)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def current() -> Pool | None:
    """The pool of the batch making the call on this thread or task, or None."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(pool: Pool | None) -> Iterator[Pool | None]:
    """`with using(pool):` routes the dev server's subprocess calls through `pool`."""
    token = _CURRENT.set(pool)
    try:
        yield pool
    finally:
        _CURRENT.reset(token)
