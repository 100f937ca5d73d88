"""Envelope diffs: every example run as a CLI `--json` subprocess and as an MCP tools/call.

The two must be the same bytes (the CLI prints the document and one newline; the MCP text
result is the document). Only examples of `read_only` commands run by themselves; those of
any other command (`idempotent`, `non_idempotent`, `undeclared`) run only when asked
(`run_writes`: `--run-writes`, or the dashboard after a confirm).

Each side of each example runs in a fresh sandbox of its own (`workbench.dev.sandbox`), so
both start from the same empty state (a write gives the same answer on both), nothing the
program keeps under the user's folders is touched, and no run sees another's writes.
Read-only examples run four at a time (isolated, so the order cannot change a result);
writes run one after another, in declaration order.

A batch runs in a `workbench.dev.pool.Pool`: long-lived workers that load the program once and
fork each run inside a sandbox restored before every run (the same isolation, without
starting and building the program twice per example). `Pool.close()` cancels the batch: the
engine does so on a reload, a newer batch or `x`; its processes are killed, its threads end.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from workbench.dev.engine import Diff

SAFE_EFFECTS = ("read_only",)
PARALLEL = 4
"""Read-only examples run this many at a time."""
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


def cli_json(bench, argv, timeout: float = DIFF_TIMEOUT, pool=None):
    """(stdout, exit, stderr) of the real CLI with `--json` (piped, no agent), in a fresh
    sandbox (a fork of `pool`'s worker, or a new process); raises TimeoutExpired."""
    from workbench.dev.environments import environ_for, worker_command
    cwd = os.path.dirname(bench.file)
    if pool is not None:
        done = pool.run({"mode": "run", "argv": list(argv) + ["--json"], "stdin": "",
                         "environ": environ_for("piped"), "cwd": cwd}, timeout)
        return done.stdout, done.returncode, done.stderr
    from workbench.dev.loader import run_limited
    from workbench.dev.sandbox import Sandbox
    with Sandbox() as box:
        done = run_limited(worker_command(bench, list(argv) + ["--json"]), input="",
                           timeout=timeout, env=box.environ(environ_for("piped")), cwd=cwd)
    return done.stdout, done.returncode, done.stderr


def diff_example(bench, command, example: str, run_writes: bool = False, pool=None,
                 call=None) -> Diff:
    """The Diff of one example; `pool` and `call` (`DevServer.batch_caller`) are its batch's."""
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
    from workbench.dev.pool import Cancelled
    try:
        stdout, code, stderr = cli_json(bench, argv, pool=pool)
    except subprocess.TimeoutExpired:
        return Diff(name, example, tuple(argv), arguments, None, None,
                    error=f"the CLI run did not finish within {DIFF_TIMEOUT:g} s")
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - the batch's worker could not run it
        return Diff(name, example, tuple(argv), arguments, None, None,
                    error=f"the CLI run failed: {exc}")
    cli = stdout[:-1] if stdout.endswith("\n") else stdout
    from workbench.dev.sandbox import Sandbox
    try:
        if call is not None:
            result = call(command.tool_name, arguments, DIFF_TIMEOUT + 5)
        else:
            with Sandbox() as box:
                result = bench.server.call_tool_sync(command.tool_name, arguments,
                                                     timeout=DIFF_TIMEOUT + 5, sandbox=box)
    except Exception as exc:  # noqa: BLE001
        return Diff(name, example, tuple(argv), arguments, cli, None, cli_exit=code,
                    error=f"the MCP call failed: {type(exc).__name__}: {exc}")
    if pool is not None and pool.cancelled:
        raise Cancelled()
    mcp = result["text"]
    equal = cli == mcp and (code == 0) == (not result["is_error"])
    problem, unchecked_cli = invalid_output(command, cli, mcp)
    if problem is not None and unchecked_cli:
        # The MCP server refused the data (invalid_output); this CLI printed it without the
        # check (BURGEE_VALIDATE not honoured): one problem, not a transport mismatch.
        equal = None
    return Diff(name, example, tuple(argv), arguments, cli, mcp, cli_exit=code,
                mcp_is_error=result["is_error"], equal=equal,
                diff="" if equal is not False else unified(cli, mcp), invalid_output=problem)


def invalid_output(command, cli: str | None, mcp: str | None) -> tuple:
    """(the output-schema error, whether the CLI printed the data unchecked) for one example.

    The workbench always checks: the CLI's data against the schema
    (`workbench.surfaces.output.output_problem`), or the `invalid_output` error either side
    already answered with.
    """
    from workbench.surfaces.output import CODE, output_problem, projected_in
    docs = []
    for text in (cli, mcp):
        try:
            docs.append(json.loads(text) if text else None)
        except ValueError:
            docs.append(None)
    cli_doc, mcp_doc = docs
    if isinstance(cli_doc, dict) and cli_doc.get("ok") is True and command.output:
        problem = output_problem(command, cli_doc.get("data"), projected_in(cli_doc))
        if problem is not None:
            return problem, True
    for doc in (cli_doc, mcp_doc):
        error = doc.get("error") if isinstance(doc, dict) and doc.get("ok") is False else None
        if isinstance(error, dict) and error.get("code") == CODE:
            keys = ("message", "hint", "field", "expected", "got")
            return {"code": CODE, **{key: error.get(key) for key in keys}}, False
    return None, False


def run_diffs(bench, *, run_writes: bool = False, pool=None) -> list:
    """A Diff for every example of every command, in declaration order, in `pool` (a new one,
    closed at the end, when not given); raises `workbench.dev.pool.Cancelled` once `pool` is
    closed."""
    program = bench.program
    if program is None:
        return []
    if bench.server is None:
        from workbench.dev.server import DevServer
        bench.server = DevServer(bench)
        bench.server.set_program(program)
    if pool is None:
        from workbench.dev.pool import Pool
        with Pool(bench, size=PARALLEL) as pool:
            return run_diffs(bench, run_writes=run_writes, pool=pool)
    with bench.server.batch_caller(pool) as call:
        return _run_all(bench, program, run_writes, pool, call)


def _run_all(bench, program, run_writes, pool, call) -> list:
    jobs = [(command, example) for command in program.walk() for example in command.examples]
    found = {}
    reads = [index for index, (command, _) in enumerate(jobs) if command.effects in SAFE_EFFECTS]
    if reads:
        with ThreadPoolExecutor(max_workers=min(PARALLEL, len(reads))) as pool_threads:
            for index, diff in zip(reads, pool_threads.map(
                    lambda index: diff_example(bench, *jobs[index], run_writes, pool, call), reads)):
                found[index] = diff
    for index, (command, example) in enumerate(jobs):   # writes: one at a time, in order
        if index not in found:
            found[index] = diff_example(bench, command, example, run_writes, pool, call)
    return [found[index] for index in range(len(jobs))]
