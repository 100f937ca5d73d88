"""Subprocess side of workbench calls: run the user's program once, as its CLI would.

    python -B -m workbench.dev._worker run --file F --source S [--program N] [--close-stdin] -- ARGV
        the real CLI: `run(program, ARGV)`, this process's streams, its exit code;
    python -B -m workbench.dev._worker call   (request JSON on stdin)
        `runtime.call` with captured streams; one JSON line `{"burgee_outcome": ...}` on stdout.
    python -B -m workbench.dev._worker serve --file F --scratch DIR --spare DIR [--source S]
            [--program N] [--batch ID]
        a long-lived worker (`workbench.dev.pool`): load once, then one JSON request per
        stdin line, each run in a fork (`run` or `call` as above) inside the sandbox DIR,
        restored before every run; one JSON reply per stdout line.

`--source` is a file holding the last good source, executed as if it were `--file` (so the
call runs exactly the program being served, even while the file on disk is mid-edit).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import time
import traceback
from typing import Any, NoReturn

from workbench.declaration.model import Program
from workbench.dev.loader import load_in_process, saved_code
from workbench._sandbox import VARIABLES
from workbench._sandbox import fingerprint as _fingerprint
from workbench.entry import run as run_program
from workbench.runtime import redact
from workbench.runtime.checks import ensure_checked
from workbench.runtime.pipeline import call


def _load(file: str, source_file: str | None, program_name: str | None) -> Program:
    """The Program of the workbench's last good source: its checked bytecode when the
    workbench kept it (`loader.save_code`: not compiled nor checked again), else the source."""
    source = code = None
    if source_file:
        with open(source_file, encoding="utf-8") as handle:
            source = handle.read()
        code = saved_code(source_file)
    loaded = load_in_process(file, source, program_name=program_name, code=code,
                       verdict=(lambda: None) if code is not None else None)
    if loaded.error is not None or loaded.program is None:
        message = loaded.error.message if loaded.error is not None else "no program"
        sys.stderr.write(f"burgee dev: cannot load {file}: {message}\n"
                         f"{loaded.error.traceback if loaded.error is not None else ''}")
        sys.exit(70)
    return loaded.program


def _run(args: list[str]) -> None:
    opts: dict[str, Any] = {}
    argv: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            argv = args[i + 1:]
            break
        if token == "--close-stdin":
            opts["close_stdin"] = True
        else:
            opts[token[2:]] = args[i + 1]
            i += 1
        i += 1
    if opts.get("close_stdin"):
        try:
            os.close(0)
        except OSError:
            pass
        sys.stdin = None
    program = _load(opts["file"], opts.get("source"), opts.get("program"))
    run_program(program, argv)


def _call() -> None:
    request = json.loads(sys.stdin.read())
    program = _load(request["file"], request.get("source"), request.get("program"))
    _answer(program, request)


def _answer(program: Program, request: dict[str, Any]) -> None:
    """Run `request` as `runtime.call` and write its `{"burgee_outcome": ...}` line on fd 1."""
    real_stdout = os.dup(1)
    os.dup2(2, 1)   # a handler's stray print() must not corrupt the result line

    def report_progress(done: float, total: float | None = None,
                        message: str | None = None) -> None:
        report = {"done": done, "total": total, "message": message}
        os.write(real_stdout, (json.dumps({"burgee_progress": report}) + "\n").encode())

    try:
        outcome = call(program, request["argv"], environ=request.get("environ"),
                       stdin=request.get("stdin"),
                       on_progress=report_progress if request.get("progress") else None)
    finally:
        sys.stdout.flush()
        os.dup2(real_stdout, 1)
    line = json.dumps({"burgee_outcome": {"exit": outcome.exit, "stdout": outcome.stdout,
                                          "stderr": outcome.stderr,
                                          "envelope": outcome.envelope}}, ensure_ascii=False)
    os.write(1, (line + "\n").encode("utf-8"))


def _options(args: list[str]) -> dict[str, str]:
    return {args[i][2:]: args[i + 1] for i in range(0, len(args) - 1, 2)}


def _serve(args: list[str]) -> None:
    """The long-lived worker of `workbench.dev.pool`; see the module docstring."""
    opts = _options(args)
    replies = os.dup(1)
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)          # module-level prints of the program must not reach the replies
    try:
        program = _load(opts["file"], opts.get("source"), opts.get("program"))
    except SystemExit:
        os.write(replies, (json.dumps({"error": "the program did not load in the batch "
                                                "worker"}) + "\n").encode())
        raise
    try:
        ensure_checked(program)      # once here, not again in every fork
    except Exception:  # noqa: BLE001 - each run then reports it, as a fresh process would
        pass
    scratch, spare = opts["scratch"], opts["spare"]
    pristine = os.path.join(spare, "pristine")
    shutil.copytree(scratch, pristine, symlinks=True)    # the sandbox as the load left it
    clean = _fingerprint(scratch)
    boxed = {name: os.environ[name] for name in VARIABLES if name in os.environ}
    _tables_before_forks(program)
    os.write(replies, b'{"ready": true}\n')
    for line in requests:
        request = json.loads(line)
        if _fingerprint(scratch) != clean:      # the last run wrote: restore the sandbox
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(pristine, scratch, symlinks=True)
            clean = _fingerprint(scratch)
        environ = {**(request.get("environ") or os.environ), **boxed}
        request["environ"] = environ
        stdin_path = os.path.join(spare, "stdin")
        with open(stdin_path, "w", encoding="utf-8") as handle:
            handle.write(request.get("stdin") or "")
        out_path, err_path = os.path.join(spare, "out"), os.path.join(spare, "err")
        for path in (out_path, err_path):
            open(path, "w").close()     # noqa: SIM115 - empty even if the run dies at once
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _forked(program, request, replies, requests, stdin_path, out_path, err_path)
        try:
            os.setpgid(pid, pid)        # as the child does, so a kill cannot come before it
        except OSError:
            pass
        status, timed_out = _wait(pid, float(request["timeout"]))
        try:
            os.killpg(pid, signal.SIGKILL)      # whatever the run left behind
        except OSError:
            pass
        reply: dict[str, Any] = {"exit": os.waitstatus_to_exitcode(status),
                                 "timeout": timed_out}
        for key, path in (("stdout", out_path), ("stderr", err_path)):
            with open(path, encoding="utf-8", errors="replace") as handle:
                reply[key] = handle.read()
        os.write(replies, (json.dumps(reply, ensure_ascii=False) + "\n").encode("utf-8"))


def _tables_before_forks(program: Program) -> None:
    """Build the program-wide tables every run reads (the spellings and sensitive options
    redaction knows, the tool-name index) once, here. Built in each fork instead, they walked
    every option of the program, and every page a fork touches is copied: at 5,000 commands
    that made the forks' copying grow with the square of the size."""
    redact._spellings(program)
    redact._sensitive_options(program)
    program.tool("")



