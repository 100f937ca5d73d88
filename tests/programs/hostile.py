"""Handlers that misbehave the ways an attacker would try (issue 29): threads that outlive the
call, calls that hang or never return, processes that end themselves, secrets in escaped forms,
in numbers' neighbourhoods and past the capture window."""

import ctypes
import json
import os
import signal
import sys
import threading
import time

from workbench import Command, Option, Program, run


def late(ctx):
    """Starts a thread that prints the token after the call has answered."""
    token = ctx.options.token
    delay = ctx.options.delay

    def later():
        time.sleep(delay)
        print("late", token, flush=True)
        os.write(2, f"late on fd 2 {token}\n".encode())

    threading.Thread(target=later).start()
    return {"started": True}


def nap(ctx):
    """Sleeps, then says when it started and ended (monotonic clock, shared by processes)."""
    started = time.monotonic()
    marker = os.environ.get("HOSTILE_MARKER")
    if marker:
        open(f"{marker}.{os.getpid()}", "w").close()
    time.sleep(ctx.options.seconds)
    return {"started": started, "ended": time.monotonic(), "pid": os.getpid()}


def hang(ctx):
    """Never returns (with --stubborn, not even on SIGTERM); writes its pid to
    $HOSTILE_MARKER first."""
    if ctx.options.stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    marker = os.environ.get("HOSTILE_MARKER")
    if marker:
        with open(marker + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.replace(marker + ".tmp", marker)
    while True:
        time.sleep(1)


def quit_(ctx):
    os._exit(3)


def crash(ctx):
    ctypes.string_at(0)   # SIGSEGV


def killed(ctx):
    os.kill(os.getpid(), signal.SIGKILL)   # what the OOM killer does


def environment(ctx):
    return {"token_seen": "BURGEE_MCP_TOKEN" in os.environ,
            "names": sorted(name for name in os.environ if name.startswith("BURGEE_MCP"))}


def progress(ctx):
    """Reports three steps; with $HOSTILE_GATE, waits after the first (30 s at most) until the
    caller, having heard it, makes that file: proof the progress arrived while it ran."""
    gate = os.environ.get("HOSTILE_GATE")
    opened = None
    for step in range(3):
        ctx.progress(step + 1, 3, f"step {step + 1}")
        if gate and step == 0:
            deadline = time.monotonic() + 30
            while not os.path.exists(gate) and time.monotonic() < deadline:
                time.sleep(0.01)
            opened = os.path.exists(gate)
    return {"steps": 3, "heard_while_running": opened}


def quantity(ctx):
    return {"quantity": 5000, "api": ctx.options.api_key is not None, "label": "api_key"}


def escaped(ctx):
    token = ctx.options.token
    print(json.dumps({"token": token}))                        # \u00e4 and \" escapes
    print(json.dumps({"token": token}, ensure_ascii=False))    # \" only
    print(repr(token))                                         # doubled backslashes
    print(ascii(token))
    return {"token": token}


def flood(ctx):
    token = ctx.options.token
    # the capture keeps the last 64 KiB: put the token across that window's edge, in a line
    # too long for the window to start at a line
    sys.stdout.write("x" * 1000 + "\n" + token + "y" * (64 * 1024 - len(token) // 2))
    return {"flooded": True}


def stop(ctx):
    sys.exit(f"cannot go on with {ctx.options.token}")


def hold(ctx):
    """Waits (for SIGTERM) after saying it started; a stream when --count is given; with
    --forever, first starts a thread that never ends (Python would wait for it at exit)."""
    marker = os.environ.get("HOSTILE_MARKER")
    if ctx.options.forever:
        threading.Thread(target=lambda: time.sleep(10_000)).start()
    if ctx.options.count:
        def items():
            for i in range(ctx.options.count):
                yield {"i": i}
                if marker and i == 0:
                    open(marker, "w").close()
                time.sleep(0.05)
        return items()
    if marker:
        open(marker, "w").close()
    time.sleep(60)
    return {"held": True}


TOKEN = Option(type="string", sensitive=True, description="a secret")

program = Program(name="hostile", version="1.0.0", description="Misbehaving handlers",
                  commands=[
    Command(name="late", description="a thread prints the token later", effects="read_only",
            options={"token": TOKEN, "delay": Option(type="number", default=0.3,
                                                      description="seconds")}, run=late),
    Command(name="nap", description="sleep", effects="read_only",
            options={"seconds": Option(type="number", default=1.0, description="seconds")},
            run=nap),
    Command(name="hang", description="never returns", effects="read_only",
            options={"stubborn": Option(type="boolean", description="ignore SIGTERM")},
            run=hang),
    Command(name="quit", description="os._exit(3)", effects="read_only", run=quit_),
    Command(name="crash", description="a segmentation fault", effects="read_only", run=crash),
    Command(name="killed", description="killed by SIGKILL", effects="read_only", run=killed),
    Command(name="environment", description="what the handler's environment holds",
            effects="read_only", run=environment),
    Command(name="progress", description="reports progress", effects="read_only",
            run=progress),
    Command(name="quantity", description="a number beside a secret", effects="read_only",
            options={"api_key": Option(type="string", sensitive=True, description="a key")},
            run=quantity),
    Command(name="escaped", description="prints the token escaped", effects="read_only",
            options={"token": TOKEN},
            run=escaped),
    Command(name="flood", description="prints past the capture window", effects="read_only",
            options={"token": TOKEN},
            run=flood),
    Command(name="stop", description="sys.exit with the token", effects="read_only",
            options={"token": TOKEN},
            run=stop),
    Command(name="hold", description="waits for a signal", effects="read_only",
            options={"count": Option(type="integer", description="stream this many items"),
                     "forever": Option(type="boolean", description="leave a thread behind")},
            run=hold),
])

if __name__ == "__main__":
    run(program)
