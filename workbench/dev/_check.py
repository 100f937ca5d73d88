"""Subprocess side of the load check (`loader.load`): load the file sent on stdin, print its replies.

What a load needs is imported before stdin is read, so a process started ahead of time
(`loader.Checker`) waits with that work done. Replies are lines on stdout:
`{"burgee_code": CODE}` once the file compiled (its bytecode, marshal in base64, when the
request asks for it: the workbench decodes it while the file runs here); `{"burgee_ran":
true}` once the file ran and its Program was found, so the workbench can run the same
bytecode while the definition and its examples are checked here; then `{"burgee_check":
null | error}`, the verdict. A definition refused after the first reply is reported as a
plain run reports it: the file runs again, checked as it goes, and stops where the refusal
is raised.
"""

from __future__ import annotations

import base64
import gc
import json
import marshal
import os
import select
import struct
import sys
import threading
from types import CodeType
from typing import Any


def _reply(answer: dict[str, Any]) -> None:
    sys.stdout.flush()
    out = sys.__stdout__
    assert out is not None     # the workbench reads this process's stdout
    out.write("\n" + json.dumps(answer) + "\n")
    out.flush()


def main() -> None:
    gc.disable()     # a short life: collections would only slow the run the workbench waits on
    # What a load needs, imported here (not at the top) so the collector is already off; a
    # spare process does it while nothing waits.
    from workbench.declaration import _verdict
    from workbench.dev.loader import load_in_process
    from workbench.runtime import capture, checks  # noqa: F401
    _warm_heap(int(_option("--heap") or 0))
    ahead = _CompileAhead.start(_option("--ahead"))
    request = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
    sys.path.insert(0, os.path.dirname(request["file"]))
    file, source = request["file"], request["source"]
    code = ahead.take(file, source) if ahead is not None else None
    compiled_ahead = code is not None
    if code is None:
        try:
            code = compile(source, file, "exec", dont_inherit=True)
        except SyntaxError:
            pass       # load_in_process compiles again and reports it

    def ran(program: object) -> None:
        if request.get("code"):
            _reply({"burgee_ran": True})
        try:
            _verdict.check_deferred(code)
        except Exception as exc:  # noqa: BLE001 - a refusal, or a check that broke on odd
            raise _Refused from exc   # input: the plain run reports either as it would

    program_name = request.get("program")
    if code is not None and request.get("code"):
        _reply({"burgee_code": base64.b64encode(marshal.dumps(code)).decode("ascii"),
                "ahead": compiled_ahead})
        _verdict.defer_checks(code)
    try:
        loaded = load_in_process(file, source, program_name=program_name, code=code, ran=ran)
    except _Refused:
        loaded = None
    if loaded is None:   # run again, checked as it goes: the refusal where it is raised (and
        # outside the except block, or its traceback would carry this one's as its context)
        loaded = load_in_process(file, source, program_name=program_name, code=code)
        _reply({"burgee_check": loaded.error and loaded.error.to_dict(),
                "output": loaded.output})   # what a run stopped by the refusal printed
        return
    _reply({"burgee_check": None if loaded.error is None else loaded.error.to_dict()})


def _option(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


class _CompileAhead:
    """Compile the watched file as soon as a save lands in it, while the workbench's watcher
    waits out its quiet period and sends the request (Linux inotify: a blocking read, no
    polling). `take` hands over the code when the request's source is what was compiled."""

    _EVENTS = 0x8 | 0x80           # IN_CLOSE_WRITE (written in place), IN_MOVED_TO (renamed)

    @classmethod
    def start(cls, file: str | None) -> _CompileAhead | None:
        """A watcher of `file`, or None (no file given, or no inotify here)."""
        if not file or not sys.platform.startswith("linux"):
            return None
        try:
            return cls(file)
        except (OSError, AttributeError):
            return None

    def __init__(self, file: str) -> None:
        import ctypes   # libffi: only where inotify is used (Linux)
        self.file = file
        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0 or libc.inotify_add_watch(
                self._fd, os.fsencode(os.path.dirname(file)), self._EVENTS) < 0:
            raise OSError(ctypes.get_errno(), "inotify")
        self._wake_r, self._wake_w = os.pipe()
        self._compiled: tuple[str, CodeType | None] | None = None   # (source, code), latest
        self._thread = threading.Thread(target=self._watch, name="burgee-compile-ahead",
                                        daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while True:
            ready = dict(poller.poll())
            if self._saved():
                self._compile()
            if self._wake_r in ready:    # the request came: events already queued were
                return                   # handled above, so its save is compiled

    def _saved(self) -> bool:
        """Whether the events queued now include a save of the file."""
        name, saved = os.fsencode(os.path.basename(self.file)), False
        while True:
            try:
                events = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return saved
            saved = saved or name in _inotify_names(events)

    def _compile(self) -> None:
        try:     # read as `loader.load` reads it, so that equal means equal
            with open(self.file, encoding="utf-8") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError):
            return
        if self._compiled is not None and self._compiled[0] == source:
            return
        try:
            code = compile(source, self.file, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            code = None       # compiled again by the request, which reports it
        self._compiled = (source, code)

    def take(self, file: str, source: str) -> CodeType | None:
        """The code compiled ahead for `source` of `file`, or None. Stops the watching, once
        a save already queued is compiled (the request was read after it, so it is likely
        the very source sent: waiting costs no more than compiling here)."""
        os.write(self._wake_w, b"x")
        self._thread.join()
        compiled = self._compiled
        if file != self.file or compiled is None or compiled[0] != source:
            return None
        return compiled[1]


def _inotify_names(events: bytes) -> list[Any]:
    """The file names in a read of inotify events (`struct inotify_event`)."""
    names, at = [], 0
    while at + 16 <= len(events):
        _wd, _mask, _cookie, length = struct.unpack_from("iIII", events, at)
        names.append(events[at + 16:at + 16 + length].rstrip(b"\0"))
        at += 16 + length
    return names


def _warm_heap(size: int) -> None:
    """Fault in `size` bytes of malloc's heap and keep them, while nothing waits: compiling a
    big file otherwise spends a fifth of its time in page faults, its memory freshly mapped.
    glibc only (`mallopt`); elsewhere nothing is done."""
    if size <= 0:
        return
    try:
        import ctypes   # libffi: only where glibc's mallopt is used
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8      # malloc.h
    # Blocks of a megabyte from the heap (not mmap), the heap never given back, and one
    # heap for every thread (the compile-ahead thread would otherwise get a fresh arena).
    if not (mallopt(m_mmap_threshold, 32 << 20) and mallopt(m_trim_threshold, (1 << 31) - 1)
            and mallopt(m_arena_max, 1)):
        return
    blocks = [bytearray(1 << 20) for _ in range(size >> 20)]   # zero-filled: touched
    del blocks


class _Refused(Exception):
    """A deferred definition check refused the program (or raised) after the first reply."""


if __name__ == "__main__":
    main()
