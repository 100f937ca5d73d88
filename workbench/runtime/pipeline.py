"""argv -> envelope -> exit code: the one pipeline every transport runs.

`execute(program, argv, world)` runs it against a `World` (environment and streams);
`call(program, argv)` runs it in-process with captured streams (the MCP server, tests).
The process entry point `run(program)` lives a layer up (`workbench.entry`), because it can
hand `tool mcp` to the MCP transport.

Everything printed goes through `_deliver` (one envelope path: stamp, redact, print) or
`World.out`/`World.err` (which redact), so the one redaction policy covers every byte.
"""

from __future__ import annotations

import os

from workbench.declaration.model import DefinitionError, Fail, derived
from workbench.runtime import envelope as _envelope
from workbench.runtime.parser import Refusal, Request, parse
from workbench.runtime.redact import (Redactor, mask_argv, secrets_in_argv,
                                      secrets_in_request)

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from types import TracebackType
    from typing import Any

    from workbench.declaration.model import Command, Program


class PipeClosed(Exception):
    """The reader closed stdout (or a handler closed fd 1)."""


class OutputFailed(Exception):
    """stdout is there but refuses bytes (a full disk): said on stderr, exit 1."""


class Terminated(SystemExit):
    """SIGTERM arrived while a command ran (see `on_terminate`): it ends with the `terminated`
    envelope (exit 143), or a stream with its @end line. A `SystemExit` (code 143), so that
    an event loop a handler runs passes it on (asyncio logs and drops other exceptions raised
    in its callbacks) and, uncaught, it still ends the process with 143 and its clean-up."""

    def __init__(self):
        super().__init__(_envelope.EXIT_TERMINATED)


def on_terminate():
    """From now on SIGTERM raises `Terminated` in the main thread; a second SIGTERM ends the
    process as it would have (the default). Returns the handler it replaced (None off the
    main thread, where signals cannot be handled). `_signal`: `signal` imports `enum`."""
    import _signal

    def terminate(signum, frame):
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        raise Terminated()
    try:
        return _signal.signal(_signal.SIGTERM, terminate)
    except ValueError:
        return None


class World:
    """Where a call runs: environment, streams, whether each stream is a terminal, and the
    secrets this call must never print."""

    environ: Mapping[str, str]   # the attributes' types, for checkers
    stdin_tty: bool
    stdout_tty: bool
    redactor: Redactor
    on_progress: Callable[[float, float | None, str | None], object] | None
    exc_info: tuple[type[BaseException], BaseException, TracebackType | None] | None
    _tsv: bool | None

    def __init__(self, environ, stdin, stdout, stderr, stdin_tty=False, stdout_tty=False):
        self.environ = environ
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.stdin_tty = stdin_tty
        self.stdout_tty = stdout_tty
        self.redactor = Redactor()
        self.ndjson = False       # `--format ndjson`: every envelope goes out as a stream
        self.capture = False      # catch a handler's output even for a person (in-process)
        self.dash_reads_stdin = True   # `-` means standard input (not over MCP: a literal)
        self.stdout_closed = False
        self.seal = False         # this process ends with this call: once its result is out,
        #                           fds 1 and 2 take nothing more (late writes of threads)
        self.as_json = False      # `--json` (set by `execute`)
        self.tsv = False          # text as tab-separated values (`text_format`; see `tsv`)
        self.format_asked = None  # `--format` as given (`execute` sets it; `tsv` reads it)
        self.colour_out = False   # colour on stdout, on stderr (`_colours`)
        self.colour_err = False
        self.delivered = False    # the call's envelope (or stream end) went out
        self.stream_open = False  # an ndjson stream's @meta line went out (`open_stream`)
        self.progress_lines = False
        self.progress_bar = False   # a person at a terminal: `ctx.progress` draws a bar
        self._bar_start = None      # when the bar's first report came; None: no bar drawn
        self._stream_start = None   # when a stream's first @progress line went out
        self.on_progress = None   # the MCP server forwards progress as notifications
        self._last_progress = None
        self.exc_info = None      # what the handler raised, for `workbench.testing.Result`
        self.catch = True         # False: an unexpected exception propagates (tests)

    @property
    def tsv(self) -> bool:
        """Data as text is tab-separated values (`text_format`), worked out on first read:
        it may ask who is calling (`runtime.context.detect_agent`), which `--help` never
        needs (`execute` reads it before a handler runs, which may change the environment)."""
        if self._tsv is None:
            self._tsv = text_format(self, self.format_asked) == "tsv"
        return self._tsv

    @tsv.setter
    def tsv(self, value: bool | None) -> None:
        self._tsv = value   # None: `text_format` on the next read

    def redact(self, text: str) -> str:
        return self.redactor.text(text)

    def out(self, text: str, masked: bool = False) -> None:
        """Write `text` on stdout, masked as text, or as it is when `masked` (a JSON document
        encoded from values already masked by structure: masking its text again could reach
        into a number or a key, and break the JSON)."""
        if self.stdout_closed:   # started with stdout closed (`>&-`): nobody can read it
            raise PipeClosed
        try:
            _write(self.stdout, _envelope.safe_text(text if masked else self.redact(text)))
        except (BrokenPipeError, ValueError):   # a reader that hung up; a closed stdout
            raise PipeClosed from None
        except OSError as error:
            import errno   # here: its module costs every start ~0.08 ms
            if error.errno == errno.EBADF:      # fd 1 closed under us (by a handler)
                raise PipeClosed from None
            raise OutputFailed(error.strerror or str(error)) from None

    def out_json(self, data: Any) -> None:
        """One JSON document (or stream line) on stdout: masked by structure, then encoded."""
        self.out(_envelope.encode(self.redactor.value(data) if self.redactor else data) + "\n",
                 masked=True)

    def err(self, text: str, masked: bool = False) -> None:
        try:
            _write(self.stderr, _envelope.safe_text(text if masked else self.redact(text)))
        except (OSError, ValueError):   # a closed or full stderr: nowhere left to say it
            pass

    def progress(self, ctx, done, total, message) -> None:
        """Throttled: the first and the final report always go out; between them, one every
        `MCP_PROGRESS_EVERY` s to an MCP client (`on_progress`: reports 50 ms apart all reach
        it), one every `LINE_PROGRESS_EVERY` s as a JSON line on stderr."""
        if self.on_progress is None and not self.progress_lines:
            return
        import time
        now = time.monotonic()
        final = total is not None and done >= total
        if self.progress_bar and self.on_progress is None:
            return self._draw_bar(now, done, total, message, final)
        interval = MCP_PROGRESS_EVERY if self.on_progress is not None else \
            STREAM_PROGRESS_EVERY if self.ndjson else LINE_PROGRESS_EVERY
        if self._last_progress is not None and now - self._last_progress < interval and not final:
            return
        self._last_progress = now
        if message is not None:
            message = self.redact(str(message))
        if self.on_progress is not None:
            self.on_progress(done, total, message)
            return
        if self.ndjson:
            return self._stream_progress(ctx, now, done, total, message)
        record = {"progress": {"command": " ".join(ctx.command.path), "done": done}}
        if total is not None:
            record["progress"]["total"] = total
        if message:
            record["progress"]["message"] = message
        self.err(_envelope.encode(record) + "\n", masked=True)   # the message is masked


    def _stream_progress(self, ctx, now, done, total, message) -> None:
        """An `@progress` line in an ndjson stream (opened first when the handler reports
        before its first item): done, of, elapsed_ms and eta_ms (null until a rate is
        known)."""
        if self._stream_start is None:
            self._stream_start = now
        elapsed = now - self._stream_start
        eta = None
        if total is not None and done and elapsed > 0:
            eta = max(0, round((total - done) * elapsed / done * 1000))
        record = {"done": done, "of": total, "elapsed_ms": round(elapsed * 1000), "eta_ms": eta}
        if message:
            record["message"] = message
        open_stream(ctx.program, self, ctx.command)
        self.out(_envelope.encode({"@progress": record}) + "\n", masked=True)   # masked

    def _draw_bar(self, now, done, total, message, final) -> None:
        """A person's progress bar on stderr, redrawn in place at most ten times a second:
        done of total, percent, rate and time left; a newline once it is full."""
        if self._bar_start is None:
            self._bar_start = now
        elif not final and self._last_progress is not None and \
                now - self._last_progress < BAR_EVERY:
            return
        self._last_progress = now
        import shutil
        width = shutil.get_terminal_size((80, 24)).columns
        line = progress_line(done, total, 0.0 if final else now - self._bar_start, width,
                             self.redact(str(message)) if message is not None else None)
        if self.colour_err:
            from workbench.runtime import colour
            line = colour.bar(line)
        self.err("\r" + line + "\x1b[K" + ("\n" if final else ""))
        if final:
            self._bar_start = None

    def end_bar(self) -> None:
        """Close an unfinished bar with a newline, before the result is printed."""
        if self._bar_start is not None:
            self._bar_start = None
            self.err("\n")


