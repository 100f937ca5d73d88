"""The state builder: what the workbench shows about one load, computed from the program alone.

    state = build_state(program, previous, file=..., diffs=..., reviews=reviews)
    state = failed_state(previous, loaded.error, ...)      # the last good program stays
    state = with_diffs(state, diffs)                        # the diff findings added
    state = with_check(state, report.to_dict(), report.problems())   # burgee check's too

`State` is immutable; the engine (`workbench.dev.engine`) replaces its own with each new one.
A build runs nothing and serves nothing: it renders every surface (`snapshot`), counts its
tokens (`tokens`), lints it (`problems`), measures the session cost (`cost`) and reviews the
change (`changes`) since the previous good program and since the snapshot folder. The only
thing it keeps between builds is `Reviews`, the contracts it compares with (a cache).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.declaration.model import Command, Program
from workbench.dev import changes as _changes
from workbench.dev import cost as _cost
from workbench.dev import problems as _problems
from workbench.dev import snapshot as _snapshot
from workbench.dev import tokens as _tokens
from workbench.dev.records import Diff, Problem
from workbench.dev.snapshot import Changes, Memo, Surface
from workbench.dev.tokens import TokenTable
from workbench.loader import LoadError


@dataclass(frozen=True)
class State:
    """What the workbench shows, as of one reload.

    `program` is the last good Program (None until one loads); `load_error` is the error of
    the latest attempt (None when it succeeded). `surfaces` (id -> Surface), `tokens`,
    `problems` and `changes` describe `program`. `generation` grows by one per state.
    """

    generation: int = 0
    file: str = ""
    program: Program | None = None
    program_name: str | None = None
    load_error: LoadError | None = None
    surfaces: dict[str, Surface] = field(default_factory=dict)
    tokens: TokenTable = field(default_factory=TokenTable)
    problems: tuple[Problem, ...] = ()
    changes: Changes = field(default_factory=Changes)
    budgets: dict[str, int | None] = field(default_factory=dict)
    loaded_at: float = 0.0
    load_seconds: float = 0.0
    url: str | None = None
    load_output: str = ""      # what the file printed while loading (latest attempt)
    cost: _cost.CostModel | None = None         # of `program` (cl100k); None if unmeasured
    cost_before: _cost.CostModel | None = None  # of the previous good program (deltas),
    # measured with the same example envelopes as `cost`, so a delta is the edit's alone
    cost_base: tuple[Program, dict[str, Surface]] | None = field(default=None, repr=False,
                                                                 compare=False)
    # the previous good program and its surfaces: `cost_before` again when envelopes change
    review: _changes.Review | None = None       # since the previous good program (None: first)
    review_snapshot: _changes.Review | None = None  # since the snapshot folder (None: none)
    memo: Memo | None = field(default=None, repr=False, compare=False)
    # `snapshot.Memo` of `program`'s render: the next reload reuses what did not change
    check: dict[str, Any] | None = None    # `burgee check`'s report of `program` (to_dict),
    # None until it ran on this load; its findings are the `check_problems`, in `problems` too
    check_problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return self.load_error is None and self.program is not None

    def commands(self) -> list[Command]:
        return list(self.program.walk()) if self.program is not None else []

    def problems_for(self, command: str | None) -> list[Problem]:
        return [p for p in self.problems if p.command == command]

    def surfaces_for(self, command: str | None) -> list[Surface]:
        """Surfaces of one command (`"pr merge"`), or of the program itself for None."""
        return [s for s in self.surfaces.values() if s.command_name == command]

    def surface(self, kind: str, command: str | None = None) -> Surface | None:
        """The one surface of `kind` for `command` (`"pr merge"`, or None for the program),
        e.g. `surface("card", "deploy")`, `surface("help")`, `surface("tools_list")`."""
        if command is not None and kind == "help":
            kind = "command_help"
        for candidate in self.surfaces.values():
            if candidate.kind == kind and candidate.command_name == command:
                return candidate
        return None


class Reviews:
    """The contracts a build compares with: the previous good program's, and the snapshot
    folder's (read again only when a file in it changed)."""

    def __init__(self) -> None:
        self.contract: dict[str, Any] | None = None   # of the last good program
        self._stored: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def review(self, file: str, program: Program, surfaces: dict[str, Surface],
               previous_ok: bool, snapshots: str | None = None
               ) -> tuple[_changes.Review | None, _changes.Review | None]:
        """The change review since the previous good program and since the snapshot folder
        (`--headless`'s default, beside FILE); None where there is nothing to compare."""
        try:
            now = _changes.contract(_changes.live_files(surfaces))
            before, self.contract = self.contract, now
            review = None
            if previous_ok and before is not None:
                review = _changes.review_contracts(before, now)
            folder = _snapshot.snapshot_folder(file, program.name, snapshots)
            stored = self._folder_contract(folder)
            return review, (_changes.review_contracts(stored, now) if stored else None)
        except Exception:  # noqa: BLE001 - a review never stops a reload
            return None, None

    def _folder_contract(self, folder: str) -> dict[str, Any] | None:
        """`changes.contract` of the snapshot folder, read again only when it changed."""
        signature = []
        for root, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    signature.append((root, name, os.stat(os.path.join(root, name)).st_mtime_ns))
                except OSError:
                    pass
        key = tuple(sorted(signature))
        if not key:
            return None
        if self._stored is None or self._stored[0] != key:
            stored = {rel: text for rel, text in _snapshot.read_tree(folder).items()
                      if rel not in _snapshot.META_FILES}
            self._stored = (key, _changes.contract(stored))
        return self._stored[1]


