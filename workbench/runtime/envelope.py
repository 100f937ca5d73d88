"""The one place that builds envelopes and encodes them; every transport prints these bytes."""

from __future__ import annotations

from workbench.declaration.exits import EXIT_CODES  # re-exported: the table is data

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_ACTION = 0, 1, 2, 3, 4
EXIT_CONFLICT, EXIT_RETRY, EXIT_UNAVAILABLE, EXIT_PARTIAL = 5, 6, 7, 8
EXIT_INTERRUPTED, EXIT_PIPE = 130, 141


def success(data, meta: dict | None = None) -> dict:
    """`{"ok":true,"data":...,"meta":{...}}`."""
    return {"ok": True, "data": data, "meta": meta if meta is not None else {}}


def error_body(code: str, message: str, exit: int, hint: str | None = None,
               fix: str | None = None, **extra) -> dict:
    """The `error` object: code, exit, message, then hint and fix where known."""
    body = {"code": code, "exit": exit, "message": message}
    if hint:
        body["hint"] = hint
    if fix:
        body["fix"] = fix
    for key, value in extra.items():
        if value is not None:
            body[key] = value
    return body


def failure(code: str, message: str, exit: int = 1, hint: str | None = None,
            fix: str | None = None, meta: dict | None = None, **extra) -> dict:
    """`{"ok":false,"error":{...}}`."""
    doc = {"ok": False, "error": error_body(code, message, exit, hint, fix, **extra)}
    if meta:
        doc["meta"] = meta
    return doc


def action_required(reason: str, message: str, next: list, meta: dict | None = None) -> dict:
    """`{"ok":false,"status":"action_required",...}`; exit 4."""
    doc = {"ok": False, "status": "action_required", "reason": reason, "message": message,
           "next": next, "error": {"code": "action_required", "exit": EXIT_ACTION,
                                   "message": message}}
    if meta:
        doc["meta"] = meta
    return doc


def exit_code(doc: dict) -> int:
    """The process exit code an envelope stands for."""
    if doc.get("ok") is True:
        return 0
    if doc.get("ok") == "partial":
        return EXIT_PARTIAL
    return doc["error"]["exit"]


_encoder = None


def encode(doc) -> str:
    """Compact UTF-8 JSON in the document's own key order; no trailing newline.

    Uses the C encoder directly: the same bytes as `json.dumps(doc, ensure_ascii=False,
    separators=(",", ":"))`, without importing `json` (and `re`) on the CLI path.
    """
    global _encoder
    if _encoder is None:
        try:
            import _json
            _encoder = _json.make_encoder(None, _default, _json.encode_basestring, None, ":", ",",
                                          False, False, True)
        except (ImportError, AttributeError):   # pragma: no cover - non-CPython
            import json
            return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_default)
    if isinstance(doc, (dict, list)):
        return "".join(_encoder(doc, 0))
    import json
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_default)


def _default(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    isoformat = getattr(value, "isoformat", None)
    if isoformat is not None:
        return isoformat()
    if hasattr(value, "__fspath__"):
        return value.__fspath__()
    raise TypeError(f"a handler returned {type(value).__name__}, which is not JSON; "
                    f"return dicts, lists, strings, numbers, booleans or None")
