"""`burgee diff OLD NEW`: the change review of two versions of a program.

Each side is a program file, a snapshot folder (as `burgee dev --headless` writes it), or
a git revision of either, `REV:path` (read with `git show`, from the current folder's
repository). Both become snapshot-folder content (`{relative path: text}`) and go to
`workbench.dev.changes.review_files`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from typing import Any

from workbench.declaration.model import Program
from workbench.dev.changes import Review, review_files
from workbench.dev.snapshot import META_FILES, read_tree, render
from workbench.loader import LoadError, load_program


class SourceError(ValueError):
    """A side of the diff that cannot be read; the message names the fix."""


def files_of_program(program: Program) -> dict[str, str]:
    """The snapshot files of a loaded program (surfaces only: examples are not run)."""
    return {surface.id: surface.pretty() for surface in render(program).values()}


def _snapshot_root(folder: str) -> str:
    """`folder` itself when it holds `schema.json`, else its only program subfolder."""
    if os.path.isfile(os.path.join(folder, "schema.json")):
        return folder
    subs = [os.path.join(folder, name) for name in sorted(os.listdir(folder))
            if os.path.isfile(os.path.join(folder, name, "schema.json"))]
    if len(subs) == 1:
        return subs[0]
    what = "no snapshot" if not subs else f"{len(subs)} program snapshots"
    raise SourceError(f"{folder} holds {what}; pass a folder that has schema.json "
                      f"(e.g. .burgee/snapshots/<program>)")


def _load_file(path: str, program_name: str | None) -> dict[str, str]:
    try:
        return files_of_program(load_program(path, program_name))
    except LoadError as error:
        raise SourceError(f"{path}: {error.message}") from None


def _git(*argv: str) -> str:
    done = subprocess.run(["git", *argv], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise SourceError(f"git {' '.join(argv)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def _from_git(rev: str, path: str, program_name: str | None) -> dict[str, str]:
    prefix = _git("rev-parse", "--show-prefix").strip()
    inside = (prefix + path).rstrip("/") if not path.startswith("/") else path
    kind = _git("cat-file", "-t", f"{rev}:{inside}").strip()
    if kind == "tree":
        names = _git("ls-tree", "-r", "--name-only", f"{rev}:{inside}").splitlines()
        with tempfile.TemporaryDirectory(prefix="burgee-diff-") as folder:
            for name in names:
                target = os.path.join(folder, *name.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(_git("show", f"{rev}:{inside}/{name}"))
            return read_snapshot(folder)
    text = _git("show", f"{rev}:{inside}")
    # Beside the current file, so its own imports (sibling modules) resolve as they did.
    where = os.path.dirname(os.path.abspath(path)) if os.path.isdir(
        os.path.dirname(os.path.abspath(path))) else None
    temporary = tempfile.NamedTemporaryFile("w", suffix=".py", prefix=".burgee-diff-",
                                            dir=where, delete=False, encoding="utf-8")
    try:
        with temporary:
            temporary.write(text)
        return _load_file(temporary.name, program_name)
    finally:
        os.unlink(temporary.name)


def read_snapshot(folder: str) -> dict[str, str]:
    """The files of a snapshot folder as `{relative path: text}`."""
    return {rel: text for rel, text in read_tree(_snapshot_root(folder)).items()
            if text is not None}


def files_of(source: str, program_name: str | None = None) -> dict[str, str]:
    """Snapshot files of one side: a program file, a snapshot folder, or `REV:path`."""
    if os.path.isdir(source):
        return read_snapshot(source)
    if os.path.isfile(source):
        return _load_file(source, program_name)
    rev, sep, path = source.partition(":")
    if sep and rev and path:
        return _from_git(rev, path, program_name)
    raise SourceError(f"{source} is neither a file, a folder nor REV:path; pass a program "
                      f"file, a snapshot folder, or e.g. HEAD~1:app.py")


def diff_sources(old: str, new: str, program_name: str | None = None) -> Review:
    """The `Review` from `old` to `new` (each a file, a folder or `REV:path`). A snapshot
    folder's measured files (tokens, problems, example runs) are compared only with another
    folder's: a program file has none, and their absence is no change."""
    before, after = files_of(old, program_name), files_of(new, program_name)
    for name in META_FILES:
        if (name in before) != (name in after):
            before.pop(name, None)
            after.pop(name, None)
    return review_files(before, after)


def render_review(data: dict[str, Any]) -> str:
    """A review (`Review.to_dict()`) for a person: counts, a verdict, each change, breaking
    first."""
    marks = {"breaking": "\u2717", "additive": "+", "cosmetic": "~"}
    lines = [data["summary"]]
    if data["blocked"]:
        lines.append("verdict: breaking changes without a major version bump")
    elif data["counts"]["breaking"]:
        lines.append("verdict: breaking changes, announced by the major version bump")
    else:
        lines.append("verdict: compatible")
    for change in data["changes"]:
        where = f"[{change['command']}] " if change["command"] else ""
        lines.append(f"{marks[change['kind']]} {change['kind']:<9} {change['rule']:<20} "
                     f"{where}{change['reason']}")
    unexplained = data.get("unexplained") or []
    if not data["changes"]:
        lines.append("no contract change" + (
            f" ({len(unexplained)} file(s) differ: {', '.join(unexplained[:5])})"
            if unexplained else ""))
    return "\n".join(lines)
