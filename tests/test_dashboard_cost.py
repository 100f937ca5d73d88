"""The Cost pane: paths side by side, and a reload changes its deltas (Textual's pilot)."""

import pytest
from _dashboard_helpers import copy_sample, dashboard, until
from conftest import save


@pytest.mark.slow
async def test_key_0_shows_the_cost_pane_with_every_path(tmp_path):
    file = copy_sample(tmp_path, "deploy.py")
    async with dashboard(file) as (app, pilot):
        await pilot.press("0")
        await until(pilot, lambda: app.active_tab == "cost", what="the Cost tab")
        text = app.pane("cost").text
        for title in ("MCP tools", "CLI help + cards", "help search", "skills + cards"):
            assert title in text, text
        assert "first load" in text
        assert "cheapest typical session" in text


@pytest.mark.slow
async def test_a_reload_changes_the_cost_deltas(tmp_path):
    file = copy_sample(tmp_path, "deploy.py")
    async with dashboard(file, watch=True) as (app, pilot):
        app.show_tab("cost")
        before = app.state.cost.table()["typical"]["mcp"]
        generation = app.state.generation
        source = file.read_text()
        save(file, source.replace('description="Deploy a build"',
                                  'description="Deploy a build to one of the targets, after a '
                                  'plan and a confirmation, and report what shipped"'))
        await until(pilot, lambda: app.state.generation > generation
                    and "dearer" in app.pane("cost").text, what="the deltas after a reload")
        after = app.state.cost.table()["typical"]["mcp"]
        assert after > before
        text = app.pane("cost").text
        assert (f"this edit made an MCP tools session of 20 turns {after - before:,} tokens "
                "dearer") in text, text
