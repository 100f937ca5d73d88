"""Definition-time checks: each broken declaration is refused with a message naming the fix."""

import pytest

from workbench.declaration._checks import check_json_schema
from workbench._text import split as split_example
from workbench.runtime.checks import ensure_checked
from workbench.declaration.model import (
    MAX_TOOL_NAME, Argument, Command, DefinitionError, Group, Option, Program,
)


def handler(ctx):
    return {}


def cmd(name="deploy", effects="non_idempotent", **kw):
    return Command(name=name, description="d", effects=effects, run=handler, **kw)


def program(*commands, name="tool"):
    """A Program, checked as `run` and the workbench check it (examples parsed too)."""
    built = Program(name=name, version="1.0.0", description="test", commands=list(commands))
    ensure_checked(built)
    return built


def refused(*commands, name="tool") -> str:
    with pytest.raises(DefinitionError) as info:
        program(*commands, name=name)
    return str(info.value)


def test_a_good_program_passes():
    p = program(
        cmd(options={"target": Option(required=True, short="t"),
                     "yes": Option(type="boolean"),
                     "count": Option(type="integer", default=2),
                     "level": Option(type="enum", choices=["a", "b"], default="a"),
                     "tag": Option(type="list", default=["x"])},
            arguments=[Argument("file", stdin=True), Argument("rest", required=False, variadic=True)],
            examples=["tool deploy --target x --yes f", "tool deploy -t x --no-yes --count=3 f",
                      "tool deploy --target 'a b' --level b --tag p --tag q f g h --json",
                      "tool deploy --target x -- --not-a-flag"]),
        Group(name="pr", description="pull requests", commands=[cmd("merge", aliases=["m"])]))
    assert [c.tool_name for c in p.walk()] == ["deploy", "pr_merge"]


# -- names and collisions ------------------------------------------------------------------

@pytest.mark.parametrize("bad, fix", [("Deploy", "'deploy'"), ("list_all", "'list-all'"),
                                      ("-x", "lowercase"), ("", "lowercase")])
def test_invalid_command_name_suggests_a_valid_one(bad, fix):
    message = refused(cmd(bad))
    assert "not valid" in message and fix in message


def test_duplicate_sibling_names_are_refused():
    message = refused(cmd("deploy"), cmd("deploy"))
    assert "already used by command 'deploy'" in message and "rename" in message


def test_alias_colliding_with_a_sibling_name_is_refused():
    message = refused(cmd("deploy"), cmd("ship", aliases=["deploy"]))
    assert "alias 'deploy'" in message and "unique among siblings" in message


def test_same_name_in_different_groups_is_fine():
    program(Group(name="a", commands=[cmd("list")]), Group(name="b", commands=[cmd("list")]))


@pytest.mark.parametrize("name", ["help", "completion", "mcp"])
def test_builtin_command_names_are_reserved_at_top_level(name):
    message = refused(cmd(name))
    assert "built-in command" in message and "rename it" in message


def test_builtin_names_are_fine_inside_a_group():
    program(Group(name="server", commands=[cmd("mcp")]))


@pytest.mark.parametrize("key", ["json", "help", "schema", "version", "debug"])
def test_builtin_option_names_are_reserved(key):
    message = refused(cmd(options={key: Option()}))
    assert f"built-in --{key}" in message and "rename the option" in message


def test_reserved_short_is_refused():
    message = refused(cmd(options={"host": Option(short="h")}))
    assert "'-h' is reserved" in message and "another letter" in message


def test_empty_group_is_refused():
    assert "has no commands" in refused(Group(name="pr", commands=[]))


def test_program_name_must_be_typeable():
    message = refused(cmd(), name="my tool")
    assert "program name 'my tool' is not valid" in message


def test_program_without_commands_is_refused():
    with pytest.raises(DefinitionError, match="has no commands"):
        Program(name="tool", commands=[])


# -- effects -------------------------------------------------------------------------------

def test_missing_effects_lists_every_value_and_its_meaning():
    message = refused(cmd(effects=None))
    assert "has no effects" in message and "effects=" in message
    for value in ("read_only", "idempotent", "non_idempotent", "withheld"):
        assert f"'{value}'" in message
    assert "changes nothing" in message


