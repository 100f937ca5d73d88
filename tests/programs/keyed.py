"""A non-idempotent command that logs each run of its body, for the idempotency-key tests.

`who` answers with its process id (which worker of a pool served the call).
`act --log FILE --mode MODE [--gate PATH]` appends `start <pid> <time>` to FILE, waits
until PATH exists, appends `done <pid>`, then ends as MODE says: ok, partial, fail, raise, exit,
interrupt.
"""

import os
import sys
import time

from workbench import Command, Fail, Option, Program, run


def act(ctx):
    with open(ctx.options.log, "a") as log:
        log.write(f"start {os.getpid()} {time.time()!r}\n")
    while ctx.options.gate and not os.path.exists(ctx.options.gate):
        time.sleep(0.01)
    with open(ctx.options.log, "a") as log:
        log.write(f"done {os.getpid()}\n")
    mode = ctx.options.mode
    if mode == "partial":
        return ctx.partial([{"item": "a"}], [{"item": "b", "code": "bad", "message": "no b"}])
    if mode == "fail":
        raise Fail("locked", "the thing is locked", hint="unlock it first", exit=5)
    if mode == "raise":
        raise RuntimeError("boom")
    if mode == "exit":
        sys.exit(3)
    if mode == "interrupt":
        raise KeyboardInterrupt
    return {"pid": os.getpid()}


program = Program(
    name="keyed", version="1.0.0", description="Log each run of a keyed command",
    commands=[
        Command(name="act", description="Log a run, then end as asked", effects="non_idempotent",
                options={"log": Option(type="string", required=True, description="the log file"),
                         "mode": Option(type="enum", default="ok", description="how it ends",
                                        choices=["ok", "partial", "fail", "raise", "exit",
                                                 "interrupt"]),
                         "gate": Option(type="string", description="wait until this file "
                                        "exists")},
                examples=["keyed act --log /tmp/log"], run=act),
        Command(name="who", description="Say which server process answers (a call runs in "
                "a process of its own, forked from one per server)", effects="read_only",
                examples=["keyed who"], run=lambda ctx: {"pid": os.getppid(),
                                                        "call": os.getpid()}),
    ],
)

if __name__ == "__main__":
    run(program)