def progress_line(done: float, total: float | None, elapsed: float, width: int,
                  message: str | None = None) -> str:
    """One line of a progress bar: `[████░░░░] 60/120 50% ETA 5s 12/s message`, cut to
    `width` columns (control characters in the message escaped). No rate or time left when
    `elapsed` is 0: the first and the final line are the same bytes on every run."""
    from workbench._text import escape_controls
    rate = done / elapsed if elapsed > 0 else 0.0
    parts = []
    if total:
        fraction = max(0.0, min(1.0, done / total))
        parts.append(f"{_number(done)}/{_number(total)} {fraction:4.0%}")
        if rate > 0 and done < total:
            parts.append(f"ETA {_duration((total - done) / rate)}")
    else:
        parts.append(f"{_number(done)} done")
    if rate > 0:
        parts.append(f"{rate:.3g}/s")
    text = " ".join(parts) + (f" {escape_controls(message)}" if message else "")
    if total:
        cells = max(10, min(40, width - len(text) - 4))
        full = int(round(cells * fraction))
        text = "[" + "\u2588" * full + "\u2591" * (cells - full) + "] " + text
    return text[:max(1, width - 1)]


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


MCP_PROGRESS_EVERY = 0.04
"""Seconds between progress notifications to an MCP client: reports 50 ms apart all go out
(the conformance suite's `tools-call-with-progress`), a tight loop is still thinned."""
LINE_PROGRESS_EVERY = 2.0
"""Seconds between progress lines on stderr, where a person or a log reads them."""
STREAM_PROGRESS_EVERY = 1.0
"""Seconds between `@progress` lines in an ndjson stream."""
BAR_EVERY = 0.1
"""Seconds between redraws of a person's progress bar."""


def _write(stream, text: str) -> None:
    """Write all of `text`: to a real file descriptor as UTF-8 bytes in a loop (a short write
    to a pipe is finished, and a reader that hung up is an error, never a silent exit 0);
    to an in-memory stream as text."""
    fd = _fileno(stream)
    if fd is None:
        stream.write(text)
        stream.flush()
        return
    import os
    stream.flush()   # what the stream already holds goes first
    data = memoryview(text.encode("utf-8", "backslashreplace"))
    while data:
        data = data[os.write(fd, data):]


class Outcome:
    """The result of `call`: exit code, captured stdout/stderr, and the envelope.

    Attributes:
        exit: the exit code the command line would end with.
        stdout: what it printed on standard output (the envelope's line under `--json`).
        stderr: what it printed on standard error.
        envelope: the envelope the call built (also when printed as text for a person), or
            None for help, schemas and other documents.
    """

    __slots__ = ("exit", "stdout", "stderr", "envelope")
    exit: int   # the slots' types, for checkers
    stdout: str
    stderr: str
    envelope: dict[str, Any] | None

    def __init__(self, exit: int, stdout: str, stderr: str, envelope: dict[str, Any] | None):
        self.exit = exit
        self.stdout = stdout
        self.stderr = stderr
        self.envelope = envelope

    def __repr__(self) -> str:
        return f"Outcome(exit={self.exit}, stdout={self.stdout[:60]!r}, stderr={self.stderr[:60]!r})"


def call(program: Program, argv: list[str], *, environ: dict[str, str] | None = None,
         stdin: str | None = None,
         on_progress: Callable[[float, float | None, str | None], None] | None = None
         ) -> Outcome:
    """Run argv in-process with captured streams, exactly as the CLI would (no terminal).
    `program` may also be a typed `App` (workbench.typed).

        outcome = call(program, ["deploy", "--target", "staging", "--yes", "--json"])
        outcome.exit, outcome.envelope["data"]

    For tests, `workbench.testing.Runner` also simulates stdin, an agent and a terminal.

    Args:
        program: the `Program` to run.
        argv: the command line after the program name.
        environ: the environment the call sees (default: this process's).
        stdin: standard input as text (default: closed).
        on_progress: receives `ctx.progress` calls as `(done, total, message)` (the MCP
            server sends them as progress notifications); messages arrive masked.
    """
    import io
    as_program = getattr(program, "as_program", None)   # a typed App (workbench.typed)
    if as_program is not None:
        program = as_program()
    out, err = io.StringIO(), io.StringIO()
    world = World(dict(os.environ if environ is None else environ),
                  io.StringIO(stdin) if stdin is not None else None, out, err)
    world.on_progress = on_progress
    world.capture = True
    world.dash_reads_stdin = stdin is not None   # an MCP call has no stdin: `-` is a literal
    code, doc = execute(program, list(argv), world)
    return Outcome(code, out.getvalue(), err.getvalue(), doc)


