"""The rules `burgee check` holds every program to, each with a stable code.

Call rules (`C…`) are checked on every run of every generated call; release rules (`R…`) on
the declaration and on what the runs observed. The codes never change meaning; a new rule
gets a new code (docs/contract.md, "Checked").
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.check.calls import CANARY, CONTROL


@dataclass(frozen=True)
class Rule:
    """One promise: `code` (stable), `name`, what it holds, and how to fix a break."""

    code: str
    name: str
    promise: str
    fix: str


RULES = {rule.code: rule for rule in (
    Rule("C1", "one_document", "under --json, standard output is one JSON document and a "
         "newline (under --format ndjson, one JSON value per line from @meta to @end)",
         "print nothing yourself under --json: return data, and let burgee print the envelope"),
    Rule("C2", "quiet_stderr", "under --json and over MCP, nothing reaches standard error "
         "(or, over MCP, standard output outside the result)",
         "write nothing after the handler returns (no atexit output, no thread that outlives "
         "it); what the handler writes while it runs is kept in meta.output"),
    Rule("C3", "exit_in_table", "the exit code is in the exit-code table",
         "raise Fail(code, message, exit=N) with N from the table"),
    Rule("C4", "exit_on_card", "the exit code (and the error code's exit) is on the command's "
         "card", "declare it: Command(errors=[{'code': ..., 'exit': ...}])"),
    Rule("C5", "fix_runs", "a fix, run exactly as printed, is not refused again",
         "make the fix the corrected command line (burgee builds it for refusals; a "
         "Fail(fix=...) is yours)"),
    Rule("C6", "next_runs", "a next command, run exactly as printed, is not refused, and a "
         "next after action_required gets past it",
         "make each next runnable as is, and honour the flag it adds (ctx.confirm does)"),
    Rule("C7", "mode_carried", "every fix and next carries the caller's output mode (--json, "
         "--format ndjson, or neither for a person)",
         "give fix= and next= without output flags; burgee adds the caller's"),
    Rule("C8", "secret_leaked", "no sensitive value (nor any 8 characters of one) in any "
         "byte of any output", "never print, return or transform a sensitive value"),
    Rule("C9", "raw_control", "no raw control characters in a person's output (a terminal "
         "shows them, never obeys them)",
         "return data and let burgee render it (it escapes control characters), or escape "
         "them in text=/print"),
    Rule("C10", "cli_mcp_differ", "the CLI's --json bytes are the MCP result's text",
         "keep the handler's answer independent of the transport"),
    Rule("C11", "not_deterministic", "the same call twice gives the same bytes",
         "keep times, random values and host names out of the envelope"),
    Rule("C12", "placeholder_ran", "a template placeholder (<x>, $X, YOUR_X) is refused, not "
         "run as a value", "let burgee parse the value (it refuses placeholders)"),
    Rule("C13", "traceback_shown", "no traceback reaches a caller unless asked (--debug)",
         "raise Fail for what can go wrong; an unexpected exception is `internal`"),
    Rule("C14", "call_hung", "every call ends by itself: nothing waits for a person who is "
         "not there", "never wait on input without ctx.prompt/ctx.confirm; bound every wait"),
    Rule("C15", "exit_mismatch", "the exit code is the envelope's (error.exit, @end.exit; "
         "isError over MCP)", "end with the envelope burgee builds: no sys.exit of your own"),
    Rule("C16", "untrusted_in_next", "a value given to an untrusted input "
         "(Option(untrusted=True)) never appears in a next step or a handler's fix",
         "build next and fix= from your own values, never from text a third party wrote "
         "(ctx.next and action_required's next do this for you; Fail(fix=...) is yours)"),
    Rule("C17", "failure_shape", "every failure says what it changed (error.effects: none, "
         "unknown, or partial with steps); every refusal names its field and retryable: "
         "false; exit 11 carries the verdict in data, 13 the reason and how, 14 the best "
         "result so far and a next; a failure's next holds at most three steps",
         "raise Fail(...) (or ctx.verdict, ctx.person_required, ctx.limit_reached) and let "
         "burgee build the envelope"),
    Rule("R1", "examples_missing", "every command has an example",
         "add examples=['tool command ...']: agents copy them"),
    Rule("R2", "undeclared_error", "every code a handler raises is declared in errors= with "
         "its exit", "add the errors= entry the problem names"),
    Rule("R3", "list_not_paginated", "a read-only command that returns a list pages it",
         "declare Command(paginated=True) and return the whole list"),
    Rule("R4", "write_without_key", "a non-idempotent command takes --idempotency-key",
         "keep effects='non_idempotent': burgee adds the key"),
    Rule("R5", "confirm_without_flag", "a command that confirms has the boolean flag that "
         "answers yes in advance", "declare Option(type='boolean') named as ctx.confirm's flag"),
    Rule("R6", "description_long", "descriptions are within 120 characters",
         "cut it to one line; put the rest in examples or option descriptions"),
    Rule("R7", "example_secret", "no example carries a sensitive value",
         "leave the sensitive option out of examples (it reads its variable)"),
)}
"""Code -> Rule, in report order."""

MAX_DESCRIPTION = 120

SECRET_PIECE = 8
"""A leak is the planted secret or any piece of it this long."""

_SECRET_PIECES = tuple({CANARY[i:i + SECRET_PIECE] for i in range(len(CANARY) - SECRET_PIECE + 1)})
_CONTROL_MARK = CONTROL[:CONTROL.index("\x07")]
TRACEBACK = "Traceback (most recent call last)"


@dataclass(frozen=True)
class Finding:
    """One break of one rule by one run: `detail` names what, without the call's own values
    (findings with the same rule, command and detail are counted together)."""

    rule: str
    detail: str
    evidence: str = ""
    fix: str = ""       # what to change, when more exact than the rule's own fix


def failure_problem(doc: object) -> str | None:
    """What a failure envelope lacks of its shape (rule C17), or None (a success, a
    document, or a failure as burgee builds it)."""
    if not isinstance(doc, dict) or doc.get("ok") is not False:
        return None
    error = doc.get("error")
    if not isinstance(error, dict):
        return None   # C1 reports an envelope without its error
    effects = error.get("effects")
    if effects not in ("none", "unknown", "partial"):
        return f"error.effects is {effects!r}, not none, unknown or partial"
    if effects == "partial" and not isinstance(error.get("steps"), list):
        return "error.effects is partial, and error.steps does not list them"
    exit = error.get("exit")
    if exit == 2 and ("field" not in error or error.get("retryable") is not False):
        return "a refusal (exit 2) without field, or with retryable not false"
    data = doc.get("data")
    if exit == 11 and not (isinstance(data, dict) and data.get("passed") is False):
        return "a failed verdict (exit 11) without data.passed false"
    if exit == 13 and not (error.get("reason") and error.get("how")):
        return "person_required (exit 13) without error.reason and error.how"
    steps = doc.get("next")
    if exit == 14 and ("data" not in doc or not steps):
        return "limit_reached (exit 14) without the best result in data and a next"
    if steps is not None and error.get("code") != "action_required":
        if not isinstance(steps, list) or len(steps) > 3:
            return "a failure's next is not a list of at most three steps"
        if any(not isinstance(step, dict) or not (step.get("command") or step.get("tool"))
               for step in steps):
            return "a step of next has no command (nor, over MCP, tool)"
    return None


def leaked(text: str) -> bool:
    """Whether `text` holds the planted secret or any 8-character piece of it."""
    return any(piece in text for piece in _SECRET_PIECES)


def raw_controls(text: str, terminal: bool) -> str | None:
    """The first raw control character a person would get, as an escape, or None. At a
    terminal, CSI sequences (colour, erase) and carriage returns are the program's to use;
    the planted sequence never is."""
    if _CONTROL_MARK in text:
        return "\\x1b]0;burgee (the planted sequence)"
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        code = ord(char)
        if code < 0x20 and char not in "\n\t" or 0x7f <= code < 0xa0:
            if terminal and char == "\r":
                i += 1
                continue
            if terminal and char == "\x1b" and i + 1 < n and text[i + 1] == "[":
                j = i + 2
                while j < n and 0x30 <= ord(text[j]) <= 0x3f:
                    j += 1
                if j < n and 0x40 <= ord(text[j]) <= 0x7e:
                    i = j + 1
                    continue
            return f"\\x{code:02x} at character {i}"
        i += 1
    return None


def shown(text: str, limit: int = 160) -> str:
    """Evidence for a report: clipped, control characters escaped, the planted secret
    masked (a report is printed too)."""
    from workbench._text import escape_controls
    for piece in sorted(_SECRET_PIECES, key=len, reverse=True):
        text = text.replace(CANARY, "***").replace(piece, "***")
    text = escape_controls(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"
