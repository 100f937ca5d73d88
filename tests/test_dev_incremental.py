"""Incremental reloads (issue 18, item 5): a save re-renders only what the edit changed.

The key test: after each edit of a sequence, the State built from the previous one (reusing
its memo) is exactly the State built from nothing: every surface (ids, order, text, data),
token row, problem, change, review and the cost model. A second test breaks the dependency
key on purpose and checks that the comparison catches the stale surface; a third counts the
surface functions that ran after a one-description edit.
"""

import dataclasses
import textwrap

import pytest

from workbench.dev import snapshot
from workbench.dev.engine import Workbench
from workbench.surfaces import _keys

SHOP = textwrap.dedent('''
    from workbench import Argument, Command, Group, Option, Program

    def run(ctx):
        return {"ok": True}

    def plan(ctx):
        return {"would": "restock"}

    STOCK = {"type": "object", "properties": {"sku": {"type": "string"}}}

    program = Program(name="shop", version="1.0.0", description="Runs a small shop", commands=[
        Group(name="items", description="Items on the shelves", commands=[
            Command(name="list", description="List the items", effects="read_only",
                    paginated=True, run=run,
                    options={"kind": Option(type="enum", choices=["food", "tool"],
                                            description="only this kind"),
                             "store": Option(description="stock file", env="SHOP_FILE")},
                    examples=["shop items list --kind food"]),
            Command(name="add", description="Add an item", effects="non_idempotent", run=run,
                    arguments=[Argument("name", description="the item's name")],
                    options={"price": Option(type="number", default=1, description="price")},
                    examples=["shop items add apple --price 2"]),
            Command(name="restock", description="Restock an item", effects="idempotent",
                    run=run, plan=plan, output=STOCK,
                    options={"sku": Option(required=True, description="which item")},
                    examples=["shop items restock --sku a1"]),
            Command(name="peek", description="Peek at the till", effects="read_only",
                    run=run, hidden=False),
            Command(name="purge", description="Purge every item", effects="non_idempotent",
                    run=run, examples=["shop items purge"]),
        ]),
        Group(name="admin", description="Administration", commands=[
            Group(name="users", description="Shop users", commands=[
                Command(name="remove", description="Remove a user", effects="non_idempotent",
                        run=run, options={"token": Option(sensitive=True, env="SHOP_TOKEN",
                                                          description="admin token")},
                        examples=["shop admin users remove"]),
            ]),
        ]),
        Command(name="status", description="Show the shop's status", effects="read_only",
                run=run, examples=["shop status"]),
    ])
''')

EDITS = [
    ("a description", '"List the items"', '"List the items on the shelves"'),
    ("an option's choices", 'choices=["food", "tool"]', 'choices=["food", "tool", "toy"]'),
    ("an option's default, 1 to 1.0", "default=1,", "default=1.0,"),
    ("an option's type", 'Option(description="stock file"',
     'Option(type="integer", description="stock file"'),
    ("an option's env", 'env="SHOP_FILE"', 'env="SHOP_STOCK"'),
    ("an argument's name", 'Argument("name", description="the item\'s name")',
     'Argument("title", description="the item\'s name")'),
    ("deprecated", 'description="Peek at the till",', 'description="Peek at the till", '
     'deprecated="use status",'),
    ("an example", '"shop items add apple --price 2"', '"shop items add pear --price 3"'),
    ("a new command", '        Command(name="purge"',
     '        Command(name="count", description="Count the items", effects="read_only",\n'
     '                run=run, examples=["shop items count"]),\n        Command(name="purge"'),
    ("a removed command", '    Command(name="status", description="Show the shop\'s status", '
     'effects="read_only",\n            run=run, examples=["shop status"]),\n', ""),
    ("a renamed group", 'name="admin"', 'name="staff"', '"shop admin', '"shop staff'),
    ("a group's alias", 'description="Shop users",', 'description="Shop users", aliases=["u"],'),
    ("the program's version", 'version="1.0.0"', 'version="1.1.0"'),
    ("the program's description", '"Runs a small shop"', '"Runs a shop"'),
    ("the program's name", 'name="shop"', 'name="store"', '"shop ', '"store '),
    ("a framework option (page size)", "paginated=True", "paginated=25"),
    ("an output schema", '{"sku": {"type": "string"}}', '{"sku": {"type": "integer"}}'),
    ("hidden", "hidden=False", "hidden=True"),
    ("an edit that changes nothing shown", "return {\"ok\": True}", "return {\"ok\": 1}"),
    ("withheld effects", 'description="Purge every item", effects="non_idempotent"',
     'description="Purge every item", effects="withheld"'),
    ("a sensitive option made plain", "sensitive=True, ", ""),
    ("a required option", 'Option(required=True, description="which item")',
     'Option(description="which item")'),
]


