"""The dashboard shows the change review live: each reload lists what changed since the last
good load and since the snapshot folder, breaking changes first, each with its class."""

from __future__ import annotations

import pytest
from _dashboard_helpers import copy_sample, dashboard, until

from workbench.dev.headless import check_snapshots


@pytest.mark.slow
async def test_a_reload_lists_breaking_changes_first_since_the_load_and_the_snapshot(tmp_path):
    file = copy_sample(tmp_path, "deploy.py")
    assert check_snapshots(str(file), update=True, check=False)["ok"]
    source = file.read_text()
    async with dashboard(file) as (app, pilot):
        app.show_tab("problems")
        assert "changes since the snapshot: 0 breaking, 0 additive, 0 cosmetic" \
            in app.pane("problems").text
        # --build renamed to --build-id (breaking), a new optional --region (additive)
        file.write_text(source.replace('"build": Option(type="string", default="latest", '
                                       'description="build to ship")',
                                       '"build_id": Option(type="string", default="latest", '
                                       'description="build to ship"), "region": Option('
                                       'type="string", description="where")'))
        generation = app.state.generation
        await app.bench.areload()
        await until(pilot, lambda: app.state.generation > generation, what="the reload")
        app.show_tab("problems")
        text = app.pane("problems").text
        since_load = text.index("changes since the last good load: 1 breaking, 1 additive")
        renamed = text.index("breaking option_renamed [deploy] --build of 'deploy' is gone; "
                             "it looks renamed to --build-id")
        added = text.index("additive option_added [deploy] new optional --region")
        assert since_load < renamed < added
        assert "changes since the snapshot: 1 breaking, 1 additive, 0 cosmetic \u2014 blocked: " \
               "no major version bump" in text
        # no green "nothing to fix" under a change that blocks (the lint itself is clean)
        assert "nothing to fix" not in text and "still needs a major version bump" in text
        assert "1 breaking (see Problems)" in app.notice

        app.select_command("status")                    # a command shows its own changes
        app.show_tab("problems")
        assert "changes since the last good load: 0 breaking, 0 additive" \
            in app.pane("problems").text

        file.write_text(source.replace('version="1.0.0"', 'version="2.0.0"')
                        .replace('"build": Option', '"build_id": Option', 1))   # deploy's
        generation = app.state.generation
        await app.bench.areload()
        await until(pilot, lambda: app.state.generation > generation, what="the reload")
        app.select_command(None)
        app.show_tab("problems")
        assert "major bump 1.0.0 \u2192 2.0.0" in app.pane("problems").text


@pytest.mark.slow
async def test_without_a_snapshot_the_pane_says_how_to_write_one(tmp_path):
    file = copy_sample(tmp_path, "deploy.py")
    async with dashboard(file) as (app, pilot):
        app.show_tab("problems")
        assert "no snapshot yet: 'burgee dev FILE --headless --update' writes one" \
            in app.pane("problems").text
