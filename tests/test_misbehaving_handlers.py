"""Handlers that misbehave, readers that hang up: every case ends in one envelope (or one
stream with its @end line), and a server keeps serving. Each case failed before capture."""

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest

from _mcp_helpers import TOKEN, authed, caller_env, full_env
from conftest import PROGRAMS, clean_env, run_program, wait_until

UNRULY = PROGRAMS / "unruly.py"


def unruly(*args, **kw):
    return run_program(UNRULY, *args, **kw)


def one_envelope(result):
    assert result.stderr == "", result.stderr
    assert result.stdout.count("\n") == 1, result.stdout[:500]
    return json.loads(result.stdout)


# -- output a handler writes is kept, masked, beside the envelope ----------------------------

def test_a_print_lands_in_meta_output_masked():
    result = unruly("print", "--token", "tok-9f8e7d", "--json")
    doc = one_envelope(result)
    assert doc["data"] == {"ok": 1}
    assert doc["meta"]["output"] == {"stdout": "printed by the handler ***\n"}
    assert "tok-9f8e7d" not in result.stdout


@pytest.mark.parametrize("command, text", [("child", "from a child process\n"),
                                           ("saved", "written to a stream saved at import\n"),
                                           ("closer", "inside with\n")])
def test_children_saved_streams_and_closed_streams_are_caught(command, text):
    doc = one_envelope(unruly(command, "--json"))
    assert doc["ok"] is True and doc["meta"]["output"]["stdout"] == text


def test_a_person_sees_the_handlers_output_masked_and_live():
    result = unruly("print", "--token", "tok-9f8e7d")
    assert result.stdout.startswith("printed by the handler ***\n")
    assert "tok-9f8e7d" not in result.stdout + result.stderr


def test_ten_megabytes_printed_keep_the_tail_and_say_how_much_was_dropped():
    doc = one_envelope(unruly("big", "--json"))
    output = doc["meta"]["output"]
    assert len(output["stdout"]) == 64 * 1024
    assert output["truncated"] == {"stdout": 10 * 1024 * 1024 - 64 * 1024}


def test_a_stream_keeps_the_handlers_output_on_its_end_line():
    result = unruly("child", "--format", "ndjson")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit == 0 and result.stderr == ""
    assert list(lines[0]) == ["@meta"] and lines[1] == {"child": "done"}
    assert lines[-1]["@end"]["output"] == {"stdout": "from a child process\n"}


# -- every exit path ends in an envelope ------------------------------------------------------

@pytest.mark.parametrize("code, exit", [(3, 3), (0, 0), (42, 1)])
def test_sys_exit_in_a_handler_is_an_envelope(code, exit):
    result = unruly("exit", str(code), "--json")
    doc = one_envelope(result)
    assert result.exit == exit
    if code:
        assert doc["error"]["code"] == "handler_exit"
        assert doc["error"]["message"] == f"the handler called sys.exit({code})"
    else:
        assert doc["ok"] is True and doc["meta"]["warnings"] == [
            "the handler called sys.exit(0); return data instead"]


def test_a_value_that_is_not_json_is_invalid_result_naming_the_type():
    result = unruly("odd", "--json")
    doc = one_envelope(result)
    assert result.exit == 1 and doc["error"]["code"] == "invalid_result"
    assert doc["error"]["message"] == "the handler returned object, which is not JSON"


def test_a_base_exception_that_is_not_an_exception_is_an_internal_envelope():
    """Was: asyncio.CancelledError (a BaseException) from a handler was a traceback, and over
    MCP it killed the server before the call was answered."""
    result = unruly("cancelled", "--json")
    doc = one_envelope(result)
    assert result.exit == 1 and doc["error"]["code"] == "internal"
    assert "CancelledError" in doc["error"]["message"]
    person = unruly("cancelled")
    assert person.exit == 1 and "Traceback" not in person.stderr
    assert person.stderr.startswith("error: ")


def test_an_interrupted_stream_ends_with_an_end_line_carrying_130(tmp_path):
    marker = tmp_path / "started"
    process = subprocess.Popen([sys.executable, str(UNRULY), "slow", "--format", "ndjson"],
                               env=clean_env(UNRULY_MARKER=str(marker)), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    wait_until(marker.exists, "the stream to start")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    last = json.loads(out.splitlines()[-1])["@end"]
    assert process.returncode == 130 and err == ""
    assert last["ok"] is False and last["exit"] == 130 and last["count"] >= 3
    assert last["error"]["code"] == "interrupted"


@pytest.mark.parametrize("args", [["wide", "--json"], ["wide"], ["slow", "--format", "ndjson"]])
def test_a_reader_that_hangs_up_gives_141_in_every_mode(args):
    process = subprocess.Popen([sys.executable, str(UNRULY), *args], env=clean_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL)
    os.read(process.stdout.fileno(), 100)
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


@pytest.mark.parametrize("args", [["print", "--json"], ["print"]])
def test_a_closed_stdout_gives_141(args):
    done = subprocess.run([sys.executable, str(UNRULY), *args], env=clean_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, timeout=60,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 141 and done.stderr == b""


@pytest.mark.parametrize("args", [["shut"], ["shut", "--json"], ["shut", "--format", "ndjson"]])
def test_a_handler_that_closes_stdout_is_141_or_its_envelope(args):
    """Was: for a person, a handler's os.close(1) made writing the result a traceback (EBADF),
    exit 1. Under --json/ndjson fd 1 is the capture's, so the envelope still arrives."""
    result = unruly(*args)
    assert "Traceback" not in result.stderr and result.stderr == ""
    if len(args) == 1:
        assert result.exit == 141 and result.stdout == ""
    else:
        assert result.exit == 0 and '"shut":true' in result.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["wide"], ["wide", "--json"], ["slow", "--format", "ndjson"]])
