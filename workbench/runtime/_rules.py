"""The parser's rules a plain command never meets: counts, tuples, value limits and path
checks, `requires`/`conflicts`, shared options written before a command, the fill-ins of fixes.
Imported by the first call that meets one, so a program that declares none of them never
loads it (`workbench.runtime.parser` reads the rest)."""

from __future__ import annotations

from workbench.declaration.params import number_token
from workbench.runtime.parser import (Refusal, _clip, _describe, _fix_value, _insert_at,
                                      _is_slot, _replace, _shown, _store, convert)


def _shared_table(node) -> dict:
    """Spellings of the options a program or group (and those above it) give every command
    under it -> Option; made once per node."""
    table = node.__dict__.get("_shared_table")
    if table is None:
        table = {}
        for _, options in getattr(node, "_chain", ()):
            for option in options.values():
                for spelling in option.spellings:
                    table.setdefault(spelling, option)
        node._shared_table = table
    return table


def shared_width(node, argv, i) -> int:
    """How many tokens at argv[i] are one shared option of `node` given before the command's
    name (`--store x`, `--store=x`, `-v`, `-vv`, `--point 1 2`); 0 when it is not one."""
    table = _shared_table(node)
    if not table:
        return 0
    token = argv[i]
    flag, eq, _ = token.partition("=")
    option = table.get(flag if token.startswith("--") else token)
    if option is None and not token.startswith("--") and len(token) > 2:
        option = table.get(token[:2])   # -vv, -sVALUE
        if option is not None and option.flag_only:
            return 1 if all(table.get("-" + c) is not None and table["-" + c].flag_only
                            for c in token[1:]) else 0
        return 1 if option is not None else 0
    if option is None:
        return 0
    if option.flag_only or eq:
        return 1
    return min(1 + option.nargs, len(argv) - i)


def refuse_no_command(program, node, words, leading) -> None:
    """`tool --store x` names no command: refused (exit 2) as Click and Typer do, the fix
    naming where the command goes; a last option still without its value says so first."""
    waiting = _waiting(_shared_table(node), leading)
    if waiting is not None:
        raise Refusal("missing_value", f"{waiting.flag} needs a value ({_describe(waiting)})",
                      hint=f"write {waiting.flag} {' '.join(waiting.value_slots)}, then a "
                           f"command", fix=words + ["<command>"] + leading
                      + waiting.value_slots[len(leading) - _last_flag(leading) - 1:])
    names = [child.name for child in node.commands if not child.hidden]
    where = " ".join([program.name, *words])
    raise Refusal("missing_command", f"'{where}' needs a command after its options",
                  hint="commands: " + ", ".join(names), fix=words + ["<command>"] + leading)


def _last_flag(leading) -> int:
    return max(at for at, token in enumerate(leading) if token.startswith("-"))


def _waiting(table, leading):
    """The shared option at the end of `leading` still short of its value(s), or None."""
    at = 0
    while at < len(leading):
        token = leading[at]
        option = table.get(token.partition("=")[0] if token.startswith("--") else token)
        at += 1
        if option is None or option.flag_only or "=" in token or (
                len(token) > 2 and not token.startswith("--")):
            continue
        if at + option.nargs > len(leading):
            return option
        at += option.nargs
    return None


def count(option, values, where, flag, eq, inline, tokens, i) -> None:
    """`-v` adds one; `--verbose=3` says how many (what an MCP call sends)."""
    key = option.key
    if eq:
        try:
            value = int(inline)
        except ValueError:
            raise Refusal("invalid_value", f"{flag} counts its uses; '={_clip(inline)}' must be "
                          f"a whole number", hint=f"repeat {flag}, or write {option.flag}=N",
                          fix=_replace(tokens, i, [flag])) from None
        values[key] = value
    else:
        values[key] = (values.get(key) or 0) + 1
    where[key] = {"source": "flag", "location": option.flag}
    problem = option.check(values[key])
    if problem:
        fixed = option.clamped(values[key])
        uses = [(t.partition("=")[0] if t.startswith("--") else t) in option.spellings
                or _counts_short(option, t) for t in tokens]
        kept = [t for t, use in zip(tokens, uses) if not use]
        at = uses.index(True)   # where its first use was
        raise Refusal("out_of_range", f"{option.flag} {problem}; got {values[key]}",
                      hint=f"{option.flag} takes {option.describe()}",
                      fix=kept[:at] + [f"{option.flag}={fixed}"] + kept[at:])


def _counts_short(option, token: str) -> bool:
    """Whether `token` is a cluster of this count's short flag only (`-vvv`)."""
    short = option.short_flag
    return bool(short) and len(token) > 2 and token[0] == "-" and token[1] != "-" \
        and set(token[1:]) == {short[1]}


