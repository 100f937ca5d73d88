"""The HTTP servers as an attacker on the same machine meets them: bearer-token auth on every
route, foreign Host/Origin refused, a session flood that leaves a real client served, remote
binds refused without --allow-remote, and a result size limit over stdio and HTTP. Real
subprocess servers, the SDK's own client, raw HTTP through httpx2 (the SDK's HTTP library)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import pytest

from _mcp_helpers import (TOKEN, authed, bearer, caller_env, full_env, http_server, stdio_params,
                          text_of)

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

PROGRAMS = Path(__file__).resolve().parent / "programs"
HUGE = PROGRAMS / "huge.py"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "flood", "version": "1"}}}
MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}


@pytest.fixture
def extra(tmp_path):
    return caller_env(tmp_path)


def _http():
    import httpx2
    return httpx2.Client(timeout=30)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# --- auth -------------------------------------------------------------------------------


def test_no_token_is_401_on_every_route_and_method(extra, tmp_path):
    with http_server(HUGE, extra, tmp_path) as (url, _), _http() as http:
        root = url.rsplit("/mcp", 1)[0]
        for method, where in [("POST", url), ("GET", url), ("DELETE", url), ("GET", root + "/"),
                              ("GET", root + "/nowhere"), ("OPTIONS", url), ("PUT", url),
                              ("POST", root + "/.well-known/oauth-protected-resource")]:
            answer = http.request(method, where, headers=MCP_HEADERS, json=INITIALIZE)
            assert answer.status_code == 401, (method, where, answer.status_code)
            assert answer.headers["www-authenticate"].startswith("Bearer ")
            assert "mcp-session-id" not in answer.headers
        answer = http.post(url, headers=MCP_HEADERS | bearer(), json=INITIALIZE)
        assert answer.status_code == 200 and answer.headers["mcp-session-id"]


@pytest.mark.parametrize("authorization", [
    "Bearer " + "y" * len(TOKEN),                  # same length, every byte wrong
    "Bearer " + TOKEN[:-1] + "y",                  # last byte wrong
    "Bearer " + TOKEN[:-1],                        # a prefix
    "Bearer " + TOKEN + "y",                       # longer
    "Basic " + TOKEN,                              # the token under another scheme
    TOKEN,                                         # no scheme
    "Bearer",                                      # no token
])
def test_a_wrong_token_is_401(extra, tmp_path, authorization):
    with http_server(HUGE, extra, tmp_path) as (url, _), _http() as http:
        answer = http.post(url, headers=MCP_HEADERS | {"Authorization": authorization},
                           json=INITIALIZE)
        assert answer.status_code == 401 and "invalid_token" in answer.text


def test_the_token_is_compared_in_constant_time():
    """The one check (`BearerGuard.allowed`) goes through hmac.compare_digest, whose time
    does not depend on where the first differing byte is (no wall-clock assertion here)."""
    import hmac
    from unittest import mock

    from workbench.mcp._guard import BearerGuard
    guard = BearerGuard(None, TOKEN)
    with mock.patch.object(hmac, "compare_digest", wraps=hmac.compare_digest) as compare:
        assert guard.allowed([(b"authorization", f"Bearer {TOKEN}".encode())])
        assert not guard.allowed([(b"authorization", b"Bearer nope")])
        assert not guard.allowed([])
    assert compare.call_count == 3


def test_foreign_host_and_origin_are_still_refused_with_the_token(extra, tmp_path):
    with http_server(HUGE, extra, tmp_path) as (url, _), _http() as http:
        host = http.post(url, headers=MCP_HEADERS | bearer() | {"Host": "evil.example:80"},
                         json=INITIALIZE)
        assert host.status_code == 421
        origin = http.post(url, headers=MCP_HEADERS | bearer() |
                           {"Origin": "http://evil.example"}, json=INITIALIZE)
        assert origin.status_code == 403
        without = http.post(url, headers=MCP_HEADERS | {"Host": "evil.example:80"},
                            json=INITIALIZE)
        assert without.status_code == 401   # and no token gets nothing at all


async def test_a_random_token_is_printed_where_the_address_is_and_works(extra, tmp_path):
    from mcp import Client
    with http_server(HUGE, extra, tmp_path, token=None) as (url, process):
        line = process.stderr.readline()
        assert line.startswith("huge: bearer token (this start only): "), line
        token = line.rsplit(" ", 1)[1].strip()
        assert len(token) >= 43 and token != TOKEN
        async with Client(authed(url, token), mode="legacy", cache=None) as client:
            assert not (await client.call_tool("small", {})).is_error
        with pytest.raises(Exception):       # another token: refused at initialize
            async with Client(authed(url, TOKEN), mode="legacy", cache=None) as client:
                await client.list_tools()


def test_a_token_file_is_used_and_an_empty_one_refused(extra, tmp_path):
    good = tmp_path / "token"
    good.write_text("from-a-file-0123456789\n")
    with http_server(HUGE, extra, tmp_path, "--token-file", str(good), token=None) as \
            (url, process), _http() as http:
        assert "the one in --token-file" in process.stderr.readline()
        ok = http.post(url, headers=MCP_HEADERS | bearer("from-a-file-0123456789"),
                       json=INITIALIZE)
        assert ok.status_code == 200
    empty = tmp_path / "empty"
    empty.write_text("\n")
    done = subprocess.run([sys.executable, str(HUGE), "mcp", "--http", "127.0.0.1:0",
                           "--token-file", str(empty), "--json"], env=full_env(extra),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and doc["error"]["code"] == "invalid_value"
    assert "--token-file" in doc["error"]["fix"]


async def test_no_auth_is_said_on_screen_and_only_for_loopback(extra, tmp_path):
    from mcp import Client
    with http_server(HUGE, extra, tmp_path, "--no-auth", token=None) as (url, process):
        assert "no authentication (--no-auth)" in process.stderr.readline()
        async with Client(authed(url, None), mode="legacy", cache=None) as client:
            assert not (await client.call_tool("small", {})).is_error
    done = subprocess.run([sys.executable, str(HUGE), "mcp", "--http", "0.0.0.0:0",
                           "--allow-remote", "--no-auth", "--json"], env=full_env(extra),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and doc["error"]["code"] == "remote_bind"
    assert doc["error"]["fix"] == "huge mcp --http 0.0.0.0:0 --allow-remote --json"


# --- remote binds -------------------------------------------------------------------------


def test_0_0_0_0_without_allow_remote_is_refused_with_the_fix(extra, tmp_path):
    done = subprocess.run([sys.executable, str(HUGE), "mcp", "--http", "0.0.0.0:8123"],
                          env=full_env(extra), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "serving MCP" not in done.stderr
    assert "--allow-remote" in done.stderr
    assert "huge mcp --http 0.0.0.0:8123 --allow-remote" in done.stderr


async def test_allow_remote_serves_with_a_token_and_prints_the_exposure(extra, tmp_path):
    from mcp import Client
    with http_server(HUGE, extra, tmp_path, "--allow-remote", address="0.0.0.0:0") as \
            (url, process):
        process.stderr.readline()       # the token line
        exposure = process.stderr.readline()
        assert "exposed on every network interface (--allow-remote)" in exposure
        local = url.replace("0.0.0.0", "127.0.0.1")
        async with Client(authed(local), mode="legacy", cache=None) as client:
            assert not (await client.call_tool("small", {})).is_error
        with _http() as http:
            assert http.post(local, headers=MCP_HEADERS, json=INITIALIZE).status_code == 401


# --- sessions -----------------------------------------------------------------------------


async def test_a_session_flood_leaves_an_authenticated_client_served(extra, tmp_path):
    """2,000 `initialize` with the valid token, 20 at a time: each opens a session; at the
    limit the oldest idle one is closed, never the live client's, and memory stays bounded."""
    import httpx2
    from mcp import Client
    with http_server(HUGE, extra, tmp_path, "--max-sessions", "50") as (url, process):
        async with Client(authed(url), mode="legacy", cache=None) as client:
            assert not (await client.call_tool("small", {})).is_error
            before = _rss_kb(process.pid)
            statuses = []
            async with httpx2.AsyncClient(timeout=60) as http:
                limit = anyio.Semaphore(20)

                async def one():
                    async with limit:
                        answer = await http.post(url, headers=MCP_HEADERS | bearer(),
                                                 json=INITIALIZE)
                        statuses.append(answer.status_code)

                async with anyio.create_task_group() as group:
                    for _ in range(2000):
                        group.start_soon(one)
            assert statuses.count(200) == 2000, {s: statuses.count(s) for s in set(statuses)}
            grown_mb = (_rss_kb(process.pid) - before) / 1024
            assert grown_mb < 60, f"the server grew by {grown_mb:.0f} MB"
            result = await client.call_tool("small", {})   # the live session survived
            assert not result.is_error
        async with Client(authed(url), mode="legacy", cache=None) as late:   # and a new one
            assert not (await late.call_tool("small", {})).is_error


