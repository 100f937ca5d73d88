"""Big programs: the same generated CLI at N = 10, 100, 1,000 and 5,000 commands, burgee vs Click.

Each program has groups of 20 commands, 4 options each (string, integer, boolean, choice)
and one example. Every case is a fresh interpreter (`python RUNNER ARGS`) timed from spawn
to exit, interleaved round-robin across N and framework so machine noise falls on all
alike; the programs and burgee itself are imported with bytecode compiled (as an installed
program is), and burgee's check verdict is recorded by one warm-up call first (as a released
program's first start does). tools/list is timed in-process: the first answer for a program
generation (build, validate, wire form) and a repeat (cached, encoded as the transport does).
The command call is also timed with `run()`'s exit hook off (what freezing the declaration at
exit saves), and the interpreter alone on an empty file, in the same interleaved rounds.

    .venv/bin/python benchmarks/scale.py                  # print the tables
    .venv/bin/python benchmarks/scale.py --runs 7 --write # and update docs/performance.md
    git archive REV workbench | tar -x -C /tmp/old           # an older tree, then:
    .venv/bin/python benchmarks/scale.py --against /tmp/old  # before/after, in-process
    .venv/bin/python benchmarks/scale.py --lazy --runs 3 --write
        # lazy groups (a root module, one module per group) against eager and Click
    .venv/bin/python benchmarks/scale.py --workbench --sizes 10,100,1000 --write
        # burgee dev at N: `--headless` (wall and CPU, one run each) and save -> new
        # tools/list over streamable HTTP (the SDK's client; medians of --runs saves)

The machine is shared: the default (5 timed runs per case) takes about a minute on 2 cores.
No test depends on these timings; they are measurements, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import compileall
import py_compile
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import (add_in_place, add_smoke, command_line, in_wheel_venv, install, parse,  # noqa: E402
                    replace_section)

SECTION = "## Big programs"
SIZES = (10, 100, 1000, 5000)
CASES = {   # case -> argv (None: the framework has nothing built in)
    "--help": {"burgee": ["--help"], "click": ["--help"]},
    "command call": {"burgee": ["g0", "c1", "--alpha", "a", "--json"],
                     "click": ["g0", "c1", "--alpha", "a"]},
    "usage error": {"burgee": ["g0", "c1", "--alpah", "a"], "click": ["g0", "c1", "--alpah", "a"]},
    "help --json": {"burgee": ["help", "--json"], "click": None},
    "--schema": {"burgee": ["--schema"], "click": None},
}
GROUP_SCHEMA = {"group --schema": {"burgee": ["g0", "--schema"], "click": None}}   # lazy table


def _shape(n: int):
    for g in range(max(1, n // 20)):
        yield g, range(min(20, n))


def _group_block(g: int, commands, indent: str) -> str:
    """`Group('gG', ...)` with its generated commands, as source indented by `indent`."""
    out = [f"{indent}Group('g{g}', 'group {g}', commands=[\n"]
    for c in commands:
        out.append(
            f"{indent}    Command('c{c}', 'command {c} of group {g}', effects='read_only',"
            f" run=handler, options={{\n"
            f"{indent}        'alpha': Option(description='the alpha value'),\n"
            f"{indent}        'beta': Option(type='integer', description='how many', default=1),\n"
            f"{indent}        'gamma': Option(type='boolean', description='gamma or not'),\n"
            f"{indent}        'delta': Option(type='enum', choices=['x', 'y'],"
            f" description='which delta')}},\n"
            f"{indent}        examples=['big g{g} c{c} --alpha a']),\n")
    out.append(f"{indent}])")
    return "".join(out)


_HEAD = ("from workbench import Command, Group, Option, Program, run\n\n"
         "def handler(ctx):\n    return {'ok': True, 'options': ctx.options}\n\n")


def burgee_source(n: int) -> str:
    """The generated burgee program with `n` commands."""
    out = [_HEAD, "program = Program('big', '1.0.0', 'a generated program', commands=[\n"]
    for g, commands in _shape(n):
        out.append(_group_block(g, commands, "    ") + ",\n")
    out.append("])\n\n\ndef main():\n    run(program)\n")
    return "".join(out)


def lazy_sources(n: int, package: str) -> dict:
    """The same program with lazy groups: relative path -> source (a small root module, and
    one module per group in `package`)."""
    files = {f"{package}/__init__.py": ""}
    root = ["from workbench import Group, Program, run\n\n",
            "program = Program('big', '1.0.0', 'a generated program', commands=[\n"]
    for g, commands in _shape(n):
        files[f"{package}/g{g}.py"] = _HEAD + "group = " + _group_block(g, commands, "") + "\n"
        root.append(f"    Group('g{g}', 'group {g}', load='{package}.g{g}:group'),\n")
    root.append("])\n\n\ndef main():\n    run(program)\n")
    files[f"{package}_root.py"] = "".join(root)
    return files


def click_source(n: int) -> str:
    """The same program in Click, written the way its documentation would."""
    out = ["import json\n\nimport click\n\n\n@click.group()\n@click.version_option('1.0.0')\n"
           "def cli():\n    \"\"\"a generated program\"\"\"\n\n\n"]
    for g, commands in _shape(n):
        out.append(f"@cli.group('g{g}')\ndef g{g}():\n    \"\"\"group {g}\"\"\"\n\n\n")
        for c in commands:
            out.append(
                f"@g{g}.command('c{c}')\n"
                f"@click.option('--alpha', help='the alpha value')\n"
                f"@click.option('--beta', type=int, default=1, help='how many')\n"
                f"@click.option('--gamma', is_flag=True, help='gamma or not')\n"
                f"@click.option('--delta', type=click.Choice(['x', 'y']), help='which delta')\n"
                f"def g{g}_c{c}(alpha, beta, gamma, delta):\n"
                f"    \"\"\"command {c} of group {g}\n\n    Example: big g{g} c{c} --alpha a\"\"\"\n"
                f"    click.echo(json.dumps({{'ok': True}}))\n\n\n")
    out.append("def main():\n    cli(prog_name='big')\n")
    return "".join(out)


def _compile_framework(tree: Path = ROOT) -> None:
    """Compile the measured burgee tree's bytecode, as installing a wheel does (Click's is, in
    the venv): under PYTHONDONTWRITEBYTECODE every start would compile its modules again."""
    compileall.compile_dir(str(tree / "workbench"), quiet=1)


def _write(folder: Path, n: int) -> dict:
    """Write both programs and their runners for size `n` (bytecode compiled, burgee's own
    too); returns framework -> runner path."""
    _compile_framework()
    runners = {}
    for framework, source in (("burgee", burgee_source(n)), ("click", click_source(n))):
        module = f"big_{framework}_{n}"
        (folder / f"{module}.py").write_text(source)
        py_compile.compile(str(folder / f"{module}.py"), doraise=True)
        runner = folder / f"run_{framework}_{n}.py"
        runner.write_text(f"import {module}\n{module}.main()\n")
        runners[framework] = runner
    return runners


def _write_lazy(folder: Path, n: int) -> Path:
    """Write the lazy-group program for size `n` (bytecode compiled); returns its runner."""
    package = f"biglazy_{n}"
    for relative, source in lazy_sources(n, package).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        py_compile.compile(str(path), doraise=True)
    runner = folder / f"run_lazy_{n}.py"
    runner.write_text(f"import {package}_root\n{package}_root.main()\n")
    return runner


def _spawn(runner: Path, argv: list, env: dict) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(runner), *argv], env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started, done.returncode


def _in_process(folder: Path, n: int, runs: int) -> dict:
    """In one process: tools/list's first answer and a repeat (median of `runs`), and
    `--schema`'s document for the loaded program."""
    code = (
        "import json, sys, time\n"
        f"sys.path.insert(0, {str(folder)!r})\n"
        f"import big_burgee_{n} as m\n"
        "import pydantic_core\n"
        "from workbench.mcp.server import ProgramServer\n"
        "server = ProgramServer(m.program)\n"
        "t = time.perf_counter()\n"
        "pages = server._listing_of(m.program).pages('2025-06-18')\n"   # as the first request
        "first = time.perf_counter() - t\n"
        "again = []\n"
        f"for _ in range({runs}):\n"
        "    t = time.perf_counter()\n"
        "    [pydantic_core.to_json(page) for page in pages]\n"   # what a repeat encodes
        "    again.append(time.perf_counter() - t)\n"
        "from workbench.surfaces.schema import program_schema\n"
        "t = time.perf_counter(); program_schema(m.program); schema = time.perf_counter() - t\n"
        "size = sum(len(pydantic_core.to_json(page)) for page in pages)\n"
        "print(json.dumps({'first': first, 'again': sorted(again)[len(again) // 2],"
        " 'bytes': size, 'schema': schema}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=_env(folder))
    return json.loads(done.stdout)


def _env(folder: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=str(folder))
    env.pop("BURGEE_CHECK", None)
    return env


def measure(runs: int, sizes=SIZES) -> dict:
    """Median seconds per (case, framework, n), plus tools/list figures per n."""
    with tempfile.TemporaryDirectory(prefix="burgee-scale-") as tmp:
        folder = Path(tmp)
        env = _env(folder)
        runners = {n: _write(folder, n) for n in sizes}
        for n in sizes:    # the same call with run()'s exit hook off (docs/decisions.md)
            runners[n]["thawed"] = folder / f"run_thawed_{n}.py"
            runners[n]["thawed"].write_text(
                f"import workbench.entry\nworkbench.entry._EXIT_REGISTERED = True\n"
                f"import big_burgee_{n}\nbig_burgee_{n}.main()\n")
        runners[sizes[0]]["bare"] = folder / "run_nothing.py"   # the interpreter alone
        runners[sizes[0]]["bare"].write_text("")
        jobs = [(case, framework, n) for case, argvs in CASES.items()
                for framework, argv in argvs.items() if argv is not None for n in sizes]
        jobs += [("command call", "thawed", n) for n in sizes]
        jobs.append(("command call", "bare", sizes[0]))
        medians = _timed(jobs, runners, {"burgee": "burgee", "click": "click",
                                         "thawed": "burgee", "bare": "burgee"}, env, runs)
        tools = {n: _in_process(folder, n, runs) for n in sizes}
    return {"medians": medians, "tools": tools}


LAZY_SECTION = "## Big programs, lazy groups"
LAZY_CASES = ("command call", "--help", "usage error", "--schema", "group --schema")
LAZY_SIZES = (10, 1000, 5000)


def measure_lazy(runs: int, sizes=LAZY_SIZES) -> dict:
    """Median seconds per (case, variant, n): burgee eager, burgee lazy, Click; interleaved."""
    with tempfile.TemporaryDirectory(prefix="burgee-scale-") as tmp:
        folder = Path(tmp)
        env = _env(folder)
        runners = {}
        for n in sizes:
            runners[n] = _write(folder, n)
            runners[n]["lazy"] = _write_lazy(folder, n)
        argv = {"lazy": "burgee", "burgee": "burgee", "click": "click"}
        jobs = [(case, variant, n) for case in LAZY_CASES for variant in argv for n in sizes
                if _argv(case, argv[variant]) is not None]
        return _timed(jobs, runners, argv, env, runs)


def _argv(case: str, framework: str) -> list | None:
    return {**CASES, **GROUP_SCHEMA}[case][framework]


def _timed(jobs, runners, argv_of, env, runs: int) -> dict:
    """Median seconds per (case, variant, n) job: one warm-up each (the verdicts, the page
    cache), then `runs` rounds, each starting one job later (interleaved)."""
    def spawn(job):
        case, variant, n = job
        return _spawn(runners[n][variant], _argv(case, argv_of[variant]), env)

    for job in jobs:
        code = spawn(job)[1]
        if code != (2 if job[0] == "usage error" else 0):
            raise SystemExit(f"{job[1]} N={job[2]} {job[0]!r} exited {code}")
    times: dict = {job: [] for job in jobs}
    for round_ in range(runs):
        for job in jobs[round_ % len(jobs):] + jobs[:round_ % len(jobs)]:
            times[job].append(spawn(job)[0])
    return {job: statistics.median(values) for job, values in times.items()}


def render_lazy(medians: dict, runs: int, sizes=LAZY_SIZES) -> str:
    lines = [LAZY_SECTION, "",
             "The program of \"Big programs\" declared with lazy groups: a small root module "
             "with N/20 `Group('gG', 'group G', load='biglazy_N.gG:group')`, one module per "
             "group (all bytecode-compiled), against the same program declared eagerly and "
             "in Click. Every case a fresh interpreter, medians, interleaved; the verdicts "
             "were recorded by a warm-up call (a released program after its first start).", "",
             f"- Command: `{command_line()}`",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, "
             f"{platform.system()} {platform.release()}, CPython {platform.python_version()}",
             f"- Install: {install()}",
             f"- Runs: {runs} timed per case after one warm-up; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the end "
             f"{os.getloadavg()[0]:.1f} (shared machine: absolute times swell with it)", "",
             "| case | N | lazy | × lazy N=10 | eager | lazy ÷ eager | Click | lazy ÷ Click |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for case in LAZY_CASES:
        base = medians[(case, "lazy", sizes[0])]
        for n in sizes:
            lazy, eager = medians[(case, "lazy", n)], medians[(case, "burgee", n)]
            click = medians.get((case, "click", n))
            lines.append(f"| `{case}` | {n:,} | {_ms(lazy)} | {lazy / base:.2f}× | {_ms(eager)}"
                         f" | {lazy / eager:.2f}× | "
                         + (f"{_ms(click)} | {lazy / click:.2f}× |" if click else
                            "none built in | |"))
    eager = (medians[("command call", "burgee", sizes[-1])]
             / medians[("command call", "burgee", sizes[0])])
    lines += ["", f"The eager form's command call at N={sizes[-1]:,} is {eager:.2f}× its "
              f"N={sizes[0]} in the same run; Click builds its whole tree too.", "",
              "Target (issue 18), for the lazy form:", ""]
    schema = medians[("--schema", "lazy", sizes[-1])]
    lines.append(f"- `--schema` at N={sizes[-1]:,} under 100 ms: "
                 f"**{'met' if schema < 0.1 else 'not met'}** ({_ms(schema)}, the whole process).")
    for case in LAZY_CASES[:3]:
        ratio = medians[(case, "lazy", sizes[-1])] / medians[(case, "lazy", sizes[0])]
        lines.append(f"- `{case}` at N={sizes[-1]:,} within 1.5× of N={sizes[0]}: "
                     f"**{'met' if ratio <= 1.5 else 'not met'}** ({ratio:.2f}×).")
    return "\n".join(lines) + "\n"


AGAINST = """
import io, json, os, sys, time
sys.path.insert(0, sys.argv[1])
t = time.perf_counter()
import workbench
from workbench.runtime.pipeline import World, execute
from workbench.surfaces.schema import program_schema
t0 = time.perf_counter()
import {module} as m
t1 = time.perf_counter()
execute(m.program, ['g0', 'c1', '--alpha', 'a', '--json'],
        World(os.environ, io.StringIO(), io.StringIO(), io.StringIO()))
t2 = time.perf_counter()
program_schema(m.program)
t3 = time.perf_counter()
print(json.dumps({{"tree": workbench.__file__, "build": t1 - t0, "call": t2 - t1,
                  "schema": t3 - t2}}))
"""


def against(tree: str, n: int, runs: int) -> str:
    """Before/after in one process per run: build the N-command program (module run, checks
    or their verdict), its first call, and `--schema`'s document; trees alternate."""
    with tempfile.TemporaryDirectory(prefix="burgee-scale-") as tmp:
        folder = Path(tmp)
        _write(folder, n)
        env = _env(folder)
        trees = {"before": str(Path(tree).resolve()), "after": str(ROOT)}
        _compile_framework(Path(trees["before"]))
        rows: dict = {label: [] for label in trees}
        for round_ in range(runs + 1):   # the first round records the verdict, not timed
            for label, path in trees.items():
                env_tree = dict(env, PYTHONPATH=f"{path}{os.pathsep}{folder}")
                done = subprocess.run(
                    [sys.executable, "-c", AGAINST.format(module=f"big_burgee_{n}"), path],
                    env=env_tree, capture_output=True, text=True, check=True)
                row = json.loads(done.stdout)
                if not row["tree"].startswith(path):
                    raise SystemExit(f"{label} imported {row['tree']}, not {path}")
                if round_:
                    rows[label].append(row)
    lines = [f"In-process at N={n:,}, medians of {runs}, trees alternating "
             f"(load average at the end {os.getloadavg()[0]:.1f}):", "",
             "| step | before | after | after ÷ before |", "|---|---:|---:|---:|"]
    for step, words in (("build", "build the program (module run + checks or verdict)"),
                        ("call", "first command call"), ("schema", "`--schema` document")):
        old = statistics.median(r[step] for r in rows["before"])
        new = statistics.median(r[step] for r in rows["after"])
        lines.append(f"| {words} | {_ms(old)} | {_ms(new)} | {new / old:.2f}× |")
    return "\n".join(lines) + "\n"


WORKBENCH_SECTION = "## Big programs in the workbench"


def _headless(file: Path, *extra) -> tuple:
    """(wall seconds, CPU seconds of the whole process tree, exit) of one `--headless` run."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file),
                           "--headless", "--json", *extra], cwd=file.parent, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=str(file.parent)),
                          check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    doc = json.loads(done.stdout)
    report = doc.get("data") or {}    # the report, passed or failed (e.g. budgets)
    diffs = report.get("diffs") or {}
    return wall, cpu, done.returncode, diffs.get("equal", 0)


SAVE_CLIENT = r"""
import asyncio, contextlib, json, os, sys, time
from pathlib import Path

url, token, file, saves, kind = (sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]),
                                 sys.argv[5])
