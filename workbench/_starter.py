"""`burgee new NAME`: the files of a starter project, and writing them.

The project is a typed program (`app.py`), its tests on the testing helper (`test_app.py`), a
GitHub Actions job that runs those tests and `burgee dev app.py --headless`, a
`pyproject.toml` for pytest and a README. Every file is a template with `__NAME__` (the
program's name) and `__ENV__` (its environment prefix) filled in; nothing else varies, so a
second run over the same folder writes the same bytes (tests/test_new.py runs them all).
"""

from __future__ import annotations

import os
import re
import shlex

from workbench.declaration.model import Fail

NAME_RULE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
"""A program name: lower-case letters and digits, words joined by single hyphens, at most
40 characters (it becomes the command people type and the prefix of tool names)."""
MAX_NAME = 40

_APP = '''\
"""__NAME__: keep a short list of things to do (a starter made by `burgee new`).

Each command is a function; its hints are its inputs, its docstring its help, its return
annotation its output schema. Change them, then check every surface:

    python app.py --help
    python app.py add "write the docs" --json
    burgee dev app.py              # the live workbench
    burgee dev app.py --headless   # what CI runs
"""

import json
import os
from typing import Annotated, Optional, TypedDict

from workbench import Fail, run
from workbench.typed import App, Arg, Opt

app = App("__NAME__", version="0.1.0", description="Keep a short list of things to do")

Store = Annotated[Optional[str], Opt(
    "JSON file holding the list (default $XDG_STATE_HOME/__NAME__/items.json)",
    env="__ENV___FILE")]


class Item(TypedDict):
    id: int
    text: str
    done: bool


class Items(TypedDict):
    items: list[Item]
    count: int


@app.command(effects="non_idempotent", examples=["__NAME__ add 'write the docs'"],
             text=lambda item: f"added item {item['id']}")
def add(ctx, text: Annotated[str, Arg(stdin=True)], store: Store = None) -> Item:
    """Add an item to the list

    Args:
        text: what to do; - reads stdin
    """
    data = _load(store)
    item = {"id": data["next_id"], "text": text, "done": False}
    data["next_id"] += 1
    data["items"].append(item)
    _save(store, data)
    return item


@app.command("list", effects="read_only", examples=["__NAME__ list", "__NAME__ list --all"])
def list_items(all: Annotated[bool, Opt(short="a")] = False, store: Store = None) -> Items:
    """List the items not done yet

    Args:
        all: also list the items that are done
    """
    items = [item for item in _load(store)["items"] if all or not item["done"]]
    return {"items": items, "count": len(items)}


@app.command(effects="idempotent", examples=["__NAME__ done 1"],
             errors=[{"code": "not_found", "exit": 3, "when": "no item has that id"}])
def done(ctx, id: Annotated[int, Arg("the item's id")], store: Store = None) -> Item:
    """Mark an item done (again is fine: nothing changes)"""
    data = _load(store)
    for item in data["items"]:
        if item["id"] == id:
            ctx.changed(not item["done"])
            item["done"] = True
            _save(store, data)
            return item
    raise Fail("not_found", f"no item with id {id}", exit=3,
               hint="list the items to see their ids", fix="list --all")


def _path(store):
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return store or os.path.join(base, "__NAME__", "items.json")


def _load(store) -> dict:
    try:
        with open(_path(store), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {"next_id": 1, "items": []}


def _save(store, data) -> None:
    path = _path(store)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    run(app)
'''

_TEST = '''\
"""Tests for __NAME__, run in this process by burgee's testing helper (no subprocess)."""

import pytest

from workbench.testing import Runner

from app import app


@pytest.fixture
def runner(tmp_path):
    """A runner whose list lives in this test's own folder."""
    return Runner(app.program, env={"__ENV___FILE": str(tmp_path / "items.json")})


def test_add_then_list(runner):
    added = runner.invoke(["add", "write the docs", "--json"])
    assert added.exit == 0, added.stderr
    assert added.json["data"] == {"id": 1, "text": "write the docs", "done": False}
    listed = runner.invoke("list")   # one string, split like a shell; text for a person
    assert listed.exit == 0 and "write the docs" in listed.stdout


def test_done_changes_only_the_first_time(runner):
    runner.invoke(["add", "write the docs"])
    first = runner.invoke(["done", "1", "--json"])
    again = runner.invoke(["done", "1", "--json"])
    assert first.json["meta"]["changed"] is True
    assert again.json["meta"]["changed"] is False
    assert runner.invoke(["list", "--json"]).json["data"]["count"] == 0
    assert runner.invoke(["list", "--all", "--json"]).json["data"]["count"] == 1


def test_an_unknown_item_is_not_found_with_a_fix(runner):
    missing = runner.invoke(["done", "7", "--json"])
    assert missing.exit == 3
    assert missing.json["error"]["code"] == "not_found"


def test_an_agent_gets_the_same_answer_as_an_mcp_tool_call(runner):
    runner.call("add", {"text": "write the docs"})
    listed = runner.call("list", {"all": True})
    assert not listed.is_error
    assert listed.envelope["data"]["items"][0]["text"] == "write the docs"
'''

_WORKFLOW = '''\
# Runs the tests and checks that every surface of __NAME__ (help, schemas, MCP tools,
# completions...) matches the snapshots committed in .burgee/snapshots/.
# After an intended change, run `burgee dev app.py --headless --update` and commit the folder.
name: burgee
on: [push, pull_request]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
      # burgee is installed from its git repository (it is not on a package index); set the
      # repository variable BURGEE_GIT to the URL you clone it from
      - run: pip install "burgee[dev] @ git+${{ vars.BURGEE_GIT }}" pytest
      - name: tests
        run: pytest -q
      - name: every surface matches the committed snapshot
        run: burgee dev app.py --headless
'''