def test_unknown_effects_value_is_refused():
    message = refused(cmd(effects="readonly"))
    assert "'readonly' is not one of the known values" in message and "'read_only'" in message


def test_undeclared_effects_only_for_adapters():
    assert "only for adapted programs" in refused(cmd(effects="undeclared"))
    adapted = cmd(effects="undeclared")
    adapted.adapter = "click"
    program(adapted)


# -- options -------------------------------------------------------------------------------

def test_unknown_type_lists_the_types():
    message = refused(cmd(options={"n": Option(type="int")}))
    assert "type='int' is not a known type" in message
    assert "string, integer, number, boolean, enum, list" in message


def test_enum_needs_choices():
    assert "add choices=" in refused(cmd(options={"level": Option(type="enum")}))


def test_choices_on_a_string_say_use_enum():
    assert "use type='enum'" in refused(cmd(options={"level": Option(choices=["a"])}))


@pytest.mark.parametrize("option, words", [
    (Option(type="integer", default="3"), "is not an integer"),
    (Option(type="number", default=True), "is not a number"),
    (Option(type="boolean", default="yes"), "default=True or default=False"),
    (Option(type="enum", choices=["a", "b"], default="c"), "is not one of the choices (a, b)"),
    (Option(type="list", items="integer", default=[1, "x"]), "has an element 'x'"),
    (Option(type="string", default=3), "is not a string"),
])
def test_default_must_match_type_and_choices(option, words):
    assert words in refused(cmd(options={"opt": option}))


def test_required_with_default_is_refused():
    assert "drop required=True" in refused(cmd(options={"x": Option(required=True, default="a")}))


@pytest.mark.parametrize("short", ["ab", "-", "?"])
def test_short_flag_must_be_one_char(short):
    assert "must be one letter or digit" in refused(cmd(options={"target": Option(short=short)}))


def test_short_flags_must_be_unique():
    message = refused(cmd(options={"target": Option(short="t"), "tag": Option(short="t")}))
    assert "'-t' is also used by --target" in message


@pytest.mark.parametrize("key, fix", [("skipBuild", "'skipbuild'"), ("skip-build", "'skip_build'"),
                                      ("_x", "snake case"), ("a__b", "snake case")])
def test_option_keys_are_lowercase_snake(key, fix):
    message = refused(cmd(options={key: Option()}))
    assert "lowercase snake case" in message and fix in message


def test_boolean_negation_colliding_with_another_flag_is_refused():
    message = refused(cmd(options={"cache": Option(type="boolean"), "no_cache": Option()}))
    assert "--no-cache" in message and "rename one" in message


# -- arguments -----------------------------------------------------------------------------

def test_a_variadic_argument_may_come_before_required_ones_only():
    from workbench import Program
    Program("tool", commands=[cmd(arguments=[Argument("files", variadic=True),
                                             Argument("dest")])])   # cp SRC... DST
    message = refused(cmd(arguments=[Argument("files", variadic=True),
                                     Argument("dest", required=False)]))
    assert "followed by the optional <dest>" in message and "make <dest> required" in message
    message = refused(cmd(arguments=[Argument("a", variadic=True), Argument("b", variadic=True)]))
    assert "only one argument may take several values" in message


def test_no_required_argument_after_an_optional_one():
    message = refused(cmd(arguments=[Argument("a", required=False), Argument("b")]))
    assert "comes after the optional <a>" in message


def test_at_most_one_stdin_argument():
    message = refused(cmd(arguments=[Argument("a", stdin=True), Argument("b", stdin=True)]))
    assert "at most one input can read standard input" in message


def test_variadic_list_argument_is_refused():
    message = refused(cmd(arguments=[Argument("files", type="list", variadic=True)]))
    assert "variadic already collects a list" in message and "type='string'" in message


def test_argument_key_colliding_with_option_key_is_refused():
    message = refused(cmd(options={"file": Option()}, arguments=[Argument("file")]))
    assert "same key 'file'" in message


# -- MCP tool names ------------------------------------------------------------------------

def test_tool_names_must_be_unique():
    message = refused(Group(name="pr", commands=[cmd("merge")]), cmd("pr-merge"))
    assert "MCP tool name 'pr_merge'" in message and "rename one" in message


