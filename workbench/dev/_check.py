"""Subprocess side of the load check (`loader.load`): load the file sent on stdin, print its replies.

What a load needs is imported before stdin is read, so a process started ahead of time
(`loader.Checker`) waits with that work done. Replies are lines on stdout:
`{"burgee_ran": CODE}` once the file ran and its Program was found (its bytecode, marshal
in base64, when the request asks for it), so the workbench can run the same bytecode while
the definition and its examples are checked here; then `{"burgee_check": null | error}`,
the verdict. A definition refused after the first reply is reported as a plain run reports
it: the file runs again, checked as it goes, and stops where the refusal is raised.
"""

import json
import sys


def _reply(answer: dict) -> None:
    sys.stdout.flush()
    sys.__stdout__.write("\n" + json.dumps(answer) + "\n")
    sys.__stdout__.flush()


def main() -> None:
    import gc
    gc.disable()     # a short life: collections would only slow the run the workbench waits on
    from workbench.declaration import model   # imported while nothing waits
    from workbench.dev.loader import exec_file
    from workbench.runtime import capture, checks  # noqa: F401
    _warm_heap(int(sys.argv[sys.argv.index("--heap") + 1]) if "--heap" in sys.argv else 0)
    request = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
    sys.path.insert(0, __import__("os").path.dirname(request["file"]))
    file, source = request["file"], request["source"]
    from workbench.declaration import _checks
    code = None
    try:
        code = compile(source, file, "exec", dont_inherit=True)
    except SyntaxError:
        pass       # exec_file compiles again and reports it

    def ran(program) -> None:
        if request.get("code"):
            import base64
            import marshal
            _reply({"burgee_ran": base64.b64encode(marshal.dumps(code)).decode("ascii")})
        try:
            _checks.check_deferred(code)
        except model.DefinitionError as exc:
            raise _Refused from exc

    program_name = request.get("program")
    if code is not None and request.get("code"):
        _checks.defer_checks(code)
    try:
        loaded = exec_file(file, source, program_name=program_name, code=code, ran=ran)
    except _Refused:
        loaded = None
    if loaded is None:   # run again, checked as it goes: the refusal where it is raised (and
        # outside the except block, or its traceback would carry this one's as its context)
        loaded = exec_file(file, source, program_name=program_name, code=code)
        _reply({"burgee_check": loaded.error and loaded.error.to_dict(),
                "output": loaded.output})   # what a run stopped by the refusal printed
        return
    _reply({"burgee_check": None if loaded.error is None else loaded.error.to_dict()})


def _warm_heap(size: int) -> None:
    """Fault in `size` bytes of malloc's heap and keep them, while nothing waits: compiling a
    big file otherwise spends a fifth of its time in page faults, its memory freshly mapped.
    glibc only (`mallopt`); elsewhere nothing is done."""
    if size <= 0:
        return
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3      # malloc.h
    # Blocks of a megabyte from the heap (not mmap), and the heap never given back.
    if not (mallopt(m_mmap_threshold, 32 << 20) and mallopt(m_trim_threshold, (1 << 31) - 1)):
        return
    blocks = [bytearray(1 << 20) for _ in range(size >> 20)]   # zero-filled: touched
    del blocks


class _Refused(Exception):
    """A deferred definition check refused the program after the first reply."""


if __name__ == "__main__":
    main()