heard = asyncio.Event()
source = file.read_text()


def save(round_):
    marker = f"command 0 of group 0, edit {round_}"
    temporary = file.with_name(file.name + ".tmp~")
    temporary.write_text(source.replace("'command 0 of group 0'", repr(marker), 1))
    heard.clear()
    saved = time.perf_counter()
    os.replace(temporary, file)
    return marker, saved


async def sdk():
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def on_message(message):
        if (getattr(message, "method", None) == "notifications/tools/list_changed"
                or type(message).__name__ == "ToolListChangedNotification"):
            heard.set()

    @contextlib.asynccontextmanager
    async def transport():
        auth = {"Authorization": f"Bearer {token}"}
        async with create_mcp_http_client(headers=auth) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                yield streams

    seconds = []
    async with Client(transport(), cache=None, mode="legacy", message_handler=on_message) as client:
        await client.list_tools()
        for round_ in range(saves):
            await asyncio.sleep(float(os.environ.get("SETTLE", "0.3")))   # the last save settles
            marker, saved = save(round_)
            while True:
                await asyncio.wait_for(heard.wait(), 60)
                heard.clear()
                tools = (await client.list_tools()).tools
                if any(tool.description.startswith(marker) for tool in tools):
                    break
            seconds.append(time.perf_counter() - saved)
    return seconds


