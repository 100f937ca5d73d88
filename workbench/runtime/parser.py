"""argv -> Request, or a Refusal that names the fix. Pure: reads the model and the environment.

One parser for everything: a program's own commands, the built-in commands and the global
flags (both declared as data in `workbench.declaration.builtins`), and the examples the
definition checks parse (`placeholders=True` lets `<slot>` and `$ENV` stand for values).
"""

from __future__ import annotations

from workbench.declaration.builtins import GLOBAL_OPTIONS, GLOBAL_SPELLINGS, find_builtin
from workbench.declaration.model import child_named
from workbench.declaration.params import FALSE_WORDS, TRUE_WORDS, number_token

class Refusal(Exception):
    """A usage refusal (exit 2): `fix` is the corrected argv after the program name."""

    def __init__(self, code: str, message: str, hint: str | None = None, fix=None,
                 exit: int = 2):
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.fix = fix
        self.exit = exit


class Values(dict):
    """Parsed inputs with attribute and item access: `ctx.options.target`, `ctx.options["target"]`."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"no input named {key!r}; known: {', '.join(self) or 'none'}") \
                from None


def _default_flags() -> dict:
    return {key: (False if option.type == "boolean" else None)
            for key, option in GLOBAL_OPTIONS.items()}


class Request:
    """What argv asked for: a node (program, group or command) or a built-in, global flags,
    parsed inputs."""

    def __init__(self):
        self.flags = _default_flags()
        self.node = None
        self.command = None
        self.path: list[str] = []
        self.builtin = None           # a Builtin (workbench.declaration.builtins) or None
        self.options = Values()
        self.args = Values()
        self.provenance: dict = {}
        self.tokens: list[str] = []   # the command's own tokens as given (no globals)
        self.stdin_inputs: list[str] = []
        self.warnings: list[str] = []
        self.extras = Values()        # framework inputs (--limit, --dry-run, ...) by key
        self.prompts: list = []       # options to ask a person for (`Option(prompt=...)`)

    @property
    def json(self) -> bool:
        return self.flags["json"]


def split_globals(argv) -> tuple:
    """Take the global flags out of argv (before `--`): (flags, remaining argv).

    Refuses a global flag's bad value (`--format bogus`) as any option's would be refused."""
    flags = _default_flags()
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            rest.extend(argv[i:])
            break
        flag, eq, inline = token.partition("=")
        option = GLOBAL_SPELLINGS.get(flag if token.startswith("--") else token)
        if option is None:
            rest.append(token)
            i += 1
            continue
        if option.type == "boolean":
            if eq:
                rest.append(token)   # `--json=x`: not a global spelling; the command refuses it
            else:
                flags[option.key] = True
            i += 1
            continue
        if eq:
            raw, width = inline, 1
        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            raw, width = argv[i + 1], 2
        else:
            fix = rest + [option.flag, str(option.choices[0])] + argv[i + 1:]
            raise Refusal("missing_value", f"{option.flag} needs a value ({option.describe()})",
                          hint=f"e.g. {option.flag} {option.choices[-1]}", fix=fix)
        try:
            flags[option.key] = option.convert(raw)
        except ValueError:
            from workbench._text import nearest
            close = nearest(raw, [str(c) for c in option.choices], n=1)
            fixed = close[0] if close else str(option.choices[0])
            raise Refusal("invalid_choice", f"{option.flag} must be {option.describe()}; "
                          f"got {_shown_raw(raw)}",
                          hint=f"did you mean {fixed}?" if close else None,
                          fix=rest + [option.flag, fixed] + argv[i + width:]) from None
        i += width
    return flags, rest


def _clip(text: str) -> str:
    """A caller's token, cut short when long (a 1 MB token never lands in a message whole)."""
    return text if len(text) <= 60 else text[:57] + "..."


def _shown_raw(raw: str) -> str:
    return repr(_clip(raw))