def build_state(program: Program, previous: State, *, file: str, reviews: Reviews,
                diffs: Iterable[Diff] = (), snapshots: str | None = None,
                loaded_at: float = 0.0, load_seconds: float = 0.0,
                program_name: str | None = None, url: str | None = None) -> State:
    """Render surfaces, count tokens, lint and review `program` into the State after
    `previous` (`diffs`: the last example runs, whose findings the lint includes)."""
    diffs = tuple(diffs)
    before = previous if previous.program is not None else None
    memo = Memo(before.memo if before is not None else None)
    surfaces = _snapshot.render(program, memo)
    budgets = _tokens.budgets_for(program, file, surfaces)
    table = _tokens.token_table(surfaces, budgets, before.tokens if before else None,
                                before.surfaces if before else None)
    changes = _snapshot.compare(before.surfaces if before else None, surfaces,
                                previous.tokens.read_by_agents, table.read_by_agents)
    problems = tuple(_problems.lint(program, surfaces, table, diffs=diffs, memo=memo))
    base = (before.program, before.surfaces) \
        if before is not None and before.program is not None else None
    cost, cost_before = _costs(program, surfaces, table, memo, base,
                               before.cost if before is not None else None, diffs)
    review, review_snapshot = reviews.review(file, program, surfaces,
                                             previous.program is not None, snapshots)
    memo.finish()
    return State(cost=cost, cost_before=cost_before, cost_base=base, memo=memo,
                 review=review, review_snapshot=review_snapshot,
                 generation=previous.generation + 1, file=file, program=program,
                 program_name=program_name, load_error=None, surfaces=surfaces,
                 tokens=table, problems=problems, changes=changes, budgets=budgets,
                 loaded_at=loaded_at, load_seconds=load_seconds, url=url)


def failed_state(previous: State, error: LoadError, *, loaded_at: float = 0.0,
                 load_seconds: float = 0.0, output: str = "") -> State:
    """The State after a load that failed: the last good program (and its surfaces) stay."""
    return replace(previous, generation=previous.generation + 1, load_error=error,
                   loaded_at=loaded_at, load_seconds=load_seconds, load_output=output,
                   changes=Changes(error=error.message))


def with_diffs(state: State, diffs: Iterable[Diff]) -> State:
    """`state` with its problems linted again, the findings of `diffs` included, and its
    session costs (this program's and the previous one's) measured with their envelopes."""
    if state.program is None:
        return state
    diffs = tuple(diffs)
    problems = tuple(_problems.lint(state.program, state.surfaces, state.tokens, diffs=diffs))
    problems += state.check_problems
    cost, cost_before = _costs(state.program, state.surfaces, state.tokens, None,
                               state.cost_base, state.cost_before, diffs, state.cost)
    return replace(state, problems=problems, cost=cost, cost_before=cost_before)


def with_check(state: State, report: dict[str, Any] | None,
               found: Iterable[dict[str, Any]]) -> State:
    """`state` with `burgee check`'s report of its program and the problems it found
    (`workbench.check.Report.problems()`), in place of those of an earlier check."""
    if state.program is None:
        return state
    check_problems = tuple(Problem(**problem) for problem in found)
    earlier = set(state.check_problems)
    problems = tuple(p for p in state.problems if p not in earlier) + check_problems
    return replace(state, check=report, check_problems=check_problems, problems=problems)


def _costs(program: Program, surfaces: dict[str, Surface], table: TokenTable,
           memo: Memo | None, base: tuple[Program, dict[str, Surface]] | None,
           before: _cost.CostModel | None, diffs: tuple[Diff, ...],
           now: _cost.CostModel | None = None
           ) -> tuple[_cost.CostModel | None, _cost.CostModel | None]:
    """(cost of `program`, cost of the previous program `base`), both measured with the
    envelopes of `diffs`; a model already measured with them (`now`, `before`) is kept, so a
    reload that changed nothing shows no delta. None where a surface failed to render."""
    envelopes = _cost.envelopes_from(diffs)
    try:
        if now is None or now.envelopes != envelopes:
            now = _cost.model(program, surfaces, table=table, memo=memo, envelopes=envelopes)
        if base is not None and (before is None or before.envelopes != envelopes):
            before = _cost.model(base[0], base[1], envelopes=envelopes)
    except Exception:  # noqa: BLE001 - the Cost pane says it is unmeasured; nothing else
        return None, None
    return now, before if base is not None else None