def take_nargs(option, values, where, flag, eq, tokens, i, placeholders, table=()) -> int:
    """`--point 1 2`: the next `nargs` tokens as one tuple; one of the command's own flags
    (`table`) among them ends the values early (`--label x --email a`: one short)."""
    count = option.nargs
    if eq:
        raise Refusal("invalid_value", f"{flag} takes {count} values, written after it "
                      f"separated by spaces", hint=f"write {flag} {' '.join(option.value_slots)}",
                      fix=_replace(tokens, i, [flag, tokens[i].partition("=")[2],
                                               *option.value_slots[1:]]))
    raw = tokens[i + 1:i + 1 + count]
    for at, one in enumerate(raw):
        if one == "--" or one.partition("=")[0] in table:
            raw = raw[:at]
            break
    if len(raw) < count:
        missing = option.value_slots[len(raw):]
        raise Refusal("missing_value", f"{flag} takes {count} values, each "
                      f"{option.value_type.words}" + (f" ({option.description})" if
                                                      option.description else "") +
                      f"; got {len(raw)}", hint=f"write {flag} {' '.join(option.value_slots)}",
                      fix=tokens[:i + 1 + len(raw)] + missing + tokens[i + 1 + len(raw):])
    converted = []
    for at, one in enumerate(raw):
        spot = i + 1 + at
        if placeholders and _is_slot(one):
            converted.append(one)
            continue
        converted.append(convert(option, one, flag, lambda spot=spot, at=at: _replace(
            tokens, spot, [option.value_slots[at]])))
    value = tuple(converted)
    if option.type == "list":
        values.setdefault(option.key, []).append(value)
        where.setdefault(option.key, {"source": "flag", "location": option.flag})
    else:
        _store(option, values, where, value, option.flag, tokens, i, 1 + count)
    return 1 + count


def refuse_check(param, raw, value, problem, label, fix_tokens):
    """A value of the right type past a limit: `out_of_range` with the nearest value that is
    in range; a path that is not there, or not what it must be: `path_not_found` or
    `invalid_path`, with the nearest path that is, else without the option (when it may be
    left out). A value from the environment is overridden by the flag in the fix."""
    option = getattr(param, "flag", None) is not None
    if param.min is not None or param.max is not None:
        code, fixed = "out_of_range", param.clamped(value)
        fixed = number_token(fixed) if isinstance(fixed, (int, float)) else str(fixed)
        hint = f"{label} takes {param.describe()}"
    else:
        code = "path_not_found" if problem == "does not exist" else "invalid_path"
        fixed = nearest_path(param, raw)
        hint = f"{label} takes {param.describe()}" + \
            (f"; did you mean {fixed}?" if fixed is not None else "")
    message = f"{label} {_shown(param, raw)} {problem}" if code != "out_of_range" else \
        f"{label} {problem}; got {_shown(param, raw)}"
    tokens = fix_tokens()
    if label.startswith("$"):   # from the environment: the flag given in the fix wins
        fix = tokens + [param.flag, fixed] if option and fixed is not None else tokens
    elif fixed is not None:
        fix = _fix_value(tokens, param.metavar, fixed)
    elif option and not param.required and param.metavar in tokens:
        at = tokens.index(param.metavar)
        fix = tokens[:at - 1] + tokens[at + 1:] if at and tokens[at - 1] == label else tokens
    else:
        fix = tokens
    raise Refusal(code, message, hint=hint, fix=fix)


_NEAREST_AMONG = 5000
"""Entries of a folder a path fix compares by name, at most (a huge folder stays quick)."""


def nearest_path(param, raw: str) -> str | None:
    """The entry beside `raw` with the nearest name that passes the path checks, or None."""
    import os
    folder, name = os.path.split(raw)
    try:
        entries = sorted(os.listdir(folder or "."))[:_NEAREST_AMONG]
    except OSError:
        return None
    fitting = [entry for entry in entries if not param.check(os.path.join(folder, entry))]
    from workbench._text import nearest
    close = nearest(name, fitting, n=1) if name else []
    return os.path.join(folder, close[0]) if close else None


def fill(param) -> list:
    """The tokens a fix writes for a value the caller must still give: a concrete one where
    one is known (an enum's choice, the default, the lowest value in range), else its slots."""
    slots = getattr(param, "value_slots", None)
    if slots is not None and not slots:
        return []   # a flag that takes no value
    if param.sensitive and param.env:
        return ["$" + param.env]   # never a secret in a fix: the variable that holds it
    known = param.fill_value()
    if known is None and param.min is not None and param.nargs == 1:
        known = number_token(param.min)
    if known is not None and param.nargs == 1:
        return [known]
    return list(slots) if slots is not None else [param.metavar]


