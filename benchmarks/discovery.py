"""Tokens an agent reads to find and call one tool: the full tools/list against progressive
discovery (tools/list, one search_tools, one describe_tool), at 50, 200 and 1,000 commands.

The program is generated (10 groups, one option each, one command described by what the agent
looks for); every figure is counted with cl100k_base (tiktoken, offline) on the compact JSON a
client receives: the tools/list result, and each call's arguments and result text. Counting
only: nothing is timed, so the figures are the same on any machine.

    .venv/bin/python benchmarks/discovery.py            # print the table
    .venv/bin/python benchmarks/discovery.py --smoke    # one small size (the test suite)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench import Command, Group, Option, Program  # noqa: E402


def program(commands: int, discovery: str) -> Program:
    per = max(1, commands // 10)

    def command(g, c):
        text = "Count the widgets of a bin" if (g, c) == (7, per // 2) else \
            f"Command {c} of group {g}: does one thing to a record"
        return Command(name=f"c{c}", description=text, effects="read_only",
                       run=lambda ctx: {"count": 3},
                       options={"name": Option(type="string", default="w",
                                               description="the record's name")},
                       examples=[f"big g{g} c{c} --name x"])
    return Program(name="big", version="1.0.0", description="A generated program",
                   discovery=discovery,
                   commands=[Group(name=f"g{g}", description=f"Group {g}",
                                   commands=[command(g, c) for c in range(per)])
                             for g in range(10)])


def measure(commands: int) -> dict:
    from workbench.dev.tokens import count
    from workbench.runtime.pipeline import call
    from workbench.runtime.toolcall import call_tool
    from workbench.surfaces.tools import list_tools

    def compact(data) -> str:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    full = program(commands, "full")
    progressive = program(commands, "progressive")
    listed_full = count(compact({"tools": list_tools(full)}))
    steps = [compact({"tools": list_tools(progressive)})]
    run = lambda command, argv: call(progressive, argv)   # noqa: E731
    for name, arguments in (("search_tools", {"query": "count widgets in a bin", "limit": 5}),
                            ("describe_tool", {"name": None})):
        if name == "describe_tool":
            arguments["name"] = found
        answer = call_tool(progressive, name, arguments, run)["content"][0]["text"]
        if name == "search_tools":
            found = json.loads(answer)["data"]["tools"][0]["name"]
        steps += [compact(arguments), answer]
    discovered = sum(count(step) for step in steps)
    return {"commands": len(list(full.walk())), "full": listed_full, "progressive": discovered,
            "ratio": round(discovered / listed_full, 3), "found": found}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="one small size (the test suite)")
    options = parser.parse_args(argv)
    sizes = (50,) if options.smoke else (50, 200, 1000)
    print("| commands | full tools/list (tokens) | discovery: list + search + describe | ratio |")
    print("|---:|---:|---:|---:|")
    for size in sizes:
        row = measure(size)
        print(f"| {row['commands']:,} | {row['full']:,} | {row['progressive']:,} | "
              f"{row['ratio']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
