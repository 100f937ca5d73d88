"""The agent contract on the command line.

Envelopes, agents, the parser and masking run in-process through `workbench.testing.Runner`
(the same pipeline `run(program)` drives); what only a real process shows — exit codes of the
process, signals, pipes, terminals, start-up imports, the `burgee` entry point — runs in a
subprocess.
"""

import json
import signal
import subprocess
import sys

import pytest

from conftest import PROGRAMS, SAMPLES, clean_env, run_in_pty, run_program, wait_until
from workbench.loader import load_program
from workbench.testing import Runner

KITCHEN = PROGRAMS / "kitchen.py"


@pytest.fixture(scope="module")
def deploy():
    return Runner(load_program(str(SAMPLES / "deploy.py")))


@pytest.fixture(scope="module")
def kitchen():
    return Runner(load_program(str(KITCHEN)))


@pytest.fixture
def notes(tmp_path):
    runner = Runner(load_program(str(SAMPLES / "notes.py")),
                    env={"NOTES_FILE": str(tmp_path / "notes.json")})
    runner.store = tmp_path / "notes.json"
    return runner


# --- envelopes -------------------------------------------------------------------------------

def test_success_envelope_is_one_compact_document():
    """Through a real process: the bytes on stdout, nothing on stderr, exit 0."""
    result = run_program(SAMPLES / "deploy.py", "deploy", "--target", "staging", "--yes", "--json")
    assert result.exit == 0 and result.stderr == ""
    assert result.stdout == (
        '{"ok":true,"data":{"target":"staging","build":"latest","agent":null},'
        '"meta":{"provenance":{"target":{"source":"flag","location":"--target"},'
        '"yes":{"source":"flag","location":"--yes"},"build":{"source":"default"}},'
        '"schema_version":"1"}}\n')


def test_the_runner_prints_what_the_process_prints(deploy):
    real = run_program(SAMPLES / "deploy.py", "deploy", "--target", "prod", "--json",
                       env=clean_env(CLAUDECODE="1"))
    here = deploy.invoke(["deploy", "--target", "prod", "--json"], agent="claude-code")
    assert (here.exit, here.stdout, here.stderr) == (real.exit, real.stdout, real.stderr)


def test_action_required_for_an_agent_has_runnable_next(deploy):
    result = deploy.invoke(["deploy", "--target", "prod", "--json"], agent="claude-code")
    assert result.exit == 4 and result.stderr == ""
    doc = result.json
    assert doc["ok"] is False and doc["status"] == "action_required"
    assert doc["next"][0]["command"] == "tool deploy --target prod --yes --json"
    assert doc["error"] == {"code": "action_required", "exit": 4,
                            "message": "deploying to prod needs confirmation",
                            "effects": "none"}


def test_next_runs_as_printed(deploy):
    first = deploy.invoke(["deploy", "--target", "prod", "--json"], agent="claude-code")
    second = deploy.invoke(first.json["next"][0]["command"], agent="claude-code")
    assert second.exit == 0 and second.json["data"]["agent"] == "claude-code"


def test_closed_stdin_without_terminal_or_agent_exits_4_and_never_hangs():
    result = run_program(SAMPLES / "deploy.py", "deploy", "--target", "prod", timeout=20)
    assert result.exit == 4
    assert "next: tool deploy --target prod --yes" in result.stderr
    assert result.stdout == ""


def test_human_action_required_goes_to_stderr_with_next_lines(kitchen):
    result = kitchen.invoke(["confirm"])
    assert result.exit == 4 and result.stdout == ""
    assert result.stderr.splitlines()[1] == "next: kitchen confirm --yes   # once the change is what you want"


def test_failure_envelope_with_hint_and_runnable_fix(kitchen):
    result = kitchen.invoke(["db", "fail", "--json"])
    assert result.exit == 5 and result.stderr == ""
    assert result.json == {"ok": False, "error": {
        "code": "conflict", "exit": 5, "message": "the thing is locked",
        "hint": "unlock it first", "fix": "kitchen unlock --force --json",
        "effects": "unknown"},   # non_idempotent: the handler began, what it did is unknown
        "meta": {"schema_version": "1"}}


def test_not_found_is_exit_3(notes):
    result = notes.invoke(["show", "999", "--json"])
    assert result.exit == 3
    assert result.json["error"]["code"] == "not_found"
    assert result.json["error"]["fix"] == "notes list --json"


