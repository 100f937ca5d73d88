"""The sandbox layout and its fingerprint, shared by `burgee dev`'s runs and `burgee check`'s.

A sandbox stands in for the user's home: each variable of `LAYOUT` points at a folder inside
it, so what a program writes under its home, XDG folders, TMPDIR or burgee's state stays
there. `fingerprint(root)` changes with any write under `root`, so a run that wrote is undone
before the next one starts (`workbench.dev._worker`, `workbench.check.sandbox`).
"""

from __future__ import annotations

import os

LAYOUT = {
    "HOME": "home",
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_DATA_HOME": "home/.local/share",
    "XDG_STATE_HOME": "home/.local/state",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_RUNTIME_DIR": "run",
    "TMPDIR": "tmp",
    "BURGEE_STATE_DIR": "home/.local/state/burgee",
}
"""Variable -> folder inside the sandbox."""

VARIABLES = tuple(LAYOUT)
"""The variables a sandbox sets (each to a folder inside it)."""


def fingerprint(root: str) -> list[tuple[str, int, int, int, int]]:
    """Every entry under `root` with its kind, size, mode and change times: any file a run
    creates, removes or writes changes it (a folder's times change with its entries)."""
    found = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            found.append((path, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    found.sort()
    return found
