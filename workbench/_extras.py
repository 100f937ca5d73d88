"""Options the framework adds to a command from what it declares (pages, plans, keys)."""

from __future__ import annotations


def options_for(command) -> list:
    """The framework's own options for `command`, in a stable order."""
    return []
