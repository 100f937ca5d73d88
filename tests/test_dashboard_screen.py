"""Issue 12's screen items under Textual's pilot: the layout at 80x24 and 160x48, Ctrl-C,
the palette, the filter's best match, plurals and the header's token total."""

from __future__ import annotations

import json
import re

import pytest

from _mcp_helpers import authed
from _dashboard_helpers import SAMPLES, dashboard, until

from workbench.dev import cost
from workbench.dev.dashboard.panes import PANES

SIZES = [(80, 24), (160, 48)]


def screen_lines(app) -> list[str]:
    """The screen as plain lines (what a terminal of that size shows)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
@pytest.mark.slow
async def test_the_url_and_every_tab_are_on_screen(size):
    width, height = size
    async with dashboard(SAMPLES / "deploy.py", size=size) as (app, pilot):
        lines = screen_lines(app)
        assert len(lines) == height
        assert lines[1].lstrip().startswith("MCP http://127.0.0.1:<port>/mcp"), lines[:3]
        assert lines[0].lstrip().startswith("burgee dev tool"), lines[:3]
        tabs = app.query_one("#tabs")
        for number, (pane_id, _title, _cls) in enumerate(PANES, 1):
            tab = tabs.get_tab(pane_id)
            assert tab.region.right <= width and tab.region.width > 0, (pane_id, tab.region)
            assert str(tab.label) in lines[2], (pane_id, lines[2])
            await pilot.press("k" if number == 11 else str(number % 10))   # 1-9, 0, k
            assert app.active_tab == pane_id
        assert ("Envs" in lines[2]) == (width < app.NARROW)


@pytest.mark.slow
async def test_ctrl_c_quits():
    async with dashboard(SAMPLES / "deploy.py") as (app, pilot):
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, what="quit")
    assert app.return_code == 0


async def test_the_palette_lists_keys_once():
    async with dashboard(SAMPLES / "deploy.py") as (app, pilot):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert titles.count("Keys") == 1 and titles.count("Quit") == 1


@pytest.mark.slow
async def test_a_filter_selects_the_command_its_word_starts_before_a_group():
    async with dashboard(SAMPLES / "notes.py") as (app, pilot):
        await pilot.press("slash", *"sta")
        await until(pilot, lambda: app.selected == ("sync", "status"),
                    what=f"sync status selected (now {app.selected})")


def test_plural_says_one_thing_and_many_things():
    from workbench._text import plural
    assert [plural(n, "example") for n in (0, 1, 2)] == ["0 examples", "1 example",
                                                         "2 examples"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == \
        "3 entries"


@pytest.mark.slow
async def test_the_header_counts_the_tokens_agents_read():
    async with dashboard(SAMPLES / "deploy.py") as (app, pilot):
        tokens = app.state.tokens
        kinds = {row.kind for row in tokens}
        assert {"completion", "config"} <= kinds
        read = sum(row.tokens for row in tokens if row.kind not in ("completion", "config"))
        assert tokens.read_by_agents == read
        assert tokens.read_by_agents + tokens.not_read_by_agents == tokens.total
        assert f"{read} tokens read by agents" in app.header.text
        cheapest = cost.cheapest_path(app.state)
        assert f"4 commands, a session {cheapest['tokens']} tokens via {cheapest['title']}, " \
            in app.header.text
        assert cheapest["tokens"] == min(app.state.cost.table()["typical"].values())
        assert f"(+{tokens.not_read_by_agents} in completions/configs)" in app.header.text
        app.show_tab("diff")
        assert "1 examples" not in app.pane("diff").text


ECHO = '''from workbench import Command, Option, Program


def echo(ctx):
    return {"said": ctx.options["token"], "words": ctx.options["words"]}


program = Program(name="echo", version="1.0.0", description="Echo", commands=[
    Command(name="say", description="Say it back", effects="read_only", run=echo,
            options={"token": Option(type="string", sensitive=True, description="a secret"),
                     "words": Option(type="string", description="what to say")},
            examples=["echo say --token <token> --words hi"]),
])
'''
SECRET = "s3cr3t-value-xyz"


@pytest.mark.slow
async def test_traffic_names_clients_orders_rows_and_opens_a_whole_masked_request(tmp_path):
    import mcp_types
    from mcp import Client

    from workbench.dev.dashboard.panes.traffic import TrafficDetail
    file = tmp_path / "echo.py"
    file.write_text(ECHO)
    long_words = "word " * 60
    async with dashboard(file, serve=True, size=(160, 48)) as (app, pilot):
        info = mcp_types.Implementation(name="test-agent", version="1")
        async with Client(authed(app.bench.url, app.bench.token), cache=None, mode="legacy",
                          client_info=info) as client:
            await client.call_tool("say", {"token": SECRET, "words": long_words})
        await until(pilot, lambda: any(e.tool == "say" for e in app.bench.traffic),
                    what="the call in the traffic record")
        entries = list(app.bench.traffic)
        assert {e.client for e in entries} == {"test-agent"}, entries
        assert any(e.method == "initialize" for e in entries)
        [listed] = [e for e in entries if e.method == "tools/list"]   # what was sent, named
        assert json.loads(listed.result) == {"tools": ["say"]}
        app.show_tab("traffic")
        pane = app.pane("traffic")
        shown = pane.entries
        assert [e.at for e in shown] == sorted(e.at for e in shown)
        assert "unknown" not in pane.text and SECRET not in pane.text
        assert "test-agent initialize" in pane.text and "quiet" in pane.text
        row = next(i for i, e in enumerate(shown) if e.tool == "say")
        table = app.query_one("#traffic-table")
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TrafficDetail), what="the detail")
        text = app.screen.text
        assert long_words.strip() in text and '"name": "say"' in text
        assert SECRET not in text and "said" in text and "test-agent" in text
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TrafficDetail), what="closed")


def test_housekeeping_that_ends_is_quiet_not_an_error():
    from workbench.dev.dashboard.panes.traffic import outcome
    from workbench.dev.records import TrafficEntry
    listen = TrafficEntry(at=1.0, client="c", session="s", method="subscriptions/listen",
                          tool=None, arguments=None, result=None, is_error=True, seconds=1.0,
                          error="Cancelled by cancel scope 7f00")
    call = TrafficEntry(at=2.0, client="c", session="s", method="tools/call", tool="t",
                        arguments={}, result=None, is_error=True, seconds=1.0, error="boom")
    assert listen.housekeeping and outcome(listen) == "ended"
    assert not call.housekeeping and outcome(call) == "boom"


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["notes.py", "deploy.py"])
async def test_the_environments_hint_at_the_root_is_the_programs_own_example(sample):
    async with dashboard(SAMPLES / sample) as (app, pilot):
        app.show_tab("environments")
        hint = app.query_one("#env-input").placeholder
        first = next(c for c in app.state.commands() if c.examples).examples[0]
        assert hint.startswith(first.split(" ", 1)[1]), (hint, first)
        if sample == "notes.py":
            assert "deploy" not in hint


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
@pytest.mark.slow
async def test_names_and_numbers_are_never_cut_and_the_keys_screen_fits(size):
    """At 80x24 and 160x48: the Problems tab keeps its name; every surface name and figure in
    Tokens and every figure in Cost is whole (no `6,3…` that reads like 6.3); the `?` screen
    keeps its right edge."""
    width, _height = size
    async with dashboard(SAMPLES / "notes.py", size=size) as (app, pilot):
        await until(pilot, lambda: app.bench.state.program is not None, what="a load")
        assert "Problems" in screen_lines(app)[2] and "Probs" not in screen_lines(app)[2]
        if width >= 160:   # the header's two lines fit whole
            assert not any("\u2026" in line for line in screen_lines(app)[:2]), \
                screen_lines(app)[:2]
        await pilot.press("5")
        await until(pilot, lambda: any("help-json/summary.json" in line
                                       for line in screen_lines(app)), what="Tokens")
        body = [line for line in screen_lines(app)[4:-1]]
        for row in app.bench.state.tokens:
            if row.command is None and any(row.surface in line for line in body):
                line = next(line for line in body if row.surface in line)
                assert f" {row.tokens} " in line and str(row.chars) in line, line
        assert not any("\u2026" in line.split("\u2595", 1)[-1] for line in body), body
        await pilot.press("0")
        await until(pilot, lambda: any("typical session" in line for line in screen_lines(app)),
                    what="Cost")
        table = app.bench.state.cost.table()
        shown = "\n".join(screen_lines(app))
        for path, tokens in table["typical"].items():
            assert f"{tokens:,}" in shown, (path, tokens)
        assert not re.search(r"\d\u2026", shown), shown
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("VerticalScroll")
        assert box.region.right <= width and box.region.x >= 0, box.region
