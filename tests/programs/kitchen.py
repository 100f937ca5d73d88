"""Every input kind, for parser tests."""

import os
import time

from workbench import Argument, Command, Fail, Group, Option, Program, run


def echo(ctx):
    return {"options": dict(ctx.options), "args": dict(ctx.args)}


def explode(ctx):
    raise RuntimeError(f"boom with {ctx.options.password}")


def sleep(ctx):
    marker = os.environ.get("KITCHEN_MARKER")
    if marker:
        open(marker, "w").close()   # the test knows the handler is running
    time.sleep(float(ctx.options.seconds))
    return {"slept": ctx.options.seconds}


def many(ctx):
    for i in range(ctx.options.count):
        yield {"i": i, "text": "x" * 50}


def ask(ctx):
    name = ctx.prompt("your name", option="name")
    return {"name": name}


def confirm(ctx):
    return {"confirmed": ctx.confirm("really?")}


def append(ctx):
    time.sleep(ctx.options.delay)
    with open(ctx.options.file, "a") as handle:
        handle.write(ctx.options.line + "\n")
    with open(ctx.options.file) as handle:
        return {"lines": len(handle.read().splitlines())}


def fail(ctx):
    raise Fail("conflict", "the thing is locked", hint="unlock it first", exit=5,
               fix="unlock --force")


program = Program(
    name="kitchen", version="2.0.0", description="A program with every kind of input",
    commands=[
        Command(name="echo", description="Echo every input", effects="read_only",
                options={
                    "name": Option(type="string", description="a name", short="n"),
                    "count": Option(type="integer", default=1, description="how many"),
                    "ratio": Option(type="number", description="a ratio"),
                    "verbose": Option(type="boolean", description="more", short="v"),
                    "quiet": Option(type="boolean", description="less", short="q"),
                    "color": Option(type="enum", choices=["red", "green", "blue"],
                                    description="a color"),
                    "tag": Option(type="list", description="tags"),
                    "size": Option(type="integer", env="KITCHEN_SIZE", description="a size"),
                },
                arguments=[Argument("first", description="first word", required=False),
                           Argument("rest", description="more words", required=False,
                                    variadic=True)],
                examples=["kitchen echo --name x"], run=echo),
        Command(name="explode", description="Raise an exception", effects="read_only",
                options={"password": Option(type="string", sensitive=True, env="KITCHEN_PASSWORD",
                                            description="a secret")},
                examples=["kitchen explode"], run=explode),
        Command(name="sleep", description="Sleep", effects="read_only",
                options={"seconds": Option(type="number", default=30, description="how long")},
                examples=["kitchen sleep --seconds 0"], run=sleep),
        Command(name="many", description="Yield many items", effects="read_only",
                options={"count": Option(type="integer", default=100000, description="how many")},
                examples=["kitchen many --count 2"], run=many),
        Command(name="ask", description="Prompt for a name", effects="read_only",
                options={"name": Option(type="string", description="your name")},
                examples=["kitchen ask --name x"], run=ask),
        Command(name="confirm", description="Ask for confirmation", effects="idempotent",
                options={"yes": Option(type="boolean", description="skip the question")},
                examples=["kitchen confirm --yes"], run=confirm),
        Command(name="append", description="Append a line to a file", effects="non_idempotent",
                options={"file": Option(type="string", required=True, description="the file"),
                         "line": Option(type="string", default="x", description="the line"),
                         "delay": Option(type="number", default=0, description="wait first")},
                examples=["kitchen append --file /tmp/x"], run=append),
        Group(name="db", description="Database things", commands=[
            Command(name="fail", description="Fail with a conflict", effects="non_idempotent",
                    examples=["kitchen db fail"], run=fail),
        ]),
    ],
)

if __name__ == "__main__":
    run(program)