def test_idempotent_commands_report_changed(notes):
    assert notes.invoke(["add", "milk", "--json"]).exit == 0
    first = notes.invoke(["tag", "1", "--tag", "x", "--json"]).json
    again = notes.invoke(["tag", "1", "--tag", "x", "--json"]).json
    assert first["meta"]["changed"] is True and again["meta"]["changed"] is False


def test_provenance_names_flag_env_default_stdin_and_argument(notes):
    result = notes.invoke(["add", "-", "--json"], input="from stdin\n")
    meta = result.json["meta"]["provenance"]
    assert meta["text"] == {"source": "stdin"}
    assert meta["store"] == {"source": "env", "location": "NOTES_FILE"}
    assert result.json["data"]["text"] == "from stdin"
    shown = notes.invoke(["show", "1", "--json"]).json["meta"]["provenance"]
    assert shown["id"] == {"source": "argument", "location": 1}


def test_human_output_uses_declared_text_else_a_tidy_default(deploy, notes):
    assert deploy.invoke(["deploy", "--target", "staging", "--yes"]).stdout == \
        "deployed latest to staging\n"
    status = deploy.invoke(["status"]).stdout
    assert status.splitlines()[0].split() == ["target", "staging"]
    notes.invoke(["add", "milk", "--tag", "home"])
    assert notes.invoke(["list"]).stdout == "  1  milk  #home\n"


def test_handler_exception_is_internal_without_traceback(kitchen):
    result = kitchen.invoke(["explode", "--json"])
    assert result.exit == 1 and result.stderr == ""
    assert result.json["error"]["code"] == "internal"
    assert "--debug" in result.json["error"]["hint"]


def test_debug_prints_the_traceback_on_stderr(kitchen):
    result = kitchen.invoke(["explode", "--debug", "--json"])
    assert result.exit == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert result.json["error"]["code"] == "internal"


def test_ctrl_c_exits_130(tmp_path):
    marker = tmp_path / "running"
    process = subprocess.Popen([sys.executable, str(KITCHEN), "sleep", "--json"],
                               env=clean_env(KITCHEN_MARKER=marker), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: marker.exists() or process.poll() is not None, "the handler to start")
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert json.loads(out)["error"]["code"] == "interrupted"
    assert "Traceback" not in err


def test_closed_stdout_pipe_ends_quietly():
    command = f"{sys.executable} {KITCHEN} many --format table | head -n 1"
    completed = subprocess.run(["bash", "-c", "set -o pipefail; " + command], env=clean_env(),
                               capture_output=True, text=True, timeout=60)
    assert completed.stdout == "0  " + "x" * 50 + "\n"   # a stream, printed as it comes
    assert completed.stderr == ""
    assert completed.returncode == 141


def test_a_broken_pipe_on_write_is_exit_141_without_noise():
    from workbench.runtime.pipeline import World, execute
    from workbench.loader import load_program

    class Closed:
        def write(self, text):
            raise BrokenPipeError

        def flush(self):
            pass

    import io
    err = io.StringIO()
    world = World({}, None, Closed(), err)
    code, _ = execute(load_program(str(KITCHEN)), ["many", "--count", "3"], world)
    assert code == 141 and err.getvalue() == ""


def test_version(deploy):
    assert deploy.invoke(["--version"]).stdout == "tool 1.0.0\n"
    from workbench.declaration.capabilities import capabilities
    assert deploy.invoke(["--version", "--json"]).json == {"name": "tool", "version": "1.0.0",
                                                           "capabilities": capabilities()}


# --- agents and terminals -------------------------------------------------------------------

@pytest.mark.parametrize("variable,value,name", [
    ("CLAUDECODE", "1", "claude-code"), ("CURSOR_AGENT", "1", "cursor"),
    ("CODEX_THREAD_ID", "t-1", "codex"), ("GEMINI_CLI", "1", "gemini"),
    ("COPILOT_AGENT", "1", "copilot"), ("AI_AGENT", "my-agent", "my-agent"),
    ("BURGEE_AGENT", "on", "agent"), ("BURGEE_AGENT", "aider", "aider")])
def test_agents_are_detected_from_the_environment(deploy, variable, value, name):
    result = deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"],
                           env={variable: value})
    assert result.json["data"]["agent"] == name


