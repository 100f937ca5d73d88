"""The MCP server with real parts: `python FILE mcp` processes and the SDK's own client.

stdio and streamable HTTP, both protocol eras, list_changed after a program swap, a handler
that raises, garbage on stdin, DNS-rebinding protection, `mcp config`, `burgee mcp FILE`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import anyio
import pytest

from _mcp_helpers import (ROOT, SAMPLES, authed, bearer, caller_env, full_env, http_server,
                          stdio_params, text_of)
from workbench.loader import load_program
from workbench.surfaces.tools import list_tools


APP = textwrap.dedent('''
    from workbench import Argument, Command, Fail, Option, Program, run

    def boom(ctx):
        raise RuntimeError("kaboom")

    def echo(ctx):
        print("stray output from a handler")
        return {"said": ctx.args.words}

    def area(ctx):
        ctx.progress(1, 2, "half")
        return {"area": ctx.options.width * ctx.options.height}

    program = Program(name="app", version="2.0.0", description="Test app", commands=[
        Command(name="boom", description="Always raises", effects="read_only", run=boom),
        Command(name="echo", description="Say words", effects="read_only",
                arguments=[Argument("words", variadic=True, required=False)], run=echo),
        Command(name="area", description="Width times height", effects="read_only",
                options={"width": Option(type="integer", required=True, description="w"),
                         "height": Option(type="integer", default=1, description="h")},
                output={"type": "object", "properties": {"area": {"type": "integer"}},
                        "required": ["area"]},
                examples=["app area --width 3 --height 4"], run=area),
        Command(name="secret", description="Never an MCP tool", effects="withheld", run=echo),
    ])

    if __name__ == "__main__":
        run(program)
''')


@pytest.fixture
def app(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(APP, encoding="utf-8")
    return file


@pytest.fixture
def extra(tmp_path):
    return caller_env(tmp_path / "state")


def stdio_client(file, extra, cwd, errlog, **kwargs):
    """The SDK client over stdio, with the server's stderr captured in `errlog`."""
    from mcp import Client
    from mcp.client.stdio import stdio_client as transport
    return Client(transport(stdio_params(file, extra, cwd), errlog=errlog), cache=None, **kwargs)


async def test_stdio_lists_the_tools_the_surface_describes(app, extra, tmp_path):
    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(app, extra, tmp_path, errlog, mode="legacy") as client:
            assert client.server_info.name == "app" and client.server_info.version == "2.0.0"
            assert client.server_capabilities.tools.list_changed is True
            listed = await client.list_tools()
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
    assert wire == list_tools(load_program(str(app)))


async def test_a_handler_that_raises_is_an_internal_result_and_the_server_answers_on(
        app, extra, tmp_path):
    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(app, extra, tmp_path, errlog, mode="legacy") as client:
            result = await client.call_tool("boom", {})
            doc = json.loads(text_of(result))
            assert result.is_error and doc["error"]["code"] == "internal"
            assert doc["error"]["message"] == "RuntimeError: kaboom"
            again = await client.call_tool("area", {"width": 3, "height": 4})
            assert not again.is_error and again.structured_content == {"area": 12}
        errlog.seek(0)
        assert "Traceback" not in errlog.read()


async def test_stray_prints_never_reach_the_wire(app, extra, tmp_path):
    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(app, extra, tmp_path, errlog, mode="legacy") as client:
            result = await client.call_tool("echo", {"words": ["-n", "hi"]})
    assert json.loads(text_of(result))["data"] == {"said": ["-n", "hi"]}


async def test_unknown_and_withheld_tools_are_results_naming_the_closest(app, extra, tmp_path):
    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(app, extra, tmp_path, errlog, mode="legacy") as client:
            unknown = await client.call_tool("aera", {"width": 1})
            withheld = await client.call_tool("secret", {})
            bad = await client.call_tool("area", {"widht": 2})
    doc = json.loads(text_of(unknown))
    assert unknown.is_error and doc["error"]["code"] == "unknown_tool"
    assert doc["error"]["hint"] == "did you mean: area?" and doc["error"]["exit"] == 2
    doc = json.loads(text_of(withheld))
    assert withheld.is_error and doc["error"]["code"] == "tool_withheld"
    assert "app secret" in doc["error"]["hint"]
    doc = json.loads(text_of(bad))
    assert bad.is_error and doc["error"]["code"] == "unknown_option"
    assert json.loads(doc["error"]["fix"]) == {"width": 2}


