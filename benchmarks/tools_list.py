"""What an agent reads when it lists tools: burgee's tools/list against the SDK's own
`MCPServer` serving the same N tools (issue 37), and burgee at another revision (`--before`).

The tools are those of `scale.py`'s generated program (groups of 20 commands; options
`alpha` string, `beta` integer default 1, `gamma` boolean, `delta` enum x|y, each described;
read-only). The SDK program declares each as a typed function the way its documentation
writes one (`Annotated[str | None, Field(description=...)] = None`, ...), with the same name,
description and annotations. Each server is spawned over stdio and sent raw JSON-RPC
(initialize, initialized, tools/list, then tools/list with each `nextCursor`); what is
measured is the answer as it arrives: bytes of the JSON-RPC lines, and cl100k_base tokens
(tiktoken, offline) of the compact JSON of the `tools` list. Counting only: no timing, so the
figures are the same on any machine.

    .venv/bin/python benchmarks/tools_list.py [--tools 1000] [--before main] [--write]
    .venv/bin/python benchmarks/tools_list.py --smoke    # 10 tools: check that it runs

`--write` replaces the "tools/list size" section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench import add_smoke, command_line, parse, replace_section, unpack  # noqa: E402
from mcp_call import INIT  # noqa: E402
from scale import _shape, burgee_source  # noqa: E402

SECTION = "## tools/list size"

_SDK = textwrap.dedent('''
    from typing import Annotated, Literal

    from pydantic import Field
    from mcp.server import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer("big")
    READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True)


    def add(name, description):
        {body}
        server.add_tool(tool, name=name, description=description, annotations=READ_ONLY{extra})


''')
SDK_VARIANTS = {
    # as its documentation writes a tool: optional inputs are `X | None = None`
    "SDK `MCPServer`": ("""def tool(alpha: Annotated[str | None, Field(description="the alpha value")] = None,
                 beta: Annotated[int, Field(description="how many")] = 1,
                 gamma: Annotated[bool, Field(description="gamma or not")] = False,
                 delta: Annotated[Literal["x", "y"] | None,
                                  Field(description="which delta")] = None) -> str:
            return '{"ok": true}'""", ""),
    # the smallest listing it can give for these inputs: no `None` in any type (so no
    # anyOf), no output schema
    "SDK `MCPServer`, leanest": ("""def tool(alpha: Annotated[str, Field(description="the alpha value")] = "",
                 beta: Annotated[int, Field(description="how many")] = 1,
                 gamma: Annotated[bool, Field(description="gamma or not")] = False,
                 delta: Annotated[Literal["x", "y"], Field(description="which delta")] = "x"):
            return '{"ok": true}'""", ", structured_output=False"),
}
YARDSTICK = "SDK `MCPServer`, leanest"


def sdk_source(n: int, variant: str) -> str:
    """The same `n` tools on the SDK's `MCPServer`, written as `SDK_VARIANTS[variant]`."""
    body, extra = SDK_VARIANTS[variant]
    lines = [_SDK.replace("{body}", body).replace("{extra}", extra)]
    for g, commands in _shape(n):
        lines += [f"add('g{g}_c{c}', 'command {c} of group {g}')\n" for c in commands]
    lines.append("\nif __name__ == '__main__':\n    server.run('stdio')\n")
    return "".join(lines)


