"""Suggesting the nearest name costs little whatever a caller sends (issue 10).

`nearest` was a full edit distance per candidate: a 1 MB unknown tool name took ~24 s and
stalled an HTTP MCP server for every session. These tests pin the bound by the work done
(distance computations counted, rows of the table visited), never by the clock.
"""

import json
import random
import subprocess
import sys

import pytest

from _mcp_helpers import authed, caller_env, full_env, http_server, text_of
from workbench import _text
from workbench._text import MAX_WORD, clip, distance, nearest

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

FLAGS = ["--target", "--yes", "--json", "--help", "--dry-run", "--skip-build", "--format"]


@pytest.fixture
def counted(monkeypatch):
    """Count the edit distances `nearest` computes."""
    calls = []
    real = _text.distance

    def counting(a, b, limit=None):
        calls.append((len(a), len(b), limit))
        return real(a, b, limit)
    monkeypatch.setattr(_text, "distance", counting)
    return calls


def full_distance(a: str, b: str) -> int:
    """The textbook optimal-string-alignment distance, the whole table: the reference."""
    rows = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1,
                             rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


def test_a_word_longer_than_any_name_is_refused_without_computing_a_distance(counted):
    for word in ("--" + "x" * (128 * 1024), "y" * (1024 * 1024), "z" * (MAX_WORD + 1)):
        assert nearest(word, FLAGS) == []
    assert counted == []


def test_a_long_word_that_starts_with_a_flag_is_no_near_match(counted):
    assert nearest("--target" + "x" * 200_000, FLAGS) == []
    assert counted == []


def test_candidates_whose_letters_alone_rule_them_out_are_not_compared(counted):
    assert nearest("--targt", FLAGS) == ["--target"]
    assert [b for _, b, _ in counted] == [len("--target")]   # --skip-build, --yes… skipped


def test_the_banded_distance_agrees_with_the_full_table():
    generator = random.Random(10)
    for _ in range(2000):
        a = "".join(generator.choice("ab-c") for _ in range(generator.randint(0, 9)))
        b = "".join(generator.choice("ab-c") for _ in range(generator.randint(0, 9)))
        exact = full_distance(a, b)
        assert distance(a, b) == exact, (a, b)
        for limit in range(6):
            assert distance(a, b, limit) == (exact if exact <= limit else limit + 1), (a, b)


def test_the_banded_distance_stops_at_the_first_row_past_the_limit():
    class Word(str):
        """A str that counts how many of its letters the distance reads."""
        read = 0

        def __iter__(self):
            for char in str.__iter__(self):
                Word.read += 1
                yield char
    word = Word("q" * 100)
    assert distance(word, "r" * 100, limit=3) == 4
    assert Word.read == 4   # row 4 is past the limit; the 96 rows after it are never built


def test_suggestions_still_find_typos_transpositions_and_prefixes():
    assert nearest("--targt", FLAGS) == ["--target"]
    assert nearest("--dyr-run", FLAGS) == ["--dry-run"]
    assert nearest("--skip", FLAGS) == ["--skip-build"]
    assert nearest("--format-x", FLAGS) == ["--format"]
    assert nearest("--zzzzzz", FLAGS) == []


def test_clip_keeps_a_quoted_name_small():
    assert clip("deploy") == "deploy"
    assert clip("y" * 1_000_000) == "y" * 60 + "… (1000000 characters)"


APP = '''
from workbench import Command, Option, Program, run

def area(ctx):
    return {"area": ctx.options.width * ctx.options.height}

program = Program(name="app", version="1.0.0", description="Test app", commands=[
    Command(name="area", description="Width times height", effects="read_only",
            options={"width": Option(type="integer", required=True, description="w"),
                     "height": Option(type="integer", default=1, description="h")},
            run=area),
])

if __name__ == "__main__":
    run(program)
'''


@pytest.fixture
def app(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(APP, encoding="utf-8")
    return file


def test_a_128_kib_unknown_flag_is_refused_as_usage(app, tmp_path):
    flag = "--" + "x" * (128 * 1024 - 3)   # the longest one argv token can be (with its NUL)
    done = subprocess.run([sys.executable, str(app), "area", flag, "--width", "2", "--json"],
                          env=full_env(caller_env(tmp_path / "state")), capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and done.stderr == ""
    assert doc["error"]["code"] == "unknown_option"
    assert doc["error"]["hint"] == "'area' takes: --height, --width"
    assert doc["error"]["fix"] == "app area --width 2 --json"


async def test_a_one_megabyte_tool_name_is_refused_and_the_server_answers_on(app, tmp_path):
    from mcp import Client
    name = "y" * (1024 * 1024)
    with http_server(app, caller_env(tmp_path / "state"), tmp_path) as (url, _process):
        async with Client(authed(url), mode="legacy", cache=None) as client:
            refused = await client.call_tool(name, {"width": 1})
            answered = await client.call_tool("area", {"width": 6, "height": 7})
    doc = json.loads(text_of(refused))
    assert refused.is_error and doc["error"]["code"] == "unknown_tool"
    assert doc["error"]["message"] == f"no tool named '{'y' * 60}… (1048576 characters)'"
    assert doc["error"]["hint"] == "tools: area"
    assert len(text_of(refused)) < 1000
    assert json.loads(text_of(answered))["data"] == {"area": 42}
