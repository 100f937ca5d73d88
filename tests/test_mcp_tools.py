"""The MCP surfaces as pure functions: tools, argument checks, argv mapping, client configs."""

from __future__ import annotations

import json
import sys
import tomllib

import pytest

from workbench import Argument, Command, DefinitionError, Group, Option, Program
from workbench.runtime.arguments import check_arguments, from_argv, to_argv, with_json
from workbench.surfaces.clients import CLIENTS, client_config, config_text
from workbench.surfaces.schema import input_schema
from workbench.surfaces.tools import callable_tool, list_tools, output_schema, tool_definition

from _mcp_helpers import sample_files


def ok(ctx):
    return {}


def make_program():
    return Program(name="shop", version="1.0.0", description="A shop", commands=[
        Command(name="show", description="Show an order", effects="read_only",
                arguments=[Argument("id", type="integer", description="order id")],
                output={"type": "object", "properties": {"id": {"type": "integer"}}},
                run=ok),
        Command(name="tag", description="Tag an order", effects="idempotent",
                options={"label": Option(type="list", description="labels"),
                         "color": Option(type="enum", choices=["red", "green", "blue"],
                                         description="colour")},
                arguments=[Argument("id", type="integer")], run=ok),
        Command(name="charge", description="Charge a card", effects="non_idempotent",
                options={"amount": Option(type="number", required=True, description="how much"),
                         "dry": Option(type="boolean", description="pretend"),
                         "token": Option(type="string", sensitive=True, env="SHOP_TOKEN",
                                         description="API token"),
                         "pin": Option(type="string", sensitive=True, description="card pin")},
                run=ok),
        Command(name="wipe", description="Delete everything", effects="withheld", run=ok),
        Command(name="debug-dump", description="Internal", effects="read_only", hidden=True,
                run=ok),
        Group(name="stock-room", description="Stock", commands=[
            Command(name="move-item", description="Move an item", effects="non_idempotent",
                    arguments=[Argument("names", variadic=True, required=False)],
                    output={"type": "array"}, run=ok),
        ]),
    ])


PROGRAM = make_program()


def tool(name):
    return next(t for t in list_tools(PROGRAM) if t["name"] == name)


# --- tools ----------------------------------------------------------------------------------


def test_one_tool_per_offered_command_in_declaration_order():
    assert [t["name"] for t in list_tools(PROGRAM)] == ["show", "tag", "charge",
                                                        "stock_room_move_item"]


def test_withheld_commands_are_not_tools_and_cannot_be_called():
    assert "wipe" not in [t["name"] for t in list_tools(PROGRAM)]
    assert callable_tool(PROGRAM, "wipe") is None


def test_hidden_commands_are_not_listed_but_stay_callable():
    assert "debug_dump" not in [t["name"] for t in list_tools(PROGRAM)]
    assert callable_tool(PROGRAM, "debug_dump") is PROGRAM.tool("debug_dump")