def test_the_oldest_idle_session_goes_first_and_a_live_one_never(extra, tmp_path):
    with http_server(HUGE, extra, tmp_path, "--max-sessions", "3") as (url, _), _http() as http:
        def opened():
            answer = http.post(url, headers=MCP_HEADERS | bearer(), json=INITIALIZE)
            assert answer.status_code == 200, answer.text
            return answer.headers["mcp-session-id"]

        def alive(session):
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            answer = http.post(url, headers=MCP_HEADERS | bearer() |
                               {"mcp-session-id": session,
                                "mcp-protocol-version": "2025-06-18"}, json=ping)
            return answer.status_code == 200

        first, second, third = opened(), opened(), opened()
        assert alive(first)                 # first is now the most recently used
        fourth = opened()                   # full: the oldest idle one (second) goes
        assert not alive(second)
        assert alive(first) and alive(third) and alive(fourth)
        assert not alive("f" * 32)


# --- result size --------------------------------------------------------------------------


def _too_large(result, paginated=False):
    doc = json.loads(text_of(result))
    assert result.is_error and doc["error"]["code"] == "result_too_large"
    assert doc["error"]["size"] > doc["error"]["limit"]
    if paginated:
        assert doc["error"]["paging"] == ["--limit", "--cursor", "--fields"]
        assert "--limit" in doc["error"]["hint"] and "--cursor" in doc["error"]["hint"]
    return doc


