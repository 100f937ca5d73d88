"""CLI `--json` and MCP `tools/call` give the same bytes for every example of every sample program.

For each example: the CLI runs in a subprocess with `--json`; the same call goes through the
SDK's own client to a real `python FILE mcp` server process (stdio; HTTP for a subset), with
the same environment and the same state folder put back to the same contents before each side.
The tool's text must equal the CLI's stdout without its final newline, errors included,
except that a refusal an adapted program's original made gives its fix as arguments.
"""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import (SAMPLES, State, authed, caller_env, examples, http_server, run_cli,
                          sample_files, stdio_params, text_of)
from workbench.runtime._failures import as_mcp_sends   # the checker's rule for C10
from workbench.runtime.arguments import from_argv
from workbench.loader import load_program
from workbench.surfaces.tools import output_schema

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


def _plan(program):
    """[(command, argv, arguments, skip reason or None)] for every example."""
    out = []
    for command, argv in examples(program):
        if command.effects == "withheld":
            out.append((command, argv, None, "withheld"))
            continue
        if command.person_only:   # not an MCP tool: a call by name is refused with exit 13
            out.append((command, argv, None, "person_only"))
            continue
        if any(t == "--format" or t.startswith("--format=") for t in argv):
            out.append((command, argv, None, "--format ndjson streams lines; MCP answers with "
                                             "one envelope"))
            continue
        found, arguments = from_argv(program, argv)
        assert found is command
        out.append((command, argv, arguments, None))
    return out


def _fix_as_arguments(command, cli_text, mcp_text) -> bool:
    """An adapted command's original refused the call (exit 2): over MCP the envelope is the
    CLI's except that its fix is the arguments that make the CLI's fix line."""
    from workbench.runtime.arguments import to_argv, with_json
    cli, mcp = json.loads(cli_text), json.loads(mcp_text)
    if command.adapter is None or cli.get("error", {}).get("exit") != 2:
        return False
    arguments = json.loads(mcp["error"].pop("fix"))
    line = " ".join([command.program.name, *with_json(to_argv(command, arguments))])
    return line == cli["error"].pop("fix") and mcp == cli


async def _compare(client, file, program, plan, state, extra, cwd):
    """Run each planned example on both sides; return (compared count, mismatches)."""
    mismatches, compared = [], 0
    for command, argv, arguments, skip in plan:
        if skip == "withheld":
            result = await client.call_tool(command.tool_name, {})
            doc = json.loads(text_of(result))
            assert result.is_error and doc["error"]["code"] == "tool_withheld", doc
            continue
        if skip == "person_only":
            result = await client.call_tool(command.tool_name, {})
            doc = json.loads(text_of(result))
            assert result.is_error and doc["error"]["code"] == "person_required", doc
            continue
        if skip is not None:
            continue
        state.save()
        cli = run_cli(file, argv + ["--json"], extra, cwd)
        after_cli = sorted(p.relative_to(state.live).as_posix() for p in state.live.rglob("*"))
        state.reset()
        result = await client.call_tool(command.tool_name, arguments)
        after_mcp = sorted(p.relative_to(state.live).as_posix() for p in state.live.rglob("*"))
        compared += 1
        text = text_of(result)
        expected = cli.stdout[:-1] if cli.stdout.endswith("\n") else cli.stdout
        expected = as_mcp_sends(program, expected)   # a failure's next steps as tool calls
        problem = None
        if cli.stderr:
            problem = f"CLI wrote to stderr under --json: {cli.stderr!r}"
        elif text != expected and not _fix_as_arguments(command, expected, text):
            problem = f"text differs:\n  cli: {expected}\n  mcp: {text}"
        elif bool(result.is_error) != (cli.returncode != 0):
            problem = f"isError {result.is_error} but CLI exit {cli.returncode}"
        elif after_cli != after_mcp:
            problem = f"state differs: {after_cli} vs {after_mcp}"
        else:
            doc = json.loads(expected)
            if doc.get("ok") is True and output_schema(command) is not None:
                if result.structured_content != doc["data"]:
                    problem = "structuredContent is not the envelope's data"
            elif result.structured_content is not None:
                problem = "structuredContent on a result without an output schema or not ok"
        if problem:
            mismatches.append(f"{program.name} {' '.join(argv)}: {problem}")
    return compared, mismatches


@pytest.mark.parametrize("file", sample_files(), ids=lambda p: p.name)
async def test_every_example_gives_the_same_bytes_over_stdio(file, tmp_path):
    from mcp import Client
    program = load_program(str(file))
    plan = _plan(program)
    state = State(tmp_path / "state")
    extra = caller_env(state.live)
    async with Client(stdio_params(file, extra, tmp_path), mode="legacy", cache=None) as client:
        compared, mismatches = await _compare(client, file, program, plan, state, extra, tmp_path)
    assert compared >= 1, f"{file.name}: no example could be compared"
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("file", [SAMPLES / "deploy.py", SAMPLES / "notes.py"],
                         ids=lambda p: p.name)
async def test_examples_give_the_same_bytes_over_http_in_both_eras(file, tmp_path):
    from mcp import Client
    program = load_program(str(file))
    plan = _plan(program)[:4]
    state = State(tmp_path / "state")
    extra = caller_env(state.live)
    with http_server(file, extra, tmp_path) as (url, _process):
        for mode in ("legacy", "auto"):
            async with Client(authed(url), mode=mode, cache=None) as client:
                compared, mismatches = await _compare(client, file, program, plan, state,
                                                      extra, tmp_path)
            assert compared >= 1
            assert not mismatches, f"mode={mode}:\n" + "\n".join(mismatches)


async def test_a_2026_era_stdio_client_gets_the_same_bytes(tmp_path):
    from mcp import Client
    file = SAMPLES / "deploy.py"
    program = load_program(str(file))
    state = State(tmp_path / "state")
    extra = caller_env(state.live)
    async with Client(stdio_params(file, extra, tmp_path), cache=None) as client:
        assert client.protocol_version >= "2026"
        compared, mismatches = await _compare(client, file, program, _plan(program), state,
                                              extra, tmp_path)
    assert compared >= 3 and not mismatches, "\n".join(mismatches)


async def test_refusals_match_the_cli_when_both_refuse(tmp_path):
    """A bad enum value: the CLI's parser and the MCP argument check give the same code."""
    from mcp import Client
    file = SAMPLES / "deploy.py"
    state = State(tmp_path / "state")
    extra = caller_env(state.live)
    cli = run_cli(file, ["status", "--target", "prd", "--json"], extra, tmp_path)
    async with Client(stdio_params(file, extra, tmp_path), mode="legacy", cache=None) as client:
        result = await client.call_tool("status", {"target": "prd"})
    mcp_doc, cli_doc = json.loads(text_of(result)), json.loads(cli.stdout)
    assert result.is_error and cli.returncode == 2
    assert mcp_doc["error"]["code"] == cli_doc["error"]["code"] == "invalid_choice"
    assert mcp_doc["error"]["exit"] == cli_doc["error"]["exit"] == 2
    assert mcp_doc["meta"] == cli_doc["meta"]
    assert json.loads(mcp_doc["error"]["fix"]) == {"target": "prod"}
    assert cli_doc["error"]["fix"] == "tool status --target prod --json"
