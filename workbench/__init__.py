"""burgee: declare a command line once; every surface an agent or a person reads is projected from it.

    from workbench import Program, Group, Command, Option, Argument, Fail, run
"""

from workbench.declaration.model import Argument, Command, DefinitionError, Fail, Group, Option, Program
from workbench.entry import run
from workbench.runtime.pipeline import call

__all__ = ["Program", "Group", "Command", "Option", "Argument", "Fail", "DefinitionError",
           "run", "call", "to_argv", "adapt", "__version__"]

__version__ = "0.1.0"

_LAZY = {"to_argv": "workbench.runtime.arguments", "adapt": "workbench.adapters"}


def __getattr__(name):
    """Load the heavier public names on first use (Textual-style lazy attributes)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
