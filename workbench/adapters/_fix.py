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


def check_arity(given, command, request) -> None:
    """An option taking N values per use (Click or argparse `nargs=N`: `-p NAME VALUE`) is
    one flat list in the model: refuse a count that is not a multiple of N before the
    original takes the next argument as the missing value; the fix fills the gap with
    placeholders."""
    for item, value in given:
        nargs = getattr(item.ref, "nargs", 1)
        if item.positional or item.type != "list" or not isinstance(nargs, int) or nargs < 2 \
                or not len(value) % nargs:
            continue
        spot = command.options[item.key]
        gap = nargs - len(value) % nargs
        raise refusal(command, request, given, "invalid_value",
                      f"{spot.flag} takes {nargs} values per use; got {len(value)}", item,
                      value=[*value, *[spot.metavar] * gap])
