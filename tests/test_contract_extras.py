"""Streams, pages, output budgets, plans, idempotency keys, partial success, deprecations,
help search — on the warehouse sample, in-process through `workbench.testing.Runner` (two
racing processes for the idempotency key stay real processes)."""

import json
import subprocess
import sys

import pytest

from conftest import PROGRAMS, SAMPLES, clean_env
from workbench.loader import load_program
from workbench.testing import Runner

WAREHOUSE = SAMPLES / "warehouse.py"


@pytest.fixture(scope="module")
def program():
    return load_program(str(WAREHOUSE))


@pytest.fixture
def warehouse(tmp_path, program):
    store = tmp_path / "stock.json"
    runner = Runner(program, env={"WAREHOUSE_FILE": str(store), "BURGEE_STATE_DIR": str(tmp_path)})

    def run(*args, env=None, input=None):
        return runner.invoke([str(arg) for arg in args], env=env, input=input)
    run.env = lambda **extra: clean_env(WAREHOUSE_FILE=store, BURGEE_STATE_DIR=tmp_path, **extra)
    return run


def _lines(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


# --- streams --------------------------------------------------------------------------------

def test_ndjson_stream_has_a_meta_head_and_an_end_tail(warehouse):
    from workbench.declaration.capabilities import capabilities
    result = warehouse("export", "--format", "ndjson")
    lines = _lines(result)
    assert result.exit == 0 and result.stderr == ""
    assert lines[0] == {"@meta": {"command": "export", "schema_version": "2", "format": "ndjson",
                                  "items": "one JSON value per line until the @end line",
                                  "capabilities": capabilities()}}
    assert lines[-1] == {"@end": {"ok": True, "count": 120, "exit": 0}}
    assert len(lines) == 122 and lines[1]["sku"] == "SKU-0001"


def test_a_stream_that_fails_half_way_keeps_what_was_printed(warehouse):
    result = warehouse("export", "--format", "ndjson", "--fail-at", "4")
    lines = _lines(result)
    assert result.exit == 7
    assert [line["sku"] for line in lines[1:-1]] == ["SKU-0001", "SKU-0002", "SKU-0003"]
    end = lines[-1]["@end"]
    assert end["ok"] is False and end["count"] == 3 and end["exit"] == 7
    assert end["error"]["code"] == "storage_unavailable" and end["error"]["retryable"] is True


def test_json_collects_a_stream_into_one_envelope(warehouse):
    result = warehouse("export", "--json")
    assert result.exit == 0 and result.stderr == ""
    assert len(result.json["data"]) == 120


def test_progress_is_silent_under_json_and_structured_with_progress(warehouse):
    quiet = warehouse("export", "--json")
    assert quiet.stderr == ""
    loud = warehouse("export", "--json", "--progress")
    records = [json.loads(line) for line in loud.stderr.splitlines()]
    assert records and all(set(r) == {"progress"} for r in records)
    assert records[0]["progress"] == {"command": "export", "done": 1, "total": 120}
    assert records[-1]["progress"]["done"] == 120       # the final one always goes out
    assert len(records) < 10                              # throttled, not one per item


# --- pages, fields, budgets ------------------------------------------------------------------

def test_a_page_carries_count_has_more_next_cursor_and_a_runnable_next(warehouse):
    first = warehouse("items", "list", "--limit", "2", "--json").json
    assert [i["sku"] for i in first["data"]] == ["SKU-0001", "SKU-0002"]
    assert first["page"] == {"count": 2, "has_more": True, "next_cursor": "2"}
    command = first["next"][0]["command"]
    assert command == "warehouse items list --limit 2 --cursor 2 --json"
    second = warehouse(*command.split()[1:]).json
    assert [i["sku"] for i in second["data"]] == ["SKU-0003", "SKU-0004"]


def test_the_last_page_has_no_next(warehouse):
    last = warehouse("items", "list", "--cursor", "118", "--json").json
    assert last["page"] == {"count": 2, "has_more": False, "next_cursor": None}
    assert "next" not in last


def test_all_returns_every_item(warehouse):
    assert len(warehouse("items", "list", "--all", "--json").json["data"]) == 120


def test_fields_keeps_only_those_fields(warehouse):
    data = warehouse("items", "list", "--limit", "1", "--fields", "sku,count", "--json").json["data"]
    assert data == [{"sku": "SKU-0001", "count": 7}]


def test_an_unknown_field_is_a_usage_error_naming_the_known_ones(warehouse):
    result = warehouse("items", "list", "--fields", "sku,cont", "--json")
    assert result.exit == 2
    error = result.json["error"]
    assert error["code"] == "unknown_field" and "sku, name, count, bin" in error["message"]
    assert error["fix"] == "warehouse items list --fields sku,count --json"


def test_an_empty_result_is_an_empty_list_never_null(warehouse):
    doc = warehouse("items", "list", "--bin", "ZZ", "--json").json
    assert doc["data"] == [] and doc["page"] == {"count": 0, "has_more": False, "next_cursor": None}


def test_an_agent_gets_whole_items_up_to_the_output_budget(warehouse):
    doc = warehouse("items", "list", "--json", env=warehouse.env(CLAUDECODE="1")).json
    truncated = doc["meta"]["truncated"]
    shown = len(doc["data"])
    assert 0 < shown < 50
    assert len(json.dumps(doc["data"], separators=(",", ":"))) <= 1500 + shown
    assert truncated["omitted"] == 120 - shown
    assert truncated["next"] == f"warehouse items list --cursor {shown} --json"
    assert all(set(item) == {"sku", "name", "count", "bin"} for item in doc["data"])


def test_an_explicit_limit_is_honoured_in_full_for_an_agent(warehouse):
    doc = warehouse("items", "list", "--limit", "80", "--json", env=warehouse.env(CLAUDECODE="1")).json
    assert len(doc["data"]) == 80 and "truncated" not in doc["meta"]


def test_no_budget_for_a_person(warehouse):
    doc = warehouse("items", "list", "--json").json
    assert len(doc["data"]) == 50 and "truncated" not in doc["meta"]


# --- plans ----------------------------------------------------------------------------------

def test_dry_run_returns_the_plan_and_changes_nothing(warehouse):
    dry = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--dry-run", "--json").json
    assert dry["data"]["plan"] == {"sku": "SKU-0003", "from": 21, "to": 26}
    assert len(dry["data"]["digest"]) == 16 and dry["meta"]["dry_run"] is True
    again = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--dry-run", "--json").json
    assert again["data"] == dry["data"]


def test_expect_plan_applies_when_the_plan_is_unchanged(warehouse):
    digest = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--dry-run",
                       "--json").json["data"]["digest"]
    applied = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--expect-plan",
                        digest, "--json")
    assert applied.exit == 0 and applied.json["data"]["to"] == 26


