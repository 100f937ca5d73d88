"""The README shows real, current output: each `$ command` in a ```console block runs (from the
repository's root, `python` being this interpreter) and prints exactly the lines under it, and
ends with the `[exit N]` shown; the program in its ```python block prints the same."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, clean_env

README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = "sample_programs/deploy.py"


def console_examples(text: str) -> list[tuple[str, str, int | None]]:
    """(command, expected output, exit or None) for every `$ ` line of every console block."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, rest = chunk.partition("\n")
            lines = rest.rstrip("\n").split("\n") if rest.strip() else []
            exit = None
            if lines and re.fullmatch(r"\[exit \d+\]", lines[-1]):
                exit = int(lines.pop()[6:-1])
            examples.append((command, "".join(line + "\n" for line in lines), exit))
    return examples


EXAMPLES = console_examples(README)


def _run(command: str) -> subprocess.CompletedProcess:
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=clean_env(PATH=path),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_the_readme_has_console_examples_with_exit_codes():
    assert len(EXAMPLES) >= 2 and all(exit is not None for _, _, exit in EXAMPLES)


@pytest.mark.parametrize("command, expected, exit", EXAMPLES, ids=[c for c, _, _ in EXAMPLES])
def test_a_console_example_prints_what_the_readme_shows(command, expected, exit):
    done = _run(command)
    assert done.stdout + done.stderr == expected
    assert done.returncode == exit


def test_the_readme_program_prints_the_same(tmp_path):
    """The ```python block, saved as a file, answers the console examples the same way."""
    source = next(block for block in re.findall(r"```python\n(.*?)```", README, flags=re.S)
                  if "Program(" in block)
    program = tmp_path / "deploy.py"
    program.write_text(source, encoding="utf-8")
    for command, expected, exit in EXAMPLES:
        if SAMPLE not in command:
            continue
        done = _run(command.replace(SAMPLE, str(program)))
        assert (done.stdout + done.stderr, done.returncode) == (expected, exit), command


@pytest.mark.slow
def test_the_getting_started_program_passes_its_own_test(tmp_path):
    """docs/getting-started.md: `todo.py` and `test_todo.py` as written, run with pytest."""
    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, flags=re.S)
    (tmp_path / "todo.py").write_text(next(b for b in blocks if "program = Program(" in b))
    (tmp_path / "test_todo.py").write_text(next(b for b in blocks if "Runner(program)" in b))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_todo.py"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr
