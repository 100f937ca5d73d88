"""What issues 31 and 34 left (their closing note): a refusal after `ctx.step` says what it
changed; a stream's `@end` says which fields are untrusted; `removed_in` against the program's
version; plan twins found by discovery's search; ambiguous words in a person's help. Over the
command line (a subprocess) and MCP (the SDK's client over stdio) where the behaviour is MCP's."""

from __future__ import annotations

import json

import pytest

from _mcp_helpers import caller_env, stdio_params, text_of
from conftest import ROOT, clean_env, run_program

VOCAB = ROOT / "tests" / "programs" / "vocabulary.py"
STEPS = [{"done": "copied", "file": "a.txt"}]


def _cli(path, *argv, **env):
    return run_program(path, *argv, env=clean_env(**env))


async def _calls(path, tmp_path, calls):
    from mcp import Client
    out = []
    async with Client(stdio_params(path, caller_env(tmp_path / "state"), tmp_path),
                      mode="legacy", cache=None) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            out.append((bool(result.is_error), json.loads(text_of(result))))
    return out


# -- 1. a refusal after ctx.step: effects partial, with the steps ------------------------------

@pytest.mark.parametrize("fmt", ["--json", "ndjson"])
def test_a_refusal_after_a_step_says_partial_with_the_steps_on_the_cli(fmt):
    def error(*argv):
        if fmt == "ndjson":
            lines = _cli(VOCAB, *argv, "--format", "ndjson").stdout.splitlines()
            return json.loads(lines[-1])["@end"]["error"]
        return _cli(VOCAB, *argv, "--json").json["error"]
    moved = error("move", "--to", "x")              # the handler's Fail(exit=2)
    assert moved["exit"] == 2 and moved["effects"] == "partial" and moved["steps"] == STEPS
    asked = error("sync")                           # ctx.prompt with nobody to answer
    assert asked["code"] == "input_required" and asked["exit"] == 2
    assert asked["effects"] == "partial"
    assert asked["steps"] == [{"done": "pulled", "file": "a.txt"}]
    assert asked["field"] == "to" and asked["retryable"] is False
    before = error("sync", "--nope")                # refused before the handler: nothing
    assert before["effects"] == "none" and "steps" not in before


@pytest.mark.asyncio
async def test_a_refusal_after_a_step_says_partial_with_the_steps_over_mcp(tmp_path):
    (moved_error, moved), (asked_error, asked) = await _calls(
        VOCAB, tmp_path, [("move", {"to": "x"}), ("sync", {})])
    assert moved_error and moved["error"]["effects"] == "partial"
    assert moved["error"]["steps"] == STEPS
    assert asked_error and asked["error"]["code"] == "input_required"
    assert asked["error"]["effects"] == "partial"
    assert asked["error"]["steps"] == [{"done": "pulled", "file": "a.txt"}]


# -- 2. a stream's @end says which fields are untrusted, as an envelope's meta does ---------

AGENTIC = ROOT / "tests" / "programs" / "agentic.py"


def _end(*argv):
    lines = _cli(AGENTIC, *argv, "--format", "ndjson").stdout.splitlines()
    return json.loads(lines[-1])["@end"]


@pytest.mark.parametrize("argv", [["feed", "--text", "hi"], ["report", "--body", "hi"],
                                  ["feed", "--follow"]])
def test_a_streams_end_lists_untrusted_fields_as_the_envelope_does(argv):
    envelope = _cli(AGENTIC, *argv, "--json").json
    end = _end(*argv)
    assert end["untrusted"] == envelope["meta"]["untrusted"]
    assert end["untrusted"]["data"] == (["/*/text"] if argv[0] == "feed" else ["/body"])


def test_a_streamed_untrusted_value_never_reaches_the_streams_next():
    envelope = _cli(AGENTIC, "feed", "--follow", "--json").json
    assert envelope["next"][0]["command"] == "tasks report --body <untrusted> --json"
    end = _end("feed", "--follow")
    assert end["next"] == [{"command": "tasks report --body <untrusted> --format ndjson",
                            "when": "to report the last item"}]
