"""Output for pipes and people (issue 31): TSV when piped, `--format table|tsv|json|ndjson`,
through real subprocesses, and a real pseudo-terminal for what a person sees."""

import json
import subprocess
import sys

from conftest import PROGRAMS, clean_env, run_in_pty

SHELF = PROGRAMS / "shelf.py"


def shelf(*args, **env):
    return subprocess.run([sys.executable, str(SHELF), *args], env=clean_env(**env),
                          capture_output=True, text=True, timeout=60)


def _unescape(cell):
    out, i = [], 0
    while i < len(cell):
        if cell[i] == "\\":
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[cell[i + 1]])
            i += 2
        else:
            out.append(cell[i])
            i += 1
    return "".join(out)


def _plain(screen):
    """A screen without its colour codes (SGR sequences) and erase-to-end codes."""
    import re
    return re.sub(r"\x1b\[[0-9;]*[mK]", "", screen)


def test_a_piped_list_is_tsv_with_a_header_of_json_field_names():
    done = shelf("books")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == 5   # header, three rows, the final newline
    assert lines[0] == "id\ttitle\tloc\ttags\tnote"
    rows = [line.split("\t") for line in lines[1:-1]]
    assert all(len(row) == 5 for row in rows)    # a tab or newline in a value never splits
    data = json.loads(shelf("books", "--json").stdout)["data"]
    for row, book in zip(rows, data):
        assert _unescape(row[1]) == book["title"]  # "nut 1", "tab\there", "back\\slash"
    assert rows[0][2] == '{"shelf":"A","bin":3}' and rows[0][3] == '["x","y"]'
    assert _unescape(rows[1][4]) == "line\nbreak"
    assert rows[2][2] == "" and rows[2][4] == ""   # null (and missing) is an empty cell
    assert "  " not in done.stdout and "\x1b" not in done.stdout   # no alignment, no colour


def test_a_piped_object_is_key_tab_value_lines():
    done = shelf("book", "--id", "2")
    assert done.stdout == 'id\t2\ntitle\ttab\\there\nloc\t{"shelf":"B"}\nnote\tline\\nbreak\n'


def test_a_piped_stream_is_tsv_rows_as_they_come():
    assert shelf("stream").stdout == "id\ttitle\n1\tnut 1\n2\ttab\\there\n3\tback\\\\slash\n"


def test_format_table_keeps_the_aligned_table_when_piped():
    done = shelf("books", "--format", "table")
    assert done.stdout.splitlines()[0].split() == ["ID", "TITLE", "LOC", "TAGS", "NOTE"]


def test_an_agent_gets_what_it_got_before_not_tsv():
    assert shelf("books", AI_AGENT="x").stdout == shelf("books", "--format", "table").stdout
    assert shelf("books", CLAUDECODE="1").stdout == shelf("books", "--format", "table").stdout


def test_format_json_is_the_json_envelope_and_ndjson_a_stream_as_before():
    assert shelf("books", "--format", "json").stdout == shelf("books", "--json").stdout
    lines = shelf("books", "--format=ndjson").stdout.splitlines()
    assert json.loads(lines[0])["@meta"]["format"] == "ndjson"
    assert [json.loads(line)["id"] for line in lines[1:-1]] == [1, 2, 3]
    assert json.loads(lines[-1])["@end"] == {"ok": True, "count": 3, "exit": 0}


