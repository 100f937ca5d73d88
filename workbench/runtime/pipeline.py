"""argv -> envelope -> exit code: the one pipeline every transport runs.

`run(program)` is the process entry point; `call(program, argv)` runs the same pipeline
in-process with captured streams (the MCP server and tests use it).
"""

from __future__ import annotations

import os
import sys

from workbench.runtime import envelope as _envelope
from workbench.runtime.context import ActionRequired, Context, Partial
from workbench.declaration.model import Fail
from workbench.runtime.parser import Refusal, parse

TYPE_CHECKING = False   # typing's own flag costs an import of typing at start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import NoReturn

    from workbench.declaration.model import Program

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
        self.on_progress = None   # the MCP server forwards progress as notifications
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
        """Throttled: the first and the final report always go out; between them, one every
        0.2 s to an MCP client (`on_progress`), one every 2 s as a JSON line on stderr."""
        if self.on_progress is None and not self.progress_lines:
            return
        import time
        now = time.monotonic()
        final = total is not None and done >= total
        interval = 0.2 if self.on_progress is not None else 2.0
        if self._last_progress is not None and now - self._last_progress < interval and not final:
            return
        self._last_progress = now
        if self.on_progress is not None:
            self.on_progress(done, total, message)
            return
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


def run(program: Program, argv: Sequence[str] | None = None) -> NoReturn:
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


def call(program: Program, argv: Sequence[str], *, environ: Mapping[str, str] | None = None,
         stdin: str | None = None,
         on_progress: Callable[[float, float | None, str | None], None] | None = None
         ) -> Outcome:
    """Run argv in-process with captured streams, exactly as the CLI would (no terminal).

    `on_progress(done, total, message)` receives `ctx.progress` calls (the MCP server sends
    them as progress notifications)."""
    import io
    out, err = io.StringIO(), io.StringIO()
    world = World(dict(os.environ if environ is None else environ),
                  io.StringIO(stdin) if stdin is not None else None, out, err)
    world.on_progress = on_progress
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
        doc = _with_version(program, _envelope.failure("interrupted", "interrupted",
                                                       exit=_envelope.EXIT_INTERRUPTED))
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
        return serve_cli(program, rest + (["--json"] if as_json else [])
                         + (["--help"] if request.flags["help"] else [])), None
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
        from workbench.runtime._help_search import run_search
        return run_search(program, path[1:], as_json, world)
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
    _emit(world, _with_version(program, doc), as_json)
    return refusal.exit, doc


def _command_of(program, tokens):
    node = program
    from workbench.declaration.model import child_named
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
    ndjson = request.flags["format"] == "ndjson"
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
    claim = None
    try:
        if request.extras.get("idempotency_key"):
            from workbench.runtime import _keys
            claim = _keys.claim(program, command, request, world.environ)
            if claim.replay is not None:
                doc = claim.replay
                claim = None
                return _finish(program, command, request, world, doc, as_json)
        dry_run = bool(request.extras.get("dry_run"))
        if command.plan is not None and (dry_run or request.extras.get("expect_plan")):
            ctx.plan, digest = _plan(command, ctx)
            if dry_run:
                meta["dry_run"] = True
                data = {"plan": ctx.plan, "digest": digest}
                return _finish(program, command, request, world,
                               _success(program, command, ctx, data, meta), as_json)
            if digest != request.extras["expect_plan"]:
                raise Fail("plan_changed", "the plan changed since it was reviewed; nothing was "
                           "applied", hint="review the new plan, then apply it with its digest",
                           exit=5, fix=_without_flag(ctx.invocation(), "--expect-plan")
                           + ["--expect-plan", digest], plan=ctx.plan, digest=digest)
        if command.adapter is not None:
            data = command.adapter.invoke(command, request, world)
        else:
            data = command.run(ctx)
        if hasattr(data, "__next__") or (ndjson and not command.paginated):
            if ndjson:
                return _stream(program, command, request, world, ctx, data, debug)
            if not as_json and not command.paginated:
                return _print_stream(program, command, request, world, ctx, data)
            data = list(data)
        if isinstance(data, Partial):
            return _partial(program, command, request, world, ctx, data, meta)
        if command.paginated:
            from workbench.runtime._paging import paginate
            items, page, next_tokens, truncated = paginate(program, command, request, data,
                                                           ctx.agent, ctx.invocation())
            doc = _success(program, command, ctx, items, meta)
            extra = {"page": page}
            if next_tokens:
                extra["next"] = [{"command": runnable(program, next_tokens, as_json, command),
                                  "when": "for the next page"}]
            if truncated:
                truncated["next"] = extra["next"][0]["command"]
                doc["meta"]["truncated"] = truncated
            doc = {"ok": True, "data": items, **extra, "meta": doc["meta"]}
            if ndjson:
                return _stream(program, command, request, world, ctx, iter(items), debug,
                               page=extra)
        else:
            doc = _success(program, command, ctx, data, meta)
    except Fail as fail:
        fix = runnable(program, fail.fix, as_json, command) if fail.fix else None
        doc = _envelope.failure(fail.code, fail.message, exit=fail.exit, hint=fail.hint,
                                fix=fix, retryable=fail.retryable, **fail.details)
        if request.warnings:
            doc["meta"] = {"warnings": list(request.warnings)}
    except ActionRequired as action:
        doc = _envelope.action_required(action.reason, action.message,
                                        _steps(program, command, action.next, as_json))
    except Refusal as refusal:
        if claim is not None:
            claim.finish(None, 2)
        return _refuse(program, refusal, as_json, world, command)
    except (KeyboardInterrupt, _PipeClosed):
        if claim is not None:
            claim.finish(None, 130)
        raise
    except EOFError:
        doc = _envelope.failure("input_closed", "standard input closed while waiting for an "
                                "answer", exit=_envelope.EXIT_ACTION,
                                hint="pass the answer as a flag instead")
    except Exception as error:   # a handler bug: exit 1, no traceback unless --debug
        doc = _internal(error, debug, world)
    if claim is not None:
        claim.finish(doc, _envelope.exit_code(doc))
    return _finish(program, command, request, world, doc, as_json)


