"""Print `help search`: the surface answers with data (`surfaces.search.answer`); this turns the
answer into the envelope, or text for a person, and writes it to the world."""

from __future__ import annotations

from workbench.runtime import envelope
from workbench.surfaces import search


def run_search(program, words, as_json: bool, world):
    """The `help search` builtin: prints the answer; returns (exit code, envelope)."""
    found = search.answer(program, words)
    meta = {"schema_version": program.schema_version}
    if found.error is None:
        doc = envelope.success(found.data, meta)
    else:
        error = found.error
        fix = None
        if error.get("fix"):
            fix = " ".join([program.name, *error["fix"]]) + (" --json" if as_json else "")
        doc = envelope.failure(error["code"], error["message"], exit=error["exit"],
                               hint=error.get("hint"), fix=fix, meta=meta)
    if as_json:
        world.out(envelope.encode(doc) + "\n")
    elif found.error is None:
        world.out(found.text)
    else:
        world.err(found.text)
    return envelope.exit_code(doc), doc