def parse(program, argv, environ, *, placeholders: bool = False) -> Request:
    """Resolve argv against the program. Raises Refusal with a fix on bad input.

    `placeholders=True` (examples) accepts `<slot>` and `$ENV` for any value."""
    request = Request()
    request.flags, argv = split_globals(list(argv))
    flags = request.flags
    node = program
    i = 0
    if getattr(program, "single", False):
        builtin, used = find_builtin(argv) if argv and argv[0] != "--" else (None, 0)
        if builtin is not None:
            return _parse_builtin(request, builtin, argv, used, environ)
        if flags["version"] and not flags["help"]:   # the program's version, as for a group
            request.node = program
            return request
        node = program.commands[0]
        request.path.append(node.name)
    leading: list[str] = []   # the program's and groups' options written before a command
    words: list[str] = []     # the command words as typed
    while node.is_group and i < len(argv) and argv[i] != "--":
        name = argv[i]
        if name.startswith("-"):
            width = _shared_width(node, argv, i)
            if not width:
                break
            leading += argv[i:i + width]
            i += width
            continue
        child = child_named(node, name)
        if child is None:
            if node is program:
                builtin, used = find_builtin(argv)
                if builtin is not None:
                    return _parse_builtin(request, builtin, argv, used, environ)
            _refuse_unknown_command(program, node, name, argv, i)
        node = child
        request.path.append(child.name)
        words.append(name)
        i += 1
    request.node = node
    if node.is_group:
        if i < len(argv) and argv[i] != "--" and not (flags["help"] or flags["schema"]):
            _refuse_options_before_command(program, node, request.path, argv[i:], environ,
                                           version=flags["version"])
        return request
    request.command = node
    if flags["help"] or flags["schema"] or node.run is None and node.adapter is None:
        return request
    try:
        _parse_command(request, node, leading + argv[i:], environ, placeholders)
    except Refusal as refusal:
        if refusal.fix is not None:
            refusal.fix = words + list(refusal.fix)
        raise
    return request


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


def _shared_width(node, argv, i) -> int:
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


def _parse_builtin(request, builtin, argv, used, environ):
    request.builtin = builtin
    request.node = builtin
    request.path = list(builtin.path)
    if request.flags["help"]:
        return request
    try:
        _parse_command(request, builtin, argv[used:], environ, False)
    except Refusal as refusal:
        if refusal.fix is not None:
            refusal.fix = list(builtin.path) + list(refusal.fix)
        raise
    return request


def _refuse_options_before_command(program, node, path, rest, environ, version=False):
    """`tool -t x deploy`: the command came after its options; move it in front of them
    (and when that names a command, the fix is what parsing the moved line suggests, so a
    misspelt `--tokn` is spelt right). `tool --version --bogus` names no command: the fix
    is the version alone."""
    named: list[str] = []
    at = node
    for token in rest:
        child = child_named(at, token) if at.is_group and not token.startswith("-") else None
        if child is not None:
            named.append(token)
            at = child
    remaining = list(rest)
    for token in named:
        remaining.remove(token)
    fix = path + (named if named else ["<command>"]) + remaining
    if version and not named:
        fix = path + ["--version"]
    if named and not at.is_group:
        try:
            parse(program, fix, environ)
        except Refusal as again:
            fix = again.fix if again.fix is not None else fix
    raise Refusal("unknown_option",
                  f"{_clip(rest[0])} is not an option of '{_where(program, node)}'; "
                  f"options go after a command",
                  hint="commands: " + ", ".join(_visible_names(node)), fix=fix)


def _where(program, node) -> str:
    return " ".join((program.name,) + tuple(node.path))


def _visible_names(node):
    return [child.name for child in node.commands if not child.hidden]


