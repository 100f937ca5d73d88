"""An MCP client is an agent: every tools/call gets the agent's page, output budget and
`truncated`, whatever environment the server was started in, with the continuation as the
tool call to send; the same call on the CLI as an agent gives the same bytes (issue 33).

Real parts: the MCP SDK's own client over stdio and streamable HTTP (both protocol eras),
the CLI in a subprocess.
"""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import (SAMPLES, as_sent, authed, caller_env, http_server, run_cli,
                          stdio_params, text_of)

WAREHOUSE = SAMPLES / "warehouse.py"
ITEMS = 120
"""The warehouse's demo stock: SKU-0001 .. SKU-0120."""
BUDGET_PAGE = 25
"""Items of the demo stock that fit the warehouse's output budget (1,500 characters)."""


def _extra(tmp_path) -> dict:
    return caller_env(tmp_path / "state") | {"WAREHOUSE_FILE": str(tmp_path / "stock.json")}


def _cli(tmp_path, argv, extra) -> tuple[str, int]:
    done = run_cli(WAREHOUSE, argv + ["--json"], extra, tmp_path)
    assert done.stderr == ""
    return as_sent(WAREHOUSE, done.stdout), done.returncode


async def _every_page(client, tmp_path, extra) -> list:
    """Follow `items_list {}` to its end by the continuation each page names; each page's
    bytes are the CLI's for the same call as an agent."""
    seen, arguments = [], {}
    while True:
        result = await client.call_tool("items_list", arguments)
        text = text_of(result)
        assert not result.is_error, text
        doc = json.loads(text)
        seen += [item["sku"] for item in doc["data"]]
        argv = ["items", "list"] + (["--cursor", arguments["cursor"]] if arguments else [])
        cli, code = _cli(tmp_path, argv, extra)
        assert (text, False) == (cli, code != 0), argv
        truncated = doc["meta"].get("truncated")
        if not doc["page"]["has_more"]:
            assert truncated is None
            return seen
        assert truncated is not None and len(doc["data"]) < 50   # the budget, not the page
        assert truncated["next"]["name"] == "items_list"
        assert doc["next"][0]["tool"] == truncated["next"]   # one continuation, two places
        assert truncated["omitted"] == ITEMS - len(seen)
        arguments = truncated["next"]["arguments"]
        assert arguments == {"cursor": doc["page"]["next_cursor"]}


async def test_an_mcp_call_gets_the_agents_page_over_stdio(tmp_path):
    from mcp import Client
    extra = _extra(tmp_path)   # no agent variable anywhere: the server is started plainly
    async with Client(stdio_params(WAREHOUSE, extra, tmp_path), mode="legacy",
                      cache=None) as client:
        first = json.loads(text_of(await client.call_tool("items_list", {})))
        assert len(first["data"]) == BUDGET_PAGE
        assert first["meta"]["truncated"] == {
            "reason": "output budget of 1500 characters for agents", "omitted": ITEMS - 25,
            "next": {"name": "items_list", "arguments": {"cursor": "25"}}}
        seen = await _every_page(client, tmp_path, extra)
        assert seen == [f"SKU-{n:04d}" for n in range(1, ITEMS + 1)]   # none lost, none twice
        # an explicit --limit is honoured in full, as on the CLI
        whole = json.loads(text_of(await client.call_tool("items_list", {"limit": 50})))
        assert len(whole["data"]) == 50 and "truncated" not in whole["meta"]


async def test_the_same_call_on_the_cli_as_a_named_agent_is_the_same_bytes(tmp_path):
    from mcp import Client
    extra = _extra(tmp_path)
    async with Client(stdio_params(WAREHOUSE, extra, tmp_path), mode="legacy",
                      cache=None) as client:
        text = text_of(await client.call_tool("items_list", {}))
    for agent in ({"CLAUDECODE": "1"}, {"BURGEE_AGENT": "on"}, {"AI_AGENT": "some-agent"}):
        cli, code = _cli(tmp_path, ["items", "list"], extra | agent)
        assert (cli, code) == (text, 0), agent
    person, _ = _cli(tmp_path, ["items", "list"], extra | {"BURGEE_AGENT": "off"})
    assert person != text and "truncated" not in json.loads(person)["meta"]


@pytest.mark.slow
async def test_an_mcp_call_gets_the_agents_page_over_http_in_both_eras(tmp_path):
    from mcp import Client
    extra = _extra(tmp_path)
    with http_server(WAREHOUSE, extra, tmp_path) as (url, _process):
        for mode in ("legacy", "auto"):
            async with Client(authed(url), mode=mode, cache=None) as client:
                seen = await _every_page(client, tmp_path, extra)
            assert seen == [f"SKU-{n:04d}" for n in range(1, ITEMS + 1)], mode


