"""`ctx`, what a handler receives: inputs, who is calling, and ways to ask without waiting."""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers and the reference read it
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any, Generic, NoReturn

    from typing_extensions import TypeVar

    from workbench.declaration.model import Command, Program
    from workbench.runtime.parser import Request, Values

    OptionsT = TypeVar("OptionsT", default=Values)
    """The type `ctx.options` has: `Context[DeployOptions]` (a Protocol or class of
    attributes) for editors and checkers; plain `Context` is `Values` (any key, Any)."""
else:
    class Generic:
        """Run-time stand-in for `typing.Generic` (typing stays off start-up): `Context[T]`
        in a handler's hint is `Context`."""

        def __class_getitem__(cls, item):
            return cls
    OptionsT = None

AGENT_VARIABLES = (("AI_AGENT", None), ("CLAUDECODE", "claude-code"), ("CURSOR_AGENT", "cursor"),
                   ("CODEX_THREAD_ID", "codex"), ("GEMINI_CLI", "gemini"),
                   ("COPILOT_AGENT", "copilot"))
"""Environment variables that name an agent, in the order they are checked."""

AGENT_OVERRIDE = "BURGEE_AGENT"
"""`on`, `off` or `auto` (the default): overrides the detection both ways; any other value
names the agent, as `AI_AGENT` does."""

AGENT_MARKERS = (AGENT_OVERRIDE,) + tuple(variable for variable, _ in AGENT_VARIABLES)
"""Every variable that decides `ctx.agent` (what a simulated environment clears)."""

SESSION_VARIABLES = ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "TRACEPARENT")
"""Variables a harness sets to name the session (or trace) a call belongs to: `ctx.session`
holds the ones set, by name."""


def session_of(environ: Mapping[str, str]) -> dict[str, str]:
    """`ctx.session`: each of `SESSION_VARIABLES` that is set, name -> value."""
    return {name: environ[name] for name in SESSION_VARIABLES if environ.get(name)}


def detect_agent(environ: Mapping[str, str]) -> str | None:
    """Who is calling: `BURGEE_AGENT` when it says (`off`: nobody; `on`: the detected agent,
    else "agent"; any other word: that name), else the first agent variable set (AI_AGENT's
    value, or a fixed name)."""
    override = (environ.get(AGENT_OVERRIDE) or "").strip()
    if override.lower() in ("off", "0", "false", "no"):
        return None
    for variable, name in AGENT_VARIABLES:
        value = environ.get(variable)
        if value:
            return name or value
    if override.lower() in ("on", "1", "true", "yes"):
        return "agent"
    if override and override.lower() != "auto":
        return override
    return None


def stdin_wait(environ: Mapping[str, str], agent: str | None) -> float | None:
    """Seconds to wait for more standard input before giving up: BURGEE_STDIN_TIMEOUT
    (default 10) under an agent or CI; None (wait for the end) for a person."""
    if agent is None and not _truthy(environ.get("CI")):
        return None
    try:
        return float(environ.get("BURGEE_STDIN_TIMEOUT", "10"))
    except ValueError:
        return 10.0


def read_stream(stream: Any, wait: float | None, limit: int | None = None) -> str | None:
    """All of `stream` as text (at most `limit` characters when given); None when nothing
    more arrived for `wait` seconds and it was not closed (`wait` None: no time limit)."""
    try:
        fd = stream.fileno() if wait is not None else None
    except (AttributeError, OSError, ValueError):
        fd = None     # an in-memory stream: it cannot block
    if fd is None:
        return stream.read() if limit is None else stream.read(limit)
    import os
    import select
    chunks: list[bytes] = []
    size = 0
    while limit is None or size < limit:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return b"".join(chunks).decode(encoding, "surrogateescape")


def _truthy(value) -> bool:
    return bool(value) and value.lower() not in ("0", "false", "no", "off")