@pytest.mark.parametrize("override, marker, agent", [
    ("off", {"CLAUDECODE": "1"}, None), ("false", {"AI_AGENT": "x"}, None),
    ("auto", {"CLAUDECODE": "1"}, "claude-code"), ("auto", {}, None),
    ("on", {"CURSOR_AGENT": "1"}, "cursor"), ("", {"GEMINI_CLI": "1"}, "gemini")])
def test_burgee_agent_overrides_the_detection_both_ways(deploy, override, marker, agent):
    """A person in an agent's shell turns it off; a harness no variable names turns it on."""
    result = deploy.invoke(["deploy", "--target", "staging", "--yes", "--json"],
                           env={"BURGEE_AGENT": override, **marker})
    assert result.json["data"]["agent"] == agent


def test_ai_agent_is_checked_first(deploy):
    result = deploy.invoke(["deploy", "-t", "staging", "-y", "--json"],
                           env={"AI_AGENT": "first", "CLAUDECODE": "1"})
    assert result.json["data"]["agent"] == "first"


def test_no_agent_when_nothing_is_set(deploy):
    assert deploy.invoke(["deploy", "-t", "staging", "-y", "--json"]).json["data"]["agent"] is None


def _run_in_pty(argv, env, answer=None):
    """Run argv on a real pseudo-terminal; type `answer` when asked; return (exit, output)."""
    return run_in_pty(argv, env, {"[y/N]": answer} if answer is not None else None)


def test_a_person_at_a_terminal_is_asked_and_answers():
    code, output = _run_in_pty([str(SAMPLES / "deploy.py"), "deploy", "--target", "staging"],
                               clean_env(), answer="y")
    assert "deploy to staging? [y/N]" in output
    assert code == 0 and "deployed latest to staging" in output


def test_an_agent_on_a_terminal_is_never_prompted():
    code, output = _run_in_pty([str(SAMPLES / "deploy.py"), "deploy", "--target", "staging"],
                               clean_env(CLAUDECODE="1"))
    assert code == 4 and "[y/N]" not in output
    assert "next: tool deploy --target staging --yes" in output


def test_ci_with_force_tty_is_never_prompted(kitchen):
    result = kitchen.invoke(["confirm"], env={"FORCE_TTY": "1", "CI": "true"}, input="y\n")
    assert result.exit == 4


def test_prompt_without_a_person_names_the_flag(kitchen):
    result = kitchen.invoke(["ask", "--json"])
    assert result.exit == 2
    assert result.json["error"]["code"] == "input_required"
    assert result.json["error"]["fix"] == "kitchen ask --name <name> --json"


# --- the parser -----------------------------------------------------------------------------

@pytest.fixture
def echo(kitchen):
    def run(*args, env=None):
        result = kitchen.invoke(["echo", *args, "--json"], env=env)
        assert result.exit == 0, result
        return result.json["data"]
    return run


@pytest.fixture
def refusal(kitchen):
    def run(*args, env=None):
        result = kitchen.invoke(list(args), env=env)
        assert result.exit == 2, result
        if "--json" in args:
            assert result.stderr == ""
            return result.json["error"]
        assert result.stdout == ""
        return result.stderr
    return run


def test_long_short_equals_and_negated_flags(echo):
    data = echo("--name=ann", "-v", "--no-quiet", "--count", "3", "--ratio", "-0.5")
    assert data["options"]["name"] == "ann" and data["options"]["verbose"] is True
    assert data["options"]["quiet"] is False and data["options"]["count"] == 3
    assert data["options"]["ratio"] == -0.5


def test_short_value_attached_and_boolean_clusters(echo):
    data = echo("-nbob", "-vq")
    assert data["options"]["name"] == "bob"
    assert data["options"]["verbose"] is True and data["options"]["quiet"] is True


def test_lists_repeat_enums_and_positionals(echo):
    data = echo("--tag", "a", "--tag=b", "--color", "red", "one", "two", "three")
    assert data["options"]["tag"] == ["a", "b"] and data["options"]["color"] == "red"
    assert data["args"] == {"first": "one", "rest": ["two", "three"]}


def test_double_dash_ends_options_and_json_counts_only_before_it(kitchen):
    result = kitchen.invoke(["echo", "--json", "--", "--json", "-v"])
    data = result.json["data"]
    assert data["args"] == {"first": "--json", "rest": ["-v"]}
    human = kitchen.invoke(["echo", "--", "--json"])
    assert human.exit == 0 and not human.stdout.startswith("{")


