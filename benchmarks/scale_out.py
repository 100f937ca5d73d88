"""Scale-out: `workbench.mcp.asgi` under `uvicorn app:app --workers N` with the PostgreSQL
idempotency store, for N = 1 and 4, in one run.

For each N, against a throwaway PostgreSQL (tests/_postgres.py) and tests/programs/keyed.py:

1. one key: 16 clients at once call `act` with the same idempotency key while the body is held
   at a gate; each client first asks `who` on its connection, so the workers that served the
   16 are named. Checked: the body ran once, 16 identical results (15 replayed).
2. mixed: 2,000 calls from 20 concurrent clients (one SDK client session each), in turn
   `who` (read-only), `act` with a fresh key (runs the body), `act` repeating this client's
   previous key (a replay), `act` with a key all clients share in that round (a race).
   Checked: 0 errors. Measured: calls/s over the phase, p50/p99 per-call latency, and CPU
   per call of the workers and of the client.

    .venv/bin/python benchmarks/scale_out.py [--calls 2000] [--clients 20] [--workers 1 4] [--write]
    .venv/bin/python benchmarks/scale_out.py --smoke    # seconds: check that it runs

`--write` puts the table under the "Scale-out" heading of docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import add_smoke, parse, replace_section  # noqa: E402
KEYED = ROOT / "tests" / "programs" / "keyed.py"

from _mcp_helpers import authed  # noqa: E402
from _postgres import missing, throwaway_postgres  # noqa: E402
from _uvicorn import uvicorn_pool, worker_pids  # noqa: E402


def _doc(result) -> dict:
    return json.loads(result.content[0].text)


async def one_key(url, folder: Path, tag: str, clients=16) -> dict:
    from mcp import Client
    log, gate = folder / "one-key.log", folder / "one-key.gate"
    arguments = {"log": str(log), "gate": str(gate), "idempotency_key": f"{tag}-one-key"}
    answers = []

    async def client():
        async with Client(authed(url), mode="legacy", cache=None) as session:
            pid = _doc(await session.call_tool("who", {}))["data"]["pid"]
            answers.append((pid, _doc(await session.call_tool("act", arguments))))

    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(client)
        with anyio.fail_after(300):
            while not (log.exists() and "start" in log.read_text()):
                await anyio.sleep(0.05)
        await anyio.sleep(0.5)
        gate.write_text("")
    docs = [doc for _, doc in answers]
    return {"calls": len(docs), "ok": sum(bool(d.get("ok")) for d in docs),
            "identical": len({json.dumps(d.get("data"), sort_keys=True) for d in docs}) == 1,
            "replayed": sum(bool(d.get("meta", {}).get("replayed")) for d in docs),
            "body_runs": sum(line.startswith("start") for line in log.read_text().splitlines()),
            "workers_serving": len({pid for pid, _ in answers})}


async def mixed(url, folder: Path, calls: int, clients: int, tag: str) -> dict:
    from mcp import Client
    log = str(folder / f"mixed-{tag}.log")
    latencies, errors, pids = [], [], set()
    per_client = calls // clients

    async def client(number):
        async with Client(authed(url), mode="legacy", cache=None) as session:
            previous = None
            for index in range(per_client):
                kind = index % 4
                if kind == 0:
                    name, arguments = "who", {}
                else:
                    key = {1: f"{tag}-{number}-{index}", 2: previous,
                           3: f"{tag}-shared-{index}"}[kind] or f"{tag}-{number}-first"
                    name, arguments = "act", {"log": log, "idempotency_key": key}
                    previous = key if kind == 1 else previous
                started = time.perf_counter()
                try:
                    result = await session.call_tool(name, arguments)
                    doc = _doc(result)
                    if result.is_error or not doc.get("ok"):
                        errors.append(doc.get("error"))
                    elif name == "who":
                        pids.add(doc["data"]["pid"])
                except Exception as error:  # noqa: BLE001 - counted, not raised
                    errors.append(repr(error))
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for number in range(clients):
            group.start_soon(client, number)
    wall = time.perf_counter() - started
    latencies.sort()
    return {"calls": len(latencies), "errors": len(errors), "first_errors": errors[:3],
            "seconds": wall, "per_second": len(latencies) / wall,
            "p50_ms": 1000 * statistics.median(latencies),
            "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "workers_serving": len(pids)}


def _cpu(pids) -> float:
    """CPU seconds (user + system) the worker processes used so far, from /proc."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def measure(workers_list, calls, clients) -> list[dict]:
    rows = []
    with throwaway_postgres() as database, tempfile.TemporaryDirectory() as scratch:
        for workers in workers_list:
            folder = Path(scratch) / f"w{workers}"
            folder.mkdir()
            env = {**os.environ, "BURGEE_IDEMPOTENCY_URL": database,
                   "BURGEE_STATE_DIR": str(folder / "state"), "PYTHONPATH": str(ROOT),
                   "PYTHONDONTWRITEBYTECODE": "1"}
            with uvicorn_pool(KEYED, workers, env, folder) as url:
                pids = anyio.run(worker_pids, url, workers)
                race = anyio.run(one_key, url, folder, f"w{workers}")
                server, client = _cpu(pids), resource.getrusage(resource.RUSAGE_SELF)
                load = anyio.run(mixed, url, folder, calls, clients, f"w{workers}")
                after = resource.getrusage(resource.RUSAGE_SELF)
                load["server_cpu_ms"] = 1000 * (_cpu(pids) - server) / load["calls"]
                load["client_cpu_ms"] = 1000 * (after.ru_utime + after.ru_stime - client.ru_utime
                                                - client.ru_stime) / load["calls"]
            rows.append({"workers": workers, "one_key": race, "mixed": load})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def table(rows, calls, clients) -> str:
    lines = ["| uvicorn workers | one key: body runs / identical / replayed / workers serving "
             f"| {calls} mixed calls, {clients} clients: errors | calls/s | p50 ms | p99 ms "
             "| server CPU ms/call | client CPU ms/call |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        race, load = row["one_key"], row["mixed"]
        lines.append(f"| {row['workers']} | {race['body_runs']} / "
                     f"{'yes' if race['identical'] else 'NO'} ({race['ok']}/{race['calls']} ok)"
                     f" / {race['replayed']} / {race['workers_serving']} | {load['errors']} | "
                     f"{load['per_second']:.0f} | {load['p50_ms']:.1f} | {load['p99_ms']:.1f} | "
                     f"{load['server_cpu_ms']:.1f} | {load['client_cpu_ms']:.1f} |")
    if len(rows) > 1 and rows[0]["mixed"]["per_second"]:
        ratio = rows[-1]["mixed"]["per_second"] / rows[0]["mixed"]["per_second"]
        lines.append(f"\n{rows[-1]['workers']} workers / {rows[0]['workers']} worker "
                     f"throughput: {ratio:.2f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--write", action="store_true")
    add_smoke(parser, calls=20, clients=2, workers=[1])
    options = parse(parser)
    reason = missing()
    if reason:
        sys.exit(f"scale_out: {reason}")
    rows = measure(options.workers, options.calls, options.clients)
    load = os.getloadavg()
    command = ("python benchmarks/scale_out.py " + " ".join(sys.argv[1:])).strip()
    text = (f"## Scale-out\n\n`{command}` — {platform.python_implementation()} "
            f"{platform.python_version()}, {os.cpu_count()} cores, load average "
            f"{load[0]:.1f} at the end (the machine was shared and loaded). "
            "uvicorn serving `workbench.mcp.asgi` (stateless) for tests/programs/keyed.py, "
            "the PostgreSQL idempotency store on a throwaway local server; the SDK's client, "
            "handshake era; the client runs in the benchmark's own process on the same "
            "machine.\n\n" + table(rows, options.calls, options.clients) + "\n\n"
            "What it shows is correctness spread over workers (one body run for 16 racing "
            "calls, no error in the mixed load). Throughput cannot grow with workers on a "
            "machine with fewer free cores than workers: read the ratio only from a run on "
            "an idle machine with at least as many cores as workers plus the client. CPU "
            "per call (the workers' user + system time from /proc, the benchmark process's "
            "own for the client) depends less on the load: the SDK client in one process "
            "costs more than half what the server does per call.\n")
    print(text)
    if options.write:
        replace_section("## Scale-out", text)


if __name__ == "__main__":
    main()
