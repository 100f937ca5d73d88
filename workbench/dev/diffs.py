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

A batch takes a `Served` (the last good source) and the `DevServer` whose tools/call it goes
through; never the workbench itself.
"""

from __future__ import annotations

import difflib
import json
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from workbench.declaration.model import Command
from workbench.dev.inputs import SAFE_EFFECTS, arguments_from_argv, example_argv
from workbench.dev.pool import Cancelled, Pool
from workbench.dev.processes import environ_for, run_limited, worker_command
from workbench.dev.records import Diff, Served
from workbench.dev.sandbox import Sandbox
from workbench.dev.server import CallTool, DevServer
from workbench.runtime._failures import as_mcp_sends
from workbench.surfaces.output import CODE, output_problem, projected_in

PARALLEL = 4
"""Read-only examples run this many at a time."""
DIFF_TIMEOUT = 20.0


def unified(cli: str | None, mcp: str | None) -> str:
    """A readable unified diff: indented JSON when both sides parse, else the raw lines."""

    def lines(text: str | None) -> list[str]:
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


def cli_json(served: Served, argv: Sequence[str], timeout: float = DIFF_TIMEOUT,
             pool: Pool | None = None) -> tuple[str, int, str]:
    """(stdout, exit, stderr) of the real CLI with `--json`, piped, as the agent an MCP
    client is (`environ_for("mcp")`), in a fresh sandbox (a fork of `pool`'s worker, or a
    new process); raises TimeoutExpired."""
    cwd = served.target.folder
    if pool is not None:
        done = pool.run({"mode": "run", "argv": list(argv) + ["--json"], "stdin": "",
                         "environ": environ_for("mcp"), "cwd": cwd}, timeout)
        return done.stdout, done.returncode, done.stderr
    with Sandbox() as box:
        done = run_limited(worker_command(served, list(argv) + ["--json"]), input="",
                           timeout=timeout, env=box.environ(environ_for("mcp")), cwd=cwd)
    return done.stdout, done.returncode, done.stderr


def diff_example(served: Served, server: DevServer, command: Command, example: str,
                 run_writes: bool = False, pool: Pool | None = None,
                 call: CallTool | None = None) -> Diff:
    """The Diff of one example; `pool` and `call` (`DevServer.batch_caller`) are its batch's."""
    program = served.program
    name = " ".join(command.path)
    argv = example_argv(program, example)
    if command.effects == "withheld":
        return Diff(name, example, tuple(argv), None, None, None,
                    skipped="withheld: the command is not an MCP tool")
    if command.person_only:
        return Diff(name, example, tuple(argv), None, None, None,
                    skipped="person only: the command is not an MCP tool")
    if command.effects not in SAFE_EFFECTS and not run_writes:
        return Diff(name, example, tuple(argv), None, None, None,
                    skipped=f"{command.effects}: runs only with --run-writes")
    try:
        _, arguments = arguments_from_argv(program, argv)
    except Exception as exc:  # noqa: BLE001
        return Diff(name, example, tuple(argv), None, None, None,
                    error=f"cannot express the example as MCP arguments: {exc}")
    try:
        stdout, code, stderr = cli_json(served, argv, pool=pool)
    except subprocess.TimeoutExpired:
        return Diff(name, example, tuple(argv), arguments, None, None,
                    error=f"the CLI run did not finish within {DIFF_TIMEOUT:g} s")
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - the batch's worker could not run it
        return Diff(name, example, tuple(argv), arguments, None, None,
                    error=f"the CLI run failed: {exc}")
    cli = stdout[:-1] if stdout.endswith("\n") else stdout
    try:
        if call is not None:
            result = call(command.tool_name, arguments, DIFF_TIMEOUT + 5)
        else:
            with Sandbox() as box:
                result = server.call_tool_sync(command.tool_name, arguments,
                                                     timeout=DIFF_TIMEOUT + 5, sandbox=box)
    except Exception as exc:  # noqa: BLE001
        return Diff(name, example, tuple(argv), arguments, cli, None, cli_exit=code,
                    error=f"the MCP call failed: {type(exc).__name__}: {exc}")
    if pool is not None and pool.cancelled:
        raise Cancelled()
    mcp = result["text"]
    equal = as_mcp_sends(program, cli) == mcp and (code == 0) == (not result["is_error"])
    problem, unchecked_cli = invalid_output(command, cli, mcp)
    if problem is not None and unchecked_cli:
        # The MCP server refused the data (invalid_output); this CLI printed it without the
        # check (BURGEE_VALIDATE not honoured): one problem, not a transport mismatch.
        equal = None
    return Diff(name, example, tuple(argv), arguments, cli, mcp, cli_exit=code,
                mcp_is_error=result["is_error"], equal=equal,
                diff="" if equal is not False else unified(cli, mcp), invalid_output=problem)


def invalid_output(command: Command, cli: str | None,
                   mcp: str | None) -> tuple[dict[str, Any] | None, bool]:
    """(the output-schema error, whether the CLI printed the data unchecked) for one example.

    The workbench always checks: the CLI's data against the schema
    (`workbench.surfaces.output.output_problem`), or the `invalid_output` error either side
    already answered with.
    """
    docs: list[Any] = []
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


def run_diffs(served: Served | None, server: DevServer, *, run_writes: bool = False,
              pool: Pool | None = None) -> list[Diff]:
    """A Diff for every example of every command, in declaration order, in `pool` (a new one,
    closed at the end, when not given); raises `workbench.dev.pool.Cancelled` once `pool` is
    closed."""
    if served is None:
        return []
    if pool is None:
        with Pool(served, size=PARALLEL) as pool:
            return run_diffs(served, server, run_writes=run_writes, pool=pool)
    with server.batch_caller(pool) as call:
        return _run_all(served, server, run_writes, pool, call)


def _run_all(served: Served, server: DevServer, run_writes: bool, pool: Pool,
             call: CallTool) -> list[Diff]:
    jobs = [(command, example) for command in served.program.walk()
            for example in command.examples]
    found: dict[int, Diff] = {}
    reads = [index for index, (command, _) in enumerate(jobs) if command.effects in SAFE_EFFECTS]
    if reads:
        with ThreadPoolExecutor(max_workers=min(PARALLEL, len(reads))) as pool_threads:
            for index, diff in zip(reads, pool_threads.map(
                    lambda index: diff_example(served, server, *jobs[index], run_writes, pool,
                                               call), reads)):
                found[index] = diff
    for index, (command, example) in enumerate(jobs):   # writes: one at a time, in order
        if index not in found:
            found[index] = diff_example(served, server, command, example, run_writes, pool,
                                        call)
    return [found[index] for index in range(len(jobs))]
