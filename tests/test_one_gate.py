"""One gate for every promise: each case below leaked or crashed before the one parameter
model, the built-ins table, the one envelope module and the one redaction policy."""

import json
import os
import stat

import pytest

from conftest import SAMPLES, clean_env, run_program
from workbench import Argument, Command, Group, Option, Program, call
from workbench.declaration.builtins import BUILTINS, GLOBAL_OPTIONS, RESERVED_COMMANDS
from workbench.samples.notes import program as notes_program

SECRET = "s3cr3t-Token-8842"


def envelope(outcome):
    assert outcome.stderr == "", outcome.stderr
    assert outcome.stdout.endswith("\n") and outcome.stdout.count("\n") == 1, outcome.stdout
    return json.loads(outcome.stdout)


def notes(*argv, env=None):
    environ = clean_env(NOTES_FILE="/nonexistent/notes.json", **(env or {}))
    environ.pop("NOTES_TOKEN", None)
    if env and "NOTES_TOKEN" in env:
        environ["NOTES_TOKEN"] = env["NOTES_TOKEN"]
    return call(notes_program, list(argv), environ=environ)


# -- secrets never reach a fix, a message or a stream --------------------------------------

@pytest.mark.parametrize("argv", [
    ["--token", SECRET, "sync", "push", "--json"],          # before the command
    ["sync", "--token", SECRET, "push", "--json"],          # between group and command
    ["sync", "status", "--token", SECRET, "--json"],        # on a command that lacks it
    ["sync", "status", f"--token={SECRET}", "--json"],
    ["sync", "push", "--tokn", SECRET, "--json"],           # misspelt
    ["sync", "push", "--token", "-" + SECRET, "--json"],    # a value that starts with '-'
    ["sync", "push", "--token", SECRET, "--bogus", "--json"],
    ["sync", "pish", "--token", SECRET, "--json"],          # misspelt command
])
def test_a_misplaced_secret_is_in_no_output(argv):
    outcome = notes(*argv)
    assert SECRET not in outcome.stdout + outcome.stderr
    doc = envelope(outcome)
    assert doc["ok"] is False and doc["error"]["exit"] == 2
    fix = doc["error"].get("fix", "")
    assert SECRET not in fix and "***" not in fix, fix


def test_a_misplaced_secret_moves_with_its_slot_in_the_fix():
    doc = envelope(notes("--token", SECRET, "sync", "push", "--json"))
    assert doc["error"]["fix"] == "notes sync push --token $NOTES_TOKEN --json"


@pytest.mark.parametrize("argv, fix", [
    (["--tokn", SECRET, "sync", "push", "--json"], "notes sync push --token $NOTES_TOKEN --json"),
    (["--stor", "x", "list", "--json"], "notes list --store x --json"),
])
def test_options_before_their_command_are_moved_and_spelt_right_in_the_fix(argv, fix):
    """Was: the fix moved `--tokn` after the command but kept the misspelling, so it was
    refused again when run."""
    doc = envelope(notes(*argv))
    assert doc["error"]["fix"] == fix


def test_a_flag_of_another_command_is_dropped_with_its_value():
    doc = envelope(notes("sync", "status", "--token", SECRET, "--json"))
    assert doc["error"]["fix"] == "notes sync status --json"
    assert doc["error"]["hint"] == "--token is an option of 'sync push', not of 'sync status'"


def test_a_value_starting_with_a_dash_is_shown_its_equals_form():
    doc = envelope(notes("sync", "push", "--token", "-" + SECRET, "--json"))
    assert doc["error"]["code"] == "missing_value"
    assert doc["error"]["fix"] == "notes sync push --token=$NOTES_TOKEN --json"


@pytest.mark.parametrize("argv, fix", [
    (["sync", "push", "--token", "--json"], "notes sync push --token <token> --json"),
    (["sync", "push", "--token", "--remote", "r", "--json"],
     "notes sync push --token <token> --remote r --json"),
])
def test_a_flag_after_a_secret_flag_with_no_value_is_not_taken_for_the_secret(argv, fix):
    """Was: `--json` was taken for the secret, so the fix read `--token <token> ***`."""
    doc = envelope(notes(*argv))
    assert doc["error"]["code"] == "missing_value" and doc["error"]["fix"] == fix


def test_a_secret_from_the_environment_is_masked_in_text_output():
    outcome = notes("sync", "status", "--json", env={"NOTES_TOKEN": SECRET})
    assert SECRET not in outcome.stdout + outcome.stderr


