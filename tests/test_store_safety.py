"""Stores that cannot be turned against their user (issue 29, item 4): the idempotency digest
is keyed per store, the store is never opened through a link, its folder is private, an empty
or corrupt store is an error naming the file, numbers are canonical by the option's type,
PostgreSQL passwords never reach a message, the traffic record is private. Real subprocesses."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from conftest import PROGRAMS, SAMPLES, clean_env, run_program

KEYED = PROGRAMS / "keyed.py"


def _keyed(tmp_path, *args, state=None):
    env = clean_env(BURGEE_STATE_DIR=state or tmp_path / "state")
    return run_program(KEYED, "act", "--log", tmp_path / "runs.log", *args, env=env)


def _error(result) -> dict:
    assert result.exit == 7 and result.stderr == "", result
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "idempotency_store_unavailable"
    return error


def _runs(tmp_path) -> int:
    log = tmp_path / "runs.log"
    return log.read_text().count("start") if log.exists() else 0


# -- the digest --------------------------------------------------------------------------------

def test_the_digest_is_keyed_by_a_secret_kept_apart_from_the_store(tmp_path):
    """Was: a plain sha256 of the inputs, which anyone holding the store file could check
    guesses of a secret input against."""
    env = clean_env(BURGEE_STATE_DIR=tmp_path / "state", NOTES_TOKEN="tok-very-secret-1234",
                    NOTES_FILE=tmp_path / "notes.json")
    result = run_program(SAMPLES / "notes.py", "sync", "push", "--idempotency-key", "S",
                         "--json", env=env)
    assert result.exit == 0, result
    store = tmp_path / "state" / "idempotency.sqlite3"
    key = tmp_path / "state" / "idempotency.key"
    with sqlite3.connect(store) as connection:
        (digest,) = connection.execute("SELECT digest FROM claims").fetchone()
    assert digest.startswith("h1:")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_text().strip()) == 64
    from workbench.loader import load_program
    from workbench.runtime._keys import input_digest
    from workbench.runtime.parser import parse
    request = parse(load_program(str(SAMPLES / "notes.py")), ["sync", "push"], env)
    assert input_digest(request) not in store.read_bytes().decode("latin-1")
    assert digest == input_digest(request, bytes.fromhex(key.read_text().strip()))


def test_a_store_made_before_keyed_digests_still_replays(tmp_path):
    """Its rows hold plain sha256 digests; a retry of the same call replays, not runs."""
    assert _keyed(tmp_path, "--idempotency-key", "OLD", "--json").exit == 0
    state = tmp_path / "state"
    from workbench.loader import load_program
    from workbench.runtime._keys import input_digest
    from workbench.runtime.parser import parse
    request = parse(load_program(str(KEYED)), ["act", "--log", str(tmp_path / "runs.log")], {})
    with sqlite3.connect(state / "idempotency.sqlite3") as connection:
        connection.execute("UPDATE claims SET digest = ?", (input_digest(request),))
    again = _keyed(tmp_path, "--idempotency-key", "OLD", "--json")
    assert json.loads(again.stdout)["meta"]["replayed"] is True and _runs(tmp_path) == 1


@pytest.mark.parametrize("first, second", [("1", "1.0"), ("2.5", "2.50"), ("-0.0", "0")])
def test_a_number_written_two_ways_is_one_key(tmp_path, first, second):
    """Was: `--delay 1` then `--delay 1.0` with the same key: idempotency_conflict."""
    from workbench import Command, Option, Program
    from workbench.runtime._keys import input_digest
    from workbench.runtime.parser import parse
    program = Program(name="t", commands=[Command(
        name="c", description="c", effects="non_idempotent", run=lambda ctx: {},
        options={"n": Option(type="number", description="n"),
                 "many": Option(type="list", items="number", description="m"),
                 "i": Option(type="integer", description="i")})])
    one = parse(program, ["c", "--n", first, "--many", first, "--i", "7"], {})
    two = parse(program, ["c", "--n", second, "--many", second, "--i", "07"], {})
    assert input_digest(one, b"k") == input_digest(two, b"k")
    assert input_digest(one, b"k") != input_digest(parse(program, ["c", "--n", "3"], {}), b"k")


# -- the file and its folder -------------------------------------------------------------------

def test_a_store_that_is_a_symbolic_link_is_refused(tmp_path):
    """Was: followed, so whoever could place the link chose the file written (0600 applied
    to it too)."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious")
    (state / "idempotency.sqlite3").symlink_to(target)
    error = _error(_keyed(tmp_path, "--idempotency-key", "L", "--json"))
    assert "symbolic link" in error["message"] and "remove the link" in error["hint"]
    assert target.read_text() == "precious" and _runs(tmp_path) == 0


def test_a_key_file_that_is_a_symbolic_link_is_refused(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / "idempotency.key").symlink_to(tmp_path / "nowhere")
    error = _error(_keyed(tmp_path, "--idempotency-key", "L", "--json"))
    assert "symbolic link" in error["message"]


def test_a_folder_burgee_makes_is_private(tmp_path):
    state = tmp_path / "deep" / "state"
    assert _keyed(tmp_path, "--idempotency-key", "P", "--json", state=state).exit == 0
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "idempotency.sqlite3").stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_folder_others_may_write_in_is_refused_with_the_fix(tmp_path, mode):
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(mode)
    error = _error(_keyed(tmp_path, "--idempotency-key", "W", "--json"))
    assert str(state) in error["message"] and f"chmod go-w {state}" in error["hint"]
    assert _runs(tmp_path) == 0 and not (state / "idempotency.sqlite3").exists()


