"""`tool mcp doctor`: why this program's setup fails, each finding with its fix.

It checks, in order: the program (it loaded: a file that does not load is `burgee doctor
FILE`'s finding), the command a client starts (`surfaces.clients.server_command`, as `mcp
install` writes it: on PATH, its file there), the `mcp` extra, the MCP server itself (started
as a client would, it must answer `initialize` and `tools/list` over stdio within the timeout),
and each client's configuration file (present, parsed, its entry for this program pointing at
a command that runs).

A finding is `{"check", "status", "message", "fix"}`: status `ok`, `fail` (setup is broken),
`warn` (works, but not as this program would register itself), `absent` (nothing there:
fine unless you use that client) or `skipped` (not tried: a check it needs failed); `fix` is a command line to run where there is one, else what
to do, else None.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from workbench.declaration.model import Program

STATUSES = ("ok", "fail", "warn", "absent", "skipped")


def finding(check: str, status: str, message: str, fix: str | None = None) -> dict[str, Any]:
    return {"check": check, "status": status, "message": message, "fix": fix}


def check_program(program: Program) -> dict[str, Any]:
    """The program loaded; its size as MCP sees it."""
    from workbench.surfaces.tools import offered
    commands = [c for c in program.walk() if not c.is_group]
    tools = sum(1 for c in commands if offered(c))
    version = f" {program.version}" if program.version else ""
    return finding("program", "ok", f"{program.name}{version} loads: {len(commands)} "
                   f"command(s), {tools} MCP tool(s)")


def check_command(argv: Sequence[str], environ: Mapping[str, str]) -> dict[str, Any]:
    """The server command: its executable found (on PATH when it is a bare name), and the
    program file it names there."""
    import shutil
    from workbench._text import join
    shown = join(argv)
    executable = argv[0]
    if os.sep in executable or (os.altsep and os.altsep in executable):
        if not os.path.isfile(executable) or not os.access(executable, os.X_OK):
            return finding("server command", "fail", f"{executable} does not exist or cannot "
                           f"run, so a client cannot start '{shown}'",
                           "reinstall the environment it belongs to, then run "
                           "'mcp install' again for each client")
    elif shutil.which(executable, path=environ.get("PATH")) is None:
        return finding("server command", "fail", f"'{executable}' is not on PATH, so a client "
                       f"cannot start '{shown}'",
                       f"install the package that provides the '{executable}' console script "
                       f"(pip install -e . in its project), or serve the file: "
                       f"'python FILE mcp'")
    for word in argv[1:]:
        if word.endswith(".py") and not os.path.isfile(word):
            return finding("server command", "fail", f"{word} does not exist",
                           "run mcp doctor from the program's file, where it is now")
    return finding("server command", "ok", shown)


def check_extra() -> dict[str, Any]:
    from workbench.runtime.extras import install_command, missing
    absent = missing("mcp")
    if absent:
        return finding("mcp extra", "fail", f"the MCP SDK is not installed ({', '.join(absent)}), "
                       "so the server cannot start", install_command("mcp"))
    return finding("mcp extra", "ok", "installed")


CHECK_CALLS = 3
"""Calls per command doctor's contract check makes (seeded 0): a quick look; the fix is the
full `burgee check FILE`."""

CHECK_LIMIT = 120.0
"""Seconds doctor's contract check may take before it is killed with its processes."""


def check_command_line(path: str, environ: Mapping[str, str],
                       mode: Sequence[str] = ()) -> str:
    """`burgee check FILE` (the caller's output mode carried) as a line to run: the `burgee`
    console script when it is on PATH, else this interpreter's `-m workbench.cli`."""
    import shutil
    import sys
    from workbench._text import join
    head = ["burgee"] if shutil.which("burgee", path=environ.get("PATH")) else [
        sys.executable, "-m", "workbench.cli"]
    return join([*head, "check", path, *mode])