def test_a_secret_from_the_environment_of_a_second_option_with_the_same_flag_is_masked():
    """Was: two commands with a sensitive --token each (DEPLOY_TOKEN, SYNC_TOKEN): only the
    first option's variable was known as a secret, so `sync` returned SYNC_TOKEN in clear."""
    def show(ctx):
        print("using", ctx.options.token)
        return {"token": ctx.options.token}

    program = Program("tool", commands=[
        Command(name, effects="read_only", run=show, options={"token": Option(
            sensitive=True, short="t", env=f"{name.upper()}_TOKEN", description="secret")})
        for name in ("deploy", "sync")])
    for name in ("deploy", "sync"):
        outcome = call(program, [name, "--json"],
                       environ=clean_env(**{f"{name.upper()}_TOKEN": SECRET}))
        assert SECRET not in outcome.stdout + outcome.stderr, (name, outcome.stdout)
        assert envelope(outcome)["data"] == {"token": "***"}


def test_progress_messages_arrive_masked():
    seen = []

    def handler(ctx):
        ctx.progress(1, 2, f"using {ctx.options.token}")
        ctx.progress(2, 2, "done")
        return {"ok": 1}

    program = Program("tool", commands=[Command(
        "go", effects="read_only", run=handler,
        options={"token": Option(sensitive=True, description="secret")})])
    outcome = call(program, ["go", "--token", SECRET, "--json"],
                   on_progress=lambda done, total, message: seen.append(message))
    assert outcome.exit == 0
    assert seen == ["using ***", "done"]


def test_a_handler_returning_a_secret_is_masked_in_the_envelope():
    program = Program("tool", commands=[Command(
        "echo", effects="read_only", run=lambda ctx: {"token": ctx.options.token},
        options={"token": Option(sensitive=True)})])
    doc = envelope(call(program, ["echo", "--token", SECRET, "--json"]))
    assert doc["data"] == {"token": "***"}


def test_the_traffic_log_masks_misspelt_keys_and_tools():
    from workbench.dev.server import redact
    push = notes_program.find(["sync", "push"])
    assert redact(notes_program, push, {"tokn": SECRET, "remote": "r"}) == \
        {"tokn": "***", "remote": "r"}
    assert redact(notes_program, None, {"token": SECRET}) == {"token": "***"}


def test_the_idempotency_store_is_private(tmp_path):
    program = Program("tool", commands=[Command(
        "add", effects="non_idempotent", run=lambda ctx: {"token": ctx.options.token},
        options={"token": Option(sensitive=True)})])
    state = tmp_path / "state"
    outcome = call(program, ["add", "--token", SECRET, "--idempotency-key", "k1", "--json"],
                   environ=clean_env(BURGEE_STATE_DIR=str(state)))
    assert outcome.exit == 0
    store = state / "idempotency.sqlite3"
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    assert SECRET.encode() not in store.read_bytes()


# -- help never crashes ----------------------------------------------------------------------

@pytest.mark.parametrize("path, argv", [
    ("notes", ["help", "help", "--json"]),
    ("warehouse", ["help", "mcp", "--json"]),
    ("warehouse", ["help", "stock", "x", "--json"]),
    ("notes", ["help", "--help", "sync", "push", "", "--json"]),
    ("notes", ["help", "sync", "nope", "--json"]),
    ("notes", ["help", "--level", "everything", "--json"]),
    ("notes", ["help", "search", "--json"]),
    ("notes", ["mcp", "config", "--json"]),
    ("notes", ["completion", "tcsh", "--json"]),
])
def test_help_and_builtins_answer_in_one_envelope_or_document(path, argv):
    result = run_program(SAMPLES / f"{path}.py", *argv)
    assert "Traceback" not in result.stderr
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    assert result.exit in (0, 2, 3)
    if result.exit == 2:
        assert doc["error"]["fix"].endswith("--json")
        words = [word if not word.startswith("<") else "notes"   # a slot: the caller fills it
                 for word in doc["error"]["fix"].split()[1:]]
        fixed = run_program(SAMPLES / f"{path}.py", *words)
        assert fixed.exit in (0, 3), fixed


def test_help_for_a_builtin_is_its_card():
    doc = envelope(notes("help", "mcp", "config", "--json"))
    assert doc["command"] == "mcp config"
    assert [o["flag"] for o in doc["options"]] == ["--client", "--url", "--token-file"]


def test_help_below_a_command_is_refused_with_the_command_as_fix():
    doc = envelope(call(notes_program, ["help", "list", "extra", "--json"]))
    assert doc["error"]["fix"] == "notes help list --json"


# -- built-ins are parsed like commands -------------------------------------------------------

def test_mcp_with_a_bad_option_refuses_as_an_envelope():
    result = run_program(SAMPLES / "notes.py", "mcp", "--bogus", "--json")
    assert result.exit == 2 and result.stderr == ""
    doc = json.loads(result.stdout)
    assert doc["error"]["code"] == "unknown_option"
    assert doc["error"]["fix"] == "notes mcp --json"


def test_a_bad_format_is_refused():
    doc = envelope(notes("list", "--format", "bogus", "--json"))
    assert doc["error"]["code"] == "invalid_choice"
    assert doc["error"]["fix"] == "notes list --json"   # --format json is --json: said once


