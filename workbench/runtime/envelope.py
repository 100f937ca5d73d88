"""The one place that builds envelopes, stamps their meta, encodes them and renders them as text.

Every transport prints these bytes: a result, a `Fail`, a refusal, an action required or an
exception becomes an envelope here and nowhere else.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from workbench.declaration.model import Fail

    class _Refusal(Protocol):
        """What `from_refusal` reads of a `runtime.parser.Refusal`: importing the parser, even
        for checkers, would reach the pipeline from `_keys` (import-linter's runtime layers)."""

        code: str
        message: str
        exit: int
        hint: str | None

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_ACTION = 0, 1, 2, 3, 4
EXIT_CONFLICT, EXIT_RETRY, EXIT_UNAVAILABLE, EXIT_PARTIAL = 5, 6, 7, 8
EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED = 130, 141, 143
EXIT_CHECK_FAILED, EXIT_PERSON, EXIT_LIMIT = 11, 13, 14

DEBUG_HINT = "run again with --debug to see the traceback"


def success(data: Any, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """`{"ok":true,"data":...,"meta":{...}}`."""
    return {"ok": True, "data": data, "meta": meta if meta is not None else {}}


EFFECTS_NONE, EFFECTS_UNKNOWN, EFFECTS_PARTIAL = "none", "unknown", "partial"
FAILURE_EFFECTS = (EFFECTS_NONE, EFFECTS_UNKNOWN, EFFECTS_PARTIAL)
"""What a failure changed before it stopped (`error.effects`): nothing; maybe something (an
exception after a handler that changes state began); the `steps` it reported."""


def error_body(code: str, message: str, exit: int, hint: str | None = None,
               fix: str | None = None, effects: str = EFFECTS_NONE, **extra: Any) -> dict[str, Any]:
    """The `error` object: code, exit, message, then hint and fix where known, the details,
    and `effects` last (`none` unless the caller knows better: the pipeline says `unknown` or
    `partial` for a failure after a handler began)."""
    body = {"code": code, "exit": exit, "message": message}
    if hint:
        body["hint"] = hint
    if fix:
        body["fix"] = fix
    for key, value in extra.items():
        if value is not None:
            body[key] = value
    body["effects"] = effects
    return body


def failure(code: str, message: str, exit: int = 1, hint: str | None = None,
            fix: str | None = None, meta: dict[str, Any] | None = None,
            **extra: Any) -> dict[str, Any]:
    """`{"ok":false,"error":{...}}`."""
    doc = {"ok": False, "error": error_body(code, message, exit, hint, fix, **extra)}
    if meta:
        doc["meta"] = meta
    return doc


def from_fail(fail: Fail, fix: str | None, checked: bool = True) -> dict[str, Any]:
    """A handler's `Fail` as an envelope: code, message, exit, hint, fix, retryable, details;
    a `data` detail (what the command found before it failed, e.g. a check's report) is the
    envelope's own `data`, beside `error`.

    A `Fail` whose exit is not in the table is refused as `errors=` refuses it at definition
    time (`invalid_exit`, exit 1, the same sentence naming the fix); `checked=False` lets an
    adapted program's own exit status through unchanged."""
    from workbench.declaration.exits import exit_problem
    problem = exit_problem(fail.code, fail.exit) if checked else None
    if problem is not None:
        return failure("invalid_exit", f"the handler raised Fail: {problem}", exit=EXIT_FAILURE,
                       hint=f"raise Fail({fail.code!r}, ..., exit=N) with N from the table, and "
                            f"list it in Command(errors=[...])")
    details: dict[str, Any] = dict(fail.details)
    found = details.pop("data", None)
    details.pop("effects", None)   # the pipeline decides (`runtime._failures.settle`)
    retryable = fail.retryable
    if fail.exit == EXIT_USAGE and retryable is None:   # a handler's refusal: as the parser's
        retryable = False
    doc = failure(fail.code, fail.message, exit=fail.exit, hint=fail.hint, fix=fix,
                  retryable=retryable, **details)
    if fail.exit == EXIT_USAGE:
        doc["error"].setdefault("field", None)
    if found is not None:
        doc["data"] = found
    return doc


def from_refusal(refusal: _Refusal, fix: str | None) -> dict[str, Any]:
    """A usage refusal (exit 2) as an envelope; `fix` is the runnable command line."""
    return refused(refusal.code, refusal.message, refusal.exit, refusal.hint, fix,
                   getattr(refusal, "field", None))


def refused(code: str, message: str, exit: int = EXIT_USAGE, hint: str | None = None,
            fix: str | None = None, field: str | None = None) -> dict[str, Any]:
    """A refusal before anything ran: every one names its `field` (the input at fault; null
    when no one input is), says `retryable: false` (the same call is refused again) and
    `effects: none`."""
    doc = failure(code, message, exit=exit, hint=hint, fix=fix)
    error = doc["error"]
    effects = error.pop("effects")
    error["field"] = field
    error["retryable"] = False
    error["effects"] = effects
    return doc


def from_output_problem(problem: dict[str, Any]) -> dict[str, Any]:
    """Data that breaks the command's output schema (`surfaces.output.output_problem`), as the
    `invalid_output` failure (exit 1) every transport prints."""
    extra = {key: problem[key] for key in ("field", "expected", "got") if key in problem}
    return failure(problem["code"], problem["message"], exit=EXIT_FAILURE, hint=problem["hint"],
                   **extra)


def internal(error: BaseException, debug: bool) -> dict[str, Any]:
    """An unexpected exception as an `internal` failure (exit 1); no traceback in it."""
    return failure("internal", f"{type(error).__name__}: {error}", exit=EXIT_FAILURE,
                   hint=None if debug else DEBUG_HINT)


def handler_exit(code: object, meta: dict[str, Any]) -> dict[str, Any]:
    """A handler that called `sys.exit(code)`: 0/None is a success with no data (and a
    warning); anything else a `handler_exit` failure with the code the process would use."""
    if code is None or code == 0 or code is False:
        meta = dict(meta)
        meta["warnings"] = list(meta.get("warnings", ())) + [
            "the handler called sys.exit(0); return data instead"]
        return success(None, meta)
    if isinstance(code, int):
        from workbench.declaration.exits import EXIT_CODES   # a rare path: not at start-up
        exit = code if code in EXIT_CODES and code != 0 else EXIT_FAILURE
        message = f"the handler called sys.exit({code})"
    else:
        exit, message = EXIT_FAILURE, f"the handler stopped: {code}"
    return failure("handler_exit", message, exit=exit,
                   hint="raise Fail(code, message, exit=...) or return data instead of "
                        "calling sys.exit")


def interrupted() -> dict[str, Any]:
    """Ctrl-C (exit 130)."""
    return failure("interrupted", "interrupted", exit=EXIT_INTERRUPTED)


def terminated(why: str | None = None) -> dict[str, Any]:
    """SIGTERM, or a server stopping, before the command finished (exit 143)."""
    return failure("terminated", "terminated" + (f": {why}" if why else " (SIGTERM)"),
                   exit=EXIT_TERMINATED, effects=EFFECTS_UNKNOWN,
                   hint="it was stopped from outside; whatever it did before that stands, "
                        "so check before running it again")


def timed_out(seconds: float, hint: str | None = None) -> dict[str, Any]:
    """A call stopped at its time limit (exit 7), its processes killed."""
    return failure("timeout", f"the command did not finish within {seconds:g} s and was "
                   "stopped", exit=EXIT_UNAVAILABLE, effects=EFFECTS_UNKNOWN,
                   hint=hint or "the handler may be waiting on something; whoever starts the "
                                "server can raise the limit with --call-timeout SECONDS")


def action_required(reason: str, message: str, next: list[Any],
                    meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """`{"ok":false,"status":"action_required",...}`; exit 4."""
    doc = {"ok": False, "status": "action_required", "reason": reason, "message": message,
           "next": next, "error": {"code": "action_required", "exit": EXIT_ACTION,
                                   "message": message, "effects": EFFECTS_NONE}}
    if meta:
        doc["meta"] = meta
    return doc


def person_required(reason: str, message: str, how: str, next: list[Any]) -> dict[str, Any]:
    """`{"ok":false,"status":"person_required",...}`; exit 13: only a person can go on, `how`
    says what they do, `next` the calls that ask them (never the same call again)."""
    error = {"code": "person_required", "exit": EXIT_PERSON, "message": message,
             "reason": reason, "how": how, "field": None, "retryable": False,
             "effects": EFFECTS_NONE}
    doc = {"ok": False, "status": "person_required", "reason": reason, "message": message,
           "how": how}
    if next:
        doc["next"] = next
    doc["error"] = error
    return doc


def stamp(doc: dict[str, Any], schema_version: str) -> dict[str, Any]:
    """Put the program's `schema_version` last in `meta` (it reads as a footer)."""
    meta = doc.setdefault("meta", {})
    meta.pop("schema_version", None)
    meta["schema_version"] = schema_version
    return doc


def exit_code(doc: dict[str, Any]) -> int:
    """The process exit code an envelope stands for."""
    if doc.get("ok") is True:
        return 0
    if doc.get("ok") == "partial":
        return EXIT_PARTIAL
    return doc["error"]["exit"]


def stream_end(doc: dict[str, Any], count: int) -> dict[str, Any]:
    """The `@end` record closing an NDJSON stream, from the envelope the stream ended with
    (a partial batch: `"ok":"partial"` and the `failed` items, exit 8); its `untrusted` is
    the envelope's `meta.untrusted`."""
    code = exit_code(doc)
    if doc["ok"] == "partial":
        return {"ok": "partial", "count": count, "exit": code,
                "failed": doc["data"].get("failed", [])}
    end: dict = {"ok": doc["ok"] is True, "count": count, "exit": code}
    if doc["ok"] is not True:
        end["error"] = doc["error"]
    if doc.get("next"):
        end["next"] = doc["next"]
    untrusted = (doc.get("meta") or {}).get("untrusted")
    if untrusted:   # as the envelope's meta says it (`runtime._agentic.mark_untrusted`)
        end["untrusted"] = untrusted
    return end


# -- text for a person ---------------------------------------------------------------------

def render_problem(doc: dict[str, Any]) -> str:
    """An error or action-required envelope as the lines a person reads on stderr (control
    characters escaped: a message may quote what a caller typed)."""
    from workbench._text import escape_controls
    return escape_controls(_problem_lines(doc))


def _problem_lines(doc: dict[str, Any]) -> str:
    if doc.get("status") == "action_required":
        lines = [f"action required: {doc['message']}"]
        return "\n".join(lines + [_next_line(step) for step in doc["next"]]) + "\n"
    if doc.get("status") == "person_required":
        lines = [f"person required: {doc['message']}", f"how: {doc['how']}"]
        return "\n".join(lines + [_next_line(step) for step in doc.get("next", ())]) + "\n"
    error = doc["error"]
    lines = [f"error: {error['message']}"]
    if error.get("hint"):
        lines.append(f"hint: {error['hint']}")
    if error.get("fix"):
        lines.append(f"next: {error['fix']}")
    lines += [_next_line(step) for step in doc.get("next", ())]   # a failure's steps to run
    return "\n".join(lines) + "\n"


def _next_line(step: dict[str, Any]) -> str:
    """`next: COMMAND   # when` (a `Fail`'s steps say `why`)."""
    note = step.get("when") or step.get("why")
    return f"next: {step['command']}" + (f"   # {note}" if note else "")


def render(doc: dict[str, Any], text: Callable[[Any], str] | None = None,
           tsv: bool = False) -> tuple[str, str]:
    """(stdout, stderr) a reader gets for a finished envelope as text: `text(data)` where
    declared, else a table for a person or, with `tsv`, tab-separated values for a program
    (`tsv_text`). Control characters in the data are escaped (`\\x1b`): a terminal shows
    them, never obeys them; `--json` keeps them exact."""
    from workbench._text import escape_controls
    failed = doc["ok"] is not True and doc["ok"] != "partial"
    if failed and "data" not in doc:
        return "", render_problem(doc)
    out, err = _rendered(doc, text, failed, tsv)
    return escape_controls(out), escape_controls(err)


def _rendered(doc: dict[str, Any], text, failed: bool, tsv: bool) -> tuple[str, str]:
    meta = doc.get("meta", {})
    err = "".join(f"warning: {warning}\n" for warning in meta.get("warnings", ()))
    data = doc.get("data")
    out = text(data) if text is not None else tsv_text(data) if tsv else default_text(data)
    if out and not out.endswith("\n"):
        out += "\n"
    if failed:   # what the command found (stdout), then why it failed (stderr)
        return out or "", err + render_problem(doc)
    if doc.get("ok") is not True:
        count = len(doc["data"].get("failed", ()))
        err += f"{len(doc['data'].get('succeeded', ()))} succeeded, {count} failed\n"
    page = doc.get("page")
    if page and page.get("total") is not None:   # "50 of 120"
        err += f"{page['count']} of {page['total']}\n"
    err += "".join(_next_line(step) + "\n" for step in doc.get("next", ()))
    truncated = meta.get("truncated")
    if truncated:
        err += (f"{truncated['omitted']} more not shown ({truncated['reason']}); "
                f"next: {truncated['next']}\n")
    return out or "", err


def default_text(data: Any) -> str:
    """A tidy human rendering of returned data: scalars as is, dicts as aligned lines, lists as rows."""
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        if not data:
            return ""
        width = max(len(str(key)) for key in data)
        return "\n".join(f"{str(key).ljust(width)}  {cell(value)}" for key, value in data.items())
    if isinstance(data, list):
        if not data:
            return "(none)"
        if all(isinstance(item, dict) for item in data):
            columns = list(dict.fromkeys(key for item in data for key in item))
            rows = [[cell(item.get(c, "")) for c in columns] for item in data]
            widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
            lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths)).rstrip()]
            lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
            return "\n".join(lines)
        return "\n".join(cell(item) for item in data)
    if data is True or data is False:
        return "true" if data else "false"
    return str(data)


