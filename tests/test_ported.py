"""The four ported programs take the command lines their originals document, print what the
originals print and exit as they exit.

Each original (Typer's tutorial app, Click's `repo`, `naval` and `validation` examples) is kept
unchanged in `tests/originals/` and run in-process with its own library's `CliRunner`; our
port runs as a real process (the data form) and in-process (the typed form), on the same
command line. A prompt is answered through stdin for the original and through a simulated
terminal for ours (one through a real pseudo-terminal, too). Where a port accepts a line its
original refuses, the test says so: a program's options are also accepted after the
command's name here (issue 30), and a version line reads `name version`.
"""

from __future__ import annotations

import importlib.util
import runpy

import pytest

from conftest import ROOT, SAMPLES, clean_env, run_in_pty, run_program
from workbench.testing import Runner

ORIGINALS = ROOT / "tests" / "originals"
PORTED = SAMPLES / "ported"


def original(file: str):
    """The original's command object (Click or Typer), loaded from tests/originals."""
    spec = importlib.util.spec_from_file_location(f"original_{file}", ORIGINALS / f"{file}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "cli", None) or module.app


def run_original(file: str, name: str, argv, answers=None):
    """(exit, stdout, all it wrote) of the original on argv, answers typed on stdin."""
    target = original(file)
    if file.startswith("typer"):
        from typer.testing import CliRunner
        result = CliRunner().invoke(target, argv, input=answers, prog_name=name)
    else:
        from click.testing import CliRunner
        result = CliRunner().invoke(target, argv, input=answers, prog_name=name)
    return result.exit_code, result.stdout, result.output


def without_prompts(text: str, prompts) -> str:
    """The original's output with its prompt lines left out (Click echoes them on stdout)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not any(prompt in line for prompt in prompts))


# (original file, argv, answers for its prompts, how the port differs: None when it does not)
CASES = {
    "users": [
        ("typer_help", ["create", "Camila"], None, None),
        ("typer_help", ["delete", "Camila"], "y\n", None),
        ("typer_help", ["delete", "Wade"], "n\n", None),
        ("typer_help", ["delete-all"], "y\n", None),
        ("typer_help", ["delete-all"], "n\n", None),
        ("typer_help", ["delete-all", "--force"], None, None),
        ("typer_help", ["delete", "Camila", "--force"], None, None),
        ("typer_help", ["delete", "Camila", "--no-force"], None, None),
        ("typer_help", ["init"], None, None),
        ("typer_help", ["--help"], None, "help"),
        ("typer_help", ["delete", "--help"], None, "help"),
        ("typer_help", ["create"], None, None),
        ("typer_help", ["create", "--bogus", "x"], None, None),
        ("typer_callback", ["create", "Camila"], None, None),
        ("typer_callback", ["--verbose", "create", "Camila"], None, None),
        ("typer_callback", ["create", "--verbose", "Camila"], None, "after"),
    ],
    "repo": [
        ("click_repo", ["clone", "https://github.com/pallets/click.git"], None, None),
        ("click_repo", ["clone", "https://example.org/x.git", "dest", "--shallow", "-r", "v8"],
         None, None),
        ("click_repo", ["clone", "https://example.org/x.git", "--deep", "--rev", "main"], None,
         None),
        ("click_repo", ["--repo-home", "/tmp/r", "-v", "--config", "user.name", "ann",
                        "--config", "user.email", "ann@example.org", "clone", "src"], None,
         None),
        ("click_repo", ["--repo-home", "/tmp/repo-home", "delete", "--yes"], None, None),
        ("click_repo", ["--repo-home", "/tmp/repo-home", "delete"], "y\n", None),
        ("click_repo", ["--repo-home", "/tmp/repo-home", "delete"], "n\n", None),
        ("click_repo", ["setuser", "--username", "ann", "--email", "ann@example.org",
                        "--password", "secret"], None, None),
        ("click_repo", ["setuser"], "ann\nann@example.org\nsecret\nsecret\n", None),
        ("click_repo", ["commit", "-m", "Fix the bug", "-m", "And test it", "a.py", "b.py"],
         None, None),
        ("click_repo", ["commit", "--message", "One line"], None, None),
        ("click_repo", ["copy", "a.txt", "b.txt", "backup/"], None, None),
        ("click_repo", ["copy", "--force", "a.txt", "backup/"], None, None),
        ("click_repo", ["copy", "backup/"], None, None),
        ("click_repo", ["clone"], None, None),
        ("click_repo", ["--repo-home", "/tmp/r"], None, None),
        ("click_repo", ["clone", "--rev"], None, None),
        ("click_repo", ["--config", "key", "clone", "src"], None, None),
        ("click_repo", ["--help"], None, "help"),
        ("click_repo", ["--version"], None, "version"),
    ],
    "naval": [
        ("click_naval", ["ship", "new", "Titanic"], None, None),
        ("click_naval", ["ship", "move", "Titanic", "1.5", "2"], None, None),
        ("click_naval", ["ship", "move", "Titanic", "10", "20", "--speed", "5"], None, None),
        ("click_naval", ["ship", "shoot", "Titanic", "3", "4.25"], None, None),
        ("click_naval", ["mine", "set", "10", "20"], None, None),
        ("click_naval", ["mine", "set", "10", "20", "--drifting"], None, None),
        ("click_naval", ["mine", "set", "10", "20", "--moored"], None, None),
        ("click_naval", ["mine", "remove", "10", "20"], None, None),
        ("click_naval", ["ship", "move", "Titanic", "east", "2"], None, None),
        ("click_naval", ["ship", "move", "Titanic", "1", "2", "--speed", "fast"], None, None),
        ("click_naval", ["ship", "new"], None, None),
        ("click_naval", ["mine", "set", "1"], None, None),
        ("click_naval", ["ship", "sink", "Titanic"], None, None),
        ("click_naval", ["--help"], None, "help"),
    ],
    "validation": [
        ("click_validation", [], None, None),
        ("click_validation", ["--count", "4"], None, None),
        ("click_validation", ["--count", "4", "--foo", "wat", "--url",
                              "https://example.org/path?q=1"], None, None),
        ("click_validation", ["--url", "http://example.org"], None, None),
        ("click_validation", ["--count", "3"], None, None),
        ("click_validation", ["--count", "-2"], None, None),
        ("click_validation", ["--count", "many"], None, None),
        ("click_validation", ["--foo", "bar"], None, None),
        ("click_validation", ["--url", "ftp://example.org"], None, None),
        ("click_validation", ["--help"], None, "help"),
    ],
}

PROMPTS = ("Are you sure", "Do you want to continue", "Username", "E-Mail", "Password",
           "Repeat for confirmation")


def ours(name: str, argv, answers, typed: bool = False):
    """(exit, stdout) of our port: a real process, or in-process with a simulated terminal
    (answers typed at its prompts), or the typed form in-process."""
    if answers is None and not typed:
        done = run_program(PORTED / f"{name}.py", *argv, env=clean_env(HOME="/nonexistent"))
        return done.exit, done.stdout
    path = PORTED / "typed" / f"{name}.py" if typed else PORTED / f"{name}.py"
    found = runpy.run_path(str(path))
    program = found.get("program") or found["app"]
    result = Runner(program).invoke(argv, input=answers, terminal=answers is not None)
    return result.exit, result.stdout


def cases():
    for name, rows in CASES.items():
        for file, argv, answers, differs in rows:
            yield pytest.param(name, file, argv, answers, differs,
                               id=f"{name}: {' '.join(argv) or '(none)'}"
                                  + (f" <{answers.strip()!r}>" if answers else ""))


@pytest.mark.parametrize("name, file, argv, answers, differs", list(cases()))
def test_the_port_takes_the_original_s_command_line(name, file, argv, answers, differs):
    code, text, written = run_original(file, name, argv, answers)
    if differs == "after":   # the original refuses a program option after the command name
        assert code == 2 and "No such option" in written
        fixed = [argv[1], argv[0], *argv[2:]]
        code, text, _ = run_original(file, name, fixed)
    for typed in (False, True):
        our_code, our_text = ours(name, argv, answers, typed)
        assert our_code == code, (typed, our_code, our_text, code, text)
        if code == 0 and differs is None or differs == "after":
            assert our_text == without_prompts(text, PROMPTS), typed
        if differs == "version":
            assert our_text == f"{name} 1.0\n" and text == f"{name}, version 1.0\n"


SLOTS = {"<src>": "src", "<x>": "1", "<y>": "2", "<name>": "Titanic", "<username>": "Camila",
         "<rev>": "main", "VALUE": "value"}
"""What a caller writes for each slot a fix leaves to it (the one value only it knows)."""
COMMAND = {"naval": "new", "repo": "clone", "users": "create", "validation": ""}


def test_every_documented_refusal_of_the_port_carries_a_fix_that_runs():
    """Each line an original refuses, the port refuses too (above); following its fix (a
    slot filled with what only the caller knows) runs, within three steps."""
    for name, rows in CASES.items():
        program = runpy.run_path(str(PORTED / f"{name}.py"))["program"]
        runner = Runner(program)
        for _, argv, answers, differs in rows:
            if answers is not None or differs:
                continue
            doc = runner.invoke([*argv, "--json"]).envelope
            if doc is None or doc.get("ok") is not False or doc["error"]["exit"] != 2:
                continue
            for _ in range(3):
                fix = doc["error"].get("fix")
                assert fix, (name, argv, doc)
                for slot, value in {**SLOTS, "<command>": COMMAND[name]}.items():
                    fix = fix.replace(slot, value)
                again = runner.invoke(fix)
                doc = again.envelope
                if again.exit == 0:
                    break
            assert again.exit == 0, (name, argv, fix, again.stdout, again.stderr)


def test_a_person_at_a_real_terminal_answers_the_port_s_prompts():
    code, output = run_in_pty([PORTED / "repo.py", "setuser"], clean_env(),
                           {"Username:": "ann", "E-Mail:": "ann@example.org",
                            "Password:": "secret", "Repeat for confirmation:": "secret"})
    assert code == 0 and "Changed credentials." in output
    assert "secret" not in output   # hidden input is not echoed
    code, output = run_in_pty([PORTED / "users.py", "delete", "Camila"], clean_env(),
                           {"[y/N]": "y"})
    assert code == 0 and "Deleting user: Camila" in output


def test_nobody_at_a_terminal_is_never_asked_and_the_fix_answers():
    done = run_program(PORTED / "users.py", "delete", "Camila", "--json")
    error = done.json["error"]
    assert (done.exit, error["code"]) == (2, "input_required")
    assert error["fix"] == "users delete Camila --force --json"
    fixed = run_program(PORTED / "users.py", *error["fix"].split()[1:])
    assert fixed.exit == 0 and fixed.json["data"] == {"deleted": "Camila", "verbose": False}


def test_the_ports_over_mcp():
    naval = Runner(runpy.run_path(str(PORTED / "naval.py"))["program"])
    moved = naval.call("ship_move", {"ship": "Titanic", "x": 1.5, "y": 2})
    assert moved.json["data"] == {"ship": "Titanic", "x": 1.5, "y": 2.0, "speed": 10}
    assert moved.stdout.count("2.0") == 1   # floats are floats, over MCP too
    validation = Runner(runpy.run_path(str(PORTED / "validation.py"))["program"])
    refused = validation.call("validation", {"count": 3})
    assert refused.json["error"]["fix"] == '{"count":4}'
    assert validation.call("validation", {"count": 4}).json["data"]["count"] == 4
    repo = Runner(runpy.run_path(str(PORTED / "repo.py"))["program"])
    copied = repo.call("copy", {"src": ["a", "b"], "dst": "d", "verbose": True,
                                "config": [["k", "v"]]})
    assert copied.json["data"] == [{"from": "a", "to": "d"}, {"from": "b", "to": "d"}]
    assert copied.json["meta"]["output"]["stderr"] == "  config[k] = v\n"
    asked = repo.call("setuser", {"username": "ann"})
    assert asked.json["error"]["code"] == "input_required"
    assert asked.json["error"]["fix"] == '{"username":"ann","email":"<email>",' \
                                         '"password":"<password>"}'
