"""What every benchmark shares: the `--smoke` flag, writing one section of
docs/performance.md, and an MCP client transport that sends the bearer token.

`--smoke` runs a benchmark once in a tiny configuration (seconds) so that
tests/test_benchmarks_smoke.py can check it still runs as written; its figures mean nothing,
so it never writes the doc.

`--in-place` (`add_in_place`): a benchmark whose figures include interpreter start-ups runs
itself again under a throwaway venv holding burgee as a regular wheel install
(`in_wheel_venv`), since an editable install's finder adds ~20 ms to every start and shrinks
every ratio; `--in-place` runs it under the current interpreter as it is.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE_MD = ROOT / "docs" / "performance.md"
SMOKE_HELP = ("run once in a tiny configuration to check the benchmark works (seconds; the "
              "figures mean nothing; never writes the doc)")


def add_smoke(parser: argparse.ArgumentParser, **tiny) -> None:
    """Add `--smoke` to `parser`: with it, `parse_args` sets each of `tiny`'s options to its
    tiny value and turns `--write` off."""
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    parser.set_defaults(_smoke_values=tiny)


def parse(parser: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """`parser.parse_args(argv)`, with `--smoke`'s tiny values applied."""
    options = parser.parse_args(argv)
    tiny = vars(options).pop("_smoke_values", {})
    if getattr(options, "smoke", False):
        for name, value in tiny.items():
            setattr(options, name, value)
        if hasattr(options, "write"):
            options.write = False
    return options


def replace_section(title: str, text: str, path: Path = PERFORMANCE_MD) -> None:
    """Put `text` (which starts with `title`, a `## ` heading) in place of that section of
    `path`, up to the next `## ` heading; append it when the section is missing."""
    doc = path.read_text(encoding="utf-8")
    start = doc.find(title + "\n")
    if start == -1:
        doc = doc.rstrip("\n") + "\n\n" + text
    else:
        end = doc.find("\n## ", start + len(title))
        doc = doc[:start] + text.rstrip("\n") + "\n" + ("" if end == -1 else doc[end:])
    path.write_text(doc.rstrip("\n") + "\n", encoding="utf-8")


def unpack(rev: str, folder: Path) -> Path:
    """burgee's `workbench` package at git revision `rev`, unpacked in `folder/before` (put it
    first on PYTHONPATH to run that revision)."""
    import subprocess
    tree = folder / "before"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev, "workbench"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def authed(url: str, token: str | None):
    """A streamable-HTTP transport for `mcp.Client` that sends `Authorization: Bearer
    token` (every burgee HTTP server requires it unless started with --no-auth)."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    @contextlib.asynccontextmanager
    async def transport():
        headers = {"Authorization": f"Bearer {token}"} if token is not None else None
        async with create_mcp_http_client(headers=headers) as http, \
                streamable_http_client(url, http_client=http) as streams:
            yield streams
    return transport()


def scratch(prefix: str) -> str:
    """A new temporary folder, removed with what is in it when the benchmark exits."""
    import atexit
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def save(path, text: str) -> float:
    """Save as editors do (write a temporary file, rename it over `path`); returns
    `time.perf_counter()` just after the rename."""
    temporary = str(path) + ".tmp~"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
    return time.perf_counter()


INSTALL_ENV = "BURGEE_BENCH_INSTALL"
"""Set by `in_wheel_venv` for the run it starts: how burgee was installed for it."""
SOURCE_ENV = "BURGEE_BENCH_SOURCE_PYTHON"
"""Set by `in_wheel_venv`: the interpreter it was started with (its venv's `bin/` holds the
peers' console scripts)."""


def add_in_place(parser: argparse.ArgumentParser) -> None:
    """Add `--in-place` (see the module)."""
    parser.add_argument("--in-place", action="store_true",
                        help="run under this interpreter as it is, instead of re-running in a "
                             "throwaway venv with burgee installed from a wheel (an editable "
                             "install's finder adds ~20 ms to every start and shrinks ratios)")


def command_line(argv: list | None = None, script: str | None = None) -> str:
    """The command that made this report, as it was typed: the interpreter the benchmark was
    started with (`in_wheel_venv` passes it on), the script and every argument (`argv`,
    default this run's, without the `--in-place` of the wheel venv's re-run), relative to
    the current folder."""
    import shlex
    argv = sys.argv[1:] if argv is None else list(argv)
    if in_wheel() and argv[-1:] == ["--in-place"]:
        argv = argv[:-1]
    def shown(path: Path) -> str:   # relative under the current folder, else absolute
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    python = Path(os.path.abspath(os.environ.get(SOURCE_ENV, sys.executable)))
    return shlex.join([shown(python), shown(Path(os.path.abspath(script or sys.argv[0]))),
                       *argv])


def install() -> str:
    """How burgee was installed for this run, for the report."""
    return os.environ.get(INSTALL_ENV, f"in place (`--in-place`): {sys.executable}")


def in_wheel() -> bool:
    """Whether this run is the one `in_wheel_venv` started (burgee installed from a wheel:
    never put the source tree on PYTHONPATH then)."""
    return INSTALL_ENV in os.environ


def source_bin() -> Path:
    """The `bin/` folder of the venv the benchmark was started from (its peers' console
    scripts), also under the wheel venv."""
    return Path(os.environ.get(SOURCE_ENV, sys.executable)).parent


def tree_path() -> dict:
    """The environment entries that make a child interpreter import burgee from this tree:
    PYTHONPATH=ROOT in place, nothing under the wheel venv (its install is this tree)."""
    return {} if in_wheel() else {"PYTHONPATH": str(ROOT)}


def in_wheel_venv(script: str, argv: list) -> int:
    """Run `script` again with `argv` and `--in-place` under a throwaway venv holding burgee
    as a regular wheel install (benchmarks/cold_start.py builds it); its exit code."""
    from cold_start import make_env
    name = Path(script).stem

    def log(message: str) -> None:
        print(f"{name}: {message}", file=sys.stderr, flush=True)
    env = make_env(sys.executable, log)
    try:
        log(f"install: {env.how}")
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return subprocess.run([env.python, script, *argv, "--in-place"],
                              env={**environ, INSTALL_ENV: env.how,
                                   SOURCE_ENV: sys.executable}).returncode
    finally:
        env.close(keep=False)
