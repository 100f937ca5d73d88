"""Envelope diffs: every example run as a CLI `--json` subprocess and as an MCP tools/call.

The two must be the same bytes (the CLI prints the document and one newline; the MCP text
result is the document). Examples of read_only and idempotent commands run automatically
(an idempotent one runs once more first, so both sides start from the settled state and
agree on `meta.changed`); others only with `run_writes` (`--run-writes`), since running
them changes something, and each side then sees the other's change.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from workbench.dev.engine import Diff

SAFE_EFFECTS = ("read_only", "idempotent")
DIFF_TIMEOUT = 20.0


def example_argv(program, example: str) -> list:
    """argv after the program name for an example line (`tool deploy --yes` -> [deploy, --yes]).

    Presentation flags (`--format ndjson`, `--progress`) are dropped: an MCP result is always
    one envelope, so the CLI side compared with it is the example's `--json` envelope.
    """
    from workbench._text import split
    tokens = split(example)
    if tokens and tokens[0] == program.name:
        tokens = tokens[1:]
    kept, skip = [], False
    for index, token in enumerate(tokens):
        if token == "--":
            return kept + tokens[index:]
        if skip:
            skip = False
        elif token == "--format":
            skip = True
        elif not token.startswith("--format=") and token != "--progress":
            kept.append(token)
    return kept


def unified(cli: str | None, mcp: str | None) -> str:
    """A readable unified diff: indented JSON when both sides parse, else the raw lines."""
    import difflib

    def lines(text):
        if text is None:
            return ["(nothing)"]
        try:
            return json.dumps(json.loads(text), ensure_ascii=False, indent=2).splitlines()
        except ValueError:
            return text.splitlines()

    left, right = lines(cli), lines(mcp)
    if left == right:   # equal as data, different as bytes (key order, spacing, newline)
        left, right = [repr(cli)], [repr(mcp)]
    return "\n".join(difflib.unified_diff(left, right, "cli --json", "mcp tools/call",
                                          lineterm=""))


def cli_json(bench, argv, timeout: float = DIFF_TIMEOUT):
    """(stdout, exit) of the real CLI with `--json` (piped, no agent), or raises."""
    from workbench.dev.environments import environ_for, worker_command
    from workbench.dev.loader import run_limited
    done = run_limited(worker_command(bench, list(argv) + ["--json"]), input="",
                       timeout=timeout, env=environ_for("piped"),
                       cwd=os.path.dirname(bench.file))
    return done.stdout, done.returncode, done.stderr


def diff_example(bench, command, example: str, run_writes: bool = False) -> Diff:
    program = bench.program
    name = " ".join(command.path)
    argv = example_argv(program, example)
    if command.effects == "withheld":
        return Diff(name, example, tuple(argv), None, None, None,
                    skipped="withheld: the command is not an MCP tool")
    if command.effects not in SAFE_EFFECTS and not run_writes:
        return Diff(name, example, tuple(argv), None, None, None,
                    skipped=f"{command.effects}: runs only with --run-writes")
    from workbench.dev.environments import arguments_from_argv
    try:
        _, arguments = arguments_from_argv(program, argv)
    except Exception as exc:  # noqa: BLE001
        return Diff(name, example, tuple(argv), None, None, None,
                    error=f"cannot express the example as MCP arguments: {exc}")
    try:
        if command.effects == "idempotent":
            # Settle first: the first run may change something (meta.changed true) and the
            # next ones not; compare two runs that both start from the settled state.
            cli_json(bench, argv)
        stdout, code, stderr = cli_json(bench, argv)
    except subprocess.TimeoutExpired:
        return Diff(name, example, tuple(argv), arguments, None, None,
                    error=f"the CLI run did not finish within {DIFF_TIMEOUT:g} s")
    cli = stdout[:-1] if stdout.endswith("\n") else stdout
    try:
        result = bench.server.call_tool_sync(command.tool_name, arguments,
                                             timeout=DIFF_TIMEOUT + 5)
    except Exception as exc:  # noqa: BLE001
        return Diff(name, example, tuple(argv), arguments, cli, None, cli_exit=code,
                    error=f"the MCP call failed: {type(exc).__name__}: {exc}")
    mcp = result["text"]
    equal = cli == mcp and (code == 0) == (not result["is_error"])
    return Diff(name, example, tuple(argv), arguments, cli, mcp, cli_exit=code,
                mcp_is_error=result["is_error"], equal=equal,
                diff="" if equal else unified(cli, mcp))


def run_diffs(bench, *, run_writes: bool = False) -> list:
    """A Diff for every example of every command, in declaration order."""
    program = bench.program
    if program is None:
        return []
    if bench.server is None:
        from workbench.dev.server import DevServer
        bench.server = DevServer(bench)
        bench.server.set_program(program)
    jobs = [(command, example) for command in program.walk() for example in command.examples]
    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=min(4, len(jobs))) as pool:
        return list(pool.map(lambda job: diff_example(bench, job[0], job[1], run_writes), jobs))
