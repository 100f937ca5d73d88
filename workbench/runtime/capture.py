"""What a handler writes, caught at the file-descriptor level while it runs.

Under `--json`, `--format ndjson` and MCP, stdout is the contract's: one envelope or one
stream, nothing else. So while a handler runs, fds 1 and 2 (and `sys.stdout`/`sys.stderr`)
point into temporary files: `print()`, a stream saved at import (`OUT = sys.stdout`), a
subprocess the handler starts and a C extension all land there. When the handler is done the
descriptors are restored and flushed, and the text is kept (masked) in the envelope's
`meta.output`. The pipeline writes the envelope (and stream lines) to the real descriptors.

File descriptors belong to the whole process, so one capture is active at a time: in a
server process, handler bodies that are captured run one after another.
"""

from __future__ import annotations

import _thread   # the lock alone: `threading` costs ~5 ms of imports on every --json call
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from typing import Any, TextIO

    from workbench.runtime.redact import Redactor

KEEP = 64 * 1024
"""Characters of each stream kept in `meta.output` (the end of it, where errors are)."""

_LOCK = _thread.RLock()   # re-entrant: a handler may call() another program in-process


class KeepOpen:
    """A stream a handler may close without harm (`with sys.stdout:` in `json.tool`): closing
    only flushes, so whoever handed it out can still read or write it."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def close(self) -> None:   # `with sys.stdout:` in a handler must not close the real thing
        self._stream.flush()

    @property
    def closed(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __enter__(self) -> KeepOpen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Capture:
    """`with Capture() as captured:` — fds 1 and 2 go to temporary files until the block ends.

    `real_stdout`/`real_stderr` write where fds 1 and 2 pointed before (the pipeline's
    envelope and stream lines); `output()` is what was caught, as {"stdout", "stderr", ...}.
    """

    def __init__(self, keep: int = KEEP, wait: bool = True, seal: bool = False,
                 redactor: Redactor | None = None):
        self.keep = keep   # characters of each stream kept (an adapted program's data: more)
        self.wait = wait   # False: when another capture holds fds 1 and 2 (they already go to
        #                    its files, so nothing reaches a screen or a wire), capture nothing
        self.seal = seal   # the process ends with this call: when the block ends normally
        #                    (the envelope written through real_stdout) and the handler left
        #                    a thread running, fds 1 and 2 go to /dev/null, so that thread
        #                    prints nothing after the envelope (`threads_left`)
        self.redactor = redactor   # the call's secrets: masked before the tail is cut
        self.real_stdout: TextIO | None = None
        self.real_stderr: TextIO | None = None
        self._saved: list[int] = []
        self._files: list = []
        self._streams: tuple | None = None
        self._text: dict | None = None
        self._held = False

    def __enter__(self) -> Capture:
        if not _LOCK.acquire(blocking=self.wait):
            self._text = {}
            return self
        self._held = True
        try:
            _flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
            self._files = [_scratch(), _scratch()]
            self._saved = [os.dup(1), os.dup(2)]
            os.dup2(self._files[0].fileno(), 1)
            os.dup2(self._files[1].fileno(), 2)
            self._streams = (sys.stdout, sys.stderr)
            sys.stdout, sys.stderr = (KeepOpen(_text_over(fd, line_buffering=True)) for fd in (1, 2))
            self.real_stdout = _text_over(self._saved[0], write_through=True)
            self.real_stderr = _text_over(self._saved[1], write_through=True)
        except BaseException:
            self._restore()
            raise
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self._restore(sealed=self.seal and kind is None)

    def _restore(self, sealed: bool = False) -> None:
        try:
            if self._streams is not None:
                _flush(sys.stdout, sys.stderr, *self._streams, sys.__stdout__, sys.__stderr__)
                sys.stdout, sys.stderr = self._streams
                self._streams = None
            if self._saved:
                if sealed and threads_left():
                    seal_std()
                else:
                    os.dup2(self._saved[0], 1)
                    os.dup2(self._saved[1], 2)
                for fd in self._saved:
                    os.close(fd)
                self._saved = []
            self._text = {name: _read(handle, self.keep, self.redactor) for name, handle in
                          zip(("stdout", "stderr"), self._files)}
            for handle in self._files:
                handle.close()
            self._files = []
        finally:
            if self._held:
                self._held = False
                _LOCK.release()

    def output(self) -> dict[str, Any] | None:
        """What the handler wrote: {"stdout": text, "stderr": text} (the last KEEP characters
        of each, with `truncated` counts where more was written), or None when nothing."""
        if self._text is None:   # still capturing (a stream's @end): flush, then read
            _flush(sys.stdout, sys.stderr, *(self._streams or ()))
        text = self._text if self._text is not None else {
            name: _read(handle, self.keep, self.redactor)
            for name, handle in zip(("stdout", "stderr"), self._files)}
        out: dict = {}
        dropped: dict = {}
        for name in ("stdout", "stderr"):
            value, gone = text.get(name) or ("", 0)
            if gone:
                dropped[name] = gone
            if value:
                out[name] = value
        if dropped:
            out["truncated"] = dropped
        return out or None


def threads_left() -> bool:
    """Whether a thread besides this one still runs (one the handler left): only then is a
    process sealed, so the program's exit hooks keep fds 1 and 2 otherwise."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


def seal_std() -> None:
    """Point fds 1 and 2 at /dev/null: the process has said all it will (its envelope or
    stream end), and what a thread writes later goes nowhere."""
    _flush(sys.stdout, sys.stderr)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
    finally:
        os.close(null)


