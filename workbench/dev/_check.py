"""Subprocess side of `loader.check`: load the file sent on stdin, print one result line."""

import json
import sys


def main() -> None:
    request = json.loads(sys.stdin.read())
    sys.path.insert(0, __import__("os").path.dirname(request["file"]))
    from workbench.dev.loader import exec_file
    loaded = exec_file(request["file"], request["source"], program_name=request.get("program"))
    result = None if loaded.error is None else loaded.error.to_dict()
    sys.stdout.flush()
    sys.__stdout__.write("\n" + json.dumps({"burgee_check": result}) + "\n")
    sys.__stdout__.flush()


if __name__ == "__main__":
    main()
