"""Click's `repo` example, ported to burgee with type hints: the same Program as ../repo.py
(whose Repo class and text renderers it reuses). The group callback is `@app.callback()`;
paths are `os.PathLike` (the text as typed, as `click.Path()` gives it), not `Path`.

    python sample_programs/ported/typed/repo.py -v --config user.name ann clone https://x/y.git
"""

import os
import posixpath
import runpy
from typing import Annotated, Optional

from workbench import Fail, run
from workbench.typed import App, Arg, Opt

_data = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "repo.py"))
Repo, cloned, committed = _data["Repo"], _data["cloned"], _data["committed"]

app = App("repo", version="1.0",
          description="Repo is a command line tool that showcases how to build complex "
                      "command line interfaces with burgee.")


@app.callback()
def open_repo(ctx,
              repo_home: Annotated[str, Opt("Changes the repository folder location.",
                                            env="REPO_HOME", placeholder="PATH")] = ".repo",
              config: Annotated[list[tuple[str, str]], Opt(
                  "Overrides a config key/value pair.", placeholder="KEY VALUE")] = [],
              verbose: Annotated[bool, Opt("Enables verbose mode.", short="v")] = False):
    """Every command works on the repository `--repo-home` names, with `--config` applied."""
    ctx.obj = Repo(os.path.abspath(repo_home), verbose, config)


@app.command(effects="non_idempotent", text=cloned,
             examples=["repo clone https://example.org/x.git --shallow -r v1"])
def clone(ctx, src: str, dest: Annotated[Optional[str], Arg()] = None,
          shallow: Annotated[bool, Opt("Makes a checkout shallow or deep. Deep by default.",
                                       off="--deep")] = False,
          rev: Annotated[str, Opt("Clone a specific revision instead of HEAD.",
                                  short="r")] = "HEAD"):
    """Clones a repository.

    This will clone the repository at SRC into the folder DEST. If DEST is not provided
    this will automatically use the last path component of SRC and create that folder.
    """
    if dest is None:
        dest = posixpath.split(src)[-1] or "."
    ctx.obj.home = dest
    return {"src": src, "dest": os.path.basename(dest), "shallow": shallow, "rev": rev}


@app.command(effects="non_idempotent",
             text=lambda data: f"Destroying repo {data['destroyed']}\nDeleted!",
             examples=["repo delete --yes"])
def delete(ctx, yes: Annotated[bool, Opt("Confirm the action without prompting.",
                                         prompt="Do you want to continue?")] = False):
    """Deletes a repository.

    This will throw away the current repository.
    """
    if not yes:
        raise Fail("aborted", "Aborted!", hint="pass --yes to delete the repository")
    return {"destroyed": ctx.obj.home}


@app.command(effects="idempotent", text=lambda data: "Changed credentials.",
             examples=["repo setuser --username ann --email ann@example.org "
                       "--password <password>"])
def setuser(ctx,
            username: Annotated[str, Opt("The developer's shown username.", prompt=True)],
            email: Annotated[str, Opt("The developer's email address", prompt="E-Mail")],
            password: Annotated[str, Opt("The login password.", prompt=True, hide_input=True,
                                         confirmation_prompt=True, sensitive=True)]):
    """Sets the user credentials.

    This will override the current user config.
    """
    ctx.obj.configure("username", username)
    ctx.obj.configure("email", email)
    ctx.obj.configure("password", "*" * len(password))
    return {"username": username, "email": email}


@app.command(effects="non_idempotent", text=committed,
             examples=["repo commit -m 'Fix the bug' a.py"])
def commit(ctx,
           message: Annotated[list[str], Opt("The commit message. If provided multiple times "
                                             "each argument gets converted into a new line.",
                                             short="m")] = [],
           files: Annotated[list[os.PathLike], Arg()] = []):
    """Commits outstanding changes.

    Commit changes to the given files into the repository. You will need to "repo push" to
    push up your changes to other repositories.

    If a list of files is omitted, all changes reported by "repo status" will be committed.
    """
    message = message or [ctx.prompt("Commit message", option="message")]
    return {"files": files, "message": "\n".join(message)}


@app.command(effects="non_idempotent",
             text=lambda data: "\n".join(f"Copy from {row['from']} -> {row['to']}"
                                         for row in data),
             examples=["repo copy a.txt b.txt backup/"])
def copy(*, src: Annotated[list[os.PathLike], Arg()] = [], dst: os.PathLike,
         force: Annotated[bool, Opt("forcibly copy over an existing managed file")] = False):
    """Copies files.

    Copies one or multiple files to a new location. This copies all files from SRC to DST.
    """
    return [{"from": name, "to": dst} for name in src]


if __name__ == "__main__":
    run(app)