async def test_a_100_mb_result_over_stdio_is_result_too_large_and_the_session_answers(
        extra, tmp_path):
    from mcp import Client
    params = stdio_params(HUGE, extra, tmp_path)
    async with Client(params, mode="legacy", cache=None) as client:
        with anyio.fail_after(120):
            _too_large(await client.call_tool("blob", {"megabytes": 100}))
        _too_large(await client.call_tool("items", {"count": 5000, "limit": 5000}),
                   paginated=True)
        page = await client.call_tool("items", {"count": 5000, "limit": 10})
        assert not page.is_error
        # without a limit an MCP call gets the agent's page: within the output budget
        budgeted = await client.call_tool("items", {"count": 5000})
        doc = json.loads(text_of(budgeted))
        assert not budgeted.is_error and doc["meta"]["truncated"]["omitted"] == 5000 - 15
        assert doc["meta"]["truncated"]["next"] == {"name": "items", "arguments": {
            "count": 5000, "cursor": "15"}}
        assert not (await client.call_tool("small", {})).is_error


async def test_a_100_mb_result_over_http_is_refused_and_memory_returns(extra, tmp_path):
    from mcp import Client
    with http_server(HUGE, extra, tmp_path, "--max-result-bytes", "1000000") as (url, process):
        async with Client(authed(url), mode="legacy", cache=None) as client:
            assert not (await client.call_tool("small", {})).is_error
            baseline = _rss_kb(process.pid)
            for _ in range(3):
                with anyio.fail_after(120):
                    _too_large(await client.call_tool("blob", {"megabytes": 100}))
            assert not (await client.call_tool("blob", {"megabytes": 0})).is_error
            grown_mb = (_rss_kb(process.pid) - baseline) / 1024
            assert grown_mb < 50, f"the server kept {grown_mb:.0f} MB after three 100 MB results"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_over_http_a_result_past_the_clients_1_mib_is_an_envelope_not_a_transport_error(
        mode, extra, tmp_path):
    """The SDK's client refuses a server-sent event over 1 MiB: a 2 MB result, and 600 KB of
    data sent twice (text and structuredContent), come back as `result_too_large`; what fits
    comes back whole, in both protocol eras. Over stdio the 2 MB result is sent."""
    from mcp import Client
    with http_server(HUGE, extra, tmp_path) as (url, _process):
        async with Client(authed(url), mode=mode, cache=None) as client:
            doc = _too_large(await client.call_tool("blob", {"megabytes": 2}))
            assert doc["error"]["limit"] == 1024 * 1024 - 16 * 1024
            assert "1 MiB" in doc["error"]["hint"]
            _too_large(await client.call_tool("shaped", {"kilobytes": 600}))
            fits = await client.call_tool("shaped", {"kilobytes": 400})
            assert not fits.is_error and len(fits.structured_content["text"]) == 400_000
    async with Client(stdio_params(HUGE, extra, tmp_path), mode=mode, cache=None) as client:
        assert not (await client.call_tool("blob", {"megabytes": 2})).is_error