def with_arguments(command, values, tokens, missing_at: int, spots=()) -> list:
    """`tokens` with the slot of every required argument not given, each where its value
    goes: before the values of the arguments after it (a `SRC... DST` command), else last.

    When some of the words were given (`spots`: where) and none takes many, which one is
    missing cannot be known (`move 1.5 2` may lack SHIP or Y): every argument's slot is
    written, in order, in place of the words given, for the caller to fill each."""
    arguments = command.arguments
    if spots and not any(argument.variadic for argument in arguments):
        last = max(index for index, argument in enumerate(arguments) if argument.required)
        kept = [token for at, token in enumerate(tokens) if at not in set(spots)]
        insert = _insert_at(kept)
        slots = [slot for argument in arguments[:max(last + 1, len(spots))]
                 for slot in fill(argument)]
        return kept[:insert] + slots + kept[insert:]
    insert = _insert_at(tokens)
    missing: list = []
    for index, argument in enumerate(command.arguments):
        given = values.get("#" + argument.key)
        if "#" + argument.key in values or not argument.required:
            if index > missing_at and given not in (None, []) and missing:
                first = given[0] if isinstance(given, list) else given
                text = first if isinstance(first, str) else None
                if text is not None and text in tokens[:insert]:
                    insert = tokens[:insert].index(text)
                break
            continue
        missing += fill(argument) if not argument.variadic else [argument.metavar[:-3]]
    return tokens[:insert] + missing + tokens[insert:]


def _given(command, values, where) -> set:
    """Keys of the inputs the caller gave (flag, argument, environment), with a value that
    says something: not False, not None, not empty, not a count of 0."""
    given = set()
    for key, origin in where.items():
        if origin.get("source") == "default":
            continue
        value = values.get(key)
        if origin.get("source") == "env" and value == "$" + str(origin.get("location")):
            continue   # an example's stand-in for a variable that may be unset
        option = command.options.get(key)
        if value is None or value is False or value == [] or (
                option is not None and option.count and not value):
            continue
        given.add(key.lstrip("#"))
    return given


def check_relations(request, command, values, where, tokens) -> None:
    """`requires` and `conflicts` between what the caller gave, each refused with a fix: the
    missing input added, or the later of two conflicting ones left out."""
    given = None
    for option in command.options.values():
        if not option.requires and not option.conflicts:
            continue
        if given is None:
            given = _given(command, values, where)
        if option.key not in given:
            continue
        inputs = {**{o.key: o for o in command.options.values()},
                  **{a.key: a for a in command.arguments}}
        for key in option.requires:
            if key in given or key in request.prompts:
                continue
            other = inputs[key]
            flag = getattr(other, "flag", None)
            name = flag or other.metavar
            insert = _insert_at(tokens)
            raise Refusal("missing_option" if flag else "missing_argument",
                          f"{option.flag} needs {name} too ({_describe(other)})",
                          hint=f"add {name}, or leave out {option.flag}",
                          fix=tokens[:insert] + ([flag] if flag else []) + fill(other)
                          + tokens[insert:])
        for key in option.conflicts:
            if key not in given:
                continue
            other = inputs[key]
            name = getattr(other, "flag", None) or other.metavar
            later = max((option, other), key=lambda one: _first_use(tokens, one))
            dropped = _without(tokens, later)
            raise Refusal("conflicting_options",
                          f"{option.flag} and {name} cannot be used together",
                          hint=f"keep one of {option.flag} and {name}",
                          fix=dropped if dropped != tokens else None)


def _first_use(tokens, param) -> int:
    """Where `param` is first given in `tokens` (-1 when not by a flag there)."""
    spellings = getattr(param, "spellings", {})
    for at, token in enumerate(tokens):
        if token == "--":
            break
        if (token.partition("=")[0] if token.startswith("--") else token) in spellings:
            return at
    return -1


def _without(tokens, option) -> list:
    """`tokens` without every use of `option` (its spellings and the values they took)."""
    if getattr(option, "flag", None) is None:
        return list(tokens)
    out = []
    skip = 0
    stop = False
    for token in tokens:
        if skip:
            skip -= 1
            continue
        if token == "--":
            stop = True
        spelling = token.partition("=")[0] if token.startswith("--") else token
        if not stop and spelling in option.spellings:
            skip = 0 if option.flag_only or "=" in token else option.nargs
            continue
        out.append(token)
    return out
