"""Typer's tutorial app, ported to burgee with type hints: the same Program as
../users.py (whose text renderers it reuses), written the way the tutorial writes it.

    python sample_programs/ported/typed/users.py --verbose create Camila
"""

import os
import runpy
from typing import Annotated

from workbench import run
from workbench.typed import App, Arg, Opt

_data = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "users.py"))
created, deleted = _data["created"], _data["deleted"]

app = App("users", version="0.1.0", description="Awesome CLI user manager.")
Username = Annotated[str, Arg("the user's name")]


@app.callback()
def note_verbose(verbose: Annotated[bool, Opt("Write verbose output.")] = False):
    """What Typer's `@app.callback()` did: say that the output will be verbose."""
    if verbose:
        print("Will write verbose output")


@app.command(effects="non_idempotent", text=created,
             examples=["users create Camila", "users --verbose create Camila"])
def create(ctx, username: Username):
    """Create a new user with username."""
    return {"created": username, "verbose": ctx.options.verbose}


@app.command(effects="non_idempotent", text=deleted, examples=["users delete Camila --force"])
def delete(ctx, username: Username,
           force: Annotated[bool, Opt("Force deletion without confirmation.",
                                      prompt="Are you sure you want to delete the user?")]
           = False):
    """Delete a user with username.

    If --force is not used, will ask for confirmation.
    """
    return {"deleted": username if force else None, "verbose": ctx.options.verbose}


@app.command(effects="non_idempotent",
             text=lambda data: "Deleting all users" if data["deleted_all"]
             else "Operation cancelled",
             examples=["users delete-all --force"])
def delete_all(force: Annotated[bool, Opt("Force deletion without confirmation.",
                                          prompt="Are you sure you want to delete ALL users?")]
               = False):
    """Delete ALL users in the database.

    If --force is not used, will ask for confirmation.
    """
    return {"deleted_all": bool(force)}


@app.command(effects="idempotent", text=lambda data: "Initializing user database",
             examples=["users init"])
def init():
    """Initialize the users database."""
    return {"initialized": True}


if __name__ == "__main__":
    run(app)