async def test_progress_reaches_a_client_that_asks_for_it(app, extra, tmp_path):
    heard = []

    async def on_progress(progress, total, message):
        heard.append((progress, total, message))

    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(app, extra, tmp_path, errlog, mode="legacy") as client:
            result = await client.call_tool("area", {"width": 2}, progress_callback=on_progress)
    assert not result.is_error and heard == [(1.0, 2.0, "half")]


STEPS = textwrap.dedent('''
    import time
    from workbench import Command, Program, run

    def steps(ctx):
        for done in range(4):           # four reports, at least 60 ms apart
            ctx.progress(done, 3, f"step {done}")
            time.sleep(0.06)
        return {"steps": 3}

    program = Program(name="steps", version="1.0.0", description="Report progress",
                      commands=[Command(name="steps", description="Four reports",
                                        effects="read_only", run=steps)])
    if __name__ == "__main__":
        run(program)
''')


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_progress_report_50_ms_apart_reaches_the_client(mode, extra, tmp_path):
    """The conformance suite's `tools-call-with-progress`: reports 50 ms apart, none dropped
    by the throttle (the sleeps only ever make them further apart)."""
    file = tmp_path / "steps.py"
    file.write_text(STEPS, encoding="utf-8")
    heard = []

    async def on_progress(progress, total, message):
        heard.append((progress, message))

    with open(tmp_path / "err.txt", "w+") as errlog:
        async with stdio_client(file, extra, tmp_path, errlog, mode=mode) as client:
            result = await client.call_tool("steps", {}, progress_callback=on_progress)
    assert not result.is_error
    assert heard == [(float(n), f"step {n}") for n in range(4)]