def test_a_stale_expect_plan_is_exit_5_with_the_new_plan(warehouse):
    digest = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--dry-run",
                       "--json").json["data"]["digest"]
    assert warehouse("items", "restock", "--sku", "SKU-0003", "--count", "1", "--json").exit == 0
    stale = warehouse("items", "restock", "--sku", "SKU-0003", "--count", "5", "--expect-plan",
                      digest, "--json")
    assert stale.exit == 5
    error = stale.json["error"]
    assert error["code"] == "plan_changed" and error["plan"] == {"sku": "SKU-0003", "from": 22, "to": 27}
    assert error["digest"] != digest
    assert error["fix"].endswith(f"--expect-plan {error['digest']} --json")


# --- idempotency keys -----------------------------------------------------------------------

def test_a_repeated_key_replays_the_first_result_without_running_again(warehouse):
    first = warehouse("orders", "create", "--sku", "SKU-0002", "--idempotency-key", "k1", "--json").json
    second = warehouse("orders", "create", "--sku", "SKU-0002", "--idempotency-key", "k1", "--json").json
    assert second["data"] == first["data"] and second["meta"]["replayed"] is True
    assert "replayed" not in first["meta"]
    third = warehouse("orders", "create", "--sku", "SKU-0002", "--json").json
    assert third["data"]["order"] == 2          # only one order was made by the keyed pair


def test_a_reused_key_with_other_input_is_a_conflict(warehouse):
    warehouse("orders", "create", "--sku", "SKU-0002", "--idempotency-key", "k2", "--json")
    other = warehouse("orders", "create", "--sku", "SKU-0003", "--idempotency-key", "k2", "--json")
    assert other.exit == 5 and other.json["error"]["code"] == "idempotency_conflict"


