"""`tool mcp install` and `tool mcp doctor` through the real CLI, in a temporary HOME and project
folder (never the real ones): every client's file merged (other keys and servers kept, a
timestamped backup), a file that does not parse refused and left as it was, --dry-run, a second
run unchanged; doctor on a healthy setup and on broken ones, each finding naming its fix."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, Result, clean_env

NOTES = SAMPLES / "notes.py"
FILES = {  # (client, scope) -> the file, under HOME (user) or the project folder
    ("claude-code", "user"): "home/.claude.json",
    ("claude-code", "project"): "project/.mcp.json",
    ("claude-desktop", "user"): "home/.config/Claude/claude_desktop_config.json",
    ("cursor", "user"): "home/.cursor/mcp.json",
    ("cursor", "project"): "project/.cursor/mcp.json",
    ("vscode", "user"): "home/.config/Code/User/mcp.json",
    ("vscode", "project"): "project/.vscode/mcp.json",
    ("codex", "user"): "home/.codex/config.toml",
    ("codex", "project"): "project/.codex/config.toml",
    ("gemini", "user"): "home/.gemini/settings.json",
    ("gemini", "project"): "project/.gemini/settings.json",
}
KEY = {"vscode": "servers", "codex": "mcp_servers"}
EXISTING_TOML = ('model = "o3"  # a comment kept\n\n[mcp_servers.other]\ncommand = "other-server"\n'
                 'args = ["--flag"]\n\n[profiles.fast]\nmodel = "o4-mini"\n')


@pytest.fixture
def place(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return tmp_path


def _env(place: Path, **extra) -> dict:
    env = clean_env(HOME=place / "home", **extra)
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA"):
        env.pop(name, None)
    return env


def run(place: Path, *argv, program=NOTES, **extra) -> Result:
    return Result(subprocess.run([sys.executable, str(program), *argv], capture_output=True,
                                 text=True, env=_env(place, **extra), cwd=place / "project",
                                 timeout=60))


def burgee(place: Path, *argv) -> Result:
    return Result(subprocess.run([sys.executable, "-m", "workbench.cli", *argv],
                                 capture_output=True, text=True, env=_env(place),
                                 cwd=place / "project", timeout=60))


def _entry() -> dict:
    """The server entry `notes mcp config` prints."""
    [entry] = json.loads(subprocess.run(
        [sys.executable, str(NOTES), "mcp", "config", "--client", "cursor", "--json"],
        capture_output=True, text=True, env=clean_env(), check=True,
        cwd=ROOT).stdout)["data"]["data"]["mcpServers"].values()
    return entry


def _load(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def _backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".burgee-*.bak"))


@pytest.mark.parametrize("client,scope", sorted(FILES))
def test_install_merges_into_the_clients_file_and_a_second_run_changes_nothing(place, client,
                                                                              scope):
    path = place / FILES[client, scope]
    path.parent.mkdir(parents=True, exist_ok=True)
    key = KEY.get(client, "mcpServers")
    if path.suffix == ".toml":
        path.write_text(EXISTING_TOML, encoding="utf-8")
    else:
        path.write_text(json.dumps({"theme": "dark", key: {"other": {"command": "other-server"}},
                                    "projects": {"/x": {"allowedTools": []}}}, indent=4),
                        encoding="utf-8")
    os.chmod(path, 0o600)
    before = path.read_bytes()

    done = run(place, "mcp", "install", "--client", client, "--scope", scope, "--json")
    assert done.exit == 0, done
    data = done.json["data"]
    assert (data["action"], data["path"], data["dry_run"]) == ("added", str(path), False)
    assert done.json["meta"]["changed"] is True
    after = _load(path)
    assert after[key]["notes"] == data["entry"]
    assert data["entry"]["args"] == _entry()["args"]
    assert after[key]["other"]["command"] == "other-server"       # another server kept
    if path.suffix == ".toml":
        assert after["model"] == "o3" and after["profiles"] == {"fast": {"model": "o4-mini"}}
        assert "# a comment kept" in path.read_text(encoding="utf-8")
    else:
        assert after["theme"] == "dark" and after["projects"] == {"/x": {"allowedTools": []}}
        assert path.read_text(encoding="utf-8").startswith('{\n    "theme"')   # its indent
    [backup] = _backups(path)
    assert backup.read_bytes() == before and data["backup"] == str(backup)
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)          # permissions kept
    assert f"+++ {path}" in data["diff"] and '"notes"' in data["diff"] or \
        "[mcp_servers.notes]" in data["diff"]

    written = path.read_bytes()
    again = run(place, "mcp", "install", "--client", client, "--scope", scope)
    assert again.exit == 0, again
    assert again.stdout == f"notes in {path} is already this server: unchanged\n"
    assert path.read_bytes() == written and len(_backups(path)) == 1


def test_a_missing_file_is_created_with_its_folders_and_no_backup(place):
    done = run(place, "mcp", "install", "--client", "gemini", "--scope", "project")
    assert done.exit == 0, done
    path = place / FILES["gemini", "project"]
    assert done.stdout.startswith(f"added notes in {path}\n--- /dev/null\n+++ {path}\n")
    assert json.loads(path.read_text()) == {"mcpServers": {"notes": _entry()}}
    assert _backups(path) == []


def test_dry_run_prints_the_change_and_writes_nothing(place):
    path = place / FILES["cursor", "user"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"mcpServers": {}}\n')
    shown = run(place, "mcp", "install", "--client", "cursor", "--dry-run")
    assert shown.exit == 0, shown
    assert shown.stdout.startswith(f"would add notes in {path} (dry run: nothing written)\n")
    assert '+    "notes": {' in shown.stdout
    as_json = run(place, "mcp", "install", "--client", "cursor", "--dry-run", "--json").json
    assert (as_json["data"]["action"], as_json["data"]["dry_run"],
            as_json["meta"]["changed"]) == ("added", True, False)
    assert path.read_text() == '{"mcpServers": {}}\n' and _backups(path) == []


@pytest.mark.parametrize("client,text,reason", [
    ("vscode", '{\n  // my servers\n  "servers": {}\n}\n', "not valid JSON at line 2, column 3"),
    ("cursor", '{"mcpServers": {"a": 1,}}', "not valid JSON"),
    ("gemini", '["not", "an", "object"]', "holds a JSON list, not an object"),
    ("claude-code", '{"mcpServers": []}', "'mcpServers' is a list, not a table of servers"),
    ("codex", '[mcp_servers.notes\ncommand = "x"\n', "not valid TOML"),
    ("codex", '[mcp_servers]\nnotes = { command = "old" }\n', "cannot replace"),
])
def test_a_file_that_does_not_parse_is_refused_and_left_as_it_was(place, client, text, reason):
    path = place / FILES[client, "project"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    refused = run(place, "mcp", "install", "--client", client, "--scope", "project", "--json")
    assert refused.exit == 5, refused
    error = refused.json["error"]
    assert error["code"] == "invalid_config" and reason in error["message"], error
    assert error["message"].endswith("it was left as it was")
    assert error["hint"].startswith("fix or move that file, then run again; or add this")
    assert error["fix"] == f"notes mcp install --client {client} --scope project --json"
    assert path.read_bytes() == text.encode() and _backups(path) == []
    person = run(place, "mcp", "install", "--client", client, "--scope", "project")
    assert person.exit == 5 and person.stdout == ""
    assert person.stderr.startswith(f"error: {path} is not a file burgee can merge into")


def test_reinstalling_keeps_the_entrys_own_settings(place):
    path = place / FILES["codex", "user"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[mcp_servers.notes]\ncommand = "/moved/python"\nargs = ["/moved/notes.py", '
                    '"mcp"]\nstartup_timeout_sec = 30\n\n[mcp_servers.notes.env]\n'
                    'NOTES_FILE = "/data/notes.json"\n\n[other]\nkept = true\n')
    done = run(place, "mcp", "install", "--client", "codex", "--json")
    assert done.exit == 0, done
    assert done.json["data"]["action"] == "replaced"
    assert done.json["data"]["previous"]["command"] == "/moved/python"
    after = tomllib.loads(path.read_text())
    assert after["mcp_servers"]["notes"] == {**_entry(), "startup_timeout_sec": 30,
                                             "env": {"NOTES_FILE": "/data/notes.json"}}
    assert after["other"] == {"kept": True}
    assert run(place, "mcp", "install", "--client", "codex").stdout.endswith("unchanged\n")


def test_a_symlinked_file_is_written_through_the_link(place):
    real = place / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {"other": {"command": "x"}}}')
    link = place / FILES["cursor", "user"]
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert run(place, "mcp", "install", "--client", "cursor").exit == 0
    assert link.is_symlink() and set(json.loads(real.read_text())["mcpServers"]) == {"other",
                                                                                    "notes"}
    assert len(_backups(real)) == 1


def test_a_client_without_a_project_file_is_refused_with_the_fix(place):
    refused = run(place, "mcp", "install", "--client", "claude-desktop", "--scope", "project",
                  "--json")
    assert refused.exit == 2, refused
    assert refused.json["error"]["fix"] == "notes mcp install --client claude-desktop --json"
    assert not (place / "home" / ".config").exists()


def test_a_file_where_the_folder_should_be_is_refused_naming_it(place):
    (place / "home" / ".cursor").write_text("not a folder")
    refused = run(place, "mcp", "install", "--client", "cursor", "--json")
    assert refused.exit == 2, refused
    error = refused.json["error"]
    assert error["code"] == "unwritable"
    assert error["message"].startswith(f"cannot write {place / FILES['cursor', 'user']}: ")
    assert error["fix"] == "notes mcp install --client cursor --scope user --dry-run --json"
    assert (place / "home" / ".cursor").read_text() == "not a folder"


# doctor


def _findings(result) -> dict:
    return {item["check"]: item for item in result.json["data"]["findings"]}


def test_doctor_on_a_working_setup(place):
    assert run(place, "mcp", "install", "--client", "cursor").exit == 0
    done = run(place, "mcp", "doctor", "--json")
    assert done.exit == 0, done
    found = _findings(done)
    assert [found[k]["status"] for k in ("program", "server command", "mcp extra", "mcp server",
                                         "cursor (user)")] == ["ok"] * 5
    assert found["mcp server"]["message"].startswith("answered initialize as notes 0.3.0")
    assert "tools/list: 7 tool(s)" in found["mcp server"]["message"]
    contract = found["contract"]
    assert contract["status"] == "ok" and contract["fix"] is None
    assert contract["message"].startswith("burgee check, 3 call(s) per command (seed 0): ")
    assert ", 0 violations, recovery 100% (" in contract["message"]
    assert "next" not in done.json
    assert found["codex (user)"] == {
        "check": "codex (user)", "status": "absent",
        "message": f"no {place / FILES['codex', 'user']}",
        "fix": "notes mcp install --client codex --json"}
    assert found["claude-code (project)"]["fix"] == \
        "notes mcp install --client claude-code --scope project --json"
    assert "claude-desktop (project)" not in found
    person = run(place, "mcp", "doctor", "--client", "cursor")
    assert person.exit == 0 and person.stderr == ""
    assert person.stdout.splitlines()[-1] == "0 problem(s), 0 warning(s)"
    assert person.stdout.splitlines()[-3:] == [
        "--    not set up: cursor (project)",
        "      fix: notes mcp install --client <client> [--scope project]",
        "0 problem(s), 0 warning(s)"]


def test_doctor_names_each_broken_part_and_its_fix(place):
    moved = place / "gone.py"
    (place / FILES["cursor", "user"]).parent.mkdir(parents=True, exist_ok=True)
    (place / FILES["cursor", "user"]).write_text(json.dumps(
        {"mcpServers": {"notes": {"command": sys.executable, "args": [str(moved), "mcp"]}}}))
    (place / FILES["vscode", "project"]).parent.mkdir(parents=True, exist_ok=True)
    (place / FILES["vscode", "project"]).write_text('{"servers": {"notes": {}},}')
    (place / FILES["codex", "user"]).parent.mkdir(parents=True, exist_ok=True)
    (place / FILES["codex", "user"]).write_text(
        '[mcp_servers.notes]\ncommand = "/bin/cat"\nargs = []\n')
    noisy = place / "noisy.py"
    noisy.write_text('print("loading notes...")\n' + NOTES.read_text())
    done = run(place, "mcp", "doctor", "--json", program=noisy)
    assert done.exit == 1, done
    noise, line = done.stdout.splitlines()   # the program's own print, then the envelope
    assert noise == "loading notes..."
    envelope = json.loads(line)
    assert envelope["error"]["code"] == "setup_problems"
    found = {item["check"]: item for item in envelope["data"]["findings"]}
    server = found["mcp server"]
    assert server["status"] == "fail" and "'loading notes...'" in server["message"]
    assert server["fix"].startswith("print nothing to stdout outside a command")
    cursor = found["cursor (user)"]
    assert cursor["status"] == "fail" and f"{moved} does not exist" in cursor["message"]
    assert cursor["fix"] == "notes mcp install --client cursor --json"
    vscode = found["vscode (project)"]
    assert vscode["status"] == "fail" and "does not parse" in vscode["message"]
    assert vscode["fix"].startswith("fix or move that file")
    assert found["codex (user)"]["status"] == "warn"
    assert found["codex (user)"]["message"].endswith("starts another command: /bin/cat")
    assert envelope["data"]["summary"] == {"ok": 4, "fail": 3, "warn": 1, "absent": 8,
                                           "skipped": 0}
    assert envelope["next"] == [   # the failures whose fix is a command, in the caller's mode
        {"command": "notes mcp install --client cursor --json", "when": "to fix cursor (user)"}]
    person = run(place, "mcp", "doctor", program=noisy)
    assert person.exit == 1
    assert "FAIL  mcp server" in person.stdout and "fix: print nothing to stdout" in \
        person.stdout
    assert person.stderr.startswith("error: 3 problem(s); first, mcp server: ")
    assert person.stderr.endswith("next: notes mcp install --client cursor   # to fix cursor "
                                  "(user)\n")


SHAKY = '''from workbench import Command, Fail, Program, run


def look(ctx):
    raise Fail("gone", "no such thing", exit=3)


program = Program(name="shaky", version="1.0.0", description="Breaks its card", commands=[
    Command(name="look", description="Looks for a thing", effects="read_only",
            examples=["shaky look"], run=look)])

if __name__ == "__main__":
    run(program)
'''


def test_doctor_runs_the_contract_check_and_names_the_rule_broken(place):
    shaky = place / "project" / "shaky.py"
    shaky.write_text(SHAKY)
    done = run(place, "mcp", "doctor", "--client", "cursor", "--json", program=shaky)
    assert done.exit == 1, done
    contract = _findings(done)["contract"]
    assert contract["status"] == "fail"
    assert contract["message"].startswith("burgee check, 3 call(s) per command (seed 0): ")
    assert "C4 exit_on_card in 'look': " in contract["message"]
    assert contract["fix"].endswith(f" check {shaky} --json")
    assert done.json["error"]["message"].startswith("1 problem(s); first, contract: ")
    [step] = done.json["next"]
    assert step == {"command": contract["fix"], "when": "to fix contract"}
    followed = subprocess.run(shlex.split(step["command"]), capture_output=True, text=True,
                              env=_env(place), cwd=place / "project", timeout=300)
    assert followed.returncode == 1, followed.stderr   # runs as printed: the full check
    report = json.loads(followed.stdout)["error"]["report"]
    assert report["calls_per_command"] == 24
    assert "C4" in {violation["rule"] for violation in report["violations"]}
    person = run(place, "mcp", "doctor", "--client", "cursor", program=shaky)
    assert person.exit == 1
    assert "FAIL  contract" in person.stdout
    assert person.stderr.endswith(f" check {shaky}   # to fix contract\n")
    assert person.stderr.splitlines()[-1].startswith("next: ")
    skipped = run(place, "mcp", "doctor", "--client", "cursor", "--no-check", "--json",
                  program=shaky)
    assert skipped.exit == 0, skipped
    assert _findings(skipped)["contract"] == {
        "check": "contract", "status": "skipped", "message": "not run (--no-check)",
        "fix": contract["fix"]}


def test_doctor_gives_a_silent_server_its_timeout(place):
    slow = place / "slow.py"
    slow.write_text('import sys, time\nif sys.argv[1:] == ["mcp"]:\n    time.sleep(60)\n'
                    + NOTES.read_text())
    done = run(place, "mcp", "doctor", "--client", "cursor", "--timeout", "0.5", "--json", program=slow)
    assert done.exit == 1, done
    server = _findings(done)["mcp server"]
    assert server["message"] == "no answer to initialize within 0.5 s"
    assert server["fix"] == (f"run '{sys.executable} {slow} mcp' in a terminal and read what it "
                             "prints on stderr")


def test_doctor_on_a_file_that_does_not_load(place):
    broken = place / "project" / "broken.py"
    broken.write_text("from workbench import Program\nimport nosuchmodule\n")
    done = burgee(place, "doctor", str(broken), "--json")
    assert done.exit == 1, done
    found, contract = done.json["data"]["findings"]
    assert contract == {"check": "contract", "status": "skipped",
                        "message": "not run: the program did not load", "fix": "fix that first"}
    assert found["status"] == "fail"
    assert found["message"] == (f"{broken} does not load: ModuleNotFoundError: No module named "
                                "'nosuchmodule'")
    assert found["fix"].startswith(f"burgee dev {broken} shows the traceback")
    person = burgee(place, "doctor", str(broken))
    assert person.exit == 1 and person.stdout.startswith("FAIL  program  ")
    assert burgee(place, "doctor", str(place / "missing.py"), "--json").exit == 3
    working = burgee(place, "doctor", str(NOTES), "--client", "gemini", "--json")
    assert working.exit == 0, working
    assert _findings(working)["mcp server"]["status"] == "ok"


def test_doctor_finds_a_server_command_a_client_cannot_start():
    from workbench.runtime.doctor import check_command
    missing = check_command(["no-such-tool-xyz", "mcp"], {"PATH": "/nonexistent"})
    assert missing["status"] == "fail"
    assert missing["message"] == ("'no-such-tool-xyz' is not on PATH, so a client cannot start "
                                  "'no-such-tool-xyz mcp'")
    assert "console script" in missing["fix"]
    moved = check_command([sys.executable, "/nowhere/app.py", "mcp"], {})
    assert (moved["status"], moved["message"]) == ("fail", "/nowhere/app.py does not exist")
    assert check_command([sys.executable, str(NOTES), "mcp"], {})["status"] == "ok"


def test_an_installed_console_script_is_written_as_its_absolute_path(place):
    script = Path(sys.executable).parent / "burgee"
    if not script.is_file():
        pytest.skip("burgee's console script is not installed beside this Python")
    env = _env(place, PATH="/usr/bin:/bin")   # a client's short PATH: no venv on it
    done = Result(subprocess.run([str(script), "mcp", "install", "--client", "cursor", "--json"],
                                 capture_output=True, text=True, env=env, cwd=place / "project",
                                 timeout=60))
    assert done.exit == 0, done
    assert done.json["data"]["entry"] == {"command": str(script), "args": ["mcp"]}
    checked = Result(subprocess.run([str(script), "mcp", "doctor", "--client", "cursor", "--json"],
                                    capture_output=True, text=True, env=env,
                                    cwd=place / "project", timeout=60))
    assert checked.exit == 0, checked
    found = _findings(checked)
    assert found["mcp server"]["message"].startswith("answered initialize as burgee")
    assert found["contract"]["status"] == "skipped"   # an installed script: its file unknown
    assert found["contract"]["message"].startswith("not run: the program's file is not known")
    assert found["cursor (user)"]["status"] == "ok"


def test_each_clients_user_file_on_macos_and_windows():
    from workbench.surfaces.clients import config_file
    mac = {client: config_file(client, "user", "/Users/me", "/p", {}, "darwin")
           for client in ("claude-desktop", "vscode", "codex")}
    assert mac == {
        "claude-desktop": "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
        "vscode": "/Users/me/Library/Application Support/Code/User/mcp.json",
        "codex": "/Users/me/.codex/config.toml"}
    windows = config_file("claude-desktop", "user", "C:/Users/me", "/p",
                          {"APPDATA": "C:/Users/me/AppData/Roaming"}, "win32")
    assert windows.replace("\\", "/") == \
        "C:/Users/me/AppData/Roaming/Claude/claude_desktop_config.json"
    assert config_file("codex", "user", "/h", "/p", {"CODEX_HOME": "/c"}, "linux") == \
        "/c/config.toml"
    assert config_file("vscode", "user", "/h", "/p", {"XDG_CONFIG_HOME": "/x"}, "linux") == \
        "/x/Code/User/mcp.json"
    with pytest.raises(ValueError, match="claude-desktop has no project file"):
        config_file("claude-desktop", "project", "/h", "/p")


def test_doctor_sees_a_claude_code_local_entry_that_wins(place):
    claude = place / FILES["claude-code", "user"]
    claude.write_text(json.dumps({"projects": {str(place / "project"): {"mcpServers": {
        "notes": {"type": "stdio", "command": sys.executable,
                  "args": [str(place / "old" / "notes.py"), "mcp"]}}}}}))
    assert run(place, "mcp", "install", "--client", "claude-code").exit == 0
    done = run(place, "mcp", "doctor", "--client", "claude-code", "--json")
    assert done.exit == 1, done
    found = _findings(done)
    assert found["claude-code (user)"]["status"] == "ok"
    local = found["claude-code (local)"]
    assert local["status"] == "fail" and "old/notes.py does not exist" in local["message"]
    assert local["fix"].startswith("claude mcp remove notes -s local")
    assert json.loads(claude.read_text())["projects"]     # install kept the local entry


@pytest.mark.parametrize("client", ["codex", "cursor"])
def test_a_file_with_windows_line_endings_keeps_them(place, client):
    path = place / FILES[client, "user"]
    path.parent.mkdir(parents=True)
    text = EXISTING_TOML if client == "codex" else '{\n  "mcpServers": {}\n}\n'
    path.write_bytes(text.replace("\n", "\r\n").encode())
    assert run(place, "mcp", "install", "--client", client).exit == 0
    written = path.read_bytes()
    assert b"\r\n" in written and b"\n" not in written.replace(b"\r\n", b"")
    assert "notes" in _load(path)[KEY.get(client, "mcpServers")]
    assert run(place, "mcp", "install", "--client", client).stdout.endswith("unchanged\n")


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_doctor_stopped_takes_its_contract_check_with_it(place, signal_name):
    import signal
    import time
    slow = place / "project" / "slow.py"   # its server never answers: doctor waits on it
    slow.write_text('import sys, time\nif sys.argv[1:] == ["mcp"]:\n    time.sleep(60)\n'
                    + NOTES.read_text())
    doctor = subprocess.Popen([sys.executable, str(slow), "mcp", "doctor", "--client", "cursor",
                               "--timeout", "60", "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=_env(place), cwd=place / "project")
    try:
        deadline = time.monotonic() + 60
        checker = None
        while checker is None and time.monotonic() < deadline:
            for child in _children(doctor.pid):
                try:
                    if b"\0check\0" in Path(f"/proc/{child}/cmdline").read_bytes():
                        checker = child
                except OSError:   # it ended meanwhile
                    continue
            time.sleep(0.05)
        assert checker is not None, "the contract check never started"
        doctor.send_signal(getattr(signal, signal_name))
        doctor.communicate(timeout=60)
        assert doctor.returncode in (130, 143), doctor.returncode
        assert not Path(f"/proc/{checker}").exists(), "the contract check outlived doctor"
        while not _gone(checker) and time.monotonic() < deadline:   # its workers: killed
            time.sleep(0.05)
        assert _gone(checker), "a worker of the contract check outlived doctor"
    finally:
        if doctor.poll() is None:
            doctor.kill()
            doctor.communicate()
