"""A program whose handlers misbehave the ways real ones do: print, exit, spawn children,
write to streams saved at import, return what is not JSON, print 10 MB, stream slowly."""

import asyncio
import os
import subprocess
import sys
import time

from workbench import Argument, Command, Option, Program, run
SAVED = sys.stdout
def printer(ctx):
    print("printed by the handler", ctx.options.token)
    return {"ok": 1}
def buffered(ctx):
    sys.stdout.write("left in the buffer")   # no newline, no flush
    return {"buffered": True}
def child(ctx):
    subprocess.run([sys.executable, "-c", "print('from a child process')"])
    return {"child": "done"}
def saved(ctx):
    SAVED.write("written to a stream saved at import\n")
    return {"saved": True}
def exits(ctx):
    sys.exit(ctx.args.code)
def interrupt(ctx):
    raise KeyboardInterrupt
def boom(ctx):
    raise RuntimeError("a handler bug")
def cancelled(ctx):
    raise asyncio.CancelledError("an event loop inside the handler was cancelled")
def odd(ctx):
    return {"when": object()}
def big(ctx):
    sys.stdout.write("x" * (10 * 1024 * 1024))
    return {"big": True}
def slow(ctx):
    marker = os.environ.get("UNRULY_MARKER")
    for i in range(1000):
        yield {"i": i}
        if marker and i == 2:
            open(marker, "w").close()   # the test knows the stream is under way
        time.sleep(0.05)
def closer(ctx):
    with sys.stdout as out:
        out.write("inside with\n")
    return {"closed": True}
def shut(ctx):
    os.close(1)   # the handler closes the process's stdout
    return {"shut": True}
def wide(ctx):
    return {"rows": ["r" * 100] * 2000}
program = Program("unruly", commands=[
    Command("print", effects="read_only", run=printer, options={"token": Option(sensitive=True)}),
    Command("child", effects="read_only", run=child),
    Command("buffered", effects="read_only", run=buffered),
    Command("saved", effects="read_only", run=saved),
    Command("exit", effects="read_only", run=exits, arguments=[Argument("code", "integer")]),
    Command("odd", effects="read_only", run=odd),
    Command("cancelled", effects="read_only", run=cancelled),
    Command("interrupt", effects="read_only", run=interrupt),
    Command("boom", effects="read_only", run=boom),
    Command("big", effects="read_only", run=big),
    Command("slow", effects="read_only", run=slow),
    Command("closer", effects="read_only", run=closer),
    Command("wide", effects="read_only", run=wide),
    Command("shut", effects="read_only", run=shut),
    Command("echo", effects="read_only", run=lambda ctx: {"text": ctx.args.text}, arguments=[Argument("text", stdin=True)]),
])
if __name__ == "__main__":
    run(program)