async def test_burgee_agent_off_on_the_server_makes_every_call_a_persons(tmp_path):
    from mcp import Client
    extra = _extra(tmp_path) | {"BURGEE_AGENT": "off"}
    async with Client(stdio_params(WAREHOUSE, extra, tmp_path), mode="legacy",
                      cache=None) as client:
        text = text_of(await client.call_tool("items_list", {}))
    doc = json.loads(text)
    assert len(doc["data"]) == 50 and "truncated" not in doc["meta"]   # the declared page
    assert doc["next"][0]["tool"] == {"name": "items_list", "arguments": {"cursor": "50"}}
    cli, _ = _cli(tmp_path, ["items", "list"], extra)   # the CLI with BURGEE_AGENT=off too
    assert cli == text


def test_the_testing_runner_calls_as_an_agent_too(tmp_path):
    """`workbench.testing.Runner.call` runs the server's rule, so a test sees the page a
    client gets; `invoke` is the CLI, an agent only when asked."""
    from workbench.loader import load_program
    from workbench.testing import Runner
    runner = Runner(load_program(str(WAREHOUSE)),
                    env={"WAREHOUSE_FILE": str(tmp_path / "stock.json")})
    called = runner.call("items_list", {})
    assert len(called.envelope["data"]) == BUDGET_PAGE
    assert called.envelope["meta"]["truncated"]["next"]["arguments"] == {"cursor": "25"}
    assert "truncated" not in runner.invoke(["items", "list", "--json"]).envelope["meta"]
    as_agent = runner.invoke(["items", "list", "--json"], agent="claude-code")
    assert as_sent(WAREHOUSE, as_agent.stdout) == called.stdout
    person = runner.call("items_list", {}, env={"BURGEE_AGENT": "off"})
    assert len(person.envelope["data"]) == 50


def test_fields_are_taken_before_the_budget_is_counted(tmp_path):
    """An agent that asks for fewer fields (the budget's own hint) gets more items a page:
    the budget counts the items as sent, not as the handler returned them."""
    from workbench.loader import load_program
    from workbench.testing import Runner
    runner = Runner(load_program(str(WAREHOUSE)),
                    env={"WAREHOUSE_FILE": str(tmp_path / "stock.json")})
    whole = runner.invoke(["items", "list", "--json"], agent="claude-code").envelope
    slim = runner.invoke(["items", "list", "--fields", "sku", "--json"],
                         agent="claude-code").envelope
    assert len(whole["data"]) == BUDGET_PAGE and whole["meta"]["truncated"]["omitted"] == 95
    assert len(slim["data"]) == 50 and "truncated" not in slim["meta"]   # the declared page
    assert slim["data"][0] == {"sku": "SKU-0001"}
    called = runner.call("items_list", {"fields": "sku"})
    assert called.envelope["data"] == slim["data"]


PAGED = '''
from workbench import Command, Program

def rows(ctx):
    return [{"n": n, "word": "row %d" % n} for n in range(40)]

def who(ctx):
    return {"agent": ctx.agent}

program = Program(name="paged", version="1.0.0", description="Pages", output_budget=300,
                  commands=[
    Command(name="rows", description="List rows", effects="read_only", paginated=30,
            output={"type": "array", "items": {"type": "object"}},
            examples=["paged rows"], run=rows),
    Command(name="who", description="Who is calling", effects="read_only",
            examples=["paged who"], run=who),
])
'''


@pytest.mark.slow
def test_burgee_dev_diffs_and_environments_call_as_an_agent(tmp_path):
    """`burgee dev`'s example diffs compare the MCP call with the CLI as the same agent (equal
    bytes, the budget applied on both sides), and its `mcp` environment is an agent's."""
    from workbench.dev.engine import Workbench
    file = tmp_path / "paged.py"
    file.write_text(PAGED, encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    bench.reload()
    diffs = {d.example: d for d in bench.run_diffs()}
    rows = diffs["paged rows"]
    assert rows.equal is True, rows.diff
    doc = json.loads(rows.mcp)
    assert doc["page"]["count"] < 30 and doc["meta"]["truncated"]["next"] == {
        "name": "rows", "arguments": {"cursor": str(doc["page"]["count"])}}
    assert diffs["paged who"].equal is True
    assert json.loads(diffs["paged who"].mcp)["data"] == {"agent": "agent"}
    runs = {r.environment: r for r in bench.run_environments(["who", "--json"])}
    assert json.loads(runs["mcp"].stdout)["data"] == {"agent": "agent"}
    assert json.loads(runs["piped"].stdout)["data"] == {"agent": None}
    assert json.loads(runs["agent:cursor"].stdout)["data"] == {"agent": "cursor"}