def _refuse_unknown_command(program, node, name, argv, i):
    from workbench._text import nearest
    names = _visible_names(node)
    aliases = [a for child in node.commands if not child.hidden for a in child.aliases]
    close = nearest(name, names + aliases)
    message = f"unknown command '{_clip(name)}' in " \
              f"'{' '.join([program.name] + list(argv[:i]))}'"
    if close:
        hint = "did you mean: " + ", ".join(close) + "? (not run: check, then run it yourself)"
        fix = argv[:i] + [close[0]] + argv[i + 1:]
    else:
        hint = "commands: " + ", ".join(names)
        fix = argv[:i] + ["<command>"] + argv[i + 1:]
    raise Refusal("unknown_command", message, hint=hint, fix=fix)


def flag_table(command) -> dict:
    """Every spelling the command accepts -> (option, negated, old name used or None)."""
    table = command.__dict__.get("_flag_table") if hasattr(command, "__dict__") else None
    if table is None:
        table = {}
        for option in command.options.values():
            for spelling, (negated, alias) in option.spellings.items():
                table.setdefault(spelling, (option, negated, alias))
        try:
            command._flag_table = table
        except AttributeError:   # a Builtin (slots): small enough to rebuild
            pass
    return table


def _looks_negative_number(token: str) -> bool:
    body = token[1:]
    return bool(body) and body.replace(".", "", 1).isdigit()


def _is_slot(raw: str) -> bool:
    return (raw.startswith("<") and raw.endswith(">") and len(raw) > 2) or \
        (raw.startswith("$") and len(raw) > 1)


def _parse_command(request, command, tokens, environ, placeholders=False):
    table = flag_table(command)
    values: dict = {}
    where: dict = {}
    positionals: list[str] = []
    request.tokens = list(tokens)
    i = 0
    only_positional = False
    while i < len(tokens):
        token = tokens[i]
        if only_positional or token == "-" or not token.startswith("-") \
                or (_looks_negative_number(token) and token not in table):
            if token == "--" and not only_positional:
                only_positional = True
            else:
                positionals.append(token)
            i += 1
            continue
        if token == "--":
            only_positional = True
            i += 1
            continue
        flag, eq, inline = token.partition("=")
        entry = table.get(flag)
        if entry is None and not token.startswith("--") and len(token) > 2:
            entry = table.get(token[:2])
            if entry is not None:
                flag, eq, inline = token[:2], "=", token[2:]
                if entry[0].flag_only:   # -yv, -yt x, -ytx, -vvv: a cluster of shorts
                    cluster = _cluster(table, token)
                    if cluster is not None:
                        tokens = tokens[:i] + cluster + tokens[i + 1:]
                        continue
                    entry = None
        if entry is None:
            _refuse_unknown_option(command, tokens, i, flag)
        option, negated, alias = entry
        if alias:
            request.warnings.append(
                f"{flag} is deprecated; use {option.flag}" +
                (f" ({option.deprecated})" if isinstance(option.deprecated, str) else ""))
        elif option.deprecated or option.replaced_by:
            request.warnings.append(_deprecated_option(option))
        if option.count:
            _count(option, values, where, flag, eq, inline, tokens, i)
            i += 1
            continue
        if option.nargs > 1:
            i += _take_nargs(option, values, where, flag, eq, tokens, i, placeholders)
            continue
        if option.type == "boolean":
            if eq:
                low = inline.lower()
                if low not in TRUE_WORDS + FALSE_WORDS:
                    raise Refusal("invalid_value",
                                  f"{flag} is a boolean flag; it takes no value "
                                  f"(got {_shown(option, inline)})",
                                  hint=f"write {option.flag}" +
                                       (f" or {option.negation}" if option.negation else ""),
                                  fix=_replace(tokens, i, [flag]))
                value = (low in TRUE_WORDS) != negated
            else:
                value = not negated
            _store(option, values, where, value, flag if negated else option.flag,
                   tokens, i, 1)
            i += 1
            continue
        if eq:
            raw, width = inline, 1
        elif i + 1 < len(tokens) and (not tokens[i + 1].startswith("-") or tokens[i + 1] == "-"
                                      or _looks_negative_number(tokens[i + 1])):
            raw, width = tokens[i + 1], 2
        else:
            _refuse_missing_value(table, option, flag, tokens, i)
        if placeholders and _is_slot(raw):
            value = [raw] if option.type == "list" else raw
        else:
            value = convert(option, raw, flag,
                            lambda: _replace(tokens, i, [flag, option.metavar], width))
        _store(option, values, where, value, option.flag, tokens, i, width)
        i += width
    _assign_positionals(request, command, positionals, values, where, tokens, placeholders)
    _fill_missing(request, command, values, where, environ, tokens, placeholders)
    extra_keys = command.framework_keys
    for key, value in values.items():
        if key[0] == "#":
            request.args[key[1:]] = value
        elif key in extra_keys:
            request.extras[key] = value
        else:
            request.options[key] = value
    request.provenance = {key.lstrip("#"): where[key] for key in where
                          if not (key in extra_keys and where[key]["source"] == "default")}
    if command.deprecated or command.replaced_by:
        request.warnings.append(
            f"'{' '.join(command.path)}' is deprecated" +
            (f"; use '{command.replaced_by}'" if command.replaced_by else "") +
            (f" ({command.deprecated})" if isinstance(command.deprecated, str) else ""))


