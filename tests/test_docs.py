"""The reference site: `mkdocs build --strict` passes, every public name has a reference entry,
and every constructor and entry point documents each of its parameters."""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from conftest import ROOT, clean_env
from workbench import testing

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

REFERENCE = ROOT / "docs" / "reference"
MISSING = [name for name in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers")
           if importlib.util.find_spec(name) is None]


@pytest.mark.skipif(bool(MISSING), reason=f"mkdocs is not installed ({', '.join(MISSING)}): "
                    "pip install -e '.[docs]' (the test extra includes it)")
def test_the_site_builds_with_strict(tmp_path):
    """A broken link, a page left out of the nav, a reference that does not resolve or a
    docstring griffe cannot read is a warning, and --strict makes it fail."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    done = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=clean_env(), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    command = (tmp_path / "site" / "reference" / "declaration" / "index.html").read_text()
    assert 'id="workbench.Command"' in command and "paginated" in command
    assert (tmp_path / "site" / "screenshots" / "overview.png").is_file()


def _entries() -> set[str]:
    found = set()
    for page in REFERENCE.glob("*.md"):
        found |= set(re.findall(r"^::: (workbench[\w.]*)", page.read_text(), flags=re.M))
    return found


def test_every_public_name_has_a_reference_entry():
    entries = _entries()
    names = [name for name in workbench.__all__ if not name.startswith("__")]
    missing = [name for name in names if f"workbench.{name}" not in entries]
    assert missing == [], f"add '::: workbench.NAME' to a page under docs/reference/: {missing}"
    index = (REFERENCE / "index.md").read_text()
    assert [name for name in names if f"`{name}`" not in index] == []


def _documented(obj) -> list[str]:
    """Parameters of `obj`'s signature that its docstring's Args section does not name."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    doc = inspect.getdoc(obj) or ""
    args = doc.split("Args:", 1)[1] if "Args:" in doc else ""
    names = [("**" if p.kind is p.VAR_KEYWORD else "") + p.name
             for p in inspect.signature(target).parameters.values() if p.name != "self"]
    return [name for name in names if not re.search(rf"^\s+{re.escape(name)}:", args, re.M)]


@pytest.mark.parametrize("obj", [
    workbench.Program, workbench.Group, workbench.Command, workbench.Option, workbench.Argument,
    workbench.Fail, workbench.run, workbench.call, workbench.to_argv, workbench.adapt,
    workbench.Context.confirm, workbench.Context.prompt, workbench.Context.action_required,
    workbench.Context.progress, testing.Runner, testing.Runner.invoke,
    testing.Runner.call, workbench.App, workbench.App.command, workbench.Opt, workbench.Arg,
    workbench.asgi],
    ids=lambda obj: obj.__qualname__)
def test_constructors_and_entry_points_document_every_parameter(obj):
    assert _documented(obj) == []


def test_the_handler_context_documents_what_it_holds():
    doc = inspect.getdoc(workbench.Context)
    for attribute in ("program", "command", "options", "args", "json", "agent", "interactive",
                      "environ", "plan"):
        assert re.search(rf"^\s+{attribute}:", doc, re.M), attribute


def test_the_getting_started_program_reads_the_same_in_both_forms(tmp_path):
    """The guide's data-form and typed-form to-do programs give byte-identical surfaces and
    envelopes, as the guide says."""
    from workbench.loader import load_program

    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    data_form, typed_form = [block for block in re.findall(r"```python\n(.*?)```", guide,
                                                           flags=re.S) if "ITEMS" in block]
    assert "Program(" in data_form and "App(" in typed_form
    runners = []
    for name, source in (("todo.py", data_form), ("todo_typed.py", typed_form)):
        (tmp_path / name).write_text(source, encoding="utf-8")
        runners.append(testing.Runner(load_program(str(tmp_path / name))))
    for argv in (["--help"], ["show", "--help"], ["--schema"], ["help", "--json"],
                 ["add", "--help", "--json"], ["completion", "bash"], ["show", "1", "--json"],
                 ["show", "7", "--json"], ["add", "buy milk", "--json"], ["add"]):
        data, typed = (runner.invoke(argv) for runner in runners)
        assert (typed.exit, typed.stdout, typed.stderr) == (data.exit, data.stdout, data.stderr)
    assert runners[0].call("show", {"id": 1}).result == runners[1].call("show", {"id": 1}).result
