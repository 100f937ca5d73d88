"""JSON-RPC hygiene (issue 33, item 7): over stdio a line that is not a message (not JSON, a
batch, no method) gets the spec's error with `id: null` (or its own id) and the server keeps
serving; over HTTP a body over the limit is a 413 whose body is a JSON-RPC error naming the
limit, not plain text. A real server process; raw bytes, as a careless client sends them."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

from _mcp_helpers import SAMPLES, bearer, full_env, http_server, server_argv

NOTES = SAMPLES / "notes.py"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "careless", "version": "1"}}}


def _stdio(lines: list[bytes], tmp_path) -> list[dict]:
    done = subprocess.run([sys.executable, *server_argv(NOTES)], input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=60, env=full_env({}), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_stdio_answers_what_is_not_a_message_and_keeps_serving(tmp_path):
    answers = _stdio([json.dumps(INIT).encode(), b"this is not json", b"\xff\xfe{",
                      b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]', b'{"jsonrpc":"2.0","id":7}',
                      b'{"jsonrpc":"2.0","id":3,"method":"ping"}'], tmp_path)
    assert answers[0]["id"] == 1 and "result" in answers[0]
    errors = [(a["id"], a["error"]["code"]) for a in answers[1:-1]]
    assert errors == [(None, -32700), (None, -32700), (None, -32600), (7, -32600)], answers
    assert "batches are not supported" in answers[3]["error"]["message"]
    assert answers[-1] == {"jsonrpc": "2.0", "id": 3, "result": {}}


def _post(url: str, body: bytes) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **bearer()})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type", ""), error.read()


def test_http_answers_a_body_over_the_limit_as_json_rpc(tmp_path):
    huge = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                       "params": {"name": "add", "arguments": {"text": "x" * 5_000_000}}})
    with http_server(NOTES, {}, tmp_path) as (url, _process):
        status, kind, body = _post(url, huge.encode())
        assert status == 413 and kind == "application/json", (status, kind, body[:200])
        error = json.loads(body)
        assert error["id"] is None and error["error"]["code"] == -32600
        assert "over 4 MiB" in error["error"]["message"]
        status, _, body = _post(url, json.dumps(INIT).encode())   # still serving
        assert status == 200 and b'"protocolVersion"' in body


def test_http_answers_a_chunked_body_over_the_limit_too(tmp_path):
    """No Content-Length: the SDK counts what it reads, then answers; the rest is drained."""
    import http.client
    from urllib.parse import urlsplit
    with http_server(NOTES, {}, tmp_path) as (url, _process):
        where = urlsplit(url)
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)

        def chunks():
            for _ in range(6):
                yield b"x" * 1_000_000
        connection.request("POST", where.path, body=chunks(), encode_chunked=True, headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **bearer()})
        response = connection.getresponse()
        body = response.read()
        assert response.status == 413 and json.loads(body)["error"]["code"] == -32600