def is_interactive(environ: Mapping[str, str], stdout_tty: bool, agent: str | None) -> bool:
    """`FORCE_TTY=1`, or a terminal on stdout with no agent."""
    return environ.get("FORCE_TTY") == "1" or (stdout_tty and agent is None)


def _real_file(stream) -> bool:
    try:
        stream.fileno()
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _with_flag(tokens: list, option) -> list:
    """`tokens` answering yes with `option`'s flag: any spelling of it already there (`--no-yes`,
    `--yes=false`) taken out, the flag put before a `--`."""
    head_end = tokens.index("--") if "--" in tokens else len(tokens)
    head = [token for token in tokens[:head_end]
            if token.partition("=")[0] not in option.spellings]
    return head + [option.flag] + tokens[head_end:]


class ActionRequired(Exception):
    """Raised by `ctx.action_required`; becomes the exit-4 envelope."""

    def __init__(self, reason: str, message: str, next: Iterable[dict[str, Any]] = ()):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.next: list[dict[str, Any]] = list(next)


class PersonRequired(Exception):
    """Raised by `ctx.person_required` (and for a `person_only` command an agent calls):
    becomes the exit-13 envelope."""

    def __init__(self, reason: str, message: str, how: str,
                 next: Iterable[dict[str, Any]] = ()):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.how = how
        self.next: list[dict[str, Any]] = list(next)


class Partial:
    """What `ctx.partial(succeeded, failed)` returns: a batch where some items failed.

    Some of each gives `"ok": "partial"` and exit 8; all failed gives `"ok": false` with
    code `all_failed`; none failed is a plain success.

    Attributes:
        succeeded: the items that succeeded (the envelope's `data.succeeded`).
        failed: one dict per failed item, with `item`, `code`, `message` and `retryable`.
    """

    def __init__(self, succeeded: Iterable[Any], failed: Iterable[Mapping[str, Any]]):
        self.succeeded: list[Any] = list(succeeded)
        self.failed: list[dict[str, Any]] = [dict(item) for item in failed]


