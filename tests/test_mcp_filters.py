"""`fields` and `jq` as MCP arguments where a program opts in (`Program(mcp_filters=True)`):
the SDK's own client over stdio against the CLI's `--fields`/`--jq`, byte for byte."""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import SAMPLES, as_sent, caller_env, run_cli, stdio_params, text_of
from conftest import PROGRAMS

pytestmark = pytest.mark.asyncio

SHELF = PROGRAMS / "shelf.py"


async def test_an_opted_in_program_takes_fields_and_jq_as_the_cli_does(tmp_path):
    from mcp import Client
    extra = caller_env(tmp_path / "state")
    calls = [
        # (argv, MCP tool, arguments)
        (["book", "--id", "2", "--fields", "title,loc.shelf,isbn"], "book",
         {"id": 2, "fields": "title,loc.shelf,isbn"}),                        # unknown: refused
        (["book", "--id", "2", "--fields", "title,loc.shelf,note"], "book",
         {"id": 2, "fields": "title,loc.shelf,note"}),                        # nested, null
        (["books", "--jq", "[.[] | .title]"], "books", {"jq": "[.[] | .title]"}),
        (["books", "--fields", "id,loc.bin", "--jq", ".[1]"], "books",
         {"fields": "id,loc.bin", "jq": ".[1]"}),                             # fields, then jq
        (["books", "--jq", ".[] | .nope.x"], "books", {"jq": ".[] | .nope.x"}),   # jq fails
        (["count", "--fields", "a"], "count", {"fields": "a"}),               # not objects
    ]
    async with Client(stdio_params(SHELF, extra, tmp_path), mode="legacy", cache=None) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for tool in tools.values():   # jq where no outputSchema binds the result's shape
            properties = tool.input_schema["properties"]
            assert properties["fields"]["type"] == "string", tool.name
            assert ("jq" in properties) == (tool.output_schema is None), tool.name
            assert not {"fields", "jq"} & set(tool.input_schema.get("required", []))
        assert tools["book"].output_schema and "jq" in tools["books"].input_schema["properties"]
        refused = await client.call_tool("book", {"jq": ".title"})   # not offered: refused
        assert refused.is_error and json.loads(text_of(refused))["error"]["code"] == \
            "unknown_option"
        for argv, name, arguments in calls:
            cli = run_cli(SHELF, argv + ["--json"], extra, tmp_path)
            result = await client.call_tool(name, arguments)
            assert text_of(result) == as_sent(SHELF, cli.stdout), argv
            assert bool(result.is_error) == (cli.returncode != 0), argv


async def test_without_opting_in_only_a_paginated_tool_has_fields(tmp_path):
    from mcp import Client
    extra = caller_env(tmp_path / "state")
    async with Client(stdio_params(SAMPLES / "warehouse.py", extra | {
            "WAREHOUSE_FILE": str(tmp_path / "stock.json")}, tmp_path),
            mode="legacy", cache=None) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        properties = tool.input_schema.get("properties", {})
        assert "jq" not in properties, tool.name
        assert ("fields" in properties) == (tool.name == "items_list"), tool.name
