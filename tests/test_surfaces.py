"""The pure surfaces: help text, help as data, input and program schemas, completions."""

import json
import runpy
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from workbench.declaration.model import Argument, Command, Group, Option, Program
from workbench.surfaces.cards import LEVELS, card, group_document, help_document
from workbench.surfaces.completion import completion_script
from workbench.surfaces.help import render_help
from workbench.surfaces.schema import DETAILS, input_schema, program_schema

ROOT = Path(__file__).resolve().parent.parent
PROGRAM_SCHEMA = json.loads((ROOT / "workbench" / "schemas" / "program.schema.json")
                            .read_text(encoding="utf-8"))
CANARY = "canary-5f1e-never-print"


def handler(ctx):
    return {}


def build() -> Program:
    return Program(name="tool", version="1.2.0", description="Ship builds", commands=[
        Command(name="deploy", description="Deploy a build", effects="non_idempotent",
                options={
                    "target": Option(required=True, short="t", description="where to deploy"),
                    "yes": Option(type="boolean", description="skip the confirmation"),
                    "count": Option(type="integer", default=3, description="how many"),
                    "level": Option(type="enum", choices=["low", "high"], default="low",
                                    description="how loud"),
                    "tag": Option(type="list", description="a tag"),
                    "token": Option(sensitive=True, env="TOOL_TOKEN", default=CANARY,
                                    description="API token"),
                    "old": Option(type="boolean", deprecated=True, replaced_by="--yes",
                                  description="old switch"),
                },
                arguments=[Argument("file", description="build file", stdin=True),
                           Argument("more", required=False, variadic=True)],
                examples=["tool deploy --target staging --yes build.tar"], run=handler),
        Command(name="status", description="Show status", effects="read_only", aliases=["st"],
                output={"type": "object", "properties": {
                    "healthy": {"type": "boolean", "description": "all good"}}},
                run=handler),
        Group(name="notes", description="Keep notes", commands=[
            Command(name="add", description="Add a note", effects="non_idempotent",
                    arguments=[Argument("text")], run=handler, aliases=["a"]),
            Command(name="tag", description="Tag a note", effects="idempotent", run=handler,
                    errors=["not_found", {"code": "locked", "exit": 5, "when": "locked note"}]),
            Command(name="secret", description="a hidden one", effects="read_only",
                    hidden=True, run=handler),
            Command(name="purge", description="Drop all", effects="withheld", run=handler,
                    deprecated="too dangerous", since="0.9"),
        ]),
    ])


@pytest.fixture
def program():
    return build()


def sample(name):
    return runpy.run_path(str(ROOT / "sample_programs" / f"{name}.py"), run_name="sample")["program"]


# -- human help ----------------------------------------------------------------------------

def test_top_level_help_is_small_and_lists_visible_commands(program):
    text = render_help(program)
    assert text.startswith("tool 1.2.0 - Ship builds\n")
    assert "Usage: tool <command> [options]" in text
    assert "deploy" in text and "status (st)" in text and "notes" in text
    assert "secret" not in text
    assert len(text.split()) < 200 and len(text) < 1600
    assert text.rstrip().splitlines()[-1].endswith("'tool <command> --help --json'.")
    assert "help --json" in text


def test_command_help_shows_every_fact(program):
    text = render_help(program, program.find(["deploy"]))
    assert text.startswith("Usage: tool deploy --target <target> [options] <file> [<more>...]\n")
    assert "Effects: non_idempotent - changes state each time it runs" in text
    lines = {line.split("  ")[1]: " ".join(line.split()) for line in text.splitlines()
             if line.startswith("  -")}
    assert lines["-t, --target <target>"].endswith("where to deploy (string; required)")
    flat = " ".join(text.split())
    assert "--yes, --no-yes" in flat
    assert "(integer; default: 3)" in flat
    assert "one of: low, high; default: low" in flat
    assert "list of string; repeatable" in flat
    assert "sensitive, never printed; env: $TOOL_TOKEN" in flat
    assert "deprecated: use --yes instead" in flat
    assert "'-' reads standard input" in flat
    assert "Examples:\n  tool deploy --target staging --yes build.tar" in text
    assert "Exit codes: 0 ok, 1 failure, 2 usage, 4 action_required" in text
    assert "'tool deploy --help --json'" in text and "'tool deploy --schema'" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_sensitive_default_never_appears_anywhere(program):
    command = program.find(["deploy"])
    outputs = [render_help(program, command), json.dumps(card(command)),
               json.dumps(input_schema(command)), json.dumps(program_schema(program)),
               json.dumps(help_document(program, "card"))]
    outputs += [completion_script(program, shell) for shell in ("bash", "zsh", "fish")]
    for output in outputs:
        assert CANARY not in output


