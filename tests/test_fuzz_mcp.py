"""A seeded MCP-argument fuzz test: hundreds of tools/call requests with wrong types, extra
keys, missing keys, huge strings and nested junk, through the MCP SDK's own client over stdio
(`python notes.py mcp`, `python warehouse.py mcp`), one session per program. Every call is
answered with a CallToolResult (never a protocol error), every refusal of a known tool is
`isError` with an envelope carrying a `fix`, and the session keeps answering.

The SDK client will not send arguments that are not an object, so those (a list, a string,
a number, a boolean, null) go as raw JSON-RPC lines over the server's stdin, in one session.
"""

import json
import random
import subprocess
import sys

import pytest

from _mcp_helpers import caller_env, full_env, stdio_params, text_of
from conftest import SAMPLES
from workbench.declaration.exits import EXIT_CODES
from workbench.loader import load_program
from workbench.runtime.arguments import from_argv
from workbench.surfaces.tools import listed


SEED = 1011
CALLS = {"notes": 220, "warehouse": 180}
MEGABYTE = "m" * (1024 * 1024)
KEYS = ["bogus", "tokn", "", "Tag", "tag ", "__proto__", "k" * 1000, "json", "help",
        "--tag", "idempotency-key", "dry_run", "expect_plan", "limit", "0", "\u00e9t\u00e9"]


def deep(depth: int):
    value = None
    for i in range(depth):
        value = [value] if i % 2 else {"n": value}
    return value


JUNK = [None, True, False, 0, -1, 2 ** 63, 10 ** 30, 1.5, -0.0, "", "x", "-", "--json", "-rf",
        "\u65e5\u672c", "a\nb", "\U0001f600", [], [1, "a", None], {}, {"a": {"b": [1, {"c": None}]}},
        [[[[[]]]]], ["--", "-x"], deep(60), "1" * 5000, "SKU-0001", "SKU-0001=3", 3, "home"]


def _known_calls(program) -> list:
    """(tool name, arguments) of every example, as an MCP client would send it."""
    from _mcp_helpers import examples
    calls = []
    for command, tokens in examples(program):
        try:
            _command, arguments = from_argv(program, tokens)
        except ValueError:
            continue
        if command.tool_name in {c.tool_name for c in listed(program)}:
            calls.append((command.tool_name, arguments))
    for command in listed(program):   # every tool at least once, even without an example
        calls.append((command.tool_name, {}))
    return calls


def _misspelt(rng, name: str) -> str:
    if len(name) < 3:
        return name + "x"
    i = rng.randrange(len(name) - 1)
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def mutate(rng, tools: list, name: str, arguments: dict):
    """One junk call: (tool name, arguments, whether the tool is a known one)."""
    arguments = dict(arguments)
    known = True
    roll = rng.random()
    if roll < 0.06:
        name, known = _misspelt(rng, name), False
    elif roll < 0.08:
        name, known = rng.choice(["", "x" * 100_000, "\u00e9", "purge", "mcp", "help"]), False
    if name not in tools:
        known = False
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        op = rng.random()
        keys = list(arguments)
        if op < 0.35 and keys:                # a wrong type
            arguments[rng.choice(keys)] = rng.choice(JUNK)
        elif op < 0.5:                        # an extra key
            arguments[rng.choice(KEYS)] = rng.choice(JUNK)
        elif op < 0.65 and keys:              # a missing key
            del arguments[rng.choice(keys)]
        elif op < 0.72:                       # a huge string
            arguments[rng.choice(keys or KEYS)] = MEGABYTE
        elif op < 0.85:                       # nested junk
            arguments[rng.choice(keys + KEYS)] = {"x": [rng.choice(JUNK), {"y": rng.choice(JUNK)}]}
        elif len(keys) > 1:                   # values swapped between keys
            a, b = rng.sample(keys, 2)
            arguments[a], arguments[b] = arguments[b], arguments[a]
    return name, arguments, known


def plan(program, count: int, seed: int) -> list:
    rng = random.Random(seed)
    known = _known_calls(program)
    tools = {c.tool_name for c in listed(program)}
    return [mutate(rng, tools, *rng.choice(known)) for _ in range(count)]


