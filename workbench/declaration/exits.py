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
    11: ("check_failed", "the check ran and found a problem (a verdict); see data"),
    13: ("person_required", "only a person can take the next step; see error.how and next"),
    14: ("limit_reached", "stopped at a limit the caller set; data holds the best result so "
                          "far, next continues with a larger limit"),
    130: ("interrupted", "interrupted (Ctrl-C)"),
    143: ("terminated", "stopped by SIGTERM (or a server stopping) before it finished"),
    141: ("output_closed", "the reader closed standard output; nothing more was written"),
}
"""Exit code -> (name, meaning). This table only grows."""

FRAMEWORK_ERRORS = {
    "plan_changed": (5, "the plan changed since it was reviewed (--expect-plan); nothing was "
                        "applied"),
    "idempotency_conflict": (5, "the idempotency key was used before with different input"),
    "in_progress": (6, "a call with the same idempotency key is still running; retry later"),
    "idempotency_store_unavailable": (7, "the idempotency store cannot be used"),
    "not_yours": (2, "the item belongs to another agent (self-scoped); run the fix on your own "
                     "items, or ask the person"),
    "check_failed": (11, "the check ran and its verdict is that it failed; data holds what it "
                         "found"),
    "person_required": (13, "only a person can do this; error.how says how they do it"),
}
"""Errors the runtime raises for what a command declares (`plan=`: plan_changed;
`non_idempotent`: the idempotency key's three; `verdict=True`: check_failed; `person_only=`:
person_required): code -> (exit, when). Cards list them for the
commands that declare the feature (`surfaces._facts.errors`)."""

RUNTIME_ERRORS: dict[str, tuple[int | None, str]] = {
    "internal": (1, "the command failed unexpectedly"),
    "invalid_result": (1, "the handler returned data that is not JSON"),
    "invalid_output": (1, "the handler's data breaks the command's output schema"),
    "invalid_exit": (1, "the handler raised Fail with an exit not in the table"),
    "handler_exit": (None, "the handler called sys.exit(n) (exit n when in the table, else 1)"),
    "all_failed": (1, "every item of a batch failed"),
    "definition": (1, "a lazy group's declaration failed when it loaded"),
    "input_closed": (4, "standard input closed while a prompt waited for an answer"),
    "action_required": (4, "it needs a confirmation or decision; run one of next"),
    "missing_extra": (7, "an optional part burgee needs is not installed"),
    "interrupted": (130, "interrupted (Ctrl-C)"),
}
"""Errors the runtime gives any command, whatever it declares (not its handler's codes):
code -> (exit, when); None: the exit varies."""

REFUSALS = {
    "unknown_command": "no such command; `hint` lists the nearest, never run on a guess",
    "unknown_option": "no such flag; the fix names the nearest or drops it with its value",
    "missing_option": "a required option is not given; the fix shows where it goes",
    "missing_argument": "a required argument is not given",
    "missing_value": "a flag that takes a value was given none",
    "invalid_value": "a value of the wrong type",
    "invalid_choice": "a value that is not one of the choices; the fix names the nearest",
    "duplicate_option": "an option that takes one value was given twice",
    "unexpected_argument": "more words than the command takes",
    "missing_command": "a group's options given, but no command after them",
    "out_of_range": "a number outside the option's min..max; the fix gives the nearest inside",
    "path_not_found": "a path that must exist does not; the fix names the nearest that does",
    "invalid_path": "a path of the wrong kind or access (a folder for a file, not writable)",
    "conflicting_options": "an option given with one it conflicts with, or without one it "
                           "requires; the fix leaves out or adds the other",
    "input_placeholder": "a template placeholder (<x>, $X, YOUR_X) where a value goes",
    "input_required": "a prompt nobody can answer; the fix passes the flag instead",
    "confirmation_unavailable": "a confirmation nobody can give, and no flag to give it",
    "stdin_required": "the command reads standard input and nothing was piped in",
    "stdin_timeout": "an open standard input stayed silent under an agent or CI",
    "unknown_field": "--fields names a field the items do not have",
    "unknown_tool": "an MCP call to a tool that does not exist",
    "tool_withheld": "an MCP call to a command offered on the command line only",
    "invalid_option": "a built-in's flag that does not apply here",
    "unavailable_here": "a built-in that cannot run in this process",
    "stdin_closed": "`tool mcp` over stdio with standard input closed",
    "unwritable": "a built-in could not write the file it was asked to",
}
"""The usage refusals (exit 2) the parser and runtime give, by code: every one names its fix.
`burgee check` measures the recovery rate of each (docs/ci.md)."""

SERVER_ERRORS = {
    "result_too_large": (1, "an MCP tool result was over the server's size limit "
                            "(--max-result-bytes, default 4 MiB); the command ran, its result "
                            "was dropped: ask for less (--limit/--cursor/--fields when the "
                            "command is paginated)"),
}
"""Error codes the MCP server gives itself, not a handler: code -> (exit, when)."""


def default_exit(code: str) -> int:
    """The exit of an error declared without one: the table's exit for a code it names
    (`person_required`: 13, `not_found`: 3), else 1."""
    for exit, (name, _) in EXIT_CODES.items():
        if name == code:
            return exit
    return 1


def exit_problem(code: str, exit: object) -> str | None:
    """Why an error's exit cannot be used (not an integer of the table), naming the fix; None
    when it can. One sentence for both times it is checked: `Command(errors=[...])` at
    definition, a handler's `Fail(exit=...)` at run time."""
    if isinstance(exit, int) and not isinstance(exit, bool) and exit in EXIT_CODES:
        return None
    return (f"error '{code}' has exit {exit!r}, which is not in the exit-code table; use one "
            f"of {', '.join(map(str, EXIT_CODES))}")