def test_a_stdout_that_cannot_be_written_is_an_error_not_a_traceback(args):
    """Was: stdout on a full disk (`> /dev/full`) was an OSError traceback, exit 1."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, str(UNRULY), *args], env=clean_env(),
                              stdout=full, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == "error: standard output cannot be written: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_stderr_that_cannot_be_written_keeps_the_exit_code():
    """Was: a refusal written to a full stderr (`2> /dev/full`) was exit 1, not 2."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, str(UNRULY), "nope"], env=clean_env(),
                              stdout=subprocess.PIPE, stderr=full, stdin=subprocess.DEVNULL,
                              timeout=60)
    assert done.returncode == 2 and done.stdout == b""


@pytest.mark.parametrize("args, code", [(["nope"], 2), (["exit", "3"], 3), (["print"], 0)])
def test_a_closed_stderr_keeps_the_exit_code(args, code):
    """Was: with fd 2 closed (`2>&-`) sys.stderr is None, and writing an error to it was exit 1."""
    done = subprocess.run([sys.executable, str(UNRULY), *args], env=clean_env(),
                          stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
                          preexec_fn=lambda: os.close(2))
    assert done.returncode == code, done.stdout


def test_bytes_that_are_not_utf8_are_escaped_under_a_strict_locale():
    done = subprocess.run([sys.executable, str(UNRULY), b"\xff\xfeabc", "--json"],
                          env=clean_env(PYTHONIOENCODING="utf-8:strict"), capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2 and done.stderr == b""
    text = done.stdout.decode("utf-8")          # valid UTF-8, whatever came in
    doc = json.loads(text)
    assert "\udcff\udcfeabc" in doc["error"]["message"]   # escaped as \udcff in the JSON


@pytest.mark.parametrize("mode", [["--json"], ["--format", "ndjson"], []])
def test_a_secret_that_is_not_utf8_is_masked_in_what_the_handler_prints(mode):
    """Was: a sensitive value with bytes that are not UTF-8, printed by the handler, reached
    meta.output as `\\udcff\\udcfetok-9f8e7d` (the redactor knew only the surrogate form)."""
    done = subprocess.run([sys.executable, str(UNRULY), "print", "--token",
                           b"\xff\xfetok-9f8e7d", *mode],
                          env=clean_env(PYTHONIOENCODING="utf-8:strict"), capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"tok-9f8e7d" not in done.stdout + done.stderr, done.stdout
    assert b"printed by the handler ***" in done.stdout


def test_reading_stdin_under_an_agent_gives_up_on_a_silent_open_pipe():
    reader, writer = os.pipe()   # open, and nothing is ever written
    try:
        done = subprocess.run([sys.executable, str(UNRULY), "echo", "-", "--json"],
                              env=clean_env(CLAUDECODE="1", BURGEE_STDIN_TIMEOUT="0.3"),
                              stdin=reader, capture_output=True, text=True, timeout=60)
    finally:
        os.close(writer)
        os.close(reader)
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and doc["error"]["code"] == "stdin_timeout"
    assert doc["error"]["fix"] == "unruly echo <text> --json"


def test_reading_stdin_under_ci_takes_what_was_piped():
    result = run_program(UNRULY, "echo", "-", "--json", input="hello\n",
                         env=clean_env(CI="true", BURGEE_STDIN_TIMEOUT="5"))
    assert one_envelope(result)["data"] == {"text": "hello"}


def test_mcp_with_stdin_closed_refuses_without_a_traceback():
    done = subprocess.run([sys.executable, str(UNRULY), "mcp", "--json"], env=clean_env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: os.close(0))
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and doc["error"]["code"] == "stdin_closed"
    assert doc["error"]["fix"] == "unruly mcp --http 127.0.0.1:0 --json"
    assert "Traceback" not in done.stderr


# -- a server never dies of a handler ---------------------------------------------------------

def _texts(result):
    return json.loads(result.content[0].text)


async def _session_calls(client):
    out = {}
    out["print"] = await client.call_tool("print", {"token": "tok-9f8e7d"})
    out["exit"] = await client.call_tool("exit", {"code": 0})
    out["exit3"] = await client.call_tool("exit", {"code": 3})
    out["child"] = await client.call_tool("child", {})
    out["big"] = await client.call_tool("big", {})
    out["odd"] = await client.call_tool("odd", {})
    out["cancelled"] = await client.call_tool("cancelled", {})
    out["interrupt"] = await client.call_tool("interrupt", {})
    out["boom"] = await client.call_tool("boom", {})
    out["after"] = await client.call_tool("saved", {})
    return out


def _check_session(out):
    assert _texts(out["print"])["meta"]["output"]["stdout"] == "printed by the handler ***\n"
    assert _texts(out["exit"])["ok"] is True
    assert out["exit3"].is_error and _texts(out["exit3"])["error"]["exit"] == 3
    assert _texts(out["child"])["meta"]["output"]["stdout"] == "from a child process\n"
    assert len(_texts(out["big"])["meta"]["output"]["stdout"]) == 64 * 1024
    assert out["odd"].is_error and _texts(out["odd"])["error"]["code"] == "invalid_result"
    assert out["cancelled"].is_error and _texts(out["cancelled"])["error"]["code"] == "internal"
    assert out["interrupt"].is_error and _texts(out["interrupt"])["error"]["exit"] == 130
    assert out["boom"].is_error and _texts(out["boom"])["error"]["code"] == "internal"
    assert not out["after"].is_error   # still serving after all of the above


@pytest.mark.slow
def test_the_stdio_wire_carries_only_json_rpc_to_the_end(tmp_path):
    """Was: what a handler left in the sys.stdout buffer was flushed onto the wire when the
    server shut down, and the client logged "Failed to parse JSONRPC message". The whole
    wire is read here, to EOF after stdin closes."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    lines = [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    for request_id, (tool, arguments) in enumerate(
            [("buffered", {}), ("print", {"token": "tok-9f8e7d"}), ("exit", {"code": 0})], 1):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                 "params": {"name": tool, "arguments": arguments}}))
    done = subprocess.run([sys.executable, str(UNRULY), "mcp"], capture_output=True,
                          input="\n".join(lines).encode() + b"\n", timeout=120, cwd=tmp_path,
                          env=full_env(caller_env(tmp_path)))
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines()]   # every line JSON
    results = {a["id"]: json.loads(a["result"]["content"][0]["text"]) for a in answers
               if a.get("id")}
    assert sorted(results) == [1, 2, 3]
    assert results[1]["meta"]["output"] == {"stdout": "left in the buffer"}
    assert results[2]["meta"]["output"] == {"stdout": "printed by the handler ***\n"}
    assert results[3]["ok"] is True
    assert b"tok-9f8e7d" not in done.stdout + done.stderr


@pytest.mark.slow
async def test_a_stdio_session_survives_every_misbehaving_handler(tmp_path):
    from mcp import Client, StdioServerParameters
    logged = []

    async def on_message(message):
        if isinstance(message, Exception):
            logged.append(message)

    params = StdioServerParameters(command=sys.executable, args=[str(UNRULY), "mcp"],
                                   env=caller_env(tmp_path), cwd=str(tmp_path))
    async with Client(params, mode="legacy", cache=None, message_handler=on_message) as client:
        out = await _session_calls(client)
    _check_session(out)
    assert logged == []   # nothing but JSON-RPC ever reached the wire


@pytest.mark.slow
async def test_an_http_session_survives_every_misbehaving_handler(tmp_path):
    from mcp import Client
    process = subprocess.Popen([sys.executable, str(UNRULY), "mcp", "--http", "127.0.0.1:0"],
                               env=full_env(caller_env(tmp_path) | {"BURGEE_MCP_TOKEN": TOKEN}),
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(process.stderr.readline)
        url = line.rsplit(" ", 1)[1].strip()
        async with Client(authed(url), mode="legacy", cache=None) as client:
            out = await _session_calls(client)
        _check_session(out)
        async with Client(authed(url), mode="legacy", cache=None) as client:   # a new session too
            assert not (await client.call_tool("saved", {})).is_error
    finally:
        process.terminate()
        process.wait(timeout=30)


# -- deprecations are said where agents read ----------------------------------------------------

def test_the_program_schema_marks_a_deprecated_command_and_its_replacement():
    import jsonschema

    from workbench import Command, Program
    from workbench.surfaces.schema import program_schema
    from conftest import ROOT
    program = Program("tool", commands=[
        Command("ship", effects="non_idempotent", run=lambda ctx: 1),
        Command("push", effects="non_idempotent", run=lambda ctx: 1, deprecated=True,
                replaced_by="ship")])
    doc = program_schema(program)
    entries = {entry["command"]: entry for entry in doc["commands"]}
    assert entries["push"]["deprecated"] is True and entries["push"]["replaced_by"] == "ship"
    assert "deprecated" not in entries["ship"]
    shipped = json.loads((ROOT / "workbench" / "schemas" / "program.schema.json").read_text())
    jsonschema.validate(doc, shipped)