def tsv_text(data: Any) -> str:
    """Data for a program reading a pipe: a list of objects as a header row (the JSON field
    names) and one row per object; one object as `key<TAB>value` lines; other lists one
    value per line. Cells escaped by `tsv_cell`; no alignment, no colour."""
    if isinstance(data, dict):
        return "\n".join(f"{tsv_cell(key)}\t{tsv_cell(value)}" for key, value in data.items())
    if isinstance(data, list):
        if data and all(isinstance(item, dict) for item in data):
            columns = list(dict.fromkeys(key for item in data for key in item))
            lines = ["\t".join(tsv_cell(c) for c in columns)]
            lines += ["\t".join(tsv_cell(item.get(c)) for c in columns) for item in data]
            return "\n".join(lines)
        return "\n".join(tsv_cell(item) for item in data)
    return "" if data is None else tsv_cell(data)


def tsv_row(item: Any) -> str:
    """One streamed item as a TSV row (an object's values in its own key order)."""
    if isinstance(item, dict):
        return "\t".join(tsv_cell(v) for v in item.values())
    return tsv_cell(item)


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_cell(value: Any) -> str:
    """One value as a TSV cell: null as empty, booleans as true/false, objects and lists as
    compact JSON; backslash, tab, newline and carriage return escaped (`\\\\`, `\\t`, `\\n`,
    `\\r`), so every row is one line and every cell one column."""
    if value is None:
        return ""
    return cell(value).translate(_TSV_ESCAPES)


