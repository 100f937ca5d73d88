"""Subprocess side of the load check (`loader.load`): load the file sent on stdin, print its replies.

What a load needs is imported before stdin is read, so a process started ahead of time
(`loader.Checker`) waits with that work done. Replies are lines on stdout:
`{"burgee_ran": CODE}` once the file ran and its Program was found (its bytecode, marshal
in base64, when the request asks for it), so the workbench can run the same bytecode while
the examples are checked here; then `{"burgee_check": null | error}`, the verdict.
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
    from workbench.declaration import model  # noqa: F401 - imported while nothing waits
    from workbench.dev.loader import exec_file
    from workbench.runtime import capture, checks  # noqa: F401
    request = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
    sys.path.insert(0, __import__("os").path.dirname(request["file"]))
    file, source = request["file"], request["source"]
    code = None
    try:
        code = compile(source, file, "exec", dont_inherit=True)
    except SyntaxError:
        pass       # exec_file compiles again and reports it

    def ran() -> None:
        if request.get("code"):
            import base64
            import marshal
            _reply({"burgee_ran": base64.b64encode(marshal.dumps(code)).decode("ascii")})

    loaded = exec_file(file, source, program_name=request.get("program"), code=code, ran=ran)
    _reply({"burgee_check": None if loaded.error is None else loaded.error.to_dict()})


if __name__ == "__main__":
    main()