_PYPROJECT = '''\
# __NAME__'s settings; app.py is the program (run it with `python app.py`).
[tool.pytest.ini_options]
pythonpath = ["."]   # test_app.py imports app.py from here
testpaths = ["."]
addopts = "-p no:cacheprovider"

# Token budgets per surface for `burgee dev app.py --headless` (docs/ci.md), e.g.
# [tool.burgee.budgets]
# tools_list = 6000
'''

_README = '''\
# __NAME__

Keep a short list of things to do. A starter made by `burgee new __NAME__`: a program
declared with type hints (`app.py`), its tests (`test_app.py`) and a CI job
(`.github/workflows/burgee.yml`).

```sh
python app.py --help
python app.py add "write the docs"
python app.py list --json
python app.py mcp                           # serve it to agents over MCP (burgee[mcp])
pytest -q                                   # the tests, in process (workbench.testing)
burgee dev app.py                           # every surface, live (burgee[dev])
burgee dev app.py --headless --update       # write the snapshots CI compares against
```

Commit `.burgee/snapshots/` with the code: CI runs the tests and
`burgee dev app.py --headless`, which fails when a surface an agent reads (help, schemas,
MCP tools, completions) changed without an updated snapshot. Set the repository variable
`BURGEE_GIT` to the URL burgee is cloned from (CI installs it from there).
'''

_GITIGNORE = '''\
__pycache__/
.venv/
.burgee/snapshots/*.dashboard.failed.svg
'''

TEMPLATES = (
    ("app.py", _APP),
    ("test_app.py", _TEST),
    ("pyproject.toml", _PYPROJECT),
    ("README.md", _README),
    (".gitignore", _GITIGNORE),
    (".github/workflows/burgee.yml", _WORKFLOW),
)
"""(path in the project, template): the files `burgee new` writes, in this order."""


def check_name(name: str) -> None:
    """Refuse a NAME that is not a program name; the Fail names a valid spelling."""
    if len(name) <= MAX_NAME and NAME_RULE.match(name):
        return
    words = re.findall(r"[a-z0-9]+", name.lower())
    while words and not words[0][0].isalpha():
        words[0] = words[0].lstrip("0123456789")
        if not words[0]:
            words.pop(0)
    suggestion = "-".join(words)[:MAX_NAME].rstrip("-") or "tool"
    raise Fail("invalid_name", f"{name!r} is not a program name: use lower-case letters and "
               f"digits, words joined by '-', starting with a letter, at most {MAX_NAME} "
               f"characters", hint=f"for example {suggestion!r}", exit=1,
               fix=f"new {suggestion}")


def files(name: str) -> list[tuple[str, str]]:
    """(path, text) of every file of the starter project for program `name`."""
    env = name.upper().replace("-", "_")
    return [(path, text.replace("__NAME__", name).replace("__ENV__", env))
            for path, text in TEMPLATES]


def _next_steps(shown: str) -> list[str]:
    """The shell lines that test and open the new project, each runnable as printed: this
    environment's scripts by path when its venv is not active, pytest installed first when
    it is missing."""
    from importlib.util import find_spec
    from workbench.runtime.extras import pip_command, script
    burgee = shlex.quote(script("burgee"))
    steps = [f"cd {shlex.quote(shown)}"]
    if find_spec("pytest") is None:
        steps.append(f"{pip_command()} install pytest")
    steps += [f"{shlex.quote(script('pytest'))} -q", f"{burgee} dev app.py --headless --update",
              f"{burgee} dev app.py"]
    return steps


def write(name: str, folder: str, shown: str) -> dict:
    """Write the project for `name` into `folder` (`shown` is how the caller named it).

    An empty or missing folder is filled; a folder that already holds exactly these files is
    left alone (`written` is empty); any other non-empty folder is refused, naming a free one.
    """
    check_name(name)
    planned = files(name)
    done = {"name": name, "folder": shown, "files": [p for p, _ in planned], "written": [],
            "next": _next_steps(shown)}
    if os.path.isdir(folder) and os.listdir(folder):
        if all(_holds(folder, path, text) for path, text in planned):
            return done
        free = _free(folder, shown)
        raise Fail("folder_not_empty", f"{shown} already exists and is not empty; burgee new "
                   f"writes only into a new or empty folder", exit=5,
                   hint="choose another folder with --path, or empty this one",
                   fix=f"new {name} --path {shlex.quote(free)}")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise Fail("not_a_folder", f"{shown} exists and is not a folder", exit=5,
                   hint="choose another folder with --path",
                   fix=f"new {name} --path {shlex.quote(_free(folder, shown))}")
    for path, text in planned:
        target = os.path.join(folder, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    return {**done, "written": done["files"]}


def _holds(folder: str, path: str, text: str) -> bool:
    try:
        with open(os.path.join(folder, path), encoding="utf-8", newline="") as handle:
            return handle.read() == text
    except OSError:
        return False


def _free(folder: str, shown: str) -> str:
    """`shown` with the first suffix -2, -3, ... that names no existing non-empty folder."""
    for n in range(2, 1000):
        candidate = f"{folder.rstrip(os.sep)}-{n}"
        if not (os.path.exists(candidate) and (not os.path.isdir(candidate)
                                               or os.listdir(candidate))):
            return f"{shown.rstrip(os.sep)}-{n}"
    return f"{shown}-new"


def render(data: dict) -> str:
    """What a person reads after `burgee new`."""
    if not data["written"]:
        return f"{data['folder']} already holds the {data['name']} starter; nothing written"
    lines = [f"wrote {len(data['written'])} files into {data['folder']}:"]
    lines += [f"  {path}" for path in data["written"]]
    lines += ["next:"] + [f"  {step}" for step in data["next"]]
    return "\n".join(lines)
