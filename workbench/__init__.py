"""burgee: declare a command line once; every surface an agent or a person reads is projected from it.

    from workbench import Program, Group, Command, Option, Argument, Fail, run
    from workbench import App, Opt, Arg          # typed declarations (workbench.typed)
"""

__version__ = "0.1.0"   # the one version source: pyproject.toml reads it (setuptools `attr:`)

from workbench.declaration.model import Argument, Command, DefinitionError, Fail, Group, Option, Program
from workbench.entry import run
from workbench.runtime.pipeline import Outcome, call

__all__ = ["Program", "Group", "Command", "Option", "Argument", "Fail", "DefinitionError",
           "Context", "Partial", "Outcome", "run", "call", "to_argv", "adapt", "testing",
           "App", "Opt", "Arg", "asgi", "__version__"]

TYPE_CHECKING = False   # typing's own flag costs an import of typing at start-up
if TYPE_CHECKING:
    from workbench.adapters import adapt
    from workbench import testing
    from workbench.mcp import asgi
    from workbench.runtime.context import Context, Partial
    from workbench.runtime.arguments import to_argv
    from workbench.typed import App, Arg, Opt

_LAZY = {"Context": "workbench.runtime.context", "Partial": "workbench.runtime.context",
         "to_argv": "workbench.runtime.arguments", "adapt": "workbench.adapters",
         "App": "workbench.typed", "Opt": "workbench.typed", "Arg": "workbench.typed",
         "asgi": "workbench.mcp"}


def __getattr__(name: str) -> object:
    """Load the heavier public names on first use (Textual-style lazy attributes)."""
    import importlib
    if name == "testing":   # the testing helper, a module: `workbench.testing.Runner`
        value = importlib.import_module("workbench.testing")
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
