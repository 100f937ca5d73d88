"""Pages, field selection and the agent output budget for commands declared `paginated`."""

from __future__ import annotations

from workbench.runtime.parser import Refusal

DEFAULT_OUTPUT_BUDGET = 16000
"""Characters of `data` an agent gets by default before items are held back for the next call."""


def page_size(command) -> int:
    from workbench.declaration._extras import DEFAULT_PAGE_SIZE
    return command.paginated if type(command.paginated) is int else DEFAULT_PAGE_SIZE


def _offset(cursor, invocation) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise Refusal("invalid_value", f"--cursor {cursor!r} is not a cursor this command gave",
                      hint="use the next_cursor of the previous page, or drop --cursor",
                      fix=_without(invocation, "--cursor"))
    return int(cursor)


def known_fields(command, items) -> list:
    """Fields an item can have: from the declared output schema, else from the items seen."""
    schema = command.output or {}
    if schema.get("type") == "array":
        schema = schema.get("items") or {}
    if schema.get("properties"):
        return list(schema["properties"])
    return list(dict.fromkeys(key for item in items if isinstance(item, dict) for key in item))


def select_fields(command, items, fields: str, invocation):
    """Keep only `fields` of each item; an unknown field is a usage error naming the known ones."""
    wanted = [f.strip() for f in fields.split(",") if f.strip()]
    known = known_fields(command, items)
    unknown = [f for f in wanted if known and f not in known]
    if unknown:
        from workbench._text import nearest
        close = nearest(unknown[0], known, n=1)
        fixed = [close[0] if f == unknown[0] and close else f for f in wanted if
                 f not in unknown or (f == unknown[0] and close)]
        tokens = list(invocation)
        for i, token in enumerate(tokens):
            if token == "--fields" and i + 1 < len(tokens):
                tokens[i + 1] = ",".join(fixed) or "<a,b>"
            elif token.startswith("--fields="):
                tokens[i] = "--fields=" + (",".join(fixed) or "<a,b>")
        raise Refusal("unknown_field", f"unknown field{'s' if len(unknown) > 1 else ''}: "
                      f"{', '.join(unknown)}; known: {', '.join(known)}",
                      hint=f"did you mean {close[0]}?" if close else None, fix=tokens)
    return [{f: item.get(f) for f in wanted if f in item} if isinstance(item, dict) else item
            for item in items]


def paginate(program, command, request, data, agent, invocation):
    """Slice `data` into a page. Returns (items, page dict, next tokens or None, truncated note)."""
    from workbench.runtime import envelope
    if data is None:
        data = []
    if not isinstance(data, list):
        raise TypeError(f"'{' '.join(command.path)}' is paginated, so its handler must return "
                        f"a list (or yield items); it returned {type(data).__name__}")
    extras = request.extras
    offset = _offset(extras.get("cursor"), invocation)
    explicit_limit = extras.get("limit") is not None
    if extras.get("all"):
        end = len(data)
    else:
        limit = extras["limit"] if explicit_limit else page_size(command)
        if limit < 1:
            raise Refusal("invalid_value", "--limit must be at least 1",
                          fix=_without(invocation, "--limit") + ["--limit", "1"])
        end = min(len(data), offset + limit)
    items = data[offset:end]
    truncated = None
    budget = program.output_budget or DEFAULT_OUTPUT_BUDGET
    if agent and not explicit_limit and not extras.get("all") and items:
        used, kept = 0, 0
        for item in items:
            size = len(envelope.encode(item)) + 1
            if kept and used + size > budget:
                break
            used += size
            kept += 1
        if kept < len(items):
            end = offset + kept
            items = items[:kept]
            truncated = {"reason": f"output budget of {budget} characters for agents",
                         "omitted": len(data) - end}
    if extras.get("fields"):
        items = select_fields(command, items, extras["fields"], invocation)
    has_more = end < len(data)
    page = {"count": len(items), "has_more": has_more, "next_cursor": str(end) if has_more else None}
    next_tokens = None
    if has_more:
        next_tokens = _without(_without(invocation, "--cursor"), "--all") + ["--cursor", str(end)]
    if truncated is not None:
        truncated["next"] = next_tokens
    return items, page, next_tokens, truncated


def _without(tokens, flag):
    out = []
    skip = False
    for token in tokens:
        if skip:
            skip = False
            continue
        if token == flag:
            skip = flag not in ("--all",)
            continue
        if token.startswith(flag + "="):
            continue
        out.append(token)
    return out