def test_a_refusal_under_ndjson_is_a_stream_with_meta_and_end():
    outcome = notes("list", "--bogus", "--format", "ndjson")
    lines = [json.loads(line) for line in outcome.stdout.splitlines()]
    assert list(lines[0]) == ["@meta"] and list(lines[-1]) == ["@end"]
    end = lines[-1]["@end"]
    assert end["ok"] is False and end["exit"] == 2 and end["count"] == 0
    assert end["error"]["code"] == "unknown_option"
    assert outcome.exit == 2


def test_mcp_config_refuses_an_unknown_client_with_the_nearest():
    doc = envelope(notes("mcp", "config", "--client", "cursr", "--json"))
    assert doc["error"]["fix"] == "notes mcp config --client cursor --json"


def test_every_builtin_and_global_flag_is_declared_once():
    assert set(BUILTINS) == {("help",), ("help", "search"), ("completion",), ("mcp",),
                             ("mcp", "config"), ("mcp", "install"), ("mcp", "doctor"),
                             ("skills",)}
    assert RESERVED_COMMANDS == tuple(dict.fromkeys(path[0] for path in BUILTINS))
    assert list(GLOBAL_OPTIONS) == ["json", "help", "schema", "version", "debug", "format",
                                    "progress", "fields", "jq", "no_color"]
    assert GLOBAL_OPTIONS["help"].short_flag == "-h"


# -- one parameter model -------------------------------------------------------------------

def test_spellings_are_normalised_once_and_every_reader_agrees():
    from workbench.surfaces.cards import card
    from workbench.surfaces.completion import completion_script
    command = Command("deploy", effects="read_only", run=lambda ctx: dict(ctx.options),
                      options={"dest": Option(aliases=["--target"], short="-d"),
                               "fast": Option("boolean", aliases=["--quick_mode"])})
    program = Program("tool", commands=[command])
    dest = command.options["dest"]
    assert (dest.flag, dest.short_flag, dest.alias_flags) == ("--dest", "-d", ("--target",))
    assert command.options["fast"].alias_flags == ("--quick-mode",)
    for argv in (["deploy", "--target", "x"], ["deploy", "-d", "x"], ["deploy", "--dest=x"]):
        doc = envelope(call(program, argv + ["--json"]))
        assert doc["data"]["dest"] == "x", argv
    entry = card(command)["options"][0]
    assert (entry["short"], entry["aliases"]) == ("-d", ["--target"])
    script = completion_script(program, "bash")
    assert "--target" in script and "----target" not in script and "--d " not in script
    doc = envelope(call(program, ["deploy", "--tagret", "x", "--json"]))
    assert doc["error"]["hint"] == "did you mean --dest?"   # the old name gives way


def test_a_deprecated_option_warns_in_meta():
    program = Program("tool", commands=[Command(
        "go", effects="read_only", run=lambda ctx: 1,
        options={"old": Option(replaced_by="--new"), "new": Option()})])
    doc = envelope(call(program, ["go", "--old", "x", "--json"]))
    assert doc["meta"]["warnings"] == ["--old is deprecated; use --new"]


def test_examples_are_checked_by_the_one_parser():
    from workbench.declaration.model import DefinitionError
    from workbench.runtime.checks import ensure_checked
    program = Program("tool", commands=[Command(
        "go", effects="read_only", run=lambda ctx: 1, options={"n": Option("integer")},
        examples=["tool go --n <n>", "tool go --n=3 --json", "tool go --n 3 --format ndjson"])])
    ensure_checked(program)
    bad = Program("tool", commands=[Command(
        "go", effects="read_only", run=lambda ctx: 1, options={"n": Option("integer")},
        examples=["tool go --format nd"])])
    with pytest.raises(DefinitionError, match="--format must be one of: json, ndjson"):
        ensure_checked(bad)


# -- hidden stays hidden -----------------------------------------------------------------------

def test_help_search_never_returns_commands_of_hidden_groups():
    program = Program("tool", commands=[
        Command("deploy", "deploy a build", effects="non_idempotent", run=lambda ctx: 1),
        Group("internal", "internal tools", hidden=True, commands=[
            Command("deploy-raw", "deploy a build without checks", effects="non_idempotent",
                    run=lambda ctx: 1)])])
    doc = envelope(call(program, ["help", "search", "deploy", "build", "--json"]))
    assert [r["command"] for r in doc["data"]["results"]] == ["deploy"]


@pytest.mark.parametrize("argv", [["--version", "--bogus"], ["sync", "--version", "--bogus"]])
def test_a_bad_option_beside_version_is_refused_with_a_fix_that_runs(argv):
    # The fix was `notes <command> --bogus --json`: a placeholder, and the bad flag kept.
    refused = envelope(notes(*argv, "--json"))
    fix = refused["error"]["fix"]
    assert refused["error"]["code"] == "unknown_option" and "--bogus" not in fix
    shown = notes(*fix.split()[1:])
    assert shown.exit == 0 and json.loads(shown.stdout)["version"] == notes_program.version