def start_contract(path: str, environ: Mapping[str, str]
                   ) -> subprocess.Popen[bytes] | OSError:
    """Start `burgee check FILE --calls 3 --seed 0 --json` in a process group of its own (it
    runs while the MCP server is checked); `finish_contract` reads its verdict. The checker
    runs as a subprocess: the runtime does not import it."""
    import subprocess
    import sys
    env = dict(environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    argv = [sys.executable, "-m", "workbench.cli", "check", path, "--calls", str(CHECK_CALLS),
            "--seed", "0", "--json"]
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as error:
        return error


def finish_contract(process: subprocess.Popen[bytes] | OSError, fix: str,
                    limit: float = CHECK_LIMIT) -> dict[str, Any]:
    """The contract finding from a started check: ok (its calls, no violation, the recovery
    rate), fail (the first violations: rule, name, command), or warn (it could not check the
    file, or did not finish within `limit` seconds and was killed)."""
    import subprocess
    head = f"burgee check, {CHECK_CALLS} call(s) per command (seed 0): "
    if isinstance(process, OSError):
        return finding("contract", "warn", f"burgee check cannot start: "
                       f"{process.strerror or process}", fix)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(process)
        return finding("contract", "warn", f"burgee check did not finish within {limit:g} s "
                       "and was stopped", fix)
    try:
        doc = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        error = doc.get("error") or {}
        report = doc["data"] if doc.get("ok") is True else error.get("report")
    except (ValueError, IndexError, AttributeError, KeyError, TypeError):
        last = _last_line(err)
        return finding("contract", "warn", f"burgee check gave no report (status "
                       f"{process.returncode})" + (f": {last}" if last else ""), fix)
    if not isinstance(report, dict):
        return finding("contract", "warn", f"burgee check could not check the file: "
                       f"{error.get('message', 'no report')}", fix)
    violations = report.get("violations") or []
    if violations:
        shown = "; ".join(f"{v['rule']} {v['name']} in {v['command']!r}: {v['message']}"
                          for v in violations[:3])
        more = f" (and {len(violations) - 3} more)" if len(violations) > 3 else ""
        return finding("contract", "fail", f"{head}{len(violations)} violation(s) in "
                       f"{report['calls']} call(s): {shown}{more}", fix)
    if error:   # recovery_below_budget: its message is the checker's recovery line
        return finding("contract", "fail", f"{head}{error.get('message')}", fix)
    recovery = report.get("recovery") or {}
    rate = (f"recovery {recovery['rate']:.0%} ({recovery['recovered']} of "
            f"{recovery['refusals']} refusals recovered by their fix)"
            if recovery.get("refusals") else "no refusal to recover")
    return finding("contract", "ok", f"{head}{report['calls']} call(s), 0 violations, {rate}")


def stop_contract(process: subprocess.Popen[bytes] | OSError | None) -> None:
    """End a started check that is still running, with its processes (None: none started)."""
    if process is not None and not isinstance(process, OSError) and process.poll() is None:
        _kill(process)


def check_server(argv: Sequence[str], environ: Mapping[str, str], timeout: float) -> dict[str, Any]:
    """Start the server as a client would and ask for `initialize`, then `tools/list`."""
    from workbench._text import join
    shown = join(argv)
    by_hand = f"run '{shown}' in a terminal and read what it prints on stderr"
    answers, problem = _ask(argv, environ, timeout)
    if problem is not None:
        fix = STDOUT_FIX if problem.startswith(NOT_JSON_RPC) else by_hand
        return finding("mcp server", "fail", problem, fix)
    init, listed = answers.get(1), answers.get(2)
    if "error" in init:
        return finding("mcp server", "fail", f"initialize was refused: "
                       f"{init['error'].get('message')}", by_hand)
    info = init.get("result", {}).get("serverInfo", {})
    tools = len((listed or {}).get("result", {}).get("tools", []))
    more = " (more pages)" if (listed or {}).get("result", {}).get("nextCursor") else ""
    return finding("mcp server", "ok", f"answered initialize as {info.get('name')} "
                   f"{info.get('version')} (protocol {init['result'].get('protocolVersion')}); "
                   f"tools/list: {tools} tool(s){more}")


NOT_JSON_RPC = "the server wrote something that is not JSON-RPC on stdout"
STDOUT_FIX = ("print nothing to stdout outside a command (at import, say): use sys.stderr; an "
              "MCP server's stdout carries JSON-RPC only")

MAX_LINE = 64 << 20
"""Bytes of one stdout line doctor reads before giving up on the server."""

PROTOCOL = "2025-06-18"
"""The protocol version doctor's initialize offers: one every server of the handshake era
accepts (it answers with the version it speaks)."""


def _ask(argv, environ, timeout: float):
    """({id: response}, None) for initialize (id 1) and tools/list (id 2) sent to a server
    started with `argv`; ({}, why) when it fails, times out or writes something else."""
    import selectors
    import subprocess
    import time
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                    "clientInfo": {"name": "burgee-doctor", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=dict(environ),
                                   start_new_session=True)
    except OSError as error:
        return {}, f"'{argv[0]}' cannot start: {error.strerror or error}"
    answers: dict = {}
    buffered = b""
    err = b""
    problem = None
    try:
        process.stdin.write(  # type: ignore[union-attr]  # PIPE: a stream
            "".join(json.dumps(r) + "\n" for r in requests).encode())
        process.stdin.flush()   # type: ignore[union-attr]
        deadline = time.monotonic() + timeout
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)   # type: ignore[arg-type]
        selector.register(process.stderr, selectors.EVENT_READ)   # type: ignore[arg-type]
        open_streams = 2
        while len(answers) < 2 and open_streams:
            left = deadline - time.monotonic()
            if left <= 0:
                problem = f"no answer to {'initialize' if 1 not in answers else 'tools/list'} " \
                          f"within {timeout:g} s"
                break
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                elif key.fileobj is process.stderr:
                    err = (err + chunk)[-4096:]
                else:
                    buffered += chunk
                    if len(buffered) > MAX_LINE:
                        problem = f"the server wrote over {MAX_LINE >> 20} MiB on stdout " \
                                  "without ending a line"
                        break
                    problem = _read_lines(buffered, answers)
                    buffered = buffered[buffered.rfind(b"\n") + 1:]
                    if problem:
                        break
            if problem:
                break
        if problem is None and len(answers) < 2:
            code = process.wait(timeout=1) if process.poll() is None else process.returncode
            last = _last_line(err)
            problem = f"the server exited (status {code}) before answering" + (
                f": {last}" if last else "")
        selector.close()
    except (OSError, ValueError, subprocess.TimeoutExpired) as error:
        problem = problem or f"the server stopped talking: {error}"
    finally:
        _stop(process)
    return answers, problem