def execute(program, argv, world, *, serve=None):
    """The pipeline: returns (exit code, envelope or None). Never raises for bad input.

    `serve(program, address, policy=)` runs `tool mcp` (handed in by the process entry
    point; `policy`: `workbench.runtime.serving.Policy`)."""
    as_json, world.ndjson, debug, progress, asked, no_color = _modes(argv)
    world.as_json = as_json
    world.format_asked, world.tsv = asked, None   # `text_format` when first read
    _colours(world, as_json, no_color)
    world.progress_lines = progress or (not as_json and world.stdout_tty)
    world.progress_bar = world.progress_lines and not progress and not world.ndjson and \
        _is_terminal(world.stderr) and world.environ.get("TERM") != "dumb" and \
        _no_agent(world.environ)
    try:
        state = derived(program)
        if state.broken is not None:   # a lazy group failed its first check
            raise state.broken
        if not state.examples_checked or state.lazy_pending:   # else: not even its import
            from workbench.runtime.checks import ensure_checked
            ensure_checked(program)
        _load_path(program, argv)
    except DefinitionError as error:
        if not derived(program).has_lazy:
            raise   # an eager program's examples: refused as they always were
        return _deliver(program, world, _definition_failure(error), as_json)
    world.redactor.add(secrets_in_argv(program, argv, world.environ))
    try:
        try:
            from_input = ()
            if _asks_input(argv):   # `--input FILE|-`: the request as JSON (issue 34)
                from workbench.runtime._agentic import merged_input
                merged = merged_input(program, argv, world)
                if isinstance(merged, dict):
                    return _deliver(program, world, merged, as_json)
                argv, from_input = merged
                world.redactor.add(secrets_in_argv(program, argv, world.environ))
            request = parse(program, argv, world.environ)
            for key in from_input:
                request.provenance[key] = {"source": "input", "location": "--input"}
            if derived(program).lazy_pending:   # a lazy group's examples, checked as it loaded
                from workbench.runtime.checks import ensure_checked
                ensure_checked(program)
        except Refusal as refusal:
            refused = _person_only_first(program, argv, world)   # exit 13 before any fix
            if refused is not None:
                return _deliver(program, world, refused, as_json)
            return _refuse(program, refusal, as_json, world)
        except DefinitionError as error:   # a lazy group that fails to load or check
            return _deliver(program, world, _definition_failure(error), as_json)
        if request.command is not None:
            world.redactor.add(secrets_in_request(request.command, request.options))
        if request.builtin is not None or request.flags["help"] or request.flags["schema"] or (
                request.command is None and not request.flags["version"]):
            program.settle_defaults()   # help, cards, schemas, tools: never a plain call
        if request.builtin is not None:
            return _builtin(program, request, world, serve)
        if request.flags["version"] and request.command is None:
            return _show(world, as_json, _version_document(program),
                         f"{program.name} {program.version}")
        if request.command is None:
            return _describe_node(program, request, world)
        command = request.command
        if request.flags["help"]:
            from workbench.surfaces import cards, help
            if as_json:
                return _show(world, True, cards.card(command), None)
            return _help(world, help.render_help(program, command, **help_layout(world)))
        if request.flags["schema"]:
            from workbench.surfaces.schema import input_schema
            return _show(world, True, input_schema(command), None)
        world.tsv = world.tsv   # read now: the handler may change what `text_format` reads
        return _invoke(program, command, request, world, debug)
    except PipeClosed:
        return _envelope.EXIT_PIPE, None
    except OutputFailed as failed:
        world.err(f"error: standard output cannot be written: {failed}\n")
        return _envelope.EXIT_FAILURE, None
    except (KeyboardInterrupt, Terminated) as stop:
        doc, code = (_envelope.interrupted(), _envelope.EXIT_INTERRUPTED) \
            if isinstance(stop, KeyboardInterrupt) else \
            (_envelope.terminated(), _envelope.EXIT_TERMINATED)
        if world.delivered:   # it came after the answer went out: nothing more to say
            return code, None
        try:
            return _deliver(program, world, doc, as_json)
        except PipeClosed:
            return code, None


def _asks_input(argv) -> bool:
    """Whether argv gives `--input` before any `--` (`_agentic.merged_input` reads it)."""
    for token in argv:
        if token == "--":
            return False
        if token == "--input" or token.startswith("--input="):
            return True
    return False


def _version_document(program) -> dict:
    """`--version --json`: name, version and the capabilities an agent detects features by."""
    from workbench.declaration.capabilities import capabilities
    return {"name": program.name, "version": program.version,
            "capabilities": capabilities(program)}


def _is_terminal(stream) -> bool:
    fd = _fileno(stream)
    return fd is not None and os.isatty(fd)


def _no_agent(environ) -> bool:
    from workbench.runtime.context import detect_agent
    return detect_agent(environ) is None


def _load_path(program, argv) -> None:
    """Import the lazy groups the words of argv select (and no other), so redaction knows
    their sensitive options before anything is printed."""
    from workbench.declaration.model import child_named
    node = program
    for token in argv:
        if token == "--" or not node.is_group or getattr(program, "single", False):
            return
        if token.startswith("-"):
            continue
        node = child_named(node, token)
        if node is None:
            return


def _person_only_first(program, argv, world):
    """For an agent's refused call of a person-only command (its words lead argv), the
    exit-13 refusal: fixing the arguments would not let it run. Else None."""
    from workbench.declaration.model import child_named
    node = program
    for token in argv:
        if token == "--" or not node.is_group:
            break
        if not token.startswith("-"):
            node = child_named(node, token)
            if node is None:
                return None
    if node.is_group or not getattr(node, "person_only", None):
        return None
    from workbench.runtime._failures import person_only_refusal
    return person_only_refusal(program, node, world.environ)


def _definition_failure(error) -> dict:
    """A declaration that fails when a lazy group loads, as the `definition` failure (exit 1)."""
    return _envelope.failure("definition", f"DefinitionError: {error}", exit=_envelope.EXIT_FAILURE,
                             hint="fix the declaration; `burgee dev` checks every group")


