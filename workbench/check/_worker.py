"""One checking process of `burgee check FILE`: load FILE inside its sandbox, check its share
of the commands, write the share as JSON.

    python -B -m workbench.check._worker FILE --part K --parts N --calls C --seed S
        --timeout T --root SANDBOX --out SHARE.json [--program NAME]
"""

import json
import os
import sys


def main(argv) -> None:
    path, rest = argv[0], argv[1:]
    opts = {rest[i][2:]: rest[i + 1] for i in range(0, len(rest) - 1, 2)}
    out = opts["out"]
    try:
        share = _share(path, opts)
    except Exception as error:  # noqa: BLE001 - any failure is the share's error, not a crash
        from workbench.check import CheckError
        import traceback
        if isinstance(error, CheckError):
            found = {"code": error.code, "message": error.message, "details": error.details}
        else:
            found = {"code": "load_failed", "message": f"{type(error).__name__}: {error}",
                     "details": traceback.format_exc()}
        share = {"error": found}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(share, handle, ensure_ascii=False)


def _share(path, opts) -> dict:
    from workbench.check import CheckError, run_share
    from workbench.check.sandbox import Sandbox
    from workbench.loader import LoadError, exec_file, find_program
    os.environ.setdefault("BURGEE_CHECK", "always")    # check the declaration, keep no verdict
    box = Sandbox(opts["root"])
    try:    # not load_program: its examples are checked by run_share, which lints them first
        _key, program = find_program(exec_file(path).__dict__, opts.get("program"), path)
        program.source = os.path.abspath(path)
    except LoadError as error:
        raise CheckError("file_not_found" if error.code == "not_found" else "load_failed",
                         error.message, error.traceback) from None
    return run_share(program, box, int(opts["part"]), int(opts["parts"]), int(opts["calls"]),
                     int(opts["seed"]), float(opts["timeout"]), bool(opts.get("run-writes")))


if __name__ == "__main__":
    main(sys.argv[1:])