def test_tool_name_length_limit_says_how_to_shorten():
    long_group = "g" * 30
    message = refused(Group(name=long_group, commands=[cmd("x" * 12)]))
    assert f"over the limit of {MAX_TOOL_NAME}" in message
    assert "shorten the command or group names" in message and "withheld" in message


def test_withheld_commands_have_no_tool_name_to_check():
    program(Group(name="g" * 30, commands=[cmd("x" * 12, effects="withheld")]))


# -- output schema -------------------------------------------------------------------------

@pytest.mark.parametrize("schema, words", [
    ({"type": "list"}, "use 'array'"),
    ({"type": "object", "properties": {"a": {"type": "strng"}}}, "properties.a"),
    ({"type": "object", "properties": []}, "properties must be an object"),
    ({"type": "object", "required": "a"}, "required must be a list"),
    ({"type": "array", "items": 3}, "at items must be a JSON Schema object"),
    ({"anyOf": []}, "anyOf must be a non-empty list"),
    ({"type": "string", "minLength": -1}, "minLength must be a non-negative integer"),
    ("object", "must be a JSON Schema object"),
])
def test_output_schema_is_checked_structurally(schema, words):
    message = refused(cmd(effects="read_only", output=schema))
    assert "output schema" in message and words in message


def test_a_rich_output_schema_passes():
    check_json_schema({"type": "object", "properties": {
        "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
        "next": {"type": ["string", "null"]}},
        "required": ["items"], "additionalProperties": False,
        "$defs": {"item": {"type": "object", "properties": {"id": {"type": "integer",
                                                                   "minimum": 0}}}}})


# -- examples ------------------------------------------------------------------------------

def test_example_with_a_typo_names_the_nearest_flag():
    message = refused(cmd(options={"target": Option()}, examples=["tool deploy --targt x"]))
    assert message == ("command 'deploy': example 'tool deploy --targt x' is refused: 'deploy' "
                       "has no option --targt (did you mean --target?); write it as "
                       "'tool deploy --target x'")


def test_example_must_start_with_the_program_and_command():
    assert "must start with the program name" in refused(cmd(examples=["deploy"]))
    assert "unknown command 'ship'" in refused(cmd(examples=["tool ship"]))


def test_example_may_use_an_alias_and_builtins():
    program(cmd(aliases=["d"], examples=["tool d --json", "tool deploy --help",
                                         "tool deploy --format ndjson", "tool deploy --format=json"]))
    assert "--format needs a value" in refused(cmd(examples=["tool deploy --format"]))


def test_example_flag_missing_its_value():
    message = refused(cmd(options={"target": Option()}, examples=["tool deploy --target"]))
    assert "--target needs a value" in message
    assert message.endswith("write it as 'tool deploy --target <target>'")


def test_example_value_must_fit_the_type():
    assert "--n expects an integer, got 'many'" in refused(
        cmd(options={"n": Option(type="integer")}, examples=["tool deploy --n many"]))
    assert "--l must be one of: a, b; got 'c'" in refused(
        cmd(options={"l": Option(type="enum", choices=["a", "b"])}, examples=["tool deploy --l c"]))


def test_example_boolean_negation_and_unknown_negation():
    program(cmd(options={"yes": Option(type="boolean")}, examples=["tool deploy --no-yes"]))
    message = refused(cmd(options={"target": Option()}, examples=["tool deploy --no-target x"]))
    assert "has no option --no-target (did you mean --target?)" in message


def test_example_with_too_many_positionals():
    message = refused(cmd(arguments=[Argument("file")], examples=["tool deploy a b"]))
    assert "'deploy' got unexpected argument: b ('deploy' takes <file>" in message
    assert message.endswith("write it as 'tool deploy a'")


def test_example_leaving_out_a_required_option_or_argument():
    assert "'deploy' needs --target" in refused(
        cmd(options={"target": Option(required=True)}, examples=["tool deploy"]))
    assert "'deploy' needs <file>" in refused(
        cmd(arguments=[Argument("file")], examples=["tool deploy"]))


def test_example_may_leave_out_a_required_option_backed_by_env():
    program(cmd(options={"token": Option(required=True, env="TOKEN", sensitive=True)},
                examples=["tool deploy"]))


