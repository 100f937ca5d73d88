"""The redaction canary: one sensitive value, given through every path, found in no place.

tests/programs/spreader.py has a sensitive `--token` whose handler spreads its value every
way it can. Each path (how the value gets in or out) is sent to every place it can reach
(where a person, an agent or a file would see it); each (path, place) pair is one test case.
The runs are grouped: one process or session produces many places, so the module's fixtures
do all the work once and the cases only look.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest

from _mcp_helpers import TOKEN, authed, caller_env, full_env, http_server, stdio_params, text_of

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = Path(__file__).resolve().parent.parent
SPREADER = ROOT / "tests" / "programs" / "spreader.py"
V = 'cAnAry-Zq81xT-v4l\u00fce"q\\z'
"""The canary: a non-ASCII letter, a quote and a backslash, so that its escaped forms
(JSON, repr) differ from it and are looked for too."""
FORMS = list(dict.fromkeys([V, json.dumps(V)[1:-1], json.dumps(V, ensure_ascii=False)[1:-1],
                            repr(V)[1:-1], ascii(V)[1:-1], quote(V, safe="")]))

# -- paths -------------------------------------------------------------------------------

CLI_PATHS = {   # path -> (argv, extra environment); the value enters on the command line
    "flag": (["spread", "--token", V], {}),
    "flag=value": (["spread", f"--token={V}"], {}),
    "short flag": (["spread", "-t", V], {}),
    "short flag, value attached": (["spread", "-t" + V], {}),
    "short flag in another case": (["spread", "-T", V], {}),
    "misspelt command, value attached to the short": (["sprd", "-t" + V], {}),
    "env variable": (["spread"], {"SPREADER_TOKEN": V}),
    "before the subcommand": (["--token", V, "spread"], {}),
    "flag of another command (a positional there)": (["other", "--token", V], {}),
    "misspelt flag": (["spread", "--tokn", V], {}),
    "value starting with -": (["spread", "--token", "-" + V], {}),
    "beside an unknown flag": (["spread", "--token", V, "--bogus"], {}),
    "misspelt command": (["sprd", "--token", V], {}),
    "flag in another case": (["spread", "--TOKEN", V], {}),
    "a longer flag that holds its name": (["spread", "--api-token", V], {}),
    "raised by the handler (--debug)": (["spread", "--token", V, "--fail", "--debug"], {}),
    "with an idempotency key": (["spread", "--token", V, "--idempotency-key", "k1"], {}),
    "PostgreSQL URL password": (["spread", "--idempotency-key", "k-dsn"], {
        "BURGEE_IDEMPOTENCY_URL": f"postgresql://u:{quote(V, safe='')}@127.0.0.1:1/db"}),
    "PostgreSQL URL ?password= that psycopg quotes back": (
        ["spread", "--idempotency-key", "k-dsn"],
        {"BURGEE_IDEMPOTENCY_URL": f"postgresql://u@127.0.0.1:1/db?password={quote(V)}%zz"}),
    "PostgreSQL keyword DSN": (["spread", "--idempotency-key", "k-dsn"], {
        "BURGEE_IDEMPOTENCY_URL": "host=127.0.0.1 port=1 password='"
        + V.replace("\\", "\\\\").replace("'", "\\'") + "'"}),
}
RUNS_HANDLER = ("flag", "flag=value", "short flag", "short flag, value attached",
                "env variable", "with an idempotency key")   # the CLI paths whose handler runs

MCP_PATHS = {   # path -> (tool, arguments); the value enters as an MCP argument
    "MCP argument": ("spread", {"token": V}),
    "misspelt key": ("spread", {"tokn": V}),
    "misspelt key nested in an object": ("spread", {"token": "ok", "junk": {"tokn": V}}),
    "misspelt tool name": ("sprd", {"token": V}),
    "key of another tool": ("other", {"token": V}),
    "key in another case": ("spread", {"TOKEN": V}),
    "a longer key that holds its name": ("spread", {"api_token": V}),
    "wrong type under the key": ("spread", {"token": [V]}),
    "echoed by another property": ("other", {"name": V, "token": V}),
    "raised by the handler": ("spread", {"token": V, "fail": True}),
    "with an idempotency key": ("spread", {"token": V, "idempotency_key": "mcp-key"}),
}

HANDLER_PATHS = {   # path -> what the spreader writes (or the pipeline shows) just before it
    "returned by the handler": ("returned ", '"token":"', "token  "),
    "Python print": ("printed ", "printed to stderr "),
    "os.write to fd 1": ("fd1 ",),
    "os.write to fd 2": ("fd2 ",),
    "a child process": ("child out ", "child err "),
    "a stream saved at import": ("saved ",),
    "a progress message": ("progress ",),
    "an exception the handler raised": ("raised ",),
    "a thread left running after the handler returned": ("late ",),
    "printed JSON-escaped and as repr": ('escaped json "', "escaped repr '"),
    "captured output past the capture window": ("flood ",),
}


def _env(tmp: Path, **extra) -> dict:
    env = full_env(caller_env(tmp / "state")) | {"BURGEE_STATE_DIR": str(tmp / "store")}
    env.pop("SPREADER_TOKEN", None)
    return env | extra


# -- the CLI: --json, not a terminal, a terminal --------------------------------------------

def _runs(jobs: list, tmp: Path) -> list:
    """Each job ({"argv", "env", "mode"}) run as `python spreader.py ARGV` by one worker
    process that forks per run (tests/_canary_worker.py): {"exit", "stdout", "stderr"}."""
    (tmp / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "_canary_worker.py"),
                           str(tmp / "jobs.json"), str(tmp / "results.json")],
                          env=_env(tmp), cwd=tmp, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    results = json.loads((tmp / "results.json").read_text(encoding="utf-8"))
    for job, result in zip(jobs, results):   # --debug asks for the traceback
        assert "--debug" in job["argv"] or "Traceback" not in result["stdout"] + \
            result["stderr"], result
    return results


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """{path: {place: text}} for every CLI path, plus the idempotency store."""
    tmp = tmp_path_factory.mktemp("cli")
    jobs = []
    for argv, extra in CLI_PATHS.values():
        env = _env(tmp, **extra)
        jobs += [{"argv": argv + ["--json"], "env": env, "mode": "file"},
                 {"argv": argv + ["--format", "ndjson"], "env": env, "mode": "file"},
                 {"argv": argv, "env": env, "mode": "file"},
                 {"argv": argv, "env": env, "mode": "tty"}]
    results = _runs(jobs, tmp)
    found = {}
    for at, path in enumerate(CLI_PATHS):
        as_json, ndjson, human, tty = results[4 * at:4 * at + 4]
        found[path] = {"CLI stdout --json": as_json["stdout"],
                       "CLI stderr --json": as_json["stderr"],
                       "CLI stdout+stderr --format ndjson": ndjson["stdout"] + ndjson["stderr"],
                       "CLI stdout human (not a terminal)": human["stdout"],
                       "CLI stderr human (not a terminal)": human["stderr"],
                       "CLI terminal human (tty)": tty["stdout"]}
    assert json.loads(found["with an idempotency key"]["CLI stdout --json"])["ok"] is True
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
        if path == "MCP argument":   # its notifications race the result (later ones may
            # be replays from the idempotency store, with none)
            with anyio.move_on_after(10):
                while "done" not in heard:
                    await anyio.sleep(0.01)
            assert "done" in heard, (path, list(heard), text_of(result))
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

    async def http(url, token=TOKEN):
        heard = _Heard()
        async with Client(authed(url, token), cache=None, mode="legacy",
                          logging_callback=heard.log) as client:
            return await _session(client, heard)

    async def dev():
        bench = Workbench(str(SPREADER), load_timeout=10.0, call_timeout=30.0)
        url = await bench.start(watch=False)
        try:
            session = await http(url, bench.token)
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
    found["store"] = tmp / "store" / "idempotency.sqlite3"
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
                           "--headless", "--no-check", "--json", "--update", "--run-writes"], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=180)
    files = [p for p in (tmp / ".burgee").rglob("*") if p.is_file()]
    assert files, done.stdout + done.stderr
    assert "returned ***" in done.stdout, done.stdout   # the handler ran; its diff is shown
    return {"headless report (stdout+stderr)": done.stdout + done.stderr,
            "headless snapshot files": "\n".join(p.read_text("utf-8", "replace")
                                                 for p in files)}


# -- the cases ------------------------------------------------------------------------------

CLI_PLACES = ["CLI stdout --json", "CLI stderr --json", "CLI stdout+stderr --format ndjson", "CLI stdout human (not a terminal)",
              "CLI stderr human (not a terminal)", "CLI terminal human (tty)"]
HEADLESS_PLACES = ["headless report (stdout+stderr)", "headless snapshot files"]


def _clean(text: str, where: str) -> None:
    for form in FORMS:
        at = text.find(form)
        assert at < 0, f"{where}: ...{text[max(0, at - 200):at + 60]}..."


@pytest.mark.parametrize("place", CLI_PLACES)
@pytest.mark.parametrize("path", CLI_PATHS)
def test_cli_path_reaches_no_place(cli, path, place):
    _clean(cli[path][place], f"{path} -> {place}")


def _tagged_clean(text: str, path: str, place: str) -> None:
    """No sign of the value where this handler path writes it, masked or not as a whole."""
    for tag in HANDLER_PATHS[path]:
        for form in FORMS:
            assert tag + form not in text, f"{path} -> {place}: {tag + form!r}"
    if path == "captured output past the capture window":   # not even the token's tail
        for cut in range(1, len(V) - 2):
            assert V[cut:] + "yyyy" not in text, f"{path} -> {place}: {V[cut:]!r}"


def _cli_handler_text(cli, place) -> str:
    return "\n".join(cli[path][place] for path in RUNS_HANDLER)


@pytest.mark.parametrize("place", CLI_PLACES)
@pytest.mark.parametrize("path", HANDLER_PATHS)
def test_what_the_handler_spreads_reaches_no_cli_place(cli, path, place):
    _tagged_clean(_cli_handler_text(cli, place), path, place)


def test_the_handler_ran_over_mcp_and_its_output_arrived_masked(mcp):
    for transport in ("stdio", "http", "dev"):
        ran = mcp[transport]["MCP argument"]
        results = next(text for place, text in ran.items() if place.startswith("MCP results"))
        heard = next(text for place, text in ran.items() if "notifications" in place)
        assert "returned ***" in results and "child err ***" in results, results
        assert "***yyyy" in results   # the window's edge cut the token: masked whole
        assert "progress ***" in heard, heard


def test_the_handler_ran_and_a_person_saw_its_output_masked(cli):
    seen = cli["flag"]["CLI terminal human (tty)"] + \
        cli["raised by the handler (--debug)"]["CLI terminal human (tty)"]
    for path, tags in HANDLER_PATHS.items():
        if path != "returned by the handler":   # a person sees a table: `token  ***`
            assert any(tag + "***" in seen for tag in tags), (path, seen)


MCP_PLACES = [("stdio", "MCP results (stdio)"), ("stdio", "MCP notifications (stdio)"),
              ("stdio", "MCP server stderr (stdio)"),
              ("http", "MCP results (HTTP)"), ("http", "MCP notifications (HTTP)"),
              ("http", "MCP server stdout+stderr (HTTP)"),
              ("dev", "MCP results (burgee dev)"), ("dev", "MCP notifications (burgee dev)"),
              ("dev", "dev traffic log and detail views")]


@pytest.mark.parametrize("transport, place", MCP_PLACES, ids=[p for _, p in MCP_PLACES])
@pytest.mark.parametrize("path", list(MCP_PATHS) + list(HANDLER_PATHS))
def test_mcp_path_reaches_no_place(mcp, transport, path, place):
    text = mcp[transport][path][place]
    if path in HANDLER_PATHS:
        _tagged_clean(text, path, place)
    else:
        _clean(text, f"{path} -> {place}")


@pytest.mark.parametrize("via", ["CLI", "MCP"])
def test_the_idempotency_store_holds_no_secret_and_is_private(cli, mcp, via):
    store = (cli if via == "CLI" else mcp)["store"]
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    assert b"returned ***" in store.read_bytes()   # the envelope is there, masked
    for extra in ("", "-wal", "-journal"):
        if os.path.exists(str(store) + extra):
            held = Path(str(store) + extra).read_bytes()
            assert not any(form.encode() in held for form in FORMS)


@pytest.mark.parametrize("place", HEADLESS_PLACES)
@pytest.mark.parametrize("path", ["env variable"] + list(HANDLER_PATHS))
def test_headless_files_hold_no_secret(headless, path, place):
    if path in HANDLER_PATHS:
        _tagged_clean(headless[place], path, place)
    else:
        _clean(headless[place], f"{path} -> {place}")


def test_a_secret_split_across_pipe_chunks_is_still_masked():
    """The live masking pipe holds back a tail that may begin a secret until the next chunk."""
    import threading

    from workbench.runtime.capture import _forward
    from workbench.runtime.redact import Redactor
    redactor = Redactor([V])
    assert redactor.pending("x " + V[:5]) == 5 and redactor.pending("x " + V) == 0
    assert redactor.pending("no prefix here") == 0
    read, write = os.pipe()
    out_read, out_write = os.pipe()
    thread = threading.Thread(target=_forward, args=(read, out_write, redactor))
    thread.start()
    os.write(write, ("a " + V[:7]).encode())
    os.write(write, (V[7:] + " b\n").encode())
    os.close(write)
    thread.join(30)
    assert not thread.is_alive()
    with os.fdopen(out_read, "rb") as seen:
        assert seen.read() == b"a *** b\n"


def _spreader():
    from workbench.loader import load_program
    return load_program(str(SPREADER))


@pytest.mark.parametrize("argv, fix", [
    (["spread", "--TOKEN", V], "spreader spread --token $SPREADER_TOKEN --json"),
    (["spread", "--api-token", V], "spreader spread --token $SPREADER_TOKEN --json"),
    (["other", "--API-TOKEN", V], "spreader other --json"),
    (["spread", "-T", V], "spreader spread --token $SPREADER_TOKEN --json"),
    (["sprd", "-t" + V], "spreader spread -t $SPREADER_TOKEN --json"),
])
def test_a_flag_that_nearly_names_the_secret_gives_a_runnable_fix_without_it(argv, fix):
    from workbench import call
    outcome = call(_spreader(), argv + ["--json"], environ={})
    assert V not in outcome.stdout + outcome.stderr
    assert json.loads(outcome.stdout)["error"]["fix"] == fix


def test_a_usage_refusal_over_mcp_does_not_echo_a_secret_through_another_property():
    from workbench.runtime.arguments import check_arguments
    program = _spreader()
    doc = check_arguments(program.tool("other"), {"name": V, "token": V})
    assert doc["error"]["code"] == "unknown_option" and V not in json.dumps(doc)


def test_the_canary_counts_its_paths_and_places():
    """What the canary checks, in numbers (`pytest -s` prints them; docs/decisions.md cites
    them): every path into every place it can reach."""
    paths = len(CLI_PATHS) + len(MCP_PATHS) + len(HANDLER_PATHS)
    places = len(CLI_PLACES) + len(MCP_PLACES) + len(HEADLESS_PLACES) + 1   # + the store file
    cases = (len(CLI_PATHS) + len(HANDLER_PATHS)) * len(CLI_PLACES) + \
        (len(MCP_PATHS) + len(HANDLER_PATHS)) * len(MCP_PLACES) + 2 + \
        (1 + len(HANDLER_PATHS)) * len(HEADLESS_PLACES)
    print(f"canary: {paths} paths ({len(CLI_PATHS)} CLI, {len(MCP_PATHS)} MCP, "
          f"{len(HANDLER_PATHS)} handler outputs) into {places} places: {cases} "
          f"(path, place) cases")
    assert (paths, places, cases) == (42, 18, 410)