async def raw():
    # The same exchange without the SDK's client: HTTP (httpx2, as the SDK uses), the
    # notification read off the session's event stream, the answer parsed with json.loads.
    import httpx2
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    ids = iter(range(1, 1 << 30))

    async def post(http, message):
        answer = await http.post(url, headers=headers, json=message)
        for line in answer.text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return answer.json() if answer.content else None

    async def listen(http):
        async with http.stream("GET", url, headers={**headers, "Accept": "text/event-stream"}) as events:
            async for line in events.aiter_lines():
                if "notifications/tools/list_changed" in line:
                    heard.set()

    seconds = []
    async with httpx2.AsyncClient(timeout=60) as http:
        hello = await http.post(url, headers=headers, json={
            "jsonrpc": "2.0", "id": next(ids), "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}})
        headers["mcp-session-id"] = hello.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-06-18"
        await http.post(url, headers=headers, json={"jsonrpc": "2.0",
                                                    "method": "notifications/initialized"})
        listener = asyncio.create_task(listen(http))
        await post(http, {"jsonrpc": "2.0", "id": next(ids), "method": "tools/list"})
        for round_ in range(saves):
            await asyncio.sleep(float(os.environ.get("SETTLE", "0.3")))
            marker, saved = save(round_)
            while True:
                await asyncio.wait_for(heard.wait(), 60)
                heard.clear()
                answer = await post(http, {"jsonrpc": "2.0", "id": next(ids),
                                           "method": "tools/list"})
                if any(tool["description"].startswith(marker)
                       for tool in answer["result"]["tools"]):
                    break
            seconds.append(time.perf_counter() - saved)
        listener.cancel()
    return seconds


print(json.dumps(asyncio.run(sdk() if kind == "sdk" else raw())))
"""


async def _save_to_list(file: Path, saves: int, client: str = "sdk") -> list:
    """Seconds from an atomic save (one command's description edited) to a tools/list that
    shows it, over streamable HTTP, handshake era, with the bearer token: the client is its
    own process (as an agent is) and lists again when it hears `list_changed`; one per save.
    `client` is "sdk" (the MCP SDK's Client, which validates every tool with pydantic) or
    "raw" (HTTP and json.loads: what the server itself takes)."""
    import asyncio

    from workbench.dev.engine import Workbench
    bench = Workbench(str(file))
    url = await bench.start()
    try:
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", SAVE_CLIENT, url, bench.token, str(file), str(saves), client,
            stdout=asyncio.subprocess.PIPE)
        out, _ = await child.communicate()
        if child.returncode:
            raise SystemExit(f"the save client exited {child.returncode}")
        return json.loads(out)
    finally:
        await bench.stop()


def measure_workbench(sizes, saves: int) -> dict:
    """Per N: `--headless --update` then `--headless` (wall, CPU, exit) and save -> tools/list."""
    import asyncio
    rows = {}
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="burgee-scale-dev-") as tmp:
            file = Path(tmp) / "big.py"
            file.write_text(burgee_source(n))
            update = _headless(file, "--update")
            check = _headless(file)
            lists = asyncio.run(_save_to_list(file, saves))
            file.write_text(burgee_source(n))          # the SDK client's runs edited it
            raw = asyncio.run(_save_to_list(file, saves, "raw"))
        rows[n] = {"update": update, "check": check, "save": lists, "raw": raw}
        print(f"N={n}: headless {check[0]:.1f} s wall, {check[1]:.1f} s CPU; save -> "
              f"tools/list {statistics.median(lists) * 1000:.0f} ms (SDK client), "
              f"{statistics.median(raw) * 1000:.0f} ms (raw)", file=sys.stderr)
    return rows


def render_workbench(rows: dict, saves: int, sizes) -> str:
    lines = [WORKBENCH_SECTION, "",
             "`burgee dev` on the generated program of the section above (a file, loaded as "
             "`burgee dev` loads one). Headless: one `--headless --update` run (snapshots "
             "written), then one `--headless` run (compared), each a fresh process in an empty "
             "folder; wall time and the CPU time of the whole process tree (the batch workers "
             "and their runs included). Every example runs on both sides (CLI `--json` and "
             "MCP tools/call). Save → tools/list: an atomic save that edits one command's "
             "description, until a client in its own process (streamable HTTP, handshake "
             "era, bearer token), listing again each time it hears `list_changed`, sees the "
             "new text; medians. Two clients: the MCP SDK's `Client` (which validates the whole "
             "answer with pydantic, twice, and formats it into a debug log line: 78–200 ms of "
             "its own per list of 1,000 tools, median 113 ms) and a raw one (HTTP "
             "and `json.loads`), which shows what the server itself takes.", "",
             f"- Command: `{command_line()}`",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, "
             f"{platform.system()} {platform.release()}, CPython {platform.python_version()}",
             f"- Install: {install()}",
             f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the end "
             f"{os.getloadavg()[0]:.1f} on 2 cores (a shared machine): wall times "
             f"swell with it, CPU times much less", "",
             "| N | examples equal | `--headless --update` wall | CPU | `--headless` wall | CPU "
             "| save → new tools/list, SDK client: median | min | raw client: median | min "
             "| saves |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        row = rows[n]
        (uwall, ucpu, _, _), (cwall, ccpu, _, equal) = row["update"], row["check"]
        lines.append(f"| {n:,} | {equal:,} | {uwall:.1f} s | {ucpu:.1f} s | {cwall:.1f} s | "
                     f"{ccpu:.1f} s | {_ms(statistics.median(row['save']))} | "
                     f"{_ms(min(row['save']))} | {_ms(statistics.median(row['raw']))} | "
                     f"{_ms(min(row['raw']))} | {len(row['save'])} |")
    return "\n".join(lines) + "\n"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def render(result: dict, runs: int, sizes=SIZES) -> str:
    medians, tools = result["medians"], result["tools"]
    lines = [SECTION, "",
             "The same generated program at N commands (groups of 20, 4 options each, one "
             "example) in burgee and Click; every case a fresh interpreter, medians, "
             "interleaved. Modules are bytecode-compiled and burgee's check verdict was "
             "recorded by a warm-up call, as for an installed program after its first start. "
             "Kept short: the machine is shared.", "",
             f"- Command: `{command_line()}`",
             f"- Machine: {os.cpu_count()} CPUs, {platform.machine()}, "
             f"{platform.system()} {platform.release()}, CPython {platform.python_version()}",
             f"- Install: {install()}",
             f"- Runs: {runs} timed per case after one warm-up; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the end "
             f"{os.getloadavg()[0]:.1f} (absolute times swell with it; the ratios are "
             f"interleaved, so less so)", "",
             "| case | N | burgee | × burgee N=10 | Click | burgee ÷ Click |",
             "|---|---:|---:|---:|---:|---:|"]
    for case, argvs in CASES.items():
        for n in sizes:
            ours = medians[(case, "burgee", n)]
            base = medians[(case, "burgee", sizes[0])]
            theirs = medians.get((case, "click", n))
            lines.append(f"| `{case}` | {n:,} | {_ms(ours)} | {ours / base:.2f}× | "
                         + (f"{_ms(theirs)} | {ours / theirs:.2f}× |" if theirs else
                            "none built in | |"))
    bare = medians[("command call", "bare", sizes[0])]
    lines += ["", "The exit: `run()` freezes the declaration at interpreter exit (after "
              "collecting the call's young garbage) instead of letting Python's shutdown walk "
              "and free its cycles. The same call with that hook off, interleaved with the "
              f"rest; the interpreter alone (an empty file, this venv) takes {_ms(bare)}:", "",
              "| N | command call | exit hook off | saved at exit |", "|---:|---:|---:|---:|"]
    for n in sizes:
        ours, thawed = (medians[("command call", "burgee", n)],
                        medians[("command call", "thawed", n)])
        lines.append(f"| {n:,} | {_ms(ours)} | {_ms(thawed)} | {_ms(thawed - ours)} |")
    from workbench.surfaces.discovery import AUTO_FROM
    lines += ["", "In-process, the program already loaded (burgee's MCP server and "
              "`program_schema`; Click has neither). Past "
              f"{AUTO_FROM:,} tools a program lists the discovery tools instead of every tool "
              "(`Program(discovery=\"auto\")`, docs/mcp.md), hence the small list there:", "",
              "| N | tools/list first answer (build, the SDK's sieve, pages) "
              "| tools/list repeat (cached, encoded) | tools/list size | `--schema` document |",
              "|---:|---:|---:|---:|---:|"]
    for n in sizes:
        row = tools[n]
        lines.append(f"| {n:,} | {_ms(row['first'])} | {_ms(row['again'])} | "
                     f"{row['bytes'] / 1000:,.0f} KB | {_ms(row['schema'])} |")
    call = (medians[("command call", "burgee", sizes[-1])]
            / medians[("command call", "burgee", sizes[0])])
    schema = tools[sizes[-1]]["schema"]
    schema_start = medians[("--schema", "burgee", sizes[-1])]
    lines += ["", "Targets (issue 18):", "",
              f"- a command call at N={sizes[-1]:,} within 1.5× of N={sizes[0]}: "
              f"**{'met' if call <= 1.5 else 'not met'}** ({call:.2f}×).",
              f"- `--schema` at N={sizes[-1]:,} under 100 ms: the document "
              f"**{'met' if schema < 0.1 else 'not met'}** ({_ms(schema)} in-process); the "
              f"whole process takes {_ms(schema_start)}, most of it building the program.",
              ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", help="comma-separated N (default "
                        f"{','.join(map(str, SIZES))}; with --lazy {','.join(map(str, LAZY_SIZES))})")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    parser.add_argument("--against", metavar="TREE",
                        help="a folder holding an older workbench/: before/after in-process")
    parser.add_argument("--workbench", action="store_true",
                        help="burgee dev at each N: --headless, and save -> new tools/list")
    parser.add_argument("--lazy", action="store_true",
                        help="lazy groups against eager and Click: call, --help, usage error, --schema")
    add_in_place(parser)
    add_smoke(parser, runs=1, sizes="10,20")
    args = parse(parser)
    if not args.in_place:
        raise SystemExit(in_wheel_venv(__file__, sys.argv[1:]))
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else \
        LAZY_SIZES if args.lazy else SIZES
    if args.lazy:
        text = render_lazy(measure_lazy(args.runs, sizes), args.runs, sizes)
        print(text)
        if args.write:
            replace_section(LAZY_SECTION, text)
        return
    if args.workbench:
        text = render_workbench(measure_workbench(sizes, args.runs), args.runs, sizes)
        print(text)
        if args.write:
            replace_section(WORKBENCH_SECTION, text)
        return
    if args.against:
        print(against(args.against, sizes[-1], args.runs))
        return
    text = render(measure(args.runs, sizes), args.runs, sizes)
    print(text)
    if args.write:
        replace_section(SECTION, text)


if __name__ == "__main__":
    main()
