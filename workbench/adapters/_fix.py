"""An original program's usage error as the framework's refusal, naming the fix."""

from __future__ import annotations


def refusal(command, request, given, code: str, message: str, item, add: bool = False,
            value=None):
    """A Refusal (exit 2) whose fix is the caller's command line with the input at fault
    replaced (or, with `add`, supplied) by its placeholder, or by `value` when given. Values
    that came from the environment stay out of the fix, as they were never typed."""
    from workbench.runtime.arguments import to_argv
    from workbench.runtime.parser import Refusal
    args = {}
    for inp, typed in given:
        where = request.provenance.get(inp.key) or {}
        if where.get("source") in ("env", "stdin"):
            continue
        args[inp.key] = typed
    where = " ".join((command.program.name, *command.words))
    hint = f"see '{where} --help' for what it accepts"
    if item is not None:
        if item.positional:
            spot = next(a for a in command.arguments if a.key == item.key)
            args[item.key] = [spot.metavar[:-3] if spot.variadic else spot.metavar] \
                if spot.variadic else spot.metavar
            label = spot.metavar
        else:
            spot = command.options[item.key]
            if spot.type == "boolean":
                args.pop(item.key, None)
            else:
                args[item.key] = spot.metavar if value is None else value
            label = spot.flag
        hint = (f"add {label}" if add else f"give {label} a value it accepts") + \
            f" (see '{where} --help')"
    if item is None:   # nothing to correct that we can name: the hint says where to look
        return Refusal(code, message, hint=hint, fix=None)
    try:
        fix = to_argv(command, args)
    except ValueError:
        fix = list(command.words)
    return Refusal(code, message, hint=hint, fix=fix)
