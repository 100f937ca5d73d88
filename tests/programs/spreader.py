"""A program whose sensitive option spreads its value everywhere it can: the canary for the one
redaction gate (tests/test_canary.py). The value is returned, printed (Python print, os.write
to fds 1 and 2, a child process, a stream saved at import, JSON-escaped, past the capture
window, from a thread after the handler returned) and sent in a progress message."""

import json
import os
import subprocess
import sys
import threading
import time

from workbench import Command, Option, Program, run

SAVED = sys.stdout
CHILD = "import sys; print('child out', sys.argv[1]); print('child err', sys.argv[1], file=sys.stderr)"


def spread(ctx):
    token = ctx.options.token or ""
    if ctx.options.fail:
        raise RuntimeError(f"raised {token}")
    ctx.progress(1, 2, f"progress {token}")
    print("printed", token)
    print("printed to stderr", token, file=sys.stderr)
    sys.stdout.flush()
    os.write(1, f"fd1 {token}\n".encode())
    os.write(2, f"fd2 {token}\n".encode())
    subprocess.run([sys.executable, "-c", CHILD, token], check=False)
    SAVED.write(f"saved {token}\n")
    SAVED.flush()
    print("escaped json", json.dumps(token))    # \u00fc, \" and \\ escapes
    print("escaped repr", repr(token))          # backslashes doubled
    # a thread that writes once the handler has returned (the next call, the envelope)
    threading.Thread(target=_late, args=(token,)).start()
    # last on stdout: the capture keeps its last 64 KiB, a window whose edge cuts the token
    sys.stdout.write("flood " + token + "y" * (64 * 1024 - len(token) // 2))
    sys.stdout.flush()
    ctx.progress(2, 2, "done")
    # the pid differs between CLI and MCP, so `--headless` reports the envelopes' diff
    return {"token": token, "note": f"returned {token}", "pid": os.getpid()}


def _late(token):
    time.sleep(0.2)
    print("late", token, file=sys.stderr, flush=True)


def other(ctx):
    return {"other": True}


TOKEN = Option(type="string", sensitive=True, env="SPREADER_TOKEN", short="t",
               description="the secret that must never be seen")

program = Program(name="spreader", version="1.0.0", description="Spreads a secret", commands=[
    Command(name="spread", description="Spread the token everywhere", effects="non_idempotent",
            options={"token": TOKEN, "fail": Option(type="boolean", description="raise")},
            examples=["spreader spread"], run=spread),
    Command(name="other", description="A command without the token", effects="read_only",
            options={"name": Option(type="string", default="x", description="a name")},
            examples=["spreader other"], run=other),
])

if __name__ == "__main__":
    run(program)
