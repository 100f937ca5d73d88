"""What a process per server call costs (issue 29): burgee now, burgee before, the SDK's own
`MCPServer`, in one run, interleaved so machine noise falls on all alike.

1. tools/call round trip with the SDK's own client (handshake era), over stdio and over
   streamable HTTP (`--no-auth` for burgee: the token check is measured in
   `mcp_http_bounds.py`), back to back and `--spaced` ms apart (default 50, an agent's
   pace); per-call wall time of a trivial tool (`ping`).
2. Start-up: spawn `python app.py mcp`, write initialize + initialized + a tools/call as raw
   JSON-RPC lines over stdio, time until the tools/call answer arrives (the fork server and
   its first call process included).
3. Where the time goes, in one process with no MCP in the way: the same call run
   in-process (`workbench.runtime.pipeline.call`), in a call process of a fork server
   (`workbench.runtime.forks.ForkServer.call`), and a bare `fork` + `_exit` + `waitpid`.

"Before" is burgee at another revision (`--before REV`, default `main`), unpacked with
`git archive` and put first on PYTHONPATH.

    .venv/bin/python benchmarks/call_process.py --before f8c7fda [--calls 300] [--starts 15]
        [--write]

`--write` replaces that section of docs/performance.md. `--smoke` runs it once in a tiny
configuration to check that it runs: burgee now and the SDK only (`--before ''`), a few calls.
Its time is nearly all interpreter and MCP SDK start-ups (six servers: ~15 s alone, ~100 s
under a load of 8 on 2 cores): slow under load, never stuck (a server that stops answering
fails the run after `mcp_call.STUCK` seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import mcp_call  # noqa: E402 - a sibling benchmark
from _bench import (add_in_place, add_smoke, command_line, in_wheel_venv, install, parse,  # noqa: E402
                    replace_section, tree_path, unpack)

SECTION = "## One process per server call"

BURGEE, SDK = mcp_call.BURGEE, mcp_call.SDK   # the same ping tool in both benchmarks


def _env(tree: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT", "CI")}
    env.update(tree_path() if tree == ROOT else {"PYTHONPATH": str(tree)})
    return env


_percentile = mcp_call._percentile


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- round trips ------------------------------------------------------------------------------

async def _stdio(case, calls, pause=0.0):
    from mcp import Client, StdioServerParameters
    argv, tree = case
    params = StdioServerParameters(command=sys.executable, args=argv, env=_env(tree),
                                   cwd=str(ROOT))
    with mcp_call.stuck_after():
        async with Client(params, mode="legacy", cache=None) as client:
            return await mcp_call.timed_calls(client, calls, pause)


async def _http(case, calls, pause=0.0):
    import anyio
    from mcp import Client
    argv, tree = case
    port = _free_port()
    argv = [a.replace("PORT", str(port)) for a in argv]
    process = subprocess.Popen([sys.executable, *argv], env=_env(tree), cwd=str(ROOT),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                await anyio.sleep(0.05)
        with mcp_call.stuck_after():
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy",
                              cache=None) as client:
                return await mcp_call.timed_calls(client, calls, pause)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def round_trips(cases, calls, transport, rounds=3, pause=0.0):
    """Per-call seconds for each case, `rounds` alternating sessions of `calls // rounds`;
    `pause` seconds before each call (0: back to back)."""
    import anyio
    run = _stdio if transport == "stdio" else _http
    found = {name: [] for name in cases}
    for index in range(rounds):
        order = list(cases.items())
        if index % 2:
            order.reverse()
        for name, case in order:
            found[name] += anyio.run(run, case, calls // rounds, pause)
    return found


# -- start-up ---------------------------------------------------------------------------------

CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ping", "arguments": {}}}


def first_answer(case) -> float:
    """Seconds from spawn to the first tools/call answer."""
    argv, tree = case
    return mcp_call.first_list(argv, CALL, _env(tree))


def starts(cases, count, warmup=2):
    return mcp_call.starts(cases, count, first_answer, warmup)


# -- where the time goes ----------------------------------------------------------------------

def breakdown(calls: int) -> dict:
    """Per-call seconds, in this process: in-process, in a call process, a bare fork."""
    from workbench import Command, Program, call
    from workbench.runtime.forks import ForkServer
    program = Program(name="bench", version="1.0.0", description="b", commands=[
        Command(name="ping", description="p", effects="read_only",
                run=lambda ctx: {"pong": True})])
    forks = ForkServer.start(program)

    def forked():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    def in_call_process():
        return forks.call(["ping", "--json"], tool="ping")

    # (run, pause before each timed run): back to back, each call's spare is still being
    # forked and warmed for the next (throughput); 30 ms apart, a warm spare waits (latency)
    cases = {"in-process `pipeline.call`": (lambda: call(program, ["ping", "--json"]), 0),
             "a call process (`ForkServer.call`), back to back": (in_call_process, 0),
             "a call process, calls 30 ms apart": (in_call_process, 0.03),
             "bare `fork` + `_exit` + `waitpid`": (forked, 0)}
    found = {name: [] for name in cases}
    try:
        for index in range(3):
            for name, (run, pause) in (list(cases.items())[::-1] if index % 2
                                       else cases.items()):
                for _ in range(10):
                    run()
                for _ in range(calls // 3):
                    time.sleep(pause)
                    started = time.perf_counter()
                    run()
                    found[name].append(time.perf_counter() - started)
    finally:
        forks.close()
    return found


# -- report -----------------------------------------------------------------------------------

def _table(found, base_name, title) -> list:
    base = statistics.median(found[base_name])
    lines = [title, "", f"| server | median | p25–p75 | × {base_name} |", "|---|---:|---:|---:|"]
    for name, values in found.items():
        median = statistics.median(values)
        lines.append(f"| {name} | {median * 1000:.2f} ms | {_percentile(values, .25) * 1000:.2f}"
                     f"–{_percentile(values, .75) * 1000:.2f} | {median / base:.2f}× |")
    return lines + [""]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main",
                        help="the revision to compare with ('' for none)")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--sessions", type=int, default=3,
                        help="alternating sessions per server and transport (default 3)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="uncounted rounds of starts (default 2)")
    parser.add_argument("--spaced", type=float, default=50, metavar="MS",
                        help="also time calls MS milliseconds apart, as an agent makes them "
                             "(default 50; 0: only back to back)")
    parser.add_argument("--write", action="store_true")
    add_in_place(parser)
    add_smoke(parser, calls=3, starts=1, sessions=1, warmup=0, before="")
    options = parse(parser, argv)
    if not options.in_place:
        return in_wheel_venv(__file__, sys.argv[1:] if argv is None else list(argv))
    folder = Path(tempfile.mkdtemp(prefix="burgee-call-bench-"))
    try:
        return _measure(options, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(options, folder: Path) -> int:
    (folder / "app.py").write_text(BURGEE, encoding="utf-8")
    (folder / "sdk.py").write_text(SDK, encoding="utf-8")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    app, sdk = str(folder / "app.py"), str(folder / "sdk.py")
    now_name = f"burgee now ({head})"
    base_name = "SDK `MCPServer`"   # the yardstick when there is no before
    stdio = {now_name: ([app, "mcp"], ROOT)}
    http = {now_name: ([app, "mcp", "--http", "127.0.0.1:PORT", "--no-auth"], ROOT)}
    if options.before:
        before = unpack(options.before, folder)
        revision = subprocess.run(["git", "rev-parse", "--short", options.before], cwd=ROOT,
                                  capture_output=True, text=True).stdout.strip()
        base_name = f"burgee before ({revision})"
        stdio[base_name] = ([app, "mcp"], before)
        http[base_name] = ([app, "mcp", "--http", "127.0.0.1:PORT", "--no-auth"], before)
    stdio["SDK `MCPServer`"] = ([sdk], ROOT)
    http["SDK `MCPServer`"] = ([sdk, "PORT"], ROOT)
    load = os.getloadavg()[0]
    against = ("burgee before (`--before`)" if options.before else "the SDK's own `MCPServer`")
    lines = [SECTION, "",
             "Every tools/call of `tool mcp` and `asgi` runs in a call process of a fork "
             "server (docs/decisions.md, issue 29). A trivial tool (`ping`) served by burgee "
             + ("now, by burgee at another revision " if options.before else "")
             + "and by the SDK's own `MCPServer`; sessions interleaved in one run. Ratios: × "
             f"{against} (lower is faster).", "",
             f"- Command: `{command_line()}`",
             f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, Linux "
             f"{platform.release()}, CPython {platform.python_version()}; 1-minute load "
             f"{load:.1f} before the run (a shared machine: compare ratios)",
             f"- Install: {install()}", ""]
    lines += _table(round_trips(stdio, options.calls, "stdio", options.sessions), base_name,
                    f"tools/call round trip over stdio, SDK client (handshake era), "
                    f"{options.calls} calls each:")
    lines += _table(round_trips(http, options.calls, "http", options.sessions), base_name,
                    f"tools/call round trip over streamable HTTP (no auth), SDK client, "
                    f"{options.calls} calls each:")
    if options.spaced:
        for transport, cases, words in (("stdio", stdio, "stdio"),
                                        ("http", http, "streamable HTTP")):
            lines += _table(round_trips(cases, options.calls // 2, transport, options.sessions,
                                        options.spaced / 1000), base_name,
                            f"tools/call round trip over {words}, calls {options.spaced:g} ms "
                            "apart (as an agent makes them: each finds a warm spare), "
                            f"{options.calls // 2} calls each:")
    lines += _table(starts(stdio, options.starts, options.warmup), base_name,
                    f"Process start to the first tools/call answer (raw JSON-RPC over stdio, "
                    f"{options.starts} starts each after {options.warmup} warm-up rounds):")
    lines += _table(breakdown(options.calls), "in-process `pipeline.call`",
                    f"Where the time goes: the same call in one process, no MCP "
                    f"({options.calls} each):")
    lines.append(f"Load after the run: {os.getloadavg()[0]:.1f}.")
    text = "\n".join(lines)
    print(text)
    if options.write:
        replace_section(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
