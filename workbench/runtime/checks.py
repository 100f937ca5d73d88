"""Examples are checked by parsing them with the one parser, once per program object.

The declaration checks everything it can on its own when a Program is constructed; whether
each example runs as written needs the parser, a layer up, so it is checked here: by
`execute` before the first call, and by the loaders, the workbench and headless.
"""

from __future__ import annotations

from workbench.declaration.model import Command, DefinitionError, Program, derived
from workbench.runtime.parser import Refusal, parse


def ensure_checked(program: Program) -> None:
    """Check the program's examples once (a DefinitionError names the fix); and those of
    each lazy group checked alone when it loaded (`_verdict.check_lazy`)."""
    state = derived(program)
    pending = state.lazy_pending
    if pending:
        state.lazy_pending = []
        from workbench.declaration._verdict import commands_under, record_verdict
        for group, path in pending:
            for command in commands_under(group):
                for example in command.examples:
                    check_example(program, command, example)
            state.lazy_verdicts = [path]
            record_verdict(program)
    if state.examples_checked:
        return
    for command in program.walk():
        for example in command.examples:
            check_example(program, command, example)
    state.examples_checked = True
    from workbench.declaration._verdict import record_verdict
    record_verdict(program)


def mark_examples_checked(program: Program) -> None:
    """Another process parsed these very examples (the workbench's load check): skip them."""
    derived(program).examples_checked = True


def check_example(program: Program, command: Command, example: str) -> None:
    """Refuse an example that does not run `command` as written (placeholders allowed)."""
    from workbench._text import join, split
    path = " ".join(command.path)
    head = f"command '{path}': example '{example}'"
    expected = f"{program.name} {path}"
    try:
        tokens = split(example)
    except ValueError as error:
        raise DefinitionError(f"{head} does not parse: {error}; close the quote") from None
    if not tokens or tokens[0] != program.name:
        raise DefinitionError(f"{head} must start with the program name; write it as "
                              f"'{expected} ...'")
    try:
        request = parse(program, tokens[1:], {}, placeholders=True)
    except Refusal as refusal:
        fixed = f"; write it as '{program.name} {join(refusal.fix)}'" \
            if refusal.fix is not None else ""
        raise DefinitionError(f"{head} is refused: {refusal.message}"
                              + (f" ({refusal.hint})" if refusal.hint else "") + fixed) from None
    if request.command is not command:
        raise DefinitionError(f"{head} does not name the command; write it as '{expected} ...'")
    for key, where in request.provenance.items():
        option = command.options.get(key)
        if option is None or not option.sensitive or where.get("source") != "flag":
            continue
        value = request.options.get(key, request.extras.get(key))
        values = value if isinstance(value, list) else [value]
        if any(not (isinstance(v, str) and (v.startswith("$") or
                                            (v.startswith("<") and v.endswith(">"))))
               for v in values):
            raise DefinitionError(
                f"{head} writes a literal value for the sensitive {option.flag}; examples are "
                f"shown to everyone — write '{option.flag} {option.slot}' instead")
