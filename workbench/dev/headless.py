"""`burgee dev FILE --headless`: every surface to a snapshot folder, compared, one JSON report.

The folder (default `.burgee/snapshots/` beside FILE, one subfolder per program) holds one
readable file per surface (`help.txt`, `cards/deploy.json`, `mcp/tools-list.json`, ...) plus
`tokens.json`, `problems.json` and `diffs.json`, so a reviewer sees drift in a git diff.

Exit codes (also in docs/ci.md), each with `error.code` in the envelope:
    0  clean: snapshots match (or differ only by additive changes, or breaking ones under a
       major version bump), no budget overrun, no error-level problem, CLI == MCP
    1  a check failed: error.code is breaking_change, snapshot_drift, budget_exceeded,
       session_over_budget, lint_error, invalid_output, envelope_mismatch, check_failed (a
       violation `burgee check` found, or a file it could not check) or
       recovery_below_budget (the first that applies; error.failures lists them all), invalid_budget for a session budget key that
       names no path or shape, or load_failed when FILE does not load
    2  a snapshot file is not what burgee wrote (invalid_snapshot: not UTF-8, or bad JSON)
    3  FILE does not exist (file_not_found)
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

from workbench.dev import cost as _cost
from workbench.dev.changes import Review, review_files
from workbench.dev.engine import Workbench
from workbench.dev.snapshot import files_for, read_tree, short_diff, snapshot_folder, write_tree
from workbench.runtime import envelope as _envelope


def _unreadable(existing: dict[str, str | None]) -> list[str]:
    """The snapshot files that are not UTF-8 text, or `.json` files that are not JSON: a
    comparison with them would report a made-up change (or none)."""
    broken = []
    for rel, text in sorted(existing.items()):
        if text is None:
            broken.append(rel)
        elif rel.endswith(".json"):
            try:
                json.loads(text)
            except ValueError:
                broken.append(rel)
    return broken


def check_snapshots(file: str, *, update: bool = False, program_name: str | None = None,
                    run_writes: bool = False, snapshots: str | None = None,
                    load_timeout: float | None = None, check: bool = True,
                    check_calls: int | None = None,
                    picture: Callable[..., None] | None = None) -> dict[str, Any]:
    """Run the whole headless check; returns the envelope (not printed). `check`: also run
    `burgee check` (`check_calls` calls per command), whose report is `check.json` in the
    snapshot folder and `check` in the report. `picture`: called as
    `picture(bench, report, ok=, update=)` with the Workbench that loaded FILE, to draw the
    dashboard from it (the workbench's entry point passes one; this room draws nothing)."""
    file = os.path.abspath(file)
    if not os.path.isfile(file):
        return _envelope.failure("file_not_found", f"{file} does not exist", exit=3,
                                 hint="pass the path of a Python file that declares a Program")
    bench = Workbench(file, program_name=program_name, run_writes=run_writes)
    if load_timeout is not None:
        bench.load_timeout = load_timeout
    state = bench.reload()
    if state.load_error is not None or state.program is None:
        error = state.load_error
        assert error is not None
        return _envelope.failure("load_failed", error.message, exit=1,
                                 hint="fix the file and run again", traceback=error.traceback
                                 or None)
    diffs = bench.run_diffs(run_writes=run_writes)
    checked = bench.run_check(calls=check_calls, run_writes=run_writes) if check else None
    state = bench.state
    assert state.program is not None
    folder = snapshot_folder(file, state.program.name, snapshots)
    existing = read_tree(folder)
    found_by_check = set(state.check_problems)   # in check.json, so --no-check keeps
    files = files_for(state.surfaces, state.tokens,     # problems.json as it was
                      [p for p in state.problems if p not in found_by_check], diffs)
    if check:
        files["check.json"] = check_file(checked)
    elif "check.json" in existing:   # not run this time: what was recorded stands
        files["check.json"] = existing["check.json"] or ""
    broken = _unreadable(existing)
    if broken:
        return _envelope.failure(
            "invalid_snapshot", f"{len(broken)} snapshot file(s) in {folder} cannot be read "
            f"as what burgee wrote: {', '.join(broken[:5])}", exit=_envelope.EXIT_USAGE,
            hint="restore them from version control (git checkout -- FILE), or remove them "
                 "and rerun with --update to write them again", files=broken)
    drift: list[dict[str, Any]] = []
    for rel, text in files.items():
        if rel not in existing:
            drift.append({"file": rel, "change": "added"})
        elif existing[rel] != text:
            drift.append({"file": rel, "change": "changed",
                          "diff": short_diff(existing[rel] or "", text, rel)})
    for rel in existing:
        if rel not in files:
            drift.append({"file": rel, "change": "removed"})
    review = None
    if drift and existing:
        review = review_files(existing, files)
    blocked = review is not None and review.blocked
    if update and not blocked:
        write_tree(folder, files, existing)
    over = [row.to_dict() for row in state.tokens.over]
    costs = _cost.state_model(state, diffs)
    try:
        over_sessions = _cost.over_budget(costs, state.budgets) if costs is not None else []
    except ValueError as error:
        return _envelope.failure("invalid_budget", str(error), exit=1,
                                 hint="fix the key in Program(budgets=...) or "
                                      "[tool.burgee.budgets], e.g. session.mcp.typical")
    # Budget overruns, invalid output and mismatches are problems too (the same list the
    # dashboard's Problems pane shows), but have checks of their own.
    errors = [p.to_dict() for p in state.problems if p.severity == "error"
              and p.code not in ("budget_exceeded", "envelope_mismatch", "invalid_output")
              and p not in found_by_check]
    check_failures = [p for p in state.check_problems if p.code != "recovery_below_budget"]
    recovery = (checked or {}).get("recovery") or {}
    invalid = [p for p in state.problems if p.code == "invalid_output"]
    mismatches = [d.to_dict() for d in diffs if d.equal is False]
    report = {
        "file": file,
        "program": state.program.name,
        "snapshots": folder,
        "updated": bool(update) and not blocked,
        "surfaces": len(state.surfaces),
        "tokens": state.tokens.total,
        "drift": [] if update and not blocked else drift,
        "accepted": drift if update and not blocked else [],
        "changes": review.to_dict() if review is not None else None,
        "over_budget": over,
        "sessions": costs.to_dict() if costs is not None else None,
        "over_session_budget": over_sessions,
        "problems": {"error": sum(p.severity == "error" for p in state.problems),
                     "warning": sum(p.severity == "warning" for p in state.problems),
                     "info": sum(p.severity == "info" for p in state.problems),
                     "items": [p.to_dict() for p in state.problems]},
        "diffs": {"equal": sum(d.equal is True for d in diffs),
                  "differs": len(mismatches),
                  "skipped": sum(d.skipped is not None for d in diffs),
                  "errors": sum(d.error is not None for d in diffs),
                  "mismatches": mismatches},
        "check": _check_summary(checked, state.check_problems) if check else None,
    }
    failures = []
    if blocked:
        failures.append("breaking_change")
    if drift and not update and not _explained(review):
        failures.append("snapshot_drift")
    if over:
        failures.append("budget_exceeded")
    if over_sessions:
        failures.append("session_over_budget")
    if errors:
        failures.append("lint_error")
    if invalid:
        failures.append("invalid_output")
    if mismatches:
        failures.append("envelope_mismatch")
    if check_failures:
        failures.append("check_failed")
    if recovery.get("within_budget") is False:
        failures.append("recovery_below_budget")
    report["failures"] = failures
    checked_calls = checked["calls_per_command"] if checked else None
    if picture is not None:
        picture(bench, report, ok=not failures, update=update)
    if not failures:
        return _envelope.success(report)
    from workbench.check.report import recovery_line   # ~40 ms: only for a failed run
    first = failures[0]
    messages = {
        "breaking_change": _breaking_message(review) if blocked else "",
        "snapshot_drift": f"{len(drift)} snapshot file(s) differ from {folder}",
        "budget_exceeded": f"{len(over)} surface(s) over budget",
        "session_over_budget": "; ".join(
            f"{_cost.path_words(o['path'])} of {o['session']} costs {o['tokens']:,} tokens, over "
            f"{o['budget']} = {o['limit']:,}" for o in over_sessions),
        "lint_error": f"{len(errors)} error-level problem(s)",
        "invalid_output": invalid[0].message if len(invalid) == 1 else
        f"{len(invalid)} examples returned data their output schema refuses; first: "
        + (invalid[0].message if invalid else ""),
        "envelope_mismatch": f"{len(mismatches)} example(s) differ between CLI and MCP",
        "check_failed": f"burgee check: {len(check_failures)} violation(s) of the contract"
        + (f"; first: {check_failures[0].message}" if check_failures else ""),
        "recovery_below_budget": "burgee check: " + recovery_line(recovery)
        if "recovery_below_budget" in failures else "",
    }
    hints = {
        "breaking_change": "keep the old contract as each change in report.changes says, or "
                           "raise the major version (Program(version=...)) and rerun",
        "snapshot_drift": "review the drift; if it is intended, rerun with --update and commit "
                          "the snapshot folder",
        "budget_exceeded": "shorten the surface or raise its budget",
        "session_over_budget": "make what that path reads smaller (report.sessions.paths "
                               "shows the largest parts), or raise the budget",
        "lint_error": "see report.problems.items for each fix",
        "invalid_output": (invalid[0].fix if invalid else "") + "; see report.problems.items",
        "envelope_mismatch": "see report.diffs.mismatches for the unified diffs",
        "check_failed": "see report.check.violations (each names its rule, a call that shows "
                        f"it and the fix); burgee check FILE --calls {checked_calls} runs the "
                        "same calls",
        "recovery_below_budget": "make each refusal's fix reach the call it corrects (see "
                                 "report.check.recovery.unrecovered), or lower "
                                 "budgets['recovery']",
    }
    doc = _envelope.failure(first, "; ".join(messages[f] for f in failures), exit=1,
                            hint=hints[first], failures=failures)
    doc["data"] = report
    return doc


def check_file(report: dict[str, Any] | None) -> str:
    """`check.json` of the snapshot folder: what `burgee check` found, without what varies
    from machine to machine (paths, the calls of unrecovered refusals); `null` when it could
    not check the file."""
    if report is None:
        return json.dumps(None) + "\n"
    recovery = {key: value for key, value in report["recovery"].items()
                if key != "unrecovered"}
    violations = [{key: v[key] for key in ("rule", "name", "command", "message", "count")}
                  for v in report["violations"]]
    data = {"program": report["program"], "seed": report["seed"],
            "calls_per_command": report["calls_per_command"], "calls": report["calls"],
            "skipped": report["skipped"], "violations": violations, "recovery": recovery}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _check_summary(report: dict[str, Any] | None, found) -> dict[str, Any]:
    """The report's `check`: burgee check's report without the file, or why it did not run."""
    if report is None:
        return {"ok": False, "error": found[0].message if found else "not run"}
    return {key: value for key, value in report.items() if key != "file"}


def _explained(review: Review | None) -> bool:
    """Drift that needs no snapshot update: every change is additive, or breaking under a
    major version bump (cosmetic changes and drift no rule explains still need review)."""
    return review is not None and bool(review.changes) and not review.cosmetic \
        and not review.blocked


def _breaking_message(review: Review | None) -> str:
    assert review is not None
    first = review.breaking[0]
    return (f"{len(review.breaking)} breaking change(s) without a major version bump "
            f"({review.old_version} \u2192 {review.new_version}); first: {first.reason}")
