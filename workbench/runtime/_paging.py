"""Pages and the agent output budget for commands declared `paginated`."""

from __future__ import annotations

from workbench.runtime.parser import Refusal

DEFAULT_OUTPUT_BUDGET = 16000
"""Characters of `data` an agent gets by default before items are held back for the next call."""


def page_size(command) -> int:
    from workbench.declaration.model import DEFAULT_PAGE_SIZE
    return command.paginated if type(command.paginated) is int else DEFAULT_PAGE_SIZE


def _offset(cursor, invocation) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise Refusal("invalid_value", f"--cursor {cursor!r} is not a cursor this command gave",
                      hint="use the next_cursor of the previous page, or drop --cursor",
                      fix=_without(invocation, "--cursor"), field="cursor")
    return int(cursor)


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
                          fix=_without(invocation, "--limit") + ["--limit", "1"], field="limit")
        end = min(len(data), offset + limit)
    items = data[offset:end]
    if request.flags["fields"]:   # before the budget: fewer fields, more items per page
        from workbench.runtime.fields import select
        items = select(command, items, request.flags["fields"], invocation)
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
    has_more = end < len(data)
    page = {"count": len(items), "has_more": has_more, "next_cursor": str(end) if has_more else None}
    next_tokens = None
    if has_more:
        next_tokens = _without(_without(invocation, "--cursor"), "--all") + \
            ["--cursor", str(end)] + _carried(request)
    if truncated is not None:
        truncated["next"] = next_tokens
    return items, page, next_tokens, truncated


def _carried(request) -> list:
    """The `--fields` and `--jq` a caller gave, carried into the next page's command line."""
    return [token for key in ("fields", "jq") if request.flags[key]
            for token in ("--" + key, request.flags[key])]


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
