"""Runs many `python spreader.py ARGV` for the canary test without paying for a new
interpreter each time: the program is imported once, then each run is a forked child with
its own environment and its fds 1 and 2 on files or on one pseudo-terminal, ending in the
real process entry point (`workbench.entry.run`).

    python tests/_canary_worker.py JOBS.json RESULTS.json

JOBS.json is a list of {"argv": [...], "env": {...}, "mode": "file" | "tty"}; RESULTS.json
gets, per job, {"exit", "stdout", "stderr"} (a tty has one stream: "stdout" holds both).
Standard input is /dev/null.
"""

import errno
import importlib.util
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _load():
    spec = importlib.util.spec_from_file_location(
        "spreader", os.path.join(HERE, "programs", "spreader.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["spreader"] = module
    spec.loader.exec_module(module)
    return module.program


def _child(program, job, out_fd, err_fd):
    from workbench.entry import run
    os.environ.clear()
    os.environ.update(job["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    code = 1
    try:
        run(program, job["argv"])
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        try:   # end as the interpreter would: wait for the threads left running, then the
            import atexit     # exit hooks (a person's masked output is flushed there)
            import threading
            threading._shutdown()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(code)


def _drain(fd) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError as error:   # EIO: the terminal's last writer is gone
            if error.errno != errno.EIO:
                raise
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _one(program, job) -> dict:
    sys.stdout.flush()
    sys.stderr.flush()
    if job["mode"] == "tty":
        main, sub = os.openpty()
        pid = os.fork()
        if pid == 0:
            os.close(main)
            _child(program, job, sub, sub)
        os.close(sub)
        out, err = _drain(main), b""
        os.close(main)
    else:
        files = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        pid = os.fork()
        if pid == 0:
            _child(program, job, files[0].fileno(), files[1].fileno())
        out = err = None
    _, status = os.waitpid(pid, 0)
    if out is None:
        out, err = (_read(handle) for handle in files)
    return {"exit": os.waitstatus_to_exitcode(status), "stdout": out.decode("utf-8", "replace"),
            "stderr": err.decode("utf-8", "replace")}


def _read(handle) -> bytes:
    handle.seek(0)
    data = handle.read()
    handle.close()
    return data


def main(jobs_path, results_path):
    program = _load()
    with open(jobs_path, encoding="utf-8") as handle:
        jobs = json.load(handle)
    results = [_one(program, job) for job in jobs]
    with open(results_path, "w", encoding="utf-8") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
