"""Streams, pages, plans and replays give the same bytes through MCP as on the command line.

The warehouse sample keeps its stock in WAREHOUSE_FILE and its idempotency keys under
XDG_STATE_HOME; both sides share them, so a call on one side can be replayed on the other.
"""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import SAMPLES, as_sent, caller_env, run_cli, stdio_params, text_of

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

WAREHOUSE = SAMPLES / "warehouse.py"


def _cli(argv, extra, cwd):
    done = run_cli(WAREHOUSE, argv + ["--json"], extra, cwd)
    assert done.stderr == ""
    return as_sent(WAREHOUSE, done.stdout), done.returncode


async def test_streams_pages_plans_and_replays_match_the_cli(tmp_path):
    from mcp import Client
    extra = caller_env(tmp_path / "state") | {"WAREHOUSE_FILE": str(tmp_path / "stock.json")}
    calls = [
        # (argv, MCP tool, arguments)
        (["export"], "export", {}),                                              # a stream, collected
        (["items", "list", "--limit", "3", "--fields", "sku,count"], "items_list",
         {"limit": 3, "fields": "sku,count"}),                                   # a page
        (["items", "list", "--cursor", "117"], "items_list", {"cursor": "117"}),  # the last page
        (["items", "list", "--fields", "sku,cont"], "items_list", {"fields": "sku,cont"}),
        (["items", "restock", "--sku", "SKU-0003", "--count", "5", "--dry-run"], "items_restock",
         {"sku": "SKU-0003", "count": 5, "dry_run": True}),                     # a plan
        (["items", "restock", "--sku", "SKU-0003", "--count", "5", "--expect-plan", "0" * 16],
         "items_restock", {"sku": "SKU-0003", "count": 5, "expect_plan": "0" * 16}),  # stale plan
        (["items", "import", "SKU-0001=3", "SKU-9999=1"], "items_import",
         {"lines": ["SKU-0001=3", "SKU-9999=1"]}),                               # partial
        (["stock"], "stock", {}),                                                # deprecated
    ]
    async with Client(stdio_params(WAREHOUSE, extra, tmp_path), mode="legacy", cache=None) as client:
        for argv, tool, arguments in calls:
            # read-only and refused calls leave the stock alone; for the import, both sides
            # start from the demo stock
            (tmp_path / "stock.json").unlink(missing_ok=True)
            cli, code = _cli(argv, extra, tmp_path)
            (tmp_path / "stock.json").unlink(missing_ok=True)
            result = await client.call_tool(tool, arguments)
            assert text_of(result) == cli, argv
            assert bool(result.is_error) == (code not in (0,)), (argv, code)

        # A keyed write on the CLI, then the same key through MCP: the MCP call replays the
        # CLI's result (same bytes as a second CLI call), and runs nothing.
        argv = ["orders", "create", "--sku", "SKU-0002", "--idempotency-key", "k-7"]
        first, _ = _cli(argv, extra, tmp_path)
        result = await client.call_tool("orders_create", {"sku": "SKU-0002",
                                                          "idempotency_key": "k-7"})
        replayed, _ = _cli(argv, extra, tmp_path)
        assert text_of(result) == replayed
        assert json.loads(replayed)["meta"]["replayed"] is True
        assert json.loads(first)["data"] == json.loads(replayed)["data"]
        other = await client.call_tool("orders_create", {"sku": "SKU-0005",
                                                         "idempotency_key": "k-7"})
        assert other.is_error
        assert json.loads(text_of(other))["error"]["code"] == "idempotency_conflict"
