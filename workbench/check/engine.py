"""Check commands of a loaded program: generate their calls, run them, hold every run to the
rules, follow every fix and next, measure recovery, lint the declaration.

`check_commands` is what one checking process does for its share of the commands; its answer
is plain JSON data (`burgee check` merges the shares of its workers into a `Report`).
"""

from __future__ import annotations

from workbench.check import rules as _rules
from workbench.check.calls import generate
from workbench.check.lint import lint_command, observed_problems
from workbench.check.recovery import recover
from workbench.check.rules import Finding
from workbench.declaration.exits import REFUSALS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.check.calls import Call
    from workbench.check.runner import Run, Runner
    from workbench.declaration.model import Command, Program

ALWAYS = (("agent", "json"), ("piped", "json"), ("terminal", "text"))
"""Every call runs in these (environment, output mode) pairs, and over MCP where it can."""

MORE = (("piped", "text"), ("ci", "json"), ("ci", "text"), ("terminal", "json"),
        ("agent", "text"))
"""Sources also run in all of these; each mutation in one of them, in turn."""

REPEAT_EVERY = 4
"""Every source, and every fourth mutation, is run a second time (the same bytes twice)."""


def plan(call: Call) -> list[Any]:
    """The (environment, mode) pairs a call runs in."""
    pairs = list(ALWAYS)
    if call.is_source:
        pairs += MORE
    else:
        pairs.append(MORE[call.index % len(MORE)])
    if call.streams:
        pairs.append(("agent", "ndjson"))
    return pairs


class Context:
    """What the rules read about one command: its card's exit codes and errors, and whether
    a call may reach a handler that writes."""

    program: Program
    command: Command
    name: str
    errors: dict[str, int]
    exits: set[int]
    sources: dict[int, Any]
    findings: list[Any]
    observed: dict[tuple[str, int], Any]
    adapted: bool

    def __init__(self, program: Program, command: Command, run_writes: bool = False) -> None:
        from workbench.surfaces import _facts
        self.program = program
        self.command = command
        self.name = " ".join(command.path)
        self.errors = {entry["code"]: entry["exit"] for entry in _facts.errors(command)}
        self.exits = set(_facts.exit_codes(command))
        self.run_writes = run_writes
        self.skipped = 0             # calls not run: they would reach a handler that writes
        self.sources = {}             # index -> the command's source calls
        self.findings = []
        self.observed = {}           # (error code, exit) -> the first run that ended so
        self.lists = False           # a success whose data was a list
        self.adapted = command.adapter is not None
        """An adapted (Click, Typer, argparse) command: a person sees what the original
        writes, byte for byte, and exits with its statuses, which no card can list; C4
        and C9 hold only declared commands."""


def check_commands(program: Program, commands: Sequence[Command], runner: Runner, budget: int, seed: int,
                   run_writes: bool = False) -> dict[str, Any]:
    """Everything one checker finds for `commands`: calls, runs, findings, recovery records
    and release-lint problems, as JSON data. Without `run_writes`, a call that would reach
    the handler of a command that is not `read_only` is not run (one the parser refuses
    still is: it never reaches the handler)."""
    calls = generate(program, commands, budget, seed)
    by_command: dict = {}
    for call in calls:
        by_command.setdefault(call.command, []).append(call)
    findings: list = []
    records: list = []
    skipped = 0
    for command in commands:
        runner.forget()     # what one command's calls cost does not depend on the others
        context = Context(program, command, run_writes)
        mine = by_command.get(command.path, [])
        sources = context.sources = {call.index: call for call in mine if call.is_source}
        for call in mine:
            run = _run_call(context, runner, call)
            if not call.is_source:
                record = recover(context, runner, call, sources[call.source], run)
                if record is not None:
                    records.append(record)
        skipped += context.skipped
        for finding, call, run in context.findings:
            findings.append(_finding(context, finding, call, run))
        for finding in lint_command(program, command) + observed_problems(context):
            findings.append(lint_finding(finding, context.name))
    return {"calls": len(calls), "runs": runner.count, "skipped": skipped,
            "findings": findings, "recovery": records}