class Context(Generic[OptionsT]):
    """What a handler gets as `ctx`: its inputs, who is calling, and ways to ask without waiting.

        def deploy(ctx):
            if not ctx.options.yes and not ctx.interactive:
                ctx.action_required("confirm", f"deploying to {ctx.options.target} needs "
                                    "confirmation", next=[{"command": "deploy --yes"}])
            return {"target": ctx.options.target, "agent": ctx.agent}

    The runtime builds it; a handler never constructs one.

    Attributes:
        program: the `Program` being run.
        command: the `Command` being run.
        options: the options by key, read as attributes (`ctx.options.target`) or as a
            mapping (`dict(ctx.options)`); an option not given is its default or None.
        args: the positional arguments by key, the same way (`ctx.args.text`).
        json: whether the caller asked for `--json` (or calls over MCP).
        agent: the coding agent calling (`"claude-code"`, `"cursor"`, `"codex"`, `"gemini"`,
            or `AI_AGENT`'s value), detected from the environment; None for no agent.
        interactive: a person at a terminal (`FORCE_TTY=1`, or a terminal on stdout and no
            agent). When False, nobody can answer a question: use `action_required`.
        environ: the environment of this call (the process's, or the simulated one).
        plan: the checked plan, for a command declared with `plan=`; else None.
        session: the harness's session ids that are set, by variable name
            (`{"CLAUDE_CODE_SESSION_ID": "...", "TRACEPARENT": "00-..."}`; `{}` when none):
            to tie what a call does to the agent session that asked.
        obj: anything the program's or a group's `setup(ctx)` put there for the handler
            (Click's `ctx.obj`); None until one does.
    """

    def __init__(self, program: Program, command: Command, request: Request, world: Any):
        self.program = program
        self.command = command
        # `OptionsT` is the declared view of these Values (a Protocol or class of the options)
        self.options: OptionsT = request.options   # type: ignore[assignment]
        self.args: Values = request.args
        self.json: bool = request.json
        self.agent: str | None = detect_agent(world.environ)
        self.interactive: bool = is_interactive(world.environ, world.stdout_tty, self.agent)
        self.environ: Mapping[str, str] = world.environ
        self._request = request
        self._world = world
        self._changed: bool | None = None
        self._next: list = []      # `ctx.next(...)`: what to run after this success
        self._total: int | None = None   # `ctx.total(n)`: items in all, for a paginated list
        self._stdin_text: str | None = None
        self.plan: Any = None   # the plan this call was checked against (with `plan=`)
        self.obj: Any = None    # what a `setup(ctx)` left for the handler
        self.why: str | None = request.extras.get("why")   # `--why TEXT` (commands with `why=`)
        self._steps: list = []     # `ctx.step(...)`: what this call has done so far
        self._began = False        # the handler (run) was called: a failure may have effects

    @property
    def session(self) -> dict[str, str]:
        """The harness session ids set for this call (`SESSION_VARIABLES`), by name."""
        return session_of(self.environ)

    @property
    def can_prompt(self) -> bool:
        """True only when a person can answer: interactive, a terminal on stdin, not CI, and
        not asked for data (`--json`, MCP): a JSON caller's stderr stays empty, and a
        question becomes `action_required` or `input_required` with the flag to pass."""
        return (self.interactive and self._world.stdin_tty and self._world.stdin is not None
                and not self.json and not _truthy(self.environ.get("CI")))

    def action_required(self, reason: str, message: str,
                        next: Sequence[dict[str, Any]] = ()) -> NoReturn:
        """Stop with exit 4: `next` lists runnable commands, e.g. `[{"command": "deploy --yes", "when": "..."}]`.

        Args:
            reason: why, as a code (`confirm`, `choose_target`): the envelope's `reason`.
            message: one sentence on what needs deciding.
            next: the commands that go on once it is decided, each `{"command": ...,
                "when": ...}`; a command is the line after the program name (printed
                runnable, with `--json` when the caller used it).
        """
        raise ActionRequired(reason, message, next)

    def confirm(self, message: str, flag: str = "yes", default: bool = False) -> bool:
        """Ask yes/no when a person can answer; otherwise stop with exit 4 and a `next` that adds `--FLAG`.

        Args:
            message: the question (`deploy to prod?`).
            flag: the key of the command's boolean option that answers yes in advance; without
                such an option the call is refused (exit 2) naming the option to declare.
            default: the answer when the person just presses Enter.
        """
        option = self.command.options.get(flag)
        answered = option is not None and option.type == "boolean" and \
            self._request.options.get(option.key) is True
        if answered:            # `--yes` given: confirmed in advance, nobody is asked
            return True
        if self.can_prompt:
            answer = self._ask(f"{message} [{'Y/n' if default else 'y/N'}] ")
            if not answer:
                return default
            return answer.strip().lower() in ("y", "yes")
        if option is not None and option.type == "boolean":
            argv = _with_flag(self.invocation(), option)
            raise ActionRequired("confirm", message + f" (nobody can confirm here; pass {option.flag})",
                                 [{"command": argv, "when": "once the change is what you want"}])
        from workbench.runtime.parser import Refusal
        raise Refusal("confirmation_unavailable",
                      f"{message}: nobody can confirm here and '{' '.join(self.command.path)}' "
                      f"has no --{flag.replace('_', '-')} flag",
                      hint=f"declare Option(type='boolean') named {flag!r} on the command",
                      fix=self.invocation())

    def prompt(self, message: str, option: str | None = None, default: object = None,
               secret: bool = False) -> object:
        """Ask for a value when a person can answer; otherwise refuse (exit 2) naming the flag to pass.

        Args:
            message: what to ask for (`your name`).
            option: the key of the option that gives the value instead; the refusal's fix adds
                its flag.
            default: the value when the person just presses Enter, and when nobody can answer.
            secret: do not echo what is typed.
        """
        if self.can_prompt:
            answer = self._ask(f"{message}{f' [{default}]' if default is not None else ''}: ",
                               secret)
            return answer if answer else default
        if default is not None:
            return default
        declared = self.command.options.get(option) if option else None
        flag = declared.flag if declared else "--" + (option or "value").replace("_", "-")
        metavar = declared.metavar if declared else "<value>"
        from workbench.runtime.parser import Refusal
        raise Refusal("input_required", f"{message}: nobody can answer a prompt here; pass {flag}",
                      hint=f"add {flag} {metavar}", fix=self.invocation() + [flag, metavar],
                      field=declared.key if declared else option)

    def _ask_prompts(self) -> None:
        """Fill the options declared with `prompt=` the call did not give
        (`workbench.runtime._prompts`)."""
        from workbench.runtime._prompts import ask_prompts
        ask_prompts(self)

    def _ask(self, text: str, secret: bool = False) -> str:
        world = self._world
        if secret and _real_file(world.stdin):   # in-memory stdin (a test): read it plainly
            import getpass
            return getpass.getpass(text, stream=world.stderr)
        world.stderr.write(text)
        world.stderr.flush()
        line = world.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    def progress(self, done: float, total: float | None = None,
                 message: str | None = None) -> None:
        """Report progress: a bar for a person at a terminal, JSON lines on stderr for an agent
        there or under `--progress`, `@progress` lines in the stream under `--format ndjson`;
        throttled.

        Over MCP it is a progress notification (when the client asked for them). The first and
        the final report always go out; between them one every 0.04 s (MCP: reports 50 ms
        apart all reach the client), 1 s (ndjson) or 2 s (stderr).

        Args:
            done: how much is done, in any unit.
            total: how much there is in all, when known.
            message: a short line on what is happening now (masked like all output).
        """
        self._world.progress(self, done, total, message)

    def partial(self, succeeded: Sequence[object], failed: Sequence[dict[str, Any]]) -> Partial:
        """Return this from a batch handler: `failed` items are dicts with `item`, `code`,
        `message` and `retryable`. Some of each gives `"ok":"partial"` and exit 8.

            return ctx.partial([{"sku": "A", "count": 3}],
                               [{"item": "B=x", "code": "invalid_count",
                                 "message": "'x' is not a whole number", "retryable": False}])
        """
        return Partial(succeeded, failed)

    def changed(self, value: bool = True) -> None:
        """Say whether an idempotent command changed anything (`meta.changed`).

        Without it every call of an `idempotent` command reports `changed: true`; a call that
        found everything already as asked should say `ctx.changed(False)`."""
        self._changed = bool(value)

    def next(self, command: str | Sequence[str], why: str) -> None:
        """Suggest what to run after this success: the envelope's `next`, and a `next:` line
        for a person. Runnable as printed: the program's name in front and the caller's
        output mode (`--json`, `--format ndjson`) carried.

            ctx.next(["items", "show", sku], why="to see the item")

        Args:
            command: the command line after the program name (a string or argv list).
            why: when or why to run it (the entry's `when`).
        """
        self._next.append({"command": command, "when": why})

    def total(self, count: int) -> None:
        """How many items there are in all, for a paginated list: the page's `total`, and
        "50 of 120" for a person (on stderr, piped too)."""
        self._total = int(count)

    def stdin(self) -> str:
        """Standard input as text (read once). Empty when stdin is closed."""
        if self._stdin_text is None:
            stream = self._world.stdin
            if stream is None:
                self._stdin_text = ""
            elif self._world.stdin_tty and not self.can_prompt:
                from workbench.runtime.parser import Refusal
                raise Refusal("stdin_required", "this command reads standard input, and "
                              "nothing was piped in", hint="pipe the input: ... | "
                              + " ".join(self.invocation()) + ", or pass it as an argument "
                              "instead of '-'", fix=self._dash_as_slot())
            else:
                self._stdin_text = self._read_stdin(stream)
        return self._stdin_text

    def _read_stdin(self, stream) -> str:
        """All of stdin; under an agent or CI, give up (exit 2, with a fix) when nothing more
        arrives for BURGEE_STDIN_TIMEOUT seconds (default 10): an open, silent pipe must not
        hang a caller that is not there."""
        wait = stdin_wait(self.environ, self.agent)
        text = read_stream(stream, wait)
        if text is None:
            from workbench.runtime.parser import Refusal
            raise Refusal("stdin_timeout", f"nothing arrived on standard input for {wait:g} s, "
                          "and it was not closed",
                          hint="pipe the input and close it (printf '...' | "
                               f"{self.program.name} {' '.join(self.invocation())}), or "
                               "pass it as an argument instead of '-'",
                          fix=self._dash_as_slot())
        return text

    def _dash_as_slot(self) -> list:
        """This call with its `-` (read stdin) replaced by the slot of the input it gives."""
        stdin = next((a for a in self.command.arguments if a.stdin), None)
        slot = stdin.metavar if stdin is not None else "<text>"
        return [slot if token == "-" else token for token in self.invocation()]

    def verdict(self, passed: bool, details: object = None,
                message: str | None = None) -> dict[str, Any]:
        """The answer of a judging read (`Command(verdict=True)`): `return ctx.verdict(ok, found)`.

        Passed: the data `{"passed": true, "details": details}`, exit 0. Failed: the
        `check_failed` failure (exit 11) with the same data beside the error, so a caller
        reads what was found either way.

        Args:
            passed: whether what was checked is as it should be.
            details: what the check found (JSON), e.g. the problems it listed.
            message: one sentence for a failed verdict (default: "the check failed").
        """
        if not self.command.verdict:
            raise TypeError(f"ctx.verdict() in '{' '.join(self.command.path)}', which is not "
                            "declared Command(verdict=True); declare it so help lists exit 11")
        data = {"passed": bool(passed), "details": details}
        if passed:
            return data
        from workbench.declaration.model import Fail
        from workbench.runtime.envelope import EXIT_CHECK_FAILED
        raise Fail("check_failed", message or "the check failed", exit=EXIT_CHECK_FAILED,
                   retryable=False,
                   effects="none", data=data)

    def person_required(self, reason: str, message: str, how: str,
                        next: Sequence[dict[str, Any]] = ()) -> NoReturn:
        """Stop with exit 13: a step only a person can take (a login, a payment, a review).

        Args:
            reason: why, as a code (`login`, `approval`): the envelope's `reason`.
            message: one sentence on what is needed.
            how: what the person does, e.g. "run `tool login` in a terminal".
            next: the calls that ask the person or go on once they have acted, each
                `{"command": ..., "why": ...}` (never this same call again: that would loop).
        """
        raise PersonRequired(reason, message, how, next)

    def limit_reached(self, message: str, data: object, next: Sequence[dict[str, Any]] = (),
                      limit: object = None) -> NoReturn:
        """Stop with exit 14 at a limit the caller set, keeping the best result so far.

        Args:
            message: one sentence: which limit stopped it.
            data: the best result so far (the envelope's `data`).
            next: the call that continues with a larger limit, `{"command": ..., "why": ...}`.
            limit: the limit that was reached (the error's `limit`).
        """
        from workbench.declaration.model import Fail
        from workbench.runtime.envelope import EXIT_LIMIT
        raise Fail("limit_reached", message, exit=EXIT_LIMIT, retryable=False, next=next,
                   data=data, limit=limit)

    def step(self, done: str, **details: object) -> None:
        """Report a step that changed something: a failure after it says `effects: partial`
        and lists the steps (`error.steps`), so a caller knows what to undo or skip.

            ctx.step("uploaded", file=name)
        """
        self._steps.append({"done": done, **details})

    def invocation(self) -> list[str]:
        """This call's argv after the program name (sensitive values masked), for `next`/`fix`."""
        return list(self.command.words) + list(self._request.tokens)
