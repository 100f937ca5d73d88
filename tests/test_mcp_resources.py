"""The program as MCP resources (issue 33, item 5): its `--schema`, each offered command's
card, its Agent Skills and llms.txt, listed and read through the MCP SDK's client over stdio,
byte for byte what the command line prints."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _mcp_helpers import SAMPLES, caller_env, stdio_params

NOTES = SAMPLES / "notes.py"


def _cli(*argv) -> str:
    return subprocess.run([sys.executable, str(NOTES), *argv], capture_output=True, text=True,
                          timeout=60, check=True).stdout


@pytest.mark.asyncio
async def test_the_program_reads_as_resources(tmp_path):
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    async with Client(stdio_params(NOTES, caller_env(tmp_path / "state"), tmp_path),
                      mode="legacy", cache=None) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        cards = {uri for uri in listed if "/cards/" in uri}
        assert cards == {f"burgee://notes/cards/{path}" for path in
                         ("add", "list", "show", "tag", "remove", "sync/push", "sync/status")}
        assert "burgee://notes/cards/purge" not in listed          # withheld: CLI only
        assert listed["burgee://notes/schema"].mime_type == "application/json"
        schema = await client.read_resource("burgee://notes/schema")
        assert json.loads(schema.contents[0].text) == json.loads(_cli("--schema"))
        card = await client.read_resource("burgee://notes/cards/sync/push")
        assert json.loads(card.contents[0].text) == json.loads(_cli("sync", "push", "--help",
                                                                    "--json"))
        llms = await client.read_resource("burgee://notes/llms.txt")
        assert llms.contents[0].text == _cli("skills", "--llms")
        skill = await client.read_resource("burgee://notes/skills/notes")
        assert skill.contents[0].text.startswith("---\nname: notes\n")
        with pytest.raises(MCPError, match="no resource at burgee://notes/cards/purge"):
            await client.read_resource("burgee://notes/cards/purge")