def _internal(error, debug, world):
    if debug:
        import traceback
        world.err(traceback.format_exc())
    return _envelope.failure("internal", f"{type(error).__name__}: {error}", exit=1,
                             hint=_DEBUG_HINT if not debug else None)


def _partial(program, command, request, world, ctx, result, meta):
    as_json = request.json
    for item in result.failed:
        item.setdefault("code", "failed")
        item.setdefault("retryable", False)
    data = {"succeeded": result.succeeded, "failed": result.failed}
    doc = _success(program, command, ctx, data, meta)
    if result.failed and result.succeeded:
        doc = {"ok": "partial", "data": data, "meta": doc["meta"]}
    elif result.failed:
        doc = {"ok": False, "data": data,
               "error": _envelope.error_body("all_failed", f"all {len(result.failed)} items "
                                             "failed", 1, hint="see data.failed for each error"),
               "meta": doc["meta"]}
    return _finish(program, command, request, world, doc, as_json)


def _success(program, command, ctx, data, meta) -> dict:
    meta = dict(meta)
    if command.effects == "idempotent" and not meta.get("dry_run"):
        meta["changed"] = True if ctx._changed is None else ctx._changed
    if ctx._request.warnings:
        meta["warnings"] = list(ctx._request.warnings)
    return _envelope.success(data, meta)


def _with_version(program, doc) -> dict:
    """Every envelope's meta carries the program's schema_version (last, so it reads as a footer)."""
    meta = doc.setdefault("meta", {})
    meta.pop("schema_version", None)
    meta["schema_version"] = program.schema_version
    return doc


def _finish(program, command, request, world, doc, as_json):
    """Print a finished envelope (document or text) and return (exit, envelope)."""
    doc = _with_version(program, doc)
    code = _envelope.exit_code(doc)
    if as_json:
        world.out(_envelope.encode(doc) + "\n")
        return code, doc
    if doc["ok"] is not True and doc["ok"] != "partial" and "data" not in doc:
        _emit(world, doc, False)
        return code, doc
    for warning in doc["meta"].get("warnings", ()):
        world.err(f"warning: {warning}\n")
    data = doc.get("data")
    text = command.text(data) if command.text is not None else default_text(data)
    if text:
        world.out(text if text.endswith("\n") else text + "\n")
    if doc.get("ok") is not True:
        failed = len(doc["data"].get("failed", ()))
        world.err(f"{len(doc['data'].get('succeeded', ()))} succeeded, {failed} failed\n")
    for step in doc.get("next", ()):
        world.err(f"next: {step['command']}   # {step['when']}\n")
    truncated = doc["meta"].get("truncated")
    if truncated:
        world.err(f"{truncated['omitted']} more not shown ({truncated['reason']}); "
                  f"next: {truncated['next']}\n")
    return code, doc


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


def _without_flag(tokens, flag):
    out, skip = [], False
    for token in tokens:
        if skip:
            skip = False
        elif token == flag:
            skip = True
        elif not token.startswith(flag + "="):
            out.append(token)
    return out


def _stream(program, command, request, world, ctx, items, debug, page=None):
    """`--format ndjson`: an @meta line, one line per item, an @end line (count, exit, next)."""
    encode = _envelope.encode
    head = {"command": " ".join(command.path), "schema_version": program.schema_version,
            "format": "ndjson", "items": "one JSON value per line until the @end line"}
    world.out(encode({"@meta": head}) + "\n")
    count = 0
    end = {"ok": True, "count": 0, "exit": 0}
    if not hasattr(items, "__next__") and not isinstance(items, list):
        items = [items]
    try:
        for item in items:
            world.out(encode(item) + "\n")
            count += 1
    except (KeyboardInterrupt, _PipeClosed):
        raise
    except Fail as fail:
        end = {"ok": False, "count": count, "exit": fail.exit,
               "error": _envelope.error_body(fail.code, fail.message, fail.exit, fail.hint,
                                             runnable(program, fail.fix, True, command)
                                             if fail.fix else None, retryable=fail.retryable)}
    except ActionRequired as action:
        end = {"ok": False, "count": count, "exit": _envelope.EXIT_ACTION,
               "error": {"code": "action_required", "exit": _envelope.EXIT_ACTION,
                         "message": action.message},
               "next": _steps(program, command, action.next, True)}
    except Exception as error:
        body = _internal(error, debug, world)["error"]
        end = {"ok": False, "count": count, "exit": 1, "error": body}
    end["count"] = count
    if page:
        end["page"] = page["page"]
        if page.get("next"):
            end["next"] = page["next"]
    if request.warnings:
        end["warnings"] = list(request.warnings)
    world.out(encode({"@end": end}) + "\n")
    return end["exit"], None


def _print_stream(program, command, request, world, ctx, items):
    """A person reading a stream: each item as it arrives."""
    count = 0
    try:
        for item in items:
            text = command.text(item) if command.text is not None else _one_line(item)
            world.out(text + "\n")
            count += 1
    except Fail as fail:
        doc = _envelope.failure(fail.code, fail.message, exit=fail.exit, hint=fail.hint)
        world.err(f"stopped after {count} items\n")
        _emit(world, doc, False)
        return fail.exit, doc
    return 0, None


def _one_line(item) -> str:
    if isinstance(item, dict):
        return "  ".join(_cell(v) for v in item.values())
    return _cell(item)


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
