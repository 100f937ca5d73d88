"""What is worked out about one Program after it is declared, kept in one typed place.

A `Program` holds its declaration; the facts the definition checks, the runtime and redaction
derive from it live in its `Derived` (`derived(program)`), never as loose attributes on the
Program. Each field says who writes it:

- the check verdicts (`workbench.declaration._verdict`): `verdict`, `lazy_verdicts`,
  `lazy_trusted`, `lazy_pending`, `broken`;
- the examples (`workbench.runtime.checks`): `examples_checked`;
- the model itself (`workbench.declaration.model`): `has_lazy`, `tools`;
- redaction (`workbench.runtime.redact`): `redact_spellings`, `redact_options`, each with
  the `Program.generation` it was built at (a lazy group loaded since: rebuilt).

Private: nothing outside the package reads it but through these modules.
"""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:       # (nothing of the model: it imports this module, never the reverse)
    from typing import Any


class Derived:
    """The derived state of one Program (see the module docstring)."""

    __slots__ = ("examples_checked", "verdict", "lazy_verdicts", "lazy_trusted",
                 "lazy_pending", "broken", "has_lazy", "tools", "redact_spellings",
                 "redact_options")

    def __init__(self) -> None:
        self.examples_checked: bool = False
        """Every example parsed (or the check process / a verdict file says so)."""
        self.verdict: str | None = None
        """The verdict file to write once every check passed (None: nothing to record)."""
        self.lazy_verdicts: list[str | None] | None = None
        """Verdict files of the lazy groups checked with the program; None when this check
        records none (check=False, or a program trusted by its verdict)."""
        self.lazy_trusted: str | None = None
        """The verdict the program was trusted by: each lazy group is checked alone."""
        self.lazy_pending: list[tuple[Any, str | None]] = []
        """Lazy groups checked alone whose examples `ensure_checked` still parses."""
        self.broken: Exception | None = None
        """A released program's lazy group failed its first check: every call answers it."""
        self.has_lazy: bool = False
        """The program declares a lazy group (`Group(load=...)`)."""
        self.tools: dict[str, Any] | None = None
        """Tool name -> Command, built on first lookup (dropped when a lazy group loads)."""
        self.redact_spellings: tuple[int, Any] | None = None
        """(generation, (sensitive spelling -> Option, every spelling)) for redaction."""
        self.redact_options: tuple[int, list[Any]] | None = None
        """(generation, every sensitive Option) for redaction."""


def derived(program: Any) -> Derived:
    """The program's derived state (made here for a Program built without `__init__`)."""
    state = program.__dict__.get("_derived")
    if state is None:
        state = program._derived = Derived()
    return state