def _rows_without_delta(table):
    return [dataclasses.replace(row, delta=None) for row in table]


def differences(state, reference, scratch) -> list:
    """What of `state` (incremental) differs from `reference` (built from the same previous
    State without its memo) and `scratch` (built from nothing); [] when all is equal."""
    found = []
    if list(state.surfaces) != list(scratch.surfaces):
        found.append("surface ids or order")
    found += [sid for sid in scratch.surfaces
              if state.surfaces.get(sid) != scratch.surfaces[sid]]
    for name in ("tokens", "changes", "review", "review_snapshot", "cost", "cost_before"):
        if getattr(state, name) != getattr(reference, name):
            found.append(name)
    if _rows_without_delta(state.tokens) != _rows_without_delta(scratch.tokens):
        found.append("token counts")
    for name in ("problems", "cost", "budgets"):
        if getattr(state, name) != getattr(scratch, name):
            found.append(name)
    return found


def edit_and_compare(tmp_path, edits):
    """Apply `edits` (label, old, new[, old, new...]: each `old` replaced everywhere) one by
    one; yield (label, incremental state, reference state, differences) for each."""
    file = tmp_path / "shop.py"
    source = SHOP
    file.write_text(source, encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    state = bench.reload()
    reference_bench = Workbench(str(file), load_timeout=None)
    reference = reference_bench.build_state(state.program)
    assert not differences(state, reference, reference)
    for label, *pairs in edits:
        for old, new in zip(pairs[::2], pairs[1::2]):   # every occurrence of each pair
            assert old in source, label
            source = source.replace(old, new)
        file.write_text(source, encoding="utf-8")
        before = state
        state = bench.reload()
        assert state.load_error is None, (label, state.load_error)
        if label != "an edit that changes nothing shown":
            assert state.surfaces != before.surfaces, f"{label}: the edit shows nowhere"
        reference = reference_bench.build_state(state.program,
                                                dataclasses.replace(reference, memo=None))
        scratch = Workbench(str(file), load_timeout=None).build_state(state.program)
        yield label, state, reference, differences(state, reference, scratch)


@pytest.mark.slow
def test_each_incremental_state_equals_one_built_from_nothing(tmp_path):
    for label, state, reference, found in edit_and_compare(tmp_path, EDITS):
        assert found == [], f"after {label}: {found}"
        made, total = sum(state.memo.made.values()), sum(reference.memo.made.values())
        if label != "the program's name":   # every usage line shows it: all made again
            assert made < total, f"after {label}: nothing was reused ({made} of {total})"


def test_a_key_missing_a_field_shows_a_stale_surface_and_the_comparison_catches_it(
        tmp_path, monkeypatch):
    without_default = tuple(name for name in _keys.OPTION if name != "default")
    monkeypatch.setattr(_keys, "_option", _keys._reader(without_default))
    edit = [step for step in EDITS if step[0] == "an option's default, 1 to 1.0"]
    assert edit
    [(label, state, reference, found)] = list(edit_and_compare(tmp_path, edit))
    assert "help/items-add.txt" in found and "cards/items-add.json" in found
    assert "default: 1\n" in state.surfaces["help/items-add.txt"].text.replace(")", "\n")


def test_every_declaration_field_is_keyed_or_said_not_shown():
    from workbench import Argument, Command, Group, Option, Program
    option, argument = Option(description="x"), Argument("a")
    command = Command("c", "d", effects="read_only", options={"o": option},
                      arguments=[argument], run=print)
    group = Group("g", "h", commands=[command])
    Program("p", commands=[group])
    accounted = set(_keys.PRESENT) | set(_keys.NOT_SHOWN)

    def public(item):
        names = set(getattr(item, "__dict__", {}))
        for cls in type(item).__mro__:
            names.update(getattr(cls, "__slots__", ()))
        return {name.lstrip("_") for name in names} - {"extras_attached", "children", "spelled"}

    for item, fields in ((command, _keys.COMMAND), (option, _keys.OPTION),
                         (argument, _keys.ARGUMENT), (group, _keys.GROUP)):
        missing = public(item) - set(fields) - accounted - {"commands"}
        assert not missing, f"{type(item).__name__} fields in no key: {sorted(missing)}"


def test_keys_tell_apart_values_that_compare_equal_but_print_differently():
    frozen = _keys.frozen
    assert frozen(1) != frozen(True) and frozen(1) != frozen(1.0)
    assert frozen(0.0) != frozen(-0.0) and frozen([1]) != frozen((1,))
    assert frozen({"a": 1, "b": 2}) != frozen({"b": 2, "a": 1})
    assert frozen(["x", "y"]) == frozen(["x", "y"])
    strange = object()
    assert frozen(strange) != frozen(strange)   # not comparable by content: never reused

    class Broken:       # a node whose fields cannot be read: its key equals nothing
        is_group = False

        def __getattr__(self, name):
            raise RuntimeError(name)

    class Bare:         # a node without the fields: likewise
        is_group = False
        options, arguments = {}, []

    for node in (Broken(), Bare()):
        assert _keys.node_key(node, ()) != _keys.node_key(node, ())


def _generated(groups: int, per_group: int) -> str:
    lines = ["from workbench import Command, Group, Option, Program\n\n",
             "def run(ctx):\n    return {}\n\n",
             "program = Program('gen', '1.0.0', 'a generated program', commands=[\n"]
    for g in range(groups):
        lines.append(f"    Group('g{g}', 'group {g}', commands=[\n")
        for c in range(per_group):
            lines.append(f"        Command('c{c}', 'command {c} of group {g}', "
                         f"effects='read_only', run=run, options={{'alpha': Option("
                         f"description='the alpha value'), 'beta': Option(type='integer', "
                         f"default=1, description='how many')}}, "
                         f"examples=['gen g{g} c{c} --alpha a']),\n")
        lines.append("    ]),\n")
    lines.append("])\n")
    return "".join(lines)


@pytest.mark.slow
def test_a_one_description_edit_reruns_the_surface_functions_of_that_command_only(
        tmp_path, monkeypatch):
    from workbench.dev import problems
    from workbench.surfaces import cards, completion, tools
    from workbench.surfaces import help as help_surface
    calls: dict = {}

    def counted(module, name, node_of):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            node = node_of(*args)
            calls.setdefault(name, []).append(tuple(node.path) if node is not None else None)
            return original(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    counted(help_surface, "render_help", lambda program, node=None: node)
    counted(cards, "card", lambda command: command)
    counted(cards, "summary", lambda command: command)
    counted(tools, "tool_definition", lambda command: command)
    counted(completion, "_context", lambda program, node, path: node)
    counted(problems, "_command_problems", lambda program, command: command)

    file = tmp_path / "gen.py"
    source = _generated(10, 20)
    file.write_text(source, encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    bench.reload()
    assert len(calls["card"]) == len(calls["tool_definition"]) == 200
    assert len(calls["_command_problems"]) == 200
    calls.clear()

    file.write_text(source.replace("'command 0 of group 0'", "'edited'", 1), encoding="utf-8")
    state = bench.reload()
    edited = ("g0", "c0")
    assert state.surfaces["cards/g0-c0.json"].data["description"] == "edited"
    assert calls == {"render_help": [None, ("g0",), edited], "card": [edited],
                     "summary": [edited], "tool_definition": [edited],
                     "_context": [(), ("g0",), edited], "_command_problems": [edited]}
    assert state.memo.made["schema"] == state.memo.made["card"] == state.memo.made["search"] == 1


def test_the_memo_keeps_one_generation(tmp_path):
    file = tmp_path / "gen.py"
    source = _generated(3, 5)
    file.write_text(source, encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    first = len(bench.reload().memo)
    for n in range(4):
        file.write_text(source.replace("'command 0 of group 0'", f"'edit {n}'", 1),
                        encoding="utf-8")
        assert len(bench.reload().memo) == first   # stale pieces are dropped, not piled up


@pytest.mark.parametrize("broken", ["card", "summary"])
def test_a_surface_that_raises_fails_the_same_way_on_the_next_reload(
        tmp_path, monkeypatch, broken):
    from workbench.surfaces import cards
    file = tmp_path / "gen.py"
    file.write_text(_generated(1, 3), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=None)
    original = getattr(cards, broken)

    def fails(command):
        if command.path == ("g0", "c1"):
            raise RuntimeError("broken on purpose")
        return original(command)
    monkeypatch.setattr(cards, broken, fails)
    first, second = bench.reload(), bench.reload()
    for state in (first, second):
        failed = sorted(sid for sid, surface in state.surfaces.items() if surface.error)
        expected = ["help-json/card.json"] if broken == "card" else ["help-json/summary.json"]
        if broken == "card":
            expected.insert(0, "cards/g0-c1.json")
        assert failed == expected
    assert snapshot.render(second.program) == second.surfaces
