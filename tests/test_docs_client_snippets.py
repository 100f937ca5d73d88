"""The client configs in docs/workbench.md ("Connecting an MCP client") work as written: each is
what `http_config` prints for that client, and each, with `<token>` filled in, connects to a
live `burgee dev` through the MCP SDK's own client (the server refuses any request without the
bearer token, so a snippet without it would fail here)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import tomllib

import pytest

from _mcp_helpers import ROOT, SAMPLES
from workbench.surfaces.clients import http_config

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

DOC_URL = "http://127.0.0.1:8765/mcp"
TOKEN = "docs-token-" + "y" * 32


def _snippets() -> dict[str, tuple[str, str]]:
    """{client: (language, code)} from the section's fenced blocks, in order."""
    text = (ROOT / "docs" / "workbench.md").read_text(encoding="utf-8")
    section = text.split("## Connecting an MCP client", 1)[1].split("\n## ", 1)[0]
    found = {}
    for client, body in re.findall(r"- \*\*([^*]+)\*\*(.*?)(?=\n- \*\*|\Z)", section, re.S):
        block = re.search(r"```(\w+)\n(.*?)```", body, re.S)
        if block:
            found[client] = (block.group(1), textwrap.dedent(block.group(2)))
    return found


CLIENTS = {"Claude Code": "claude-code", "Cursor": "cursor", "VS Code": "vscode",
           "Codex": "codex", "Gemini CLI": "gemini"}


def test_every_snippet_is_what_mcp_config_prints_with_the_token_header():
    snippets = _snippets()
    assert set(snippets) == set(CLIENTS), snippets.keys()
    for title, client in CLIENTS.items():
        language, code = snippets[title]
        config = http_config("tool", client, DOC_URL, "<token>")
        if language == "json":
            assert json.loads(code) == config["data"], title
        elif language == "toml":
            assert tomllib.loads(code) == config["data"], title
        else:
            assert code.strip() == config["snippet"], title


def _endpoint(language: str, code: str) -> tuple[str, dict]:
    """(url, headers) a client reads from its config snippet, as that client would."""
    if language == "bash":
        words = shlex.split(code)
        url = next(w for w in words if w.startswith("http://"))
        name, value = words[words.index("--header") + 1].split(": ", 1)
        return url, {name: value}
    if language == "toml":
        [entry] = tomllib.loads(code)["mcp_servers"].values()
        return entry["url"], {"Authorization": f"Bearer {os.environ['BURGEE_MCP_TOKEN']}"}
    [entry] = next(iter(json.loads(code).values())).values()
    return entry.get("url") or entry["httpUrl"], entry["headers"]


async def _tools(url: str, headers: dict) -> list[str]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    async with create_mcp_http_client(headers=headers) as http, \
            streamable_http_client(url, http_client=http) as (read, write, *_), \
            ClientSession(read, write) as session:
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]


def test_each_snippet_with_its_token_connects_to_a_live_burgee_dev(tmp_path, monkeypatch):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    env.pop("BURGEE_MCP_TOKEN", None)
    process = subprocess.Popen([sys.executable, "-m", "workbench.cli", "dev",
                                str(SAMPLES / "notes.py"), "--port", "0", "--token-file",
                                str(token_file)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                               env=env, cwd=tmp_path)
    try:
        url = None
        while url is None:
            line = process.stderr.readline()
            assert line, "burgee dev ended before serving: " + process.stderr.read()
            if "serving MCP at " in line:
                url = line.split("serving MCP at ", 1)[1].split()[0]
        monkeypatch.setenv("BURGEE_MCP_TOKEN", TOKEN)   # what Codex's snippet asks for
        for title, (language, code) in _snippets().items():
            live = code.replace(DOC_URL, url).replace("<token>", TOKEN)
            where, headers = _endpoint(language, live)
            assert where == url, title
            assert "list" in asyncio.run(_tools(where, headers)), title
        with pytest.raises(Exception):   # the same URL without the header: 401
            asyncio.run(_tools(url, {}))
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
