"""Each bundled sample declared as data and with type hints gives byte-identical surfaces.

Help at every level, help as data, cards, input and program schemas, `--schema`, the MCP tools
list (also from real servers through the SDK's client), completions, skills, and the envelopes
and text of every example run in-process, in a fresh state for each declaration.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import shlex
from pathlib import Path

import pytest

from workbench.runtime.arguments import from_argv
from workbench.runtime.pipeline import call
from workbench.surfaces.cards import LEVELS, card, group_document, help_document
from workbench.surfaces.completion import completion_script
from workbench.surfaces.help import render_help
from workbench.surfaces.schema import input_schema, program_schema
from workbench.surfaces.skills import llms_txt, skill_files
from workbench.surfaces.tools import list_tools

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ("deploy", "notes", "warehouse", "ported/users", "ported/repo", "ported/naval",
           "ported/validation")


def both(sample: str):
    folder, _, name = sample.rpartition("/")
    where = ROOT / "sample_programs" / folder
    data = runpy.run_path(str(where / f"{name}.py"))["program"]
    typed = runpy.run_path(str(where / "typed" / f"{name}.py"))["app"]
    return data, typed.program


def dump(value) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)


def pure_surfaces(program) -> dict:
    """Every surface computed straight from the Program, by name."""
    out = {"program_schema": dump(program_schema(program)), "tools": dump(list_tools(program)),
           "llms.txt": llms_txt(program), "help": render_help(program)}
    for level in LEVELS:
        out[f"help_document/{level}"] = dump(help_document(program, level))
    for shell in ("bash", "zsh", "fish"):
        out[f"completion/{shell}"] = completion_script(program, shell)
    for name, text in skill_files(program).items():
        out[f"skill/{name}"] = text
    for group in program.groups():
        where = " ".join(group.path)
        out[f"help {where}"] = render_help(program, group)
        for level in LEVELS:
            out[f"group_document {where}/{level}"] = dump(group_document(program, group, level))
    for command in program.walk():
        where = " ".join(command.path)
        out[f"help {where}"] = render_help(program, command)
        out[f"card {where}"] = dump(card(command))
        out[f"input_schema {where}"] = dump(input_schema(command))
    return out


def argv_surfaces(program) -> list:
    """What the command line prints for help, schemas and completions."""
    calls = [["--help"], ["--help", "--json"], ["--schema"], ["--version"], ["help"]]
    calls += [["help", "--json", "--level", level] for level in LEVELS]
    calls += [["completion", shell] for shell in ("bash", "zsh", "fish")]
    for node in [*program.groups(), *program.walk()]:
        calls += [[*node.path, "--help"], [*node.path, "--help", "--json"],
                  [*node.path, "--schema"]]
    return calls


def example_runs(program, state: Path, monkeypatch) -> list:
    """(argv, exit, stdout, stderr, envelope) of every example, as JSON and as text, in order.

    The notes store reads $XDG_STATE_HOME from the process, so it is set there too."""
    state.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    environ = {"XDG_STATE_HOME": str(state), "XDG_CACHE_HOME": str(state / "cache"),
               "HOME": str(state), "PATH": "/usr/bin:/bin"}
    runs = []
    for command in program.walk():
        for example in command.examples:
            argv = shlex.split(example)[1:]
            for mode in (["--json"], []):
                outcome = call(program, argv + mode, environ=environ)
                runs.append([argv + mode, outcome.exit, outcome.stdout.replace(str(state), "~"),
                             outcome.stderr.replace(str(state), "~"), outcome.envelope])
    return runs


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_pure_surface_is_byte_identical(sample):
    data, typed = both(sample)
    left, right = pure_surfaces(data), pure_surfaces(typed)
    assert list(left) == list(right)
    for name in left:
        assert left[name] == right[name], name


@pytest.mark.parametrize("sample", SAMPLES)
def test_help_schema_and_completions_on_the_command_line_are_byte_identical(sample, tmp_path):
    data, typed = both(sample)
    environ = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for argv in argv_surfaces(data):
        left, right = call(data, argv, environ=environ), call(typed, argv, environ=environ)
        assert (left.exit, left.stdout, left.stderr) == (right.exit, right.stdout, right.stderr), argv
        assert left.exit == 0, (argv, left.stderr)


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_example_gives_the_same_envelope_and_text(sample, tmp_path, monkeypatch):
    data, typed = both(sample)
    left = example_runs(data, tmp_path / "data", monkeypatch)
    right = example_runs(typed, tmp_path / "typed", monkeypatch)
    assert len(left) == len(right) > 0
    for one, other in zip(left, right):
        assert dump(one) == dump(other), one[0]


@pytest.mark.parametrize("sample", SAMPLES)
def test_examples_map_to_the_same_mcp_arguments(sample):
    data, typed = both(sample)
    for command in data.walk():
        for example in command.examples:
            argv = shlex.split(example)   # an example's <slot> stays a slot (issue 28)
            left = from_argv(data, argv, placeholders=True)
            right = from_argv(typed, argv, placeholders=True)
            assert (left[0].tool_name, left[1]) == (right[0].tool_name, right[1]), example


def test_real_mcp_servers_list_the_same_tools_and_answer_the_same(tmp_path):
    """Both notes programs served over stdio (`python FILE mcp`), read with the SDK's client."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from _mcp_helpers import caller_env, stdio_params

    async def session_of(file, state):
        params = stdio_params(file, caller_env(state), tmp_path)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                added = await session.call_tool("add", {"text": "buy milk", "tag": ["home"]})
                listed = await session.call_tool("list", {})
                return [tools.model_dump(mode="json"), added.model_dump(mode="json"),
                        listed.model_dump(mode="json")]

    data = asyncio.run(session_of(ROOT / "sample_programs" / "notes.py", tmp_path / "data"))
    typed = asyncio.run(session_of(ROOT / "sample_programs" / "typed" / "notes.py",
                                   tmp_path / "typed"))
    assert dump(data) == dump(typed)
    assert [tool["name"] for tool in data[0]["tools"]][:2] == ["add", "list"]