def _modes(argv) -> tuple:
    """(--json or --format json, --format ndjson, --debug, --progress, the --format asked,
    --no-color), read as the parser reads global flags, so that even a refusal is printed the
    way the caller asked."""
    from workbench.runtime.parser import split_globals
    try:
        flags = split_globals(argv)[0]
    except Refusal:
        head = argv[:argv.index("--")] if "--" in argv else argv
        as_json = "--json" in head or any(t.startswith("--json=") for t in head)
        return (as_json, False, "--debug" in head, "--progress" in head, None,
                "--no-color" in head)
    fmt = flags["format"]
    return (flags["json"] or fmt == "json", fmt == "ndjson", flags["debug"], flags["progress"],
            fmt, flags["no_color"])


def _colours(world, as_json, no_color) -> None:
    """Whether stdout and stderr get colour (`workbench.runtime.colour.enabled`); a pipe with
    no FORCE_COLOR decides without importing anything."""
    err_tty = _is_terminal(world.stderr)
    if as_json or not (world.stdout_tty or err_tty or world.environ.get("FORCE_COLOR")):
        return
    from workbench.runtime import colour
    from workbench.runtime.context import detect_agent
    agent = detect_agent(world.environ)
    world.colour_out = not world.ndjson and colour.enabled(world.environ, world.stdout_tty,
                                                           no_color, agent)
    world.colour_err = colour.enabled(world.environ, err_tty, no_color, agent)


def text_format(world: World, asked: str | None) -> str:
    """How data is printed as text: `table` (aligned, for a person) or `tsv` (tab-separated,
    for a program). `--format` decides when given; else `tsv` when stdout is not a terminal
    and no agent is detected (an agent keeps the table it always got; `FORCE_TTY=1` is a
    terminal)."""
    if asked in ("table", "tsv"):
        return asked
    if world.stdout_tty or world.environ.get("FORCE_TTY") == "1" or \
            not _no_agent(world.environ):
        return "table"
    return "tsv"


def _show(world, as_json, data, text):
    if as_json:
        world.out_json(data)
    else:
        world.out(text if text.endswith("\n") else text + "\n")
    return 0, None


def _describe_node(program, request, world):
    """A program or group with no command: help (or the schema of what is under it)."""
    node = request.node
    if request.flags["schema"]:
        from workbench.surfaces.schema import program_schema
        return _show(world, True, program_schema(program, node=node), None)
    if request.json:
        from workbench.surfaces import cards
        doc = cards.help_document(program, "summary") if node is program else \
            cards.group_document(program, node)
        return _show(world, True, doc, None)
    from workbench.surfaces import help
    return _help(world, help.render_help(program, None if node is program else node,
                                         **help_layout(world)))


def _builtin(program, request, world, serve):
    from workbench.runtime import builtins
    as_json = request.json
    try:
        result = builtins.run_builtin(program, request, world, serve)
    except Refusal as refusal:
        return _refuse(program, refusal, as_json, world)
    except Fail as fail:   # e.g. `tool mcp` without the mcp extra
        return _deliver(program, world, _from_fail(program, None, fail,
                                                   output_mode(world, as_json)), as_json)
    if isinstance(result, builtins.Served):
        return result.exit, None
    if isinstance(result, builtins.Envelope):
        return _deliver(program, world, result.doc, as_json, text=result.text)
    if result.data is None and (request.flags["help"] or request.builtin.path == ("help",)):
        return _help(world, result.text)   # `tool help`, `tool mcp --help`: help, as --help
    return _show(world, as_json and result.data is not None, result.data, result.text)


def output_mode(world: World, as_json: bool) -> list[str]:
    """The flags that carry the caller's output mode into a `fix` or `next`: `--format ndjson`
    for a stream, `--json` for an envelope, none for a person."""
    if world is not None and world.ndjson:
        return ["--format", "ndjson"]
    return ["--json"] if as_json else []


def runnable(program: Program, tokens: Sequence[str], as_json: bool,
             command: Command | None = None) -> str:
    """A command line to run as is: program name in front, the caller's output mode carried
    (`as_json` True for `--json`, or `output_mode`'s flags; before any `--`), sensitive values
    replaced by their slot (`$ENV` or the metavar)."""
    from workbench._text import join, split
    if isinstance(tokens, str):
        tokens = split(tokens)
    mode = ["--json"] if as_json is True else list(as_json or ())
    at = tokens.index("--") if "--" in tokens else len(tokens)
    head: list = []
    skip = False
    streams = "--format" in mode     # a stream replaces the caller's --format; --json
    for i, token in enumerate(tokens[:at]):   # replaces --format json (the same mode)
        if skip:
            skip = False
        elif token == "--format" and (streams or (mode and tokens[i + 1:i + 2] == ["json"])):
            skip = True
        elif token == "--json" or (token.startswith("--format=") and (
                streams or (mode and token == "--format=json"))):
            continue
        else:
            head.append(token)
    if "--json" in mode and any(t.startswith("--json=") for t in head):
        mode = [m for m in mode if m != "--json"]   # `--json=a,b` already says it
    tokens = head + list(tokens[at:])
    if tokens[:1] == [program.name]:
        tokens = tokens[1:]
    tokens = mask_argv(program, tokens)
    at = tokens.index("--") if "--" in tokens else len(tokens)
    tokens = tokens[:at] + mode + tokens[at:]
    return join([program.name] + tokens)


def _refuse(program, refusal, as_json, world):
    return _deliver(program, world, _refusal(program, refusal, output_mode(world, as_json)),
                    as_json)


def _refusal(program, refusal, mode) -> dict:
    """A usage refusal's envelope, its fix runnable in the caller's output `mode`."""
    fix = runnable(program, refusal.fix, mode) if refusal.fix is not None else None
    doc = _envelope.from_refusal(refusal, fix)
    if getattr(refusal, "meanings", None):   # an ambiguous word (issue 34)
        from workbench.runtime._agentic import meanings_of
        doc["error"]["meanings"] = meanings_of(program, refusal, mode)
        doc["error"]["hint"] = "; ".join(f"{m['command']}   # {m['means']}"
                                         for m in doc["error"]["meanings"])
    return doc


def _seal(program, world, doc) -> dict:
    """Stamp `meta.schema_version` and mask every secret: what is printed, stored or returned."""
    doc = _envelope.stamp(doc, program.schema_version)
    return world.redactor.value(doc) if world.redactor else doc