def lint_finding(finding: Finding, command: str) -> dict[str, Any]:
    """A release-lint finding as report data (no call: it is the declaration's)."""
    return {"rule": finding.rule, "command": command, "detail": finding.detail,
            "evidence": _rules.shown(finding.evidence), "fix": finding.fix, "call": None,
            "environment": None, "mode": None}


def _finding(context, finding, call, run) -> dict[str, Any]:
    from workbench._text import join
    line = join([context.program.name, *run.argv]) if run.environment != "mcp" else \
        f"tools/call {run.argv[0]} {run.argv[1]}"
    return {"rule": finding.rule, "command": context.name, "detail": finding.detail,
            "evidence": _rules.shown(finding.evidence), "fix": finding.fix,
            "call": _rules.shown(line, 240), "environment": run.environment, "mode": run.mode}


def may_run(context: Context, runner: Runner, argv: Sequence[str],
            env: Sequence[tuple[str, str]]) -> bool:
    """Whether a call may run: it reaches no handler (refused, help), or that handler's
    command is `read_only`, or writes are to run (`--run-writes`)."""
    if context.run_writes:
        return True
    from workbench.runtime.parser import Refusal, parse
    try:
        request = parse(context.program, list(argv), runner.environ("agent", env))
    except Refusal:
        return True
    command = request.command
    if command is None or request.builtin is not None or request.flags["help"] or \
            request.flags["schema"]:
        return True
    return command.effects == "read_only"


def _run_call(context, runner, call):
    """Run the call in its plan; its agent --json run (None when it may not run)."""
    if not may_run(context, runner, call.argv, call.env):
        context.skipped += 1
        return None
    for environment, mode in plan(call):
        run = runner.cli(call.argv, environment, mode, call.env, call.stdin)
        inspect(context, call, run)
        follow(context, runner, call, run)
        if (call.is_source or call.index % REPEAT_EVERY == 0) and (environment, mode) in (
                ("agent", "json"), ("terminal", "text")):
            _twice(context, call, run, runner.cli(call.argv, environment, mode, call.env,
                                                  call.stdin, again=True))
    _over_mcp(context, runner, call)
    return runner.cli(call.argv, "agent", "json", call.env, call.stdin)


def _add(context, call, run, rule, detail, evidence="") -> None:
    context.findings.append((Finding(rule, detail, evidence), call, run))


def inspect(context: Context, call: Call, run: Run, own: bool = True) -> None:
    """Hold one run to the call rules (C1-C4, C8, C9, C12-C15); `own`: a run of the call
    itself, not of a line it printed (which C12 does not concern)."""
    add = lambda rule, detail, evidence="": _add(context, call, run, rule, detail, evidence)  # noqa: E731
    if run.timed_out:
        add("C14", "the call did not end within the time limit", run.stderr[-200:])
        return
    both = run.stdout + "\n" + run.stderr
    if _rules.TRACEBACK in both and "--debug" not in run.argv:
        add("C13", "a traceback reached the caller", run.stderr[-300:] or run.stdout[-300:])
    if _rules.leaked(both):
        where = "standard output" if _rules.leaked(run.stdout) else "standard error"
        add("C8", f"a sensitive value reached {where}", _around_secret(both))
    from workbench.declaration.exits import EXIT_CODES
    if run.exit not in EXIT_CODES:
        add("C3", f"exit {run.exit} is not in the exit-code table", run.stderr[-200:])
    elif run.exit not in context.exits and run.exit not in (130, 141) and not context.adapted:
        add("C4", f"exit {run.exit} is not on the card (its exit codes: "
                  f"{', '.join(map(str, sorted(context.exits)))})", _error_line(run))
    if run.mode == "mcp":
        return
    if run.mode == "json" or run.mode == "raw" and "--json" in run.argv:
        _one_document(context, call, run)
    elif run.mode == "ndjson":
        _one_stream(context, call, run)
    elif not context.adapted:   # an adapted program's own output passes as it wrote it
        terminal = run.environment == "terminal"
        for name, text in (("standard output", run.stdout), ("standard error", run.stderr)):
            found = _rules.raw_controls(text, terminal)
            if found is not None:
                add("C9", f"raw control characters on {name} of a person's output", found)
    if own and call.kind == "placeholder" and run.exit != 2 and not _person_only(run):
        add("C12", "a placeholder value was run instead of refused (input_placeholder)",
            run.stdout[:200])


