"""Output checks: does what a handler returned fit its command's declared `output` schema?

One function says so for every caller, so an output-schema violation reads the same wherever
it shows: the MCP server answers it with an `isError` result carrying this error (instead of a
`structuredContent` the client's SDK rejects with "Invalid structured content"), the
workbench lists it as a problem (dashboard and `--headless` read the same list), and the CLI
can refuse with it under `--json` when asked (`BURGEE_VALIDATE=1`).

    problem = output_problem(command, data)   # None, or the error body below
    doc = envelope.from_output_problem(problem)   # the failure envelope (runtime)

`jsonschema` is imported inside `output_problem`, and only when the command declares an
output schema: never on the plain CLI path.
"""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CODE = "invalid_output"
VALIDATE_VARIABLE = "BURGEE_VALIDATE"
"""`BURGEE_VALIDATE=1`: the CLI checks `--json` output against the schema too."""


def validation_asked(environ: Mapping[str, str]) -> bool:
    """Whether `environ` asks the CLI to check output (`BURGEE_VALIDATE` = 1/true/yes/on)."""
    return str(environ.get(VALIDATE_VARIABLE, "")).strip().lower() in ("1", "true", "yes", "on")


def output_problem(command, data, projected: bool = False) -> dict[str, Any] | None:
    """None when `data` fits `command.output` (or there is no schema); else the error:

    `{"code": "invalid_output", "message", "hint", "field", "expected", "got"}` where `field`
    is a JSON pointer into the data ("" for the whole value), `expected` what the schema
    wants there (e.g. `type integer`), `got` the offending value, shortened.

    `projected`: the caller asked for some fields only (`--fields`), so fields the schema
    requires may be missing; what is there must still fit. (Checked on the handler's return
    value, before any projection, `projected` stays False.)
    """
    schema = getattr(command, "output", None)
    if not isinstance(schema, dict) or not schema:
        return None
    import jsonschema
    name = " ".join(command.path)
    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        errors = sorted((error for error in validator.iter_errors(data)
                         if not (projected and error.validator == "required")), key=_order)
    except jsonschema.exceptions.SchemaError as exc:
        return _problem(name, "", f"a valid output schema ({exc.message})", data,
                        "fix Command(output=...): it is not a valid JSON Schema")
    if not errors:
        return None
    error = errors[0]
    field = "".join("/" + str(part).replace("~", "~0").replace("/", "~1")
                    for part in error.absolute_path)
    return _problem(name, field, _expected(error), error.instance,
                    f"fix the handler's return value or Command(output=...) of '{name}'",
                    more=len(errors) - 1)


def projected_in(doc: object) -> bool:
    """Whether an envelope's data is a projection the caller asked for (`--fields`)."""
    return "fields" in _provenance(doc)


def filtered_in(doc: object) -> bool:
    """Whether an envelope's data is what the caller's `--jq` filter made of it."""
    return "jq" in _provenance(doc)


def _provenance(doc) -> dict[str, Any]:
    meta = doc.get("meta") if isinstance(doc, dict) else None
    provenance = meta.get("provenance") if isinstance(meta, dict) else None
    return provenance if isinstance(provenance, dict) else {}


def _order(error):
    # The shallowest, then first, error: the one a reader fixes first.
    return (len(error.absolute_path), [str(part) for part in error.absolute_path])


def _expected(error) -> str:
    validator, value = error.validator, error.validator_value
    if validator == "type":
        return "type " + (" or ".join(value) if isinstance(value, list) else str(value))
    if validator == "required":
        missing = [key for key in value if isinstance(error.instance, dict)
                   and key not in error.instance]
        return "the required field" + ("s " if len(missing) > 1 else " ") + \
            ", ".join(repr(key) for key in missing)
    if validator == "additionalProperties" and value is False:
        return "no fields beyond " + (", ".join(
            repr(key) for key in (error.schema.get("properties") or {})) or "none")
    if validator in ("enum", "const"):
        return f"{validator} {_short(value)}"
    return f"{validator} {_short(value)}"


def _short(value, limit: int = 60) -> str:
    import json
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _problem(name, field, expected, got, hint, more: int = 0) -> dict[str, Any]:
    where = f"at {field}" if field else "at the top level"
    message = (f"'{name}' returned data its output schema refuses: {where}: expected "
               f"{expected}, got {_short(got)}")
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return {"code": CODE, "message": message, "hint": hint, "field": field,
            "expected": expected, "got": _short(got)}