def _wait(pid: int, timeout: float) -> tuple[int, bool]:
    """(wait status, whether it was killed) of the forked run `pid`, killed past `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        left = deadline - time.monotonic()
        if left <= 0:
            os.killpg(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1], True
        if hasattr(os, "pidfd_open"):
            handle = os.pidfd_open(pid)
            try:
                select.select([handle], [], [], left)
            finally:
                os.close(handle)
        else:
            time.sleep(min(left, 0.005))


def _forked(program: Program, request: dict[str, Any], replies: int, requests: Any,
            stdin_path: str, out_path: str, err_path: str) -> NoReturn:
    """The run itself, in the forked child: its own group, environment, streams; never returns."""
    code = 70
    try:
        os.setpgid(0, 0)
        os.close(replies)
        requests.close()
        os.environ.clear()
        os.environ.update(request["environ"])
        if request.get("cwd"):
            os.chdir(request["cwd"])
        for fd, path, flags in ((1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (0, stdin_path, os.O_RDONLY)):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        if request.get("close_stdin"):
            os.close(0)
            sys.stdin = None
        if request["mode"] == "call":
            _answer(program, request)
            code = 0
        else:
            try:
                run_program(program, request["argv"])
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None
                                                                     else 1)
    except BaseException:  # noqa: BLE001 - the run's crash is its stderr and exit 70
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main() -> None:
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "run":
        _run(rest)
    elif mode == "call":
        _call()
    elif mode == "serve":
        _serve(rest)
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
