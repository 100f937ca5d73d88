"""The redaction canary: one sensitive value, given through every path, found in no place.

tests/programs/spreader.py has a sensitive `--token` whose handler spreads its value every
way it can. Each path (how the value gets in or out) is sent to every place it can reach
(where a person, an agent or a file would see it); each (path, place) pair is one test case.
The runs are grouped: one process or session produces many places, so the module's fixtures
do all the work once and the cases only look.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from _mcp_helpers import caller_env, full_env, http_server, stdio_params, text_of

ROOT = Path(__file__).resolve().parent.parent
SPREADER = ROOT / "tests" / "programs" / "spreader.py"
V = "cAnAry-Zq81xT-v4lue"

# -- paths -------------------------------------------------------------------------------

CLI_PATHS = {   # path -> (argv, extra environment); the value enters on the command line
    "flag": (["spread", "--token", V], {}),
    "flag=value": (["spread", f"--token={V}"], {}),
    "env variable": (["spread"], {"SPREADER_TOKEN": V}),
    "before the subcommand": (["--token", V, "spread"], {}),
    "flag of another command (a positional there)": (["other", "--token", V], {}),
    "misspelt flag": (["spread", "--tokn", V], {}),
    "value starting with -": (["spread", "--token", "-" + V], {}),
    "beside an unknown flag": (["spread", "--token", V, "--bogus"], {}),
    "misspelt command": (["sprd", "--token", V], {}),
}
RUNS_HANDLER = ("flag", "flag=value", "env variable")   # the CLI paths whose handler runs

MCP_PATHS = {   # path -> (tool, arguments); the value enters as an MCP argument
    "MCP argument": ("spread", {"token": V}),
    "misspelt key": ("spread", {"tokn": V}),
    "misspelt key nested in an object": ("spread", {"token": "ok", "junk": {"tokn": V}}),
    "misspelt tool name": ("sprd", {"token": V}),
    "key of another tool": ("other", {"token": V}),
}

HANDLER_PATHS = {   # path -> the tag the spreader writes just before the value
    "returned by the handler": "returned",
    "Python print": "printed",
    "os.write to fd 1": "fd1",
    "os.write to fd 2": "fd2",
    "a child process": "child out",
    "a stream saved at import": "saved",
    "a progress message": "progress",
}


def _env(tmp: Path, **extra) -> dict:
    env = full_env(caller_env(tmp / "state")) | {"BURGEE_STATE_DIR": str(tmp / "store")}
    env.pop("SPREADER_TOKEN", None)
    return env | extra


# -- the CLI: --json, a pipe, a terminal ---------------------------------------------------

def _pipe(argv, env, cwd):
    done = subprocess.run([sys.executable, str(SPREADER), *argv], env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr
    return done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


def _terminal(argv, env, cwd) -> str:
    """What a person sees: stdout and stderr on one pseudo-terminal (progress lines too)."""
    main, sub = os.openpty()
    try:
        process = subprocess.Popen([sys.executable, str(SPREADER), *argv], env=env, cwd=cwd,
                                   stdin=subprocess.DEVNULL, stdout=sub, stderr=sub)
    finally:
        os.close(sub)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError as error:   # EIO: every writer is gone
                assert error.errno == errno.EIO
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main)
    assert process.wait(timeout=60) is not None
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """{path: {place: text}} for every CLI path, plus the idempotency store."""
    tmp = tmp_path_factory.mktemp("cli")

    def one(path):
        argv, extra = CLI_PATHS[path]
        env = _env(tmp, **extra)
        out, err = _pipe(argv + ["--json"], env, tmp)
        places = {"CLI stdout --json": out, "CLI stderr --json": err}
        places["CLI stdout human (pipe)"], places["CLI stderr human (pipe)"] = \
            _pipe(argv, env, tmp)
        places["CLI terminal human (tty)"] = _terminal(argv, env, tmp)
        return path, places

    with ThreadPoolExecutor(4) as pool:
        found = dict(pool.map(one, CLI_PATHS))
    # an idempotency-store envelope: the handler's result (with the value) is stored
    argv, extra = CLI_PATHS["flag"]
    out, err = _pipe(argv + ["--idempotency-key", "canary-key", "--json"], _env(tmp), tmp)
    assert json.loads(out)["ok"] is True, out + err
    found["store"] = tmp / "store" / "idempotency.sqlite3"
    return found


# -- MCP: the SDK's client over stdio and streamable HTTP; the dev server's traffic log -----

class _Heard(list):
    """Notifications as the client hears them (progress messages and log data)."""

    async def log(self, params):
        self.append(repr(params.data))

    async def progress(self, progress, total, message):
        self.append(str(message))


async def _session(client, heard: _Heard) -> dict:
    """Every MCP path in one session: {path: {"results"|"notifications": text}}."""
    found = {}
    for path, (tool, arguments) in MCP_PATHS.items():
        heard.clear()
        result = await client.call_tool(tool, arguments, progress_callback=heard.progress)
        await asyncio.sleep(0.2)   # progress notifications and the result race on the wire
        found[path] = {"results": text_of(result) + json.dumps(result.structured_content),
                       "notifications": "\n".join(heard)}
    return found


def _places(transport, session, other: dict) -> dict:
    """{path: {place: text}}: a handler path is seen in what the runs that ran it gave."""
    runs = [session[path] for path in MCP_PATHS]
    places = {path: {f"MCP {kind} ({transport})": text for kind, text in session[path].items()}
              for path in MCP_PATHS}
    for path in HANDLER_PATHS:
        places[path] = {f"MCP {kind} ({transport})": "\n".join(run[kind] for run in runs)
                        for kind in ("results", "notifications")}
    for path in places:
        places[path].update(other)
    return places


@pytest.fixture(scope="module")
def mcp(tmp_path_factory):
    """{transport: {path: {place: text}}} over stdio, streamable HTTP and `burgee dev`."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from workbench.dev.engine import Workbench
    tmp = tmp_path_factory.mktemp("mcp")
    extra = caller_env(tmp / "state") | {"BURGEE_STATE_DIR": str(tmp / "store")}
    found = {}

    async def stdio():
        with open(tmp / "err.txt", "w+") as errlog:
            transport = stdio_client(stdio_params(SPREADER, extra, tmp), errlog=errlog)
            heard = _Heard()
            async with Client(transport, cache=None, mode="legacy",
                              logging_callback=heard.log) as client:
                session = await _session(client, heard)
            errlog.seek(0)
            found["stdio"] = _places("stdio", session,
                                     {"MCP server stderr (stdio)": errlog.read()})

    async def http(url):
        heard = _Heard()
        async with Client(url, cache=None, mode="legacy", logging_callback=heard.log) as client:
            return await _session(client, heard)

    async def dev():
        bench = Workbench(str(SPREADER), load_timeout=10.0, call_timeout=30.0)
        url = await bench.start(watch=False)
        try:
            session = await http(url)
        finally:
            await bench.stop()
        calls = [entry for entry in bench.traffic if entry.method == "tools/call"]
        assert [entry.tool for entry in calls] == [tool for tool, _ in MCP_PATHS.values()]
        found["dev"] = _places("burgee dev", session, {})
        for path, entry in zip(MCP_PATHS, calls):
            found["dev"][path]["dev traffic log and detail views"] = repr(entry)
        for path in HANDLER_PATHS:
            found["dev"][path]["dev traffic log and detail views"] = "\n".join(
                repr(entry) for entry in bench.traffic)

    asyncio.run(stdio())
    with http_server(SPREADER, extra, tmp) as (url, process):
        session = asyncio.run(http(url))
        process.terminate()
        out, err = process.communicate(timeout=30)
    found["http"] = _places("HTTP", session, {"MCP server stdout+stderr (HTTP)": out + err})
    asyncio.run(dev())
    return found