def one_line(item: Any) -> str:
    """One streamed item as a line of text."""
    if isinstance(item, dict):
        return "  ".join(cell(v) for v in item.values())
    return cell(item)


def cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return encode(value)
    return str(value)


# -- bytes ---------------------------------------------------------------------------------

_encoder = None
_markers: dict = {}   # ids of the containers being encoded: a cycle is refused, not recursed
_busy = None          # held while `_encoder` (and so `_markers`) is in use


def _make_encoder(markers: dict[int, Any]):
    import _json
    return _json.make_encoder(markers, _default, _json.encode_basestring, None, ":", ",",
                              False, False, False)


def encode(doc: Any) -> str:
    """Compact UTF-8 JSON in the document's own key order; no trailing newline.

    Uses the C encoder directly: the same bytes as `json.dumps(doc, ensure_ascii=False,
    separators=(",", ":"), allow_nan=False)`, without importing `json` (and `re`) on the CLI
    path. A value that is not JSON (an object, NaN, a cycle) raises TypeError or ValueError.
    Safe from several threads: the encoder's cycle markers belong to one call at a time (a
    call made while another thread encodes gets an encoder of its own).
    """
    global _encoder, _busy
    if not isinstance(doc, (dict, list)):
        return _dumps(doc)
    if _encoder is None and "_json" not in sys.modules:   # a command line's one call
        text = _small(doc)
        if text is not None:
            return safe_text(text)
    if _encoder is None:
        try:
            import _thread
            _busy = _thread.allocate_lock()
            _encoder = _make_encoder(_markers)
        except (ImportError, AttributeError):   # pragma: no cover - non-CPython
            return _dumps(doc)
    if not _busy.acquire(False):                # another thread (or this one, re-entered)
        return safe_text("".join(_make_encoder({})(doc, 0)))
    try:
        return safe_text("".join(_encoder(doc, 0)))
    except BaseException:
        _markers.clear()
        raise
    finally:
        _busy.release()