def _deliver(program, world, doc, as_json, text=None, sealed=False, command=None):
    """Print a finished envelope (the document, or text for a person); (exit, envelope)."""
    if not sealed:
        doc = _seal(program, world, doc)
    code = _envelope.exit_code(doc)
    if world.ndjson:
        return _deliver_stream(program, world, doc, command), doc
    if as_json:
        world.out(_envelope.encode(doc) + "\n", masked=True)   # sealed: masked by structure
        world.delivered = True
        return code, doc
    shown = doc
    if command is not None and _untrusted(command):   # a terminal never obeys it
        from workbench.runtime._agentic import neutralised
        shown = neutralised(command, doc)
    out, err = _envelope.render(shown, text, tsv=world.tsv)
    if world.colour_out and out and text is None and not world.tsv and _is_table(doc):
        from workbench.runtime import colour
        out = colour.header(out)
    if world.colour_err and err:
        from workbench.runtime import colour
        err = colour.problems(err)
    world.end_bar()
    if out:
        world.out(out)
    if err:
        world.err(err)
    world.delivered = True
    return code, doc


def _is_table(doc) -> bool:
    data = doc.get("data")
    return isinstance(data, list) and bool(data) and all(isinstance(i, dict) for i in data)


def help_layout(world) -> dict[str, Any]:
    """How help is laid out (`render_help`'s `width` and `person`): for a person at a
    terminal with no agent, the person's help at the terminal's width ($COLUMNS, else the
    terminal's own; kept between 40 and 120); else the full text at the stable
    `surfaces.help.WIDTH` (80), so what agents, pipes and snapshots read never changes with
    a window."""
    from workbench.surfaces.help import WIDTH
    if not world.stdout_tty or not _no_agent(world.environ):
        return {"width": WIDTH, "person": False}
    columns = world.environ.get("COLUMNS", "")
    if not columns.isdigit():
        fd = _fileno(world.stdout)
        try:
            columns = os.get_terminal_size(fd).columns if fd is not None else WIDTH
        except OSError:
            columns = WIDTH
    return {"width": max(40, min(120, int(columns) or WIDTH)), "person": True}


def _help(world, text):
    """Help for a person: section headings and flags coloured when colour is on."""
    if world.colour_out:
        from workbench.runtime import colour
        text = colour.help_text(text)
    return _show(world, False, None, text)


def _deliver_stream(program, world, doc, command=None) -> int:
    """An envelope under `--format ndjson`: the @meta line, its data as items, the @end line."""
    open_stream(program, world, command)
    count = 0
    if doc.get("ok") is True or doc.get("ok") == "partial":   # `doc` is sealed: masked
        data = doc.get("data")
        if doc["ok"] == "partial":   # the items that succeeded; @end lists the failed ones
            data = data.get("succeeded", [])
        for item in data if isinstance(data, list) else [data]:
            world.out(_envelope.encode(item) + "\n", masked=True)
            count += 1
    end = _envelope.stream_end(doc, count)
    world.out(_envelope.encode({"@end": end}) + "\n", masked=True)
    world.delivered = True
    return end["exit"]


def open_stream(program: Program, world: World, command: Command) -> None:
    """The @meta line that opens an ndjson stream, once (an `@progress` line may open it
    before the first item)."""
    if not world.stream_open:
        world.stream_open = True
        world.out_json({"@meta": _stream_head(program, command)})


def _stream_head(program, command) -> dict:
    """The @meta line: what the stream is and, for a command that takes or returns untrusted
    text, where that text may be (declared pointers into the data, untrusted inputs), before
    any item comes; the @end says where it was."""
    from workbench.declaration.capabilities import capabilities
    head = {"command": " ".join(command.path) if command is not None else None,
            "schema_version": program.schema_version,
            "format": "ndjson", "items": "one JSON value per line until the @end line",
            "capabilities": capabilities(program)}
    if command is not None and _untrusted(command):
        from workbench.runtime._agentic import declared_untrusted
        head["untrusted"] = declared_untrusted(command)
    return head


def reads_live(world: World, request: Request) -> bool:
    """Whether a person reads the handler's output as it is written (no --json, no ndjson,
    no in-process capture)."""
    return not (world.capture or request.json or world.ndjson)


def _invoke(program, command, request, world, debug):
    as_json = request.json
    ndjson = request.flags["format"] == "ndjson"
    if command.person_only:   # refused to an agent before anything runs (exit 13)
        from workbench.runtime._failures import person_only_refusal
        refused = person_only_refusal(program, command, world.environ)
        if refused is not None:
            return _deliver(program, world, refused, as_json)
    from workbench.runtime.context import Context   # a command runs (help never needs it)
    ctx = Context(program, command, request, world)
    if request.stdin_inputs and not world.dash_reads_stdin:
        _dash_as_literal(command, request)
    elif request.stdin_inputs:
        text = None
        for key in request.stdin_inputs:
            if text is None:
                try:
                    text = ctx.stdin()
                    text = text[:-1] if text.endswith("\n") else text
                except Refusal as refusal:
                    return _refuse(program, refusal, as_json, world)
            value = request.args[key]
            request.args[key] = [text if v == "-" else v for v in value] \
                if isinstance(value, list) else text
    claimed = _claim_key(program, command, request, world)
    try:
        if reads_live(world, request):
            if world.redactor:
                from workbench.runtime.capture import Masked
                with Masked(world.redactor, linger=world.seal):
                    return _handle(program, command, request, world, ctx, debug, None, claimed)
            return _handle(program, command, request, world, ctx, debug, None, claimed)
        from workbench.runtime.capture import Capture
        streams = world.stdout, world.stderr
        own = _fileno(world.stdout) == 1 or _fileno(world.stderr) == 2   # the process's own
        with Capture(seal=world.seal and own, redactor=world.redactor) as captured:
            if own:
                world.stdout, world.stderr = captured.real_stdout, captured.real_stderr
            try:
                return _handle(program, command, request, world, ctx, debug, captured, claimed)
            finally:
                world.stdout, world.stderr = streams
    finally:
        if claimed is not None and not isinstance(claimed, Fail):
            claimed.release()   # a no-op once finished


def _dash_as_literal(command, request) -> None:
    """A call with no standard input at all (MCP): `-` is the value itself, given as an
    argument, never a request to read stdin."""
    for key in request.stdin_inputs:
        position = next(index for index, argument in enumerate(command.arguments, 1)
                        if argument.key == key)
        request.provenance[key] = {"source": "argument", "location": position}
    request.stdin_inputs = []