@pytest.mark.parametrize("name, hints", [
    ("show", {"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False}),
    ("tag", {"readOnlyHint": False, "idempotentHint": True, "destructiveHint": False}),
    ("charge", {"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True}),
])
def test_annotations_write_out_every_hint_for_each_effect(name, hints):
    assert tool(name)["annotations"] == hints


def test_undeclared_commands_carry_no_annotations_at_all():
    adapted = Command(name="legacy", description="From Click", effects="undeclared", run=ok)
    Program(name="old", commands=[adapted], check=False)
    assert "annotations" not in tool_definition(adapted)


def test_input_schema_is_the_commands_schema_and_output_schema_only_for_objects():
    """The inputSchema is `--schema` without what the tool says already and without the
    flags: every rule of the input is kept (issue 37: tools/list no larger than the SDK's)."""
    for command in PROGRAM.walk():
        if command.effects == "withheld" or command.hidden:
            continue
        listed = tool(command.tool_name)
        schema = input_schema(command)
        assert command.description.startswith(schema.pop("description"))
        assert schema.pop("title") == " ".join(command.path)
        assert schema.pop("$schema") == "https://json-schema.org/draft/2020-12/schema"
        for key, prop in schema["properties"].items():
            flag = prop.pop("flag")
            assert flag == "--" + key.replace("_", "-") or flag.startswith("<")
        assert listed["inputSchema"] == schema
        assert listed["inputSchema"]["additionalProperties"] is False
        assert listed["description"] == command.description
    assert tool("show")["outputSchema"] == PROGRAM.tool("show").output
    assert "outputSchema" not in tool("tag")
    assert "outputSchema" not in tool("stock_room_move_item")   # array root: not on every era
    assert output_schema(PROGRAM.tool("stock_room_move_item")) is None


def test_tool_names_are_the_path_in_snake_case():
    assert PROGRAM.tool("stock_room_move_item").path == ("stock-room", "move-item")


def test_a_tool_name_over_40_characters_is_refused_at_definition_time():
    long = "a" * 25
    with pytest.raises(DefinitionError, match="40"):
        Program(name="x", commands=[Group(name=long, commands=[
            Command(name="b" * 20, effects="read_only", run=ok)])])


def test_a_withheld_command_may_have_a_long_name():
    Program(name="x", commands=[Group(name="a" * 25, commands=[
        Command(name="b" * 20, effects="withheld", run=ok)])])


def test_two_commands_with_the_same_tool_name_are_refused():
    with pytest.raises(DefinitionError, match="both map to the MCP tool name"):
        Program(name="x", commands=[
            Group(name="a", commands=[Command(name="b-c", effects="read_only", run=ok)]),
            Command(name="a-b-c", effects="read_only", run=ok)])


def test_the_tools_validate_as_the_sdk_models():
    import mcp_types
    result = mcp_types.ListToolsResult.model_validate({"tools": list_tools(PROGRAM)})
    assert [t.name for t in result.tools] == [t["name"] for t in list_tools(PROGRAM)]
    assert result.tools[0].annotations.read_only_hint is True


# --- to_argv ----------------------------------------------------------------------------------


def test_to_argv_starts_with_the_command_path_and_keeps_option_order():
    charge = PROGRAM.tool("charge")
    assert to_argv(charge, {"dry": True, "amount": 2.5}) == ["charge", "--dry", "--amount", "2.5"]
    assert to_argv(charge, {"amount": 3.0, "dry": False}) == ["charge", "--amount", "3", "--no-dry"]


def test_lists_repeat_the_flag_and_arguments_go_last():
    tag = PROGRAM.tool("tag")
    assert to_argv(tag, {"id": 7, "label": ["a", "b"], "color": "red"}) == \
        ["tag", "--label", "a", "--label", "b", "--color", "red", "7"]


def test_values_starting_with_a_dash_cannot_pass_for_flags():
    move = PROGRAM.tool("stock_room_move_item")
    assert to_argv(move, {"names": ["-x", "y"]}) == ["stock-room", "move-item", "--", "-x", "y"]
    charge = PROGRAM.tool("charge")
    assert to_argv(charge, {"amount": -5, "pin": "-x1"}) == \
        ["charge", "--amount", "-5", "--pin=-x1"]


def test_null_means_not_given_and_unknown_properties_raise():
    tag = PROGRAM.tool("tag")
    assert to_argv(tag, {"id": 1, "color": None}) == ["tag", "1"]
    with pytest.raises(ValueError, match="no property 'colour'"):
        to_argv(tag, {"colour": "red"})


def test_with_json_goes_before_the_double_dash():
    assert with_json(["a", "--", "-x"]) == ["a", "--json", "--", "-x"]
    assert with_json(["a"]) == ["a", "--json"]


@pytest.mark.parametrize("line", ["tag 3 --label a --label b --color green", "charge --amount 2",
                                  "charge --amount 2 --no-dry", "stock-room move-item -- -x y",
                                  "show 12"])
def test_from_argv_and_to_argv_round_trip(line):
    command, arguments = from_argv(PROGRAM, line.split())
    again, same = from_argv(PROGRAM, to_argv(command, arguments))
    assert again is command and same == arguments


# --- check_arguments ----------------------------------------------------------------------------


def refusal(command_name, arguments):
    doc = check_arguments(PROGRAM.tool(command_name), arguments)
    assert doc is not None and doc["ok"] is False and doc["error"]["exit"] == 2
    assert doc["meta"] == {"schema_version": "1"}
    return doc["error"], json.loads(doc["error"]["fix"])


def test_good_arguments_pass():
    assert check_arguments(PROGRAM.tool("tag"), {"id": 1, "label": ["x"], "color": "red"}) is None
    assert check_arguments(PROGRAM.tool("show"), {"id": 1.0}) is None
    assert check_arguments(PROGRAM.tool("charge"), {"amount": 1}) is None


def test_an_unknown_property_names_the_nearest_and_the_fix_renames_it():
    error, fix = refusal("tag", {"id": 1, "colr": "red"})
    assert error["code"] == "unknown_option" and "'colr'" in error["message"]
    assert "did you mean 'color'?" in error["hint"]
    assert fix == {"id": 1, "color": "red"}


def test_an_unknown_property_with_nothing_near_lists_what_the_command_takes():
    error, fix = refusal("tag", {"id": 1, "zzzzzz": 1})
    assert "takes: label, color, id" in error["hint"] and fix == {"id": 1}


def test_a_wrong_type_names_the_type_and_the_fix_converts_it():
    error, fix = refusal("show", {"id": "12"})
    assert error["code"] == "invalid_value" and "expects an integer" in error["message"]
    assert fix == {"id": 12}
    error, fix = refusal("charge", {"amount": 1, "dry": "yes"})
    assert "expects a boolean" in error["message"] and fix == {"amount": 1, "dry": True}
    error, fix = refusal("show", {"id": "twelve"})
    assert fix == {"id": "<id>"}


def test_a_single_value_for_a_list_is_fixed_into_a_list():
    error, fix = refusal("tag", {"id": 1, "label": "x"})
    assert "a list" in error["message"] and fix == {"id": 1, "label": ["x"]}


def test_a_missing_required_property_is_named_with_a_placeholder():
    error, fix = refusal("show", {})
    assert error["code"] == "missing_argument" and "'id'" in error["message"]
    assert fix == {"id": "<id>"}
    error, fix = refusal("charge", {})
    assert error["code"] == "missing_option" and fix == {"amount": "<amount>"}


def test_a_bad_choice_lists_the_choices_and_fixes_to_the_nearest():
    error, fix = refusal("tag", {"id": 1, "color": "gren"})
    assert error["code"] == "invalid_choice"
    assert "red, green, blue" in error["message"] and fix == {"id": 1, "color": "green"}


def test_every_problem_is_named_at_once():
    error, fix = refusal("tag", {"id": "x", "colr": "red", "label": "a"})
    assert error["message"].count(";") == 2
    assert fix == {"id": "<id>", "color": "red", "label": ["a"]}


def test_sensitive_values_are_never_echoed():
    secret = "s3cr3t-value"
    error, fix = refusal("charge", {"token": 12345, "pin": ["x" + secret], "amount": 1})
    text = json.dumps(error)
    assert "12345" not in text and secret not in text
    assert "an integer (hidden)" in error["message"]
    assert fix == {"token": "$SHOP_TOKEN", "pin": "<pin>", "amount": 1}
    error, fix = refusal("charge", {"tokn": secret, "amount": 1})
    assert secret not in json.dumps(error) and fix["token"] == "$SHOP_TOKEN"


def test_null_is_not_given_and_a_non_object_is_refused():
    assert check_arguments(PROGRAM.tool("tag"), {"id": 1, "color": None}) is None
    doc = check_arguments(PROGRAM.tool("show"), ["1"])
    assert doc["error"]["code"] == "invalid_value" and json.loads(doc["error"]["fix"]) == \
        {"id": "<id>"}


# --- client configs -----------------------------------------------------------------------------


def test_every_client_gets_a_snippet_that_parses_and_starts_the_server():
    program = make_program()
    program.source = "/srv/shop.py"
    for client in CLIENTS:
        config = client_config(program, client)
        assert config["client"] == client and config["name"] == "shop"
        snippet = config["snippet"]
        if config["format"] == "json":
            assert json.loads(snippet) == config["data"]
        elif config["format"] == "toml":
            assert tomllib.loads(snippet) == config["data"]
        else:
            assert snippet == f"claude mcp add shop -- {sys.executable} /srv/shop.py mcp"
        found = json.dumps(config["data"])
        assert "/srv/shop.py" in found and sys.executable in found
        assert config_text(config).endswith("\n")


def test_the_server_command_is_the_program_name_without_a_source():
    config = client_config(make_program(), "cursor")
    assert config["data"] == {"mcpServers": {"shop": {"command": "shop", "args": ["mcp"]}}}
    assert client_config(make_program(), "vscode", ["uvx", "shop", "mcp"])["data"] == \
        {"servers": {"shop": {"type": "stdio", "command": "uvx", "args": ["shop", "mcp"]}}}


def test_an_unknown_client_is_refused():
    with pytest.raises(ValueError, match="one of"):
        client_config(make_program(), "emacs")


def test_pages_keep_every_tool_in_order_and_each_fits_the_page_size():
    import json

    import pydantic_core

    from workbench.mcp.server import LIST_PAGE_BYTES, _pages
    tools = [{"name": f"t{i}", "description": "x" * (700 + i % 900),
              "inputSchema": {"type": "object"}} for i in range(3000)]
    big = {"name": "huge", "description": "y" * (LIST_PAGE_BYTES + 10),
           "inputSchema": {"type": "object"}}
    pages = _pages({"tools": tools[:1500] + [big] + tools[1500:]}, 7)
    assert [tool["name"] for page in pages for tool in page["tools"]] == \
        [tool["name"] for tool in tools[:1500]] + ["huge"] + [t["name"] for t in tools[1500:]]
    assert [page.get("nextCursor") for page in pages] == \
        [f"tools-7-{n}" for n in range(1, len(pages))] + [None]
    for page in pages:
        if len(page["tools"]) > 1:
            assert len(pydantic_core.to_json(page)) <= LIST_PAGE_BYTES
    assert any(page["tools"] == [big] for page in pages)     # too big for any page: alone
    small = {"tools": tools[:10]}
    assert _pages(small, 1) == [small] and "nextCursor" not in json.dumps(small)


@pytest.mark.parametrize("path", sample_files(), ids=lambda path: path.name)
def test_every_version_is_served_what_the_sdk_sieve_makes_of_the_tools(path):
    """tools/list is sieved once per program and version (`_Listing`) instead of on each
    request: what it serves must be what the SDK's runner would make of the tools."""
    import mcp_types
    from mcp_types import methods
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

    from workbench.loader import load_program
    from workbench.mcp.server import build
    program = load_program(path)
    served = build(program)
    tools = list_tools(program)
    for version in SUPPORTED_PROTOCOL_VERSIONS:
        page = served._listing_of(program).pages(version)[0]
        if version in MODERN_PROTOCOL_VERSIONS:
            expected = mcp_types.ListToolsResult.model_validate({"tools": tools}).model_dump(
                by_alias=True, mode="json", exclude_none=True)
        else:
            expected = methods.serialize_server_result("tools/list", version, {"tools": tools})
        assert page == expected, (path.name, version)


def _sieved_counts(monkeypatch) -> list:
    from mcp_types import methods
    counts = []
    sieve = methods.serialize_server_result

    def counting(method, version, data, **kwargs):
        counts.append(len(data["tools"]))
        return sieve(method, version, data, **kwargs)
    monkeypatch.setattr(methods, "serialize_server_result", counting)
    return counts


def _program_with(description: str, default=1):
    return Program(name="shop", version="1.0.0", description="A shop", commands=[
        Command(name=f"c{n}", description=description if n == 3 else f"command {n}",
                effects="read_only", run=ok,
                options={"many": Option(type="number", description="how many",
                                        default=default if n == 5 else 1)})
        for n in range(8)])


def test_a_reload_sieves_only_the_tools_it_changed(monkeypatch):
    from mcp_types import methods

    from workbench.mcp.server import build
    counts = _sieved_counts(monkeypatch)
    first = _program_with("first text")
    served = build(first)
    served.prepare(first)
    assert counts == []                   # no client has listed: no version to sieve for
    served._versions.add("2025-06-18")    # as a client's tools/list does
    served._listing_of(first).pages("2025-06-18")
    assert counts == [8]
    edited = _program_with("second text")
    served.prepare(edited)                # a version listed before: sieved now, one tool
    assert counts == [8, 1]
    page = served._listing_of(edited).pages("2025-06-18")[0]
    counts.clear()
    assert page == methods.serialize_server_result("tools/list", "2025-06-18",
                                                   {"tools": list_tools(edited)})


def test_a_default_changed_from_1_to_1_0_is_sieved_again(monkeypatch):
    """Reuse is keyed by the encoded tool: `{"default": 1} == {"default": 1.0}` in Python,
    but they are not the same tool on the wire."""
    from workbench.mcp.server import build
    before = _program_with("text", default=1)
    served = build(before)
    served._listing_of(before).pages("2025-06-18")
    counts = _sieved_counts(monkeypatch)
    after = _program_with("text", default=1.0)
    page = served._listing_of(after).pages("2025-06-18")[0]
    assert counts == [1]
    many = next(tool for tool in page["tools"] if tool["name"] == "c5")
    assert repr(many["inputSchema"]["properties"]["many"]["default"]) == "1.0"


def test_the_served_listing_outlives_candidates_that_were_never_served():
    """A load prepares its tools/list before its verdict; two refused loads in a row must
    not evict the served program's listing (its page cursors would go stale, and its
    tools be sieved again on the next request)."""
    from workbench.mcp.server import build
    served_program = _program_with("served")
    served = build(served_program)
    listing = served._listing_of(served_program)
    for text in ("refused once", "refused twice", "refused thrice"):
        served.prepare(_program_with(text))
    assert served._listing_of(served_program) is listing
    assert len(served._listings) == 2
