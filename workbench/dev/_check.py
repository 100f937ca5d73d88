"""Subprocess side of `loader.check`: load the file sent on stdin, print one result line.

What a load needs is imported before stdin is read, so a process started ahead of time
(`loader.Checker`) waits with that work done. When the request asks for it, a good load's
bytecode comes back too (marshal, base64), so the workbench does not compile the file again.
"""

import json
import sys


def main() -> None:
    from workbench.declaration import model  # noqa: F401 - imported while nothing waits
    from workbench.dev.loader import exec_file
    from workbench.runtime import capture, checks  # noqa: F401
    request = json.loads(sys.stdin.read())
    sys.path.insert(0, __import__("os").path.dirname(request["file"]))
    file, source = request["file"], request["source"]
    code = None
    try:
        code = compile(source, file, "exec", dont_inherit=True)
    except SyntaxError:
        pass       # exec_file compiles again and reports it
    loaded = exec_file(file, source, program_name=request.get("program"), code=code)
    answer: dict = {"burgee_check": None if loaded.error is None else loaded.error.to_dict()}
    if loaded.error is None and request.get("code"):
        import base64
        import marshal
        answer["code"] = base64.b64encode(marshal.dumps(code)).decode("ascii")
    sys.stdout.flush()
    sys.__stdout__.write("\n" + json.dumps(answer) + "\n")
    sys.__stdout__.flush()


if __name__ == "__main__":
    main()
