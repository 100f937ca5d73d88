"""Issue 34, part B: capabilities, self-scoped commands, ambiguous words, untrusted text,
`--input`, `removed_in`, `<tool>_plan` twins and `ctx.session`; each over the CLI (a real
subprocess) and MCP (the SDK's client over stdio)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _mcp_helpers import SAMPLES, caller_env, full_env, stdio_params, text_of

from pathlib import Path

AGENTIC = Path(__file__).parent / "programs" / "agentic.py"
NOTES = SAMPLES / "notes.py"


def _cli(file, argv, extra, cwd, stdin=None, env=None):
    return subprocess.run([sys.executable, str(file), *argv], env=full_env(extra) | (env or {}),
                          input=stdin, capture_output=True, text=True, timeout=60,
                          cwd=str(cwd))


def _lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


# --- 1. capabilities --------------------------------------------------------------------


def test_capabilities_on_every_cli_surface(tmp_path):
    from workbench.declaration.capabilities import CAPABILITIES
    extra = caller_env(tmp_path)
    version = json.loads(_cli(NOTES, ["--version", "--json"], extra, tmp_path).stdout)
    assert version == {"name": "notes", "version": "0.3.0", "capabilities": list(CAPABILITIES)}
    assert "capabilities" in CAPABILITIES and len(set(CAPABILITIES)) == len(CAPABILITIES)
    helped = json.loads(_cli(NOTES, ["help", "--json"], extra, tmp_path).stdout)
    assert helped["capabilities"] == list(CAPABILITIES)
    streamed = _lines(_cli(NOTES, ["list", "--format", "ndjson"], extra, tmp_path).stdout)
    assert streamed[0]["@meta"]["capabilities"] == list(CAPABILITIES)
    assert "capabilities" not in json.dumps(streamed[1:])   # once, on the @meta line


@pytest.mark.asyncio
async def test_capabilities_over_mcp(tmp_path):
    from mcp import Client

    from workbench.declaration.capabilities import CAPABILITIES
    async with Client(stdio_params(NOTES, caller_env(tmp_path), tmp_path), mode="legacy",
                      cache=None) as client:
        assert client.instructions == ("Keep short notes with tags\n\ncapabilities: "
                                       + ", ".join(CAPABILITIES))
        experimental = client.server_capabilities.experimental
        assert experimental["burgee"]["capabilities"] == list(CAPABILITIES)