def _cluster(table, token):
    """`-yvt x` as `-y -v -t`: boolean shorts, the last may take a value (`-ytx`); or None."""
    cluster = []
    chars = token[1:]
    for at, char in enumerate(chars):
        entry = table.get("-" + char)
        if entry is None:
            return None
        if not entry[0].flag_only:
            cluster.append("-" + chars[at:])
            return cluster
        cluster.append("-" + char)
    return cluster


def _count(option, values, where, flag, eq, inline, tokens, i) -> None:
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


def _take_nargs(option, values, where, flag, eq, tokens, i, placeholders) -> int:
    """`--point 1 2`: the next `nargs` tokens, whatever they look like, as one tuple."""
    count = option.nargs
    if eq:
        raise Refusal("invalid_value", f"{flag} takes {count} values, written after it "
                      f"separated by spaces", hint=f"write {flag} {' '.join(option.value_slots)}",
                      fix=_replace(tokens, i, [flag, tokens[i].partition("=")[2],
                                               *option.value_slots[1:]]))
    raw = tokens[i + 1:i + 1 + count]
    if "--" in raw:
        raw = raw[:raw.index("--")]
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
        converted.append(convert(option, one, flag,
                                 lambda spot=spot: _replace(tokens, spot, [option.metavar])))
    value = tuple(converted)
    if option.type == "list":
        values.setdefault(option.key, []).append(value)
        where.setdefault(option.key, {"source": "flag", "location": option.flag})
    else:
        _store(option, values, where, value, option.flag, tokens, i, 1 + count)
    return 1 + count


def _refuse_missing_value(table, option, flag, tokens, i):
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if following is not None and following != "--" and following not in table \
            and following.partition("=")[0] not in table \
            and following not in GLOBAL_SPELLINGS:   # `--token -x`: a value that starts with -
        raise Refusal("missing_value",
                      f"{flag} needs a value ({_describe(option)}); "
                      f"{_shown(option, following)} looks like a flag",
                      hint=f"a value that starts with '-' is written {option.flag}=VALUE",
                      fix=_replace(tokens, i, [f"{option.flag}={option.metavar}"], 2))
    raise Refusal("missing_value", f"{flag} needs a value ({_describe(option)})",
                  hint=f"write {option.flag} {option.metavar}",
                  fix=_replace(tokens, i, [flag, option.metavar]))


def _deprecated_option(option) -> str:
    return f"{option.flag} is deprecated" + \
        (f"; use {option.replaced_by}" if option.replaced_by else "") + \
        (f" ({option.deprecated})" if isinstance(option.deprecated, str) else "")


