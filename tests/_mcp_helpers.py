"""Helpers for the MCP tests: the same environment for the CLI and the server, real processes."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_programs"
TOKEN = "test-token-" + "x" * 32
"""The bearer token the test HTTP servers get ($BURGEE_MCP_TOKEN) and the clients send."""


def authed(url: str, token: str | None = TOKEN):
    """A streamable-HTTP transport for `mcp.Client` that sends `Authorization: Bearer token`
    (none when token is None): `Client(authed(url), ...)` where a test had `Client(url)`."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    @contextlib.asynccontextmanager
    async def transport():
        headers = {"Authorization": f"Bearer {token}"} if token is not None else None
        async with create_mcp_http_client(headers=headers) as http, \
                streamable_http_client(url, http_client=http) as streams:
            yield streams
    return transport()


def bearer(token: str = TOKEN) -> dict:
    """The Authorization header, for raw HTTP requests (urllib, httpx)."""
    return {"Authorization": f"Bearer {token}"}


def caller_env(state: Path) -> dict:
    """Extra variables for both sides: state under `state`, no agent markers, no bytecode."""
    (state / "tmp").mkdir(parents=True, exist_ok=True)
    return {"HOME": str(state / "home"), "XDG_STATE_HOME": str(state / "xdg"),
            "TMPDIR": str(state / "tmp"), "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": str(ROOT)}


def full_env(extra: dict) -> dict:
    """Exactly what the SDK's stdio client gives a server process: its defaults plus `extra`."""
    from mcp.client.stdio import get_default_environment
    return get_default_environment() | extra


@functools.lru_cache(maxsize=None)
def _adapted(path: str) -> bool:
    from workbench.loader import load_program
    return any(c.adapter is not None for c in load_program(path).walk())


def adapted(file) -> bool:
    """Whether FILE is an undeclared (Click, Typer...) program that burgee adapts."""
    return _adapted(str(file))


def cli_argv(file, argv) -> list:
    """How a person runs FILE's program: the file itself, or `burgee run FILE --` if adapted."""
    if adapted(file):
        return [sys.executable, "-m", "workbench.cli", "run", str(file), "--", *argv]
    return [sys.executable, str(file), *argv]


def server_argv(file, *args) -> list:
    """`python FILE mcp ...`, or `burgee mcp FILE ...` for an adapted program."""
    if adapted(file):
        return ["-m", "workbench.cli", "mcp", str(file), *args]
    return [str(file), "mcp", *args]


def run_cli(file, argv, extra: dict, cwd) -> subprocess.CompletedProcess:
    """The CLI side of a CLI-vs-MCP comparison: FILE's program run with `extra` as an MCP
    call runs (an agent's: `context.mcp_call_environ`, the server's own rule)."""
    from workbench.runtime.context import mcp_call_environ
    return subprocess.run(cli_argv(file, argv), env=mcp_call_environ(full_env(extra)),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          cwd=str(cwd))


def as_sent(file, stdout: str) -> str:
    """The CLI's `--json` stdout as the MCP text of the same envelope: no final newline, the
    `next` steps as tool calls (`_failures.as_mcp_sends`, what the checker's C10 compares)."""
    from workbench.loader import load_program
    from workbench.runtime._failures import as_mcp_sends
    text = stdout[:-1] if stdout.endswith("\n") else stdout
    return as_mcp_sends(load_program(str(file)), text)


def stdio_params(file, extra: dict, cwd, *args):
    from mcp import StdioServerParameters
    return StdioServerParameters(command=sys.executable, args=server_argv(file, *args),
                                 env=dict(extra), cwd=str(cwd))


@contextlib.contextmanager
def http_server(file, extra: dict, cwd, *args, address="127.0.0.1:0", token=TOKEN):
    """`python FILE mcp --http 127.0.0.1:0` in a subprocess, its token `token` (None: a
    random one, printed); yields (url, process). Clients connect with `authed(url)`."""
    env = full_env(extra) | ({"BURGEE_MCP_TOKEN": token} if token is not None else {})
    process = subprocess.Popen([sys.executable, *server_argv(file, "--http", address, *args)],
                               env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=str(cwd))
    try:
        line = process.stderr.readline()
        assert "serving MCP at " in line, line + process.stderr.read()
        yield line.rsplit(" ", 1)[1].strip(), process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class State:
    """A state folder both transports use at the same path; `reset` puts back a saved copy."""

    def __init__(self, root: Path):
        self.root = root
        self.live = root / "live"
        self.saved = root / "saved"
        self.live.mkdir(parents=True, exist_ok=True)

    def save(self) -> None:
        if self.saved.exists():
            shutil.rmtree(self.saved)
        shutil.copytree(self.live, self.saved)

    def reset(self) -> None:
        shutil.rmtree(self.live)
        shutil.copytree(self.saved, self.live)


def text_of(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def wait_for_file(path, timeout=60.0) -> None:
    """Wait (in an async test) until `path` exists: a handler's sign that it started."""
    import anyio
    with anyio.fail_after(timeout):
        while not path.exists():
            await anyio.sleep(0.02)


def sample_files():
    return sorted(path for path in SAMPLES.glob("*.py") if not path.name.startswith("_"))


SAMPLE_VALUES = {"string": "x", "integer": 2, "number": 1.5, "boolean": True}


def made_up_call(command) -> list:
    """argv for a command that declares no examples (adapted programs): its required inputs
    with plain values of their types."""
    from workbench.runtime.arguments import to_argv
    arguments = {}
    for item in command.inputs:
        if not item.required:
            continue
        kind = item.items if item.type == "list" else item.type
        value = (item.choices or ["x"])[0] if kind == "enum" else SAMPLE_VALUES.get(kind, "x")
        many = item.type == "list" or getattr(item, "variadic", False)
        arguments[item.key] = [value] if many else value
    return to_argv(command, arguments)


def examples(program):
    """(command, example argv after the program name) for every example of every command;
    a made-up call for each command of a program that declares no examples at all."""
    from workbench._text import split
    commands = list(program.walk())
    if not any(command.examples for command in commands):
        for command in commands:
            yield command, made_up_call(command)
        return
    for command in commands:
        for example in command.examples:
            tokens = split(example)
            if tokens[:1] == [program.name]:
                tokens = tokens[1:]
            yield command, tokens


def os_environ_without_agents() -> dict:
    from conftest import AGENT_VARIABLES
    return {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
