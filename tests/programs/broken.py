"""A program that breaks every rule `burgee check` holds programs to, one command per rule
(tests/test_check.py): each command's name starts with the code of the rule it breaks."""

import atexit
import os
import sys
import time
import traceback

from workbench import Argument, Command, Fail, Option, Program, run


def fine(ctx):
    return {"fine": True}


def extra_stdout(ctx):
    atexit.register(print, "written after the envelope")
    return {"fine": True}


def late_stderr(ctx):
    atexit.register(lambda: sys.stderr.write("written after the handler returned\n"))
    return {"fine": True}


def exit_outside(ctx):
    sys.stdout.flush()
    os._exit(42)


def undeclared(ctx):
    raise Fail("gone", "no such thing", exit=3)


def bad_fix(ctx):
    raise Fail("bad_input", "that input is not right", exit=2, fix="c5-fix --nope")


def ignores_yes(ctx):   # asks again whatever --yes says: its next can never succeed
    ctx.action_required("confirm", "sure?", next=[{"command": "c6-next --yes"}])


def leaks(ctx):
    return {"token_starts": (ctx.options.token or "")[:10]}


def prints(ctx):
    print(ctx.args.text)


def transport(ctx):
    return {"where": "in-process" if ctx._world.capture else "a process of its own"}


def random(ctx):
    return {"nonce": os.urandom(4).hex()}


def traceback_printed(ctx):
    try:
        1 / 0
    except ZeroDivisionError:
        traceback.print_exc()
    return {"fine": True}


def hangs_in_ci(ctx):
    if os.environ.get("CI"):
        time.sleep(60)
    return {"fine": True}


def exit_after(ctx):
    atexit.register(os._exit, 5)
    return {"fine": True}


def confirms(ctx):
    if not ctx.confirm("really?"):
        raise Fail("cancelled", "nothing done")
    return {"done": True}


ERRORS = [{"code": "bad_input", "exit": 2, "when": "never right"}]

program = Program(name="broken", version="1.0.0", description="Breaks every rule", commands=[
    Command(name="fine", description="Keeps every promise", effects="read_only",
            examples=["broken fine"], run=fine),
    Command(name="c1-stdout", description="Prints after the envelope", effects="read_only",
            examples=["broken c1-stdout"], run=extra_stdout),
    Command(name="c2-stderr", description="Writes to stderr after returning",
            effects="read_only", examples=["broken c2-stderr"], run=late_stderr),
    Command(name="c3-exit", description="Exits 42", effects="read_only",
            examples=["broken c3-exit"], run=exit_outside),
    Command(name="c4-undeclared", description="Raises a code its card lacks",
            effects="read_only", examples=["broken c4-undeclared"], run=undeclared),
    Command(name="c5-fix", description="Gives a fix that is refused", effects="read_only",
            errors=ERRORS, examples=["broken c5-fix"], run=bad_fix),
    Command(name="c6-next", description="Ignores the flag its next adds", effects="idempotent",
            options={"yes": Option(type="boolean", description="skip the question")},
            examples=["broken c6-next"], run=ignores_yes),
    Command(name="c8-leak", description="Echoes the start of its token", effects="read_only",
            options={"token": Option(type="string", sensitive=True, description="a token")},
            examples=["broken c8-leak"], run=leaks),
    Command(name="c9-print", description="Prints its text raw", effects="read_only",
            arguments=[Argument("text", description="what to print")],
            examples=["broken c9-print hello"], run=prints),
    Command(name="c10-transport", description="Answers by transport", effects="read_only",
            examples=["broken c10-transport"], run=transport),
    Command(name="c11-random", description="Answers something new each time",
            effects="read_only", examples=["broken c11-random"], run=random),
    Command(name="c13-traceback", description="Prints a traceback", effects="read_only",
            examples=["broken c13-traceback"], run=traceback_printed),
    Command(name="c14-hang", description="Waits forever under CI", effects="read_only",
            examples=["broken c14-hang"], run=hangs_in_ci),
    Command(name="c15-exit", description="Exits 5 after its envelope", effects="read_only",
            examples=["broken c15-exit"], run=exit_after),
    Command(name="r1-no-example", description="Has no example", effects="read_only", run=fine),
    Command(name="r3-list", description="Returns a list, unpaged", effects="read_only",
            examples=["broken r3-list"], run=lambda ctx: [1, 2, 3]),
    Command(name="r4-no-key", description="Writes without an idempotency key",
            effects="non_idempotent", examples=["broken r4-no-key"], run=fine),
    Command(name="r5-confirm", description="Confirms without a flag", effects="idempotent",
            examples=["broken r5-confirm"], run=confirms),
    Command(name="r6-long", description="A description far longer than any card should "
            "carry, repeated in every tool listing and every card an agent reads, word "
            "for word", effects="read_only", examples=["broken r6-long"], run=fine),
])

_key = program.find(["r4-no-key"])
del _key.options["idempotency_key"]          # R4: what effects='non_idempotent' adds, taken away
_key.framework_keys = frozenset()

if __name__ == "__main__":
    run(program)