def test_two_processes_with_the_same_key_run_the_command_once(tmp_path):
    target = tmp_path / "lines.txt"
    env = clean_env(BURGEE_STATE_DIR=tmp_path)
    argv = [sys.executable, str(PROGRAMS / "kitchen.py"), "append", "--file", str(target),
            "--delay", "0.5", "--idempotency-key", "same", "--json"]
    processes = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=60) for p in processes]
    docs = [json.loads(out) for out, _ in outputs]
    assert [p.returncode for p in processes] == [0, 0]
    assert target.read_text() == "x\n"
    assert docs[0]["data"] == docs[1]["data"] == {"lines": 1}
    assert sorted(bool(d["meta"].get("replayed")) for d in docs) == [False, True]


# --- partial success, deprecations, versions -------------------------------------------------

def test_a_batch_with_some_failures_is_partial_with_exit_8(warehouse):
    result = warehouse("items", "import", "SKU-0001=3", "SKU-9999=1", "SKU-0002=x", "--json")
    assert result.exit == 8
    doc = result.json
    assert doc["ok"] == "partial"
    assert doc["data"]["succeeded"] == [{"sku": "SKU-0001", "count": 10}]
    assert [f["code"] for f in doc["data"]["failed"]] == ["not_found", "invalid_count"]
    assert all(f["retryable"] is False for f in doc["data"]["failed"])


def test_a_partial_batch_streams_what_succeeded_and_ends_with_the_failed(warehouse):
    result = warehouse("items", "import", "SKU-0001=3", "SKU-9999=1", "--format", "ndjson",
                       "--idempotency-key", "batch-1")
    lines = _lines(result)
    assert result.exit == 8 and result.stderr == ""
    assert lines[0]["@meta"]["command"] == "items import"
    assert lines[1:-1] == [{"sku": "SKU-0001", "count": 10}]
    end = lines[-1]["@end"]
    assert end["ok"] == "partial" and end["count"] == 1 and end["exit"] == 8
    assert [f["code"] for f in end["failed"]] == ["not_found"]
    again = warehouse("items", "import", "SKU-0001=3", "SKU-9999=1", "--format", "ndjson",
                      "--idempotency-key", "batch-1")
    assert again.exit == 8 and _lines(again)[1:-1] == [{"sku": "SKU-0001", "count": 10}]


def test_an_old_option_name_works_with_a_warning(warehouse):
    doc = warehouse("items", "restock", "--item", "SKU-0003", "--count", "1", "--json").json
    assert doc["ok"] is True and doc["meta"]["warnings"] == ["--item is deprecated; use --sku"]
    human = warehouse("items", "restock", "--item", "SKU-0003", "--count", "1")
    assert "warning: --item is deprecated; use --sku" in human.stderr


def test_a_deprecated_command_still_runs_and_says_what_replaces_it(warehouse):
    doc = warehouse("stock", "--json").json
    assert doc["meta"]["warnings"] == ["'stock' is deprecated; use 'items list' (since 2.0)"]


def test_every_envelope_carries_the_schema_version(warehouse):
    for args in (["items", "list", "--limit", "1"], ["items", "lst"], ["orders", "create"],
                 ["items", "show"]):
        doc = warehouse(*args, "--json").json
        assert doc["meta"]["schema_version"] == "2", (args, doc)


# --- help search ----------------------------------------------------------------------------

def test_help_search_finds_the_best_commands_for_a_sentence(warehouse):
    doc = warehouse("help", "search", "add stock to an item", "--json").json
    assert doc["data"]["results"][0]["command"] == "items restock"
    assert doc["data"]["results"][0]["tool"] == "items_restock"


def test_help_search_with_no_match_is_not_found(warehouse):
    result = warehouse("help", "search", "zebra", "--json")
    assert result.exit == 3 and result.json["error"]["code"] == "not_found"


def test_help_search_for_people(warehouse):
    result = warehouse("help", "search", "orders")
    assert result.exit == 0 and result.stdout.startswith("orders create")


@pytest.mark.slow
def test_the_options_the_framework_adds_come_in_one_order_in_every_process(tmp_path):
    """They were attached in a frozenset's order, which moves with PYTHONHASHSEED: help,
    schemas, cards and tools then differed from one process to the next (and headless
    snapshots drifted without an edit)."""
    seen = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        done = subprocess.run([sys.executable, str(WAREHOUSE), "--schema"], capture_output=True,
                              text=True, env=clean_env(PYTHONHASHSEED=seed,
                                                       WAREHOUSE_FILE=tmp_path / "stock.json"))
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout)
    assert len(seen) == 1 and '"limit"' in seen.pop()
