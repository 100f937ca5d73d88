"""Click's `repo` example (a tool that looks like hg or git), ported to burgee as data.

Its command lines work as Click's example documents them: the program's own options before
the command (`repo --repo-home X -v --config KEY VALUE clone ...`, accepted after it too),
`--shallow/--deep`, a confirmation for `delete`, prompts for `setuser` (the password hidden
and asked twice), `copy SRC... DST`. What the group's callback built is `ctx.obj` here, made
by the program's `setup`.

    python sample_programs/ported/repo.py --repo-home /tmp/r clone https://x/y.git --shallow
    python sample_programs/ported/repo.py copy a.txt b.txt dest/
"""

import os
import posixpath
import sys

from workbench import Argument, Command, Fail, Option, Program, run


class Repo:
    """The repository every command works on: where it lives, and its settings (each one
    said on stderr as it is set, in verbose mode)."""

    def __init__(self, home, verbose=False, settings=()):
        self.home, self.verbose, self.config = home, verbose, {}
        for key, value in settings:
            self.configure(key, value)

    def configure(self, key, value):
        self.config[key] = value
        if self.verbose:
            sys.stderr.write(f"  config[{key}] = {value}\n")


def open_repo(ctx):
    """Every command works on the repository `--repo-home` names, with `--config` applied."""
    ctx.obj = Repo(os.path.abspath(ctx.options.repo_home), ctx.options.verbose,
                   ctx.options.config)


def clone(ctx):
    src, dest = ctx.args.src, ctx.args.dest
    if dest is None:
        dest = posixpath.split(src)[-1] or "."
    ctx.obj.home = dest
    return {"src": src, "dest": os.path.basename(dest), "shallow": ctx.options.shallow,
            "rev": ctx.options.rev}


def cloned(data):
    lines = [f"Cloning repo {data['src']} to {data['dest']}"]
    if data["shallow"]:
        lines.append("Making shallow checkout")
    return "\n".join(lines + [f"Checking out revision {data['rev']}"])


def delete(ctx):
    if not ctx.options.yes:
        raise Fail("aborted", "Aborted!", hint="pass --yes to delete the repository")
    return {"destroyed": ctx.obj.home}


def setuser(ctx):
    for key in ("username", "email"):
        ctx.obj.configure(key, ctx.options[key])
    ctx.obj.configure("password", "*" * len(ctx.options.password))
    return {"username": ctx.options.username, "email": ctx.options.email}


def commit(ctx):
    message = ctx.options.message or [ctx.prompt("Commit message", option="message")]
    return {"files": ctx.args.files, "message": "\n".join(message)}


def committed(data):
    return f"Files to be committed: {tuple(data['files'])}\nCommit message:\n{data['message']}"


def copy(ctx):
    return [{"from": name, "to": ctx.args.dst} for name in ctx.args.src]


program = Program(
    name="repo", version="1.0",
    description="Repo is a command line tool that showcases how to build complex command "
                "line interfaces with burgee.",
    options={
        "repo_home": Option(env="REPO_HOME", default=".repo", placeholder="PATH",
                            description="Changes the repository folder location."),
        "config": Option(type="list", nargs=2, placeholder="KEY VALUE",
                         description="Overrides a config key/value pair."),
        "verbose": Option(type="boolean", short="v", description="Enables verbose mode."),
    },
    setup=open_repo,
    commands=[
        Command("clone", "Clones a repository.", effects="non_idempotent",
                help="This will clone the repository at SRC into the folder DEST. If DEST is "
                     "not provided this will automatically use the last path component of "
                     "SRC and create that folder.",
                options={"shallow": Option(type="boolean", off="--deep",
                                           description="Makes a checkout shallow or deep. "
                                                       "Deep by default."),
                         "rev": Option(short="r", default="HEAD",
                                       description="Clone a specific revision instead of "
                                                   "HEAD.")},
                arguments=[Argument("src"), Argument("dest", required=False)],
                run=clone, text=cloned,
                examples=["repo clone https://example.org/x.git --shallow -r v1"]),
        Command("delete", "Deletes a repository.", effects="non_idempotent",
                help="This will throw away the current repository.",
                options={"yes": Option(type="boolean", prompt="Do you want to continue?",
                                       description="Confirm the action without prompting.")},
                run=delete,
                text=lambda data: f"Destroying repo {data['destroyed']}\nDeleted!",
                examples=["repo delete --yes"]),
        Command("setuser", "Sets the user credentials.", effects="idempotent",
                help="This will override the current user config.",
                options={"username": Option(prompt=True,
                                            description="The developer's shown username."),
                         "email": Option(prompt="E-Mail",
                                         description="The developer's email address"),
                         "password": Option(prompt=True, hide_input=True,
                                            confirmation_prompt=True, sensitive=True,
                                            description="The login password.")},
                run=setuser, text=lambda data: "Changed credentials.",
                examples=["repo setuser --username ann --email ann@example.org "
                          "--password <password>"]),
        Command("commit", "Commits outstanding changes.", effects="non_idempotent",
                help="Commit changes to the given files into the repository. You will need "
                     "to \"repo push\" to push up your changes to other repositories.\n\n"
                     "If a list of files is omitted, all changes reported by \"repo status\" "
                     "will be committed.",
                options={"message": Option(type="list", short="m",
                                           description="The commit message. If provided "
                                                       "multiple times each argument gets "
                                                       "converted into a new line.")},
                arguments=[Argument("files", type="path", variadic=True, required=False)],
                run=commit, text=committed, examples=["repo commit -m 'Fix the bug' a.py"]),
        Command("copy", "Copies files.", effects="non_idempotent",
                help="Copies one or multiple files to a new location. This copies all files "
                     "from SRC to DST.",
                options={"force": Option(type="boolean",
                                         description="forcibly copy over an existing managed "
                                                     "file")},
                arguments=[Argument("src", type="path", variadic=True, required=False),
                           Argument("dst", type="path")],
                run=copy,
                text=lambda data: "\n".join(f"Copy from {row['from']} -> {row['to']}"
                                            for row in data),
                examples=["repo copy a.txt b.txt backup/"]),
    ],
)

if __name__ == "__main__":
    run(program)