def test_environment_sources_and_their_provenance(kitchen):
    result = kitchen.invoke(["echo", "--json"], env={"KITCHEN_SIZE": "7"})
    assert result.json["data"]["options"]["size"] == 7
    assert result.json["meta"]["provenance"]["size"] == {"source": "env",
                                                         "location": "KITCHEN_SIZE"}


def test_flag_beats_environment(kitchen):
    result = kitchen.invoke(["echo", "--size", "9", "--json"], env={"KITCHEN_SIZE": "7"})
    assert result.json["data"]["options"]["size"] == 9


def test_unknown_flag_names_the_nearest(refusal):
    error = refusal("echo", "--nmae", "x", "--json")
    assert error["code"] == "unknown_option" and "--name" in error["hint"]
    assert error["fix"] == "kitchen echo --name x --json"


def test_unknown_flag_without_a_near_one_lists_the_flags(refusal):
    error = refusal("echo", "--zzzzzz", "--json")
    assert "--name" in error["hint"] and error["fix"] == "kitchen echo --json"


def test_missing_value_shows_where_it_goes(refusal):
    error = refusal("echo", "--name", "--json")
    assert error["code"] == "missing_value"
    assert error["fix"] == "kitchen echo --name <name> --json"


def test_wrong_type_names_the_type(refusal):
    error = refusal("echo", "--count", "many", "--json")
    assert error["code"] == "invalid_value" and "integer" in error["message"]
    assert error["fix"] == "kitchen echo --count 1 --json"   # its default: what leaving it out gives


def test_wrong_choice_lists_the_choices_and_fixes_the_nearest(refusal):
    error = refusal("echo", "--color", "gren", "--json")
    assert error["code"] == "invalid_choice" and "red, green, blue" in error["message"]
    assert error["fix"] == "kitchen echo --color green --json"


def test_missing_required_option_shows_where_it_goes(deploy):
    result = deploy.invoke(["deploy", "--yes", "--json"])
    assert result.exit == 2
    assert result.json["error"]["fix"] == "tool deploy --yes --target <target> --json"


def test_missing_argument(notes):
    result = notes.invoke(["show", "--json"])
    assert result.exit == 2 and result.json["error"]["code"] == "missing_argument"
    assert result.json["error"]["fix"] == "notes show <id> --json"


def test_unexpected_argument(deploy):
    result = deploy.invoke(["status", "extra", "--json"])
    assert result.exit == 2 and result.json["error"]["code"] == "unexpected_argument"
    assert result.json["error"]["fix"] == "tool status --json"


def test_duplicate_single_value_option_is_refused(refusal):
    error = refusal("echo", "--name", "a", "--name", "b", "--json")
    assert error["code"] == "duplicate_option"


def test_unknown_command_lists_candidates_and_never_runs_a_guess(deploy):
    result = deploy.invoke(["delpoy", "--target", "prod", "--yes", "--json"])
    assert result.exit == 2
    error = result.json["error"]
    assert error["code"] == "unknown_command" and "deploy" in error["hint"]
    assert error["fix"] == "tool deploy --target prod --yes --json"


def test_unknown_command_in_a_group(notes):
    result = notes.invoke(["sync", "pusj", "--json"])
    assert result.json["error"]["fix"] == "notes sync push --json"


def test_human_refusal_is_text_on_stderr_with_a_next_line(refusal):
    text = refusal("echo", "--nmae", "x")
    assert text.splitlines() == ["error: 'echo' has no option --nmae",
                                 "hint: did you mean --name?", "next: kitchen echo --name x"]


def test_options_before_the_command_are_moved_in_the_fix(deploy):
    result = deploy.invoke(["--target", "x", "deploy", "--json"])
    assert result.exit == 2
    assert result.json["error"]["fix"] == "tool deploy --target x --json"


def test_bad_environment_value_names_the_variable(refusal):
    error = refusal("echo", "--json", env={"KITCHEN_SIZE": "big"})
    assert "$KITCHEN_SIZE" in error["message"]


# --- sensitive values -----------------------------------------------------------------------

CANARY = "canary-Zq81x-secret"


