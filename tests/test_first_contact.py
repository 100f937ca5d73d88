"""What a new user trips on (issue 36), each as a new user meets it: through the real command
line, in a subprocess."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLES, clean_env

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "first-contact", "version": "1"}}}


def _burgee(*args, stdin=subprocess.DEVNULL, timeout=60, cwd=None):
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, stdin=stdin,
                          env=clean_env(PYTHONPATH=ROOT), cwd=cwd or ROOT)


def test_burgee_mcp_help_shows_the_file_form_first():
    helped = _burgee("mcp", "--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("Usage: burgee mcp FILE [--program NAME] [--watch]")
    assert "burgee mcp app.py --watch" in helped.stdout
    assert "Usage: burgee mcp [options]" in helped.stdout   # the built-in's own help follows
    as_data = json.loads(_burgee("mcp", "--help", "--json").stdout)
    assert as_data["command"] == "mcp"   # data stays the built-in's card alone
    declared = subprocess.run([sys.executable, str(SAMPLES / "notes.py"), "mcp", "--help"],
                              capture_output=True, text=True, timeout=60, env=clean_env())
    assert declared.stdout.startswith("Usage: notes mcp [options]")   # a program's own: as is


@pytest.mark.parametrize("how", ["devnull", "pipe closed later"])
def test_mcp_watch_ends_when_its_input_closes(how, tmp_path):
    """A client that goes away closes stdin: the server exits 0 instead of waiting forever."""
    argv = [sys.executable, "-m", "workbench.cli", "mcp", str(SAMPLES / "notes.py"), "--watch"]
    env = clean_env(PYTHONPATH=ROOT, HOME=tmp_path)
    if how == "devnull":
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        return
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    ready, _, _ = select.select([process.stdout], [], [], 120)   # reading its input: then close
    assert ready and b'"result"' in process.stdout.readline(), "initialize was never answered"
    process.stdin.close()
    assert process.wait(timeout=120) == 0, process.stderr.read()
    process.stdout.close()
    process.stderr.close()


@pytest.mark.anyio
async def test_an_options_old_name_works_over_mcp_as_on_the_command_line(tmp_path):
    """warehouse's `items restock` renamed --item to --sku, keeping `aliases=["item"]`: the
    MCP SDK's own client sends the old property and it runs, with the CLI's warning; both
    names together are refused; the breaking-change check calls the rename compatible."""
    from mcp import Client
    from mcp.client.stdio import stdio_client
    from _mcp_helpers import caller_env, stdio_params
    extra = {**caller_env(tmp_path), "WAREHOUSE_FILE": str(tmp_path / "store.json")}
    cli = subprocess.run([sys.executable, str(SAMPLES / "warehouse.py"), "items", "restock",
                          "--item", "SKU-0003", "--count", "1", "--json"], capture_output=True,
                         text=True, timeout=60, env=clean_env(**extra))
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(stdio_params(SAMPLES / "warehouse.py", extra, tmp_path),
                                       errlog=errlog), cache=None, mode="legacy") as client:
            old = await client.call_tool("items_restock", {"item": "SKU-0003", "count": 1})
            both = await client.call_tool("items_restock",
                                          {"item": "SKU-0003", "sku": "SKU-0003", "count": 1})
    doc = json.loads(old.content[0].text)
    assert old.is_error is False and doc["ok"] is True, doc
    assert doc["meta"]["warnings"] == json.loads(cli.stdout)["meta"]["warnings"] \
        == ["--item is deprecated; use --sku"]
    refused = json.loads(both.content[0].text)
    assert both.is_error is True and refused["error"]["code"] == "conflicting_options"
    assert json.loads(refused["error"]["fix"]) == {"sku": "SKU-0003", "count": 1}


def test_a_replacement_is_named_as_a_caller_writes_it_in_help_and_in_the_warning():
    """`replaced_by="everything"` (a key) reads `--everything` in help and in the warning."""
    from workbench import Command, Option, Program
    from workbench.testing import Runner
    program = Program(name="t", version="1.0.0", description="T", commands=[
        Command(name="ls", description="List", effects="read_only", run=lambda ctx: {},
                options={"all": Option(type="boolean", description="all of them",
                                       deprecated=True, replaced_by="everything"),
                         "everything": Option(type="boolean", description="everything")})])
    runner = Runner(program)
    helped = " ".join(runner.invoke("ls --help").stdout.split())
    assert "deprecated: use --everything instead" in helped
    warned = runner.invoke("ls --all --json").json["meta"]["warnings"]
    assert warned == ["--all is deprecated; use --everything"]


@pytest.mark.parametrize("builtin", [["mcp"], ["skills"], ["completion"], ["help"]])
def test_a_builtins_help_opens_with_what_it_does_not_an_effects_line(builtin):
    done = subprocess.run([sys.executable, str(SAMPLES / "notes.py"), *builtin, "--help"],
                          capture_output=True, text=True, timeout=60, env=clean_env())
    assert done.returncode == 0 and done.stdout.startswith("Usage: notes "), done.stderr
    assert "Effects:" not in done.stdout
    own = subprocess.run([sys.executable, str(SAMPLES / "notes.py"), "add", "--help"],
                         capture_output=True, text=True, timeout=60, env=clean_env())
    assert "Effects: non_idempotent" in own.stdout   # a program's own commands keep it