def _store(option, values, where, value, location, tokens, i, width):
    key = option.key
    if option.type == "list":
        values.setdefault(key, []).extend(value if isinstance(value, list) else [value])
        where.setdefault(key, {"source": "flag", "location": location})
        return
    if key in values and where[key]["source"] == "flag":
        raise Refusal("duplicate_option",
                      f"{option.flag} was given more than once; it takes one value",
                      hint="keep the one you mean",
                      fix=tokens[:i] + tokens[i + width:])
    values[key] = value
    where[key] = {"source": "flag", "location": location}


def _describe(option) -> str:
    return option.describe() + (": " + option.description if option.description else "")


def _shown(param, raw: str) -> str:
    return "a hidden value" if param.sensitive else _shown_raw(raw)


def convert(param, raw: str, label: str, fix_tokens):
    """Convert one raw string to the parameter's (item) type, or refuse naming the type; then
    keep its limits (`min`, `max`, the path checks), or refuse with a fix that keeps them."""
    try:
        value = param.convert(raw)
    except ValueError as error:
        reason = str(error) if param.value_type.explains and str(error) else ""
    else:
        if param.checked:
            problem = param.check(value)
            if problem:
                _refuse_check(param, raw, value, problem, label, fix_tokens)
        return value
    choices = param.enum_values
    if choices is None:
        words = param.value_type.words
        because = f" ({_clip(reason)})" if reason and not param.sensitive else ""
        near = None if param.sensitive else param.value_type.suggest(raw)
        if near is None and param.default is not None and param.nargs == 1 \
                and param.type != "list":
            near = number_token(param.default)   # what leaving it out would give
        raise Refusal("invalid_value", f"{label} expects {words}, got {_shown(param, raw)}"
                      + because, hint=f"give {label} {words}" +
                      (f", e.g. {near}" if near is not None else ""),
                      fix=_fix_value(fix_tokens(), param.metavar, near))
    from workbench._text import nearest
    close = [] if param.sensitive else nearest(raw, [str(c) for c in choices], n=1)
    raise Refusal("invalid_choice",
                  f"{label} must be one of: {', '.join(map(str, choices))}; "
                  f"got {_shown(param, raw)}",
                  hint=f"did you mean {close[0]}?" if close else None,
                  fix=_fix_value(fix_tokens(), param.metavar,
                                 param.fill_value(close[0] if close else None)))


def _refuse_check(param, raw, value, problem, label, fix_tokens):
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
        fixed = _nearest_path(param, raw)
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


def _nearest_path(param, raw: str) -> str | None:
    """The entry beside `raw` with the nearest name that passes the path checks, or None."""
    import os
    folder, name = os.path.split(raw)
    try:
        entries = sorted(os.listdir(folder or "."))
    except OSError:
        return None
    fitting = [entry for entry in entries if not param.check(os.path.join(folder, entry))]
    from workbench._text import nearest
    close = nearest(name, fitting, n=1) if name else []
    return os.path.join(folder, close[0]) if close else None


def _fix_value(tokens, metavar, value):
    if value is None:
        return tokens
    return [value if token == metavar else token for token in tokens]


def _replace(tokens, i, new, width=1):
    return tokens[:i] + list(new) + tokens[i + width:]


def _refuse_unknown_option(command, tokens, i, flag):
    from workbench._text import nearest
    table = flag_table(command)
    known = [f for f in table if f.startswith("--") and table[f][2] is None
             and not table[f][1]]
    spellings = [f for f in table if f.startswith("--")]
    close = list(dict.fromkeys(_canonical(table, f) for f in nearest(flag, spellings)))
    label = " ".join(command.path)
    token = tokens[i]
    from workbench.runtime.redact import sensitive_flag
    secret = sensitive_flag(getattr(command, "program", None), flag)   # --TOKEN, --api-token
    if not close and secret is not None and table.get(secret.flag, (None,))[0] is secret:
        close = [secret.flag]
    if close:
        fixed = close[0] + token[len(flag):]
        hint = "did you mean " + " or ".join(close) + "?"
        fix = _replace(tokens, i, [fixed])
    else:
        hint = f"'{label}' takes: " + (", ".join(sorted(known)) or "no options")
        elsewhere = _option_elsewhere(command, flag)
        width = 1
        if elsewhere is not None:
            owner, option = elsewhere
            hint = f"{flag} is an option of '{' '.join(owner.path)}', not of '{label}'"
            if option.type != "boolean" and "=" not in token and i + 1 < len(tokens):
                width = 2     # drop its value too: it may be a secret, and it is not ours
        elif secret is not None and secret.type != "boolean" and "=" not in token \
                and i + 1 < len(tokens):
            width = 2
        fix = tokens[:i] + tokens[i + width:]
    raise Refusal("unknown_option", f"'{label}' has no option {_clip(flag)}", hint=hint,
                  fix=fix)


