"""The `burgee` program itself, declared with the framework it ships."""

from __future__ import annotations

import os
import sys

from workbench import __version__
from workbench.declaration.model import Argument, Command, Fail, Option, Program
from workbench.entry import run

FILE = Argument("file", description="a Python file that declares a Program")
DEFAULT_CALLS = 24   # workbench.check.calls.DEFAULT_BUDGET, kept off start-up (a test: equal)

PROGRAM = Option(type="string", description="which Program when FILE declares several",
                 placeholder="<name>")


def _load(ctx):
    from workbench.loader import LoadError, load_program
    try:
        return load_program(ctx.args.file, ctx.options.program)
    except LoadError as error:
        raise Fail(error.code, error.message, hint="fix the file, then run again",
                   exit=3 if error.code == "not_found" else 1) from None


def _schema(ctx):
    from workbench.surfaces.schema import program_schema
    return program_schema(_load(ctx))


def _diff(ctx):
    from workbench.dev.review import SourceError, diff_sources
    try:
        review = diff_sources(ctx.args.old, ctx.args.new, ctx.options.program)
    except SourceError as error:
        raise Fail("bad_source", str(error), exit=3,
                   hint="pass a program file, a snapshot folder, or REV:path") from None
    data = review.to_dict()
    if ctx.options.check and review.blocked:
        raise Fail("breaking_change", f"{len(review.breaking)} breaking change(s) without a "
                   f"major version bump ({review.old_version} -> {review.new_version})",
                   hint="keep the old contract as each change says, or raise the major "
                        "version", review=data)
    return data


def _check(ctx):
    from workbench.check import CheckError, check
    options = ctx.options
    try:
        report = check(ctx.args.file, calls=options.calls, seed=options.seed,
                       budget=options.recovery, run_writes=options.run_writes,
                       workers=options.workers, timeout=options.timeout,
                       program=options.program)
    except CheckError as error:
        exit = 3 if error.code == "file_not_found" else 1
        raise Fail(error.code, error.message, exit=exit,
                   hint="check the file's path" if exit == 3 else
                   "fix the file, then run again (burgee dev FILE shows the traceback)") from None
    data = report.to_dict()
    if report.ok:
        return data
    if not ctx.json:
        sys.stdout.write(report.render())
    from workbench.check.report import recovery_line
    failures = report.failures
    message = (f"{len(report.violations)} violation(s) of the contract"
               if "check_failed" in failures else recovery_line(report.recovery))
    raise Fail(failures[0], message, exit=1, failures=failures, report=data,
               hint="each violation names its rule, a call that shows it and the fix; rerun "
                    "with the same --seed to see the same calls")


def _check_text(data) -> str:
    from workbench.check.report import Report, Violation
    report = Report(data["program"], data["version"], data["file"], data["seed"],
                    data["calls_per_command"], data["commands"], data["calls"], data["runs"],
                    data["skipped"], [Violation(**v) for v in data["violations"]],
                    data["recovery"])
    return report.render()


def _review_text(data) -> str:
    from workbench.dev.review import render_review
    return render_review(data)


def _run(ctx):   # reached only for `burgee run --program X FILE ...` forms; main() fast-paths the rest
    program = _load(ctx)
    run(program, list(ctx.args.args))


def _dev(ctx):
    from workbench.runtime.extras import require
    require("dev", "burgee dev")   # a Fail naming the install command, before any import
    from workbench.dev import run_dev
    return run_dev(ctx)


def _new(ctx):
    from workbench import _starter
    name, path = ctx.args.name, ctx.options.path
    folder = path or name
    _starter.check_name(name)
    data = _starter.write(name, os.path.abspath(folder), folder)
    ctx.changed(bool(data["written"]))
    return data


def _new_text(data) -> str:
    from workbench import _starter
    return _starter.render(data)


def _mcp(ctx):   # `burgee mcp FILE`: main() routes it; this declaration feeds help and schemas
    return serve_file(ctx.args.file, list(ctx.args.args))


def serve_file(path: str, argv: list[str]) -> int:
    """`burgee mcp FILE [--program NAME] [--watch] ...`: load the Program declared in FILE and
    serve it (`workbench.mcp`); with --watch, over stdio, reloading on each save
    (`workbench.dev`). It lives here, at the top, because it picks between the two."""
    from workbench.loader import LoadError, load_program
    tokens = list(argv)
    name = None
    if "--program" in tokens[:-1]:
        at = tokens.index("--program")
        name = tokens[at + 1]
        del tokens[at:at + 2]
    if "--watch" in tokens:   # reload on save, tell the client (workbench.dev owns this)
        tokens.remove("--watch")
        if tokens:
            return _refuse_watch(tokens)
        from workbench.runtime.extras import missing, missing_extra
        if missing("dev"):
            fail = missing_extra("dev", "burgee mcp FILE --watch", missing("dev"))
            return _print_failure(fail.code, fail.message, fail.exit, fail.hint, argv)
        from workbench.dev import serve_stdio_watch
        return serve_stdio_watch(path, program_name=name)
    try:
        program = load_program(path, name)
    except LoadError as error:
        return _load_failed(error, argv)
    from workbench.mcp import serve
    from workbench.runtime.pipeline import World, execute
    world = World(os.environ, sys.stdin, sys.stdout, sys.stderr)
    return execute(program, ["mcp", *tokens], world, serve=serve)[0]


def doctor_file(path: str, argv: list[str]) -> int:
    """`burgee doctor FILE [options]`: the program's own `mcp doctor`, or, when FILE does not load,
    that finding (the error, its last traceback line, the fix) as doctor's envelope."""
    from workbench.loader import LoadError, load_program
    try:
        target = load_program(path)
    except LoadError as error:
        from workbench.runtime import doctor, envelope
        options = argv[:argv.index("--")] if "--" in argv else argv
        last = (error.traceback or "").strip().splitlines()[-1:] or [""]
        code = 3 if error.code == "not_found" else 1
        found = doctor.finding("program", "fail", f"{path} does not load: {error.message}"
                               + (f" ({last[0]})" if last[0] and last[0] not in error.message
                                  else ""),
                               "check the file's path" if code == 3 else
                               f"burgee dev {path} shows the traceback; fix the file, then run "
                               f"'burgee doctor {path}' again")
        findings = [found, doctor.finding("contract", "skipped", "not run: the program did "
                                          "not load", "fix that first")]
        data = {"program": None, "command": None, "findings": findings,
                "summary": doctor.summary(findings)}
        doc = envelope.failure("not_found" if code == 3 else "setup_problems",
                               envelope.safe_text(found["message"]), code, hint=found["fix"])
        doc["data"] = data
        if "--json" in options:
            sys.stdout.write(envelope.encode(doc) + "\n")
        else:
            sys.stdout.write(doctor.render(data))
            sys.stderr.write(envelope.render_problem(doc))
        return code
    from workbench.runtime.pipeline import World, execute
    world = World(os.environ, sys.stdin, sys.stdout, sys.stderr)
    return execute(target, ["mcp", "doctor", *argv], world)[0]


def _load_failed(error, argv) -> int:
    """FILE gave no Program: an envelope under the caller's --json, else the error and a hint
    on stderr; the traceback only under --debug. Returns the exit code."""
    options = argv[:argv.index("--")] if "--" in argv else argv
    debug = "--debug" in options
    code = 3 if error.code == "not_found" else 1
    hint = ("check the file's path" if code == 3 else "fix the file, then run again") + (
        "" if debug or not error.traceback else " (--debug shows the traceback)")
    _print_failure(error.code, error.message, code, hint, argv)
    if debug and error.traceback:
        sys.stderr.write(error.traceback)
    return code


def _print_failure(code: str, message: str, exit: int, hint: str | None, argv) -> int:
    """A failure before any program runs: an envelope under the caller's --json (before any
    `--`), else the error and hint on stderr. Returns `exit`."""
    from workbench.runtime import envelope
    options = argv[:argv.index("--")] if "--" in argv else argv
    doc = envelope.failure(code, envelope.safe_text(message), exit, hint)
    if "--json" in options:
        sys.stdout.write(envelope.encode(doc) + "\n")
    else:
        sys.stderr.write(envelope.render_problem(doc))
    return exit


def _refuse_watch(tokens) -> int:
    sys.stderr.write(f"error: 'burgee mcp FILE --watch' serves stdio only; it takes no "
                     f"{' '.join(tokens)}\nhint: for HTTP while editing, run 'burgee dev FILE'\n")
    return 2


def _dev_http_options() -> dict:
    """`tool mcp --http`'s server flags that apply to `burgee dev` (it serves on 127.0.0.1)."""
    from workbench.declaration.builtins import http_options
    options = http_options()
    del options["allow_remote"]
    return options


def _dev_text(report) -> str:
    from workbench.dev.report_text import render
    return render(report)


def _pretty(data) -> str:
    import json
    return json.dumps(data, indent=2, ensure_ascii=False)


program: Program = Program(
    name="burgee", version=__version__,
    description="Declare a command line once; serve it to people and agents; watch every surface "
                "live. 'burgee mcp FILE' serves FILE's program over MCP",
    commands=[
        Command(name="dev", description="Live workbench: reload FILE on save, serve it over MCP, "
                                        "show every surface", effects="withheld",
                arguments=[Argument("file", required=False,
                                    description="the program's file (default: a bundled sample)")],
                options={"program": PROGRAM,
                         "headless": Option(type="boolean", description="no screen: snapshot every "
                                            "surface, compare, report, exit non-zero on drift"),
                         "update": Option(type="boolean", description="with --headless: accept the "
                                          "new snapshots"),
                         "snapshots": Option(type="string", default=".burgee/snapshots",
                                             description="snapshot folder for --headless"),
                         "picture": Option(type="boolean", description="with --headless: also "
                                           "draw the dashboard as SVG beside the snapshot folder"),
                         "port": Option(type="integer", description="MCP port on 127.0.0.1 "
                                        "(default: a free one)"),
                         "run_writes": Option(type="boolean", description="also run examples of "
                                              "commands that write (each in a sandbox)"),
                         "check": Option(type="boolean", default=True, description="with "
                                         "--headless: also run burgee check on FILE (--no-check "
                                         "skips it)"),
                         "check_calls": Option(type="integer", min=1, placeholder="<n>",
                                               description="with --headless: burgee check's "
                                               "calls per command (default: 24, fewer past 100 "
                                               "commands: about 2,400 in all)"),
                         "record": Option(type="boolean", description="record every MCP call "
                                          "to .burgee/traffic/ (R in the dashboard)"),
                         "replay": Option(type="string", placeholder="<file.jsonl>",
                                          description="with --headless: replay recorded calls, "
                                          "report what answers differently"),
                         **_dev_http_options()},
                examples=["burgee dev sample_programs/notes.py",
                          "burgee dev sample_programs/notes.py --headless"],
                errors=[{"code": code, "exit": 1, "when": when} for code, when in (
                    ("breaking_change", "--headless: a change breaks callers without a major "
                                        "version bump"),
                    ("snapshot_drift", "--headless: a surface differs from its snapshot"),
                    ("budget_exceeded", "--headless: a surface is over its budget"),
                    ("session_over_budget", "--headless: an agent session costs more than "
                                            "its budget"),
                    ("invalid_budget", "a session budget key names no path or shape"),
                    ("lint_error", "--headless: an error-level problem"),
                    ("invalid_output", "--headless: an example's data breaks its output "
                                       "schema"),
                    ("envelope_mismatch", "--headless: an example differs between CLI and "
                                          "MCP"),
                    ("check_failed", "--headless: burgee check found a violation of the "
                                     "contract"),
                    ("recovery_below_budget", "--headless: fewer refusals than the budget "
                                              "recover by their fix"),
                    ("replay_changed", "--replay: a recorded call answers differently"),
                    ("load_failed", "FILE did not load"))] + [
                    {"code": "file_not_found", "exit": 3, "when": "FILE (or the replay file) "
                                                                  "does not exist"},
                    {"code": "port_in_use", "exit": 2, "when": "another process holds --port"},
                    {"code": "invalid_snapshot", "exit": 2, "when": "--headless: a snapshot "
                                                                    "file is not what burgee "
                                                                    "wrote"},
                    {"code": "invalid_replay", "exit": 2, "when": "--replay: the file is not "
                                                                  "what --record writes"},
                    {"code": "missing_extra", "exit": 7, "when": "the dev extra is not "
                                                                  "installed"}],
                run=_dev, text=_dev_text),
        Command(name="run", description="Run the program declared in FILE as its own CLI",
                effects="withheld",
                arguments=[FILE, Argument("args", required=False, variadic=True,
                                          description="arguments for that program")],
                options={"program": PROGRAM},
                examples=["burgee run sample_programs/deploy.py -- deploy --target staging --yes"],
                run=_run),
        Command(name="new", description="Start a project: a typed program, its tests and a CI "
                                        "job, in ./NAME or --path DIR",
                effects="idempotent",
                arguments=[Argument("name", description="the program's name (lower-case, "
                                    "words joined by '-'): the command people type")],
                options={"path": Option(type="string", placeholder="<dir>",
                                        description="the project folder (default: ./NAME); "
                                        "must be new or empty")},
                examples=["burgee new mytool", "burgee new mytool --path tools/mytool"],
                output={"type": "object", "properties": {
                    "name": {"type": "string"}, "folder": {"type": "string"},
                    "files": {"type": "array", "items": {"type": "string"}},
                    "written": {"type": "array", "items": {"type": "string"}},
                    "next": {"type": "array", "items": {"type": "string"}}},
                    "required": ["name", "folder", "files", "written", "next"],
                    "additionalProperties": False},
                errors=[{"code": "invalid_name", "exit": 1,
                         "when": "NAME is not a program name"},
                        {"code": "folder_not_empty", "exit": 5,
                         "when": "the folder holds other files"},
                        {"code": "not_a_folder", "exit": 5, "when": "the path is a file"}],
                run=_new, text=_new_text),
        Command(name="diff", description="Classify every change between two versions of a "
                                         "program: breaking, additive or cosmetic",
                effects="read_only",
                arguments=[Argument("old", description="program file, snapshot folder or "
                                    "REV:path (git)"),
                           Argument("new", description="program file, snapshot folder or "
                                    "REV:path (git)")],
                options={"program": PROGRAM,
                         "check": Option(type="boolean", description="exit 1 on a breaking "
                                         "change without a major version bump")},
                examples=["burgee diff HEAD:sample_programs/deploy.py sample_programs/deploy.py"],
                run=_diff, text=_review_text),
        Command(name="check", description="Check the agent contract on generated calls of "
                                          "every command; exit 1 on a violation",
                effects="withheld",
                arguments=[FILE],
                options={"program": PROGRAM,
                         "calls": Option(type="integer", default=DEFAULT_CALLS,
                                         description="calls per command (examples and "
                                         "mutations); raise it to look harder"),
                         "seed": Option(type="integer", default=0, description="which "
                                        "mutations are sampled; the same seed, the same calls"),
                         "recovery": Option(type="number", placeholder="<rate>",
                                            description="lowest recovery rate that passes "
                                            "(default: budgets['recovery'], else 0.95)"),
                         "run_writes": Option(type="boolean", description="also run calls "
                                              "that reach commands that write (each in the "
                                              "sandbox)"),
                         "workers": Option(type="integer", placeholder="<n>",
                                           description="checking processes (default: one "
                                           "per CPU, up to 4)"),
                         "timeout": Option(type="number", default=10.0, description="seconds "
                                           "a run may take before it counts as hung")},
                examples=["burgee check sample_programs/notes.py",
                          "burgee check sample_programs/warehouse.py --calls 60 --seed 7"],
                errors=[{"code": "check_failed", "exit": 1,
                         "when": "a generated call broke a rule (report.violations)"},
                        {"code": "recovery_below_budget", "exit": 1,
                         "when": "too few refusals recover by their fix (report.recovery)"},
                        {"code": "load_failed", "exit": 1, "when": "FILE does not load"},
                        {"code": "file_not_found", "exit": 3, "when": "FILE does not exist"}],
                run=_check, text=_check_text),
        Command(name="schema", description="Print the schema of the program declared in FILE",
                effects="read_only", arguments=[FILE], options={"program": PROGRAM},
                examples=["burgee schema sample_programs/deploy.py"], run=_schema, text=_pretty),
    ],
)


MCP_FILE_HELP = """\
Usage: burgee mcp FILE [--program NAME] [--watch] [options]

Serve the program declared in FILE over MCP: stdio by default, streamable HTTP with
--http HOST:PORT (the options below). --watch reloads FILE on each save and tells the
client (stdio only; for HTTP while editing, run 'burgee dev FILE'). --program picks one
Program when FILE declares several.
  burgee mcp app.py                         # stdio, for a client that starts it
  burgee mcp app.py --http 127.0.0.1:8765   # HTTP; prints the bearer token
  burgee mcp app.py --watch                 # stdio, reloading on save

Without FILE, 'burgee mcp' serves burgee's own commands:

"""
"""`burgee mcp --help` starts with this: the FILE form is what people look for."""


def _asks_person_help(argv) -> bool:
    """`--help`/`-h` before any `--`, no `--json` and no FILE: the person's help."""
    options = argv[:argv.index("--")] if "--" in argv else argv
    return bool({"--help", "-h"} & set(options)) and "--json" not in options and not any(
        word.endswith(".py") or os.path.isfile(word) for word in options)


def main(argv: list[str] | None = None) -> None:
    """Console entry point. `burgee run FILE ...` and `burgee mcp FILE ...` hand argv on untouched."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["dev"]:   # the workbench checks every load and leaves no verdict behind
        os.environ.setdefault("BURGEE_CHECK", "always")
    if argv[:1] == ["mcp"] and _asks_person_help(argv[1:]):
        sys.stdout.write(MCP_FILE_HELP)   # the FILE form first; the built-in's help follows
    if len(argv) >= 2 and argv[0] == "doctor" and argv[1].endswith(".py"):
        sys.exit(doctor_file(argv[1], argv[2:]))
    if len(argv) >= 2 and argv[0] in ("run", "mcp") and not argv[1].startswith("-") and (
            argv[1].endswith(".py") or os.path.isfile(argv[1])):
        if argv[0] == "mcp":
            sys.exit(serve_file(argv[1], argv[2:]))
        from workbench.loader import LoadError, load_program
        try:
            target = load_program(argv[1])
        except LoadError as error:
            sys.exit(_load_failed(error, argv[2:]))
        rest = argv[2:]
        run(target, rest[1:] if rest[:1] == ["--"] else rest)
    run(program, argv)


if __name__ == "__main__":
    main()
