"""The `--headless` report as a person reads it at a terminal: what drifted, what broke, what
to run. `--json` prints the envelope instead (its `data` is the report); nothing here is read
by a program.
"""

from __future__ import annotations

import shlex
from typing import Any

_SHOWN = 8
"""Items listed per section; the rest are counted ("and 12 more")."""


def render(report: dict[str, Any]) -> str:
    """A short plain-text summary of a headless (or replay) report, on stdout; a failure's
    `error:` and `hint:` lines follow on stderr."""
    failures = report.get("failures") or []
    if "replay" in report:
        return _replay(report, failures)
    file = report.get("file", "")
    lines = [_verdict(report, failures)]
    lines += _check(report.get("check"))
    drift = report.get("drift") or []
    if drift:
        lines.append(f"drift: {len(drift)} file(s) differ from {report.get('snapshots')}")
        lines += _listed([f"{d['change']:<8} {d['file']}" for d in drift])
    accepted = report.get("accepted") or []
    if accepted:
        lines.append(f"accepted: {len(accepted)} file(s) written to {report.get('snapshots')}")
        lines += _listed([f"{d['change']:<8} {d['file']}" for d in accepted])
    changes = (report.get("changes") or {}).get("changes") or []
    breaking = [c for c in changes if c.get("kind") == "breaking"]
    if breaking:
        lines.append(f"breaking: {len(breaking)} change(s) break callers")
        lines += _listed([c["reason"] for c in breaking])
    lines += _budgets(report)
    problems = (report.get("problems") or {}).get("items") or []
    serious = [p for p in problems if p.get("severity") in ("error", "warning")]
    if serious:
        counts = report["problems"]
        lines.append(f"problems: {counts.get('error', 0)} error(s), "
                     f"{counts.get('warning', 0)} warning(s)")
        lines += _listed([_problem(p) for p in serious])
    diffs = report.get("diffs") or {}
    mismatches = diffs.get("mismatches") or []
    if mismatches:
        lines.append(f"CLI vs MCP: {len(mismatches)} example(s) differ")
        lines += _listed([str(m.get("example") or m.get("argv") or m.get("command") or "?")
                          for m in mismatches])
    lines += _next(file, report, failures)
    return "\n".join(lines)


def _verdict(report: dict[str, Any], failures: list[str]) -> str:
    where = f"{report.get('program')} ({report.get('file')})"
    size = f"{report.get('surfaces', 0)} surfaces, {report.get('tokens', 0):,} tokens"
    diffs = report.get("diffs") or {}
    equal = f"{diffs.get('equal', 0)} example(s) equal over CLI and MCP"
    if failures:
        return f"\u2717 {where}: the check failed ({', '.join(failures)})\n  {size}; {equal}"
    if report.get("updated"):
        return f"\u2713 {where}: snapshots updated\n  {size}; {equal}"
    return f"\u2713 {where}: every surface matches its snapshot\n  {size}; {equal}"


def _check(check: dict[str, Any] | None) -> list[str]:
    """One line for `burgee check`'s stage (none when --no-check skipped it)."""
    if check is None:
        return []
    if "recovery" not in check:
        return [f"  burgee check could not run: {check.get('error')}"]
    from workbench.check.report import summary_line
    return ["  " + summary_line(check)]


def _budgets(report: dict[str, Any]) -> list[str]:
    lines = []
    over = report.get("over_budget") or []
    if over:
        lines.append(f"over budget: {len(over)} surface(s)")
        lines += _listed([f"{row['surface']}: {_used(row):,} {row.get('unit') or 'tokens'}, "
                          f"budget {row['budget']:,}" for row in over])
    sessions = report.get("over_session_budget") or []
    if sessions:
        lines.append(f"over session budget: {len(sessions)}")
        lines += _listed([f"{o.get('session')}: {o.get('tokens', 0):,} tokens, limit "
                          f"{o.get('limit', 0):,}" for o in sessions])
    return lines


def _used(row: dict[str, Any]) -> int:
    """A budget row's count in its own unit (`--schema` budgets count characters)."""
    return row["chars"] if row.get("unit") == "chars" else row["tokens"]


def _problem(problem: dict[str, Any]) -> str:
    fix = f" \u2014 fix: {problem['fix']}" if problem.get("fix") else ""
    return f"{problem.get('severity')}: {problem.get('message')}{fix}"


def _listed(items: list[str]) -> list[str]:
    shown = [f"  {item}" for item in items[:_SHOWN]]
    if len(items) > _SHOWN:
        shown.append(f"  \u2026 and {len(items) - _SHOWN} more (--json for all)")
    return shown


def _next(file: str, report: dict[str, Any], failures: list[str]) -> list[str]:
    """What to run now: the full report, and the command that accepts an intended change."""
    if not failures:
        return []
    shown = shlex.quote(file)
    steps = [f"burgee dev {shown} --headless --json   # the whole report, diffs included"]
    if "snapshot_drift" in failures or "breaking_change" in failures:
        steps.append(f"burgee diff {shlex.quote(str(report.get('snapshots')))} {shown}   "
                     "# the change, classified")
        steps.append(f"burgee dev {shown} --headless --update   # if intended: accept, commit")
    if "envelope_mismatch" in failures or "lint_error" in failures:
        steps.append(f"burgee dev {shown}   # the dashboard: Diffs and Problems panes")
    return ["next:"] + [f"  {step}" for step in steps]


def _replay(report: dict[str, Any], failures: list[str]) -> str:
    where = f"{report.get('program')} ({report.get('file')})"
    head = (f"\u2717 {where}: recorded calls answer differently" if failures
            else f"\u2713 {where}: {report.get('replayed', 0)} recorded call(s) answer as before")
    lines = [head, f"  {report.get('calls', 0)} recorded, {report.get('replayed', 0)} replayed, "
                   f"{len(report.get('skipped') or [])} skipped"]
    changes = report.get("changes") or []
    if changes:
        lines.append(f"changes: {len(changes)}")
        lines += _listed([f"{c['kind']}: {c['reason']}" for c in changes])
    skipped = report.get("skipped") or []
    if skipped:
        lines.append("skipped:")
        lines += _listed([f"{s['call']}: {s['why']}" for s in skipped])
    return "\n".join(lines)
