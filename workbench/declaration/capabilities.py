"""The feature names a burgee program's runtime speaks: one list, read by every surface.

An agent detects features instead of versions (Frazer's `@meta.capabilities`): `tool --version
--json`, `tool help --json`, the `@meta` line of a stream and the MCP server's instructions
(and its `experimental.burgee` capability) all show `capabilities(program)`. A feature is
named here once it works on every transport; whether one command uses it is in its card.
"""

from __future__ import annotations

CAPABILITIES = (
    "envelope",          # --json: one {"ok", "data" | "error", "meta"} document, exit codes
    "ndjson",            # --format ndjson: @meta, one item a line, @end
    "help_json",         # help --json, CMD --help --json (cards)
    "input_schema",      # CMD --schema, --schema
    "fields",            # --fields a,b
    "next",              # runnable `next` steps on successes
    "action_required",   # exit 4 with the commands that go on
    "dry_run",           # plan=: --dry-run, --expect-plan DIGEST
    "idempotency_key",   # non_idempotent: --idempotency-key
    "pagination",        # paginated: --limit, --cursor, --all
    "partial",           # batches: "ok": "partial", exit 8
    "warnings",          # meta.warnings (deprecations)
    "mcp",               # tool mcp: every command a tool
    "capabilities",      # this list
    "self_scope",        # self_scope=: --agent, not_yours (exit 2)
    "ambiguous",         # ambiguous words refused with each meaning's command
    "untrusted",         # meta.untrusted, x-burgee-untrusted; never in next
    "input_json",        # --input FILE|-: the request as one JSON object
    "removed_in",        # deprecations say the version that removes them
    "plan_tools",        # <tool>_plan read-only MCP twins
    "session",           # ctx.session: the harness's session ids
)
"""Every feature name, in a fixed order (the bytes of `--version --json` never move)."""


def capabilities(program: object = None) -> list[str]:
    """The capabilities of `program` (today every program speaks the whole list)."""
    return list(CAPABILITIES)
