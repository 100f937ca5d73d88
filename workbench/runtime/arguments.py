"""MCP tool arguments <-> argv: check them as the parser checks argv, then map them to argv.

    to_argv(command, {"target": "staging", "yes": True})
    # ['deploy', '--target', 'staging', '--yes']

`check_arguments` refuses what the parser would refuse, before anything runs, with the
same usage envelope (exit 2) a command line gets — except that its `fix` is the arguments to
send instead, as compact JSON. Sensitive values are never echoed: not in messages, not in
fixes (a `$ENV` reference or the placeholder stands in).
"""

from __future__ import annotations

from workbench.declaration.params import TRUE_WORDS, number_token
from workbench.runtime import envelope as _envelope

TYPE_CHECKING = False   # typing's own flag costs an import of typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.declaration.model import Command, Program


def _inputs(command) -> dict:
    """Property name -> Option or Argument, options first, in declaration order."""
    found = {option.key: option for option in command.options.values() if not option.cli_only}
    for argument in command.arguments:
        found[argument.key] = argument
    return found


def _renamed(command) -> dict:
    """Old property name (an option's alias, as its key) -> (Option, the alias's flag): an
    old name keeps working over MCP as on the command line, with the same warning."""
    return {flag[2:].replace("-", "_"): (option, flag) for option in command.options.values()
            for flag in option.alias_flags}


def _is_option(command, item) -> bool:
    return command.options.get(getattr(item, "key", None)) is item


def _looks_negative_number(token: str) -> bool:
    body = token[1:]
    return token.startswith("-") and bool(body) and body.replace(".", "", 1).isdigit()


