"""argv -> envelope -> exit code: the one pipeline every transport runs.

`run(program)` is the process entry point; `call(program, argv)` runs the same pipeline
in-process with captured streams (the MCP server and tests use it).
"""

from __future__ import annotations

import os
import sys

from workbench import envelope as _envelope
from workbench.context import ActionRequired, Context
from workbench.model import Fail
from workbench.parser import Refusal, parse

_DEBUG_HINT = "run again with --debug to see the traceback"


class _PipeClosed(Exception):
    """The reader closed stdout."""


class World:
    """Where a call runs: environment, streams, and whether each stream is a terminal."""

    def __init__(self, environ, stdin, stdout, stderr, stdin_tty=False, stdout_tty=False):
        self.environ = environ
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.stdin_tty = stdin_tty
        self.stdout_tty = stdout_tty
        self.secrets: list[str] = []
        self.progress_lines = False
        self._last_progress = None

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, "***")
        return text

    def out(self, text: str) -> None:
        try:
            self.stdout.write(self.redact(text))
            self.stdout.flush()
        except BrokenPipeError:
            raise _PipeClosed from None

    def err(self, text: str) -> None:
        try:
            self.stderr.write(self.redact(text))
            self.stderr.flush()
        except BrokenPipeError:
            pass

    def progress(self, ctx, done, total, message) -> None:
        if not self.progress_lines:
            return
        import time
        now = time.monotonic()
        final = total is not None and done >= total
        if self._last_progress is not None and now - self._last_progress < 2.0 and not final:
            return
        self._last_progress = now
        record = {"progress": {"command": " ".join(ctx.command.path), "done": done}}
        if total is not None:
            record["progress"]["total"] = total
        if message:
            record["progress"]["message"] = message
        self.err(_envelope.encode(record) + "\n")


class Outcome:
    """The result of `call`: exit code, captured stdout/stderr, and the envelope (under --json)."""

    __slots__ = ("exit", "stdout", "stderr", "envelope")

    def __init__(self, exit, stdout, stderr, envelope):
        self.exit = exit
        self.stdout = stdout
        self.stderr = stderr
        self.envelope = envelope

    def __repr__(self) -> str:
        return f"Outcome(exit={self.exit}, stdout={self.stdout[:60]!r}, stderr={self.stderr[:60]!r})"


def run(program, argv=None):
    """Parse `argv` (default `sys.argv[1:]`), run, print, and exit with the contract's code."""
    if argv is None:
        argv = sys.argv[1:]
    world = World(os.environ, sys.stdin, sys.stdout, sys.stderr,
                  stdin_tty=_isatty(sys.stdin), stdout_tty=_isatty(sys.stdout))
    code = execute(program, argv, world)[0]
    if code == _envelope.EXIT_PIPE:
        try:   # Python would complain flushing a closed pipe at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    sys.exit(code)


def call(program, argv, *, environ=None, stdin=None) -> Outcome:
    """Run argv in-process with captured streams, exactly as the CLI would (no terminal)."""
    import io
    out, err = io.StringIO(), io.StringIO()
    world = World(dict(os.environ if environ is None else environ),
                  io.StringIO(stdin) if stdin is not None else None, out, err)
    code, doc = execute(program, list(argv), world)
    return Outcome(code, out.getvalue(), err.getvalue(), doc)


