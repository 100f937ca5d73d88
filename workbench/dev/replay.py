"""Recorded agent traffic as a regression test: record MCP calls, replay them later.

Recording (`burgee dev FILE --record`, or `R` in the dashboard) appends one JSON line per
answered `tools/call` to `.burgee/traffic/<program>-<UTC time>.jsonl` beside FILE: the
tool, its command and effects, the arguments and the result text (sensitive values masked
by the one redaction policy), and the program's name and version at the time.

Replaying (`burgee dev FILE --headless --replay PATH`) calls each recorded tool again
against the current program, each call in a fresh sandbox, and classifies what differs
(`workbench.dev.changes.review_result`). Calls of commands that are not `read_only` run only
with `--run-writes`; calls whose arguments were masked cannot be sent again and are skipped.

Exit codes (docs/ci.md): 0 nothing breaking (or breaking under a major version bump since
the recording); 1 `replay_changed` (or `load_failed`); 2 `invalid_replay` (PATH is not
what `--record` wrote); 3 `file_not_found` (FILE or PATH).
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from workbench.declaration.model import Program
from workbench.dev.changes import BREAKING, KINDS, Change, major_bump, review_result
from workbench.dev.engine import Workbench
from workbench.dev.inputs import SAFE_EFFECTS
from workbench.dev.records import TrafficEntry
from workbench.dev.sandbox import Sandbox
from workbench.dev.server import redact_text
from workbench.dev.snapshot import snapshot_folder
from workbench.runtime import envelope as _envelope
from workbench.runtime.redact import PLACEHOLDER

FOLDER = os.path.join(".burgee", "traffic")
FORMAT = 1
"""`burgee_replay` in every line: the format of the file."""


def traffic_folder(file: str) -> str:
    """`.burgee/traffic/` beside FILE (as the snapshot folder is)."""
    return os.path.dirname(snapshot_folder(file, "_", os.path.join(FOLDER)))


def _masked(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_masked(item) for item in value.values())
    if isinstance(value, list):
        return any(_masked(item) for item in value)
    return value == PLACEHOLDER


class Recorder:
    """Appends recorded calls to one JSONL file; safe from any thread. A workbench records
    while one is its `recorder` (`workbench.dev.records.TrafficRecorder`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.count = 0
        self._lock = threading.Lock()
        os.makedirs(os.path.dirname(path), exist_ok=True)

    @classmethod
    def beside(cls, file: str, program: Program | None) -> Recorder:
        """A new file `.burgee/traffic/<program>-<UTC time>.jsonl` beside FILE."""
        name = program.name if program is not None else "program"
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        return cls(os.path.join(traffic_folder(file), f"{name}-{stamp}.jsonl"))

    def record(self, entry: TrafficEntry, program: Program | None) -> bool:
        """Write one traffic entry if it is an answered tools/call; True when written."""
        if entry.method != "tools/call" or not entry.tool or entry.result is None:
            return False
        command = program.tool(entry.tool) if program is not None else None
        line = {"burgee_replay": FORMAT, "at": round(entry.at, 3), "client": entry.client,
                "program": getattr(program, "name", None),
                "version": getattr(program, "version", None), "tool": entry.tool,
                "command": " ".join(command.path) if command is not None else None,
                "effects": command.effects if command is not None else None,
                "arguments": entry.arguments or {}, "masked": _masked(entry.arguments or {}),
                "result": entry.result, "is_error": entry.is_error}
        with self._lock:   # private (0600, never through a link): it holds results
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o600)
            if os.fstat(handle).st_mode & 0o077:
                os.fchmod(handle, 0o600)
            with open(handle, "a", encoding="utf-8") as out:
                out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            self.count += 1
        return True


class BadReplay(ValueError):
    """A replay file that is empty or is not what `--record` writes (bad input: exit 2)."""


