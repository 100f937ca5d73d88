"""An MCP `tools/call` as data: arguments in, a CallToolResult (wire dict) out.

The MCP server (`workbench.mcp.server`) and the testing helper (`workbench.testing`) both run
a tool call through here, so a test's result is the server's, byte for byte, without the MCP
SDK: the arguments are checked (`check_arguments`), mapped to argv (`to_argv`), run as a
`--json` caller would, and the text result is the CLI's stdout without its final newline.
`isError` when the envelope is not ok; `structuredContent` is the envelope's `data` on success
when the tool declares an output schema. Nothing a caller sends raises: an unknown tool, bad
arguments and a crash are all tool results.
"""

from __future__ import annotations

from workbench.declaration.model import Fail
from workbench.runtime import envelope as _envelope
from workbench.runtime.arguments import check_arguments, to_argv, with_json
from workbench.surfaces import tools as _tools

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from workbench.declaration.model import Command, Program
    from workbench.runtime.pipeline import Outcome


def plan(program: Program, name: str, arguments: object
         ) -> tuple[Command, list[str]] | dict[str, Any]:
    """(command, argv) to run for a call of tool `name`, or the refusing result (a dict)."""
    command = _tools.callable_tool(program, name)
    twin = _tools.plan_twin(program, name) if command is None else None
    if twin is not None:   # `<tool>_plan`: the command's plan, changing nothing (issue 34)
        from workbench.runtime._agentic import plan_call
        return plan_call(twin, arguments)
    if command is None:
        if isinstance(name, str) and name in getattr(program, "ambiguous", ()):
            from workbench.runtime._agentic import ambiguous_tool   # issue 34
            return result(ambiguous_tool(program, name, arguments), False)
        return result(unknown_tool(program, name), False)
    refusal = check_arguments(command, arguments)
    if refusal is not None:
        return result(refusal, False)
    return command, with_json(to_argv(command, arguments or {}))  # type: ignore[arg-type]


def call_tool(program: Program, name: str, arguments: object,
              run: Callable[[Command, list[str]], Outcome], max_result_bytes: int | None = None,
              reraise: bool = False) -> dict[str, Any]:
    """The CallToolResult for tool `name` with `arguments`; `run(command, argv)` returns the
    `Outcome` of running argv (in-process: `workbench.runtime.pipeline.call`). A result over
    `max_result_bytes` (default: the server's, `workbench.runtime.serving`) is
    `result_too_large`, as the server answers. `reraise` lets an exception out of `run`
    propagate (a test's `Runner(catch_exceptions=False)`)."""
    try:
        from workbench.surfaces.discovery import answer
        discovered = answer(program, name, arguments)
        if discovered is not None:   # search_tools, describe_tool: answered here
            ok, data = discovered
            doc = _envelope.success(data) if ok else _envelope.refused(
                data["code"], data["message"], hint=data["hint"],
                fix=_envelope.encode(data["fix"]) if data["fix"] is not None else None,
                field=data.get("field"))
            return result(_envelope.stamp(doc, program.schema_version), ok)
        planned = plan(program, name, arguments)
        if isinstance(planned, dict):
            return planned
        command, argv = planned
        outcome = run(command, argv)
        if max_result_bytes is None:
            from workbench.runtime.serving import DEFAULT_MAX_RESULT_BYTES
            max_result_bytes = DEFAULT_MAX_RESULT_BYTES
        refusal = too_large(program, command, outcome, max_result_bytes)
        if refusal is not None:
            return result(refusal, False)
        return outcome_result(_tools.plan_twin(program, name) or command,  # type: ignore[arg-type]
                              outcome)   # a PlanTwin reads as the command it plans
    except Fail as fail:   # the output check without jsonschema installed
        return result(_envelope.stamp(_envelope.from_fail(fail, None), program.schema_version),
                      False)
    except Exception as error:  # noqa: BLE001 - a bug here is still a tool result
        if reraise:
            raise
        return internal_result(program, error)


def internal_result(program: Program, error: BaseException) -> dict[str, Any]:
    """The result for a failure of the server itself while running a call."""
    doc = _envelope.failure("internal", f"{type(error).__name__}: {error}", exit=1,
                            hint="the MCP server failed to run the command; "
                                 "run it on the command line with --debug")
    return result(_envelope.stamp(doc, program.schema_version), False)


def result(doc: dict[str, Any], ok: bool, text: str | None = None,
           structured: dict[str, Any] | None = None) -> dict[str, Any]:
    """A CallToolResult wire dict: one text content (the envelope's JSON unless `text`)."""
    out = {"content": [{"type": "text",
                        "text": _envelope.encode(doc) if text is None else text}],
           "isError": not ok}
    if structured is not None:
        out["structuredContent"] = structured
    return out


