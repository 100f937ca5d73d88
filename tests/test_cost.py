"""The session cost model: the formula's exact counts, parts measured from the real surfaces,
break-even points, and session budgets in headless (failing, then passing)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import SAMPLES
from workbench.dev import cost, snapshot, tokens
from workbench.dev.cost import PathParts, Shape

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

APP = textwrap.dedent('''
    from workbench import Command, Option, Program

    def show(ctx):
        return {"name": ctx.options.name}

    program = Program(name="fixed", version="1.0.0", description="A fixed program",
                      BUDGETS commands=[
        Command(name="show", description="Show an item", effects="read_only",
                options={"name": Option(type="string", required=True, description="which item")},
                examples=["fixed show --name a"], run=show),
        Command(name="drop", description="Drop an item", effects="idempotent",
                options={"name": Option(type="string", required=True, description="which item")},
                examples=["fixed drop --name a"], run=show),
    ])
''')


def write_app(folder, budgets=""):
    path = folder / "app.py"
    path.write_text(APP.replace("BUDGETS", budgets), encoding="utf-8")
    return path


def test_a_session_costs_what_enters_it_times_the_turns_it_stays():
    parts = PathParts(fixed=200, first_use=150.0, per_call=20.0)
    # 10 calls over 20 turns land on turns 1, 3, ..., 19 and stay 20, 18, ..., 2 turns (110);
    # the 3 new commands are the first three calls (20 + 18 + 16 = 54).
    assert cost.session_tokens(parts, Shape(20, 10, 3)) == 200 * 20 + 150 * 54 + 20 * 110
    assert cost.session_tokens(parts, Shape(1, 1, 1)) == 200 + 150 + 20
    assert cost.session_tokens(parts, Shape(5, 0, 0)) == 1000


def test_a_shape_that_cannot_be_is_refused():
    with pytest.raises(ValueError, match="distinct <= calls"):
        Shape(10, 2, 3)


def test_the_model_measures_each_path_from_the_real_surfaces(tmp_path):
    from workbench.loader import load_program
    program = load_program(str(write_app(tmp_path)))
    surfaces = snapshot.render(program)
    found = cost.model(program, surfaces)
    count = tokens.count
    cards = [count(surfaces[f"cards/{name}.json"].text) for name in ("show", "drop")]
    envelope = '{"ok":true,"data":null}'
    assert found.paths["mcp"].fixed == count(surfaces["mcp/tools-list.json"].text)
    assert found.paths["mcp"].per_call == sum(
        count(json.dumps({"name": name, "arguments": {"name": "a"}}, separators=(",", ":"))
              + "\n" + envelope) for name in ("show", "drop")) / 2
    assert found.paths["cli"].fixed == count(surfaces["help.txt"].text)
    assert found.paths["cli"].first_use == sum(cards) / 2
    assert found.paths["cli"].per_call == sum(
        count(f"fixed {name} --name a --json\n{envelope}\n") for name in ("show", "drop")) / 2
    assert found.paths["skills"].fixed == count(surfaces["skills/fixed/SKILL.md"].text)
    assert found.paths["search"].fixed == 0
    typical = Shape(20, 10, 3)    # the program has 2 commands: 2 distinct are used
    mcp = found.paths["mcp"]
    assert found.session("mcp", typical) == round(mcp.fixed * 20 + mcp.per_call * 110)
    cli = found.paths["cli"]
    assert found.session("cli", typical) == round(cli.fixed * 20 + cli.first_use * 38
                                                  + cli.per_call * 110)


def test_real_envelopes_replace_the_smallest_one(tmp_path):
    from workbench.loader import load_program
    program = load_program(str(write_app(tmp_path)))
    surfaces = snapshot.render(program)
    long = '{"ok":true,"data":{"name":"' + "a" * 400 + '"}}'
    bare = cost.model(program, surfaces)
    real = cost.model(program, surfaces, envelopes={"show": long, "drop": long})
    assert real.envelopes_run == 2 and bare.envelopes_run == 0
    grown = real.paths["cli"].per_call - bare.paths["cli"].per_call
    assert grown == pytest.approx(real.paths["mcp"].per_call - bare.paths["mcp"].per_call)
    assert grown > 40


def test_break_even_counts_the_commands_where_mcp_catches_up():
    found = cost.CostModel("p", "cl100k", 50, {
        "mcp": PathParts(1000, 0.0, 10.0),
        "cli": PathParts(100, 300.0, 10.0),
    })
    shape = Shape(10, 10, 1)
    # cli = 100*10 + 300 * (stays of the first d calls: 10, 9, 8, ...); mcp = 1000*10
    assert found.break_even("cli", "mcp", shape) == 4     # 10+9+8+7 = 34 -> 11200 > 10000
    assert found.session("cli", Shape(10, 10, 3)) < found.session("mcp", Shape(10, 10, 3))
    assert found.cheapest(Shape(10, 10, 1)) == ("cli", 1000 + 3000 + 550)


def test_o200k_counts_offline_and_differs_from_cl100k(tmp_path):
    from workbench.loader import load_program
    program = load_program(str(write_app(tmp_path)))
    surfaces = snapshot.render(program)
    cl = cost.model(program, surfaces)
    o2 = cost.model(program, surfaces, encoding="o200k")
    assert o2.encoding == "o200k"
    assert tokens.count_many_o200k(["hello world"]) == [2]
    assert o2.paths["mcp"].fixed != cl.paths["mcp"].fixed


def test_deltas_say_which_session_an_edit_made_dearer():
    before = cost.CostModel("p", "cl100k", 5, {"mcp": PathParts(100, 0.0, 5.0)})
    after = cost.CostModel("p", "cl100k", 5, {"mcp": PathParts(195, 0.0, 5.0)})
    changes = cost.deltas(before, after, {"typical": Shape(20, 10, 3)})
    assert changes == {"typical": {"mcp": 1900}}
    assert cost.sentences(changes, {"typical": Shape(20, 10, 3)}) == [
        "this edit made an MCP tools session of 20 turns 1,900 tokens dearer"]


def test_a_session_budget_key_that_names_nothing_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="session.<path>.<shape>"):
        cost.session_budgets({"session.ftp": 10})
    assert cost.session_budgets({"session.mcp": 5, "session.cli.long": 9, "card": 3}) == {
        ("mcp", "typical"): 5, ("cli", "long"): 9}


def _headless(file):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "dev", str(file), "--headless", "--no-check", "--json",
                           "--update"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=os.path.dirname(file))
    return done.returncode, json.loads(done.stdout.splitlines()[-1])


def test_headless_fails_a_session_over_budget_then_passes_under_it(tmp_path):
    file = write_app(tmp_path, 'budgets={"session.mcp": 100},')
    code, doc = _headless(file)
    assert code == 1 and doc["error"]["code"] == "session_over_budget", doc
    over = doc["data"]["over_session_budget"]
    assert [o["budget"] for o in over] == ["session.mcp.typical"]
    assert "an MCP tools session of 20 turns, 10 calls, 3 commands costs" in doc["error"]["message"]
    assert doc["error"]["hint"].startswith("make what that path reads smaller")
    spent = over[0]["tokens"]
    write_app(tmp_path, f'budgets={{"session.mcp": {spent}}},')
    code, doc = _headless(file)
    assert code == 0, doc
    assert doc["data"]["sessions"]["sessions"]["typical"]["mcp"] == spent
    assert doc["data"]["over_session_budget"] == []


def test_a_reload_that_changed_nothing_moves_no_cost_even_after_examples_ran(tmp_path):
    """The session cost counts real envelopes once examples ran; a reload with no change is
    measured with the same envelopes as the state before it, so no delta is blamed on it."""
    from workbench.dev.engine import Workbench
    file = tmp_path / "notes.py"
    file.write_text((SAMPLES / "notes.py").read_text(encoding="utf-8"), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    first = bench.reload()
    bench.run_diffs()
    ran = bench.state
    assert ran.cost.envelopes_run > first.cost.envelopes_run   # real envelopes now
    again = bench.reload()
    assert again.cost.table() == ran.cost.table()
    assert again.cost_before.table() == again.cost.table()
    moved = cost.deltas(again.cost_before, again.cost)
    assert moved and all(delta == 0 for row in moved.values() for delta in row.values())
