"""The throwaway sandbox every workbench run gets: its own home, XDG folders, TMPDIR, state dir.

Every call the workbench makes by itself or on a person's request (an environment in the
Environments pane, each side of an example diff, every example `--headless` runs) runs in a
fresh `Sandbox`, removed afterwards. A program that keeps its state under the user's folders
(`~/.local/state/...`, `$XDG_CONFIG_HOME/...`, burgee's own idempotency store) therefore works
on an empty scratch copy: the workbench never reads or changes the user's real data, and two
runs can never see each other's writes, so running them in parallel cannot change a result.

What a sandbox does not cover: an absolute path the program hard-codes (`/var/lib/tool`,
`/home/me/notes.json`), a path it is given in an option or an environment variable the
sandbox does not set (`NOTES_FILE=...`), the network, and code that runs when the file is
imported into the workbench itself (loading it runs module-level code in the workbench's own
process, with the real environment). MCP clients connected to `burgee dev` are not
sandboxed either: their calls are what a person (or their agent) asked for, as with
`tool mcp`.

    with Sandbox() as box:
        env = box.environ(base_env)      # base_env with HOME, XDG_*, TMPDIR, ... replaced

`current()` is the sandbox of the call being made on this thread or task (a context variable),
which is how the dev MCP server's subprocess runs into the sandbox of the diff that asked.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator, Mapping

from workbench._sandbox import LAYOUT, VARIABLES

_CURRENT: contextvars.ContextVar[Sandbox | None] = contextvars.ContextVar("burgee_sandbox",
                                                                          default=None)


class Sandbox:
    """A temporary folder tree standing in for the user's home; see the module docstring."""

    root: str
    paths: dict[str, str]
    closed: bool
    cancelled: bool

    def __init__(self, prefix: str = "burgee-run-") -> None:
        self.root = tempfile.mkdtemp(prefix=prefix)
        self.paths = {name: os.path.join(self.root, *relative.split("/"))
                      for name, relative in LAYOUT.items()}
        for path in self.paths.values():
            os.makedirs(path, mode=0o700, exist_ok=True)
        self.closed = False
        self.cancelled = False
        self._groups: set[int] = set()
        self._lock = threading.Lock()

    def started(self, group: int) -> None:
        """A process group began running in this sandbox (killed at once if it is cancelled)."""
        with self._lock:
            self._groups.add(group)
            cancelled = self.cancelled
        if cancelled:
            _kill(group)

    def ended(self, group: int) -> None:
        """The process group ended (or was reaped): never signal that id again."""
        with self._lock:
            self._groups.discard(group)

    def kill(self) -> int:
        """Cancel the sandbox's runs: kill every process group running in it (a handler's
        children too) and any that starts later; how many were running."""
        with self._lock:
            self.cancelled = True
            groups = list(self._groups)
        for group in groups:
            _kill(group)
        return len(groups)

    def environ(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """A copy of `base` (default: this process's environment) pointing into the sandbox."""
        env = dict(os.environ if base is None else base)
        env.update(self.paths)
        return env

    def close(self) -> None:
        """Remove the sandbox and everything the run left in it."""
        if not self.closed:
            self.closed = True
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Sandbox({self.root!r})"


def _kill(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:   # already gone
        pass


def current() -> Sandbox | None:
    """The sandbox the current call runs in (set with `using`), or None."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(box: Sandbox | None) -> Iterator[Sandbox | None]:
    """`with using(box):` makes `box` the current sandbox for this thread or task (and the
    tasks and worker threads it starts, which copy the context)."""
    token = _CURRENT.set(box)
    try:
        yield box
    finally:
        _CURRENT.reset(token)


def apply(env: dict[str, str], box: Sandbox | None = None) -> dict[str, str]:
    """`env` with the sandbox's variables (`box`, else the current one) set; `env` if none."""
    box = box if box is not None else current()
    return box.environ(env) if box is not None else env
