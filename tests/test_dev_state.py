"""The dev state: surfaces snapshot, token table with budgets and deltas, problems."""

import textwrap

import pytest

from workbench.dev import tokens
from workbench.dev.engine import Workbench

APP = textwrap.dedent('''
    from workbench import Command, Group, Option, Program

    def run(ctx):
        return {"ok": True}

    program = Program(name="app", version="1.0.0", description="A test program",
                      budgets=BUDGETS, commands=[
        Command(name="hello", description="Say hello", effects="read_only",
                options={"name": Option(type="string", description="who to greet")},
                examples=["app hello --name ada"], run=run),
        Group(name="pr", description="Pull requests", commands=[
            Command(name="merge", description="Merge a pull request", effects="non_idempotent",
                    options={"token": Option(type="string", sensitive=True, description="token"),
                             "number": Option(type="integer", description="")},
                    examples=["app pr merge --number 3 --token <token>"], run=run),
        ]),
    ])
''')


def make(tmp_path, budgets="None", extra=""):
    file = tmp_path / "app.py"
    file.write_text(APP.replace("BUDGETS", budgets) + extra, encoding="utf-8")
    return Workbench(str(file), load_timeout=None)


def test_every_surface_is_plain_data_with_a_stable_id(tmp_path):
    state = make(tmp_path).reload()
    ids = list(state.surfaces)
    for expected in ("help.txt", "help/hello.txt", "help/pr.txt", "help/pr-merge.txt",
                     "help-json/names.json", "help-json/summary.json", "help-json/card.json",
                     "cards/hello.json", "cards/pr-merge.json", "schema.json",
                     "schemas/pr-merge.json", "completion/bash.bash"):
        assert expected in ids
    card = state.surfaces["cards/pr-merge.json"]
    assert card.kind == "card" and card.command == ("pr", "merge")
    assert isinstance(card.data, dict) and card.text.startswith("{") and "\n" not in card.text
    assert state.surfaces["help.txt"].text.startswith(state.surfaces["help.txt"].text[:3])
    assert [s.id for s in state.surfaces_for("pr merge")] == [
        s.id for s in state.surfaces.values() if s.command == ("pr", "merge")]


def test_tokens_count_each_surface_against_its_budget(tmp_path):
    state = make(tmp_path).reload()
    row = state.tokens.get("help.txt")
    assert row.tokens == tokens.count(state.surfaces["help.txt"].text) > 0
    assert row.chars == len(state.surfaces["help.txt"].text)
    assert row.budget == tokens.DEFAULT_BUDGETS["help"] and row.delta is None
    assert row.percent == round(100 * row.tokens / row.budget, 1)
    schema = state.tokens.get("schema.json")
    assert schema.unit == "chars" and schema.budget == 8000


def test_budgets_from_pyproject_then_the_declaration(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.burgee.budgets]\nhelp = 7\ncard = 900\n", encoding="utf-8")
    state = make(tmp_path, budgets='{"card": 1000}').reload()
    assert state.tokens.get("help.txt").budget == 7            # pyproject
    assert state.tokens.get("cards/hello.json").budget == 1000  # Program(budgets=...) wins
    over = [p for p in state.problems if p.code == "budget_exceeded"]
    assert [p.surface for p in over] == ["help.txt"] and over[0].severity == "error"
    assert "budgets" in over[0].fix


def test_a_reload_reports_token_deltas_and_what_changed(tmp_path):
    bench = make(tmp_path)
    first = bench.reload()
    (tmp_path / "app.py").write_text(
        APP.replace("BUDGETS", "None").replace('"Say hello"', '"Say hello to someone by name"')
        .replace("    ]),\n])", '''    ]),
    Command(name="bye", description="Say bye", effects="read_only", run=run,
            examples=["app bye"]),
])'''), encoding="utf-8")
    second = bench.reload()
    assert second.ok, second.load_error
    assert second.changes.added == ("bye",) and second.changes.changed == ("hello",)
    read = second.tokens.read_by_agents - first.tokens.read_by_agents   # what the header shows
    assert second.changes.tokens_delta == read > 0
    assert second.tokens.get("cards/hello.json").delta > 0
    assert second.tokens.get("cards/bye.json").delta is None
    assert second.changes.summary().startswith("+1 command, 1 changed, +")


def test_counting_is_cached_by_content():
    tokens.clear_cache()
    text = "burgee " * 1000
    assert tokens.count(text) == tokens.count(text)
    assert len(tokens._cache) == 1


def test_problems_name_a_severity_and_a_fix(tmp_path):
    long = "x" * 130
    state = make(tmp_path, extra=f"\nprogram.commands[0].description = {long!r}\n").reload()
    by_code = {}
    for problem in state.problems:
        by_code.setdefault(problem.code, []).append(problem)
        assert problem.severity in ("error", "warning", "info") and problem.fix
    assert by_code["sensitive_in_example"][0].severity == "warning"
    assert by_code["sensitive_in_example"][0].command == "pr merge"
    assert by_code["option_description_missing"][0].message.endswith("--number has no description")
    assert by_code["description_long"][0].command == "hello"
    assert state.problems_for("pr merge")


@pytest.mark.slow
def test_chunked_counting_is_exact():
    """Counting large texts chunk by chunk (for the cache) gives the same total as one encode."""
    import json
    import random
    rng = random.Random(4)
    alphabet = ['a', 'Z', '7', ' ', '  ', '\t', '\n', '\n\n', '\r\n', '\x0b', '"', '},{', ']},{"',
                '{', '}', ',', ':', "'s", 'é', '日本', '—', '-', '_', '.', '123456', '\n    x']
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3000, 9000)))
             for _ in range(40)]
    items = [{"name": f"cmd_{i}", "description": f"does thing {i}", "n": i, "tags": ["a", "b"]}
             for i in range(400)]
    texts.append(json.dumps(items, separators=(",", ":")))
    texts.append("\n".join(f"complete -c tool -n '__fish_seen {i}' -a cmd{i}" for i in range(900)))
    encoding = tokens.encoding()
    for text in texts:
        pieces = tokens.chunks(text)
        assert "".join(pieces) == text
        assert sum(len(encoding.encode_ordinary(p)) for p in pieces) == \
            len(encoding.encode_ordinary(text))
    assert len(tokens.chunks(texts[-1])) > 50 and len(tokens.chunks(texts[-2])) > 50


def test_state_finds_a_surface_by_kind_and_command(tmp_path):
    state = make(tmp_path, extra="\nprint('hello from import')\n").reload()
    assert state.surface("help").id == "help.txt"
    assert state.surface("help", "pr merge").id == "help/pr-merge.txt"
    assert state.surface("card", "hello").id == "cards/hello.json"
    assert state.surface("command_schema", "pr merge").id == "schemas/pr-merge.json"
    assert state.surface("card", "nope") is None
    assert state.load_output == "hello from import\n"
