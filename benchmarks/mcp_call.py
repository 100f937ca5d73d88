"""MCP over stdio: burgee's server vs the same tool on the SDK's own high-level `MCPServer`.

Two measurements, both servers in one run, interleaved so machine noise falls on both alike:

1. tools/call round trip: the SDK's own client (handshake era, `mode="legacy"`; and the
   2026 era with `--modern`) calls a trivial tool N times over stdio; per-call wall time.
2. start-up: spawn `python SERVER`, write initialize + initialized + tools/list as raw
   JSON-RPC lines, time until the tools/list answer arrives (no client library in the way).

    .venv/bin/python benchmarks/mcp_call.py [--calls 300] [--starts 15] [--write]
    .venv/bin/python benchmarks/mcp_call.py --smoke    # seconds: check that it runs

`--write` appends the results under the "MCP" heading of docs/performance.md (replacing
that section if it is there).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import (add_in_place, add_smoke, command_line, in_wheel_venv, install, parse,  # noqa: E402
                    replace_section, tree_path)

BURGEE = textwrap.dedent('''
    from workbench import Command, Program, run

    program = Program(name="bench", version="1.0.0", description="benchmark", commands=[
        Command(name="ping", description="Answer pong", effects="read_only",
                run=lambda ctx: {"pong": True}),
    ])

    if __name__ == "__main__":
        run(program)
''')

SDK = textwrap.dedent('''
    import sys

    from mcp.server import MCPServer

    server = MCPServer("bench")

    @server.tool(description="Answer pong")
    def ping() -> str:
        return '{"pong":true}'

    if __name__ == "__main__":
        if len(sys.argv) > 1:   # a port: streamable HTTP (benchmarks/call_process.py)
            server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
        else:
            server.run("stdio")
''')


def _percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT", "CI")}
    env.update(tree_path())
    return env


async def timed_calls(client, calls, pause: float = 0.0):
    """Per-call seconds of `calls` pings on an open session, after a warm-up; `pause`
    seconds before each (0: back to back)."""
    import anyio
    await client.list_tools()
    for _ in range(min(20, calls)):           # warm-up
        await client.call_tool("ping", {})
    times = []
    for _ in range(calls):
        if pause:
            await anyio.sleep(pause)
        started = time.perf_counter()
        result = await client.call_tool("ping", {})
        times.append(time.perf_counter() - started)
        assert not result.is_error
    return times


async def _round_trips(argv, calls, mode):
    from mcp import Client, StdioServerParameters
    params = StdioServerParameters(command=sys.executable, args=argv, env=_env(), cwd=str(ROOT))
    with stuck_after():
        async with Client(params, mode=mode, cache=None) as client:
            return await timed_calls(client, calls)


def round_trips(cases, calls, mode, rounds=3):
    """Per-call seconds for each case, `rounds` alternating sessions of `calls // rounds`."""
    import anyio
    found = {name: [] for name in cases}
    for index in range(rounds):
        order = list(cases.items())
        if index % 2:
            order.reverse()
        for name, argv in order:
            found[name] += anyio.run(_round_trips, argv, calls // rounds, mode)
    return found


INIT = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
STUCK = 300
"""Seconds without an answer after which a server counts as stuck: the run fails then
instead of waiting for ever (a loaded machine makes it slow, not stuck)."""


def stuck_after(seconds: float = STUCK):
    """A scope that fails an MCP session left without an answer for `seconds`."""
    import anyio
    return anyio.fail_after(seconds)


def first_list(argv, request=LIST, env=None) -> float:
    """Seconds from spawn to the answer of `request` (id 2; tools/list), sent as raw
    JSON-RPC lines after initialize over stdio."""
    payload = "".join(json.dumps(m) + "\n" for m in [*INIT, request]).encode()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, *argv], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=env or _env(), cwd=str(ROOT))
    stuck = threading.Timer(STUCK, process.kill)   # its output ends: the loop stops
    stuck.start()
    try:
        process.stdin.write(payload)
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"{argv} ended before answering {request['method']}")
            if json.loads(line).get("id") == 2:
                elapsed = time.perf_counter() - started
                break
        process.stdin.close()
        process.wait(STUCK)
    finally:
        stuck.cancel()
    return elapsed


def starts(cases, count, measure=first_list, warmup=2):
    """{name: seconds of `measure(case)`} for each case, `count` times after `warmup`
    uncounted rounds (bytecode, caches), interleaved."""
    found = {name: [] for name in cases}
    for index in range(count + warmup):
        order = list(cases.items())
        if index % 2:
            order.reverse()
        for name, case in order:
            value = measure(case)
            if index >= warmup:
                found[name].append(value)
    return found


def _row(name, values, base):
    median = statistics.median(values)
    return (f"| {name} | {median * 1000:.2f} ms | {_percentile(values, .25) * 1000:.2f}–"
            f"{_percentile(values, .75) * 1000:.2f} | {median / base:.2f}× |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--sessions", type=int, default=3,
                        help="alternating sessions per server and era (default 3)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="uncounted rounds of starts (default 2)")
    parser.add_argument("--write", action="store_true")
    add_in_place(parser)
    add_smoke(parser, calls=3, starts=1, sessions=1, warmup=0)
    options = parse(parser, argv)
    if not options.in_place:
        return in_wheel_venv(__file__, sys.argv[1:] if argv is None else list(argv))
    folder = Path(tempfile.mkdtemp(prefix="burgee-mcp-bench-"))
    try:
        return _measure(options, folder)
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)


def _measure(options, folder: Path) -> int:
    (folder / "burgee_server.py").write_text(BURGEE, encoding="utf-8")
    (folder / "sdk_server.py").write_text(SDK, encoding="utf-8")
    cases = {"burgee (`python app.py mcp`)": [str(folder / "burgee_server.py"), "mcp"],
             "SDK `MCPServer`": [str(folder / "sdk_server.py")]}
    base_name = "SDK `MCPServer`"
    lines = ["## MCP", "",
             "A trivial tool (`ping`, no arguments) served over stdio by burgee (`python app.py "
             "mcp`, the low-level SDK server; each call in a call process of its own, issue 29) and by the same tool on the SDK's high-level "
             "`MCPServer`; both in one run, sessions interleaved. Ratio: × the SDK's "
             "`MCPServer` (lower is faster).", "",
             f"- Command: `{command_line()}`",
             f"- Load: 1-minute load average {os.getloadavg()[0]:.1f} before the run",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, Linux "
             f"{platform.release()}, CPython {platform.python_version()}",
             f"- Install: {install()}",
             f"- mcp {_version('mcp')}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             ""]
    for mode, title in (("legacy", "handshake era (2025-11-25)"),
                        ("2026-07-28", "2026 era (2026-07-28)")):
        found = round_trips(cases, options.calls, mode, options.sessions)
        base = statistics.median(found[base_name])
        lines += [f"tools/call round trip, SDK client, {title}, {options.calls} calls each:", "",
                  "| server | median | p25–p75 | × MCPServer |", "|---|---:|---:|---:|"]
        lines += [_row(name, values, base) for name, values in found.items()]
        lines.append("")
    found = starts(cases, options.starts, warmup=options.warmup)
    base = statistics.median(found[base_name])
    lines += [f"Process start to the first tools/list answer (raw JSON-RPC over stdio, "
              f"{options.starts} starts each after {options.warmup} warm-up rounds):", "",
              "| server | median | p25–p75 | × MCPServer |", "|---|---:|---:|---:|"]
    lines += [_row(name, values, base) for name, values in found.items()]
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if options.write:
        replace_section("## MCP", text)
    return 0


def _version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