def _claim_key(program, command, request, world):
    """The call's idempotency claim (None without a key; a dry run claims nothing), or the
    Fail it met, to be raised where failures become envelopes. Claimed before the handler's
    capture: waiting for another holder must not hold the process-wide capture lock, which
    would stall every other call of a server process meanwhile."""
    if not request.extras.get("idempotency_key") or request.extras.get("dry_run"):
        return None
    from workbench.runtime import _idempotency
    try:
        return _idempotency.claim(program, command, request, world.environ)
    except Fail as fail:
        return fail


def _fileno(stream):
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _handle(program, command, request, world, ctx, debug, captured, claimed):
    """Run the handler and deliver its envelope (or stream); `captured` holds what it wrote;
    `claimed` is `_claim_key`'s answer, released by the caller on every path that did not
    finish it (try/finally)."""
    from workbench.runtime.context import ActionRequired, Partial, PersonRequired
    as_json = request.json
    ndjson = request.flags["format"] == "ndjson"
    meta = {"provenance": request.provenance}
    if ctx.why is not None:
        meta["why"] = ctx.why
    claim = None
    declared = None   # what a Fail says it changed (`Fail(effects=...)`)
    text = command.text
    try:
        if isinstance(claimed, Fail):
            raise claimed
        if claimed is not None:
            claim = claimed
            if claim.replay is not None:
                doc = claim.replay
                claim = None
                return _deliver(program, world, doc, as_json, text=text)
        jq = _jq_filter(request, ctx) if request.flags["jq"] else None
        if request.flags["fields"] and command.output:   # a misspelt field refused first
            from workbench.runtime.fields import check_declared
            check_declared(command, request.flags["fields"], ctx.invocation())
        if request.prompts:
            ctx._ask_prompts()
        _setup(program, command, ctx)
        if command.self_scope is not None:   # before plan or run (issue 34)
            from workbench.runtime._agentic import check_scope
            check_scope(command, ctx)
        dry_run = bool(request.extras.get("dry_run"))
        if command.plan is not None and (dry_run or request.extras.get("expect_plan")):
            ctx.plan, digest = _plan(command, ctx)
            if dry_run:
                meta["dry_run"] = True
                data = {"plan": ctx.plan, "digest": digest}
                ctx.next(_without_flag(_without_flag(ctx.invocation(), "--dry-run",
                                                     valued=False),
                                       "--expect-plan") + ["--expect-plan", digest],
                         why="to apply this plan")
                return _deliver(program, world, _success(command, ctx, data, meta), as_json,
                                text=text)
            if digest != request.extras["expect_plan"]:
                raise Fail("plan_changed", "the plan changed since it was reviewed; nothing was "
                           "applied", hint="review the new plan, then apply it with its digest",
                           exit=5, fix=_without_flag(ctx.invocation(), "--expect-plan")
                           + ["--expect-plan", digest], plan=ctx.plan, digest=digest)
        ctx._began = True
        if command.adapter is not None:
            data = command.adapter.invoke(command, request, world)
        else:
            data = command.run(ctx)
        if request.flags["fields"] and not command.paginated and not isinstance(data, Partial):
            data = _selected(command, request, ctx, data)
        if jq is not None and hasattr(data, "__next__"):
            data = list(data)   # a filter reads the whole data: the stream is collected
        if hasattr(data, "__next__") or (ndjson and not command.paginated
                                         and not isinstance(data, Partial) and jq is None):
            if ndjson:
                return _stream(program, command, request, world, ctx, data, debug,
                               captured=captured)
            if not as_json and not command.paginated:
                return _print_stream(program, command, request, world, data)
            data = list(data)
        problem = _output_problem(command, data, world) if command.output else None
        if problem is not None:
            doc = _envelope.from_output_problem(problem)
        elif isinstance(data, Partial):
            doc = _partial(command, ctx, data, meta)
        elif command.paginated:
            doc, page = _page(program, command, request, ctx, data, meta)
            if ndjson:
                return _stream(program, command, request, world, ctx, iter(doc["data"]), debug,
                               page=page, captured=captured)
        else:
            doc = _success(command, ctx, data, meta)
        if jq is not None and doc.get("ok") is True:
            doc["data"] = jq(doc["data"])
            if ndjson and not command.paginated:
                return _stream(program, command, request, world, ctx, _items_of(doc["data"]),
                               debug, captured=captured)
        doc = _checked_result(doc)
    except Fail as fail:
        world.exc_info = _exc_info()
        doc = _from_fail(program, command, fail, output_mode(world, as_json))
        if request.warnings:
            doc["meta"] = {"warnings": list(request.warnings)}
        declared = fail.details.get("effects")
        if fail.next and doc["error"]["code"] == fail.code:
            doc = _fail_next(program, command, ctx, doc, fail.next, output_mode(world, as_json))
    except PersonRequired as person:
        doc = _person_required(program, command, ctx, person, output_mode(world, as_json))
    except ActionRequired as action:
        steps = action.next
        if _untrusted(command):   # as a success's next: never an untrusted value
            from workbench.runtime._agentic import clean_steps
            steps = clean_steps(command, ctx, steps)
        doc = _envelope.action_required(action.reason, action.message,
                                        _steps(program, command, steps,
                                               output_mode(world, as_json)))
    except Refusal as refusal:
        if not ctx._began:   # refused before the handler: nothing changed
            return _refuse(program, refusal, as_json, world)
        doc = _refusal(program, refusal, output_mode(world, as_json))
        claim = None   # not the call's result: the same key, fixed, runs it (caller releases)
    except PipeClosed:
        raise
    except KeyboardInterrupt:
        doc = _envelope.interrupted()
    except Terminated:
        doc = _envelope.terminated()
    except EOFError:
        doc = _envelope.failure("input_closed", "standard input closed while waiting for an "
                                "answer", exit=_envelope.EXIT_ACTION,
                                hint="pass the answer as a flag instead")
    except SystemExit as stop:   # the handler called sys.exit: still one envelope
        if captured is None:     # a person's terminal: the handler may end its own process
            if isinstance(stop.code, (int, type(None))):
                raise
            raise SystemExit(world.redact(str(stop.code))) from None   # Python prints it
        if stop.code not in (None, 0, False):
            world.exc_info = _exc_info()
        doc = _envelope.handler_exit(stop.code, meta)
    except BaseException as error:   # a handler bug (CancelledError too): exit 1, no traceback
        world.exc_info = _exc_info()
        if not world.catch:
            raise
        doc = _internal(error, debug, world)   # unless --debug, and a server keeps serving
    if doc.get("ok") is not True:   # a failure says what it changed (`_failures.settle`)
        from workbench.runtime._failures import settle
        settle(doc, command, ctx, declared)
    doc = _with_output(doc, captured, world, as_json or ndjson)
    doc = _seal(program, world, doc)
    if claim is not None:
        claim.finish(doc, _envelope.exit_code(doc))
    return _deliver(program, world, doc, as_json, text=text, sealed=True, command=command)