def test_group_help_lists_its_visible_commands(program):
    text = render_help(program, program.find(["notes"]))
    assert text.startswith("Usage: tool notes <command> [options]\n")
    assert "add (a)" in text and "tag" in text and "secret" not in text
    assert "purge    Drop all (deprecated: too dangerous)" in text


def test_deprecated_and_since_are_marked_on_the_command(program):
    text = render_help(program, program.find(["notes", "purge"]))
    assert "Deprecated: too dangerous. Since 0.9." in text
    assert "withheld - runs on the command line only" in text


def test_declared_errors_show_in_exit_codes(program):
    text = render_help(program, program.find(["notes", "tag"]))
    assert "3 not_found" in text and "5 conflict" in text


def test_help_is_deterministic(program):
    assert render_help(program) == render_help(build())
    assert render_help(program, program.find(["deploy"])) == \
        render_help(build(), build().find(["deploy"]))


def test_sample_help_renders():
    for name in ("deploy", "notes"):
        p = sample(name)
        assert render_help(p).count("\n") < 30
        for command in p.walk():
            assert render_help(p, command).startswith("Usage: " + p.name)


# -- help as data --------------------------------------------------------------------------

def test_help_document_levels(program):
    names = help_document(program, "names")
    assert list(names) == ["name", "version", "description", "schema_version", "level", "usage",
                           "capabilities",
                           "commands", "exit_codes", "more"]
    assert names["commands"] == ["deploy", "status", "notes add", "notes tag", "notes purge"]
    summary = help_document(program)
    assert summary["level"] == "summary"
    assert summary["commands"][1] == {"command": "status", "description": "Show status",
                                      "effects": "read_only", "aliases": ["st"]}
    assert summary["groups"] == [{"group": "notes", "description": "Keep notes",
                                  "commands": ["add", "tag", "purge"]}]
    cards = help_document(program, "card")["commands"]
    assert [c["command"] for c in cards] == names["commands"]
    assert cards[0] == card(program.find(["deploy"]))


def test_help_document_carries_the_exit_code_table(program):
    table = help_document(program, "names")["exit_codes"]
    assert table[:3] == [
        {"exit": 0, "code": "ok", "meaning": "the command did what was asked"},
        {"exit": 1, "code": "failure", "meaning": "the command ran and failed; see error.code"},
        {"exit": 2, "code": "usage",
         "meaning": "refused before running: fix the command line (see error.fix)"}]
    assert {row["exit"] for row in table} >= {0, 1, 2, 3, 4, 5, 6, 7, 130}


def test_unknown_level_is_refused(program):
    with pytest.raises(ValueError, match="names, summary, card"):
        help_document(program, "full")
    assert LEVELS == ("names", "summary", "card")


def test_help_document_is_stable_bytes(program):
    for level in LEVELS:
        assert json.dumps(help_document(program, level)) == json.dumps(help_document(build(), level))


