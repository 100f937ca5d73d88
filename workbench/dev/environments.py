"""Simulated environments: the same call as a terminal, a pipe, an agent, CI, or an MCP client.

Each run is a real subprocess of the program being served (its last good source), with a
time limit, so a handler that hangs or crashes never freezes the workbench.

- terminal: stdin and stdout on a real pseudo-terminal (stderr on a pipe, so the columns stay
  apart); no agent variables; a run that goes quiet waiting for input is stopped and says so.
- piped: stdin, stdout and stderr are pipes; no agent variables.
- agent:claude-code / agent:cursor / agent:codex / agent:gemini: piped, with that agent's
  variable set (CLAUDECODE=1, CURSOR_AGENT=1, CODEX_THREAD_ID=..., GEMINI_CLI=1).
- ci: piped, CI=1, standard input closed.
- mcp: a tools/call through the dev server (the same path a connected client takes).

Every run gets its own throwaway sandbox (`workbench.dev.sandbox`: HOME, XDG folders, TMPDIR,
BURGEE_STATE_DIR), so it works on an empty scratch copy of whatever the program keeps under
the user's folders. Effects decide how a run goes (`plan_runs`): a `read_only` command runs
in every environment at once; anything else (`idempotent`, `non_idempotent`, `undeclared`)
runs only when a person asked (the dashboard confirms first, naming the effect), then once per
environment, one after another; a command with a `plan` runs as `--dry-run` unless the person
asked for the real thing.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

from workbench.dev.engine import RunResult

ENVIRONMENTS = ("terminal", "piped", "agent:claude-code", "agent:cursor", "agent:codex",
                "agent:gemini", "ci", "mcp")

AGENT_ENVIRONMENT = {
    "agent:claude-code": {"CLAUDECODE": "1"},
    "agent:cursor": {"CURSOR_AGENT": "1"},
    "agent:codex": {"CODEX_THREAD_ID": "burgee-dev"},
    "agent:gemini": {"GEMINI_CLI": "1"},
}

_CLEARED = ("AI_AGENT", "CLAUDECODE", "CURSOR_AGENT", "CODEX_THREAD_ID", "GEMINI_CLI", "CI",
            "FORCE_TTY", "NO_COLOR", "PYTEST_CURRENT_TEST")

DEFAULT_TIMEOUT = 10.0
TERMINAL_IDLE = 2.0
"""Seconds of silence after which a terminal run that printed something counts as waiting."""


def environ_for(environment: str) -> dict:
    """The environment variables a run under `environment` gets."""
    from workbench.dev.loader import child_environ
    env = child_environ()
    for name in _CLEARED:
        env.pop(name, None)
    env["COLUMNS"], env["LINES"] = "100", "30"
    # The workbench always checks output against the declared schema (a CLI that honours it
    # refuses with invalid_output, as the MCP server does).
    from workbench.surfaces.output import VALIDATE_VARIABLE
    env[VALIDATE_VARIABLE] = "1"
    if environment == "terminal":
        env["TERM"] = "xterm-256color"
    env.update(AGENT_ENVIRONMENT.get(environment, {}))
    if environment == "ci":
        env["CI"] = "1"
    return env


def worker_command(bench, argv, *, close_stdin: bool = False) -> list:
    command = [sys.executable, "-B", "-m", "workbench.dev._worker", "run", "--file", bench.file]
    if bench.good_source_file:
        command += ["--source", bench.good_source_file]
    name = bench.serving_name
    if name:
        command += ["--program", name]
    if close_stdin:
        command.append("--close-stdin")
    return command + ["--", *argv]


def arguments_from_argv(program, argv) -> tuple:
    """(command, MCP arguments) for argv after the program name, as a client would send them.

    Only inputs given on the command line become arguments; defaults and environment values
    are left for the server to fill, as they would be.
    """
    from workbench.runtime.parser import parse
    request = parse(program, [token for token in argv if token != "--json"], {})
    command = request.command
    if command is None:
        raise ValueError(f"{' '.join(argv)!r} does not name a runnable command")
    arguments = {}
    inputs = list(request.options.items()) + list(request.extras.items()) + list(request.args.items())
    for key, value in inputs:
        where = request.provenance.get(key)
        if isinstance(where, dict) and where.get("source") in ("flag", "argument", "stdin"):
            arguments[key] = value
    return command, arguments


def argv_from_arguments(program, command, arguments: dict) -> list:
    """argv after the program name for MCP `arguments` of `command` (to_argv includes the path)."""
    from workbench.runtime.arguments import to_argv
    return list(to_argv(command, arguments))


def resolve_command(program, command: str):
    """A command by path (`"pr merge"`) or tool name (`"pr_merge"`)."""
    found = program.find(command.split()) if command else None
    if found is not None and not found.is_group:
        return found
    found = program.tool(command)
    if found is None:
        raise ValueError(f"no command {command!r}")
    return found


WRITE_EFFECTS = {
    "idempotent": "idempotent: it changes something (running it again changes nothing more)",
    "non_idempotent": "non_idempotent: every run changes something again",
    "undeclared": "undeclared: it does not say what it changes, so it may change anything",
    "withheld": "withheld: it runs on the command line only and may change anything",
}


def target_command(program, argv=None, command=None):
    """The Command an input runs (argv after the program name, or `command`), or None."""
    if program is None:
        return None
    try:
        if argv is None:
            return resolve_command(program, command)
        return arguments_from_argv(program, [token for token in argv if token != "--json"])[0]
    except Exception:  # noqa: BLE001 - e.g. a required option the run would read from env
        return _command_by_path(program, argv or ())


def _command_by_path(program, argv):
    """The command named by the leading words of argv (before any flag), or None: an input
    that does not parse here may still run (a value from the environment), so its effects
    must still be known."""
    words = []
    for token in argv:
        if token.startswith("-"):
            break
        words.append(token)
    for end in range(len(words), 0, -1):
        try:
            found = program.find(words[:end])
        except Exception:  # noqa: BLE001
            found = None
        if found is not None and not found.is_group:
            return found
    return None


def writes(command) -> bool:
    """Whether running `command` may change something: anything but `read_only`."""
    return command is not None and command.effects != "read_only"


def effect_note(command) -> str:
    """What running `command` does, in words, for a confirmation (`"non_idempotent: ..."`)."""
    return WRITE_EFFECTS.get(command.effects, f"{command.effects}: it may change something")


def dry_run_input(command, argv=None, arguments=None) -> tuple:
    """(argv, arguments) asking for `--dry-run` (a command with a `plan`); unchanged if they
    already ask for it or for a reviewed plan (`--expect-plan`)."""
    if command is None or command.plan is None:
        return argv, arguments
    if argv is not None:
        argv = list(argv)
        end = argv.index("--") if "--" in argv else len(argv)
        head = argv[:end]
        if not any(token == "--dry-run" or token.startswith("--expect-plan") for token in head):
            argv = head + ["--dry-run"] + argv[end:]
        return argv, arguments
    arguments = dict(arguments or {})
    if "expect_plan" not in arguments:
        arguments.setdefault("dry_run", True)
    return argv, arguments


def run_one(bench, environment: str, argv, *, arguments=None, command=None, stdin=None,
            timeout: float = DEFAULT_TIMEOUT) -> RunResult:
    """One input under one environment, in a sandbox of its own."""
    from workbench.dev.sandbox import Sandbox
    with Sandbox() as box:
        return _run_one(bench, environment, argv, box, arguments=arguments, command=command,
                        stdin=stdin, timeout=timeout)


def _run_one(bench, environment, argv, box, *, arguments, command, stdin, timeout):
    program = bench.program
    if program is None:
        return RunResult(environment, tuple(argv or ()), None, "", "", 0.0,
                         error="no program is loaded")
    try:
        if argv is None:
            target = resolve_command(program, command)
            argv = argv_from_arguments(program, target, arguments or {})
    except Exception as exc:  # noqa: BLE001
        return RunResult(environment, (), None, "", "", 0.0, error=str(exc))
    argv = tuple(argv)
    if environment == "mcp":
        return _run_mcp(bench, argv, arguments, command, timeout, box)
    if environment == "terminal":
        return _run_pty(bench, argv, stdin, timeout, box)
    close_stdin = environment == "ci"
    env = box.environ(environ_for(environment))
    started = time.perf_counter()
    try:
        from workbench.dev.loader import run_limited
        done = run_limited(worker_command(bench, argv, close_stdin=close_stdin),
                           input=None if close_stdin else (stdin or ""),
                           stdin=subprocess.DEVNULL if close_stdin else None,
                           timeout=timeout, env=env, cwd=os.path.dirname(bench.file))
    except subprocess.TimeoutExpired as exc:
        return RunResult(environment, argv, None, _text(exc.stdout), _text(exc.stderr),
                         time.perf_counter() - started, timed_out=True,
                         error=f"stopped after {timeout:g} s")
    return RunResult(environment, argv, done.returncode, done.stdout, done.stderr,
                     time.perf_counter() - started)


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _readable(fds, timeout: float) -> list:
    """Those of `fds` with something to read (or closed) within `timeout` seconds; poll(),
    not select(), which cannot watch an fd past 1024 (a busy workbench gets there)."""
    import select
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return [fd for fd, _event in poller.poll(timeout * 1000)]


def _run_pty(bench, argv, stdin, timeout, box) -> RunResult:
    import pty
    import signal
    master, slave = pty.openpty()
    try:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    except OSError:
        pass
    started = time.perf_counter()
    proc = subprocess.Popen(worker_command(bench, argv), stdin=slave, stdout=slave,
                            stderr=subprocess.PIPE, env=box.environ(environ_for("terminal")),
                            cwd=os.path.dirname(bench.file), start_new_session=True,
                            close_fds=True)
    os.close(slave)
    if stdin:
        os.write(master, stdin.encode("utf-8"))
    out, err = bytearray(), bytearray()
    deadline = started + timeout
    last_output = None
    reason = None
    streams = {master: out, proc.stderr.fileno(): err}
    while streams:
        now = time.perf_counter()
        if now >= deadline:
            reason = f"stopped after {timeout:g} s"
            break
        if (last_output is not None and proc.poll() is None and not stdin
                and now - last_output > TERMINAL_IDLE):
            reason = "waiting for input (a prompt nobody answered); stopped"
            break
        ready = _readable(list(streams), 0.05)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                del streams[fd]
                continue
            streams[fd].extend(chunk)
            last_output = time.perf_counter()
        if not ready and proc.poll() is not None and master in streams:
            # The child exited; drain what is left without blocking.
            try:
                while True:
                    if not _readable([master], 0):
                        break
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    out.extend(chunk)
            except OSError:
                pass
            streams.pop(master, None)
    timed_out = reason is not None
    if timed_out:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    os.close(master)
    proc.stderr.close()
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    return RunResult("terminal", argv, None if timed_out else code, text,
                     err.decode("utf-8", "replace"), time.perf_counter() - started,
                     timed_out=timed_out, error=reason)


def _run_mcp(bench, argv, arguments, command, timeout, box) -> RunResult:
    started = time.perf_counter()
    program = bench.program
    try:
        if arguments is None or command is None:
            target, arguments = arguments_from_argv(program, list(argv))
        else:
            target = resolve_command(program, command)
    except Exception as exc:  # noqa: BLE001 - a refusal: show it as the mcp result
        return RunResult("mcp", argv, None, "", "", time.perf_counter() - started,
                         error=f"cannot express this call as MCP arguments: {exc}")
    if bench.server is None:
        from workbench.dev.server import DevServer
        bench.server = DevServer(bench)
        bench.server.set_program(program)
    try:
        result = bench.server.call_tool_sync(target.tool_name, arguments, timeout=timeout + 5,
                                             sandbox=box)
    except Exception as exc:  # noqa: BLE001
        return RunResult("mcp", argv, None, "", "", time.perf_counter() - started,
                         error=f"{type(exc).__name__}: {exc}", arguments=arguments)
    text = result["text"]
    code = 1 if result["is_error"] else 0
    try:   # the envelope says which exit code the CLI would have given
        import json

        from workbench.runtime.envelope import exit_code
        code = exit_code(json.loads(text))
    except (ValueError, KeyError, TypeError):
        pass
    return RunResult("mcp", argv, code, text, "", time.perf_counter() - started,
                     arguments=arguments)


def run_all(bench, *, argv=None, arguments=None, command=None, environments=None, stdin=None,
            timeout: float = DEFAULT_TIMEOUT, on_result=None) -> list:
    """Every environment; results in the order asked.

    A read-only command runs in every environment at once (parallel threads); any other
    runs once per environment, one after another, so a write never races another.
    """
    from concurrent.futures import ThreadPoolExecutor
    names = list(environments or ENVIRONMENTS)
    sequential = writes(target_command(bench.program, argv, command))

    def one(name):
        return run_one(bench, name, argv, arguments=arguments, command=command, stdin=stdin,
                       timeout=timeout)

    results = []
    if sequential:
        for name in names:
            results.append(one(name))
            if on_result is not None:
                on_result(results[-1])
        return results
    with ThreadPoolExecutor(max_workers=min(8, len(names))) as pool:
        futures = [pool.submit(one, name) for name in names]
        for future in futures:
            result = future.result()
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


async def arun_all(bench, *, argv=None, arguments=None, command=None, environments=None,
                   stdin=None, timeout: float | None = None) -> list:
    """`run_all` off the event loop; publishes a "run" event as each result arrives."""
    loop = asyncio.get_running_loop()
    names = list(environments or ENVIRONMENTS)
    timeout = timeout or min(bench.call_timeout, DEFAULT_TIMEOUT)

    async def one(name):
        result = await loop.run_in_executor(None, lambda: run_one(
            bench, name, argv, arguments=arguments, command=command, stdin=stdin,
            timeout=timeout))
        bench.publish("run", result)
        return result

    if writes(target_command(bench.program, argv, command)):
        return [await one(name) for name in names]
    return list(await asyncio.gather(*(one(name) for name in names)))
