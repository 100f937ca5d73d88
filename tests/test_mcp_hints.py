"""Tool hints past the effects (issue 33, item 6): `destructive=`, `open_world=` and `title`
from the declaration, in tools/list as a real MCP SDK client reads it (stdio), in cards, and in
the change review (more care is breaking, a title cosmetic)."""

from __future__ import annotations

import pytest

from _mcp_helpers import SAMPLES, stdio_params
from workbench import Command, Program
from workbench.declaration.model import DefinitionError
from workbench.dev.changes import review_files
from workbench.dev.snapshot import render
from workbench.runtime.checks import ensure_checked
from workbench.surfaces.cards import card
from workbench.surfaces.tools import tool_definition


def _one(**declared):
    command = Command(name="sync", description="Sync", run=lambda ctx: {},
                      examples=["t sync"], **{"effects": "idempotent", **declared})
    program = Program(name="t", version="1.0.0", description="T", commands=[command])
    ensure_checked(program)
    return program, command


@pytest.mark.asyncio
async def test_a_real_client_reads_destructive_open_world_and_title(tmp_path):
    from mcp import Client
    async with Client(stdio_params(SAMPLES / "notes.py", {}, tmp_path), mode="legacy",
                      cache=None) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    remove, add, push = tools["remove"], tools["add"], tools["sync_push"]
    assert remove.annotations.destructive_hint is True and remove.annotations.idempotent_hint
    assert add.annotations.destructive_hint is False and not add.annotations.idempotent_hint
    assert push.annotations.open_world_hint is True and push.title == "Push notes to the remote"
    assert tools["sync_status"].annotations.open_world_hint is True   # it reads the remote
    assert tools["show"].annotations.open_world_hint is None and tools["show"].title is None


@pytest.mark.parametrize("effects, declared, destructive", [
    ("idempotent", None, False), ("idempotent", True, True),
    ("non_idempotent", None, True), ("non_idempotent", False, False),
    ("read_only", None, False), ("read_only", False, False)])
def test_destructive_is_the_effects_default_unless_declared(effects, declared, destructive):
    _, command = _one(effects=effects, destructive=declared)
    assert tool_definition(command)["annotations"]["destructiveHint"] is destructive
    assert card(command)["hints"]["destructiveHint"] is destructive


def test_a_read_only_command_that_destroys_is_refused_naming_the_fix():
    with pytest.raises(DefinitionError, match="a read_only command destroys nothing; drop "
                                              "destructive=True"):
        _one(effects="read_only", destructive=True)
    with pytest.raises(DefinitionError, match="open_world= is True, False or unset"):
        _one(open_world="yes")
    with pytest.raises(DefinitionError, match="title= is one line"):
        _one(title="two\nlines")


def test_open_world_and_title_are_left_out_unless_declared():
    _, plain = _one()
    assert "openWorldHint" not in tool_definition(plain)["annotations"]
    assert "title" not in tool_definition(plain) and "title" not in card(plain)
    _, declared = _one(open_world=False, title="Sync the notes")
    assert tool_definition(declared)["annotations"]["openWorldHint"] is False
    assert tool_definition(declared)["title"] == card(declared)["title"] == "Sync the notes"


def _files(**declared):
    program, _ = _one(**declared)
    return {surface.id: surface.pretty() for surface in render(program).values()}


@pytest.mark.parametrize("declared, kind, rule", [
    ({"destructive": True}, "breaking", "annotations_changed"),
    ({"open_world": True}, "breaking", "annotations_changed"),
    ({"open_world": False}, "additive", "annotations_changed"),
    ({"title": "Sync the notes"}, "cosmetic", "command_title")])
def test_the_change_review_reads_the_new_hints(declared, kind, rule):
    review = review_files(_files(), _files(**declared))
    assert [(change.kind, change.rule) for change in review.changes] == [(kind, rule)]