def read_calls(path: str) -> list[dict[str, Any]]:
    """The recorded calls of a replay file, in order (blank lines skipped). Raises BadReplay
    naming the line for anything that is not a recorded call, and for a file with none."""
    calls = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    call = json.loads(line)
                except ValueError:
                    raise BadReplay(f"line {number} of {path} is not JSON") from None
                if not isinstance(call, dict) or not call.get("burgee_replay") or \
                        not isinstance(call.get("tool"), str) or \
                        not isinstance(call.get("arguments") or {}, dict):
                    raise BadReplay(f"line {number} of {path} is not a recorded call (a JSON "
                                    "object with burgee_replay, tool and arguments)")
                calls.append(call)
    except UnicodeDecodeError:
        raise BadReplay(f"{path} is not UTF-8 text") from None
    if not calls:
        raise BadReplay(f"{path} holds no recorded calls")
    return calls


def _label(call: dict[str, Any]) -> str:
    arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False, sort_keys=True)
    return f"{call['tool']} {arguments}"


def replay(file: str, path: str, *, run_writes: bool = False,
           program_name: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """Replay the calls recorded in `path` against FILE's current program; the envelope."""
    for missing in (file, path):
        if not os.path.isfile(missing):
            return _envelope.failure("file_not_found", f"{missing} does not exist", exit=3,
                                     hint="pass FILE and a replay file from .burgee/traffic/")
    try:
        calls = read_calls(path)
    except (BadReplay, OSError) as error:
        return _envelope.failure("invalid_replay", str(error), exit=_envelope.EXIT_USAGE,
                                 hint="pass a file that `burgee dev FILE --record` wrote "
                                      "(.burgee/traffic/*.jsonl), as it wrote it")
    bench = Workbench(os.path.abspath(file), program_name=program_name, run_writes=run_writes)
    state = bench.reload()
    if state.load_error is not None or state.program is None:
        message = state.load_error.message if state.load_error is not None else "no program"
        return _envelope.failure("load_failed", message, exit=1,
                                 hint="fix the file and run again")
    program = state.program
    server = bench.dev_server()
    changes: list[Change] = []
    skipped: list[dict[str, str]] = []
    replayed = 0
    for call in calls:
        label = _label(call)
        command = program.tool(call["tool"])
        if command is None:
            changes.append(Change(BREAKING, "tool_gone", call.get("command"), "replay",
                                  f"{label}: tool {call['tool']} is gone; restore it (or an "
                                  f"alias), or bump the major version", call["tool"], None))
            continue
        if call.get("masked"):
            skipped.append({"call": label, "why": "sensitive arguments were masked when "
                                                  "recorded; the call cannot be sent again"})
            continue
        if command.effects not in SAFE_EFFECTS and not run_writes:
            skipped.append({"call": label, "why": f"{command.effects}: runs only with "
                                                  f"--run-writes (in a sandbox)"})
            continue
        try:
            with Sandbox() as box:
                result = server.call_tool_sync(call["tool"], call.get("arguments") or {},
                                                     timeout=timeout, sandbox=box)
        except Exception as exc:  # noqa: BLE001 - one call's failure is a finding, not a crash
            changes.append(Change(BREAKING, "call_now_fails", " ".join(command.path), "replay",
                                  f"{label}: the call did not answer: {type(exc).__name__}: "
                                  f"{exc}", True, None))
            continue
        replayed += 1
        now = redact_text(program, command, call.get("arguments"), result["text"])
        changes.extend(review_result(label, " ".join(command.path), call.get("result"), now))
    changes.sort(key=lambda change: KINDS.index(change.kind))
    recorded = next((call.get("version") for call in calls if call.get("version")), None)
    bump = major_bump(recorded, program.version)
    breaking = [c for c in changes if c.kind == BREAKING]
    report = {"file": os.path.abspath(file), "replay": os.path.abspath(path),
              "program": program.name, "recorded_version": recorded,
              "version": program.version, "major_bump": bump, "calls": len(calls),
              "replayed": replayed, "skipped": skipped,
              "counts": {kind: sum(c.kind == kind for c in changes) for kind in KINDS},
              "changes": [change.to_dict() for change in changes]}
    report["failures"] = [] if not breaking or bump else ["replay_changed"]
    if not breaking or bump:
        return _envelope.success(report)
    doc = _envelope.failure("replay_changed", f"{len(breaking)} recorded call(s) answer "
                            f"differently; first: {breaking[0].reason}", exit=1,
                            hint="fix the handler, or if the change is intended record the "
                                 "calls again (or raise the major version)")
    doc["data"] = report
    return doc
