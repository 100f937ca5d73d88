"""`burgee mcp FILE --watch`: a stdio client hears list_changed after an on-disk save."""

import asyncio
import os
import sys

import pytest
from conftest import hello_program, save

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# conftest's hello program, printing at import and in its handler (stdout is the wire)
APP = hello_program("EXTRA").replace("\ndef hello(ctx):\n", (
    '\nprint("printed at import: must not reach the MCP wire")\n\n'
    'def hello(ctx):\n    print("printed by a handler")\n'))


async def test_a_stdio_client_of_mcp_watch_hears_list_changed(tmp_path):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    file = tmp_path / "app.py"
    file.write_text(APP.replace("EXTRA", ""), encoding="utf-8")
    heard = asyncio.Event()

    async def on_message(message):
        if type(message).__name__ == "ToolListChangedNotification":
            heard.set()

    env = {"PYTHONPATH": os.pathsep.join([ROOT] + sys.path), "HOME": str(tmp_path),
           "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workbench.cli", "mcp", str(file), "--watch"],
                                   env=env, cwd=str(tmp_path))
    log = tmp_path / "server-stderr.txt"      # where load errors go (the client's log)
    with open(log, "w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                          message_handler=on_message, cache=None) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["hello"]
            result = await client.call_tool("hello", {})
            assert not result.is_error and '"hello":"world"' in result.content[0].text
            save(file, APP.replace("EXTRA", 'Command(name="bye", description="Say bye", '
                                            'effects="read_only", run=hello, '
                                            'examples=["app bye"]),'))
            await asyncio.wait_for(heard.wait(), 20)
            assert [t.name for t in (await client.list_tools()).tools] == ["hello", "bye"]
            save(file, "def broken(:\n")
            deadline = asyncio.get_running_loop().time() + 20
            while "SyntaxError" not in log.read_text(encoding="utf-8"):   # it was loaded
                assert asyncio.get_running_loop().time() < deadline, "the save never loaded"
                await asyncio.sleep(0.02)
            assert [t.name for t in (await client.list_tools()).tools] == ["hello", "bye"]
