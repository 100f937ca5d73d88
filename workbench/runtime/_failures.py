"""What a failure says beyond its code: the steps that go on (`next`), what it changed before it
stopped (`effects`), and the refusal of a person-only command to an agent.

One place for each rule, read by the pipeline (CLI, in-process) and the MCP tool call:
- `next` of a `Fail` or `ctx.person_required`: at most three steps, each `{command, why}`,
  printed runnable for the caller's surface; a step that is the failed call itself is dropped
  (asking again would loop).
- `effects`: `none` for every refusal before the handler, and for a read-only command;
  `partial` with the `steps` a handler reported (`ctx.step`); `unknown` for any other failure
  after the handler began; a `Fail(effects=...)` that knows better is believed.
"""

from __future__ import annotations

from workbench.runtime import envelope as _envelope

MAX_NEXT = 3
"""Steps a failure's `next` holds at most: more is a menu, not a way on."""


def next_steps(program, command, steps, mode, invocation, warnings: list) -> list:
    """A failure's `next` as runnable entries (`command` with the program name and the
    caller's output mode `mode`, then `why` and any other key), at most `MAX_NEXT`; the failed
    call itself and what is not a step are left out, each said in `warnings`."""
    from workbench.runtime.pipeline import runnable
    here = runnable(program, list(invocation), mode, command)
    out = []
    for step in steps:
        if not isinstance(step, dict) or not step.get("command"):
            warnings.append(f"a next step must be {{'command': ..., 'why': ...}}; "
                            f"{step!r} was left out")
            continue
        line = runnable(program, step["command"], mode, command)
        if line == here:
            warnings.append(f"next step {line!r} is the call that failed; it was left out "
                            "(asking again would loop)")
            continue
        entry = {"command": line}
        entry.update({key: value for key, value in step.items() if key != "command"})
        out.append(entry)
    if len(out) > MAX_NEXT:
        warnings.append(f"{len(out)} next steps were given; the first {MAX_NEXT} are kept")
        out = out[:MAX_NEXT]
    return out


def with_next(doc: dict, steps: list, warnings: list) -> dict:
    """`doc` with its `next` (after `error`, as an action required has it) and warnings."""
    if steps:
        doc["next"] = steps
    if warnings:
        meta = doc.setdefault("meta", {})
        meta["warnings"] = list(meta.get("warnings", ())) + warnings
    return doc


def settle(doc, command, ctx, declared=None) -> None:
    """Set `error.effects` (and `error.steps`) of a failure the handler phase produced."""
    error = doc.get("error") if isinstance(doc, dict) and doc.get("ok") is not True else None
    if not isinstance(error, dict):
        return
    if ctx._steps:
        error["effects"] = _envelope.EFFECTS_PARTIAL
        error["steps"] = list(ctx._steps)
    elif declared in _envelope.FAILURE_EFFECTS:
        error["effects"] = declared
    elif not ctx._began or command.effects == "read_only" or \
            doc.get("status") in ("action_required", "person_required"):
        error["effects"] = _envelope.EFFECTS_NONE   # asked before acting, or reads only
    else:
        error["effects"] = _envelope.EFFECTS_UNKNOWN


def person_only_refusal(program, command, environ) -> dict | None:
    """The exit-13 envelope for an agent calling a `person_only` command, or None (no agent
    detected, or not person-only): said before anything runs."""
    person_only = command.person_only
    if not person_only:
        return None
    from workbench.runtime.context import detect_agent
    agent = detect_agent(environ)
    if agent is None:
        return None
    return refused_to_agent(program, command, f"the agent '{agent}'")


def refused_to_agent(program, command, who: str) -> dict:
    """The `person_required` envelope (exit 13) refusing a person-only command to `who`."""
    person_only = command.person_only
    name = " ".join(command.path)
    return _envelope.person_required(
        "person_only", f"'{program.name} {name}' is run by a person only ({who} may not): "
        f"{person_only['reason']}", person_only["how"], [])


def mcp_steps(program, doc) -> bool:
    """Over MCP, each `next` step (of a page, `ctx.next`, `Fail(next=)`, a person or action
    required) as the call to send, `tool: {name, arguments}` (its `why`/`when` kept), in
    place of the command line, and `meta.truncated.next` as that call's `{name, arguments}`;
    True when one was changed. A step that names no tool of this program keeps its command
    line."""
    if not isinstance(doc, dict):
        return False
    steps = doc.get("next")
    meta = doc.get("meta")
    truncated = meta.get("truncated") if isinstance(meta, dict) else None
    made: dict = {}   # line -> its call: a page's next step and truncated.next are one line
    changed = False
    if isinstance(steps, list):
        for step in steps:
            line = step.get("command") if isinstance(step, dict) else None
            call = _tool_call(program, line, made)
            if call is None:
                continue
            rest = {key: value for key, value in step.items() if key != "command"}
            step.clear()
            step["tool"] = call
            step.update(rest)
            changed = True
    if isinstance(truncated, dict):
        call = _tool_call(program, truncated.get("next"), made)
        if call is not None:
            truncated["next"] = dict(call, arguments=dict(call["arguments"]))
            changed = True
    return changed


def _tool_call(program, line, made: dict) -> dict | None:
    """The tools/call `{name, arguments}` of command line `line`, or None when it is not one
    of this program's tools; `made` keeps the ones already made."""
    if not isinstance(line, str):
        return None
    if line in made:
        return made[line]
    made[line] = None
    from workbench._text import split
    from workbench.runtime.arguments import from_argv
    from workbench.surfaces.tools import offered
    try:
        found, arguments = from_argv(program, split(line), placeholders=True)
    except ValueError:
        return None
    if not offered(found):
        return None
    made[line] = {"name": found.tool_name, "arguments": arguments}
    return made[line]


def as_mcp_sends(program, text: str) -> str:
    """The CLI's --json text as MCP sends the same envelope: its `next` steps as tool calls
    (`mcp_steps`); any other text unchanged. What a CLI-vs-MCP comparison (the checker's
    C10, the workbench's diffs) compares the MCP text with."""
    if '"next":' not in text or not text.startswith('{"ok":'):
        return text
    import json

    from workbench.runtime.envelope import encode
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    return encode(doc) if mcp_steps(program, doc) else text