def test_card_holds_what_an_agent_needs(program):
    c = card(program.find(["deploy"]))
    assert list(c)[:8] == ["command", "usage", "description", "effects", "effects_meaning",
                           "hints", "tool", "options"]
    assert c["hints"] == {"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True}
    assert c["tool"] == "deploy"
    options = {o["key"]: o for o in c["options"]}
    assert options["target"] == {"key": "target", "flag": "--target", "short": "-t",
                                 "type": "string", "description": "where to deploy",
                                 "required": True, "metavar": "<target>"}
    assert options["yes"]["negation"] == "--no-yes" and options["yes"]["default"] is False
    assert options["level"]["choices"] == ["low", "high"]
    assert options["tag"]["items"] == "string" and options["tag"]["repeatable"] is True
    assert options["token"]["sensitive"] is True and "default" not in options["token"]
    assert options["token"]["env"] == "TOOL_TOKEN"
    assert options["old"]["deprecated"] is True and options["old"]["replaced_by"] == "--yes"
    assert c["arguments"][0] == {"name": "file", "key": "file", "flag": "<file>",
                                 "type": "string", "description": "build file",
                                 "required": True, "stdin": True}
    assert c["examples"] == ["tool deploy --target staging --yes build.tar"]
    assert [e["code"] for e in c["errors"]] == [   # non_idempotent: its key's three
        "usage", "action_required", "idempotency_conflict", "in_progress",
        "idempotency_store_unavailable", "internal"]
    assert c["exit_codes"] == [0, 1, 2, 4, 5, 6, 7]


@pytest.mark.parametrize("effects, hints", [
    ("read_only", {"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False}),
    ("idempotent", {"readOnlyHint": False, "idempotentHint": True, "destructiveHint": False}),
    ("non_idempotent", {"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True}),
])
def test_card_hints_follow_effects(effects, hints):
    p = Program(name="t", commands=[Command(name="c", effects=effects, run=handler)])
    assert card(p.find(["c"]))["hints"] == hints


def test_undeclared_has_no_hints_and_withheld_no_tool():
    adapted = Command(name="c", effects="undeclared", run=handler)
    adapted.adapter = "click"
    p = Program(name="t", commands=[adapted, Command(name="w", effects="withheld", run=handler)])
    c = card(p.find(["c"]))
    assert "hints" not in c and c["tool"] == "c"
    w = card(p.find(["w"]))
    assert "tool" not in w and "hints" not in w


def test_card_errors_include_declared_ones(program):
    c = card(program.find(["notes", "tag"]))
    assert c["errors"][2:4] == [
        {"code": "not_found", "exit": 3, "when": "what was asked for does not exist"},
        {"code": "locked", "exit": 5, "when": "locked note"}]
    read_only = card(program.find(["status"]))
    assert [e["code"] for e in read_only["errors"]] == ["usage", "internal"]
    assert read_only["output"]["properties"]["healthy"]["type"] == "boolean"


def test_group_document(program):
    doc = group_document(program, program.find(["notes"]), "names")
    assert doc["group"] == "notes" and doc["commands"] == ["notes add", "notes tag", "notes purge"]


# -- input schema --------------------------------------------------------------------------

def test_input_schema_is_valid_and_strict(program):
    for command in program.walk():
        schema = input_schema(command)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
    schema = input_schema(program.find(["deploy"]))
    props = schema["properties"]
    assert list(props) == ["target", "yes", "count", "level", "tag", "token", "old",
                           "idempotency_key", "file", "more"]
    assert props["target"] == {"type": "string", "description": "where to deploy",
                               "flag": "--target"}
    assert props["yes"]["default"] is False
    assert props["level"] == {"type": "string", "enum": ["low", "high"],
                              "description": "how loud", "flag": "--level", "default": "low"}
    assert props["tag"]["items"] == {"type": "string"} and props["tag"]["type"] == "array"
    assert props["token"]["writeOnly"] is True and "default" not in props["token"]
    assert props["old"]["deprecated"] is True
    assert props["file"]["flag"] == "<file>"
    assert props["more"] == {"type": "array", "items": {"type": "string"}, "description": "",
                             "flag": "<more>..."}
    assert schema["required"] == ["target", "file"]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"target": "prod", "file": "b.tar", "count": 2})
    assert not validator.is_valid({"target": "prod", "file": "b", "targt": "x"})
    assert not validator.is_valid({"file": "b"})
    assert not validator.is_valid({"target": "prod", "file": "b", "level": "loud"})


def test_env_backed_required_option_is_not_required_in_the_schema():
    p = Program(name="t", commands=[Command(name="c", effects="read_only", run=handler, options={
        "token": Option(required=True, env="T_TOKEN", sensitive=True)})])
    assert "required" not in input_schema(p.find(["c"]))


# -- program schema and its budget ---------------------------------------------------------

def _size(doc):
    return len(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


def test_the_shipped_program_schema_is_a_valid_schema():
    jsonschema.Draft202012Validator.check_schema(PROGRAM_SCHEMA)


def test_program_schema_full(program):
    doc = program_schema(program)
    jsonschema.validate(doc, PROGRAM_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert doc["detail"] == "full" and doc["budget"] == 8000 and "note" not in doc
    commands = {c["command"]: c for c in doc["commands"]}
    assert "notes secret" not in commands
    assert commands["deploy"]["input"]["properties"]["target"]["flag"] == "--target"
    assert commands["status"]["output"]["properties"]["healthy"]["description"] == "all good"
    assert "tool" not in commands["notes purge"]
    assert commands["notes tag"]["exit_codes"] == [0, 1, 2, 3, 4, 5]


@pytest.mark.slow
def test_program_schema_degrades_step_by_step_within_budget(program):
    full = _size(program_schema(program))
    seen = []
    for budget in range(full, 0, -40):
        doc = program_schema(program, budget)
        jsonschema.validate(doc, PROGRAM_SCHEMA, cls=jsonschema.Draft202012Validator)
        if not doc.get("omitted") or doc["commands"]:
            assert _size(doc) <= budget, (budget, doc["detail"])
        if doc["detail"] not in seen:
            seen.append(doc["detail"])
        if doc["detail"] != "full":
            assert ("tool <command> --schema" in doc["note"] or "omitted" in doc
                    or "tool <group> --schema" in doc["note"])
    assert seen == list(DETAILS)


def test_degraded_levels_drop_what_they_say(program):
    full = _size(program_schema(program))
    by_detail = {}
    for budget in range(full, 200, -10):
        doc = program_schema(program, budget)
        by_detail.setdefault(doc["detail"], doc)
    no_desc = by_detail["no_descriptions"]
    deploy = no_desc["commands"][0]
    assert all("description" not in p for p in deploy["input"]["properties"].values())
    assert deploy["description"] == "Deploy a build"
    assert "property descriptions were dropped" in no_desc["note"]
    names = by_detail["property_names"]["commands"][0]
    assert names["inputs"][:2] == ["target", "yes"] and names["required"] == ["target", "file"]
    assert by_detail["names"]["commands"][0] == "deploy"


def test_tiny_budget_leaves_commands_out_and_says_so(program):
    doc = program_schema(program, 20)
    jsonschema.validate(doc, PROGRAM_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert doc["detail"] == "names" and doc["omitted"] == 5 and doc["commands"] == []
    assert "help --json --level names" in doc["note"]


def test_a_group_schema_holds_only_what_is_under_it_and_degrades_to_its_groups():
    def handler(ctx):
        return {}

    def command(name):
        return Command(name, f"{name} it", effects="read_only", run=handler)
    p = Program("tool", "1.0.0", commands=[
        Group("a", "group a", [command("x"), Group("b", "group b", [command("y")]),
                               Group("h", "hidden", [command("w")], hidden=True)]),
        command("z")])
    doc = program_schema(p, node=p.find(["a"]))
    jsonschema.validate(doc, PROGRAM_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert (doc["group"], doc["group_description"], doc["detail"]) == ("a", "group a", "full")
    assert [c["command"] for c in doc["commands"]] == ["a x", "a b y"]
    for budget in range(_size(doc), 0, -1):
        doc = program_schema(p, budget, p.find(["a"]))
        if doc["detail"] == "groups":
            break
    jsonschema.validate(doc, PROGRAM_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert doc["commands"] == ["a x"] and doc["groups"] == ["a b"] and _size(doc) <= budget
    assert "'tool <group> --schema'" in doc["note"]
    top = program_schema(p)
    assert "group" not in top and [c["command"] for c in top["commands"]] == ["a x", "a b y", "z"]


def test_program_budget_overrides_the_default():
    p = build()
    p.budgets["schema"] = 1500
    doc = program_schema(p)
    assert doc["budget"] == 1500 and doc["detail"] != "full" and _size(doc) <= 1500


@pytest.mark.slow
def test_sample_program_schemas_validate():
    for name in ("deploy", "notes"):
        p = sample(name)
        for budget in (None, 100000, 3000, 1500, 800, 10):
            jsonschema.validate(program_schema(p, budget), PROGRAM_SCHEMA,
                                cls=jsonschema.Draft202012Validator)
        for command in p.walk():
            jsonschema.Draft202012Validator.check_schema(input_schema(command))


# -- completions ---------------------------------------------------------------------------

def bash_complete(script: str, *words: str) -> list[str]:
    """Source the script in a real bash, complete `words` (last one is the cursor word)."""
    words_literal = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    driver = (f"{script}\nCOMP_WORDS=({words_literal})\nCOMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n"
              "COMPREPLY=()\n_tool_complete\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    done = subprocess.run(["bash", "--norc", "--noprofile"], input=driver, text=True,
                          capture_output=True, timeout=30)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_in_a_real_bash(program):
    script = completion_script(program, "bash")
    assert bash_complete(script, "tool", "") == ["deploy", "status", "st", "notes", "help",
                                                 "completion", "mcp", "skills"]
    assert bash_complete(script, "tool", "no") == ["notes"]
    assert bash_complete(script, "tool", "notes", "") == ["add", "a", "tag", "purge"]
    assert bash_complete(script, "tool", "notes", "a", "--") == [
        "--idempotency-key", "--json", "--help", "--schema", "--debug", "--format", "--progress",
        "--fields", "--jq", "--no-color"]
    assert bash_complete(script, "tool", "notes", "a", "--format", "") == ["json", "ndjson", "table",
                                                                     "tsv"]
    assert bash_complete(script, "tool", "deploy", "--no-") == ["--no-yes", "--no-old",
                                                                  "--no-color"]
    assert bash_complete(script, "tool", "deploy", "--level", "") == ["low", "high"]
    assert bash_complete(script, "tool", "deploy", "--level", "=", "h") == ["high"]
    assert bash_complete(script, "tool", "deploy", "-t", "x", "--c") == ["--count"]
    assert bash_complete(script, "tool", "st", "--s") == ["--schema"]
    assert bash_complete(script, "tool", "completion", "") == ["bash", "zsh", "fish"]
    assert bash_complete(script, "tool", "help", "--level", "") == ["names", "summary", "card"]
    assert bash_complete(script, "tool", "--v") == ["--version"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_for_the_notes_sample():
    script = completion_script(sample("notes"), "bash").replace("_notes_complete", "_tool_complete")
    assert "ls" in bash_complete(script, "notes", "l")
    assert bash_complete(script, "notes", "sync", "") == ["push", "status"]
    assert "--token" in bash_complete(script, "notes", "sync", "push", "--t")


def test_completion_scripts_carry_install_notes_and_every_flag(program):
    for shell in ("bash", "zsh", "fish"):
        script = completion_script(program, shell)
        assert "# Install:" in script and f"tool completion {shell}" in script
        for word in ("deploy", "notes", "low", "high", "no-yes", "json", "schema"):
            assert word in script, (shell, word)
        assert "secret" not in script
    assert completion_script(program, "zsh").startswith("#compdef tool\n")
    assert "complete -c 'tool' -f" in completion_script(program, "fish")


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_other_shell_scripts_parse_where_the_shell_exists(program, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    flag = "-n" if shell == "zsh" else "--no-execute"
    done = subprocess.run([shell, flag], input=completion_script(program, shell), text=True,
                          capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr


ZSH_HARNESS = """
compdef() { : }
compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
_describe() { print -l -- "${(@P)4}" }
_files() { print -- "<files>" }
compset() { : }
source "$SCRIPT"
words=("$@"); CURRENT=$#
_tool
"""


def zsh_complete(tmp_path, script: str, *words: str) -> list[str]:
    """Run the zsh function with the completion builtins stubbed to print what they offer."""
    (tmp_path / "tool.zsh").write_text(script)
    (tmp_path / "harness.zsh").write_text(ZSH_HARNESS)
    done = subprocess.run(["zsh", "-f", str(tmp_path / "harness.zsh"), *words], text=True,
                          capture_output=True, timeout=30,
                          env={"SCRIPT": str(tmp_path / "tool.zsh"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line.split(":", 1)[0] for line in done.stdout.splitlines()]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completion_offers_the_model(program, tmp_path):
    script = completion_script(program, "zsh")
    assert zsh_complete(tmp_path, script, "tool", "") == [
        "deploy", "status", "st", "notes", "help", "completion", "mcp", "skills"]
    assert zsh_complete(tmp_path, script, "tool", "notes", "") == ["add", "a", "tag", "purge"]
    assert zsh_complete(tmp_path, script, "tool", "st", "--") == [
        "--json", "--help", "-h", "--schema", "--debug", "--format", "--progress", "--fields",
        "--jq", "--no-color"]
    assert zsh_complete(tmp_path, script, "tool", "deploy", "--level", "") == ["low", "high"]
    assert zsh_complete(tmp_path, script, "tool", "deploy", "--level=h") == ["low", "high"]
    assert zsh_complete(tmp_path, script, "tool", "deploy", "--target", "") == ["<files>"]
    assert zsh_complete(tmp_path, script, "tool", "completion", "") == ["bash", "zsh", "fish"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completion_offers_the_model(program, tmp_path):
    (tmp_path / "tool.fish").write_text(completion_script(program, "fish"))

    def complete(line):
        done = subprocess.run(["fish", "--no-config", "-c",
                               f"source {tmp_path / 'tool.fish'}; complete -C '{line}'"],
                              text=True, capture_output=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return sorted(row.split("\t")[0] for row in done.stdout.splitlines())

    assert complete("tool ") == sorted(["deploy", "status", "st", "notes", "help", "completion",
                                        "mcp", "skills"])
    assert complete("tool notes ") == ["a", "add", "purge", "tag"]
    assert complete("tool deploy --level ") == ["high", "low"]
    assert complete("tool deploy -t x --no") == ["--no-color", "--no-old", "--no-yes"]
    assert complete("tool completion ") == ["bash", "fish", "zsh"]


def test_bash_script_parses(program):
    done = subprocess.run(["bash", "-n"], input=completion_script(program, "bash"), text=True,
                          capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_unknown_shell_is_refused(program):
    with pytest.raises(ValueError, match="bash, zsh, fish"):
        completion_script(program, "powershell")


# -- purity and cost -----------------------------------------------------------------------

def test_surfaces_import_nothing_heavy():
    code = ("import sys; base = set(sys.modules); "
            "import workbench.surfaces.help, workbench.surfaces.cards, "
            "workbench.surfaces.schema, workbench.surfaces.completion, workbench.declaration._checks; "
            "print(' '.join(sorted(set(sys.modules) - base)))")
    done = subprocess.run([shutil.which("python3") if False else __import__("sys").executable,
                           "-c", code], text=True, capture_output=True, timeout=60, cwd=ROOT)
    loaded = set(done.stdout.split())
    assert not loaded & {"re", "textwrap", "difflib", "json", "jsonschema", "mcp", "textual"}
    assert all(name.startswith("workbench") for name in loaded), loaded


# --- help search: a pure surface --------------------------------------------------------------

def test_help_search_is_data_and_prints_nothing(program, capsys):
    from workbench.surfaces.search import search
    found = search(program, "deploy a build")
    assert found[0]["command"] == "deploy" and found[0]["tool"] == "deploy"
    assert search(program, "zebra") == []
    assert capsys.readouterr() == ("", "")


def test_help_search_printed_by_the_runtime_keeps_the_callers_json(program):
    from workbench import call
    done = call(program, ["help", "search", "--json"])
    doc = json.loads(done.stdout)
    assert done.exit == 2 and doc["error"]["fix"] == f"{program.name} help search <words> --json"


def test_required_unless_an_environment_variable_is_one_rule_every_surface_reads():
    """`Option(required=True, env=...)` may come from the environment, so no surface demands
    it of the caller: not the input schema, not the usage line, not the MCP argument check;
    its slot in a fix is `$ENV` when it is sensitive (`Param.required_from_caller`, `.slot`)."""
    from workbench.runtime.arguments import check_arguments
    from workbench.surfaces._facts import usage
    from workbench.surfaces.schema import input_schema
    command = Command(name="push", description="Push", effects="idempotent", run=lambda c: {},
                      options={"target": Option(required=True, description="where"),
                               "token": Option(required=True, env="PUSH_TOKEN",
                                               sensitive=True, description="secret")},
                      arguments=[Argument("file", description="what")])
    program = Program(name="tool", version="1.0.0", description="d", commands=[command])
    assert [o.required_from_caller for o in command.options.values()] == [True, False]
    assert input_schema(command)["required"] == ["target", "file"]
    assert usage(program, command) == "tool push --target <target> [options] <file>"
    doc = check_arguments(command, {})
    assert json.loads(doc["error"]["fix"]) == {"target": "<target>", "file": "<file>"}
    assert command.options["token"].slot == "$PUSH_TOKEN"
    assert command.options["target"].slot == "<target>"