def test_example_must_not_show_a_sensitive_value():
    message = refused(cmd(options={"token": Option(sensitive=True, env="TOKEN")},
                          examples=["tool deploy --token hunter2"]))
    assert "literal value for the sensitive --token" in message and "$TOKEN" in message
    program(cmd(options={"token": Option(sensitive=True, env="TOKEN")},
                examples=["tool deploy --token $TOKEN"]))


def test_example_short_flags():
    program(cmd(options={"target": Option(short="t"), "yes": Option(type="boolean", short="y"),
                         "v": Option(type="boolean", short="v")},
                examples=["tool deploy -t x -yv", "tool deploy -tx", "tool deploy -yt x"]))
    assert "has no option -q" in refused(cmd(options={"target": Option(short="t")},
                                    examples=["tool deploy -q"]))


def test_unclosed_quote_in_an_example():
    assert "close the quote" in refused(cmd(examples=["tool deploy 'oops"]))


def test_split_example_follows_shell_quoting():
    assert split_example("""tool a 'b c' "d \\"e\\"" f\\ g""") == ["tool", "a", "b c", 'd "e"', "f g"]


def test_sample_programs_pass_their_own_checks():
    import runpy
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "sample_programs"
    for path in sorted(root.glob("*.py")):
        namespace = runpy.run_path(str(path), run_name="sample")
        if "program" not in namespace:   # a Click/Typer/argparse sample: checked as adapted
            from workbench.loader import load_program
            assert isinstance(load_program(str(path)), Program), path
            continue
        assert isinstance(namespace["program"], Program), path


def test_a_line_with_nothing_to_interpret_splits_as_the_shell_loop_splits_it():
    """`split` takes a shortcut when a line has no quote or backslash: it must agree with
    the full loop (and with shlex) on every such line, whitespace other than space, tab and
    newline included (a shell does not split on those)."""
    import random
    import shlex

    from workbench import _text
    rng = random.Random(18)
    alphabet = ["a", "b", "-", "--x", "=", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c",
                "\u00a0", "\u2003", "é", "ü", "$", "*", "{", "}"]
    for _ in range(3000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        quoted = line + "'q'"                      # forces the full loop, same tokens + q
        full = _text.split(quoted)
        if full and full[-1].endswith("q"):
            full[-1] = full[-1][:-1]
            if not full[-1]:
                full.pop()
        assert split_example(line) == full, repr(line)
        posix = shlex.shlex(line, posix=True, punctuation_chars=False)
        posix.whitespace, posix.whitespace_split, posix.commenters = " \t\n", True, ""
        posix.wordchars += "".join(set(line) - set(" \t\n"))
        assert split_example(line) == list(posix), repr(line)


def test_one_option_declared_under_two_keys_is_two_options():
    """A shared Option (one object under two keys, in one command or two) is each key's own:
    it is never re-keyed behind the first key's back, nor refused with a message about a
    flag nobody wrote."""
    shared = Option(type="string", description="a name")
    program = Program(name="t", version="1.0.0", description="d", commands=[
        Command(name="copy", description="Copy", effects="read_only", run=lambda ctx: {},
                options={"src": shared, "dst": shared}, examples=["t copy --src a --dst b"]),
        Command(name="show", description="Show", effects="read_only", run=lambda ctx: {},
                options={"name": shared}, examples=["t show --name a"]),
    ])
    copy = program.find(["copy"])
    assert [option.flag for option in copy.options.values()][:2] == ["--src", "--dst"]
    assert program.find(["show"]).options["name"].flag == "--name"
    assert copy.options["src"].description == "a name" and shared.key == "src"
    ensure_checked(program)     # the examples parse with the flags as written


def test_find_past_a_command_is_none():
    """`Program.find` returns None for a path that goes on under a command (it raised
    AttributeError: `child_named` read `commands` of a Command)."""
    from workbench import Command, Program
    program = Program("x", commands=[Command("a", "say hi", effects="read_only",
                                             run=lambda ctx: "hi")])
    assert program.find(["a"]) is program.commands[0]
    assert program.find(["a", "b"]) is None
    assert program.find(["b", "c"]) is None