_INFINITY = float("inf")
SMALL = 256
"""Values (containers and scalars) `_small` encodes before it leaves a document to `_json`."""

_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)}
_ESCAPES.update({0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n",
                 0x0D: "\\r", 0x09: "\\t"})
"""What `json` escapes in a string without `ensure_ascii` (str.translate's table)."""


class _NotSmall(Exception):
    pass


def _small(doc: Any) -> str | None:
    """`doc` as the C encoder writes it, in Python, when it holds at most `SMALL` values, all
    plain (dict with str keys, list, str, int, finite float, bool, None: exact types); else
    None. The C encoder is a shared library (`_json`): loading it costs a command line's one
    call ~0.2 ms, more than a small envelope takes here. Once `_json` is loaded (a server,
    a test, a big document) `encode` always uses it."""
    parts: list[str] = []
    try:
        _put(doc, parts, [SMALL])
    except (_NotSmall, ValueError):   # ValueError: an int too long for str (C says it)
        return None
    return "".join(parts)


def _put(value: Any, parts: list[str], left: list[int]) -> None:
    left[0] -= 1
    if left[0] < 0:
        raise _NotSmall
    kind = type(value)
    if kind is str:
        parts.append(f'"{value.translate(_ESCAPES)}"')
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is float:
        if value != value or value in (_INFINITY, -_INFINITY):
            raise _NotSmall   # refused by the C encoder (allow_nan=False), with its message
        parts.append(float.__repr__(value))
    elif kind is dict:
        parts.append("{")
        for at, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise _NotSmall
            parts.append(f'{"," if at else ""}"{key.translate(_ESCAPES)}":')
            _put(item, parts, left)
        parts.append("}")
    elif kind is list:
        parts.append("[")
        for at, item in enumerate(value):
            if at:
                parts.append(",")
            _put(item, parts, left)
        parts.append("]")
    else:
        raise _NotSmall   # tuples, sets, dates, subclasses: `_default` and the C encoder


def _dumps(doc) -> str:
    import json
    return safe_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":"),
                                default=_default, allow_nan=False))


def safe_text(text: str) -> str:
    """`text` with every lone surrogate (bytes that were not UTF-8, e.g. in argv) written as
    its `\\udcXX` escape: valid JSON, valid UTF-8, whatever the locale."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


def _default(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    isoformat = getattr(value, "isoformat", None)
    if isoformat is not None:   # a date, or a datetime (an option's: aware, in UTC)
        return isoformat()
    if type(value).__module__ == "uuid":   # an option of type uuid gives a uuid.UUID
        return str(value)
    if hasattr(value, "__fspath__"):
        return value.__fspath__()
    raise TypeError(f"the handler returned {type(value).__name__}, which is not JSON")