def _isatty(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False


def execute(program, argv, world):
    """The pipeline: returns (exit code, envelope or None). Never raises for bad input."""
    head = argv[:argv.index("--")] if "--" in argv else argv
    as_json = "--json" in head
    debug = "--debug" in head
    world.progress_lines = "--progress" in head or (not as_json and world.stdout_tty)
    try:
        try:
            request = parse(program, argv, world.environ)
        except Refusal as refusal:
            return _refuse(program, refusal, as_json, world, None)
        world.secrets = _secrets(request)
        if request.builtin:
            return _builtin(program, request, world)
        if request.flags["version"] and request.command is None:
            return _show(world, as_json, {"name": program.name, "version": program.version},
                         f"{program.name} {program.version}")
        if request.command is None:
            return _describe_node(program, request, world)
        command = request.command
        if request.flags["help"]:
            from workbench.surfaces import cards, help
            if as_json:
                return _show(world, True, cards.card(command), None)
            return _show(world, False, None, help.render_help(program, command))
        if request.flags["schema"]:
            from workbench.surfaces.schema import input_schema
            return _show(world, True, input_schema(command), None)
        return _invoke(program, command, request, world, debug)
    except _PipeClosed:
        return _envelope.EXIT_PIPE, None
    except KeyboardInterrupt:
        doc = _envelope.failure("interrupted", "interrupted", exit=_envelope.EXIT_INTERRUPTED)
        try:
            _emit(world, doc, as_json)
        except _PipeClosed:
            pass
        return _envelope.EXIT_INTERRUPTED, doc


def _show(world, as_json, data, text):
    if as_json:
        world.out(_envelope.encode(data) + "\n")
    else:
        world.out(text if text.endswith("\n") else text + "\n")
    return 0, None


def _describe_node(program, request, world):
    """A program or group with no command: help (or the program's schema)."""
    node = request.node
    if request.flags["schema"]:
        from workbench.surfaces.schema import program_schema
        return _show(world, True, program_schema(program), None)
    if request.json:
        from workbench.surfaces import cards
        doc = cards.help_document(program, "summary") if node is program else \
            cards.group_document(program, node)
        return _show(world, True, doc, None)
    from workbench.surfaces import help
    return _show(world, False, None, help.render_help(program, None if node is program else node))


def _builtin(program, request, world):
    name, rest, as_json = request.builtin, request.rest, request.json
    if name == "help":
        return _help_builtin(program, request, world)
    if name == "completion":
        shells = ("bash", "zsh", "fish")
        if len(rest) != 1 or rest[0] not in shells:
            from workbench._text import nearest
            given = rest[0] if rest else None
            close = nearest(given, shells, n=1) if given else []
            return _refuse(program, Refusal(
                "invalid_choice" if given else "missing_argument",
                f"completion needs a shell: {', '.join(shells)}" +
                (f"; got {given!r}" if given else ""),
                hint=f"e.g. eval \"$({program.name} completion bash)\"",
                fix=["completion", close[0] if close else "bash"]), as_json, world, None)
        from workbench.surfaces.completion import completion_script
        return _show(world, False, None, completion_script(program, rest[0]))
    if name == "mcp":
        from workbench.mcp import serve_cli
        return serve_cli(program, rest + (["--json"] if as_json else [])), None
    raise AssertionError(name)


def _help_builtin(program, request, world):
    rest, as_json = list(request.rest), request.json
    level = "summary"
    path = []
    i = 0
    while i < len(rest):
        token = rest[i]
        if token == "--level" or token.startswith("--level="):
            if "=" in token:
                level = token.split("=", 1)[1]
            elif i + 1 < len(rest):
                level = rest[i + 1]
                i += 1
            else:
                level = ""
        elif token.startswith("-"):
            return _refuse(program, Refusal("unknown_option", f"'help' has no option {token}",
                                            hint="help takes --level names|summary|card",
                                            fix=["help"] + path), as_json, world, None)
        else:
            path.append(token)
        i += 1
    if path[:1] == ["search"]:
        from workbench.surfaces import search
        return search.run_search(program, path[1:], as_json, world)
    levels = ("names", "summary", "card")
    if level not in levels:
        from workbench._text import nearest
        close = nearest(level, levels, n=1)
        return _refuse(program, Refusal(
            "invalid_choice", f"--level must be one of: {', '.join(levels)}; got {level!r}",
            fix=["help", *path, "--level", close[0] if close else "summary"]), as_json, world, None)
    node = program.find(path) if path else program
    if node is None:
        try:
            parse(program, path, world.environ)
        except Refusal as refusal:
            refusal.fix = ["help"] + list(refusal.fix or [])
            return _refuse(program, refusal, as_json, world, None)
    from workbench.surfaces import cards, help
    if as_json:
        if node is program:
            doc = cards.help_document(program, level)
        elif node.is_group:
            doc = cards.group_document(program, node, level)
        else:
            doc = cards.card(node)
        return _show(world, True, doc, None)
    return _show(world, False, None, help.render_help(program, None if node is program else node))


def _secrets(request) -> list[str]:
    command = request.command
    if command is None:
        return []
    found = []
    for key, option in command.options.items():
        value = request.options.get(key)
        if option.sensitive and value not in (None, "", False, True):
            for item in value if isinstance(value, list) else [value]:
                text = str(item)
                if len(text) >= 3:
                    found.append(text)
    return sorted(set(found), key=len, reverse=True)


def mask(command, tokens) -> list:
    """Replace the values of sensitive options in argv tokens by `$ENV` or the placeholder."""
    if command is None or not any(o.sensitive for o in command.options.values()):
        return list(tokens)
    sensitive = {}
    for option in command.options.values():
        if option.sensitive:
            shown = "$" + option.env if option.env else option.metavar
            sensitive[option.flag] = shown
            if option.short:
                sensitive["-" + option.short] = shown
    masked = []
    hide_next = None
    for token in tokens:
        if hide_next is not None:
            masked.append(hide_next if token != "--" and not token.startswith("<") else token)
            hide_next = None
            continue
        flag, eq, _ = token.partition("=")
        if flag in sensitive:
            if eq:
                masked.append(flag + "=" + sensitive[flag])
            else:
                masked.append(token)
                hide_next = sensitive[flag]
            continue
        masked.append(token)
    return masked


def runnable(program, tokens, as_json: bool, command=None) -> str:
    """A command line to run as is: program name in front, `--json` carried (before any `--`)."""
    if isinstance(tokens, str):
        from workbench._text import split
        tokens = split(tokens)
    tokens = [t for t in tokens if t != "--json"]
    if tokens[:1] == [program.name]:
        tokens = tokens[1:]
    tokens = mask(command, tokens)
    if as_json:
        at = tokens.index("--") if "--" in tokens else len(tokens)
        tokens = tokens[:at] + ["--json"] + tokens[at:]
    from workbench._text import join
    return join([program.name] + tokens)


def _refuse(program, refusal, as_json, world, command):
    if command is None and refusal.fix is not None:
        try:
            command = _command_of(program, refusal.fix)
        except Exception:
            command = None
    fix = runnable(program, refusal.fix, as_json, command) if refusal.fix is not None else None
    doc = _envelope.failure(refusal.code, refusal.message, exit=refusal.exit, hint=refusal.hint,
                            fix=fix)
    _emit(world, doc, as_json)
    return refusal.exit, doc


def _command_of(program, tokens):
    node = program
    from workbench.model import child_named
    for token in tokens:
        child = child_named(node, token) if node.is_group else None
        if child is None:
            break
        node = child
    return None if node.is_group else node


def _emit(world, doc, as_json) -> None:
    """Print an envelope: the document under --json, else text (errors on stderr)."""
    if as_json:
        world.out(_envelope.encode(doc) + "\n")
        return
    if doc.get("status") == "action_required":
        lines = [f"action required: {doc['message']}"]
        for step in doc["next"]:
            lines.append(f"next: {step['command']}" + (f"   # {step['when']}"
                                                      if step.get("when") else ""))
        world.err("\n".join(lines) + "\n")
        return
    error = doc["error"]
    lines = [f"error: {error['message']}"]
    if error.get("hint"):
        lines.append(f"hint: {error['hint']}")
    if error.get("fix"):
        lines.append(f"next: {error['fix']}")
    world.err("\n".join(lines) + "\n")


def _invoke(program, command, request, world, debug):
    as_json = request.json
    ctx = Context(program, command, request, world)
    if request.stdin_inputs:
        text = None
        for key in request.stdin_inputs:
            if text is None:
                try:
                    text = ctx.stdin()
                    text = text[:-1] if text.endswith("\n") else text
                except Refusal as refusal:
                    return _refuse(program, refusal, as_json, world, command)
            value = request.args[key]
            request.args[key] = [text if v == "-" else v for v in value] \
                if isinstance(value, list) else text
    meta = {"provenance": request.provenance}
    try:
        if command.adapter is not None:
            data = command.adapter.invoke(command, request, world)
        else:
            data = command.run(ctx)
            if hasattr(data, "__next__"):
                data = list(data)
        if command.effects == "idempotent":
            meta["changed"] = True if ctx._changed is None else ctx._changed
        if request.warnings:
            meta["warnings"] = list(request.warnings)
        doc = _envelope.success(data, meta)
        if as_json:
            text = _envelope.encode(doc)
        elif command.text is not None:
            text = command.text(data)
        else:
            text = default_text(data)
    except Fail as fail:
        fix = runnable(program, fail.fix, as_json, command) if fail.fix else None
        doc = _envelope.failure(fail.code, fail.message, exit=fail.exit, hint=fail.hint,
                                fix=fix, retryable=fail.retryable)
        _emit(world, doc, as_json)
        return fail.exit, doc
    except ActionRequired as action:
        steps = []
        for step in action.next:
            entry = {"command": runnable(program, step["command"], as_json, command)}
            entry.update({k: v for k, v in step.items() if k != "command"})
            steps.append(entry)
        doc = _envelope.action_required(action.reason, action.message, steps)
        _emit(world, doc, as_json)
        return _envelope.EXIT_ACTION, doc
    except Refusal as refusal:
        return _refuse(program, refusal, as_json, world, command)
    except (KeyboardInterrupt, _PipeClosed):
        raise
    except EOFError:
        doc = _envelope.failure("input_closed", "standard input closed while waiting for an "
                                "answer", exit=_envelope.EXIT_ACTION,
                                hint="pass the answer as a flag instead")
        _emit(world, doc, as_json)
        return _envelope.EXIT_ACTION, doc
    except Exception as error:   # a handler bug: exit 1, no traceback unless --debug
        if debug:
            import traceback
            world.err(traceback.format_exc())
        doc = _envelope.failure("internal", f"{type(error).__name__}: {error}", exit=1,
                                hint=_DEBUG_HINT if not debug else None)
        _emit(world, doc, as_json)
        return 1, doc
    for warning in () if as_json else request.warnings:
        world.err(f"warning: {warning}\n")
    if text:
        world.out(text if text.endswith("\n") else text + "\n")
    return 0, doc


def default_text(data) -> str:
    """A tidy human rendering of returned data: scalars as is, dicts as aligned lines, lists as rows."""
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        if not data:
            return ""
        width = max(len(str(key)) for key in data)
        return "\n".join(f"{str(key).ljust(width)}  {_cell(value)}" for key, value in data.items())
    if isinstance(data, list):
        if not data:
            return "(none)"
        if all(isinstance(item, dict) for item in data):
            columns = list(dict.fromkeys(key for item in data for key in item))
            rows = [[_cell(item.get(c, "")) for c in columns] for item in data]
            widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
            lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths)).rstrip()]
            lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
            return "\n".join(lines)
        return "\n".join(_cell(item) for item in data)
    if data is True or data is False:
        return "true" if data else "false"
    return str(data)


def _cell(value) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return _envelope.encode(value)
    return str(value)
