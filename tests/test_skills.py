"""Skills and llms.txt: valid front matter, every listed command exists, budgets, the built-in."""

import os
import sys

import pytest

from conftest import SAMPLES, clean_env, run_program
from workbench.loader import load_program
from workbench.surfaces import skills

SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    head, _, _body = text[4:].partition("\n---\n")
    fields = {}
    for line in head.splitlines():
        key, _, value = line.partition(": ")
        if value.startswith('"'):
            assert value.endswith('"')
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        fields[key] = value
    return fields


def _listed(text: str, name: str) -> list:
    """Command paths a skill or llms.txt names in its `- \\`name ...\\`` lines."""
    out = []
    for line in text.splitlines():
        if line.startswith(f"- `{name} ") and "`:" in line:
            words = line[3:line.index("`:")].split()[1:]
            out.append(tuple(word for word in words if word != "..."))
    return out


def big_program(commands: int = 200):
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        from reload import generated_program
    finally:
        sys.path.pop(0)
    namespace: dict = {}
    exec(compile(generated_program(commands), "<big>", "exec"), namespace)
    return namespace["program"]


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_sample_skill_has_valid_front_matter_and_real_commands(path):
    program = load_program(str(path))
    files = skills.skill_files(program)
    assert files
    for relative, text in files.items():
        folder = relative.split("/")[0]
        fields = _front_matter(text)
        assert set(fields) == {"name", "description"}
        name = fields["name"]
        assert name == folder and 0 < len(name) <= 64
        assert all(c.islower() or c.isdigit() or c == "-" for c in name), name
        assert "--" not in name and not name.startswith("-") and not name.endswith("-")
        assert 0 < len(fields["description"]) <= 1024
        for command in _listed(text, program.name):
            assert program.find(command) is not None, (relative, command)
    llms = skills.llms_txt(program)
    assert llms.startswith(f"# {program.name}\n")
    listed = _listed(llms, program.name)
    assert listed and all(program.find(command) is not None for command in listed)
    assert {tuple(c.path) for c in program.walk() if not c.hidden} >= set(listed)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_sample_skill_keeps_to_its_budget(path):
    from workbench.dev import snapshot, tokens
    program = load_program(str(path))
    surfaces = snapshot.render(program)
    table = tokens.token_table(surfaces, tokens.budgets_for(program))
    rows = [row for row in table if row.kind in ("skill", "llms")]
    assert {row.kind for row in rows} == {"skill", "llms"}
    assert all(row.budget and not row.over for row in rows), rows


def test_a_large_program_gets_one_skill_per_group_each_small():
    program = big_program()
    files = skills.skill_files(program)
    assert len(files) == 1 + 20
    main = files["big/SKILL.md"]
    assert "skill `big-group-0`" in main and "cmd-3" not in main
    group = files["big-group-7/SKILL.md"]
    assert _listed(group, "big") == [("group-7", f"cmd-{c}") for c in range(10)]
    from workbench.dev import tokens
    assert max(tokens.count(text) for text in files.values()) < 2500


def test_skills_prints_the_skill_and_llms_txt(notes):
    shown = notes("skills")
    assert shown.exit == 0 and shown.stdout.startswith("---\nname: notes\n")
    llms = notes("skills", "--llms", "--json")
    assert llms.exit == 0 and llms.json["data"]["llms.txt"].startswith("# notes\n")
    every = notes("skills", "--json").json["data"]["files"]
    assert list(every) == ["notes/SKILL.md"]


def test_skills_client_claude_code_installs_into_its_skills_folder(tmp_path):
    home = tmp_path / "home"
    done = run_program(SAMPLES / "notes.py", "skills", "--client", "claude-code", "--json",
                       env=clean_env(HOME=home))
    assert done.exit == 0, done
    target = home / ".claude" / "skills" / "notes" / "SKILL.md"
    assert done.json["data"]["written"] == [str(target)]
    assert target.read_text(encoding="utf-8").startswith("---\nname: notes\n")


def test_skills_project_without_a_client_names_the_fix(notes):
    refused = notes("skills", "--project", "--json")
    assert refused.exit == 2
    assert refused.json["error"]["fix"] == "notes skills --client claude-code --project --json"


def test_skills_into_an_unwritable_folder_names_the_fix(notes, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    refused = notes("skills", "--dir", str(blocker / "under"), "--json")
    assert refused.exit == 2 and refused.stderr == ""
    assert refused.json["error"]["code"] == "unwritable"
    assert refused.json["error"]["fix"] == "notes skills --dir <folder> --json"
