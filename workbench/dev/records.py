"""The workbench's records: frozen data that every room reads and none owns.

This is the bottom of `workbench.dev` (docs/architecture.md): it imports nothing of the
workbench, so any room can hand these to any other without an import running back up.

- `Target`: the program file a workbench is over, and its limits (what a load starts from);
- `Served`: the last good program as the workbench's subprocesses start it (what a run needs);
- `Event`: one engine event for subscribers (the dashboard, `burgee dev`'s log lines);
- `Surface`: one rendered surface (what `snapshot.render` makes, tokens count, lint reads);
- `Problem`, `RunResult`, `Diff`, `TrafficEntry`: what lint, a simulated environment, an
  example diff and a connected client's request produce;
- `TrafficRecorder`: what the engine hands each answered request to (a replay `Recorder`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from workbench.declaration.model import Program

DEFAULT_LOAD_TIMEOUT: float = 10.0
"""Seconds an import may take before it counts as hanging."""
DEFAULT_CALL_TIMEOUT: float = 30.0
"""Seconds a tool call of the dev MCP server may run before it is stopped."""


@dataclass(frozen=True)
class Target:
    """The program file a workbench is over: `file` (absolute), the `program_name` to pick
    when it declares several, and the time limits of a load and of a tool call."""

    file: str
    program_name: str | None = None
    load_timeout: float | None = DEFAULT_LOAD_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT

    @property
    def folder(self) -> str:
        """FILE's folder: where its runs start, and what is watched."""
        return os.path.dirname(self.file)


@dataclass(frozen=True)
class Served:
    """The last good program as a subprocess starts it: `source_file` holds the source that
    loaded (its checked bytecode beside it), `name` the module-level variable holding the
    Program. A run uses these, never the file on disk, which may be mid-edit."""

    target: Target
    program: Program
    source_file: str | None = None
    name: str | None = None

    @property
    def file(self) -> str:
        return self.target.file

    @property
    def program_name(self) -> str | None:
        """What a subprocess looks the program up by (its variable, else the asked name)."""
        return self.name or self.target.program_name


@dataclass(frozen=True)
class Event:
    """One engine event: `kind` is state | run | diffs | traffic | serving (see `engine`)."""

    kind: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class Surface:
    """One rendered surface.

    id: stable name and snapshot path; kind: its budget kind (help, command_help, help_json,
    card, schema, command_schema, tool, tools_list, skill, llms, completion, config);
    command: the path of the command or group it describes, or None for the program; text:
    what the caller reads; data: the parsed JSON for JSON surfaces; error: set when
    rendering raised.
    """

    id: str
    kind: str
    command: tuple[str, ...] | None
    text: str
    data: Any = None
    error: str | None = None
    title: str = ""

    @property
    def command_name(self) -> str | None:
        return " ".join(self.command) if self.command else None

    @property
    def is_json(self) -> bool:
        return self.id.endswith(".json")

    def pretty(self) -> str:
        """The readable form written to a snapshot file (indented JSON; text as is)."""
        if self.is_json and self.error is None:
            return json.dumps(self.data, ensure_ascii=False, indent=2) + "\n"
        return self.text if self.text.endswith("\n") else self.text + "\n"


@dataclass(frozen=True)
class Problem:
    """One lint finding: severity is "error" | "warning" | "info"; `fix` says what to change."""

    severity: str
    code: str
    message: str
    fix: str
    command: str | None = None     # the command path as a string ("pr merge"), or None
    surface: str | None = None     # a surface id, where one is concerned

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "fix": self.fix, "command": self.command, "surface": self.surface}


@dataclass(frozen=True)
class RunResult:
    """One call under one simulated environment."""

    environment: str
    argv: tuple[str, ...]     # after the program name
    exit: int | None          # None when it timed out or could not start
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str | None = None  # why it could not run, if it could not
    arguments: dict[str, Any] | None = None   # the MCP arguments (mcp environment)

    def to_dict(self) -> dict[str, Any]:
        return {"environment": self.environment, "argv": list(self.argv), "exit": self.exit,
                "stdout": self.stdout, "stderr": self.stderr,
                "seconds": round(self.seconds, 4), "timed_out": self.timed_out,
                "error": self.error, "arguments": self.arguments}


@dataclass(frozen=True)
class Diff:
    """One example: the CLI `--json` output vs the MCP tools/call text result."""

    command: str
    example: str
    argv: tuple[str, ...]
    arguments: dict[str, Any] | None
    cli: str | None           # stdout without its final newline
    mcp: str | None           # the text content of the tool result
    cli_exit: int | None = None
    mcp_is_error: bool | None = None
    equal: bool | None = None  # None when not run
    diff: str = ""            # unified diff when not equal
    skipped: str | None = None  # why it was not run (e.g. writes need --run-writes)
    error: str | None = None
    invalid_output: dict[str, Any] | None = None   # the data broke the output schema: the
    # error (`workbench.surfaces.output.output_problem`: code, message, hint, field, ...)

    def to_dict(self) -> dict[str, Any]:
        return {"command": self.command, "example": self.example, "argv": list(self.argv),
                "arguments": self.arguments, "equal": self.equal, "cli_exit": self.cli_exit,
                "mcp_is_error": self.mcp_is_error, "cli": self.cli, "mcp": self.mcp,
                "diff": self.diff, "skipped": self.skipped, "error": self.error,
                "invalid_output": self.invalid_output}


HOUSEKEEPING = frozenset(("initialize", "ping", "server/discover", "subscriptions/listen",
                          "logging/setLevel"))
"""MCP methods that are protocol housekeeping (see `TrafficEntry.housekeeping`)."""


@dataclass(frozen=True)
class TrafficEntry:
    """One MCP request from a connected client (sensitive argument values hidden)."""

    at: float
    client: str
    session: str | None
    method: str
    tool: str | None
    arguments: dict[str, Any] | None
    result: str | None
    is_error: bool
    seconds: float
    error: str | None = None

    @property
    def housekeeping(self) -> bool:
        """Protocol housekeeping (handshake, discovery, ping, the notification stream), not a
        tool or a listing: shown quietly; its end when a client leaves is not an error."""
        return self.method in HOUSEKEEPING or self.method.startswith("notifications/")

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at, "client": self.client, "session": self.session,
                "method": self.method, "tool": self.tool, "arguments": self.arguments,
                "result": self.result, "is_error": self.is_error,
                "seconds": round(self.seconds, 4), "error": self.error}


class TrafficRecorder(Protocol):
    """What the engine hands every answered request to while recording (`replay.Recorder`):
    `record` returns whether it kept the entry; an OSError stops the recording."""

    path: str
    count: int

    def record(self, entry: TrafficEntry, program: Program | None) -> bool: ...
