"""A program served by `uvicorn app:app --workers N` from `workbench.mcp.asgi`, exactly as a
deployment would run it; for the scale-out test and benchmarks/scale_out.py."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from _mcp_helpers import TOKEN, authed
from _postgres import free_port

APP = """from workbench.mcp import asgi
app = asgi({file!r})
"""


async def call(url, name, arguments, mode="legacy"):
    """One tools/call over a fresh streamable-HTTP connection (the SDK's own client)."""
    import anyio
    from mcp import Client
    with anyio.fail_after(300):   # a hang fails the caller rather than blocking it forever
        async with Client(authed(url), mode=mode, cache=None) as client:
            return await client.call_tool(name, arguments)


async def worker_pids(url, workers, timeout=120.0) -> set:
    """Call `who` on fresh connections until `workers` processes have answered."""
    import json

    import anyio
    seen: set = set()
    deadline = time.monotonic() + timeout
    while len(seen) < workers:
        try:
            result = await call(url, "who", {})
            seen.add(json.loads(result.content[0].text)["data"]["pid"])
        except Exception:  # noqa: BLE001 - not listening yet
            if time.monotonic() > deadline:
                raise
            await anyio.sleep(0.1)
        if time.monotonic() > deadline:
            raise AssertionError(f"only {len(seen)} of {workers} workers answered")
    return seen


@contextlib.contextmanager
def uvicorn_pool(program_file, workers: int, env: dict, folder, server: str = "uvicorn"):
    """Serve `program_file` with `uvicorn app:app --workers N` (or gunicorn with uvicorn
    workers; app.py written to `folder`); yield the /mcp URL; stop the process group after."""
    app_dir = os.path.join(str(folder), "app")
    os.makedirs(app_dir, exist_ok=True)
    with open(os.path.join(app_dir, "app.py"), "w") as handle:
        handle.write(APP.format(file=str(program_file)))
    env = {"BURGEE_MCP_TOKEN": TOKEN, **env}   # every worker checks the same token
    port = free_port()
    log = open(os.path.join(str(folder), "uvicorn.log"), "w")
    argv = {"uvicorn": ["-m", "uvicorn", "app:app", "--app-dir", app_dir, "--host",
                        "127.0.0.1", "--port", str(port), "--workers", str(workers),
                        "--log-level", "warning"],
            "gunicorn": ["-m", "gunicorn", "app:app", "--chdir", app_dir, "-k",
                         "uvicorn_worker.UvicornWorker", "-w", str(workers), "-b",
                         f"127.0.0.1:{port}", "--log-level", "warning",
                         "--no-control-socket"]}[server]   # its default path is shared
    process = subprocess.Popen([sys.executable, *argv], env=env, stdin=subprocess.DEVNULL,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                               cwd=app_dir)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
