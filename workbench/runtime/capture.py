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

import os
import sys
import threading

KEEP = 64 * 1024
"""Characters of each stream kept in `meta.output` (the end of it, where errors are)."""

_LOCK = threading.RLock()   # re-entrant: a handler may call() another program in-process


class KeepOpen:
    """A stream a handler may close without harm (`with sys.stdout:` in `json.tool`): closing
    only flushes, so whoever handed it out can still read or write it."""

    def __init__(self, stream):
        self._stream = stream

    def close(self) -> None:   # `with sys.stdout:` in a handler must not close the real thing
        self._stream.flush()

    @property
    def closed(self) -> bool:
        return False

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Capture:
    """`with Capture() as captured:` — fds 1 and 2 go to temporary files until the block ends.

    `real_stdout`/`real_stderr` write where fds 1 and 2 pointed before (the pipeline's
    envelope and stream lines); `output()` is what was caught, as {"stdout", "stderr", ...}.
    """

    def __init__(self, keep: int = KEEP):
        self.keep = keep   # characters of each stream kept (an adapted program's data: more)
        self.real_stdout = None
        self.real_stderr = None
        self._saved: list[int] = []
        self._files: list = []
        self._streams = None
        self._text: dict | None = None
        self._held = False

    def __enter__(self) -> Capture:
        import io
        import tempfile
        _LOCK.acquire()
        self._held = True
        try:
            _flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
            self._files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
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

    def __exit__(self, *exc) -> None:
        self._restore()

    def _restore(self) -> None:
        try:
            if self._streams is not None:
                _flush(sys.stdout, sys.stderr, *self._streams, sys.__stdout__, sys.__stderr__)
                sys.stdout, sys.stderr = self._streams
                self._streams = None
            if self._saved:
                os.dup2(self._saved[0], 1)
                os.dup2(self._saved[1], 2)
                for fd in self._saved:
                    os.close(fd)
                self._saved = []
            self._text = {name: _read(handle, self.keep) for name, handle in
                          zip(("stdout", "stderr"), self._files)}
            for handle in self._files:
                handle.close()
            self._files = []
        finally:
            if self._held:
                self._held = False
                _LOCK.release()

    def output(self) -> dict | None:
        """What the handler wrote: {"stdout": text, "stderr": text} (the last KEEP characters
        of each, with `truncated` counts where more was written), or None when nothing."""
        if self._text is None:   # still capturing (a stream's @end): flush, then read
            _flush(sys.stdout, sys.stderr, *(self._streams or ()))
        text = self._text if self._text is not None else {
            name: _read(handle, self.keep)
            for name, handle in zip(("stdout", "stderr"), self._files)}
        out: dict = {}
        dropped: dict = {}
        for name in ("stdout", "stderr"):
            value, size = text.get(name) or ("", 0)
            if size > len(value.encode("utf-8", "replace")):
                dropped[name] = size - len(value.encode("utf-8", "replace"))
            if value:
                out[name] = value
        if dropped:
            out["truncated"] = dropped
        return out or None


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


def _read(handle, keep: int = KEEP) -> tuple[str, int]:
    """(the last `keep` characters or so, total bytes written): never all of a 10 MB print."""
    try:
        handle.flush()
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - keep))
        data = handle.read()
    except (OSError, ValueError):
        return "", 0
    text = data.decode("utf-8", "replace")
    if size > keep and "\n" in text[:-1]:
        text = text[text.index("\n") + 1:]   # start at a line, not mid-character
    return text, size


class Masked:
    """`with Masked(redactor):` — `sys.stdout`/`sys.stderr` mask secrets as a person reads a
    handler's output live (human mode; nothing is held back)."""

    def __init__(self, redactor):
        self.redactor = redactor
        self._streams = None

    def __enter__(self) -> Masked:
        self._streams = (sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = (_MaskingStream(s, self.redactor) for s in self._streams)
        return self

    def __exit__(self, *exc) -> None:
        _flush(sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = self._streams


class _MaskingStream:
    def __init__(self, stream, redactor):
        self._stream = stream
        self._redactor = redactor

    def write(self, text) -> int:
        self._stream.write(self._redactor.text(text) if isinstance(text, str) else text)
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)
