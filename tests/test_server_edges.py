"""The smaller edges of issue 29 (item 5): loopback is an address, not a name prefix; bind
errors are envelopes; a malformed replay or snapshot file is bad input (exit 2). Real
subprocesses."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from conftest import PROGRAMS, SAMPLES, clean_env, run_program

HOSTILE = PROGRAMS / "hostile.py"


# -- loopback ---------------------------------------------------------------------------------

@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("localhost", True),
    ("127.attacker.invalid", False), ("127.0.0.1.attacker.invalid", False),
    ("0.0.0.0", False), ("::", False), ("10.0.0.1", False), ("", False)])
def test_loopback_is_decided_by_the_resolved_address(host, loopback):
    """Was: any name starting `127.` counted as this machine (and could take --no-auth)."""
    from workbench.runtime.serving import is_loopback
    assert is_loopback(host) is loopback


def test_no_auth_on_a_name_that_only_looks_local_is_refused():
    result = run_program(HOSTILE, "mcp", "--http", "127.attacker.invalid:0", "--no-auth",
                         "--json")
    doc = json.loads(result.stdout)
    assert result.exit == 2 and doc["error"]["code"] == "unknown_host", result
    assert doc["error"]["fix"] == "hostile mcp --http 127.0.0.1:0 --json"


# -- bind errors ------------------------------------------------------------------------------

@pytest.fixture
def taken_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    yield sock.getsockname()[1]
    sock.close()


def test_a_port_in_use_is_an_envelope_with_the_fix(taken_port):
    """Was: an OSError traceback."""
    result = run_program(HOSTILE, "mcp", "--http", f"127.0.0.1:{taken_port}", "--json")
    doc = json.loads(result.stdout)
    assert result.exit == 2 and result.stderr == "", result
    assert doc["error"]["code"] == "port_in_use"
    assert doc["error"]["fix"] == "hostile mcp --http 127.0.0.1:0 --json"


def test_a_port_in_use_tells_a_person_in_one_line(taken_port):
    result = run_program(HOSTILE, "mcp", "--http", f"127.0.0.1:{taken_port}")
    assert result.exit == 2 and result.stderr.startswith("error: cannot listen on 127.0.0.1:")
    assert "Traceback" not in result.stderr


def test_an_address_this_machine_does_not_have_is_an_envelope():
    result = run_program(HOSTILE, "mcp", "--http", "192.0.2.1:0", "--allow-remote", "--json",
                         env=clean_env(BURGEE_MCP_TOKEN="t" * 40))
    doc = json.loads(result.stdout)
    assert result.exit == 2 and doc["error"]["code"] == "cannot_listen", result


# -- replay and snapshot files ------------------------------------------------------------

def _replay(tmp_path, text: bytes):
    app = tmp_path / "app.py"
    app.write_text((SAMPLES / "deploy.py").read_text())
    recorded = tmp_path / "calls.jsonl"
    recorded.write_bytes(text)
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(app),
                           "--headless", "--json", "--replay", str(recorded)], env=clean_env(),
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("text, says", [
    (b"", "holds no recorded calls"),
    (b"\n\n", "holds no recorded calls"),
    (b'{"burgee_replay": 1, "tool": "status", "arguments": {}}\nnot json\n', "line 2"),
    (b'["a list"]\n', "line 1"),
    (b'{"burgee_replay": 1, "tool": "status", "arguments": "x"}\n', "line 1"),
    (b"\xff\xfe\n", "not UTF-8"),
])
def test_an_empty_or_malformed_replay_file_is_bad_input(tmp_path, text, says):
    """Was: an empty file replayed nothing and passed (exit 0); a bad line was skipped;
    bytes that are not UTF-8 were an internal error."""
    code, doc = _replay(tmp_path, text)
    assert code == 2 and doc["error"]["code"] == "invalid_replay", doc
    assert says in doc["error"]["message"]


@pytest.mark.slow
def test_a_malformed_snapshot_file_is_bad_input(tmp_path):
    """Was: a snapshot that is not JSON passed (exit 0) or read as a breaking change."""
    app = tmp_path / "app.py"
    app.write_text((SAMPLES / "deploy.py").read_text())

    def headless(*extra):
        done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(app),
                               "--headless", "--json", *extra], env=clean_env(),
                              capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)
        return done.returncode, json.loads(done.stdout)

    assert headless("--update")[0] == 0
    broken = tmp_path / ".burgee" / "snapshots" / "tool" / "schemas" / "status.json"
    broken.write_text('{"type": ')
    code, doc = headless()
    assert code == 2 and doc["error"]["code"] == "invalid_snapshot", doc
    assert doc["error"]["files"] == ["schemas/status.json"]
