"""What `burgee check` found, as data (`Report.to_dict`, the `--json` envelope's data), as
text for a person (`Report.render`), and as problems for the workbench (`Report.problems`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.check.rules import RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_RECOVERY = 0.95
"""The recovery budget unless `Program(budgets={"recovery": ...})` or pyproject.toml says."""

MCP_PATH = ("the tools/call core of the MCP server (workbench.runtime.toolcall.call_tool), "
            "run in a fork of the checking process, in the `agent` environment (an MCP "
            "client is an agent)")


@dataclass(frozen=True)
class Violation:
    """One broken promise: a rule, a command, what broke, how often, and one call showing it.

    Attributes:
        rule: the rule's stable code (`C8`); `name` is its name (`secret_leaked`).
        command: the command's path as a string.
        message: what broke, the same for every call counted in `count`.
        count: how many runs broke it this way.
        call: one call that broke it, as a command line (None for a lint of the
            declaration); `environment` and `mode` say how it ran.
        evidence: the bytes that show it (clipped, secrets masked, control characters
            escaped).
        fix: what to change (the rule's fix, or the lint's exact entry).
    """

    rule: str
    name: str
    command: str
    message: str
    count: int
    call: str | None
    environment: str | None
    mode: str | None
    evidence: str
    fix: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "name": self.name, "command": self.command,
                "message": self.message, "count": self.count, "call": self.call,
                "environment": self.environment, "mode": self.mode,
                "evidence": self.evidence, "fix": self.fix}


@dataclass
class Report:
    """The outcome of `check()`: counts, violations, recovery, and whether it passes.

    `ok` is True when nothing broke a rule and the recovery rate is within its budget;
    `failures` names what failed (`check_failed`, `recovery_below_budget`)."""

    program: str
    version: str
    file: str | None
    seed: int
    calls_per_command: int
    commands: int = 0
    calls: int = 0
    runs: int = 0
    skipped: int = 0
    violations: list[Violation] = field(default_factory=list)
    recovery: dict[str, Any] = field(default_factory=dict)

    @property
    def failures(self) -> list[Any]:
        found = []
        if self.violations:
            found.append("check_failed")
        if not self.recovery.get("within_budget", True):
            found.append("recovery_below_budget")
        return found

    @property
    def ok(self) -> bool:
        return not self.failures

    def counts(self) -> dict[str, Any]:
        """Violations (runs counted) per rule code, in rule order."""
        out: dict = {}
        for violation in self.violations:
            out[violation.rule] = out.get(violation.rule, 0) + violation.count
        return {code: out[code] for code in RULES if code in out}

    def to_dict(self) -> dict[str, Any]:
        return {"program": self.program, "version": self.version, "file": self.file,
                "seed": self.seed, "calls_per_command": self.calls_per_command,
                "commands": self.commands, "calls": self.calls, "runs": self.runs,
                "skipped": self.skipped,
                "ok": self.ok, "failures": self.failures, "counts": self.counts(),
                "violations": [violation.to_dict() for violation in self.violations],
                "recovery": self.recovery, "mcp": MCP_PATH}

    def problems(self) -> list[Any]:
        """Each violation, and a recovery rate below budget, as the workbench's problems
        (`severity`, `code`, `message`, `fix`, `command`, `surface`): what the dashboard's
        Problems pane lists and `--headless` fails on."""
        found = [{"severity": "error", "code": v.name,
                  "message": f"{v.rule} '{v.command}': {v.message}"
                  + (f" ({v.count} runs)" if v.count > 1 else "")
                  + (f": {v.call}" if v.call else ""),
                  "fix": v.fix, "command": v.command, "surface": None}
                 for v in self.violations]
        if not self.recovery.get("within_budget", True):
            found.append({"severity": "error", "code": "recovery_below_budget",
                          "message": recovery_line(self.recovery),
                          "fix": "make each refusal's fix reach the call it corrects (see "
                                 "report.recovery.unrecovered), or lower "
                                 "budgets['recovery']", "command": None, "surface": None})
        return found

    def render(self) -> str:
        """The report as a person reads it."""
        from workbench._text import plural
        lines = [f"burgee check {self.program} {self.version}: "
                 f"{plural(self.commands, 'command')}, {plural(self.calls, 'call')}, "
                 f"{plural(self.runs, 'run')} (seed {self.seed}, "
                 f"{self.calls_per_command} calls per command)"]
        if self.skipped:
            lines.append(f"{plural(self.skipped, 'call')} not run: each would reach the "
                         f"handler of a command that writes (--run-writes runs them, each in "
                         f"the sandbox)")
        if self.violations:
            lines.append(f"{plural(len(self.violations), 'violation')}:")
            for v in self.violations:
                lines.append(f"  {v.rule} {v.name}  '{v.command}': {v.message}"
                             + (f"  ({v.count} runs)" if v.count > 1 else ""))
                if v.call:
                    lines.append(f"      {v.call}   [{v.environment}, {v.mode}]")
                if v.evidence:
                    lines.append(f"      got: {v.evidence}")
                lines.append(f"      fix: {v.fix}")
        else:
            lines.append("0 violations")
        lines.append(recovery_line(self.recovery))
        rows = self.recovery.get("by_reason") or []
        if rows:
            width = max(len(row["reason"]) for row in rows)
            lines.append(f"  {'reason'.ljust(width)}  refusals  recovered    rate")
            for row in rows:
                lines.append(f"  {row['reason'].ljust(width)}  {row['refusals']:>8}  "
                             f"{row['recovered']:>9}  {row['rate']:>6.1%}")
        for record in (self.recovery.get("unrecovered") or [])[:10]:
            lines.append(f"  not recovered ({record['reason']}): {record['call']}")
            lines.append(f"      followed: {record['followed']}; {record.get('why', '')}")
        from workbench._text import escape_controls
        return escape_controls("\n".join(lines)) + "\n"


def summary_line(report: dict[str, Any]) -> str:
    """A report (`Report.to_dict()`) in one line: calls, violations, recovery against its
    budget (the headless text report and the dashboard's Problems print it)."""
    from workbench._text import plural
    recovery = report.get("recovery") or {}
    line = (f"burgee check: {plural(report.get('calls', 0), 'call')}, "
            f"{plural(len(report.get('violations') or []), 'violation')}")
    if recovery.get("rate") is not None:
        line += (f"; {recovery['rate']:.1%} of {recovery['refusals']} refusals recover "
                 f"(budget {recovery.get('budget', DEFAULT_RECOVERY):.0%})")
    return line


def recovery_line(recovery: dict[str, Any]) -> str:
    rate = recovery.get("rate")
    budget = recovery.get("budget", DEFAULT_RECOVERY)
    if rate is None:
        return f"recovery: no refusals to recover (budget {budget:.0%})"
    verdict = "within" if recovery.get("within_budget") else "BELOW"
    return (f"recovery {rate:.1%} of {recovery['refusals']} refusals "
            f"({verdict} the budget of {budget:.0%})")


def violations_from(findings: list[Any], order: dict[str, Any]) -> list[Any]:
    """Findings counted into violations: one per (rule, command, message), its first call
    as the example; ordered by command (declaration order), then rule."""
    grouped: dict = {}
    for finding in findings:
        key = (finding["rule"], finding["command"], finding["detail"])
        if key in grouped:
            grouped[key][1] += 1
        else:
            grouped[key] = [finding, 1]
    rule_order = {code: number for number, code in enumerate(RULES)}
    out = []
    for (rule, command, detail), (first, count) in grouped.items():
        out.append(Violation(rule, RULES[rule].name, command, detail, count, first.get("call"),
                             first.get("environment"), first.get("mode"),
                             first.get("evidence", ""), first.get("fix") or RULES[rule].fix))
    out.sort(key=lambda v: (order.get(v.command, len(order)), rule_order[v.rule], v.message))
    return out