def _fail_next(program, command, ctx, doc, steps, mode) -> dict:
    """A `Fail(next=[...])`'s envelope with its runnable `next` (`runtime._failures`)."""
    from workbench.runtime._failures import next_steps, with_next
    warnings: list = []
    return with_next(doc, next_steps(program, command, steps, mode, ctx.invocation(),
                                     warnings), warnings)


def _person_required(program, command, ctx, person, mode) -> dict:
    """`ctx.person_required(...)` as the exit-13 envelope, its `next` runnable."""
    from workbench.runtime._failures import next_steps, with_next
    warnings: list = []
    steps = next_steps(program, command, person.next, mode, ctx.invocation(), warnings)
    return with_next(_envelope.person_required(person.reason, person.message, person.how,
                                               steps), [], warnings)


def _selected(command, request, ctx, data):
    """The handler's data with only the `--fields` asked (`workbench.runtime.fields`); a
    refusal says the command ran (as `--jq`'s does): only a declared schema is checked first."""
    from workbench.runtime import fields
    if hasattr(data, "__next__"):
        return fields.select_stream(command, data, request.flags["fields"], ctx.invocation())
    try:
        return fields.select(command, data, request.flags["fields"], ctx.invocation())
    except Refusal as refusal:
        refusal.message = "the command ran, and " + refusal.message
        raise


def _jq_filter(request, ctx):
    """`--jq EXPR` compiled before the handler runs (a missing extra or a bad expression
    changes nothing): a function of the data, giving its one result or a list of several."""
    from workbench.runtime.extras import require
    require("jq", "--jq")
    import jq
    expression = request.flags["jq"]
    try:
        compiled = jq.compile(expression)
    except ValueError as error:
        raise Refusal("invalid_jq", f"--jq {expression!r} is not a jq expression: "
                      f"{_first_line(error)}", hint="see https://jqlang.org/manual/",
                      fix=ctx.invocation() + ["--jq", "."]) from None

    def apply(data):
        try:
            results = compiled.input_value(data).all()
        except ValueError as error:
            raise Refusal("jq_failed", f"the command ran, and --jq {expression!r} failed on "
                          f"its data: {_first_line(error)}",
                          hint="try --jq . to see the data it reads",
                          fix=ctx.invocation() + ["--jq", "."]) from None
        return results[0] if len(results) == 1 else results
    return apply


def _first_line(error) -> str:
    return str(error).strip().split("\n")[0]


def _items_of(data) -> list:
    return data if isinstance(data, list) else [data]


def _exc_info() -> tuple:
    import sys
    return sys.exc_info()


def _setup(program, command, ctx) -> None:
    """Run the `setup` of the program, then of each group above the command, outermost
    first: what they put in `ctx.obj` the handler reads."""
    node = program
    nodes = [program]
    for name in command.path[:-1]:
        from workbench.declaration.model import child_named
        node = child_named(node, name)
        if node is None:
            break
        nodes.append(node)
    for node in nodes:
        setup = getattr(node, "setup", None)
        if setup is not None:
            setup(ctx)


def _output_problem(command, data, world):
    """Under BURGEE_VALIDATE=1 (the workbench always sets it), data that breaks the declared
    output schema is the `invalid_output` error; else None. Costs a jsonschema import."""
    from workbench.runtime.context import Partial
    from workbench.surfaces.output import output_problem, validation_asked
    if isinstance(data, Partial) or not validation_asked(world.environ):
        return None
    from workbench.runtime.extras import require
    require("validate", "BURGEE_VALIDATE=1 (checking output against its schema)")
    return output_problem(command, data)


def _checked_result(doc) -> dict:
    """The envelope, or `invalid_result` when the handler's data is not JSON."""
    try:
        _envelope.encode(doc)
    except (TypeError, ValueError, RecursionError) as error:
        return _invalid_result(error)
    return doc


def _invalid_result(error) -> dict:
    """The `invalid_result` envelope for data the encoder refused with `error`."""
    return _envelope.failure(
        "invalid_result", str(error) if isinstance(error, TypeError) else
        f"the handler returned data that is not JSON ({error})", exit=_envelope.EXIT_FAILURE,
        hint="return dicts, lists, strings, finite numbers, booleans or None")


def _with_output(doc, captured, world, as_data):
    """Put what the handler wrote into `meta.output` (for a JSON caller), or print it first
    (a person, in-process): never lost, never mixed into the envelope's line."""
    if captured is None:
        return doc
    output = captured.output()
    if not output:
        return doc
    if as_data:
        doc.setdefault("meta", {})["output"] = output
    else:
        if output.get("stdout"):
            world.out(output["stdout"])
        if output.get("stderr"):
            world.err(output["stderr"])
    return doc


def _from_fail(program, command, fail, as_json) -> dict:
    fix = runnable(program, fail.fix, as_json, command) if fail.fix else None
    return _envelope.from_fail(fail, fix, checked=command is None or command.adapter is None)


def _internal(error, debug, world):
    if debug:
        import traceback
        world.err(traceback.format_exc())
    return _envelope.internal(error, debug)


def _partial(command, ctx, result, meta) -> dict:
    for item in result.failed:
        item.setdefault("code", "failed")
        item.setdefault("retryable", False)
    data = {"succeeded": result.succeeded, "failed": result.failed}
    doc = _success(command, ctx, data, meta)
    if result.failed and result.succeeded:
        doc = {"ok": "partial", "data": data, "meta": doc["meta"]}
    elif result.failed:
        doc = {"ok": False, "data": data,
               "error": _envelope.error_body("all_failed", f"all {len(result.failed)} items "
                                             "failed", 1, hint="see data.failed for each error"),
               "meta": doc["meta"]}
    return doc


def _page(program, command, request, ctx, data, meta):
    from workbench.runtime._paging import paginate
    as_json = request.json
    items, page, next_tokens, truncated = paginate(program, command, request, data,
                                                   ctx.agent, ctx.invocation())
    doc = _success(command, ctx, items, meta)
    if ctx._total is not None:
        page["total"] = ctx._total
    extra = {"page": page}
    if next_tokens:
        mode = output_mode(ctx._world, as_json)
        extra["next"] = [{"command": runnable(program, next_tokens, mode, command),
                          "when": "for the next page"}]
    if doc.get("next"):
        extra["next"] = extra.get("next", []) + doc["next"]
    if truncated:
        truncated["next"] = extra["next"][0]["command"]
        doc["meta"]["truncated"] = truncated
    return {"ok": True, "data": items, **extra, "meta": doc["meta"]}, extra


