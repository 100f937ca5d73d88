"""`workbench.mcp.asgi` served by `uvicorn app:app --workers 2` with the PostgreSQL key store:
calls with one idempotency key spread over the workers run the body once and all answer the
same. Real uvicorn workers, a real PostgreSQL (conftest `postgres_url`), the SDK's client."""

from __future__ import annotations

import json
import time

import anyio
import pytest

from _mcp_helpers import bearer
from conftest import PROGRAMS, ROOT, clean_env
from _uvicorn import call, uvicorn_pool, worker_pids

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

KEYED = PROGRAMS / "keyed.py"


@pytest.mark.asyncio
async def test_two_workers_share_one_key_through_postgres(postgres_url, tmp_path):
    env = clean_env(BURGEE_IDEMPOTENCY_URL=postgres_url, BURGEE_STATE_DIR=tmp_path / "state",
                    PYTHONPATH=ROOT)
    log, gate = tmp_path / "runs.log", tmp_path / "gate"
    arguments = {"log": str(log), "gate": str(gate), "idempotency_key": "one-key"}
    results = []
    with uvicorn_pool(KEYED, 2, env, tmp_path) as url:
        assert len(await worker_pids(url, 2)) == 2
        before = _connections(postgres_url)

        async def one(mode):
            results.append(await call(url, "act", arguments, mode=mode))

        async with anyio.create_task_group() as group:
            for index in range(16):
                group.start_soon(one, ("legacy", "auto")[index % 2])
            deadline = time.monotonic() + 120
            while not (log.exists() and "start" in log.read_text()):
                assert time.monotonic() < deadline, "no call reached the body"
                await anyio.sleep(0.05)
            # every call holds a connection while it holds or waits on the claim: open the
            # gate once all 16 have found it (the body runs; 15 find it pending)
            while (held := _connections(postgres_url) - before) < 16:
                assert time.monotonic() < deadline, f"only {held} calls reached the claim"
                await anyio.sleep(0.05)
            gate.write_text("")
    docs = [json.loads(result.content[0].text) for result in results]
    assert len(docs) == 16 and all(doc["ok"] for doc in docs), docs
    runs = log.read_text()   # shown with every failure below: which process ran when
    assert len({json.dumps(doc["data"]) for doc in docs}) == 1, runs
    assert sorted(bool(doc["meta"].get("replayed")) for doc in docs) == [False] + [True] * 15, \
        runs
    assert sum(line.startswith("start") for line in runs.splitlines()) == 1, runs


def _connections(url) -> int:
    """Client connections to the key store's database, other than this query's own."""
    import psycopg
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                  "current_database() AND pid <> pg_backend_pid()"
                                  ).fetchone()[0]


@pytest.mark.asyncio
async def test_gunicorn_with_uvicorn_workers_serves_the_same_app(tmp_path):
    env = clean_env(BURGEE_STATE_DIR=tmp_path / "state", PYTHONPATH=ROOT)
    with uvicorn_pool(KEYED, 2, env, tmp_path, server="gunicorn") as url:
        assert len(await worker_pids(url, 2)) == 2
        done = await call(url, "act", {"log": str(tmp_path / "log"), "idempotency_key": "G"})
        again = await call(url, "act", {"log": str(tmp_path / "log"), "idempotency_key": "G"})
    assert not done.is_error and json.loads(again.content[0].text)["meta"]["replayed"] is True


@pytest.mark.asyncio
async def test_the_asgi_app_checks_host_and_origin(tmp_path):
    """As `tool mcp --http`: a foreign Host is 421, a foreign Origin 403; a name listed in
    BURGEE_MCP_ALLOWED_HOSTS (the load balancer's) is served."""
    import urllib.error
    import urllib.request
    env = clean_env(BURGEE_STATE_DIR=tmp_path / "state", PYTHONPATH=ROOT,
                    BURGEE_MCP_ALLOWED_HOSTS="mcp.example.com")
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    with uvicorn_pool(KEYED, 1, env, tmp_path) as url:
        await worker_pids(url, 1)
        for headers, code in (({"Authorization": "Bearer wrong"}, 401),
                              ({"Host": "evil.example"}, 421),
                              ({"Origin": "http://evil.example"}, 403),
                              ({"Host": "mcp.example.com",
                                "Origin": "https://mcp.example.com"}, 200)):
            request = urllib.request.Request(url, data=ping, method="POST", headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream", **bearer(), **headers})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status = response.status
            except urllib.error.HTTPError as error:
                status = error.code
            assert status == code, (headers, status)


def test_the_asgi_app_needs_a_token_to_be_built(monkeypatch):
    """Every worker must check the same bearer token: with no token and no BURGEE_MCP_TOKEN the
    app is refused (naming the fix); auth=False leaves auth to the caller's middleware."""
    from workbench.declaration.model import Fail
    from workbench.mcp import asgi
    monkeypatch.delenv("BURGEE_MCP_TOKEN", raising=False)
    with pytest.raises(Fail) as refused:
        asgi(str(KEYED), environ={})
    with pytest.raises(Fail):   # a blank variable is no token (the rule `tool mcp --http` reads)
        asgi(str(KEYED), environ={"BURGEE_MCP_TOKEN": "  "})
    assert refused.value.code == "missing_token" and "BURGEE_MCP_TOKEN" in refused.value.hint
    assert asgi(str(KEYED), environ={}, auth=False) is not None
    assert asgi(str(KEYED), environ={"BURGEE_MCP_TOKEN": "t" * 40}) is not None
