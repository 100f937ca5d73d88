"""A dropped SSE stream resumes (issue 33, item 3): over streamable HTTP every stream starts
with a priming event (an id and `retry:`), every event has an id, and a client that reconnects
with `Last-Event-ID` gets what came after it. A real `tool mcp --http` process and raw HTTP, as
the conformance suite's `sse-polling` scenario speaks it; the store's bounds in-process."""

from __future__ import annotations

import json
import urllib.request

import pytest

from _mcp_helpers import SAMPLES, bearer, caller_env, http_server

VERSION = "2025-11-25"
ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={**ACCEPT, **bearer(), **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.headers, response.read().decode()


def _events(body: str) -> list[dict]:
    events = []
    for block in body.replace("\r\n", "\n").strip().split("\n\n"):
        fields = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "")
                      for line in block.split("\n"))
        events.append(fields)
    return events


def test_a_stream_starts_primed_and_resumes_after_its_last_event(tmp_path):
    with http_server(SAMPLES / "notes.py", caller_env(tmp_path / "state"), tmp_path) as (url, _):
        headers, body = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {},
            "clientInfo": {"name": "poller", "version": "1"}}})
        session = {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": VERSION}
        priming, answer = _events(body)
        assert priming["data"] == "" and priming["retry"] == "1000" and priming["id"]
        assert answer["id"] and json.loads(answer["data"])["id"] == 1
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        _, body = _post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                              "params": {"name": "list", "arguments": {}}}, session)
        priming, answer = _events(body)
        # the client lost the stream after the priming event: it asks for what followed
        request = urllib.request.Request(url, method="GET", headers={
            "Accept": "text/event-stream", **bearer(), **session,
            "Last-Event-ID": priming["id"]})
        with urllib.request.urlopen(request, timeout=60) as stream:
            lines = []
            while not lines or not lines[-1].startswith("data: {"):
                lines.append(stream.readline().decode().rstrip("\r\n"))
        assert f"id: {answer['id']}" in lines
        assert json.loads(lines[-1][6:]) == json.loads(answer["data"])


def _message(number: int, size: int = 10):
    import mcp_types
    return mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message",
                                         params={"n": number, "pad": "x" * size})


@pytest.mark.asyncio
async def test_the_store_is_bounded_and_replays_only_its_own_stream():
    from workbench.mcp._events import MemoryEventStore
    store = MemoryEventStore(max_events=5, max_bytes=10_000)
    first = await store.store_event("a", None)
    ids = [await store.store_event(stream, _message(n)) for n, stream in enumerate("abab")]
    heard = []

    async def send(event):
        heard.append((event.event_id, event.message.params["n"]))
    assert await store.replay_events_after(first, send) == "a"
    assert heard == [(ids[0], 0), (ids[2], 2)]
    assert await store.replay_events_after("someone-else-1", send) is None
    for n in range(5):                      # count bound: the oldest go first
        await store.store_event("c", _message(10 + n))
    assert await store.replay_events_after(first, send) is None
    await store.store_event("d", _message(99, size=20_000))   # bytes bound: it alone is over
    assert store._bytes <= 10_000   # even alone it is over the bound: not kept