def _canonical(table, spelling: str) -> str:
    """The spelling to suggest for a near miss: an old name gives way to the current flag."""
    option, negated, alias = table[spelling]
    return option.flag if alias else spelling


def _option_elsewhere(command, flag):
    """(command, option) of another command of the program that has this spelling, or None."""
    program = getattr(command, "program", None)
    if program is None:
        return None
    for other in program.walk(load=False):   # lazy groups not loaded are not searched
        option = flag_table(other).get(flag) if other is not command else None
        if option is not None:
            return other, option[0]
    return None


def _assign_positionals(request, command, positionals, values, where, tokens,
                        placeholders=False):
    arguments = command.arguments
    position = 0
    for index, argument, raw_values, position in _spread(arguments, positionals):
        key = "#" + argument.key
        converted = []
        for raw in raw_values:
            if raw == "-" and argument.stdin:
                request.stdin_inputs.append(argument.key)
                converted.append(raw)
                continue
            if placeholders and _is_slot(raw):
                converted.append(raw)
                continue
            converted.append(convert(argument, raw, "argument " + argument.metavar,
                                     lambda: [argument.metavar if t == raw else t
                                              for t in tokens]))
        values[key] = converted if argument.variadic else converted[0]
        where[key] = ({"source": "stdin"} if "-" in raw_values and argument.stdin
                      else {"source": "argument", "location": index + 1})
    if position < len(positionals):
        extra = positionals[position:]
        label = " ".join(command.path)
        takes = " ".join(a.metavar for a in arguments) or "no arguments"
        fixed = list(tokens)
        for token in extra:
            if token in fixed:
                fixed.remove(token)
        raise Refusal("unexpected_argument",
                      f"'{label}' got unexpected argument{'s' if len(extra) > 1 else ''}: "
                      f"{' '.join(_shown_raw(t) if len(t) > 60 else t for t in extra)}",
                      hint=f"'{label}' takes {takes}; values of options go after their flag",
                      fix=fixed)


def _spread(arguments, positionals):
    """(index, argument, its raw values, positionals used so far) for each argument given a
    value: in order, a variadic one taking what the required arguments after it leave
    (`SRC... DST`: the last value is DST)."""
    position = 0
    after = 0
    for index, argument in enumerate(arguments):
        if argument.variadic:
            after = len(arguments) - index - 1
            break
    for index, argument in enumerate(arguments):
        if argument.variadic:
            end = max(position, len(positionals) - after)
            taken = positionals[position:end]
            position = end
            if taken:
                yield index, argument, taken, position
            continue
        if position >= len(positionals):
            continue
        position += 1
        yield index, argument, [positionals[position - 1]], position


