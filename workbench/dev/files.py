"""Which files are the user's: under a watched folder, and not the interpreter's, an installed
package's or the workbench's own (a project's .venv may sit inside the watched folder)."""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Iterable

_REAL: dict[str, str] = {}


def realpath(path: str) -> str:
    """`os.path.realpath`, remembered: every load asks it of every module in `sys.modules`
    (hundreds in the workbench; 20 ms of system calls a save)."""
    real = _REAL.get(path)
    if real is None:
        real = _REAL[path] = os.path.realpath(path)
    return real


def under(path: str, roots: Iterable[str]) -> bool:
    """Whether `path` (resolved) is one of `roots` or inside one."""
    path = realpath(path)
    return any(path == root or path.startswith(root + os.sep) for root in roots)


_INSTALLED: set[str] | None = None


def installed(path: str) -> bool:
    """True for files of the interpreter, installed packages, and the workbench itself: they
    may sit under the watched folder but are never user code to reload."""
    global _INSTALLED
    if _INSTALLED is None:
        roots = {sys.prefix, sys.base_prefix, sys.exec_prefix,
                 os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
        roots.update(sysconfig.get_paths().values())
        try:
            roots.update(site.getsitepackages())
            roots.add(site.getusersitepackages())
        except AttributeError:
            pass
        _INSTALLED = {os.path.realpath(root) for root in roots if root}
    return under(path, _INSTALLED)
