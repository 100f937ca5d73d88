"""Run a program in-process in tests, from argv or as an MCP tool call (like Click's `CliRunner`).

    from workbench.testing import Runner

    runner = Runner(program)
    result = runner.invoke(["deploy", "--target", "prod", "--json"], agent="claude-code")
    assert result.exit == 4
    assert result.json["next"][0]["command"] == "tool deploy --target prod --yes --json"

    result = runner.call("deploy", {"target": "staging", "yes": True})
    assert result.envelope["ok"] is True and not result.is_error

`invoke` runs the same pipeline as the process entry point (`workbench.run`); `call` runs the
same path as the MCP server's `tools/call` (`workbench.runtime.toolcall`), without the MCP SDK,
so its `result` is the server's answer byte for byte. The caller is simulated: the environment
(without the tester's own agent and CI markers), standard input, an agent, a terminal. Nothing
reaches the real process: `os.environ`, `sys.stdin`/`stdout`/`stderr` and file descriptors 1
and 2 are restored after each run, and a handler that prints, calls `sys.exit` or raises gives
an envelope as it would on the command line.
"""

from __future__ import annotations

import io
import json as _json
import os
import sys

from workbench.runtime import envelope as _envelope
from workbench.runtime.context import AGENT_MARKERS, AGENT_VARIABLES
from workbench.runtime.pipeline import Outcome, World, execute
from workbench.runtime.toolcall import call_tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import TracebackType
    from typing import Any

    from workbench.declaration.model import Program
    from workbench.runtime.capture import Capture
    from workbench.typed import App

__all__ = ["Runner", "Result"]

MARKERS = AGENT_MARKERS + ("CI", "FORCE_TTY")
"""Variables removed from the inherited environment: who runs the tests must not change them."""


class Result(Outcome):
    """What one run gave (`Runner` builds it): an `Outcome`, with `result` for `call`.

    Attributes:
        exit: the exit code the command line would end with (for `call`, the one its
            envelope stands for).
        stdout: what it printed on standard output (for `call`, the tool result's text).
        stderr: what it printed on standard error (for `call`, nothing).
        envelope: the envelope the run built (also when it was printed as text for a
            person), or None for help, schemas and other documents.
        result: for `call`, the MCP CallToolResult as the server sends it (a dict with
            `content`, `isError` and maybe `structuredContent`); else None.
        exception: what the handler (or a `setup`, or a plan) raised that ended the call
            (a `Fail`, `SystemExit` with a failing code, any other exception), as
            `click.testing.Result.exception`; None when it returned, or was refused before
            running.
        exc_info: `(type, value, traceback)` of `exception`, or None.
    """

    __slots__ = ("result", "exc_info")
    result: dict[str, Any] | None   # the slots' types, for checkers
    exc_info: tuple[type[BaseException], BaseException, TracebackType | None] | None

    def __init__(self, exit: int, stdout: str, stderr: str,
                 envelope: dict[str, Any] | None = None, result: dict[str, Any] | None = None,
                 exc_info: tuple[type[BaseException], BaseException, TracebackType | None]
                 | None = None):
        super().__init__(exit, stdout, stderr, envelope)
        self.result = result
        self.exc_info = exc_info

    @property
    def exception(self) -> BaseException | None:
        return self.exc_info[1] if self.exc_info else None

    @property
    def json(self) -> Any:
        """stdout parsed as one JSON document (a `--json` run, a tool result's text)."""
        return _json.loads(self.stdout)

    @property
    def lines(self) -> list[Any]:
        """stdout parsed as one JSON document per line (`--format ndjson`)."""
        return [_json.loads(line) for line in self.stdout.splitlines() if line]

    @property
    def is_error(self) -> bool:
        """For `call`: the result's `isError`; otherwise whether the exit code is not 0."""
        return bool(self.result["isError"]) if self.result is not None else self.exit != 0

    def __repr__(self) -> str:
        return f"Result(exit={self.exit}, stdout={self.stdout[:80]!r}, stderr={self.stderr[:80]!r})"


