"""Run original code in-process with its streams captured; turn what it printed into data."""

from __future__ import annotations

import sys

_STATE = None   # lazily: (lock, thread-local of the last raw output)


def _state():
    global _STATE
    if _STATE is None:
        import threading
        _STATE = (threading.Lock(), threading.local())
    return _STATE


def captured(fn, world, request):
    """Call `fn()` with stdin from the caller (or empty); (exit status, stdout, stderr).

    A person (human mode) sees what the original writes as it writes it, and stdout/stderr
    come back None. For data (--json, MCP, in-process) both are caught as text. `fn`
    returns an exit code (None for 0) or raises; SystemExit is caught as Python would exit
    (a string goes to stderr, exit 1). Other exceptions propagate (the runtime reports them
    as `internal`). Calls are serialised: sys.stdout is one per process.
    """
    import io

    from workbench.runtime.capture import Capture, KeepOpen
    from workbench.runtime.pipeline import reads_live
    lock, _ = _state()
    live = reads_live(world, request)
    stdin = world.stdin if world.stdin is not None else io.StringIO("")
    if isinstance(stdin, io.StringIO):   # text in memory (MCP's empty stdin): give it the
        rest = stdin.getvalue()[stdin.tell():]   # `.buffer` a real stdin has
        stdin = io.TextIOWrapper(io.BytesIO(rest.encode("utf-8", "surrogateescape")),
                                 encoding="utf-8", errors="surrogateescape")
    capture = Capture(keep=DATA_KEEP)
    with lock:
        saved = sys.stdin, sys.argv, sys.stdout, sys.stderr
        sys.stdin = stdin
        try:
            if live:
                sys.stdout, sys.stderr = KeepOpen(sys.stdout), KeepOpen(sys.stderr)
                code = _status(fn)
            else:   # fd level: a stream saved at import and a subprocess land here too
                with capture:
                    code = _status(fn)
        finally:
            if live:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
            sys.stdin, sys.argv, sys.stdout, sys.stderr = saved
    if live:
        return code, None, None
    output = capture.output() or {}
    return code, plain(output.get("stdout", "")), plain(output.get("stderr", ""))


DATA_KEEP = 16 * 1024 * 1024
"""Characters of an original's stdout (and stderr) kept as data under --json and MCP."""


def _status(fn) -> int:
    """Run the original; its exit status, as Python would exit (a SystemExit text goes to
    stderr)."""
    try:
        with _fresh_interpreter_state():
            return exit_status(fn())
    except SystemExit as exit_:
        if exit_.code is not None and not isinstance(exit_.code, int):
            sys.stderr.write(f"{exit_.code}\n")
        return exit_status(exit_.code)


class _fresh_interpreter_state:
    """Logging and warnings as a fresh process has them, for one call, then put back: the
    root logger without handlers at WARNING (so the original's `basicConfig` takes effect,
    not a no-op beside the server's handler), every logger's level, handlers and `disable`
    restored after (so one call's levels do not reach the next), and the warning filters
    saved and reset (a warning shown once per location shows again in the next call)."""

    def __enter__(self):
        import warnings
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        logging = sys.modules.get("logging")
        self._saved = _logging_state(logging) if logging is not None else None
        if logging is not None:
            logging.root.handlers = []
            logging.root.setLevel(logging.WARNING)
        return self

    def __exit__(self, *exc):
        logging = sys.modules.get("logging")
        if logging is not None:
            _restore_logging(logging, self._saved)
        self._warnings.__exit__(*exc)
        return False


def _logging_state(logging) -> dict:
    manager = logging.root.manager
    loggers = {name: (lg.level, list(lg.handlers), lg.propagate, lg.disabled)
               for name, lg in list(manager.loggerDict.items())
               if isinstance(lg, logging.Logger)}
    return {"root": (logging.root.level, list(logging.root.handlers)),
            "disable": manager.disable, "loggers": loggers}


def _restore_logging(logging, saved) -> None:
    manager = logging.root.manager
    saved = saved or {"root": (logging.WARNING, []), "disable": 0, "loggers": {}}
    for handler in logging.root.handlers:   # the call's own (basicConfig's): flushed, dropped
        if all(handler is not kept for kept in saved["root"][1]):
            handler.flush()
    logging.root.setLevel(saved["root"][0])
    logging.root.handlers = saved["root"][1]
    logging.disable(saved["disable"])
    for name, lg in list(manager.loggerDict.items()):
        if isinstance(lg, logging.Logger):
            level, handlers, propagate, disabled = saved["loggers"].get(
                name, (logging.NOTSET, [], True, False))
            lg.setLevel(level)
            lg.handlers, lg.propagate, lg.disabled = handlers, propagate, disabled


def exit_status(code) -> int:
    """The status a process exits with for `sys.exit(code)`: None/False 0, True 1, an int
    modulo 256 (-1 is 255), anything else 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return int(code) & 0xFF
    return 1


def plain(text: str) -> str:
    """Text without terminal colour codes and carriage returns at line ends (data, not a
    terminal)."""
    if "\x1b" not in text and "\r" not in text:
        return text
    import re
    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", "", text)
    return re.sub(r"\r+(?=\n|$)", "", text)


def output_data(text: str):
    """What the original printed as data: parsed JSON when it printed JSON (one document,
    or one per line), else the text itself; None when it printed nothing."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] in "{[":
        import json
        try:
            return json.loads(stripped)
        except ValueError:
            lines = [line for line in stripped.splitlines() if line.strip()]
            if len(lines) > 1 and all(line.lstrip()[:1] in "{[" for line in lines):
                try:
                    return [json.loads(line) for line in lines]
                except ValueError:
                    pass
    return text[:-1] if text.endswith("\n") else text


def finish(code: int, out, err, command, request, world):
    """Data for a finished run, or Fail with the original's exit status. After a live run
    (out is None) a failure ends the process with that status: the person saw it all."""
    from workbench.declaration.model import Fail
    if out is None:
        _state()[1].last = None
        if code:
            raise SystemExit(code)
        return None
    data = output_data(out)
    if code == 0:
        if err.strip():
            if request.json:
                request.warnings.append(err.strip())
            else:
                world.err(err)
        _state()[1].last = (id(data), out)
        return data
    message = _last_line(err) or _last_line(out) or \
        f"'{' '.join(command.path)}' exited with status {code}"
    details = {}
    if data is not None:
        details["output"] = data
    if err.strip() and err.strip() != message:
        details["stderr"] = err.rstrip("\n")
    raise Fail("failed", message, exit=code, **details)


def render_text(data) -> str:
    """Text mode: exactly what the original printed when `data` came from it, else JSON."""
    last = getattr(_state()[1], "last", None)
    if last is not None and last[0] == id(data):
        return last[1]
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    import json
    return json.dumps(data, indent=2, ensure_ascii=False)


def _last_line(text: str) -> str:
    """The last line with words, a box's borders (a Rich panel's `│ … │`) left out."""
    lines = [line.strip(_BORDERS) for line in text.strip().splitlines()]
    lines = [line for line in lines if line]
    return lines[-1] if lines else ""


_BORDERS = " \t" + "".join(map(chr, range(0x2500, 0x2580)))
"""Blanks and the box-drawing characters a panel's frame is made of."""