LEAKY = [
    ["sync", "push", "--token", CANARY, "--json"],
    ["sync", "push", "--token", CANARY],
    ["sync", "push", "--token", CANARY, "--bogus", "--json"],
    ["sync", "push", "--token", CANARY, "--bogus"],
    ["sync", "push", f"--token={CANARY}", "--remot", "x", "--json"],
    ["sync", "push", "--token", CANARY, "--debug", "--json"],
    ["sync", "pusj", "--token", CANARY, "--json"],
    ["sync", "push", "--help"],
    ["sync", "push", "--help", "--json"],
    ["sync", "push", "--schema"],
    ["help", "--json", "--level", "card"],
]


@pytest.mark.parametrize("args", LEAKY)
def test_a_sensitive_value_is_never_printed(notes, args):
    for env in (None, {"NOTES_TOKEN": CANARY}):
        result = notes.invoke(args, env=env)
        assert CANARY not in result.stdout + result.stderr, (args, result)


@pytest.mark.parametrize("args", [args for args in LEAKY if "--json" not in args])
def test_a_sensitive_value_is_never_printed_live_to_a_person(tmp_path, args):
    """A real process: what a person reads live passes the masking pipes on fds 1 and 2."""
    for env in (None, {"NOTES_TOKEN": CANARY}):
        result = run_program(SAMPLES / "notes.py", *args,
                             env=clean_env(NOTES_FILE=tmp_path / "n.json", **(env or {})))
        assert CANARY not in result.stdout + result.stderr, (args, result)


def test_a_sensitive_value_in_an_exception_message_is_hidden(kitchen):
    result = kitchen.invoke(["explode", "--password", CANARY, "--json"])
    assert result.exit == 1 and CANARY not in result.stdout
    assert "***" in result.json["error"]["message"]
    debug = kitchen.invoke(["explode", "--password", CANARY, "--debug", "--json"])
    assert CANARY not in debug.stdout + debug.stderr


def test_sensitive_fix_uses_the_environment_reference(notes):
    result = notes.invoke(["sync", "push", "--token", CANARY, "--bogus", "--json"])
    assert result.json["error"]["fix"] == "notes sync push --token $NOTES_TOKEN --json"


# --- the plain path stays light -------------------------------------------------------------

HEAVY = ("textual", "mcp", "tiktoken", "watchfiles", "jsonschema", "rich", "pydantic", "click",
         "typer", "anyio", "starlette", "uvicorn")


@pytest.mark.parametrize("args", [["--help"], ["deploy", "--target", "staging", "--yes", "--json"],
                                  ["deploy", "--targt", "x"], ["help", "--json"], ["--version"],
                                  ["status", "--help", "--json"], ["deploy", "--schema"]])