def test_format_is_refused_with_the_choices_and_a_fix():
    done = shelf("books", "--format", "tvs", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "invalid_choice"
    assert error["message"] == "--format must be one of: json, ndjson, table, tsv; got 'tvs'"
    assert error["fix"] == "shelf books --format tsv --json"


def test_a_terminal_gets_the_table_and_format_tsv_wins_there():
    code, screen = run_in_pty([SHELF, "books"], clean_env(NO_COLOR="1"))
    assert code == 0 and screen.splitlines()[0].split() == ["ID", "TITLE", "LOC", "TAGS", "NOTE"]
    code, screen = run_in_pty([SHELF, "books", "--format", "tsv"], clean_env())
    assert "\x1b" not in screen   # no colour in TSV, even at a terminal
    assert screen.splitlines()[0] == "id\ttitle\tloc\ttags\tnote"


def test_a_scalar_piped_is_the_value():
    assert shelf("count").stdout == "3\n"


# -- --fields on every command (item 5) ----------------------------------------------------

def test_fields_keep_named_and_nested_fields_each_always_present():
    done = shelf("books", "--fields", "id,loc.shelf,note", "--json")
    assert json.loads(done.stdout)["data"] == [
        {"id": 1, "loc": {"shelf": "A"}, "note": None},
        {"id": 2, "loc": {"shelf": "B"}, "note": "line\nbreak"},
        {"id": 3, "loc": {"shelf": None}, "note": None}]   # unset and under a null: null
    one = json.loads(shelf("book", "--fields=title,loc.bin", "--json").stdout)
    assert one["data"] == {"title": "nut 1", "loc": {"bin": 3}}
    assert one["meta"]["provenance"]["fields"] == {"source": "flag", "location": "--fields"}


def test_fields_shape_what_a_pipe_gets_too():
    assert shelf("books", "--fields", "title,id").stdout == \
        "title\tid\nnut 1\t1\ntab\\there\t2\nback\\\\slash\t3\n"
    assert shelf("book", "--fields", "id,note").stdout == "id\t1\nnote\t\n"


def test_an_unknown_field_is_refused_naming_the_known_ones_from_the_schema():
    done = shelf("book", "--fields", "titel,id", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "unknown_field"
    assert error["message"] == ("unknown field: titel; known: id, title, loc, loc.shelf, "
                                "loc.bin, tags, note")   # the declared schema, not this data
    assert error["fix"] == "shelf book --fields title,id --json"
    person = shelf("book", "--fields", "nope")
    assert person.returncode == 2 and person.stdout == ""
    assert "error: unknown field: nope" in person.stderr and "next: shelf book --fields" \
        in person.stderr


def test_without_a_schema_the_known_fields_come_from_the_data():
    done = shelf("loose", "--fields", "a,x", "--json")
    assert json.loads(done.stdout)["error"]["message"] == \
        "the command ran, and unknown field: x; known: a, b, b.c"   # no schema: checked after
    assert json.loads(shelf("loose", "--fields", "b.c", "--json").stdout)["data"] == [
        {"b": {"c": 2}}, {"b": {"c": None}}]


def test_fields_on_a_stream_and_an_ndjson_stream():
    assert json.loads(shelf("stream", "--fields", "title", "--json").stdout)["data"] == [
        {"title": "nut 1"}, {"title": "tab\there"}, {"title": "back\\slash"}]
    lines = shelf("stream", "--fields", "id", "--format", "ndjson").stdout.splitlines()
    assert [json.loads(line) for line in lines[1:-1]] == [{"id": 1}, {"id": 2}, {"id": 3}]
    refused = shelf("stream", "--fields", "tite", "--format", "ndjson")
    end = json.loads(refused.stdout.splitlines()[-1])["@end"]
    assert refused.returncode == 2 and end["error"]["code"] == "unknown_field"
    assert end["error"]["fix"] == "shelf stream --fields title --format ndjson"


def test_fields_on_data_that_is_not_objects_is_refused_with_the_fix():
    done = shelf("count", "--fields", "a", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "fields_not_applicable"
    assert error["message"] == ("the command ran, and --fields picks fields of objects, and "
                                "'count' returned a number")
    assert error["fix"] == "shelf count --json"


def test_fields_without_a_value_is_refused():
    done = shelf("books", "--fields", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "missing_value"


def test_json_equals_fields_is_fields_and_json_in_one_flag():
    done = shelf("books", "--json=id,loc.shelf")
    assert done.returncode == 0
    assert json.loads(done.stdout)["data"] == [
        {"id": 1, "loc": {"shelf": "A"}}, {"id": 2, "loc": {"shelf": "B"}},
        {"id": 3, "loc": {"shelf": None}}]
    assert shelf("books", "--json=id", "--fields", "id").returncode == 0   # the same fields


def test_json_equals_fields_beside_other_fields_is_refused_keeping_the_rest():
    done = shelf("books", "--json=id", "--fields", "title", "--debug")
    error = json.loads(done.stdout)["error"]   # refused in the mode --json=... asked for
    assert done.returncode == 2 and error["code"] == "conflicting_options"
    assert error["fix"] == "shelf books --json=id --debug"
    assert shelf(*error["fix"].split()[1:]).returncode == 0


def test_json_with_a_space_never_takes_fields():
    done = shelf("books", "--json", "id")   # a positional argument, not a field list
    assert json.loads(done.stdout)["error"]["code"] == "unexpected_argument"


# -- counts and next steps (item 6) --------------------------------------------------------

def test_ctx_next_is_a_runnable_next_in_the_callers_mode():
    doc = json.loads(shelf("add", "--json").stdout)
    assert doc["next"] == [{"command": "shelf book --id 3 --json", "when": "to see it"}]
    line = doc["next"][0]["command"].split()
    assert json.loads(shelf(*line[1:]).stdout)["data"]["id"] == 3   # runs as printed
    end = json.loads(shelf("add", "--format", "ndjson").stdout.splitlines()[-1])["@end"]
    assert end["next"] == [{"command": "shelf book --id 3 --format ndjson", "when": "to see it"}]
    person = shelf("add")
    assert person.stderr == "next: shelf book --id 3   # to see it\n"


def test_a_paged_list_says_how_many_of_the_total():
    person = shelf("page", "--limit", "2")
    assert person.stdout == "n\n0\n1\n"
    assert person.stderr.splitlines() == [
        "2 of 120", "next: shelf page --limit 2 --cursor 2   # for the next page"]
    doc = json.loads(shelf("page", "--limit", "2", "--json").stdout)
    assert doc["page"] == {"count": 2, "has_more": True, "next_cursor": "2", "total": 120}


def test_a_next_page_keeps_the_fields_asked():
    doc = json.loads(shelf("page", "--limit", "2", "--fields", "n", "--json").stdout)
    assert doc["next"][0]["command"] == "shelf page --limit 2 --cursor 2 --fields n --json"


def test_a_dry_run_answers_with_the_apply_line(tmp_path):
    from conftest import SAMPLES
    store = tmp_path / "stock.json"
    argv = [sys.executable, str(SAMPLES / "warehouse.py"), "--store", str(store)]
    done = subprocess.run(argv + ["items", "restock", "--sku", "SKU-0003", "--count", "5",
                                  "--dry-run", "--json"], env=clean_env(), capture_output=True,
                          text=True, timeout=60)
    doc = json.loads(done.stdout)
    digest = doc["data"]["digest"]
    apply = doc["next"][0]
    assert apply["when"] == "to apply this plan"
    assert apply["command"].endswith(f"--expect-plan {digest} --json")
    assert "--dry-run" not in apply["command"]
    from workbench._text import split
    applied = subprocess.run([sys.executable, str(SAMPLES / "warehouse.py"),
                              *split(apply["command"])[1:]], env=clean_env(),
                             capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stdout   # the line runs as printed, and applies
    assert json.loads(applied.stdout)["ok"] is True


# -- a progress bar for a person (item 3) --------------------------------------------------

def test_a_person_at_a_terminal_sees_a_progress_bar_not_json():
    code, coloured = run_in_pty([SHELF, "slow", "--steps", "30"], clean_env())
    assert code == 0
    assert '{"progress"' not in coloured
    assert "[\x1b[32m\u2588" in coloured and "\x1b[2m\u2591" in coloured   # done green, rest dim
    plain = run_in_pty([SHELF, "slow", "--steps", "30", "--no-color"], clean_env())[1]
    assert "\x1b[K" in plain and "\x1b[3" not in plain and "\x1b[2m" not in plain
    assert plain.startswith("\r[\u2588")
    screen = _plain(coloured)
    frames = screen.split("\r\n")[0].split("\r")
    assert frames[1].startswith("[\u2588") and "1/30" in frames[1] and "copying" in frames[1]
    assert any("ETA" in frame and "/s" in frame for frame in frames[2:-1])   # rate, time left
    assert frames[-1].startswith("[" + "\u2588" * 10) and "30/30 100% copying" in frames[-1]
    assert screen.endswith("copied  30\r\n")   # the result on a line of its own


def test_an_agent_on_a_terminal_keeps_the_json_progress_lines():
    code, screen = run_in_pty([SHELF, "slow", "--steps", "3"], clean_env(AI_AGENT="x"))
    lines = screen.splitlines()
    assert json.loads(lines[0]) == {"progress": {"command": "slow", "done": 1, "total": 3,
                                                 "message": "copying"}}
    assert "\u2588" not in screen


def test_piped_a_progress_report_stays_off_unless_asked():
    assert shelf("slow", "--steps", "3").stderr == ""
    asked = shelf("slow", "--steps", "3", "--progress").stderr.splitlines()
    assert json.loads(asked[-1])["progress"]["done"] == 3


def test_progress_in_an_ndjson_stream_is_progress_lines_in_the_stream():
    done = shelf("slow", "--steps", "60", "--format", "ndjson", "--progress")
    assert done.returncode == 0 and done.stderr == ""   # in the stream, not on stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert list(lines[0]) == ["@meta"] and lines[-1] == {"@end": {"ok": True, "count": 1,
                                                                  "exit": 0}}
    reports = [line["@progress"] for line in lines if "@progress" in line]
    assert reports[0] == {"done": 1, "of": 60, "elapsed_ms": 0, "eta_ms": None,
                          "message": "copying"}
    assert reports[-1]["done"] == 60 and reports[-1]["eta_ms"] == 0
    assert reports[-1]["elapsed_ms"] >= 60 * 20 * 0.9 and 2 <= len(reports) < 60   # throttled
    for report in reports[1:-1]:
        assert report["eta_ms"] >= 0 and 0 < report["done"] < 60
    assert lines[-2] == {"copied": 60}
    quiet = shelf("slow", "--steps", "3", "--format", "ndjson")   # piped, not asked: none
    assert "@progress" not in quiet.stdout and quiet.stderr == ""


def test_a_stream_that_reported_progress_then_failed_has_one_meta_line():
    done = shelf("slow", "--steps", "5", "--fail-at", "2", "--format", "ndjson", "--progress")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 7 and [list(line)[0] for line in lines] == [
        "@meta", "@progress", "@end"]   # opened by the first report, closed by the failure
    assert lines[-1]["@end"]["error"]["code"] == "disk_full"


# -- colour for a person, never for an agent or a pipe (item 1) ---------------------------

BOLD_RED, CYAN, BOLD, RESET = "\x1b[1;31m", "\x1b[36m", "\x1b[1m", "\x1b[0m"


def test_errors_and_tables_are_coloured_at_a_terminal():
    code, screen = run_in_pty([SHELF, "book", "--fields", "titel"], clean_env())
    assert code == 2
    assert screen.startswith(BOLD_RED + "error:" + RESET + " unknown field: titel")
    assert CYAN + "next:" + RESET + " shelf book --fields title" in screen
    code, screen = run_in_pty([SHELF, "books"], clean_env())
    assert screen.startswith(BOLD + "ID  TITLE")


def test_help_headings_are_bold_at_a_terminal():
    code, screen = run_in_pty([SHELF, "--help"], clean_env())
    assert BOLD + "Usage:" + RESET in screen and BOLD + "Commands:" + RESET in screen


def test_no_color_and_the_no_color_flag_and_an_agent_and_a_dumb_terminal_turn_it_off():
    for argv, env in (([], {"NO_COLOR": "1"}), (["--no-color"], {}), ([], {"AI_AGENT": "x"}),
                      (["--no-color"], {"FORCE_COLOR": "1"}),
                      ([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}), ([], {"TERM": "dumb"})):
        code, screen = run_in_pty([SHELF, "book", "--fields", "titel", *argv], clean_env(**env))
        assert code == 2 and "\x1b" not in screen, (argv, env)
        assert screen.startswith("error: unknown field: titel")


def test_force_color_colours_a_pipe_and_nothing_else_does():
    assert "\x1b" not in shelf("book", "--fields", "titel").stderr
    forced = shelf("book", "--fields", "titel", FORCE_COLOR="1")
    assert forced.stderr.startswith(BOLD_RED + "error:" + RESET)
    assert "\x1b" not in shelf("book", "--fields", "titel", "--json", FORCE_COLOR="1").stdout
    assert "\x1b" not in shelf("book", "--fields", "titel", "--no-color", FORCE_COLOR="1").stderr


def test_no_color_turns_off_help_and_tables_too():
    for argv in (["--help", "--no-color"], ["books", "--no-color"], ["--no-color", "books"]):
        code, screen = run_in_pty([SHELF, *argv], clean_env())
        assert code == 0 and "\x1b" not in screen, argv


# -- --jq (item 5) -------------------------------------------------------------------------

def test_jq_filters_the_data_and_the_result_is_still_one_envelope():
    doc = json.loads(shelf("books", "--jq", "[.[] | .title]", "--json").stdout)
    assert doc["ok"] is True and doc["data"] == ["nut 1", "tab\there", "back\\slash"]
    assert json.loads(shelf("book", "--jq", ".loc.bin", "--json").stdout)["data"] == 3
    several = json.loads(shelf("books", "--jq", ".[].id", "--json").stdout)["data"]
    assert several == [1, 2, 3]                     # several results: a list
    assert shelf("books", "--jq", ".[0]").stdout.startswith("id\t1\ntitle\tnut 1\n")


def test_jq_after_fields_and_on_a_stream():
    doc = json.loads(shelf("books", "--fields", "id", "--jq", ".[1]", "--json").stdout)
    assert doc["data"] == {"id": 2}
    lines = shelf("stream", "--jq", ".[].id", "--format", "ndjson").stdout.splitlines()
    assert lines[1:-1] == ["1", "2", "3"]
    assert json.loads(lines[-1])["@end"]["count"] == 3


def test_a_bad_jq_expression_is_refused_with_a_fix():
    done = shelf("books", "--jq", ".[", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "invalid_jq"
    assert error["fix"] == "shelf books --jq . --json"
    failed = shelf("books", "--jq", ".a.b", "--json")
    error = json.loads(failed.stdout)["error"]
    assert failed.returncode == 2 and error["code"] == "jq_failed"
    assert "Cannot index array" in error["message"]


def test_a_next_page_keeps_fields_and_jq():
    doc = json.loads(shelf("page", "--limit", "3", "--fields", "n", "--jq", "length",
                           "--json").stdout)
    assert doc["data"] == 3
    assert doc["next"][0]["command"] == \
        "shelf page --limit 3 --cursor 3 --fields n --jq length --json"


def test_a_command_that_declares_no_color_itself_reads_it_as_the_global_flag_does():
    from workbench import Command, Option, Program
    from workbench.runtime.parser import parse
    program = Program(name="t", version="1", description="d", commands=[
        Command(name="show", description="Show", effects="read_only",
                options={"color": Option("boolean", "colour the diff")},
                examples=["t show --no-color"], run=lambda ctx: ctx.options.color)])
    request = parse(program, ["show", "--no-color"], {})
    assert request.flags["no_color"] is True and request.options["color"] is False
    assert parse(program, ["--no-color", "show"], {}).options["color"] is False
    assert parse(program, ["show", "--color"], {}).flags["no_color"] is False


# -- help that fits the terminal (item 1) ---------------------------------------------------

NOTES = PROGRAMS.parent.parent / "sample_programs" / "notes.py"


def _help_at(columns, *argv, **env):
    environ = clean_env(**env)
    environ.pop("COLUMNS", None)
    environ.pop("LINES", None)
    code, screen = run_in_pty([NOTES, *argv], environ, columns=columns)
    assert code == 0, screen
    return _plain(screen).replace("\r\n", "\n")


def _widest(text):
    """The longest line's length, a line of one word (a long path: it cannot wrap) aside."""
    return max(len(line) for line in text.splitlines() if len(line.split()) != 1)


def test_help_wraps_to_the_terminal_width_for_a_person():
    piped = subprocess.run([sys.executable, str(NOTES), "add", "--help"], env=clean_env(),
                           capture_output=True, text=True, timeout=60).stdout
    assert max(map(len, piped.splitlines())) == 80     # agents and pipes: the stable 80
    narrow, usual, wide = (_help_at(columns, "add", "--help") for columns in (60, 80, 120))
    assert _widest(narrow) <= 60 < _widest(usual) <= 80 < _widest(wide) <= 120
    assert len(narrow.splitlines()) > len(usual.splitlines()) > len(wide.splitlines())
    assert narrow.split() == usual.split() == wide.split()   # the same words, wrapped anew
    assert _help_at(120, "add", "--help", NO_COLOR="1").split() == usual.split()
    environ = clean_env(COLUMNS="100")   # $COLUMNS wins, as in Python's own shutil
    assert 80 < _widest(_plain(run_in_pty([NOTES, "add", "--help"], environ,
                                          columns=60)[1])) <= 100


def test_the_help_builtin_wraps_and_is_coloured_like_help():
    code, screen = run_in_pty([NOTES, "help", "add"], clean_env(), columns=60)
    assert BOLD + "Usage:" + RESET in screen
    assert _widest(_plain(screen).replace("\r\n", "\n")) <= 60


# -- a person's help (item 2) ---------------------------------------------------------------

def test_a_persons_help_keeps_agent_lines_to_one_closing_line():
    top = _help_at(80, "--help")
    assert "Built-in commands:\n  help [<path>...]" in top and "completion <shell>" in top
    assert "Built in:" not in top and "As data" not in top and "--schema  " not in top
    assert top.rstrip().endswith("For agents: 'notes help --json', 'notes --schema', 'notes "
                                 "mcp' (an MCP server),\n'notes skills'.")
    add = _help_at(80, "add", "--help")
    assert "Writes: each run changes data again." in add
    assert "Effects:" not in add and "non_idempotent" not in add
    assert "--idempotency-key" not in add and "As data" not in add
    assert add.rstrip().endswith("For agents: --json, 'notes add --help --json', "
                                 "'notes add --schema'.")
    assert "Read-only: changes nothing." in _help_at(80, "list", "--help")
    assert "Destructive: deletes or overwrites data; running it again changes nothing more." \
        in _help_at(80, "remove", "--help")
    group = _help_at(80, "sync", "--help")
    assert group.rstrip().endswith("For agents: 'notes help sync --json', 'notes sync --schema'.")


def test_an_agent_and_a_pipe_keep_the_full_help():
    for argv, env in ((["add", "--help"], {}), (["--help"], {})):
        piped = subprocess.run([sys.executable, str(NOTES), *argv], env=clean_env(),
                               capture_output=True, text=True, timeout=60).stdout
        assert "As data" in piped and ("Effects: non_idempotent" in piped or "Built in:" in piped)
        assert _help_at(80, *argv, AI_AGENT="x") == piped
    assert "--idempotency-key <key>" in _help_at(80, "add", "--help", AI_AGENT="x")


def test_the_effects_marker_is_coloured_for_a_person():
    code, screen = run_in_pty([NOTES, "remove", "--help"], clean_env())
    assert BOLD_RED + "Destructive:" + RESET in screen
    code, screen = run_in_pty([NOTES, "list", "--help"], clean_env())
    assert "\x1b[32mRead-only:" + RESET in screen and BOLD + "Options:" + RESET in screen


def test_progress_without_a_total_in_a_stream_says_of_and_eta_null_and_masks_the_message():
    from workbench import Command, Option, Program
    from workbench.testing import Runner

    def sync(ctx):
        ctx.progress(2, message=f"token {ctx.options.token}")
        yield {"synced": 2}
    program = Program(name="t", version="1", description="d", commands=[
        Command(name="sync", description="Sync", effects="read_only", run=sync,
                options={"token": Option("string", "secret", sensitive=True)},
                examples=["t sync"])])
    result = Runner(program).invoke(["sync", "--token", "s3cret-value", "--format", "ndjson",
                                     "--progress"])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[1] == {"@progress": {"done": 2, "of": None, "elapsed_ms": 0, "eta_ms": None,
                                      "message": "token ***"}}, lines
    assert "s3cret" not in result.stdout and lines[2] == {"synced": 2}


WRITER = '''
from workbench import Command, Option, Program, run

def add(ctx):
    with open(ctx.options.log, "a") as log:
        log.write("ran\\n")
    return {"id": 7, "title": "new"}

program = Program(name="writer", version="1.0", description="Write a log line", commands=[
    Command(name="add", description="Add a line", effects="non_idempotent", run=add,
            output={"type": "object", "properties": {"id": {"type": "integer"},
                                                      "title": {"type": "string"}}},
            options={"log": Option(type="string", required=True, description="log file")})])
run(program)
'''


def test_a_misspelt_field_is_refused_before_a_write_runs(tmp_path):
    """The declared schema names the fields, so `--fields titel` is refused before the
    handler: it used to run the write, then refuse its data (the effects done, the result
    lost)."""
    file, log = tmp_path / "writer.py", tmp_path / "log"
    file.write_text(WRITER)

    def call(*args):
        return subprocess.run([sys.executable, str(file), "add", "--log", str(log), *args],
                              env=clean_env(PYTHONPATH=str(PROGRAMS.parent.parent)),
                              capture_output=True, text=True, timeout=60)
    done = call("--fields", "titel", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "unknown_field", error
    assert error["fix"] == f"writer add --log {log} --fields title --json"
    assert error["effects"] == "none" and not log.exists()
    done = call("--fields", "title", "--json")
    assert json.loads(done.stdout)["data"] == {"title": "new"} and log.read_text() == "ran\n"
