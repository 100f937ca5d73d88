"""Idempotency keys that cannot strand: every path finishes or releases its claim, a dry run
claims nothing, a dead holder is taken over at once, the digest is canonical, and a broken
store is a clear exit 7. Real subprocesses of the samples and of tests/programs/keyed.py; the
MCP cases go through the SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from conftest import (PROGRAMS, SAMPLES, asleep, clean_env, keyed_runner, run_program,
                      wait_until)

WAREHOUSE = SAMPLES / "warehouse.py"
KEYED = PROGRAMS / "keyed.py"


@pytest.fixture
def warehouse(tmp_path):
    env = clean_env(WAREHOUSE_FILE=tmp_path / "stock.json", BURGEE_STATE_DIR=tmp_path / "state")
    return lambda *args: run_program(WAREHOUSE, *args, env=env)


@pytest.fixture
def keyed(tmp_path):
    return keyed_runner(tmp_path, clean_env(BURGEE_STATE_DIR=tmp_path / "state"))


class Result:
    def __init__(self, outputs, exit):
        self.stdout, self.stderr = outputs
        self.exit = exit
        self.json = json.loads(self.stdout)


def _read(path) -> str:
    return path.read_text() if path.exists() else ""


def _rows(state):
    with sqlite3.connect(state / "idempotency.sqlite3") as connection:
        return connection.execute("SELECT key, state, pid FROM claims").fetchall()


# --- every path finishes or releases the claim ----------------------------------------------

def test_a_batch_command_streamed_with_a_key_does_not_strand_it(warehouse):
    """Was: the ndjson path returned without finishing its claim, so the same key waited 15 s
    and exited 6 `in_progress` (for 24 hours)."""
    argv = ["items", "import", "SKU-0001=3", "--idempotency-key", "K"]
    warehouse(*argv, "--format", "ndjson")
    again = warehouse(*argv, "--json")
    assert again.exit == 0 and again.json["ok"] is True, again


def test_a_batch_command_run_twice_with_a_key_replays_at_once(warehouse):
    """The issue's own case: `items import SKU-0001=3 --idempotency-key K --json` twice (the
    second waited 15 s and exited 6)."""
    argv = ["items", "import", "SKU-0001=3", "--idempotency-key", "K", "--json"]
    first, again = warehouse(*argv), warehouse(*argv)
    assert first.exit == again.exit == 0, again
    assert again.json["data"] == first.json["data"] and again.json["meta"]["replayed"] is True


def test_a_partial_result_is_kept_and_replayed_not_applied_twice(warehouse):
    """Was: a partial result released the key, so a retry added the counts a second time."""
    argv = ["items", "import", "SKU-0001=3", "SKU-9999=1", "--idempotency-key", "P", "--json"]
    first, again = warehouse(*argv), warehouse(*argv)
    assert first.exit == again.exit == 8
    assert again.json["data"] == first.json["data"] and again.json["meta"]["replayed"] is True
    count = warehouse("items", "list", "--limit", "1", "--json").json["data"][0]["count"]
    assert count == first.json["data"]["succeeded"][0]["count"]


@pytest.mark.parametrize("mode, code", [("ok", 0), ("partial", 8)])
def test_success_and_partial_are_kept_for_replay(keyed, mode, code):
    first = keyed("--mode", mode, "--idempotency-key", mode, "--json")
    again = keyed("--mode", mode, "--idempotency-key", mode, "--json")
    assert first.exit == again.exit == code
    assert again.json["meta"]["replayed"] is True and keyed.runs() == 1


@pytest.mark.parametrize("mode, code", [("fail", 5), ("raise", 1), ("exit", 3),
                                        ("interrupt", 130)])
def test_every_other_ending_releases_the_key_so_a_retry_runs(keyed, mode, code):
    for run in (1, 2):
        outcome = keyed("--mode", mode, "--idempotency-key", mode, "--json")
        assert outcome.exit == code and keyed.runs() == run, outcome
    assert _rows(Path(keyed.env["BURGEE_STATE_DIR"])) == []


def test_a_dry_run_claims_nothing(warehouse, tmp_path):
    """Was: the dry run claimed the key, so the real run with it was `idempotency_conflict`."""
    argv = ["items", "restock", "--sku", "SKU-0002", "--count", "1", "--idempotency-key", "D"]
    plan = warehouse(*argv, "--dry-run", "--json")
    assert plan.exit == 0 and plan.json["meta"]["dry_run"] is True
    real = warehouse(*argv, "--json")
    assert real.exit == 0 and "replayed" not in real.json["meta"], real
    assert real.json["data"]["from"] == plan.json["data"]["plan"]["from"]
    assert warehouse(*argv, "--json").json["meta"]["replayed"] is True


# --- a dead holder is taken over at once -----------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_holder_is_taken_over_by_the_next_call(keyed, sig):
    """Was: a holder killed mid-call left the key pending for 24 h (every retry exit 6)."""
    argv = ["--gate", keyed.gate, "--idempotency-key", "K", "--json"]
    holder = keyed.start(*argv)
    wait_until(lambda: keyed.runs() == 1, "the holder inside its body")
    holder.send_signal(sig)   # not reaped yet: a zombie counts as dead too
    keyed.gate.write_text("")
    retry = keyed(*argv)
    holder.communicate(timeout=60)
    assert retry.exit == 0 and "replayed" not in retry.json["meta"], retry
    assert keyed.runs() == 2


def test_a_reused_pid_does_not_keep_the_claim(keyed):
    """A pending claim whose pid now belongs to another process (another start time) is dead."""
    argv = ["--gate", keyed.gate, "--idempotency-key", "R", "--json"]
    holder = keyed.start(*argv)
    wait_until(lambda: keyed.runs() == 1, "the holder inside its body")
    holder.kill()
    holder.communicate(timeout=60)
    keyed.gate.write_text("")
    state = Path(keyed.env["BURGEE_STATE_DIR"])
    with sqlite3.connect(state / "idempotency.sqlite3") as connection:   # a live pid, reused
        connection.execute("UPDATE claims SET pid=?, started='1'", (os.getpid(),))
    retry = keyed(*argv)
    assert retry.exit == 0 and keyed.runs() == 2, retry


def test_a_live_holder_is_still_waited_for(keyed):
    """A pending claim whose holder lives is not taken over: the second call waits, replays."""
    argv = ["--gate", keyed.gate, "--idempotency-key", "L", "--json"]
    holder = keyed.start(*argv)
    wait_until(lambda: keyed.runs() == 1, "the holder inside its body")
    second = keyed.start(*argv)
    wait_until(lambda: asleep(second.pid), "the second call polling the pending claim")
    keyed.gate.write_text("")
    first, _ = holder.communicate(timeout=60)
    second = Result(second.communicate(timeout=60), second.returncode)
    assert second.exit == 0 and second.json["meta"]["replayed"] is True
    assert json.loads(first)["data"] == second.json["data"] and keyed.runs() == 1


@pytest.mark.slow
def test_eight_racers_with_the_holder_killed_half_way(keyed):
    """8 processes on one key; the one that runs the body is SIGKILLed half-way. The key is
    taken over by one waiting racer, which runs the body; the other six replay its result.
    The body runs exactly twice (killed once, completed once), no racer exits 6."""
    argv = ["--gate", keyed.gate, "--idempotency-key", "race", "--json"]
    racers = [keyed.start(*argv) for _ in range(8)]
    wait_until(lambda: keyed.runs() == 1, "one racer inside the body")
    pid = int(_read(keyed.log).split()[1])
    holder = next(p for p in racers if p.pid == pid)
    holder.kill()
    killed_at = time.time()
    keyed.gate.write_text("")
    outputs = {p.pid: p.communicate(timeout=60) for p in racers}
    survivors = [p for p in racers if p is not holder]
    assert holder.returncode == -signal.SIGKILL
    assert [p.returncode for p in survivors] == [0] * 7, [outputs[p.pid] for p in survivors]
    docs = [json.loads(outputs[p.pid][0]) for p in survivors]
    assert len({json.dumps(d["data"]) for d in docs}) == 1
    assert sorted(bool(d["meta"].get("replayed")) for d in docs) == [False] + [True] * 6
    starts = [line.split() for line in _read(keyed.log).splitlines() if line.startswith("start")]
    assert len(starts) == 2 and int(starts[1][1]) != pid
    print(f"takeover {float(starts[1][2]) - killed_at:.3f}s after the kill; body ran "
          f"{len(starts)} times")


# --- canonical digest ------------------------------------------------------------------------

@pytest.mark.slow
def test_the_same_input_in_another_flag_order_replays(warehouse):
    """Was: `--sku X --quantity 1` then `--quantity 1 --sku X` was `idempotency_conflict`."""
    first = warehouse("orders", "create", "--sku", "SKU-0002", "--quantity", "1",
                      "--idempotency-key", "O", "--json")
    reordered = warehouse("--json", "orders", "create", "--idempotency-key", "O", "--quantity",
                          "1", "--sku", "SKU-0002")
    default = warehouse("orders", "create", "--sku", "SKU-0002", "--idempotency-key", "O",
                        "--json")
    assert first.exit == 0
    for again in (reordered, default):
        assert again.exit == 0 and again.json["meta"]["replayed"] is True, again
        assert again.json["data"] == first.json["data"]
    other = warehouse("orders", "create", "--sku", "SKU-0002", "--quantity", "2",
                      "--idempotency-key", "O", "--json")
    assert other.exit == 5 and other.json["error"]["code"] == "idempotency_conflict"


@pytest.mark.slow
@pytest.mark.asyncio
async def test_mcp_arguments_in_another_order_replay(tmp_path):
    """Was: the same MCP arguments with the JSON keys in another order were a conflict."""
    from mcp import Client

    from _mcp_helpers import caller_env, stdio_params, text_of
    extra = caller_env(tmp_path / "state") | {"WAREHOUSE_FILE": str(tmp_path / "stock.json")}
    async with Client(stdio_params(WAREHOUSE, extra, tmp_path), mode="legacy",
                      cache=None) as client:
        first = await client.call_tool("orders_create", {"sku": "SKU-0002", "quantity": 1,
                                                         "idempotency_key": "M"})
        calls = [{"idempotency_key": "M", "quantity": 1, "sku": "SKU-0002"},
                 {"idempotency_key": "M", "sku": "SKU-0002"}]
        docs = [json.loads(text_of(await client.call_tool("orders_create", arguments)))
                for arguments in calls]
    assert not first.is_error
    for doc in docs:
        assert doc["ok"] is True and doc["meta"]["replayed"] is True, doc
        assert doc["data"] == json.loads(text_of(first))["data"]


def test_the_store_keeps_only_a_hash_of_the_inputs(tmp_path):
    env = clean_env(BURGEE_STATE_DIR=tmp_path, NOTES_TOKEN="tok-very-secret-1234",
                    NOTES_FILE=tmp_path / "notes.json")
    run_program(SAMPLES / "notes.py", "sync", "push", "--idempotency-key", "S", "--json", env=env)
    with sqlite3.connect(tmp_path / "idempotency.sqlite3") as connection:
        (digest,) = connection.execute("SELECT digest FROM claims").fetchone()
    assert digest.startswith("h1:") and len(digest) == 67 and int(digest[3:], 16) >= 0
    assert b"tok-very-secret-1234" not in (tmp_path / "idempotency.sqlite3").read_bytes()


# --- a store that cannot be used -------------------------------------------------------------

def _store_error(outcome, path):
    assert outcome.exit == 7 and outcome.stderr == "", outcome
    error = outcome.json["error"]
    assert error["code"] == "idempotency_store_unavailable"
    assert str(path) in error["message"] and "BURGEE_STATE_DIR" in error["hint"]
    assert "--debug" not in json.dumps(error)
    return error


def test_a_corrupt_store_is_named_with_its_fix(keyed):
    """Was: exit 1 `internal` with a --debug hint and no file named."""
    state = Path(keyed.env["BURGEE_STATE_DIR"])
    state.mkdir()
    store = state / "idempotency.sqlite3"
    store.write_bytes(b"this is not a database" * 100)
    error = _store_error(keyed("--idempotency-key", "C", "--json"), store)
    assert "remove it" in error["hint"] and keyed.runs() == 0


def test_a_state_folder_that_cannot_be_made_is_named_with_its_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = clean_env(BURGEE_STATE_DIR=blocker / "state")
    outcome = run_program(KEYED, "act", "--log", tmp_path / "log", "--idempotency-key", "F",
                          "--json", env=env)
    _store_error(outcome, blocker / "state" / "idempotency.sqlite3")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only file anyway")
def test_a_read_only_store_is_named_with_its_fix(keyed):
    assert keyed("--json", "--idempotency-key", "W").exit == 0
    state = Path(keyed.env["BURGEE_STATE_DIR"])
    store = state / "idempotency.sqlite3"
    store.chmod(0o400)
    try:
        _store_error(keyed("--json", "--idempotency-key", "W2"), store)
    finally:
        store.chmod(0o600)