def _scratch():
    """An anonymous file for one stream: a memfd where the system has one (`tempfile` costs
    ~9 ms of imports on every --json call), else a TemporaryFile."""
    if hasattr(os, "memfd_create"):
        try:
            return open(os.memfd_create("burgee-capture"), "w+b")
        except OSError:
            pass
    import tempfile
    return tempfile.TemporaryFile()


def _text_over(fd: int, **options):
    """A UTF-8 text stream over `fd` (not closing it). Buffered: a raw file under a text
    wrapper drops what a short write (a full pipe) did not take."""
    import io
    return io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "wb", closefd=False)),
                            encoding="utf-8", errors="backslashreplace", **options)


def _flush(*streams) -> None:
    for stream in streams:
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _read(handle, keep: int = KEEP, redactor=None) -> tuple[str, int]:
    """(the last `keep` characters or so, masked; bytes written and not kept): never all of
    a 10 MB print. Masked before it is cut: a secret the cut would split is kept whole (and
    so masked), never its tail alone."""
    longest = max((len(secret) for secret in redactor.secrets), default=0) \
        if redactor else 0
    try:
        handle.flush()
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - keep - 4 * longest))
        data = handle.read()
    except (OSError, ValueError):
        return "", 0
    text = data.decode("utf-8", "replace")
    cut = 0
    if size > len(data) or len(data) > keep:
        cut = max(0, len(text) - keep)
        line = text.find("\n", cut, len(text) - 1)
        if line != -1:
            cut = line + 1   # start at a line, not mid-character
        if redactor:
            cut = redactor.crossing(text, cut)
    kept = text[cut:]
    gone = size - len(kept.encode("utf-8", "replace"))
    return (redactor.text(kept) if redactor else kept), gone


class Masked:
    """`with Masked(redactor):` — a person reads a handler's output live, with secrets masked.

    `sys.stdout`/`sys.stderr` mask what Python writes to them, and fds 1 and 2 become pipes
    whose bytes are masked on their way to where the fds pointed before: `os.write`, a child
    process and a stream saved at import pass the same gate. On exit the fds are restored and
    the forwarding threads get a bounded wait (a daemon child may keep a pipe open)."""

    WAIT = 2.0
    """Seconds to wait for what is still in a pipe once the handler is done."""

    def __init__(self, redactor: Redactor, linger: bool = False):
        self.redactor = redactor
        self.linger: bool = linger   # the process ends with this call: keep masking what threads
        #                        the handler left write, until the interpreter exits
        self._streams: tuple | None = None
        self._restore: list[tuple[int, int]] = []
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Masked:
        _LOCK.acquire()
        try:
            _flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
            for fd in (1, 2):
                self._pipe(fd)
            self._streams = streams = (sys.stdout, sys.stderr)
            sys.stdout, sys.stderr = (_MaskingStream(s, self.redactor) for s in streams)
        except BaseException:
            self.linger = False
            self._end()
            raise
        return self

    def _pipe(self, fd: int) -> None:
        try:
            restore, target = os.dup(fd), os.dup(fd)
        except OSError:   # closed from the start: nothing to mask, writes fail as before
            return
        import threading
        read, write = os.pipe()
        os.dup2(write, fd)
        os.close(write)
        self._restore.append((fd, restore))
        thread = threading.Thread(target=_forward, args=(read, target, self.redactor),
                                  name=f"burgee-mask-{fd}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def __exit__(self, *exc: object) -> None:
        if self.linger:   # masked to the end: at exit (once Python has joined the threads
            _flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)   # left running)
            import atexit
            atexit.register(self._end)
            return
        self._end()

    def _end(self) -> None:
        """Restore fds 1 and 2 (to /dev/null when lingering: nothing after the exit), let the
        forwarding threads finish (bounded), release the capture lock."""
        try:
            if self._streams is not None:
                _flush(sys.stdout, sys.stderr, *self._streams, sys.__stdout__, sys.__stderr__)
                sys.stdout, sys.stderr = self._streams
                self._streams = None
            null = os.open(os.devnull, os.O_WRONLY) if self.linger else None
            for fd, restore in self._restore:
                # the pipe's last write end here: the thread sees EOF
                os.dup2(restore if null is None else null, fd)
                os.close(restore)
            if null is not None:
                os.close(null)
            self._restore = []
            import time
            deadline = time.monotonic() + self.WAIT   # one wait for both pipes
            for thread in self._threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            self._threads = []
        finally:
            _LOCK.release()


def _forward(read: int, target: int, redactor) -> None:
    """Copy a pipe to `target`, masked. A tail that may begin a secret waits for the next
    chunk; if `target` fails (a reader hung up) the pipe is closed, so the writer fails too."""
    held = ""
    try:
        while True:
            chunk = os.read(read, 65536)
            text = redactor.text(held + chunk.decode("utf-8", "surrogateescape"))
            keep = redactor.pending(text) if chunk else 0
            held = text[len(text) - keep:] if keep else ""
            data = memoryview(text[:len(text) - keep].encode("utf-8", "surrogateescape"))
            while data:
                data = data[os.write(target, data):]
            if not chunk:
                return
    except OSError:
        return
    finally:
        os.close(read)
        os.close(target)


class _MaskingStream:
    def __init__(self, stream, redactor):
        self._stream = stream
        self._redactor = redactor

    def write(self, text) -> int:
        self._stream.write(self._redactor.text(text) if isinstance(text, str) else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