def test_the_plain_cli_path_imports_no_heavy_module(args):
    completed = subprocess.run([sys.executable, "-X", "importtime", str(SAMPLES / "deploy.py"),
                                *args], env=clean_env(), capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
    imported = {line.split("|")[-1].strip().split(".")[0]
                for line in completed.stderr.splitlines() if line.startswith("import time:")}
    assert imported, completed.stderr[:500]
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


# --- the burgee program ---------------------------------------------------------------------

def test_burgee_run_runs_a_declared_file():
    completed = subprocess.run([sys.executable, "-m", "workbench.cli", "run",
                                str(SAMPLES / "deploy.py"), "status", "--json"],
                               env=clean_env(), capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL)
    assert completed.returncode == 0
    assert json.loads(completed.stdout)["data"]["target"] == "staging"


def test_burgee_run_refuses_a_missing_file_clearly():
    completed = subprocess.run([sys.executable, "-m", "workbench.cli", "run", "nope.py", "x"],
                               env=clean_env(), capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL)
    assert completed.returncode == 3
    assert completed.stderr.startswith("error: cannot read") and "Traceback" not in completed.stderr


def test_burgee_schema_prints_the_program_schema():
    completed = subprocess.run([sys.executable, "-m", "workbench.cli", "schema",
                                str(SAMPLES / "notes.py"), "--json"],
                               env=clean_env(), capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    doc = json.loads(completed.stdout)
    assert doc["ok"] is True and doc["data"]["name"] == "notes"


def test_nearest_names_use_edit_distance_with_transpositions():
    from workbench._text import distance, nearest
    assert distance("--targt", "--target") == 1 and distance("delpoy", "deploy") == 1
    assert nearest("--nmae", ["--name", "--count"]) == ["--name"]
    assert nearest("zzzz", ["deploy", "status"]) == []
    assert nearest("lst", ["list", "restock"]) == ["list"]


def test_encode_matches_json_dumps_byte_for_byte():
    import json as _json_module
    from workbench.runtime.envelope import encode
    for doc in [{"a": [1, 2.5, -0.0, None, True, 'é"\n\u2028'], "b": {"c": 1e100}},
                [1, {"x": "\t"}], {1: 2}, "plain", 3]:
        assert encode(doc) == _json_module.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def test_a_small_document_is_encoded_in_python_byte_for_byte_as_json_dumps():
    """A command line's one call encodes its small envelope without loading `_json` (a
    shared library, ~0.2 ms): `_small` must write exactly what the C encoder writes."""
    import json as _json_module
    import random
    from workbench.runtime.envelope import SMALL, _small
    chars = ["a", "é", '"', "\\", "\n", "\t", "\b", "\f", "\r", "\x00", "\x1f", "\x7f",
             "\u2028", "\udcff", "😀", "/", "<", "'"]
    rng = random.Random(37)

    def text():
        return "".join(rng.choice(chars) for _ in range(rng.randrange(6)))

    def value(depth):
        kind = rng.randrange(9 if depth < 4 else 7)
        return [text, lambda: rng.randrange(-10 ** 20, 10 ** 20), lambda: rng.uniform(-1e9, 1e9),
                lambda: rng.choice([0.0, -0.0, 1e100, 5e-324, 0.1, 1.5e16]), lambda: None,
                lambda: rng.choice([True, False]), lambda: rng.randrange(3),
                lambda: [value(depth + 1) for _ in range(rng.randrange(4))],
                lambda: {text(): value(depth + 1) for _ in range(rng.randrange(4))}][kind]()

    left = 0
    for _ in range(2000):
        doc = {text(): value(0) for _ in range(rng.randrange(5))}
        expected = _json_module.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        encoded = _small(doc)
        assert encoded in (expected, None)
        left += encoded is None   # more than SMALL values
    assert left < 100
    assert _small({"a": [1, "x"], "": {}, "b": []}) == '{"a":[1,"x"],"":{},"b":[]}'
    # what it leaves to the C encoder (and its refusals, with their messages)
    for doc in [{"t": (1, 2)}, {"s": {1}}, {1: 2}, {"n": float("nan")}, {"i": float("inf")},
                {"b": True, "e": _Colour(1)}, list(range(SMALL)), {"x": 10 ** 5000}]:
        assert _small(doc) is None
    assert _small(list(range(SMALL - 1))) is not None


class _Colour(int):   # an int subclass (IntEnum-like): the C encoder writes it
    pass


def test_a_json_call_never_loads_the_c_encoder_for_a_small_envelope(tmp_path):
    probe, answer = tmp_path / "probe.py", tmp_path / "loaded.txt"
    probe.write_text(
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(answer)!r}, 'w').write(str('_json' in sys.modules)))\n"
        f"sys.argv[0] = {str(SAMPLES / 'deploy.py')!r}\n"
        "import runpy\n"
        f"runpy.run_path({str(SAMPLES / 'deploy.py')!r}, run_name='__main__')\n")
    completed = subprocess.run([sys.executable, str(probe), "status", "--json"], env=clean_env(),
                               capture_output=True, text=True, stdin=subprocess.DEVNULL,
                               timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["ok"] is True
    assert answer.read_text() == "False"


def test_encode_is_safe_from_several_threads_at_once():
    """Four threads encoding the same shared data (tuples and sets go through `_default`,
    which lets another thread in mid-document): every result is the same bytes, with no
    `Circular reference detected` nor KeyError from one thread's containers seen by another."""
    import json as _json_module
    import threading
    from workbench.runtime.envelope import encode
    shared = {"rows": [{"id": n, "tags": ("a", "b"), "seen": {1}} for n in range(50)]}
    doc = {"ok": True, "data": shared, "again": [shared["rows"][0], (shared["rows"][1],)]}
    expected = _json_module.dumps(_json_module.loads(encode(doc)), ensure_ascii=False,
                                  separators=(",", ":"))
    errors, results = [], []
    start = threading.Barrier(4)

    def work():
        start.wait()
        for _ in range(300):
            try:
                results.append(encode(doc))
            except Exception as error:  # noqa: BLE001 - collected, asserted below
                errors.append(repr(error))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)      # switch threads as often as the interpreter can
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and set(results) == {expected}, errors[:3]