# -- headless reports and snapshots -------------------------------------------------------

@pytest.fixture(scope="module")
def headless(tmp_path_factory):
    """{place: text}: `burgee dev FILE --headless --update --run-writes` with the value in
    the environment, so every example runs with it."""
    tmp = tmp_path_factory.mktemp("headless")
    file = tmp / "spreader.py"
    file.write_text(SPREADER.read_text(encoding="utf-8"), encoding="utf-8")
    env = _env(tmp, SPREADER_TOKEN=V, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file),
                           "--headless", "--update", "--run-writes"], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=180)
    files = [p for p in (tmp / ".burgee").rglob("*") if p.is_file()]
    assert files, done.stdout + done.stderr
    return {"headless report (stdout+stderr)": done.stdout + done.stderr,
            "headless snapshot files": "\n".join(p.read_text("utf-8", "replace")
                                                 for p in files)}


# -- the cases ------------------------------------------------------------------------------

CLI_PLACES = ["CLI stdout --json", "CLI stderr --json", "CLI stdout human (pipe)",
              "CLI stderr human (pipe)", "CLI terminal human (tty)"]
HEADLESS_PLACES = ["headless report (stdout+stderr)", "headless snapshot files"]


def _clean(text: str, where: str) -> None:
    assert V not in text, f"{where}: ...{text[max(0, text.find(V) - 200):text.find(V) + 60]}..."


@pytest.mark.parametrize("place", CLI_PLACES)
@pytest.mark.parametrize("path", CLI_PATHS)
def test_cli_path_reaches_no_place(cli, path, place):
    _clean(cli[path][place], f"{path} -> {place}")


def _cli_handler_text(cli, place) -> str:
    return "\n".join(cli[path][place] for path in RUNS_HANDLER)


@pytest.mark.parametrize("place", CLI_PLACES)
@pytest.mark.parametrize("path", HANDLER_PATHS)
def test_what_the_handler_spreads_reaches_no_cli_place(cli, path, place):
    text = _cli_handler_text(cli, place)
    _clean(text, f"{path} -> {place}")
    if path == "a child process" and "human" in place:   # it did run and was seen, masked
        assert "child" in _cli_handler_text(cli, "CLI terminal human (tty)")


@pytest.mark.parametrize("transport", ["stdio", "http", "dev"])
@pytest.mark.parametrize("path", list(MCP_PATHS) + list(HANDLER_PATHS))
def test_mcp_path_reaches_no_place(mcp, transport, path):
    places = mcp[transport][path]
    assert len(places) == 3
    for place, text in places.items():
        _clean(text, f"{path} -> {place}")


def test_the_idempotency_store_holds_no_secret_and_is_private(cli):
    store = cli["store"]
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    for extra in ("", "-wal", "-journal"):
        if os.path.exists(str(store) + extra):
            assert V.encode() not in Path(str(store) + extra).read_bytes()


@pytest.mark.parametrize("place", HEADLESS_PLACES)
@pytest.mark.parametrize("path", ["env variable"] + list(HANDLER_PATHS))
def test_headless_files_hold_no_secret(headless, path, place):
    _clean(headless[place], f"{path} -> {place}")