def _person_only(run) -> bool:
    """Whether the run is a person-only command refused to an agent (exit 13, before its
    arguments are even read)."""
    if run.exit != 13:
        return False
    doc = run.document()
    return isinstance(doc, dict) and doc.get("reason") == "person_only" or \
        "is run by a person only" in run.stderr


def _error_line(run) -> str:
    doc = run.document()
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        return f"error.code {doc['error'].get('code')!r}"
    return (run.stderr or run.stdout)[:200]


def _around_secret(text: str) -> str:
    from workbench.check.calls import CANARY
    for size in range(len(CANARY), _rules.SECRET_PIECE - 1, -1):
        for at in range(len(CANARY) - size + 1):
            found = text.find(CANARY[at:at + size])
            if found != -1:
                return text[max(0, found - 60):found + size + 60]
    return ""


def _one_document(context, call, run) -> None:
    add = lambda rule, detail, evidence="": _add(context, call, run, rule, detail, evidence)  # noqa: E731
    if run.stderr:
        add("C2", "standard error was written under --json", run.stderr[:200])
    text = run.stdout
    if not text.endswith("\n") or text.count("\n") != 1:
        add("C1", "standard output is not one line ending in a newline under --json",
            text[:200])
        return
    doc = run.document()
    if doc is None:
        add("C1", "standard output is not JSON under --json", text[:200])
        return
    _envelope_exit(context, call, run, doc)


def _envelope_exit(context, call, run, doc) -> None:
    if not isinstance(doc, dict) or "ok" not in doc:
        return      # a document (help, a schema), not an envelope
    from workbench.runtime.envelope import exit_code
    try:
        stands_for = exit_code(doc)
    except (KeyError, TypeError):
        _add(context, call, run, "C1", "a failure envelope without error.exit",
             run.stdout[:200])
        return
    if stands_for != run.exit:
        _add(context, call, run, "C15", f"the process exits {run.exit}, its envelope says "
             f"{stands_for}", run.stdout[:200])
    error = doc.get("error")
    if isinstance(error, dict) and doc.get("ok") is not True:
        code = error.get("code")
        context.observed.setdefault((code, error.get("exit")), run)
        declared = context.errors.get(code)
        if declared is not None and declared != error.get("exit") and code != "usage":
            _add(context, call, run, "C4", f"error {code!r} exits {error.get('exit')}, its "
                 f"card says {declared}", run.stdout[:200])
    if doc.get("ok") is True and isinstance(doc.get("data"), list):
        context.lists = True
    _untrusted_steps(context, call, run, doc)
    _failure_shape(context, call, run, doc)


def _untrusted_steps(context, call, run, doc) -> None:
    """C16: no value the call gave an untrusted input is in the envelope's next or a
    handler's fix (a usage refusal's fix is the caller's own line corrected: each value
    stays in its place, quoted)."""
    untrusted = {option.flag for option in context.command.options.values()
                 if option.untrusted}
    if not untrusted:
        return
    values = [call.argv[at + 1] for at, token in enumerate(call.argv[:-1])
              if token in untrusted] + [token.partition("=")[2] for token in call.argv
                                        if token.partition("=")[0] in untrusted]
    values = [value for value in values if len(value) >= 4 and not value.startswith("<")]
    error = doc.get("error") if isinstance(doc.get("error"), dict) else {}
    if error.get("exit") == 2:
        error = {}
    steps = [step.get("command", "") for step in doc.get("next") or () if isinstance(step, dict)]
    for line in steps + [error.get("fix") or ""]:
        if isinstance(line, str) and any(value in line for value in values):
            _add(context, call, run, "C16", "an untrusted input's value is in a next step or "
                 "fix", line[:200])
            return