def _fill_missing(request, command, values, where, environ, tokens, placeholders=False):
    for option in command.options.values():
        key = option.key
        if key in values:
            continue
        if option.env and placeholders:
            values[key] = "$" + option.env
            where[key] = {"source": "env", "location": option.env}
            continue
        if option.env and environ.get(option.env) not in (None, ""):
            values[key] = _from_env(option, environ[option.env], tokens)
            where[key] = {"source": "env", "location": option.env}
            continue
        if option.prompt is not None and not placeholders:
            request.prompts.append(key)   # asked when a person can answer (the pipeline)
            values[key] = option.default_value()
            continue
        if option.required:
            insert = _insert_at(tokens)
            raise Refusal("missing_option",
                          f"'{' '.join(command.path)}' needs {option.flag} ({_describe(option)})",
                          hint=f"add {option.flag} {' '.join(option.value_slots)}" +
                               (f" or set {option.env}" if option.env else ""),
                          fix=tokens[:insert] + [option.flag] + _fill(option)
                          + tokens[insert:])
        if option.default is not None:
            values[key] = option.default_value()
            where[key] = {"source": "default"}
        elif option.type == "boolean":
            values[key] = False
            where[key] = {"source": "default"}
        elif option.type == "list":
            values[key] = []
        else:
            values[key] = None
    for index, argument in enumerate(command.arguments):
        key = "#" + argument.key
        if key in values:
            continue
        if argument.env and placeholders:
            values[key] = ["$" + argument.env] if argument.variadic else "$" + argument.env
            where[key] = {"source": "env", "location": argument.env}
            continue
        if argument.env and environ.get(argument.env) not in (None, ""):
            raw = environ[argument.env]
            label = f"${argument.env}"
            if argument.variadic:
                value = [convert(argument, part, label, lambda: tokens) for part in raw.split()]
            else:
                value = convert(argument, raw, label, lambda: tokens)
            values[key] = value
            where[key] = {"source": "env", "location": argument.env}
            continue
        if argument.required:
            raise Refusal("missing_argument",
                          f"'{' '.join(command.path)}' needs {argument.metavar}" +
                          (f" ({argument.description})" if argument.description else ""),
                          hint=f"usage: {' '.join(command.words) or command.program.name} " +
                               " ".join(a.metavar for a in command.arguments) +
                               (f" (or set {argument.env})" if argument.env else ""),
                          fix=_with_arguments(command, values, tokens, index))
        values[key] = [] if argument.variadic else argument.default_value()
    _check_relations(request, command, values, where, tokens)


def _fill(param) -> list:
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


def _with_arguments(command, values, tokens, missing_at: int) -> list:
    """`tokens` with the slot of every required argument not given, each where its value
    goes: before the values of the arguments after it (a `SRC... DST` command), else last."""
    insert = _insert_at(tokens)
    missing = []
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
        missing += _fill(argument) if not argument.variadic else [argument.metavar[:-3]]
    return tokens[:insert] + missing + tokens[insert:]


def _from_env(option, raw: str, tokens):
    """An option's value from its environment variable: a list splits at commas, `nargs`
    values at whitespace."""
    label = f"${option.env}"
    if option.count:
        try:
            return int(raw)
        except ValueError:
            raise Refusal("invalid_value", f"{label} must be a whole number (it counts "
                          f"{option.flag}); got {_shown(option, raw)}",
                          hint=f"set {option.env} to a number, or unset it",
                          fix=tokens) from None
    parts = [part.strip() for part in raw.split(",") if part.strip()] \
        if option.type == "list" and option.nargs == 1 else raw.split() if option.nargs > 1 \
        else [raw]
    converted = [convert(option, part, label, lambda: tokens) for part in parts]
    if option.nargs > 1:
        count = option.nargs
        if len(converted) % count or not converted:
            raise Refusal("invalid_value", f"{label} must hold {count} values per use, "
                          f"separated by spaces; got {len(converted)}",
                          hint=f"set {option.env} to {' '.join(option.value_slots)}",
                          fix=tokens)
        groups = [tuple(converted[at:at + count]) for at in range(0, len(converted), count)]
        return groups if option.type == "list" else groups[0]
    return converted if option.type == "list" else converted[0]


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


def _check_relations(request, command, values, where, tokens) -> None:
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
                          fix=tokens[:insert] + ([flag] if flag else []) + _fill(other)
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


def _insert_at(tokens) -> int:
    return tokens.index("--") if "--" in tokens else len(tokens)