def listing(argv: list, env: dict) -> tuple[int, list]:
    """(bytes of every tools/list answer line, the tools) from a server spawned over stdio."""
    process = subprocess.Popen([sys.executable, *argv], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                               cwd=str(ROOT))
    assert process.stdin is not None and process.stdout is not None
    size, tools, cursor, ident = 0, [], None, 2
    try:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in INIT).encode())
        while True:
            request = {"jsonrpc": "2.0", "id": ident, "method": "tools/list"}
            if cursor is not None:
                request["params"] = {"cursor": cursor}
            process.stdin.write((json.dumps(request) + "\n").encode())
            process.stdin.flush()
            while True:
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError(f"{argv} ended before answering tools/list")
                message = json.loads(line)
                if message.get("id") == ident:
                    break
            size += len(line.rstrip(b"\n"))
            tools += message["result"]["tools"]
            cursor = message["result"].get("nextCursor")
            if cursor is None:
                return size, tools
            ident += 1
    finally:
        process.stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tokens(value) -> int:
    from workbench.dev.tokens import count
    return count(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _env(tree: Path, folder: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT", "CI")}
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(folder)])
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    return env


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def measure(n: int, before: str | None, folder: Path) -> dict:
    """{name: (bytes, tokens, tools)} for burgee now, burgee at `before` and the SDK."""
    module = f"big_burgee_{n}"
    (folder / f"{module}.py").write_text(burgee_source(n), encoding="utf-8")
    (folder / "run_burgee.py").write_text(f"import {module}\n{module}.main()\n")
    burgee = [str(folder / "run_burgee.py"), "mcp"]
    cases = {f"burgee now ({_git('rev-parse', '--short', 'HEAD')})": (burgee, ROOT)}
    if before:
        cases[f"burgee before ({_git('rev-parse', '--short', before)})"] = (
            burgee, unpack(before, folder))
    for index, variant in enumerate(SDK_VARIANTS):
        sdk = folder / f"sdk_tools_{index}.py"
        sdk.write_text(sdk_source(n, variant), encoding="utf-8")
        cases[variant] = ([str(sdk)], ROOT)
    found = {}
    for name, (argv, tree) in cases.items():
        size, tools = listing(argv, _env(tree, folder))
        assert len(tools) == n, (name, len(tools))
        found[name] = (size, _tokens(tools), tools)
    return found


def render(found: dict, n: int, options) -> str:
    sdk_bytes, sdk_tokens, _ = found[YARDSTICK]
    lines = [SECTION, "",
             f"tools/list of the same {n:,} tools (`scale.py`'s generated program: four "
             "described options each, read-only) as an agent receives it over stdio, raw "
             "JSON-RPC, every page; tokens are cl100k_base (offline) of the compact JSON of "
             "the `tools` list. Counts, not times: the same on any machine.", "",
             f"- Command: `{command_line()}`",
             f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
             f"1-minute load {os.getloadavg()[0]:.1f} (does not affect counts)", "",
             "Ratios are against the SDK's leanest listing of these inputs (no `None` in a "
             "type, no output schema); the first SDK row is a tool written as its "
             "documentation writes one.", "",
             "| server | bytes | × SDK leanest | tokens | × SDK leanest | bytes per tool |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, (size, tokens, _tools) in found.items():
        lines.append(f"| {name} | {size:,} | {size / sdk_bytes:.2f}× | {tokens:,} | "
                     f"{tokens / sdk_tokens:.2f}× | {size / n:,.0f} |")
    lines += ["", "What burgee's tools leave out of `tool CMD --schema` (docs/mcp.md): `$schema` "
              "(MCP's default dialect is draft 2020-12), `title` (the command path: the "
              "tool's name says it), `description` (the tool's own) and each property's "
              "`flag` (always `--` and the key with `-` for `_`; an MCP caller passes keys). "
              "Nothing an agent needs to call the tool goes: every type, enum, default, "
              "`required`, dependency, conflict and `additionalProperties: false` stays. The "
              "SDK's rows spend their bytes on a `title` per property (the key, capitalised), "
              "`anyOf` with `null` for each optional input, and an outputSchema wrapping a "
              "string result.", "", "The first tool as each lists it:", ""]
    for name, (_size, _tokens_, tools) in found.items():
        lines += [f"{name}:", "", "```json", json.dumps(tools[0], separators=(",", ":")),
                  "```", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000, help="tools listed (default 1000)")
    parser.add_argument("--before", default=None, metavar="REV",
                        help="also list with burgee at this revision (e.g. main)")
    parser.add_argument("--write", action="store_true",
                        help=f'replace the "{SECTION[3:]}" section of docs/performance.md')
    add_smoke(parser, tools=10)
    options = parse(parser, argv)
    with tempfile.TemporaryDirectory(prefix="burgee-tools-list-") as folder:
        found = measure(options.tools, options.before, Path(folder))
    text = render(found, options.tools, options)
    print(text)
    if options.write:
        replace_section(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