def outcome_result(command: Command, outcome: Outcome) -> dict[str, Any]:
    """The CallToolResult (wire dict) for what `runtime.call` gave.

    Data that breaks the command's output schema is an `invalid_output` error result (the
    same error `workbench.surfaces.output` gives everywhere), never a `structuredContent`
    the client's SDK would reject. Data the caller filtered with `jq` has no schema to keep
    (`jq` is offered only to tools without an outputSchema).
    """
    from workbench.surfaces.output import filtered_in
    text: str | None = outcome.stdout[:-1] if outcome.stdout.endswith("\n") else outcome.stdout
    doc = outcome.envelope
    if _fix_as_arguments(command, doc):
        text = None   # encoded again with the fix changed
    from workbench.runtime._failures import mcp_steps
    if mcp_steps(command.program, doc):
        text = None   # each `next` step as the tool call to send
    ok = doc.get("ok") is True if isinstance(doc, dict) else outcome.exit == 0
    if ok and isinstance(doc, dict) and command.output and not filtered_in(doc):
        from workbench.runtime.extras import require
        from workbench.surfaces.output import output_problem, projected_in
        require("validate", f"checking the output schema of tool {command.tool_name!r}")
        problem = output_problem(command, doc.get("data"), projected_in(doc))
        if problem is not None:
            meta = doc.get("meta")
            if not isinstance(meta, dict):
                meta = {}
            return result(_envelope.stamp(_envelope.from_output_problem(problem),
                                          meta.get("schema_version", "1")), False)
    return result(doc or {}, ok, text=text, structured=structured_content(command, doc))


def structured_content(command: Command, doc: object) -> dict[str, Any] | None:
    """The `structuredContent` of a result: the data of a success of a command with an output
    schema, when it is an object (the MCP rule); else None."""
    if isinstance(doc, dict) and doc.get("ok") is True and isinstance(doc.get("data"), dict) \
            and _tools.output_schema(command) is not None:
        return doc["data"]
    return None


def wire_bytes(command: Command, outcome: Outcome) -> int:
    """The bytes a result puts on the wire: its text as a JSON string (quotes and backslashes
    escaped), and its data once more as `structuredContent` when that is sent."""
    text = outcome.stdout
    size = len(text.encode("utf-8", "surrogatepass")) + text.count('"') + text.count("\\")
    data = structured_content(command, outcome.envelope)
    if data is not None:
        size += len(_envelope.encode(data).encode("utf-8", "surrogatepass"))
    return size


def _fix_as_arguments(command, doc) -> bool:
    """A usage refusal (exit 2) the original of an adapted command made (a range, a custom
    type) names its fix as a command line; over MCP an argument refusal's fix is the
    arguments to send (compact JSON), so turn it into them. True when the fix was changed."""
    error = doc.get("error") if isinstance(doc, dict) else None
    if not isinstance(error, dict):
        return False
    fix = error.get("fix")
    program = command.program
    if not isinstance(fix, str) or command.adapter is None or \
            error.get("exit") != _envelope.EXIT_USAGE or not fix.startswith(program.name + " "):
        return False
    import shlex

    from workbench.runtime.arguments import from_argv
    try:
        found, arguments = from_argv(program, shlex.split(fix), placeholders=True)
    except ValueError:
        return False
    if found is not command:
        return False
    error["fix"] = _envelope.encode(arguments)
    return True


def too_large(program: Program, command: Command, outcome: Outcome, limit: int
              ) -> dict[str, Any] | None:
    """The `result_too_large` envelope when the result of `outcome` would put more than
    `limit` UTF-8 bytes on the wire (`wire_bytes`; it is then never encoded), else None.
    Names the paging arguments when the command is paginated."""
    if len(outcome.stdout) * 10 <= limit:   # even escaped, with its data again, it fits
        return None
    size = wire_bytes(command, outcome)
    if size <= limit:
        return None
    name = " ".join(command.path)
    if command.paginated:
        hint = ("ask for a page at a time: --limit N (tool argument limit), then --cursor "
                "with the next_cursor it gives (cursor), and --fields a,b (fields) for only the "
                "fields you need")
    else:
        hint = ("ask for less with the command's own options; or whoever starts the server "
                "raises the limit with --max-result-bytes N or $BURGEE_MCP_MAX_RESULT_BYTES "
                "(over HTTP the MCP SDK's clients refuse a message over 1 MiB)")
    from workbench.declaration.exits import SERVER_ERRORS
    doc = _envelope.failure(
        "result_too_large", f"'{name}' gave a {size:,}-byte result; this server sends at most "
        f"{limit:,} bytes (the command ran; its result was dropped)",
        exit=SERVER_ERRORS["result_too_large"][0], hint=hint, size=size, limit=limit,
        paging=["--limit", "--cursor", "--fields"] if command.paginated else None,
        effects="none" if command.effects == "read_only" else "unknown")   # it ran
    return _envelope.stamp(doc, program.schema_version)



def unknown_tool(program: Program, name: object) -> dict[str, Any]:
    """The usage envelope for a call to a tool that is not offered, naming the closest ones."""
    from workbench._text import clip, nearest
    names = [command.tool_name for command in _tools.listed(program)]
    shown = name if isinstance(name, str) else str(name)
    command = program.tool(shown) if isinstance(name, str) else None
    close = nearest(shown, names)
    listing = "did you mean: " + ", ".join(close) + "?" if close else \
        "tools: " + (", ".join(names) or "none")
    if command is not None and command.person_only:   # exit 13: reason, how
        from workbench.runtime._failures import refused_to_agent
        doc = refused_to_agent(program, command, "an MCP caller")
    elif command is not None:     # it exists, but is withheld
        doc = _envelope.refused(
            "tool_withheld",
            f"'{' '.join(command.path)}' runs on the command line only; it is not an MCP tool",
            hint=f"a person can run '{program.name} {' '.join(command.path)}' in a terminal"
                 + ("; " + listing if close or names else ""))
    else:
        doc = _envelope.refused("unknown_tool", f"no tool named {clip(shown)!r}",
                                hint=listing, field="name")
    return _envelope.stamp(doc, program.schema_version)
