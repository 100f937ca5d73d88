"""The release lint (R1-R7): what a declaration must hold before it is offered generally, read
from the declaration and from what the generated calls observed.

An adapted program (Click, Typer, argparse: effects `undeclared`) has no declaration of its
own to lint; only the call rules apply to it.
"""

from __future__ import annotations

from workbench.check.rules import MAX_DESCRIPTION, Finding


def program_lint(program) -> list:
    """R6 for the program's and its groups' descriptions."""
    found = []
    if len(program.description or "") > MAX_DESCRIPTION:
        found.append(_long("the program's description", program.description))
    for group in program.groups():
        if len(group.description or "") > MAX_DESCRIPTION:
            found.append(_long(f"group '{' '.join(group.path)}''s description",
                               group.description))
    return found


def _long(what: str, text: str) -> Finding:
    return Finding("R6", f"{what} is {len(text)} characters (over {MAX_DESCRIPTION})",
                   text[:80], fix=f"cut it to one line within {MAX_DESCRIPTION} characters")


def lint_command(program, command) -> list:
    """R1, R3 (a declared array), R4, R6, R7 for one command."""
    if command.effects == "undeclared":
        return []
    name = " ".join(command.path)
    found = []
    if not command.examples and not command.hidden:
        found.append(Finding("R1", "no example", fix=f"add examples=['{program.name} {name} "
                             f"...'] to Command('{command.name}')"))
    if _should_page(command) and (command.output or {}).get("type") == "array":
        found.append(Finding("R3", "it returns a list (its output is an array) and does not "
                             "page it", fix=f"declare Command('{command.name}', paginated=True)"))
    if command.effects == "non_idempotent" and "idempotency_key" not in command.options:
        found.append(Finding("R4", "it writes (non_idempotent) and takes no --idempotency-key",
                             fix="keep the --idempotency-key option burgee adds"))
    if len(command.description or "") > MAX_DESCRIPTION:
        found.append(_long("its description", command.description))
    for param in command.inputs:
        if len(param.description or "") > MAX_DESCRIPTION:
            label = getattr(param, "flag", None) if param in command.options.values() \
                else param.metavar
            found.append(_long(f"{label}'s description", param.description))
    found += _example_secrets(program, command)
    return found


def _example_secrets(program, command) -> list:
    """R7: an example that gives a sensitive option a literal value (burgee refuses it when
    the program first runs; the lint names it without running anything)."""
    from workbench._text import placeholder, split
    from workbench.runtime.parser import Refusal, parse
    found = []
    for example in command.examples:
        try:
            tokens = split(example)[1:]
            request = parse(program, tokens, {}, placeholders=True)
        except (ValueError, Refusal):
            continue
        for key, option in command.options.items():
            if not option.sensitive or request.provenance.get(key, {}).get("source") != "flag":
                continue
            value = request.options.get(key, request.extras.get(key))
            for one in value if isinstance(value, list) else [value]:
                if isinstance(one, str) and placeholder(one) is None:
                    found.append(Finding("R7", f"an example gives {option.flag} a literal "
                                         f"value", example.replace(one, "***"),
                                         fix=f"leave {option.flag} out of the example"
                                         + (f" (it reads ${option.env})" if option.env else
                                            f", or write {option.flag} {option.metavar}")))
    return found


def observed_problems(context) -> list:
    """R2, R3 and R5 from what the runs saw: an error code nobody declared, a list that is
    not paged, a confirmation with no flag to give it."""
    from workbench.declaration.exits import (FRAMEWORK_ERRORS, REFUSALS, RUNTIME_ERRORS,
                                             SERVER_ERRORS)
    command = context.command
    if command.effects == "undeclared":
        return []
    found = []
    ours = set(REFUSALS) | set(RUNTIME_ERRORS) | set(FRAMEWORK_ERRORS) | set(SERVER_ERRORS)
    for (code, exit), run in sorted(context.observed.items(), key=lambda item: str(item[0])):
        if code == "confirmation_unavailable":
            found.append(Finding("R5", "it confirms, and has no boolean flag that answers yes",
                                 _evidence(run), fix="declare the boolean option ctx.confirm "
                                 "names (flag='yes' by default): options={'yes': "
                                 "Option(type='boolean', description=...)}"))
        if code in ours or code is None:
            continue
        declared = context.errors.get(code)
        if declared == exit:
            continue
        entry = f"{{'code': {code!r}, 'exit': {exit!r}, 'when': '...'}}"
        found.append(Finding("R2", f"its handler raises {code!r} (exit {exit}), "
                             + ("which errors= does not declare" if declared is None else
                                f"declared with exit {declared}"), _evidence(run),
                             fix=f"add {entry} to Command('{command.name}', errors=[...])"))
    if context.lists and _should_page(command) and (command.output or {}).get("type") != "array":
        found.append(Finding("R3", "it returns a list and does not page it",
                             fix=f"declare Command('{command.name}', paginated=True)"))
    return found


def _evidence(run) -> str:
    from workbench._text import join
    return join(run.argv) if run.environment != "mcp" else f"tools/call {run.argv[0]}"


def _should_page(command) -> bool:
    """A read-only command that is not paged, does not stream (a handler that yields: its
    reader takes `--format ndjson`), and is not deprecated in favour of another (paging it
    would change its shape under the callers it still has)."""
    import inspect
    handler = getattr(command.run, "__wrapped__", command.run)
    return command.effects == "read_only" and not command.paginated and \
        not inspect.isgeneratorfunction(handler) and not command.replaced_by