class Runner:
    """Runs `program` in this process with a simulated caller.

    Args:
        program: the declared `Program` (or typed `App`) to run.
        env: variables every run gets on top of this process's environment (from which the
            agent markers, `CI` and `FORCE_TTY` are removed); a value of None removes one.
        catch_exceptions: False lets an exception the handler raised unexpectedly (what
            would be the `internal` envelope) propagate out of `invoke` and `call`, with its
            traceback, as in Click's `CliRunner`.
    """

    def __init__(self, program: Program | App, env: Mapping[str, str | None] | None = None,
                 catch_exceptions: bool = True):
        as_program = getattr(program, "as_program", None)   # a typed App (workbench.typed)
        self.program: Program = as_program() if as_program is not None \
            else program   # type: ignore[assignment]  # an App's is its .program
        self.env: dict[str, str | None] = dict(env or {})
        self.catch_exceptions = catch_exceptions

    def isolated_filesystem(self, temp_dir: str | None = None) -> _IsolatedFilesystem:
        """`with runner.isolated_filesystem() as path:` — the working directory is a fresh
        empty folder (in `temp_dir` if given) for the block, removed afterwards; as
        `click.testing.CliRunner.isolated_filesystem`."""
        return _IsolatedFilesystem(temp_dir)

    def environ(self, env: Mapping[str, str | None] | None = None,
                agent: str | None = None) -> dict[str, str]:
        """The environment a run sees: inherited, cleaned, `self.env`, `env`, then `agent`."""
        environ = {k: v for k, v in os.environ.items() if k not in MARKERS}
        for key, value in {**self.env, **(env or {})}.items():
            if value is None:
                environ.pop(key, None)
            else:
                environ[key] = str(value)
        if agent is not None:
            environ.update(agent_environ(agent))
        return environ

    def invoke(self, argv: Sequence[str] | str, env: Mapping[str, str | None] | None = None,
               input: str | None = None, agent: str | None = None,
               terminal: bool = False) -> Result:
        """Run a command line (argv after the program name, or one string split like a shell).

        Args:
            argv: e.g. `["deploy", "--target", "prod", "--json"]`, or one string such as
                `"deploy --target prod"` or a `next` command as printed (`"tool deploy ..."`),
                split like a shell: `$VAR` and `${VAR}` expand from this run's environment.
            env: extra variables for this run (None as a value removes one).
            input: standard input; without it stdin is empty (as `< /dev/null`).
            agent: simulate this agent (`"claude-code"`, `"cursor"`, `"codex"`, `"gemini"`, or
                any name, given as `AI_AGENT`); None simulates no agent.
            terminal: simulate a person's terminal on stdin and stdout: the run is interactive
                (with no agent), and prompts read their answers from `input`.
        """
        environ = self.environ(env, agent)
        if isinstance(argv, str):
            from workbench._text import split
            argv = split(argv, environ)   # `$VAR` expands as in the shell a fix is run in
            if argv[:1] == [self.program.name] and (
                    self.program.single or self.program.find(argv[:1]) is None):
                argv = argv[1:]   # as printed in `next` and `fix`: the program's name first
        out, err = io.StringIO(), io.StringIO()
        stdin = _Input(input or "", terminal)   # one stream: ctx.stdin() and sys.stdin share it
        world = World(dict(environ), stdin, out, err, stdin_tty=terminal, stdout_tty=terminal)
        world.capture = True   # a handler's output is caught even for a person
        world.catch = self.catch_exceptions
        with _Isolated(environ, stdin) as stray:
            code, doc = execute(self.program, [str(token) for token in argv], world)
        strays = stray.output() or {}
        return Result(code, out.getvalue() + strays.get("stdout", ""),
                      err.getvalue() + strays.get("stderr", ""), doc, exc_info=world.exc_info)

    def call(self, tool_name: str, arguments: Mapping[str, object] | None = None,
             env: Mapping[str, str | None] | None = None, agent: str | None = None) -> Result:
        """Call tool `tool_name` with `arguments` as an MCP client would: the result is what the
        MCP server answers (`result`), its text as `stdout`, the envelope parsed.

        Args:
            tool_name: the MCP tool name (`deploy`, `pr_merge` for `pr merge`).
            arguments: the tool's arguments, property -> value, as a client sends them.
            env: extra variables for this call (None as a value removes one).
            agent: simulate this agent, as for `invoke`.
        """
        environ = self.environ(env, agent)
        raised: list = []

        def run(command, argv):
            out, err = io.StringIO(), io.StringIO()
            world = World(dict(environ), None, out, err)
            world.dash_reads_stdin = False   # as in `pipeline.call` over MCP: `-` is a literal
            world.capture = True
            world.catch = self.catch_exceptions
            code, doc = execute(self.program, list(argv), world)
            raised.append(world.exc_info)
            return Outcome(code, out.getvalue(), err.getvalue(), doc)

        with _Isolated(environ, _Input("", False)):   # the server's own output goes nowhere
            result = call_tool(self.program, tool_name,
                               dict(arguments) if arguments is not None else None, run,
                               reraise=not self.catch_exceptions)
        text = result["content"][0]["text"]
        try:
            doc = _json.loads(text)
        except ValueError:
            doc = None
        code = _envelope.exit_code(doc) if isinstance(doc, dict) and "ok" in doc else \
            int(result["isError"])
        return Result(code, text, "", doc if isinstance(doc, dict) else None, result,
                      exc_info=raised[0] if raised else None)


