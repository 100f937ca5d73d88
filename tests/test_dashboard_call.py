"""The Call pane under Textual's pilot: a form from a schema with every type, run over the CLI
and over MCP (request, whole response, timing), saved as an example only after the diff was
shown and Write pressed, and added to a replay file."""

from __future__ import annotations

import json
import textwrap
from contextlib import asynccontextmanager

import pytest
from _dashboard_helpers import dashboard, until
from textual.widgets import Checkbox, Input, Select

from workbench.dev.calls import arguments_from, form_fields

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

KIT = textwrap.dedent('''
    from workbench import Argument, Command, Option, Program

    def make(ctx):
        return {"name": ctx.options.name, "count": ctx.options.count, "ratio": ctx.options.ratio,
                "loud": ctx.options.loud, "color": ctx.options.color, "tags": ctx.options.tags,
                "path": ctx.args.path}

    def drop(ctx):
        return {"dropped": ctx.options.name}

    program = Program(name="kit", version="1.0.0", description="Every type", commands=[
        Command(name="make", description="Make a thing", effects="read_only",
                options={"name": Option(type="string", required=True, description="what"),
                         "count": Option(type="integer", default=2, description="how many"),
                         "ratio": Option(type="number", description="a ratio"),
                         "loud": Option(type="boolean", description="shout"),
                         "color": Option(type="enum", choices=("red", "green"), default="red",
                                         description="colour"),
                         "tags": Option(type="list", items="integer", description="tags")},
                arguments=[Argument("path", required=False, description="where")],
                examples=["kit make --name a"], run=make),
        Command(name="drop", description="Drop a thing", effects="non_idempotent",
                options={"name": Option(type="string", required=True, description="what")},
                examples=["kit drop --name a"], run=drop),
    ])
''')


async def open_call(app, pilot, command):
    app.select_command(command)
    await pilot.press("k")
    await pilot.pause()
    assert app.active_tab == "call"
    return app.pane("call")


@asynccontextmanager
async def kit_call(tmp_path, command, **values):
    """The dashboard on the kit program, its Call pane open on `command`, fields filled."""
    file = tmp_path / "kit.py"
    file.write_text(KIT, encoding="utf-8")
    async with dashboard(file) as (app, pilot):
        pane = await open_call(app, pilot, command)
        for key, value in values.items():
            pane.set_value(key, value)
        await pilot.pause()
        yield file, app, pilot, pane


async def run(pilot, pane, via):
    worker = pane.run(via)
    assert worker is not None, pane.status
    await worker.wait()
    await pilot.pause()


async def test_the_form_has_a_field_per_type_with_required_marks_and_defaults(tmp_path):
    file = tmp_path / "kit.py"
    file.write_text(KIT, encoding="utf-8")
    async with dashboard(file) as (app, pilot):
        pane = await open_call(app, pilot, "make")
        kinds = {f.key: (f.kind, f.label, f.default) for f in pane.fields}
        assert kinds == {"name": ("string", "--name *", None),
                         "count": ("integer", "--count", 2), "ratio": ("number", "--ratio", None),
                         "loud": ("boolean", "--loud", False),
                         "color": ("enum", "--color", "red"), "tags": ("array", "--tags", None),
                         "path": ("string", "<path>", None)}
        assert isinstance(pane.query_one("#call-field-loud"), Checkbox)
        color = pane.query_one("#call-field-color")
        assert isinstance(color, Select) and color.value == "red"
        assert pane.query_one("#call-field-count", Input).value == "2"
        assert pane.query_one("#call-field-count", Input).type == "integer"
        assert "field --color enum default 'red' choices red, green" in pane.text

        assert pane.run("mcp") is None                   # a required field left empty
        assert "cannot run: --name is required" in pane.text

        pane.set_value("name", "bolt")
        pane.set_value("ratio", "0.5")
        pane.set_value("loud", True)
        pane.set_value("color", "green")
        pane.set_value("tags", "1, 2")
        pane.set_value("path", "here")
        await pilot.pause()
        arguments = {"name": "bolt", "ratio": 0.5, "loud": True, "color": "green",
                     "tags": [1, 2], "path": "here"}
        await run(pilot, pane, "mcp")
        assert pane.last["arguments"] == arguments
        assert pane.last["request"].startswith('tools/call {"name": "make", "arguments": ')
        data = json.loads(pane.last["text"])["data"]
        assert data == {"name": "bolt", "count": 2, "ratio": 0.5, "loud": True, "color": "green",
                        "tags": [1, 2], "path": "here"}
        assert "MCP: exit 0 \u00b7 timing hidden" in pane.text and '"tags"' in pane.text

        await run(pilot, pane, "cli")
        assert pane.last["request"] == ("$ kit make --name bolt --ratio 0.5 --loud "
                                        "--color green --tags 1 --tags 2 here --json")
        assert json.loads(pane.last["text"])["data"] == data and pane.last["exit"] == 0
        assert "CLI: exit 0" in pane.text


