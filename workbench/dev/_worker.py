"""Subprocess side of workbench calls: run the user's program once, as its CLI would.

    python -B -m workbench.dev._worker run --file F --source S [--program N] [--close-stdin] -- ARGV
        the real CLI: `run(program, ARGV)`, this process's streams, its exit code;
    python -B -m workbench.dev._worker call   (request JSON on stdin)
        `runtime.call` with captured streams; one JSON line `{"burgee_outcome": ...}` on stdout.

`--source` is a file holding the last good source, executed as if it were `--file` (so the
call runs exactly the program being served, even while the file on disk is mid-edit).
"""

import json
import os
import sys


def _load(file, source_file, program_name):
    from workbench.dev.loader import exec_file
    source = None
    if source_file:
        with open(source_file, encoding="utf-8") as handle:
            source = handle.read()
    loaded = exec_file(file, source, program_name=program_name)
    if loaded.error is not None:
        sys.stderr.write(f"burgee dev: cannot load {file}: {loaded.error.message}\n"
                         f"{loaded.error.traceback}")
        sys.exit(70)
    return loaded.program


def _run(args) -> None:
    opts, argv = {}, []
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
    from workbench.entry import run
    run(program, argv)


def _call() -> None:
    request = json.loads(sys.stdin.read())
    program = _load(request["file"], request.get("source"), request.get("program"))
    from workbench.runtime.pipeline import call
    real_stdout = os.dup(1)
    os.dup2(2, 1)   # a handler's stray print() must not corrupt the result line

    def report_progress(done, total=None, message=None):
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


def main() -> None:
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "run":
        _run(rest)
    elif mode == "call":
        _call()
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
