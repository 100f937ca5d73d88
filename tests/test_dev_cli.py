"""`burgee dev FILE` without a terminal: serves MCP over HTTP, logs each reload, stops on Ctrl-C."""

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from _mcp_helpers import authed
from conftest import hello_program

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

async def test_burgee_dev_piped_serves_http_and_reloads_until_ctrl_c(tmp_path):
    from mcp import Client
    file = tmp_path / "app.py"
    file.write_text(hello_program(), encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "workbench.cli", "dev", str(file)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env={**{k: v for k, v in os.environ.items()
                                       if k != "BURGEE_MCP_TOKEN"},
                                    "PYTHONPATH": ROOT})
    try:
        lines = []
        while not any("bearer token" in line for line in lines):
            line = await asyncio.wait_for(asyncio.to_thread(process.stderr.readline), 30)
            assert line, "".join(lines)
            lines.append(line)
        url = lines[-2].split("serving MCP at ", 1)[1].split()[0]
        token = lines[-1].split("bearer token (this start only): ", 1)[1].strip()
        heard = asyncio.Event()

        async def on_message(message):
            if type(message).__name__ == "ToolListChangedNotification":
                heard.set()

        async with Client(authed(url, token), mode="legacy", message_handler=on_message,
                          cache=None) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["hello"]
            file.write_text(hello_program('Command(name="bye", description="Say bye", '
                                          'effects="read_only", run=hello, '
                                          'examples=["app bye"]),'), encoding="utf-8")
            await asyncio.wait_for(heard.wait(), 20)
            assert [t.name for t in (await client.list_tools()).tools] == ["hello", "bye"]
        process.send_signal(signal.SIGINT)
        code = await asyncio.to_thread(process.wait, 20)
        rest = process.stderr.read()
        assert code == 130
        assert "+1 command" in rest and "Traceback" not in rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