def check_result(where: str, known: bool, result) -> str:
    """The promises for one CallToolResult; returns the envelope's error code (or "ok")."""
    text = text_of(result)
    assert len(result.content) == 1 and "\n" not in text, f"{where}: {text[:300]}"
    doc = json.loads(text)
    assert doc["ok"] in (True, False, "partial"), where
    assert doc["meta"]["schema_version"], where
    if doc["ok"] is True:
        assert not result.is_error, where
        return "ok"
    assert result.is_error, f"{where}: not ok but not isError: {text[:300]}"
    assert result.structured_content is None, where
    if doc["ok"] == "partial":
        assert doc["data"]["succeeded"] and doc["data"]["failed"], where
        return "partial"
    error = doc["error"]
    assert error["code"] and error["message"] and error["exit"] in EXIT_CODES, where
    assert error["code"] != "internal", f"{where}: {text[:500]}"
    if known and error["exit"] == 2:
        assert error.get("fix"), f"{where}: a refusal with no fix: {text[:500]}"
        if error["code"] in ("unknown_option", "invalid_value", "invalid_choice",
                             "missing_option", "missing_argument") and \
                error["fix"].startswith("{"):
            assert isinstance(json.loads(error["fix"]), dict), where
    return error["code"]


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 300 else text[:300] + f"... ({len(text)} chars)"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.slow
async def test_hundreds_of_junk_calls_in_one_session_all_answer(name, tmp_path):
    from mcp import Client
    from mcp.client.stdio import stdio_client
    program = load_program(str(SAMPLES / f"{name}.py"))
    calls = plan(program, CALLS[name], SEED + len(name))
    extra = caller_env(tmp_path / "state") | {
        "BURGEE_STATE_DIR": str(tmp_path / "state" / "burgee"),
        "NOTES_FILE": str(tmp_path / "notes.json"),
        "WAREHOUSE_FILE": str(tmp_path / "warehouse.json"), "BURGEE_STDIN_TIMEOUT": "1"}
    codes: dict = {}
    failures: list = []
    with open(tmp_path / "err.txt", "w+") as errlog:
        transport = stdio_client(stdio_params(SAMPLES / f"{name}.py", extra, tmp_path),
                                 errlog=errlog)
        async with Client(transport, cache=None, mode="legacy") as client:
            listed_names = {tool.name for tool in (await client.list_tools()).tools}
            for i, (tool, arguments, known) in enumerate(calls):
                where = f"{name} call {i}: {_short(tool)} {_short(arguments)}"
                result = await client.call_tool(tool, arguments)   # a protocol error raises
                try:
                    code = check_result(where, known and tool in listed_names, result)
                except (AssertionError, ValueError, KeyError, TypeError) as error:
                    failures.append(f"{type(error).__name__}: {error}"[:700])
                    continue
                codes[code] = codes.get(code, 0) + 1
                if i % 50 == 49:   # the session keeps answering
                    assert {t.name for t in (await client.list_tools()).tools} == listed_names
            tool, arguments = _known_calls(program)[0]
            assert check_result("last", True, await client.call_tool(tool, arguments)) == "ok"
        errlog.seek(0)
        logged = errlog.read()
    assert not failures, f"{len(failures)} calls broke a promise:\n" + "\n".join(failures[:10])
    assert "Traceback" not in logged, logged[-3000:]
    assert codes.get("ok", 0) > len(calls) // 10 and len(codes) > 4, codes  # a real mix
    print(f"{name}: {len(calls)} calls in one session; results {sorted(codes.items())}")


NON_OBJECTS = [[], [1, 2], ["--json"], "x", "", "{\"a\": 1}", 0, 3.5, True, False,
               [{"tag": "x"}], "m" * 100_000]


@pytest.mark.slow
def test_arguments_that_are_not_an_object_are_refused_with_a_fix(tmp_path):
    """Raw JSON-RPC: the SDK's client will not send these. Every one is answered with an
    isError CallToolResult whose envelope has a fix; null arguments mean none."""
    program = load_program(str(SAMPLES / "notes.py"))
    tools = sorted(c.tool_name for c in listed(program))
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    lines = [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    sent = {}
    request_id = 0
    for tool in tools:
        for arguments in NON_OBJECTS:
            request_id += 1
            sent[request_id] = (tool, arguments)
            lines.append(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                     "params": {"name": tool, "arguments": arguments}}))
    request_id += 1
    lines.append(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                             "params": {"name": "list", "arguments": None}}))
    last = request_id
    extra = caller_env(tmp_path / "state") | {"NOTES_FILE": str(tmp_path / "notes.json")}
    done = subprocess.run([sys.executable, str(SAMPLES / "notes.py"), "mcp"],
                          input="\n".join(lines).encode() + b"\n", env=full_env(extra),
                          capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-3000:]
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines()) if "id" in a}
    assert set(answers) == set(range(last + 1)), sorted(set(range(last + 1)) - set(answers))
    for request_id, (tool, arguments) in sent.items():
        where = f"{tool} {_short(arguments)}"
        answer = answers[request_id]
        assert "result" in answer, f"{where}: a protocol error {answer}"
        result = answer["result"]
        doc = json.loads(result["content"][0]["text"])
        assert result["isError"] is True and doc["ok"] is False, where
        assert doc["error"]["exit"] == 2 and doc["error"]["fix"], where
        assert isinstance(json.loads(doc["error"]["fix"]), dict), where
    listing = json.loads(answers[last]["result"]["content"][0]["text"])
    assert listing["ok"] is True   # null arguments: none given
    print(f"non-object arguments: {len(sent)} raw calls, every one refused with a fix")
