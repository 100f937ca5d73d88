"""Redaction by structure (issue 29, item 3): secrets are masked in the data before it is
encoded, then in captured text as text; a mask never breaks JSON, never reaches into a number
or a key, catches a secret's escaped forms and is applied before captured output is cut.
Over the CLI (real subprocesses), MCP stdio and streamable HTTP (the SDK's client)."""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import authed, caller_env, http_server, stdio_params, text_of
from conftest import PROGRAMS, run_program

HOSTILE = PROGRAMS / "hostile.py"


def _cli(*args):
    return run_program(HOSTILE, *args)


async def _mcp(transport, tmp_path, tool, arguments) -> str:
    from mcp import Client
    extra = caller_env(tmp_path / "state")
    if transport == "stdio":
        async with Client(stdio_params(HOSTILE, extra, tmp_path), mode="legacy",
                          cache=None) as client:
            return text_of(await client.call_tool(tool, arguments))
    with http_server(HOSTILE, extra, tmp_path) as (url, _process):
        async with Client(authed(url), mode="legacy", cache=None) as client:
            return text_of(await client.call_tool(tool, arguments))


# -- numbers and keys keep their shape; JSON stays JSON -----------------------------------

def test_a_secret_that_is_digits_never_reaches_into_a_number_on_the_cli():
    """Was: `--api-key 500` printed `"quantity":***0` (not JSON)."""
    doc = json.loads(_cli("quantity", "--api-key", "500", "--json").stdout)
    assert doc["data"]["quantity"] == 5000
    lines = [json.loads(line) for line in
             _cli("quantity", "--api-key", "500", "--format", "ndjson").stdout.splitlines()]
    assert lines[1]["quantity"] == 5000


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_secret_that_is_digits_never_reaches_into_a_number_over_mcp(transport,
                                                                            tmp_path):
    text = await _mcp(transport, tmp_path, "quantity", {"api_key": "500"})
    assert json.loads(text)["data"]["quantity"] == 5000


@pytest.mark.parametrize("secret", ['k":tru', 'ta":{"', 'a\\"b', '"}}'])
def test_a_secret_made_of_json_never_breaks_the_envelope(secret):
    """Was: the encoded envelope was masked as text, so a secret that spells a piece of it
    (`k":tru` in `{"ok":true`) cut the document apart."""
    for args in (["--json"], ["--format", "ndjson"]):
        result = _cli("escaped", "--token", secret, *args)
        for line in result.stdout.splitlines():   # every line JSON, no string holds it
            assert not any(secret in text for text in _strings(json.loads(line))), line
    doc = json.loads(_cli("escaped", "--token", secret, "--json").stdout)
    assert doc["ok"] is True and doc["data"] == {"token": "***"}
    assert list(doc["meta"]["provenance"]) == ["token"]


def _strings(value):
    """Every string (keys too) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def test_a_key_is_masked_only_when_it_is_the_secret():
    from workbench.runtime.redact import Redactor
    redactor = Redactor(["ant", "hunter2-key"])
    assert redactor.value({"quantity": 1, "hunter2-key": 2, "note": "an ant"}) == \
        {"quantity": 1, "***": 2, "note": "an ***"}


# -- escaped forms ---------------------------------------------------------------------------

ODD = 's\u00e4"cr\\et-42'   # a non-ASCII letter, a quote and a backslash


def _forms(secret: str) -> list:
    return [secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
            repr(secret)[1:-1], ascii(secret)[1:-1]]


def test_what_a_handler_prints_escaped_is_masked_on_the_cli():
    """Was: `json.dumps(token)` printed `s\\u00e4\\"cr\\\\et-42`, which is not the secret
    as given, so it reached meta.output."""
    result = _cli("escaped", "--token", ODD, "--json")
    output = json.loads(result.stdout)["meta"]["output"]["stdout"]
    assert output == '{"token": "***"}\n{"token": "***"}\n\'***\'\n\'***\'\n', output
    for form in _forms(ODD):
        assert form not in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_what_a_handler_prints_escaped_is_masked_over_mcp(transport, tmp_path):
    text = await _mcp(transport, tmp_path, "escaped", {"token": ODD})
    for form in _forms(ODD):
        assert form not in text and form not in json.loads(text)["meta"]["output"]["stdout"]


# -- the capture window --------------------------------------------------------------------

TOKEN = "tOkEn-0123456789-abcdef"


def test_a_secret_cut_by_the_capture_window_is_masked_whole_on_the_cli():
    """Was: the 64 KiB tail started inside the secret and kept its tail (`456789-abcdef`)."""
    output = json.loads(_cli("flood", "--token", TOKEN, "--json").stdout)["meta"]["output"]
    assert output["stdout"].startswith("***y") and TOKEN[len(TOKEN) // 2:] not in \
        output["stdout"]
    assert output["truncated"]["stdout"] == 1001


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_secret_cut_by_the_capture_window_is_masked_whole_over_mcp(transport,
                                                                           tmp_path):
    text = await _mcp(transport, tmp_path, "flood", {"token": TOKEN})
    output = json.loads(text)["meta"]["output"]["stdout"]
    assert output.startswith("***y") and TOKEN[len(TOKEN) // 2:] not in text


# -- a person ---------------------------------------------------------------------------------

def test_sys_exit_with_the_secret_is_masked_for_a_person():
    """Was: `sys.exit(f"... {token}")` printed the token on stderr."""
    result = _cli("stop", "--token", TOKEN)
    assert result.exit == 1 and "cannot go on with ***" in result.stderr
    assert TOKEN not in result.stdout + result.stderr
    doc = json.loads(_cli("stop", "--token", TOKEN, "--json").stdout)
    assert doc["error"]["code"] == "handler_exit" and TOKEN not in json.dumps(doc)
