"""`burgee check`: the agent contract as a property over generated calls.

    from workbench.check import check

    report = check("app.py")                      # or a loaded Program
    report.ok, report.violations, report.recovery["rate"]
    report.to_dict()                              # the --json envelope's data
    report.problems()                             # the workbench's Problems

From each command's declaration it generates calls (every example, and mutations of every
refusal class: `workbench.check.calls`), runs each in a sandbox as a CLI process in four
environments and two output modes and as an MCP tools/call (`workbench.check.runner`), holds
every run to the rules (`workbench.check.rules`), follows every fix and next as printed, measures
the recovery rate per refusal reason and per command (`workbench.check.recovery`) and lints the
declaration for release (`workbench.check.lint`). Seeded, deterministic and bounded: the same
program, seed and budget give the same calls and the same report.
"""

from __future__ import annotations

import os
import sys

from workbench.check.calls import DEFAULT_BUDGET
from workbench.check.report import DEFAULT_RECOVERY, Report, Violation
from workbench.check.rules import RULES, Rule
from workbench.check.runner import DEFAULT_TIMEOUT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from workbench.declaration.model import Program

__all__ = ["check", "Report", "Violation", "Rule", "RULES", "CheckError", "DEFAULT_BUDGET",
           "DEFAULT_RECOVERY", "DEFAULT_TIMEOUT"]


