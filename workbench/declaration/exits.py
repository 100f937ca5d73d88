"""The exit-code table of the agent contract: data every layer reads (help, cards, checks, the
envelope), so it lives at the bottom, beside the declaration."""

EXIT_CODES = {
    0: ("ok", "the command did what was asked"),
    1: ("failure", "the command ran and failed; see error.code"),
    2: ("usage", "refused before running: fix the command line (see error.fix)"),
    3: ("not_found", "what was asked for does not exist"),
    4: ("action_required", "needs a decision: run one of `next` once it is made"),
    5: ("conflict", "a precondition or conflict stopped it; re-read state, then retry"),
    6: ("retry_later", "temporarily refused; retry later"),
    7: ("unavailable", "a dependency was unavailable or timed out"),
    8: ("partial", "some items succeeded and some failed; see succeeded/failed"),
    130: ("interrupted", "interrupted (Ctrl-C)"),
    143: ("terminated", "stopped by SIGTERM (or a server stopping) before it finished"),
    141: ("output_closed", "the reader closed standard output; nothing more was written"),
}
"""Exit code -> (name, meaning). This table only grows."""

SERVER_ERRORS = {
    "result_too_large": (1, "an MCP tool result was over the server's size limit "
                            "(--max-result-bytes, default 4 MiB); the command ran, its result "
                            "was dropped: ask for less (--limit/--cursor/--fields when the "
                            "command is paginated)"),
}
"""Error codes the MCP server gives itself, not a handler: code -> (exit, when)."""
