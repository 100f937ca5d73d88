"""The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls in
its server scenarios, declared as commands: tests/test_mcp_official_conformance.py serves this
program and runs the suite against it."""

import time

from workbench import Command, Fail, Program, run


def simple_text(ctx):
    return "This is a simple text response for testing."


def error_handling(ctx):
    raise Fail("test_error", "This tool intentionally returns an error for testing",
               hint="nothing to fix: the conformance suite expects this error")


def with_progress(ctx):
    for done in (0, 50, 100):          # 0/100, ~50 ms, 50/100, ~50 ms, 100/100
        ctx.progress(done, 100)
        if done < 100:
            time.sleep(0.05)
    return {"progress": "done"}


program = Program(
    name="conformance", version="1.0.0", description="The conformance suite's test tools",
    commands=[
        Command(name="test-simple-text", description="Return a simple text", effects="read_only",
                run=simple_text, examples=["conformance test-simple-text"]),
        Command(name="test-error-handling", description="Always fail", effects="read_only",
                errors=[{"code": "test_error", "exit": 1, "when": "always"}],
                run=error_handling, examples=["conformance test-error-handling"]),
        Command(name="test-tool-with-progress", description="Report progress three times, "
                "50 ms apart", effects="read_only", run=with_progress,
                examples=["conformance test-tool-with-progress"]),
    ],
)

if __name__ == "__main__":
    run(program)
