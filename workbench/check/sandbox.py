"""The sandbox a checked program runs in: its own home, XDG folders, TMPDIR and state dir.

`burgee check` loads the program with these variables pointing into the sandbox (so paths it
computes at import land there too), keeps a copy of the tree as the load left it, and puts
that copy back before any run that follows one which changed it: every run starts from the
same state, and nothing reaches the user's folders. What it cannot cover: a path the program
hard-codes, and the network (docs/ci.md, "burgee check").
"""

from __future__ import annotations

import os
import shutil
import tempfile

from workbench._sandbox import LAYOUT
from workbench._sandbox import fingerprint as _fingerprint

WORK = "work"
"""The folder every run starts in (its current directory)."""

SAMPLE_FILE = "sample.txt"
"""A file in `WORK`: the value of a path input in a call the checker builds."""


class Sandbox:
    """A throwaway tree standing in for the user's home; `restore()` undoes what a run did."""

    def __init__(self, root: str | None = None):
        self.owned = root is None
        self.root = root or tempfile.mkdtemp(prefix="burgee-check-")
        self.live = os.path.join(self.root, "live")
        self.paths = {name: os.path.join(self.live, *relative.split("/"))
                      for name, relative in LAYOUT.items()}
        self.work = os.path.join(self.live, WORK)
        for path in (*self.paths.values(), self.work):
            os.makedirs(path, mode=0o700, exist_ok=True)
        with open(os.path.join(self.work, SAMPLE_FILE), "a", encoding="utf-8") as handle:
            handle.write("")
        self._pristine: str | None = None
        self._clean: list | None = None

    def environ(self) -> dict:
        """The sandbox's variables."""
        return dict(self.paths)

    def seal(self) -> None:
        """Keep the tree as it is now (after the program loaded) as the state every run
        starts from."""
        self._pristine = pristine = os.path.join(self.root, "pristine")
        shutil.rmtree(pristine, ignore_errors=True)
        shutil.copytree(self.live, pristine, symlinks=True)
        self._clean = _fingerprint(self.live)

    def restore(self) -> None:
        """Put the sealed tree back when a run changed anything in it."""
        if self._pristine is None:
            self.seal()
            return
        if _fingerprint(self.live) != self._clean:
            shutil.rmtree(self.live, ignore_errors=True)
            shutil.copytree(self._pristine, self.live, symlinks=True)
            self._clean = _fingerprint(self.live)

    def close(self) -> None:
        if self.owned:
            shutil.rmtree(self.root, ignore_errors=True)

