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


def captured(fn, world):
    """Call `fn()` with stdout/stderr captured and stdin from the caller (or empty).

    Returns (exit code, stdout, stderr). `fn` returns an exit code (None for 0) or raises;
    SystemExit is caught as Python would report it (a string goes to stderr, exit 1). Other
    exceptions propagate (the runtime reports them as `internal`). Calls are serialised:
    sys.stdout is one per process.
    """
    import contextlib
    import io
    lock, _ = _state()
    out, err = io.StringIO(), io.StringIO()
    stdin = world.stdin if world.stdin is not None else io.StringIO("")
    with lock:
        saved = sys.stdin, sys.argv
        sys.stdin = stdin
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = fn()
                except SystemExit as exit_:
                    code = exit_.code
                    if code is not None and not isinstance(code, int):
                        err.write(f"{code}\n")
                        code = 1
        finally:
            sys.stdin, sys.argv = saved
    return (code or 0), out.getvalue(), err.getvalue()


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


def finish(code: int, out: str, err: str, command, request, world):
    """Data for a finished run, or Fail with the original's exit code."""
    from workbench.declaration.model import Fail
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
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