@pytest.mark.slow
def test_garbage_on_stdin_gets_answers_to_what_follows_and_a_clean_exit(app, extra, tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    lines = [b"this is not json\n", b"\xff\xfe\x00garbage\n", b"{\"jsonrpc\": \"2.0\"}\n",
             b"[1, 2, 3]\n", json.dumps(init).encode() + b"\n",
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
             b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"area",'
             b'"arguments":{"width":5}}}\n', b"\x00\x01\x02\n"]
    done = subprocess.run([sys.executable, str(app), "mcp"], input=b"".join(lines),
                          env=full_env(extra), capture_output=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {a.get("id"): a for a in answers if "id" in a}
    assert by_id[1]["result"]["serverInfo"]["name"] == "app"
    text = by_id[2]["result"]["content"][0]["text"]
    assert json.loads(text)["data"] == {"area": 5}


async def test_a_swapped_program_is_announced_to_clients_of_both_eras():
    from mcp import Client
    from workbench import Command, Program
    from workbench.mcp.server import ProgramServer

    def make(*names):
        return Program(name="live", commands=[
            Command(name=n, description=n, effects="read_only", run=lambda ctx: {})
            for n in names])

    served = ProgramServer(make("one"))
    heard = anyio.Event()

    async def handler(message):
        if getattr(message, "method", None) == "notifications/tools/list_changed" or \
                type(message).__name__ == "ToolListChangedNotification":
            heard.set()

    async with Client(served.server, mode="legacy", cache=None, message_handler=handler) as old:
        assert [t.name for t in (await old.list_tools()).tools] == ["one"]
        assert served.connected == 1
        async with Client(served.server, cache=None) as new:
            assert new.protocol_version >= "2026"
            async with new.listen(tools_list_changed=True) as subscription:
                served.set_program(make("one", "two"))
                await served.notify_tools_changed()
                with anyio.fail_after(10):
                    await heard.wait()
                    async for event in subscription:
                        assert "ToolsListChanged" in type(event).__name__
                        break
            assert [t.name for t in (await new.list_tools()).tools] == ["one", "two"]
        assert [t.name for t in (await old.list_tools()).tools] == ["one", "two"]


async def test_a_custom_caller_runs_the_call_and_observers_hear_it():
    from mcp import Client
    from workbench import Command, Option, Program
    from workbench.mcp.server import ProgramServer
    from workbench.runtime.pipeline import Outcome
    program = Program(name="p", commands=[
        Command(name="go", description="go", effects="idempotent",
                options={"fast": Option(type="boolean", description="hurry")},
                run=lambda ctx: {})])
    calls, records = [], []

    def caller(program_, command, argv):
        calls.append((program_.name, command.tool_name, argv))
        return Outcome(5, '{"ok":false,"error":{"code":"busy","exit":5,"message":"m"}}\n', "",
                       {"ok": False, "error": {"code": "busy", "exit": 5, "message": "m"}})

    served = ProgramServer(program, caller=caller, observer=records.append)
    async with Client(served.server, mode="legacy", cache=None) as client:
        result = await client.call_tool("go", {"fast": True})
    assert calls == [("p", "go", ["go", "--fast", "--json"])]
    assert result.is_error and text_of(result) == \
        '{"ok":false,"error":{"code":"busy","exit":5,"message":"m"}}'
    [record] = [r for r in records if r["method"] == "tools/call"]
    assert record["tool"] == "go" and record["arguments"] == {"fast": True}
    assert record["is_error"] is True and record["result"].startswith('{"ok":false')


async def test_a_caller_that_raises_is_still_a_tool_result():
    from mcp import Client
    from workbench import Command, Program
    from workbench.mcp.server import ProgramServer
    program = Program(name="p", commands=[
        Command(name="go", description="go", effects="read_only", run=lambda ctx: {})])

    def caller(*_):
        raise OSError("no such worker")

    async with Client(ProgramServer(program, caller=caller).server, mode="legacy",
                      cache=None) as client:
        result = await client.call_tool("go", {})
        assert result.is_error and json.loads(text_of(result))["error"]["code"] == "internal"
        assert (await client.list_tools()).tools[0].name == "go"


@pytest.mark.slow
async def test_http_serves_both_eras_and_refuses_a_foreign_host(app, extra, tmp_path):
    from mcp import Client
    with http_server(app, extra, tmp_path) as (url, _process):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        for mode in ("legacy", "auto"):
            async with Client(authed(url), mode=mode, cache=None) as client:
                result = await client.call_tool("area", {"width": 6, "height": 7})
                assert result.structured_content == {"area": 42}
        request = urllib.request.Request(url, data=b"{}", method="POST", headers={
            **bearer(), "Host": "evil.example:80", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 421


def test_mcp_config_prints_the_snippet_and_json_gives_an_envelope(app, extra, tmp_path):
    run = [sys.executable, str(app), "mcp", "config", "--client"]
    text = subprocess.run(run + ["codex"], env=full_env(extra), capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert text.returncode == 0 and f'args = ["{app}", "mcp"]' in text.stdout
    data = subprocess.run(run + ["cursor", "--json"], env=full_env(extra), capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    doc = json.loads(data.stdout)
    assert doc["ok"] is True and doc["data"]["data"]["mcpServers"]["app"]["args"] == \
        [str(app), "mcp"]
    wrong = subprocess.run(run + ["cursr", "--json"], env=full_env(extra), capture_output=True,
                           text=True, cwd=tmp_path, timeout=60)
    doc = json.loads(wrong.stdout)
    assert wrong.returncode == 2 and doc["error"]["fix"] == "app mcp config --client cursor --json"


def test_mcp_refuses_an_unknown_option_naming_the_nearest(app, extra, tmp_path):
    done = subprocess.run([sys.executable, str(app), "mcp", "--htp", "1"], env=full_env(extra),
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "did you mean --http?" in done.stderr
    done = subprocess.run([sys.executable, str(app), "mcp", "--http", "localhost:x"],
                          env=full_env(extra), capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 2 and "HOST:PORT" in done.stderr


@pytest.mark.slow
async def test_burgee_mcp_file_serves_the_file(extra, tmp_path):
    from mcp import Client, StdioServerParameters
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", str(SAMPLES / "deploy.py")],
                                   env=dict(extra), cwd=str(ROOT))
    async with Client(params, mode="legacy", cache=None) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("status", {"target": "prod"})
    assert names == ["deploy", "status", "rollback"]
    assert json.loads(text_of(result))["data"]["target"] == "prod"