def _failure_shape(context, call, run, doc) -> None:
    """C17: what a failure envelope must say (`rules.failure_problem`)."""
    problem = _rules.failure_problem(doc)
    if problem is not None:
        _add(context, call, run, "C17", problem, run.stdout[:200])


def _one_stream(context, call, run) -> None:
    add = lambda rule, detail, evidence="": _add(context, call, run, rule, detail, evidence)  # noqa: E731
    import json
    if run.stderr:
        add("C2", "standard error was written under --format ndjson", run.stderr[:200])
    lines = run.stdout.split("\n")
    if lines[-1] != "" or len(lines) < 3:
        add("C1", "an ndjson stream is not @meta, items and @end, each on its own line",
            run.stdout[-200:])
        return
    try:
        values = [json.loads(line) for line in lines[:-1]]
    except ValueError:
        add("C1", "a line of an ndjson stream is not JSON", run.stdout[:200])
        return
    if not (isinstance(values[0], dict) and "@meta" in values[0]
            and isinstance(values[-1], dict) and "@end" in values[-1]):
        add("C1", "an ndjson stream does not start with @meta and end with @end",
            run.stdout[:200])
        return
    end = values[-1]["@end"]
    if end.get("exit") != run.exit:
        add("C15", f"the process exits {run.exit}, the stream's @end says {end.get('exit')}",
            lines[-2][:200])
    error = end.get("error")
    if isinstance(error, dict):
        context.observed.setdefault((error.get("code"), error.get("exit")), run)


def _settled(stderr: str) -> str:
    """stderr without a progress bar's in-between frames (`\\r...\\x1b[K` with no newline):
    how many are drawn depends on time by design; the last frame (a newline after it) stays."""
    if "\x1b[K" not in stderr:
        return stderr
    import re
    return re.sub(r"\r[^\r\n]*?\x1b\[K(?!\n)", "", stderr)


