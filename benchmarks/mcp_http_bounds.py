"""The HTTP server's guard and bounds, measured on real `tool mcp --http` processes.

1. Session flood: N authenticated `initialize` requests (raw HTTP, 20 at a time) against the
   default bound (--max-sessions 100, oldest idle evicted) and against --max-sessions 10000
   (the SDK's own default, where nothing is evicted); statuses, seconds, the server's RSS
   before and after, and whether a new client is still served.
2. Auth cost: tools/call round trips with the SDK's client, with the bearer token and with
   --no-auth, sessions interleaved in one run; the ratio is what the guard costs.

    .venv/bin/python benchmarks/mcp_http_bounds.py [--initialize 2000] [--calls 300] [--write]
    .venv/bin/python benchmarks/mcp_http_bounds.py --smoke    # seconds: check that it runs

`--write` appends (or replaces) the "HTTP guard and bounds" section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import add_smoke, command_line, parse, replace_section  # noqa: E402
HUGE = ROOT / "tests" / "programs" / "huge.py"
TOKEN = "benchmark-token-" + "b" * 32
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "flood", "version": "1"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "Authorization": f"Bearer {TOKEN}"}


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _start(*flags):
    env = dict(os.environ, BURGEE_MCP_TOKEN=TOKEN, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, str(HUGE), "mcp", "--http", "127.0.0.1:0",
                                *flags], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return process, process.stderr.readline().split()[-1]


async def flood(count: int, flags) -> dict:
    import httpx2
    process, url = _start(*flags)
    try:
        await anyio.sleep(1)
        before, statuses = _rss_mb(process.pid), {}
        started = time.perf_counter()
        async with httpx2.AsyncClient(timeout=120) as http:
            limit = anyio.Semaphore(20)

            async def one():
                async with limit:
                    answer = await http.post(url, headers=HEADERS, json=INITIALIZE)
                    statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

            async with anyio.create_task_group() as group:
                for _ in range(count):
                    group.start_soon(one)
            seconds = time.perf_counter() - started
            after = _rss_mb(process.pid)
            late = (await http.post(url, headers=HEADERS, json=INITIALIZE)).status_code
        return {"flags": " ".join(flags), "count": count, "statuses": statuses,
                "seconds": seconds, "before": before, "after": after, "late": late}
    finally:
        process.terminate()
        process.wait()


async def round_trips(calls: int) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from _mcp_helpers import authed
    from mcp import Client
    servers = {"bearer token": _start(), "--no-auth": _start("--no-auth")}
    times = {name: [] for name in servers}
    try:
        clients = {}
        async with Client(authed(servers["bearer token"][1], TOKEN), mode="legacy",
                          cache=None) as with_token, \
                Client(authed(servers["--no-auth"][1], None), mode="legacy",
                       cache=None) as without:
            clients = {"bearer token": with_token, "--no-auth": without}
            for client in clients.values():
                for _ in range(20):
                    await client.call_tool("small", {})
            for _ in range(calls):
                for name, client in clients.items():
                    started = time.perf_counter()
                    await client.call_tool("small", {})
                    times[name].append((time.perf_counter() - started) * 1000)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait()
    return {name: statistics.quantiles(values, n=4) for name, values in times.items()}


def report(floods, trips, args) -> str:
    lines = ["## HTTP guard and bounds", "",
             "`tool mcp --http` processes (`tests/programs/huge.py`), a bearer token on every "
             "request. A flood of authenticated `initialize` requests (raw HTTP, 20 at a time) "
             "against the default bound and against the SDK's own default limit, then "
             "`tools/call` round trips with and without the token guard, interleaved.", "",
             f"- Command: `{command_line()}`",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()} "
             f"{platform.release()}, CPython {platform.python_version()}; shared with other "
             "work while it ran (loaded), so seconds are indicative, ratios and memory less so",
             f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             "| sessions bound | initialize | statuses | seconds | RSS before → after | "
             "a new client after |", "|---|---:|---|---:|---|---:|"]
    for row in floods:
        shown = ", ".join(f"{code}: {n}" for code, n in sorted(row["statuses"].items()))
        lines.append(f"| {row['flags'] or '--max-sessions 100 (default)'} | {row['count']} | "
                     f"{shown} | {row['seconds']:.1f} | {row['before']:.0f} → "
                     f"{row['after']:.0f} MB | {row['late']} |")
    base = trips["--no-auth"][1]
    lines += ["", f"tools/call round trip, SDK client, handshake era, {args.calls} calls each:",
              "", "| server | median | p25–p75 | × --no-auth |", "|---|---:|---:|---:|"]
    for name, (p25, p50, p75) in trips.items():
        lines.append(f"| {name} | {p50:.2f} ms | {p25:.2f}–{p75:.2f} | {p50 / base:.2f}× |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--initialize", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--write", action="store_true")
    add_smoke(parser, initialize=5, calls=3)
    args = parse(parser)
    floods = [anyio.run(flood, args.initialize, ()),
              anyio.run(flood, args.initialize, ("--max-sessions", "10000"))]
    trips = anyio.run(round_trips, args.calls)
    section = report(floods, trips, args)
    print(section)
    if args.write:
        replace_section("## HTTP guard and bounds", section)


if __name__ == "__main__":
    main()