def _scalar_token(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return number_token(value)


def to_argv(command: Command, arguments: dict[str, object] | None) -> list[str]:
    """argv (after the program name) that runs `command` with MCP `arguments`.

    The command path first, then options in the order given (booleans as `--x` / `--no-x`,
    lists as repeated flags, a value that starts with `-` as `--x=-v`), then positional
    arguments in declaration order, after `--` when one of them starts with `-` or an
    option given could take them (an adapted `nargs="+"` or `"?"` one). A `None`
    value means not given. Raises ValueError for a property the command does not have.

    Args:
        command: the `Command` the arguments are for.
        arguments: its MCP tool arguments, property -> value (None: none given).
    """
    inputs = _inputs(command)
    renamed = _renamed(command)
    argv = list(command.words)
    positionals: list[str] = []
    given = dict(arguments or {})
    for key in given:
        if key not in inputs and key not in renamed:
            raise ValueError(f"'{' '.join(command.path)}' has no property {key!r}")
    for key, value in given.items():
        item, flag = renamed[key] if key not in inputs else (inputs[key], None)
        if value is None or not _is_option(command, item):
            continue
        flag = flag or item.flag
        if item.type == "boolean":
            truthy = value if isinstance(value, bool) else str(value).lower() in TRUE_WORDS
            argv.append(flag if truthy else item.negation or f"{flag}=false")
            continue
        if item.count:
            argv.append(f"{flag}={_scalar_token(value)}")
            continue
        values = value if isinstance(value, (list, tuple)) and (
            item.type == "list" or item.nargs == 1) else [value]
        for one in values:
            if item.nargs > 1:   # one use: the flag, then its values
                group = one if isinstance(one, (list, tuple)) else [one]
                argv.extend([flag, *map(_scalar_token, group)])
                continue
            token = _scalar_token(one)
            if token.startswith("-") and not _looks_negative_number(token):
                argv.append(f"{flag}={token}")
            else:
                argv.extend((flag, token))
    for argument in command.arguments:
        value = given.get(argument.key)
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        positionals.extend(_scalar_token(one) for one in values)
    takes_more = any(value is not None and key in inputs and (   # `-k a b`, `-L [x]`
        getattr(inputs[key], "greedy", None) is not None or
        getattr(inputs[key], "bare", None) is not None) for key, value in given.items())
    if any(token.startswith("-") and token != "-" for token in positionals) or (
            positionals and takes_more):
        argv.append("--")
    argv.extend(positionals)
    return argv


def from_argv(program: Program, argv: Sequence[str], *,
              placeholders: bool = False) -> tuple[Command, dict[str, Any]]:
    """(command, MCP arguments) for a command line: the inverse of `to_argv`.

    Only what the command line itself gives becomes an argument (flags and positionals, in
    the order given); defaults and environment values are left to the server, as a client
    would leave them. A leading program name and `--json` are ignored. Raises ValueError when
    argv names no runnable command or does not parse (the parser's message). `placeholders`
    keeps `<slot>` values as they are (a fix).
    """
    from workbench.runtime.parser import Refusal, parse
    tokens = list(argv)
    if tokens[:1] == [program.name]:
        tokens = tokens[1:]
    head = tokens.index("--") if "--" in tokens else len(tokens)
    tokens = [t for t in tokens[:head] if t != "--json"] + tokens[head:]
    try:
        request = parse(program, tokens, {}, placeholders=placeholders)
    except Refusal as refusal:
        raise ValueError(refusal.message) from None
    command = request.command
    if command is None:
        raise ValueError(f"{' '.join(tokens)!r} does not name a runnable command")
    values = {**request.options, **request.args, **request.extras}
    arguments = {}
    for key, where in request.provenance.items():
        if isinstance(where, dict) and where.get("source") in ("flag", "argument") \
                and key in values:
            arguments[key] = values[key]
            option = command.options.get(key)
            if option is not None and getattr(option.value_type, "kind", None) is not None \
                    and not _plain(values[key]):
                texts = _option_texts(option, request.tokens)   # a custom type's object:
                if texts:                                      # the text a client sends
                    arguments[key] = texts if option.type == "list" else texts[-1]
    return command, arguments


def _plain(value) -> bool:
    """Whether a value is JSON as it is (text, a number, a boolean, or a list of them)."""
    if isinstance(value, list):
        return all(map(_plain, value))
    return value is None or isinstance(value, (str, int, float, bool))


def _option_texts(option, tokens) -> list:
    """The texts given to a one-value option in `tokens` (each `--flag TEXT`, `--flag=TEXT`),
    before any `--`."""
    texts = []
    spellings = set(option.spellings)
    for at, token in enumerate(tokens):
        if token == "--":
            break
        flag, eq, inline = token.partition("=")
        if flag in spellings and option.nargs == 1:
            if eq:
                texts.append(inline)
            elif at + 1 < len(tokens):
                texts.append(tokens[at + 1])
    return texts


def with_json(argv: list[str]) -> list[str]:
    """argv plus `--json`, placed before any `--` so it still counts."""
    argv = list(argv)
    at = argv.index("--") if "--" in argv else len(argv)
    return argv[:at] + ["--json"] + argv[at:]


# --- checks ----------------------------------------------------------------------------


def _kind_of(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _shown(item, value) -> str:
    """How a refused value appears in a message: its kind, plus the value unless sensitive."""
    if getattr(item, "sensitive", False):
        return f"{_kind_of(value)} (hidden)"
    text = _envelope.encode(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{_kind_of(value)} {text}"


def _slot(item):
    """What stands in for a value the caller must supply in a JSON fix (never a real secret):
    `Param.slot`, or for a tuple one slot per value (`["<x>", "<y>"]`), in a list for a list
    of them; a boolean's is `true`, the answer its flag gives on the command line."""
    if item.nargs > 1 and not item.slot.startswith("$"):
        return [item.value_slots] if item.type == "list" else list(item.value_slots)
    if getattr(item, "type", None) == "boolean" and not item.slot.startswith("$"):
        return True    # as the command line's fix passes the flag (`--yes`)
    return item.slot


def _check_value(item, value):
    """None if `value` fits `item`, else (code, what it expects, the corrected value or None).

    Each value is checked as the command line would take it: its JSON type, then (for a
    date, a UUID, a custom type, or with `min`/`max` or path checks) converted and checked."""
    kind = item.value_type
    expects = item.describe()
    if not item.many:
        one = _check_group(item, kind, value)
        return None if one is None else (one[0], expects, one[1])
    values = value if isinstance(value, list) else [value]
    results = [_check_group(item, kind, v) for v in values]
    if isinstance(value, list) and not any(results):
        return None
    code = next((r[0] for r in results if r), "invalid_value")
    corrected = [v if r is None else r[1] for v, r in zip(values, results)]
    return code, expects, corrected


def _check_group(item, kind, value):
    """One use of the input: a single value, or the `nargs` values of a tuple."""
    if item.nargs == 1:
        return _check_value_one(item, kind, value)
    if not isinstance(value, (list, tuple)) or len(value) != item.nargs:
        return "invalid_value", None
    results = [_check_value_one(item, kind, v) for v in value]
    if not any(results):
        return None
    code = next(r[0] for r in results if r)
    corrected = [v if r is None else r[1] for v, r in zip(value, results)]
    return code, None if None in corrected else corrected


def _check_value_one(item, kind, value):
    if not kind.fits(value):
        corrected = kind.coerce(value)
        code = "invalid_choice" if kind.name == "enum" and not isinstance(value, (list, dict)) \
            else "invalid_value"
        return code, corrected
    if not (kind.rich or item.checked):
        return None
    raw = _scalar_token(value) if not isinstance(value, str) else value
    try:
        converted = item.convert(raw)
    except ValueError:
        near = None if getattr(item, "sensitive", False) else kind.suggest(raw)
        return "invalid_value", None if near is None else _typed(item, near)
    problem = item.check(converted) if item.checked else ""
    if not problem:
        return None
    if item.min is not None or item.max is not None:
        return "out_of_range", item.clamped(value)
    from workbench.runtime._rules import nearest_path as _nearest_path
    return ("path_not_found" if problem == "does not exist" else "invalid_path",
            _nearest_path(item, value))


def check_arguments(command: Command, arguments: object, *,
                    partial: bool = False) -> dict[str, Any] | None:
    """None when `arguments` would parse; else the usage failure envelope (exit 2).

    `partial`: part of a request (`--input`, its flags given on the command line): what is
    missing, and the rules between inputs, are left to the parser of the whole.

    Every problem is named in the message (the first one's code is the envelope's code);
    `fix` is the whole arguments object corrected as far as it can be, as compact JSON:
    an unknown property renamed to the nearest one, a value converted to the right type or
    replaced by its placeholder, a missing required property added with its placeholder.
    """
    label = " ".join(command.path)
    inputs = _inputs(command)
    problems: list[tuple] = []   # (code, message, hint[, field])
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return _refusal(command, [("invalid_value",
                                   f"arguments for '{label}' must be an object, got "
                                   f"{_kind_of(arguments)}", "send an object of properties")],
                        _placeholders(command, {}))
    fixed: dict = {}
    renamed = _renamed(command)
    for key, value in arguments.items():
        item = inputs.get(key)
        if item is None and key in renamed:
            item = renamed[key][0]   # an old name: it runs, warned about in meta.warnings
            if item.key in arguments:
                problems.append(("conflicting_options", f"'{label}' got both {key!r} and "
                                 f"{item.key!r} ({key!r} is its old name)",
                                 f"send {item.key!r} alone", item.key))
                continue
        if item is None:
            from workbench._text import nearest
            from workbench.runtime.parser import adapted_spellings
            names = dict(zip(inputs, inputs))
            names.update({flag[2:].replace("-", "_"): option.key for flag, option
                          in adapted_spellings(command).items()})
            close = list(dict.fromkeys(names.get(n, n) for n in nearest(str(key), names)))
            close = [name for name in close if name not in arguments]
            if close:
                problems.append(("unknown_option", f"'{label}' has no property {key!r}",
                                 "did you mean " + " or ".join(repr(c) for c in close) + "?",
                                 str(key)))
                fixed[close[0]] = value
            else:
                problems.append(("unknown_option", f"'{label}' has no property {key!r}",
                                 f"'{label}' takes: " + (", ".join(inputs) or "no properties"),
                                 str(key)))
            continue
        if value is None:      # null means "not given", as an absent flag does
            continue
        bad = _check_value(item, value)
        if bad is None:
            fixed[item.key] = value
            continue
        code, expects, corrected = bad
        problems.append((code, f"property {key!r} of '{label}' expects {expects}, got "
                         f"{_shown(item, value)}",
                         f"give {key!r} {expects}" if code != "invalid_choice" else
                         (f"did you mean {corrected!r}?" if corrected is not None
                          and not getattr(item, "sensitive", False) else None), item.key))
        if corrected is None and code in ("path_not_found", "invalid_path") \
                and not item.required:
            continue   # no path that fits: the fix leaves the optional input out
        fixed[item.key] = corrected if corrected is not None and (
            not isinstance(corrected, list) or None not in corrected) else _slot(item)
    for key, item in inputs.items():
        if partial or key in fixed or (arguments.get(key) is not None):
            continue
        asked = item.asked
        if not item.needed:
            continue
        kind = "input_required" if asked else \
            "missing_option" if _is_option(command, item) else "missing_argument"
        what = item.describe()
        problems.append((kind, f"'{label}' needs property {key!r} ({what}"
                         + (f": {item.description}" if item.description else "") + ")"
                         + (" (on the command line a person is asked for it; nobody can "
                            "answer here)" if asked else ""),
                         f"add {key!r}", key))
        fixed[key] = _slot(item)
    if not problems and not partial:
        problems += _relations(command, inputs, arguments, fixed)
    if not problems:
        return None
    return _refusal(command, problems, _masked(command, fixed), arguments)


def _given(item, value) -> bool:
    return value is not None and value is not False and value != [] and not (
        getattr(item, "count", False) and not value)


def _relations(command, inputs, arguments, fixed) -> list:
    """`requires` and `conflicts` between the properties sent (an input an environment
    variable may supply is left to the command line's own check). The fix adds what is
    required (a concrete value where one is known) or leaves out the later conflicting one."""
    from workbench.runtime._rules import fill as _fill
    problems = []
    label = " ".join(command.path)
    for key, value in arguments.items():
        item = inputs.get(key)
        if item is None or not _given(item, value):
            continue
        for other in getattr(item, "requires", ()):
            needed = inputs[other]
            if _given(needed, arguments.get(other)) or needed.env or needed.asked:
                continue
            problems.append(("missing_option", f"property {key!r} of '{label}' needs "
                             f"{other!r} too ({needed.describe()})",
                             f"add {other!r}, or leave out {key!r}"))
            if getattr(needed, "flag_only", False):
                fixed[other] = True if needed.type == "boolean" else 1
            else:
                fill = _fill(needed)
                fixed[other] = _typed(needed, fill[0]) if len(fill) == 1 and fill[0] != \
                    needed.metavar else _slot(needed)
        for other in getattr(item, "conflicts", ()):
            if other in arguments and _given(inputs[other], arguments[other]):
                problems.append(("conflicting_options", f"properties {key!r} and {other!r} of "
                                 f"'{label}' cannot be sent together",
                                 f"send one of {key!r} and {other!r}"))
                fixed.pop(max(key, other, key=list(arguments).index), None)
    return problems


def _typed(item, token: str):
    """A fix's command-line token as the JSON value of `item` (`"3"` -> 3 for an integer)."""
    if item.value_type is None or item.value_type.rich:   # a date, a UUID, a custom type:
        kind = item.value_type.json_schema().get("type") if item.value_type else None
        try:   # the JSON its schema asks for, from the text the command line would take
            return int(token) if kind == "integer" else float(token) if kind == "number" \
                else token
        except ValueError:
            return token
    try:
        value = item.convert(token)
    except ValueError:
        return token
    return value if isinstance(value, (bool, int, float, str)) else token


def _placeholders(command, fixed: dict) -> dict:
    out = dict(fixed)
    for key, item in _inputs(command).items():
        if key not in out and item.required and not (_is_option(command, item) and item.env):
            out[key] = _slot(item)
    return out


def _masked(command, fixed: dict) -> dict:
    """The fix with every sensitive value replaced by `$ENV` or its placeholder."""
    inputs = _inputs(command)
    out = {}
    for key, value in fixed.items():
        item = inputs.get(key)
        if item is not None and getattr(item, "sensitive", False) and value != _slot(item):
            value = _slot(item)
        out[key] = value
    return out


def _refusal(command, problems, fixed, arguments=None) -> dict:
    """The usage envelope; any value the arguments give a sensitive key is masked in it
    (also where another property echoes it)."""
    code = problems[0][0]
    message = "; ".join(problem[1] for problem in problems)
    hints = [problem[2] for problem in problems if problem[2]]
    field = problems[0][3] if len(problems[0]) > 3 else None
    doc = _envelope.refused(code, message, hint="; ".join(dict.fromkeys(hints)) or None,
                            fix=_envelope.encode(fixed), field=field)
    program = getattr(command, "program", None)
    from workbench.runtime.redact import Redactor, secrets_in_arguments
    doc = Redactor(secrets_in_arguments(program, command, arguments)).value(doc)
    return _envelope.stamp(doc, program.schema_version) if program is not None else doc