def test_an_empty_store_is_an_error_naming_it_not_a_new_store(tmp_path):
    """Was: SQLite took the 0-byte file for a new store, and the keys it held were gone
    without a word."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    store = state / "idempotency.sqlite3"
    store.write_bytes(b"")
    error = _error(_keyed(tmp_path, "--idempotency-key", "E", "--json"))
    assert str(store) in error["message"] and "empty" in error["message"]
    assert f"remove {store}" in error["hint"] and _runs(tmp_path) == 0


def test_a_corrupt_store_is_an_error_naming_it(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    store = state / "idempotency.sqlite3"
    store.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    error = _error(_keyed(tmp_path, "--idempotency-key", "C", "--json"))
    assert str(store) in error["message"] and _runs(tmp_path) == 0


def test_a_lost_key_file_forgets_the_keys_it_signed(tmp_path):
    """The digests of a lost key can never match again: a retry runs (as with a removed
    store) rather than being refused as a conflict."""
    assert _keyed(tmp_path, "--idempotency-key", "K", "--json").exit == 0
    (tmp_path / "state" / "idempotency.key").unlink()
    again = _keyed(tmp_path, "--idempotency-key", "K", "--json")
    assert again.exit == 0 and "replayed" not in json.loads(again.stdout)["meta"]
    assert _runs(tmp_path) == 2


def test_many_first_uses_at_once_make_one_store(tmp_path):
    import subprocess
    import sys
    env = clean_env(BURGEE_STATE_DIR=tmp_path / "state")
    racers = [subprocess.Popen([sys.executable, str(KEYED), "act", "--log",
                                str(tmp_path / "runs.log"), "--idempotency-key", f"R{n}",
                                "--json"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for n in range(6)]
    outs = [racer.communicate(timeout=120) for racer in racers]
    assert all(racer.returncode == 0 for racer in racers), outs
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == \
        ["idempotency.key", "idempotency.sqlite3"]


# -- PostgreSQL URLs ---------------------------------------------------------------------------

@pytest.mark.parametrize("url, password", [
    ("postgresql://burgee:pa%zzss-hunter2@127.0.0.1:1/db", "pa%zzss-hunter2"),
    ("postgresql://burgee@127.0.0.1:1/db?password=hunter2-query&sslmode=bogus",
     "hunter2-query"),
    ("postgresql://burgee:hunter2-user@127.0.0.1:1/db", "hunter2-user"),
])
def test_a_postgresql_password_never_reaches_the_message(tmp_path, url, password):
    """Was: only `user:PASSWORD@` was hidden; a password in the query, and psycopg's own
    errors quoting the URL (`invalid percent-encoded token: "pa%zzss-hunter2"`), were not."""
    pytest.importorskip("psycopg")
    env = clean_env(BURGEE_IDEMPOTENCY_URL=url)
    result = run_program(KEYED, "act", "--log", tmp_path / "runs.log", "--idempotency-key",
                         "P", "--json", env=env)
    assert result.exit == 7 and password not in result.stdout + result.stderr, result
    assert "***" in json.loads(result.stdout)["error"]["message"]


def test_a_keyword_dsn_is_refused_without_echoing_its_password(tmp_path):
    """Was: `BURGEE_IDEMPOTENCY_URL names an unknown store: 'host=db password=hunter2'`."""
    env = clean_env(BURGEE_IDEMPOTENCY_URL="host=db user=u password=hunter2-kw dbname=x")
    result = run_program(KEYED, "act", "--log", tmp_path / "runs.log", "--idempotency-key",
                         "P", "--json", env=env)
    assert result.exit == 7 and "hunter2-kw" not in result.stdout, result
    assert "password=***" in json.loads(result.stdout)["error"]["message"]


@pytest.mark.parametrize("url, shown", [
    ("postgresql://u:s3cr%40t@h/db", "postgresql://u:***@h/db"),
    ("postgres://u@h/db?sslmode=require&password=abc123", "postgres://u@h/db?sslmode=require&password=***"),
    ("host=h password='a b\\' c' dbname=d", "host=h password=*** dbname=d"),
    ("host=h password = pw123 dbname=d", "host=h password = *** dbname=d"),
])
def test_every_written_form_of_a_dsn_password_is_masked(url, shown):
    from workbench.runtime._keys_pg import shown as masked
    assert masked(url) == shown


# -- the traffic record ------------------------------------------------------------------------

def test_the_traffic_record_is_private(tmp_path):
    from workbench.dev.records import TrafficEntry
    from workbench.dev.replay import Recorder
    path = tmp_path / ".burgee" / "traffic" / "p.jsonl"
    recorder = Recorder(str(path))
    entry = TrafficEntry(at=1.0, client="c", session=None, method="tools/call", tool="t",
                         arguments={}, result="{}", is_error=False, seconds=0.0)
    assert recorder.record(entry, None)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    recorder.record(entry, None)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "target")
    with pytest.raises(OSError):
        Recorder(str(link)).record(entry, None)
    assert not (tmp_path / "target").exists()
