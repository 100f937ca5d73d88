"""One long-lived process that runs many argv vectors as `python PROGRAM.py ARGV` would.

    python tests/_fuzz_worker.py VECTORS.json RESULTS.jsonl

VECTORS.json is a list of {"program": "notes" | "warehouse", "argv": [str, ...]} (argv as
`os.fsdecode` gives it: bytes that are not UTF-8 are lone surrogates, as in `sys.argv`).
Each vector runs through the real process entry point, `workbench.entry.run(program, argv)`,
with this process's own fds 1 and 2 pointed at fresh temporary files (so the pipeline's
writes to real file descriptors, its fd-level capture of handlers and its exit code are the
ones a real process has); the `SystemExit` it ends with is the exit code. Anything else that
escapes `run` is what a real process would show as a traceback, and is reported as such.

RESULTS.jsonl gets one line per vector: {"exit", "stdout", "stderr" (base64 of the exact
bytes), "escaped" (a traceback text, or null)}. Standard input is whatever this process got
(the test gives /dev/null), so nothing waits on it.
"""

import base64
import importlib.util
import json
import os
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(os.path.dirname(HERE), "sample_programs")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_fuzz_{name}", os.path.join(SAMPLES,
                                                                                 name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


def _read(handle) -> bytes:
    handle.flush()
    handle.seek(0)
    return handle.read()


def _one(program, argv, entry):
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    code, escaped = None, None
    try:
        entry.run(program, list(argv))
        escaped = "run() returned instead of exiting"
    except SystemExit as stop:
        code = stop.code
    except BaseException:   # what a real process would print as a traceback
        escaped = traceback.format_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    if code is not None and not isinstance(code, int):
        escaped = escaped or f"exit with a non-integer code {code!r}"
        code = 1
    result = {"exit": code, "stdout": base64.b64encode(_read(out)).decode(),
              "stderr": base64.b64encode(_read(err)).decode(), "escaped": escaped}
    out.close()
    err.close()
    return result


def main() -> None:
    vectors_file, results_file = sys.argv[1], sys.argv[2]
    with open(vectors_file, encoding="utf-8") as handle:
        vectors = json.load(handle)
    from workbench import entry

    def no_server(program, address):   # the vectors never ask for `mcp`; if one does, say so
        raise AssertionError(f"a fuzz vector reached the MCP server ({address!r})")
    entry._serve_mcp = no_server
    programs = {name: _load(name) for name in {v["program"] for v in vectors}}
    results = os.open(results_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for vector in vectors:
            line = json.dumps(_one(programs[vector["program"]], vector["argv"], entry)) + "\n"
            os.write(results, line.encode("ascii"))
    finally:
        os.close(results)


if __name__ == "__main__":
    main()
