"""The public surface: one version source, typed public signatures, `py.typed` shipped."""

import importlib.metadata
import inspect
import subprocess
import sys
import tomllib

import workbench
from conftest import ROOT, clean_env


def test_the_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "workbench.__version__"}
    assert importlib.metadata.version("burgee") == workbench.__version__
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "--version"], env=clean_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == f"burgee {workbench.__version__}\n"


def test_every_public_name_resolves_and_context_and_outcome_are_among_them():
    assert {"Context", "Outcome"} <= set(workbench.__all__)
    for name in workbench.__all__:
        assert getattr(workbench, name) is not None, name
    assert workbench.call.__annotations__["return"] == "Outcome"


def test_public_callables_annotate_every_parameter_and_the_return():
    for name in ("run", "call", "to_argv", "adapt", "asgi"):
        function = getattr(workbench, name)
        signature = inspect.signature(function)
        missing = [p for p, item in signature.parameters.items()
                   if item.annotation is inspect.Parameter.empty]
        assert missing == [] and signature.return_annotation is not inspect.Signature.empty, name


def test_the_package_says_it_is_typed():
    assert (ROOT / "workbench" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["workbench"]


def test_types_and_the_version_cost_nothing_at_start_up():
    """Annotations name their types under a local TYPE_CHECKING flag and the version is a
    string: the plain path never imports `typing` nor `importlib.metadata`."""
    for args in (["--version"], ["deploy", "--target", "staging", "--yes", "--json"],
                 ["help", "search", "deploy"]):
        done = subprocess.run([sys.executable, "-X", "importtime",
                               str(ROOT / "sample_programs" / "deploy.py"), *args],
                              env=clean_env(), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:")}
        assert "workbench" in imported, done.stderr[:500]
        assert not imported & {"typing", "importlib.metadata"}, args
