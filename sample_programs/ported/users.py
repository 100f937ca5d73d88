"""Typer's tutorial app (the "awesome CLI user manager"), ported to burgee as data.

The command lines of Typer's tutorial (typer.tiangolo.com/tutorial/commands/) work as
documented: a `--verbose` of the program before the command's name (also accepted after it
here), `delete` and `delete-all` asking for confirmation unless `--force` is given, and each
command's long help. An agent, or any caller with no terminal, is never asked: it is told to
pass `--force` (or `--no-force`) instead.

    python sample_programs/ported/users.py --verbose create Camila
    python sample_programs/ported/users.py delete-all --force
"""

from workbench import Argument, Command, Option, Program, run


def note_verbose(ctx):
    """What Typer's `@app.callback()` did: say that the output will be verbose."""
    if ctx.options.verbose:
        print("Will write verbose output")


def create(ctx):
    return {"created": ctx.args.username, "verbose": ctx.options.verbose}


def created(data):
    lines = [f"Creating user: {data['created']}"]
    if data["verbose"]:
        lines = ["About to create a user", *lines, "Just created a user"]
    return "\n".join(lines)


def delete(ctx):
    if not ctx.options.force:
        return {"deleted": None, "verbose": ctx.options.verbose}
    return {"deleted": ctx.args.username, "verbose": ctx.options.verbose}


def deleted(data):
    if data["deleted"] is None:
        return "Operation cancelled"
    lines = [f"Deleting user: {data['deleted']}"]
    if data["verbose"]:
        lines = ["About to delete a user", *lines, "Just deleted a user"]
    return "\n".join(lines)


def delete_all(ctx):
    return {"deleted_all": bool(ctx.options.force)}


def init(ctx):
    return {"initialized": True}


USERNAME = Argument("username", description="the user's name")


def force(question):
    return Option(type="boolean", description="Force deletion without confirmation.",
                  prompt=question)


program = Program(
    name="users", version="0.1.0", description="Awesome CLI user manager.",
    options={"verbose": Option(type="boolean", description="Write verbose output.")},
    setup=note_verbose,
    commands=[
        Command("create", "Create a new user with username.", effects="non_idempotent",
                arguments=[USERNAME], run=create, text=created,
                examples=["users create Camila", "users --verbose create Camila"]),
        Command("delete", "Delete a user with username.", effects="non_idempotent",
                help="If --force is not used, will ask for confirmation.",
                options={"force": force("Are you sure you want to delete the user?")},
                arguments=[USERNAME], run=delete, text=deleted,
                examples=["users delete Camila --force"]),
        Command("delete-all", "Delete ALL users in the database.", effects="non_idempotent",
                help="If --force is not used, will ask for confirmation.",
                options={"force": force("Are you sure you want to delete ALL users?")},
                run=delete_all,
                text=lambda data: "Deleting all users" if data["deleted_all"]
                else "Operation cancelled",
                examples=["users delete-all --force"]),
        Command("init", "Initialize the users database.", effects="idempotent", run=init,
                text=lambda data: "Initializing user database", examples=["users init"]),
    ],
)

if __name__ == "__main__":
    run(program)