def _success(command, ctx, data, meta) -> dict:
    meta = dict(meta)
    if command.effects == "idempotent" and not meta.get("dry_run"):
        meta["changed"] = True if ctx._changed is None else ctx._changed
    if ctx._request.warnings:
        meta["warnings"] = list(ctx._request.warnings)
    if _untrusted(command):   # meta.untrusted; `next` never carries it (issue 34)
        from workbench.runtime._agentic import mark_untrusted
        mark_untrusted(command, ctx, data, meta)
    doc = _envelope.success(data, meta)
    if ctx._next:
        doc = {"ok": True, "data": data, "next": _suggested(command, ctx), "meta": meta}
    return doc


def _suggested(command, ctx) -> list:
    """`ctx.next(...)` as runnable `next` entries (program name, the caller's mode); an
    untrusted value never in them (`_agentic.clean_steps`)."""
    steps = ctx._next
    if _untrusted(command):
        from workbench.runtime._agentic import clean_steps
        steps = clean_steps(command, ctx, steps)
    return _steps(ctx.program, command, steps, output_mode(ctx._world, ctx._request.json))


def _untrusted(command) -> bool:
    """Whether `command` takes or returns untrusted text (an `Option(untrusted=True)`, or
    `x-burgee-untrusted` in its output schema); computed once per command."""
    known = command.__dict__.get("_marks_untrusted")
    if known is None:
        known = any(option.untrusted for option in command.options.values())
        if not known and command.output is not None:
            from workbench.declaration._agentic import untrusted_paths
            known = bool(untrusted_paths(command.output))
        command._marks_untrusted = known
    return known


def _steps(program, command, steps, as_json):
    out = []
    for step in steps:
        entry = {"command": runnable(program, step["command"], as_json, command)}
        entry.update({k: v for k, v in step.items() if k != "command"})
        out.append(entry)
    return out


def _plan(command, ctx):
    import hashlib
    plan = command.plan(ctx)
    digest = hashlib.sha256(_envelope.encode(plan).encode()).hexdigest()[:16]
    return plan, digest


def _without_flag(tokens, flag, valued=True):
    """`tokens` without `flag` (and the value after it, when `valued`) in any spelling."""
    out, skip = [], False
    for token in tokens:
        if skip:
            skip = False
        elif token == flag:
            skip = valued
        elif not token.startswith(flag + "="):
            out.append(token)
    return out


def _stream(program, command, request, world, ctx, items, debug, page=None, captured=None):
    """`--format ndjson`: an @meta line, one line per item, an @end line (count, exit, next)."""
    from workbench.runtime.context import ActionRequired, PersonRequired
    encode = _envelope.encode
    open_stream(program, world, command)
    count = 0
    doc = declared = None
    whole = not hasattr(items, "__next__") and not isinstance(items, list)   # one object
    if whole:
        items = [items]
    marks: dict | None = {} if _untrusted(command) else None   # the @end's `untrusted`
    try:
        for item in items:
            try:   # encoded once: the check that it is JSON is the line itself
                line = encode(world.redactor.value(item))
            except (TypeError, ValueError, RecursionError) as error:
                doc = _invalid_result(error)
                break
            if marks is not None:   # pointers into the whole data, as an envelope's
                from workbench.runtime._agentic import mark_untrusted
                mark_untrusted(command, ctx, item if whole else [item], marks)
            world.out(line + "\n", masked=True)
            count += 1
    except PipeClosed:
        raise
    except KeyboardInterrupt:   # the tail still says how it ended
        doc = _envelope.interrupted()
    except Terminated:
        doc = _envelope.terminated()
    except SystemExit as stop:
        doc = _envelope.handler_exit(stop.code, {})
        if doc["ok"] is True:
            doc = None
    except Fail as fail:
        doc = _from_fail(program, command, fail, output_mode(world, True))
        declared = fail.details.get("effects")
        if fail.next and doc["error"]["code"] == fail.code:
            doc = _fail_next(program, command, ctx, doc, fail.next, output_mode(world, True))
    except PersonRequired as person:
        doc = _person_required(program, command, ctx, person, output_mode(world, True))
    except ActionRequired as action:
        doc = _envelope.action_required(action.reason, action.message,
                                        _steps(program, command, action.next,
                                               output_mode(world, True)))
    except Refusal as refusal:
        doc = _refusal(program, refusal, output_mode(world, True))
    except BaseException as error:   # as in _handle_held
        doc = _internal(error, debug, world)
    if doc:
        from workbench.runtime._failures import settle
        settle(doc, command, ctx, declared)
    closing = doc if doc else {"ok": True}
    if marks:
        closing["meta"] = {**closing.get("meta", {}), **marks}
    end = _envelope.stream_end(closing, count)
    output = captured.output() if captured is not None else None
    if output:
        end["output"] = output
    if page:
        end["page"] = page["page"]
        if page.get("next"):
            end["next"] = page["next"]
    elif ctx._next and end["ok"] is True:   # a page's `next` holds them already
        end["next"] = _suggested(command, ctx)
    if request.warnings:
        end["warnings"] = list(request.warnings)
    world.out_json({"@end": end})
    world.delivered = True
    return end["exit"], None


def _print_stream(program, command, request, world, items):
    """A person reading a stream: each item as it arrives (control characters escaped)."""
    from workbench._text import escape_controls
    count = 0
    tsv = world.tsv and command.text is None
    neutral = None
    if _untrusted(command):   # untrusted fields of each item, as in a whole envelope
        from workbench.runtime._agentic import neutralised
        neutral = lambda item: neutralised(command, {"data": [item]})["data"][0]  # noqa: E731
    try:
        for item in items:
            if neutral is not None:
                item = neutral(item)
            if tsv:   # a header row from the first object's field names, then its rows
                text = _envelope.tsv_row(item)
                if count == 0 and isinstance(item, dict):
                    text = "\t".join(_envelope.tsv_cell(key) for key in item) + "\n" + text
            else:
                text = command.text(item) if command.text is not None else \
                    _envelope.one_line(item)
            world.out(escape_controls(text) + "\n")
            count += 1
    except Fail as fail:
        world.err(f"stopped after {count} items\n")
        return _deliver(program, world, _from_fail(program, command, fail, []), False)
    except Refusal as refusal:
        return _refuse(program, refusal, False, world)
    return 0, None