class CheckError(Exception):
    """The program could not be checked at all: `code` is `file_not_found` (exit 3) or
    `load_failed` (exit 1); `details` holds a traceback when there is one."""

    def __init__(self, code: str, message: str, details: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def check(target: str | os.PathLike | Program, *, calls: int = DEFAULT_BUDGET, seed: int = 0, budget: float | None = None,
          run_writes: bool = False, workers: int | None = None,
          timeout: float = DEFAULT_TIMEOUT, program: str | None = None) -> Report:
    """Check a program: generate its calls, run them, hold them to every rule.

    Args:
        target: a program's file (checked in worker processes that load it inside a
            sandbox), or a loaded `Program` (checked from this process: its runs are forks of
            it, so call it from a process without threads; paths it computed when it was
            imported are not in the sandbox, and its `atexit` functions do not run).
        calls: calls per command (its sources and a sample of their mutations).
        seed: picks the sample; the same seed gives the same calls.
        budget: the lowest recovery rate that passes (default: `budgets["recovery"]` of the
            Program, else `[tool.burgee.budgets] recovery` in the nearest pyproject.toml,
            else 0.95).
        run_writes: also run the calls that reach the handler of a command that is not
            `read_only` (each in the sandbox; what the program writes outside it, such as a
            path it hard-codes or the network, is not undone). Without it they are counted
            in `report.skipped`, and only the refusals of such commands run.
        workers: processes for a file (default: up to 4, one per CPU); each checks a share
            of the commands.
        timeout: seconds a run may take before it is killed and reported (C14).
        program: which Program, when the file declares several.

    Raises:
        CheckError: the file does not exist, or does not load (no Program, an exception,
            a declaration refused when its examples are checked).
    """
    if not isinstance(target, (str, os.PathLike)):
        return _check_loaded(target, calls, seed, budget, timeout, run_writes)
    path = os.path.abspath(os.fspath(target))
    if not os.path.isfile(path):
        raise CheckError("file_not_found", f"{target} does not exist")
    count = workers or max(1, min(4, os.cpu_count() or 1))
    parts = _spawn(path, count, calls, seed, timeout, program, run_writes)
    head = parts[0]
    if budget is None:
        budget = head["budget"] if head["budget"] is not None else _pyproject_recovery(path)
    return merge(head["program"], head["version"], path, seed, calls, parts,
                 DEFAULT_RECOVERY if budget is None else budget, head["order"])


def _check_loaded(program, calls, seed, budget, timeout, run_writes) -> Report:
    from workbench.check.sandbox import Sandbox
    as_program = getattr(program, "as_program", None)
    if as_program is not None:
        program = as_program()
    box = Sandbox()
    here = os.getcwd()
    os.chdir(box.work)   # where the runs start: a path the checker gives is read from there
    try:
        part = run_share(program, box, 0, 1, calls, seed, timeout, run_writes,
                         exit_hooks=False)
    finally:
        os.chdir(here)
        box.close()
    if budget is None:
        budget = part["budget"] if part["budget"] is not None else (
            _pyproject_recovery(program.source) if program.source else None)
    return merge(program.name, program.version, program.source, seed, calls, [part],
                 DEFAULT_RECOVERY if budget is None else budget, part["order"])


def run_share(program, box, part: int, parts: int, calls: int, seed: int, timeout: float,
              run_writes: bool = False, exit_hooks: bool = True) -> dict:
    """What one checker finds for its share of the commands (every `parts`-th, from
    `part`), as JSON data; the first share also lints the program itself."""
    from workbench.check.engine import check_commands, lint_finding
    from workbench.check.lint import program_lint
    from workbench.check.runner import Runner
    from workbench.declaration.model import DefinitionError
    from workbench.runtime.checks import ensure_checked
    commands = list(program.walk())
    static = []
    if part == 0:
        static = [lint_finding(finding, program.name) for finding in program_lint(program)]
    try:
        ensure_checked(program)
    except DefinitionError as error:
        from workbench.check.lint import lint_command   # which example holds a secret (R7)
        secrets = [lint_finding(f, " ".join(c.path))
                   for c in commands for f in lint_command(program, c) if f.rule == "R7"]
        if not secrets:
            raise CheckError("load_failed", f"DefinitionError: {error}") from None
        return _share(program, commands, {"calls": 0, "runs": 0, "skipped": 0,
                                          "findings": static + secrets if part == 0 else [],
                                          "recovery": []})
    box.seal()
    # the program-wide tables every run reads, built once here, not in every fork
    from workbench.runtime import redact
    redact.sensitive_spellings(program)
    program.tool("")
    runner = Runner(program, box, timeout=timeout, exit_hooks=exit_hooks)
    try:
        found = check_commands(program, commands[part::parts], runner, calls, seed, run_writes)
    finally:
        runner.close()
    found["findings"] = static + found["findings"]
    return _share(program, commands, found)


def _share(program, commands, found: dict) -> dict:
    recovery = (program.budgets or {}).get("recovery")
    return {"program": program.name, "version": program.version,
            "budget": recovery if isinstance(recovery, (int, float)) else None,
            "order": [program.name] + [" ".join(command.path) for command in commands],
            **found}


def merge(name, version, file, seed, calls, parts, budget, order) -> Report:
    """One Report from the shares of every worker."""
    from workbench.check.recovery import summarise
    from workbench.check.report import violations_from
    findings = [finding for part in parts for finding in part["findings"]]
    records = [record for part in parts for record in part["recovery"]]
    rank = {command: number for number, command in enumerate(order)}
    records.sort(key=lambda record: (rank.get(record["command"], 0), record["call"]))
    return Report(program=name, version=version, file=file, seed=seed, calls_per_command=calls,
                  commands=len(order) - 1, calls=sum(part["calls"] for part in parts),
                  runs=sum(part["runs"] for part in parts),
                  skipped=sum(part["skipped"] for part in parts),
                  violations=violations_from(findings, rank),
                  recovery=summarise(records, budget))


def _spawn(path, count, calls, seed, timeout, program, run_writes) -> list:
    """Run `count` worker processes, each loading the file in its own sandbox and checking
    its share; their answers in order. CheckError when the file does not load."""
    import json
    import subprocess

    from workbench.check.runner import BASE
    from workbench.check.sandbox import Sandbox
    boxes, procs = [], []
    try:
        for part in range(count):
            box = Sandbox()
            boxes.append(box)
            out = os.path.join(box.root, "share.json")
            command = [sys.executable, "-B", "-m", "workbench.check._worker", path,
                       "--part", str(part), "--parts", str(count), "--calls", str(calls),
                       "--seed", str(seed), "--timeout", str(timeout), "--root", box.root,
                       "--out", out]
            if program:
                command += ["--program", program]
            if run_writes:
                command += ["--run-writes", "1"]
            env = {**BASE, **box.environ(), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            if os.environ.get("PYTHONPATH"):
                env["PYTHONPATH"] = os.environ["PYTHONPATH"]
            procs.append((subprocess.Popen(command, env=env, cwd=box.work,
                                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE), out))
        shares = []
        for proc, out in procs:
            stdout, stderr = proc.communicate()
            try:
                with open(out, encoding="utf-8") as handle:
                    share = json.load(handle)
            except (OSError, ValueError):
                raise CheckError("load_failed", f"the checker stopped (exit {proc.returncode})",
                                 (stderr or stdout).decode("utf-8", "replace")) from None
            if "error" in share:
                raise CheckError(share["error"]["code"], share["error"]["message"],
                                 share["error"].get("details"))
            shares.append(share)
        return shares
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for box in boxes:
            box.close()


def _pyproject_recovery(file: str | None) -> float | None:
    """`recovery` of `[tool.burgee.budgets]` in the nearest pyproject.toml at or above FILE."""
    if not file:
        return None
    folder = os.path.dirname(os.path.abspath(file))
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            import tomllib
            try:
                with open(candidate, "rb") as handle:
                    value = tomllib.load(handle).get("tool", {}).get("burgee", {}) \
                        .get("budgets", {}).get("recovery")
            except (OSError, tomllib.TOMLDecodeError):
                return None
            return float(value) if isinstance(value, (int, float)) else None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
