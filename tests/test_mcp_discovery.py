"""Progressive discovery (issue 33, item 4): a big program lists `search_tools`,
`describe_tool` and its read-only entry points; every command stays callable by name with the
same envelope; a program chooses with `discovery=`. Real servers (`python FILE mcp`, stdio and
HTTP) and the MCP SDK's client in both protocol eras."""

from __future__ import annotations

import json
import textwrap

import pytest

from _mcp_helpers import authed, caller_env, http_server, stdio_params
from workbench import Command, Program
from workbench.declaration.model import DefinitionError

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

BIG = textwrap.dedent('''
    from workbench import Command, Group, Option, Program, run

    def show(ctx):
        return {"widget": ctx.options.name, "count": 3}

    def status(ctx):
        return {"status": "fine"}

    def command(g, c):
        text = "Count the widgets of a bin" if (g, c) == (7, 4) else f"Command {c} of group {g}"
        return Command(name=f"c{c}", description=text, effects="read_only", run=show,
                       options={"name": Option(type="string", default="w", description="name")},
                       examples=[f"big g{g} c{c} --name x"])

    program = Program(name="big", version="1.0.0", description="A big program",
        DISCOVERY
        commands=[Command(name="status", description="Say how things are", effects="read_only",
                          run=status, examples=["big status"])]
        + [Group(name=f"g{g}", description=f"Group {g}", commands=[command(g, c)
                                                                    for c in range(COUNT)])
           for g in range(20)])

    if __name__ == "__main__":
        run(program)
''')


def _write(tmp_path, count, discovery=""):
    file = tmp_path / "big.py"
    file.write_text(BIG.replace("COUNT", str(count)).replace("DISCOVERY", discovery))
    return file


def _text(result) -> dict:
    return json.loads(result.content[0].text)


async def _discover(client):
    listed = await client.list_tools()
    names = [tool.name for tool in listed.tools]
    found = _text(await client.call_tool("search_tools", {"query": "count widgets in a bin"}))
    first = found["data"]["tools"][0]
    described = _text(await client.call_tool("describe_tool", {"name": first["name"]}))
    called = _text(await client.call_tool(first["name"], {"name": "bolt"}))
    return names, first, described, called


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_past_1000_tools_the_list_is_the_discovery_tools(mode, tmp_path):
    from mcp import Client
    file = _write(tmp_path, 51)              # 1,021 tools: "auto" turns progressive
    async with Client(stdio_params(file, caller_env(tmp_path / "s"), tmp_path), mode=mode,
                      cache=None) as client:
        names, first, described, called = await _discover(client)
    assert names == ["search_tools", "describe_tool", "status"]
    assert first == {"name": "g7_c4", "description": "Count the widgets of a bin",
                     "command": "g7 c4"}
    assert described["data"]["name"] == "g7_c4" and "name" in \
        described["data"]["inputSchema"]["properties"]
    assert called["ok"] is True and called["data"] == {"widget": "bolt", "count": 3}


async def test_an_opt_in_program_is_progressive_over_http_and_full_stays_full(tmp_path):
    from mcp import Client
    file = _write(tmp_path, 5, 'discovery="progressive",')
    with http_server(file, caller_env(tmp_path / "s"), tmp_path) as (url, _process):
        async with Client(authed(url), mode="legacy", cache=None) as client:
            names, first, _, called = await _discover(client)
            assert names == ["search_tools", "describe_tool", "status"]
            assert first["name"] == "g7_c4" and called["ok"] is True
            unknown = _text(await client.call_tool("describe_tool", {"name": "g7_c44"}))
            assert unknown["error"]["code"] == "unknown_tool"
            assert json.loads(unknown["error"]["fix"]) == {"name": "g7_c4"}
    full = _write(tmp_path, 51, 'discovery="full",')
    async with Client(stdio_params(full, caller_env(tmp_path / "s"), tmp_path), mode="legacy",
                      cache=None) as client:
        listed = await client.list_tools()
        assert "search_tools" not in [tool.name for tool in listed.tools]


def test_discovery_is_one_of_three_and_a_programs_own_tool_wins():
    with pytest.raises(DefinitionError, match="discovery='lazy' is not one of"):
        Program(name="p", version="1", description="d", discovery="lazy", commands=[
            Command(name="x", description="X", effects="read_only", run=lambda c: 1,
                    examples=["p x"])])
    from workbench.surfaces.tools import list_tools
    own = Program(name="p", version="1", description="d", discovery="progressive", commands=[
        Command(name="search-tools", description="Mine", effects="read_only", run=lambda c: 1,
                examples=["p search-tools"])])
    assert [tool["name"] for tool in list_tools(own)] == ["describe_tool", "search_tools"]


def test_the_discovery_benchmark_runs_and_discovery_reads_less(tmp_path):
    """benchmarks/discovery.py in its small size: its table, and fewer tokens than the list."""
    import subprocess
    import sys

    from conftest import ROOT
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "discovery.py"), "--smoke"],
                          capture_output=True, text=True, timeout=300, check=True)
    row = done.stdout.strip().splitlines()[-1].strip("|").split("|")
    full, discovered = (int(cell.replace(",", "")) for cell in row[1:3])
    assert discovered < full