def _read_lines(buffered: bytes, answers: dict[str, Any]):
    """Record the responses among the complete lines of `buffered`; a line that is not
    JSON-RPC is the problem returned (None when all are)."""
    for raw in buffered.split(b"\n")[:-1]:
        if not raw.strip():
            continue
        try:
            message = json.loads(raw)
        except ValueError:
            text = raw.decode("utf-8", "replace").strip()[:120]
            return f"{NOT_JSON_RPC}: {text!r} (an MCP client gives up on it)"
        if isinstance(message, dict) and message.get("id") in (1, 2):
            answers[message["id"]] = message
    return None


def _last_line(err: bytes) -> str:
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip()[:200] if lines else ""


def _stop(process) -> None:
    """Close the server's stdin (its way to stop), then end its whole process group."""
    import subprocess
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        _kill(process)
    for stream in (process.stdout, process.stderr):
        stream.close()


def _kill(process) -> None:
    """End a process started with `start_new_session` and its whole group."""
    import signal
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


def check_client(client: str, scope: str, path: str, wanted: dict[str, Any], fix: str,
                 environ: Mapping[str, str]) -> dict[str, Any]:
    """One client file: absent, unreadable, without this server, pointing at a command that
    cannot run, at another command, or at this one."""
    from workbench.runtime import install
    from workbench.surfaces.clients import server_entry
    check = f"{client} ({scope})"
    key, name, entry = server_entry(wanted)
    if not os.path.exists(path):
        return finding(check, "absent", f"no {path}", fix)
    try:
        servers = install.read_servers(path, key)
    except install.InvalidConfig as error:
        return finding(check, "fail", f"{path} does not parse: {error.reason}",
                       "fix or move that file (mcp install will not write into it)")
    except OSError as error:
        return finding(check, "fail", f"{path} cannot be read: {error.strerror or error}",
                       "check that file's permissions")
    found = servers.get(name)
    if found is None:
        return finding(check, "absent", f"{path} has no server named {name!r}", fix)
    return _judge(check, path, key, name, found, entry, fix, environ)