def test_max_result_bytes_must_be_positive(extra, tmp_path):
    done = subprocess.run([sys.executable, str(HUGE), "mcp", "--max-result-bytes", "0",
                           "--json"], env=full_env(extra), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and doc["error"]["code"] == "invalid_value"


# --- client configs -----------------------------------------------------------------------


def _header_of(client: str, config: dict) -> str | None:
    """The Authorization header a client will send, read back from the snippet it is given."""
    snippet = config["snippet"]
    if client == "claude-code":
        argv = shlex.split(snippet)
        assert argv[:5] == ["claude", "mcp", "add", "--transport", "http"]
        assert argv[5:7] == ["huge", "http://127.0.0.1:9999/mcp"]
        return argv[argv.index("--header") + 1].split(": ", 1)[1]
    if client == "codex":
        table = tomllib.loads(snippet)["mcp_servers"]["huge"]
        assert table["url"] == "http://127.0.0.1:9999/mcp"
        assert "bearer_token" not in table          # Codex takes the token from a variable
        assert table["bearer_token_env_var"] == "BURGEE_MCP_TOKEN"
        assert "export BURGEE_MCP_TOKEN=" in config["note"]
        return "Bearer " + config["note"].split("export BURGEE_MCP_TOKEN=", 1)[1].split()[0]
    data = json.loads(snippet)
    entry = (data["servers"] if client == "vscode" else data["mcpServers"])["huge"]
    url_key = {"gemini": "httpUrl"}.get(client, "url")
    assert entry[url_key] == "http://127.0.0.1:9999/mcp"
    if client == "vscode":
        assert entry["type"] == "http"
    return entry["headers"]["Authorization"]


@pytest.mark.parametrize("client", ["claude-code", "cursor", "vscode", "gemini", "codex",
                                    "claude-desktop"])
def test_each_client_config_carries_the_bearer_header(extra, tmp_path, client):
    token_file = tmp_path / "token"
    token_file.write_text("file-token-abc\n")
    done = subprocess.run([sys.executable, str(HUGE), "mcp", "config", "--client", client,
                           "--url", "http://127.0.0.1:9999/mcp", "--token-file",
                           str(token_file), "--json"], env=full_env(extra),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)["data"]
    assert _header_of(client, config) == "Bearer file-token-abc"


def test_the_dev_dashboard_copies_a_config_with_the_live_token(tmp_path):
    from workbench.dev.engine import Workbench
    from workbench.runtime.serving import Policy
    bench = Workbench(str(HUGE))
    bench.url = "http://127.0.0.1:9999/mcp"
    bench.policy = Policy(token="dev-token-1", token_source="random")
    for client in ("claude-code", "cursor", "vscode", "gemini", "codex"):
        snippet = bench.client_config(client)
        config = {"snippet": snippet, "note": snippet}
        if client == "codex":
            assert "bearer_token_env_var" in snippet and "dev-token-1" in snippet
            continue
        assert _header_of(client, config | {"snippet": snippet.replace(
            "burgee-dev", "huge")}) == "Bearer dev-token-1"


async def test_burgee_mcp_file_http_wants_the_token_too(extra, tmp_path):
    """An adapted Click program served by `burgee mcp FILE --http` goes through the same gate."""
    from mcp import Client

    from _mcp_helpers import SAMPLES, adapted
    file = SAMPLES / "click_app.py"
    assert adapted(file)
    with http_server(file, extra, tmp_path) as (url, _), _http() as http:
        assert http.post(url, headers=MCP_HEADERS, json=INITIALIZE).status_code == 401
        async with Client(authed(url), mode="legacy", cache=None) as client:
            assert (await client.list_tools()).tools


async def test_the_dev_server_refuses_a_large_result_and_keeps_no_copy(tmp_path, monkeypatch):
    """`burgee dev` runs calls in a subprocess: a 20 MB result over a 1 MB limit is
    result_too_large, and the traffic log holds the small refusal, not the result."""
    from mcp import Client

    from workbench.dev.engine import Workbench
    from workbench.runtime.serving import http_policy
    for key, value in caller_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    bench = Workbench(str(HUGE), load_timeout=10.0, call_timeout=60.0,
                      policy=http_policy("127.0.0.1", 0, max_result_bytes=1_000_000))
    url = await bench.start(watch=False)
    try:
        async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
            _too_large(await client.call_tool("blob", {"megabytes": 20}))
            assert not (await client.call_tool("small", {})).is_error
        with anyio.fail_after(30):   # each call is recorded as it is answered
            while sum(e.method == "tools/call" for e in bench.traffic) < 2:
                await anyio.sleep(0.05)
        kept = [e for e in bench.traffic if e.tool == "blob"]
        assert kept and all(len(e.result or "") < 2000 for e in kept)
    finally:
        await bench.stop()


def test_an_idle_session_is_closed_after_the_idle_timeout(extra, tmp_path):
    import time
    with http_server(HUGE, extra, tmp_path, "--idle-timeout", "0.5") as (url, _), \
            _http() as http:
        answer = http.post(url, headers=MCP_HEADERS | bearer(), json=INITIALIZE)
        session = answer.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        headers = MCP_HEADERS | bearer() | {"mcp-session-id": session,
                                            "mcp-protocol-version": "2025-06-18"}
        deadline = time.monotonic() + 30
        while http.post(url, headers=headers, json=ping).status_code == 200:
            assert time.monotonic() < deadline, "the idle session was never closed"
            time.sleep(1.0)     # longer than the timeout: the session goes idle in between
        assert http.post(url, headers=headers, json=ping).status_code == 404