def _twice(context, call, first, second) -> None:
    before, after = _settled(first.stderr), _settled(second.stderr)
    if (first.exit, first.stdout, before) != (second.exit, second.stdout, after):
        import difflib
        left = (first.stdout + before).splitlines()
        right = (second.stdout + after).splitlines()
        diff = [line for line in difflib.unified_diff(left, right, lineterm="", n=0)
                if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        _add(context, call, second, "C11", "the same call gave different bytes the second "
             "time", " | ".join(diff)[:300] or f"exit {first.exit} then {second.exit}")


# -- fix and next, followed as printed ---------------------------------------------------

def printed_lines(run: Run) -> list[Any]:
    """(kind, line) for every fix and next a run printed: `fix`, `next` (after success or
    a refusal), `action` (a next after action_required)."""
    found: list = []
    if run.mode in ("json", "raw", "mcp"):
        doc = run.document()
        if not isinstance(doc, dict):
            return found
        action = doc.get("status") == "action_required"
        error = doc.get("error")
        if isinstance(error, dict) and isinstance(error.get("fix"), str) and run.mode != "mcp":
            found.append(("fix", error["fix"]))
        for step in doc.get("next") or ():
            if isinstance(step, dict) and isinstance(step.get("command"), str):
                found.append(("action" if action else "next", step["command"]))
        return found
    if run.mode == "ndjson":
        import json
        try:
            end = json.loads(run.stdout.rstrip("\n").rsplit("\n", 1)[-1]).get("@end") or {}
        except (ValueError, AttributeError):
            return found
        error = end.get("error")
        if isinstance(error, dict) and isinstance(error.get("fix"), str):
            found.append(("fix", error["fix"]))
        for step in end.get("next") or ():
            if isinstance(step, dict) and isinstance(step.get("command"), str):
                found.append(("action" if error and error.get("code") == "action_required"
                              else "next", step["command"]))
        return found
    for line in run.stderr.splitlines():
        if line.startswith("next: "):
            command = line[6:].split("   # ", 1)[0].strip()
            found.append(("action" if run.exit == 4 else "fix" if run.exit else "next", command))
    return found


def follow(context: Context, runner: Runner, call: Call, run: Run) -> None:
    """Run every fix and next the run printed exactly as printed (unless it holds a slot for
    the caller to fill), and hold it to C5-C7 and to the call rules. A line is refused again
    when it ends in exit 2 with a refusal of the parser or runtime (it does not parse as a
    call), or with the very code it was meant to fix; a handler's own refusal of a call that
    parsed (missing credentials, say) is the program's state, not the line's fault."""
    from workbench._text import placeholder, split
    from workbench.check.recovery import declared_slots
    code, reason = _why(runner, run, run.argv, call)
    slots = declared_slots(context.command)
    for kind, line in printed_lines(run):
        try:
            tokens = split(line)
        except ValueError:
            _add(context, call, run, "C5" if kind == "fix" else "C6",
                 f"a {kind} does not parse as a command line", line)
            continue
        _mode_carried(context, call, run, kind, tokens, line)
        if tokens[:1] != [context.program.name]:
            _add(context, call, run, "C5" if kind == "fix" else "C6",
                 f"a {kind} does not start with the program's name", line)
            continue
        values = [token.partition("=")[2] if token.startswith("--") and "=" in token
                  else token for token in tokens]
        if any(placeholder(value) for value in values) or set(values) & slots:
            continue
        if not may_run(context, runner, tokens[1:], call.env):
            continue
        again = runner.cli(tuple(tokens[1:]), run.environment, None, call.env, call.stdin)
        inspect(context, call, again, own=False)
        if again.timed_out or again.exit not in (2, 4):
            continue
        again_code, again_reason = _why(runner, again, tuple(tokens[1:]), call)
        refused = again.exit == 2 and (again_code in REFUSALS or again_code == code) and \
            not _as_source(context, runner, call, run.environment, again.exit, again_code)
        shown = f"{line} -> exit {again.exit} {again_code or ''}".rstrip()
        if kind == "fix" and refused:
            _add(context, call, again, "C5", "a fix, run as printed, is refused again", shown)
        elif kind == "action" and refused:
            _add(context, call, again, "C6", "a next after action_required, run as printed, "
                 "is refused", shown)
        elif kind == "action" and again.exit == 4 and again_reason == reason:
            _add(context, call, again, "C6", "a next after action_required ends in the same "
                 "action_required", shown)
        elif kind == "next" and refused:
            _add(context, call, again, "C6", "a next, run as printed, is refused", shown)


def _as_source(context, runner, call, environment, exit, code) -> bool:
    """Whether a line ends as the call the mutation came from does: it reached that call,
    refused or not (a call built from the declaration may be one the handler refuses)."""
    source = context.sources.get(call.source)
    if source is None or not may_run(context, runner, source.argv, source.env):
        return False
    first = runner.cli(source.argv, environment, "json", source.env, source.stdin)
    return first.exit == exit and _why(runner, first, first.argv, source)[0] == code


def _why(runner, run, argv, call) -> tuple[Any, ...]:
    """(error code, action reason) a run ended with: read from its envelope, or, for a
    person's run, from the same line run once more with --json."""
    if run.exit in (0, None):
        return None, None
    doc = run.document() if run.mode in ("json", "raw", "mcp") else None
    if run.mode == "ndjson":
        import json
        try:
            end = json.loads(run.stdout.rstrip("\n").rsplit("\n", 1)[-1]).get("@end")
        except (ValueError, AttributeError):
            end = None
        return ((end.get("error") or {}).get("code"), None) if isinstance(end, dict) \
            else (None, None)
    if not isinstance(doc, dict) and run.mode in ("text", "raw") and "--json" not in argv:
        at = list(argv).index("--") if "--" in argv else len(argv)
        probe = runner.cli(tuple(argv[:at]) + ("--json",) + tuple(argv[at:]), run.environment,
                           None, call.env, call.stdin)
        doc = probe.document()
    if not isinstance(doc, dict) or not isinstance(doc.get("error"), dict):
        return None, None
    return doc["error"].get("code"), doc.get("reason")


def _mode_carried(context, call, run, kind, tokens, line) -> None:
    head = tokens[:tokens.index("--")] if "--" in tokens else tokens
    streams = any(head[i] == "--format" and head[i + 1:i + 2] == ["ndjson"]
                  for i in range(len(head))) or "--format=ndjson" in head
    has_json = "--json" in head
    mode = run.mode if run.mode != "raw" else ("json" if "--json" in run.argv else "text")
    wanted = {"json": has_json and not streams, "ndjson": streams,
              "text": not has_json and not streams}.get(mode, True)
    if not wanted:
        what = {"json": "--json", "ndjson": "--format ndjson", "text": "no output flag"}[mode]
        _add(context, call, run, "C7", f"a {'fix' if kind == 'fix' else 'next'} does not "
             f"carry the caller's output mode ({what})", line)


# -- MCP ----------------------------------------------------------------------------------

def _over_mcp(context, runner, call) -> None:
    """The call as an MCP client sends it, next to the CLI's piped --json run (C10), and held
    to the call rules."""
    command = context.command
    from workbench.surfaces._facts import offered
    if not offered(command) or "-" in call.argv or call.stdin is not None:
        return
    from workbench.runtime.arguments import from_argv
    try:
        _, arguments = from_argv(context.program, list(call.argv))
    except ValueError:
        return      # refused before running: MCP checks its arguments its own way
    run = runner.mcp(command.tool_name, arguments, call.env)
    inspect(context, call, run)
    if run.timed_out:
        return
    result = run.result or {}
    doc = run.document()
    if doc is None:
        _add(context, call, run, "C1", "the MCP result's text is not one JSON document",
             run.stdout[:200])
        return
    if run.stderr:
        _add(context, call, run, "C2", "the MCP call wrote outside its result",
             run.stderr[:200])
    if isinstance(doc, dict) and "ok" in doc and bool(result.get("isError")) != \
            (doc.get("ok") is not True):
        _add(context, call, run, "C15", "isError disagrees with the envelope's ok",
             run.stdout[:200])
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict) and doc.get("ok") is not True:
        context.observed.setdefault((doc["error"].get("code"), doc["error"].get("exit")), run)
    _failure_shape(context, call, run, doc)
    cli = runner.cli(call.argv, "piped", "json", call.env, None)
    if cli.timed_out:
        return
    from workbench.runtime._failures import as_mcp_sends
    text = as_mcp_sends(context.program, cli.stdout[:-1] if cli.stdout.endswith("\n")
                         else cli.stdout)
    if text != run.stdout and _without_usage_fix(text) != _without_usage_fix(run.stdout):
        import difflib
        diff = [line for line in difflib.unified_diff(text.split(","), run.stdout.split(","),
                                                      lineterm="", n=0)
                if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        _add(context, call, run, "C10", "the MCP result's text differs from the CLI's "
             "--json output", " | ".join(diff)[:300])
    if call.is_source or call.index % REPEAT_EVERY == 0:
        _twice(context, call, run, runner.mcp(command.tool_name, arguments, call.env,
                                              again=True))


def _without_usage_fix(text: str):
    """An envelope without the words of a usage refusal (exit 2): over MCP its `fix` is the
    arguments to send and its message and hint name properties (`'yes'`), on the command line
    the line to type and flags (`--yes`) (DESIGN §5); its code, exit and all else must be
    equal."""
    import json
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    error = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(error, dict) and error.get("exit") == 2:
        for words in ("fix", "message", "hint"):
            error.pop(words, None)
    return doc