def check_claude_local(path: str, project: str, wanted: dict[str, Any],
                       environ: Mapping[str, str]) -> dict[str, Any] | None:
    """Claude Code's `local` scope: an entry for this program under the project's path in
    `~/.claude.json`, which wins over the user's and the project's; None when there is none
    (or the file does not parse: `check_client` said so)."""
    from workbench.runtime import install
    from workbench.surfaces.clients import server_entry
    key, name, entry = server_entry(wanted)
    try:
        projects = install.read_servers(path, "projects")
    except (install.InvalidConfig, OSError):
        return None
    here = projects.get(project)
    found = here.get(key, {}).get(name) if isinstance(here, dict) and isinstance(
        here.get(key), dict) else None
    if found is None:
        return None
    fix = f"claude mcp remove {name} -s local (it wins over the user's and the project's)"
    return _judge("claude-code (local)", f"{path} (projects[{project!r}])", key, name, found,
                  entry, fix, environ)


def _judge(check, path, key, name, found, entry, fix, environ) -> dict[str, Any]:
    """An entry for this program: this program's command, an HTTP server, another command that
    runs, or one that cannot start."""
    from workbench.runtime import install
    if not isinstance(found, dict):
        return finding(check, "fail", f"{path}: {key}.{name} is not a table", fix)
    if install.kept_settings(found, entry) == found:
        return finding(check, "ok", f"{path}: {name!r} starts this program")
    url = found.get("url") or found.get("httpUrl") or found.get("serverUrl")
    if url:
        return finding(check, "ok", f"{path}: {name!r} is the HTTP server at {url} (not "
                       "checked: it runs only while served)")
    command = found.get("command")
    if not isinstance(command, str):
        return finding(check, "fail", f"{path}: {name!r} has no command", fix)
    args = found.get("args")
    args = args if isinstance(args, list) else []
    runs = check_command([command, *map(str, args)], environ)
    if runs["status"] == "fail":
        return finding(check, "fail", f"{path}: {name!r} cannot start: {runs['message']}", fix)
    return finding(check, "warn", f"{path}: {name!r} starts another command: {runs['message']}",
                   fix)


def summary(findings: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts by status."""
    return {status: sum(1 for f in findings if f["status"] == status) for status in STATUSES}


def render(data: dict[str, Any]) -> str:
    """The person's form: one line per finding, its fix under it when it is not ok; the
    clients with nothing registered on one line at the end."""
    marks = {"ok": "ok", "fail": "FAIL", "warn": "warn", "skipped": "--"}
    shown = [item for item in data["findings"] if item["status"] != "absent"]
    absent = [item for item in data["findings"] if item["status"] == "absent"]
    width = max((len(item["check"]) for item in shown), default=0)
    lines = []
    for item in shown:
        lines.append(f"{marks[item['status']]:<4}  {item['check']:<{width}}  {item['message']}")
        if item["status"] != "ok" and item["fix"]:
            lines.append(f"{'':<4}  {'':<{width}}  fix: {item['fix']}")
    if absent:
        names = ", ".join(item["check"] for item in absent)
        lines.append(f"--    not set up: {names}")
        command = absent[0]["fix"].split(" --client ")[0]
        lines.append(f"      fix: {command} --client <client> [--scope project]")
    counts = data["summary"]
    lines.append(f"{counts['fail']} problem(s), {counts['warn']} warning(s)")
    return "\n".join(lines) + "\n"