def test_values_are_checked_as_typed():
    from workbench.loader import exec_file
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "kit.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(KIT)
        command = exec_file(path).program.find(["make"])
    fields = form_fields(command)
    for values, error in (({"name": "a", "count": "two"}, "--count: 'two' is not an integer"),
                          ({"name": "a", "ratio": "x"}, "--ratio: 'x' is not a number"),
                          ({"name": "a", "tags": "1, b"}, "--tags: 'b' is not an integer")):
        try:
            arguments_from(fields, values)
        except ValueError as exc:
            assert str(exc) == error
        else:
            raise AssertionError(values)


async def test_a_write_runs_on_the_second_press_only(tmp_path):
    async with kit_call(tmp_path, "drop", name="bolt") as (_file, _app, pilot, pane):
        assert pane.run("mcp") is None and "non_idempotent: press Run MCP again" in pane.text
        await run(pilot, pane, "mcp")
        assert json.loads(pane.last["text"])["data"] == {"dropped": "bolt"}


async def test_a_result_becomes_an_example_after_the_diff_and_a_replay_line(tmp_path):
    async with kit_call(tmp_path, "make", name="nut", color="green") as (file, app, pilot, pane):
        await run(pilot, pane, "mcp")

        path = pane.add_to_replay()
        [line] = [json.loads(text) for text in open(path, encoding="utf-8")]
        assert path.endswith("/.burgee/traffic/kit-calls.jsonl")
        assert line["tool"] == "make" and line["arguments"] == {"name": "nut", "color": "green"}
        assert json.loads(line["result"])["data"]["name"] == "nut"

        diff = pane.save_example()
        [added] = [line for line in diff.splitlines()
                   if line.startswith("+") and not line.startswith("+++")]
        assert added[1:].strip() == ('examples=["kit make --name a", "kit make --name nut '
                                     '--color green"], run=make),')
        assert "proposed edit" in pane.text and "not written yet" in pane.text
        assert "kit make --name nut" not in file.read_text()       # shown, not written
        generation = app.state.generation
        assert pane.write_example()
        assert 'examples=["kit make --name a", "kit make --name nut --color green"]' \
            in file.read_text()
        await until(pilot, lambda: app.state.generation > generation, what="the reload")
        assert "kit make --name nut --color green" in app.state.program.find(["make"]).examples


def test_an_example_goes_into_a_new_examples_list_when_there_is_none(tmp_path):
    from workbench import Command, Program
    from workbench.dev.calls import add_example
    source = ('program = Program(name="kit", commands=[\n'
              '    Command(name="ping", description="Ping", effects="read_only",\n'
              '            run=ping),\n'
              '])\n')
    command = Program(name="kit", commands=[Command(
        name="ping", description="Ping", effects="read_only", run=lambda ctx: {})]).find(["ping"])
    new, diff = add_example(source, command, "kit ping")
    assert '            run=ping, examples=["kit ping"]),\n' in new and "+            run" in diff


async def test_k_puts_the_keys_in_the_form_and_run_mcp_shows_in_traffic(tmp_path):
    """`k` focuses the first field, so typing fills the form instead of filtering the tree;
    a Run MCP is a call a person made over MCP: Traffic lists it (masked as any client's)."""
    from workbench.dev.dashboard.panes.call import CALL_PANE_CLIENT
    file = tmp_path / "kit.py"
    file.write_text(KIT, encoding="utf-8")
    async with dashboard(file) as (app, pilot):
        pane = await open_call(app, pilot, "make")
        await until(pilot, lambda: app.focused is pane.query_one("#call-field-name"),
                    what="the first field focused")
        await pilot.press("b", "o", "l", "t")
        assert pane.query_one("#call-field-name", Input).value == "bolt"
        assert app.query_one("#filter", Input).value == ""   # the tree's filter untouched
        await run(pilot, pane, "mcp")
        await until(pilot, lambda: any(entry.client == CALL_PANE_CLIENT
                                       for entry in app.bench.traffic), what="a traffic row")
        [entry] = [e for e in app.bench.traffic if e.client == CALL_PANE_CLIENT]
        assert entry.method == "tools/call" and entry.tool == "make"
        assert entry.arguments["name"] == "bolt" and '"ok":true' in entry.result
