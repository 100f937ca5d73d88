"""Issue 34's part of the contract's vocabulary, one command each: a person required by the
handler, a failure with next steps, an exception after reported steps, an exception in a
write, a read-only failure, refusals after reported steps."""

from workbench import Command, Fail, Option, Program, run


def login(ctx):
    ctx.person_required("login", "nobody is logged in", "run `vocab login --web` in a terminal",
                        next=[{"command": "login --web", "why": "opens the login page for the "
                               "person"},
                              {"command": "login", "why": "the same call again (left out)"}])


def find(ctx):
    raise Fail("not_found", f"no item {ctx.options.name!r}", exit=3,
               next=[{"command": ["list", "--prefix", ctx.options.name[:1]],
                      "why": "to see the items with its first letter"}])


def upload(ctx):
    ctx.step("uploaded", file="a.txt")
    ctx.step("indexed", file="a.txt")
    raise RuntimeError("the disk filled up")


def write(ctx):
    raise RuntimeError("lost the connection")


def move(ctx):
    ctx.step("copied", file="a.txt")
    raise Fail("bad_target", f"cannot move into {ctx.options.to!r}", exit=2,
               fix=["move", "--to", "archive"], field="to")


def sync(ctx):
    ctx.step("pulled", file="a.txt")
    return {"pushed": ctx.prompt("where to push", option="to")}


def drain(ctx):
    yield {"item": 1}
    raise Fail("conflict", "it is locked", exit=5, effects="none", hint="unlock it first")


def careful(ctx):
    raise Fail("conflict", "it is locked", exit=5, effects="none", hint="unlock it first")


program = Program(
    name="vocab", version="1.0", description="The vocabulary of issue 34",
    commands=[
        Command(name="login", description="Log in", effects="idempotent",
                options={"web": Option(type="boolean", description="open the login page")},
                errors=[{"code": "person_required", "exit": 13}],
                examples=["vocab login"], run=login),
        Command(name="find", description="Find an item", effects="read_only",
                options={"name": Option(type="string", required=True, description="its name")},
                errors=["not_found"], examples=["vocab find --name bolt"], run=find),
        Command(name="list", description="List items", effects="read_only",
                options={"prefix": Option(type="string", description="first letters")},
                examples=["vocab list"], run=lambda ctx: {"items": []}),
        Command(name="upload", description="Upload and index a file",
                effects="non_idempotent", examples=["vocab upload"], run=upload),
        Command(name="write", description="Write a record", effects="non_idempotent",
                examples=["vocab write"], run=write),
        Command(name="move", description="Copy a file, then move it",
                effects="non_idempotent",
                options={"to": Option(type="string", description="the folder")},
                examples=["vocab move --to archive"], run=move),
        Command(name="sync", description="Pull a file, then push it where you say",
                effects="non_idempotent",
                options={"to": Option(type="string", description="the remote")},
                examples=["vocab sync --to origin"], run=sync),
        Command(name="drain", description="Stream items until the lock says no",
                effects="non_idempotent", errors=[{"code": "conflict", "exit": 5}],
                examples=["vocab drain"], run=drain),
        Command(name="careful", description="A write that knows it changed nothing",
                effects="non_idempotent", errors=[{"code": "conflict", "exit": 5}],
                examples=["vocab careful"], run=careful),
    ],
)

if __name__ == "__main__":
    run(program)