def agent_environ(agent: str) -> dict[str, str]:
    """The variable an agent sets: its own marker (`CLAUDECODE=1`), else `AI_AGENT=<name>`."""
    for variable, name in AGENT_VARIABLES:
        if name == agent:
            return {variable: "1"}
    return {"AI_AGENT": agent}


class _IsolatedFilesystem:
    """A fresh working directory for a `with` block (`Runner.isolated_filesystem`)."""

    def __init__(self, temp_dir: str | None) -> None:
        self._temp_dir = temp_dir
        self._previous = ""   # the working directory before the block (`__enter__`)
        self._path = ""

    def __enter__(self) -> str:
        import tempfile
        self._previous = os.getcwd()
        self._path = os.path.realpath(tempfile.mkdtemp(dir=self._temp_dir))
        os.chdir(self._path)
        return self._path

    def __exit__(self, *exc: object) -> None:
        import shutil
        os.chdir(self._previous)
        shutil.rmtree(self._path, ignore_errors=True)


class _Input(io.StringIO):
    """Standard input from a string, a terminal or not."""

    def __init__(self, text: str, terminal: bool):
        super().__init__(text)
        self._terminal = terminal

    def isatty(self) -> bool:
        return self._terminal


class _Isolated:
    """`with _Isolated(environ, stdin) as stray:` — the run's environment and stdin in place
    of the process's, and fds 1 and 2 caught (`stray.output()`); all restored."""

    def __init__(self, environ: dict, stdin):
        self._environ = environ
        self._stdin = stdin
        self._saved_environ: dict = {}
        self._saved_stdin = None
        self._capture: Capture | None = None

    def __enter__(self):
        from workbench.runtime.capture import Capture
        self._saved_environ = dict(os.environ)
        self._saved_stdin = sys.stdin
        self._capture = Capture()
        self._capture.__enter__()
        try:
            os.environ.clear()
            os.environ.update(self._environ)
            sys.stdin = self._stdin
        except BaseException:
            self.__exit__()
            raise
        return self._capture

    def __exit__(self, *exc) -> None:
        try:
            sys.stdin = self._saved_stdin
            os.environ.clear()
            os.environ.update(self._saved_environ)
        finally:
            if self._capture is not None:
                self._capture.__exit__(*exc)
