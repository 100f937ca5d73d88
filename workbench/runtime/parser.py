"""argv -> Request, or a Refusal that names the fix. Pure: reads the model and the environment."""

from __future__ import annotations

from workbench.declaration.model import RESERVED_COMMANDS, child_named

GLOBAL_FLAGS = {"--json": "json", "--debug": "debug", "--help": "help", "-h": "help",
                "--schema": "schema", "--version": "version", "--progress": "progress"}
"""Flags every command accepts, anywhere before `--`."""

GLOBAL_VALUE_FLAGS = {"--format": "format"}
"""Global flags that take a value (`--format ndjson`)."""

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


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


class Request:
    """What argv asked for: a node (program, group or command), global flags, parsed inputs."""

    def __init__(self):
        self.flags = {"json": False, "debug": False, "help": False, "schema": False,
                      "version": False, "progress": False, "format": None}
        self.node = None
        self.command = None
        self.path: list[str] = []
        self.builtin: str | None = None
        self.rest: list[str] = []
        self.options = Values()
        self.args = Values()
        self.provenance: dict = {}
        self.tokens: list[str] = []   # the command's own tokens as given (no globals)
        self.stdin_inputs: list[str] = []
        self.warnings: list[str] = []
        self.extras = Values()        # framework inputs (--limit, --dry-run, ...) by key

    @property
    def json(self) -> bool:
        return self.flags["json"]


def split_globals(argv):
    """Remove global flags before `--`; returns (flags, remaining argv, error or None)."""
    flags = Request().flags
    rest = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            rest.extend(argv[i:])
            break
        name = GLOBAL_FLAGS.get(token)
        if name is not None:
            flags[name] = True
        elif token.split("=", 1)[0] in GLOBAL_VALUE_FLAGS:
            flag, eq, value = token.partition("=")
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return flags, rest, (flag, None)
                i += 1
                value = argv[i]
            flags[GLOBAL_VALUE_FLAGS[flag]] = value
        else:
            rest.append(token)
        i += 1
    return flags, rest, None


def parse(program, argv, environ) -> Request:
    """Resolve argv against the program. Raises Refusal with a fix on bad input."""
    request = Request()
    flags, argv, bad = split_globals(list(argv))
    request.flags = flags
    if bad:
        fix = argv + [bad[0], "json"]
        raise Refusal("missing_value", f"{bad[0]} needs a value: json or ndjson",
                      hint="e.g. --format ndjson", fix=fix)
    node = program
    i = 0
    while node.is_group and i < len(argv) and argv[i] != "--" and not argv[i].startswith("-"):
        name = argv[i]
        child = child_named(node, name)
        if child is None:
            if node is program and name in RESERVED_COMMANDS:
                request.builtin = name
                request.rest = argv[i + 1:]
                request.node = program
                return request
            _refuse_unknown_command(program, node, name, argv, i)
        node = child
        request.path.append(child.name)
        i += 1
    request.node = node
    if node.is_group:
        if i < len(argv) and argv[i] != "--" and not (flags["help"] or flags["schema"]):
            rest = argv[i:]
            named = [t for t in rest if child_named(node, t) is not None]
            if named:   # `tool -t x deploy`: the command came after its options
                rest.remove(named[0])
                fix = request.path + [named[0]] + rest
            else:
                fix = request.path + ["<command>"] + rest
            raise Refusal("unknown_option",
                          f"{argv[i]} is not an option of '{_where(program, node)}'; "
                          f"options go after a command",
                          hint="commands: " + ", ".join(_visible_names(node)), fix=fix)
        return request
    request.command = node
    if flags["help"] or flags["schema"] or node.run is None and node.adapter is None:
        return request
    try:
        _parse_command(request, node, argv[i:], environ)
    except Refusal as refusal:
        if refusal.fix is not None:
            refusal.fix = argv[:i] + list(refusal.fix)
        raise
    return request


def _where(program, node) -> str:
    return " ".join((program.name,) + tuple(node.path))


def _visible_names(node):
    return [child.name for child in node.commands if not child.hidden]


def _refuse_unknown_command(program, node, name, argv, i):
    from workbench._text import nearest
    names = _visible_names(node)
    aliases = [a for child in node.commands if not child.hidden for a in child.aliases]
    close = nearest(name, names + aliases)
    message = f"unknown command '{name}' in '{' '.join([program.name] + list(argv[:i]))}'"
    if close:
        hint = "did you mean: " + ", ".join(close) + "? (not run: check, then run it yourself)"
        fix = argv[:i] + [close[0]] + argv[i + 1:]
    else:
        hint = "commands: " + ", ".join(names)
        fix = argv[:i] + ["<command>"] + argv[i + 1:]
    raise Refusal("unknown_command", message, hint=hint, fix=fix)


def flag_table(command) -> dict:
    """`--flag`/`-s`/`--no-flag`/old aliases -> (option, negated, alias_used)."""
    table = command.__dict__.get("_flag_table")
    if table is None:
        table = {}
        for option in command.options.values():
            table[option.flag] = (option, False, None)
            if option.short:
                table["-" + option.short] = (option, False, None)
            for alias in option.aliases:
                table["--" + alias.replace("_", "-")] = (option, False, alias)
            if option.type == "boolean":
                table["--no-" + option.flag[2:]] = (option, True, None)
        command._flag_table = table
    return table


def _looks_negative_number(token: str) -> bool:
    body = token[1:]
    return bool(body) and body.replace(".", "", 1).isdigit()


def _parse_command(request, command, tokens, environ):
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
                if entry[0].type == "boolean":   # -yv: a cluster of boolean shorts
                    cluster = ["-" + c for c in token[1:]]
                    if all(c in table and table[c][0].type == "boolean" for c in cluster):
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
        if option.type == "boolean":
            if eq:
                low = inline.lower()
                if low not in _TRUE + _FALSE:
                    raise Refusal("invalid_value",
                                  f"{flag} is a boolean flag; it takes no value (got {inline!r})",
                                  hint=f"write {option.flag} or --no-{option.flag[2:]}",
                                  fix=_replace(tokens, i, [option.flag if low else flag]))
                value = (low in _TRUE) != negated
            else:
                value = not negated
            _store(option, values, where, value, option.flag if not negated else flag,
                   tokens, i, 1)
            i += 1
            continue
        if eq:
            raw, width = inline, 1
        elif i + 1 < len(tokens) and (not tokens[i + 1].startswith("-") or tokens[i + 1] == "-"
                                      or _looks_negative_number(tokens[i + 1])):
            raw, width = tokens[i + 1], 2
        else:
            raise Refusal("missing_value",
                          f"{flag} needs a value ({_describe(option)})",
                          hint=f"write {option.flag} {option.metavar}",
                          fix=_replace(tokens, i, [flag, option.metavar]))
        value = convert(option, raw, flag, lambda: _replace(tokens, i, [flag, option.metavar],
                                                            width))
        _store(option, values, where, value, option.flag, tokens, i, width)
        i += width
    _assign_positionals(request, command, positionals, values, where, tokens)
    _fill_missing(request, command, values, where, environ, tokens)
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
    if command.deprecated:
        request.warnings.append(
            f"'{' '.join(command.path)}' is deprecated" +
            (f"; use '{command.replaced_by}'" if command.replaced_by else "") +
            (f" ({command.deprecated})" if isinstance(command.deprecated, str) else ""))


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
    if option.type == "enum":
        return "one of: " + ", ".join(map(str, option.choices or ()))
    kind = option.type if option.type != "list" else f"list of {option.items}"
    return kind + (": " + option.description if option.description else "")


def convert(option, raw: str, label: str, fix_tokens):
    """Convert one raw string to the option's type, or refuse naming the type."""
    kind = option.items if option.type == "list" else option.type
    shown = "a hidden value" if option.sensitive else repr(raw)
    try:
        if kind == "integer":
            return int(raw)
        if kind == "number":
            value = float(raw)
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError
            return int(value) if raw.lstrip("-").isdigit() else value
        if kind == "boolean":
            low = raw.lower()
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            raise ValueError
    except ValueError:
        raise Refusal("invalid_value", f"{label} expects {_article(kind)} {kind}, got {shown}",
                      hint=f"give {label} {_article(kind)} {kind}",
                      fix=fix_tokens()) from None
    choices = option.choices
    if choices and raw not in [str(c) for c in choices]:
        from workbench._text import nearest
        close = nearest(raw, [str(c) for c in choices], n=1)
        raise Refusal("invalid_choice",
                      f"{label} must be one of: {', '.join(map(str, choices))}; got {shown}",
                      hint=f"did you mean {close[0]}?" if close else None,
                      fix=_fix_value(fix_tokens(), option.metavar, close[0] if close else None))
    return raw


def _fix_value(tokens, metavar, value):
    if value is None:
        return tokens
    return [value if token == metavar else token for token in tokens]


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def _replace(tokens, i, new, width=1):
    return tokens[:i] + list(new) + tokens[i + width:]


def _refuse_unknown_option(command, tokens, i, flag):
    from workbench._text import nearest
    table = flag_table(command)
    known = [f for f in table if f.startswith("--") and not f.startswith("--no-")]
    close = nearest(flag, known + [f for f in table if f.startswith("--no-")])
    label = " ".join(command.path)
    token = tokens[i]
    if close:
        fixed = close[0] + token[len(flag):]
        hint = "did you mean " + " or ".join(close) + "?"
        fix = _replace(tokens, i, [fixed])
    else:
        hint = f"'{label}' takes: " + (", ".join(sorted(known)) or "no options")
        fix = tokens[:i] + tokens[i + 1:]
    raise Refusal("unknown_option", f"'{label}' has no option {flag}", hint=hint, fix=fix)


def _assign_positionals(request, command, positionals, values, where, tokens):
    arguments = command.arguments
    position = 0
    for index, argument in enumerate(arguments):
        key = "#" + argument.key
        if argument.variadic:
            taken = positionals[position:]
            position = len(positionals)
            if not taken:
                continue
            raw_values = taken
        else:
            if position >= len(positionals):
                continue
            raw_values = [positionals[position]]
            position += 1
        converted = []
        for raw in raw_values:
            if raw == "-" and argument.stdin:
                request.stdin_inputs.append(argument.key)
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
                      f"{' '.join(extra)}",
                      hint=f"'{label}' takes {takes}; values of options go after their flag",
                      fix=fixed)


def _fill_missing(request, command, values, where, environ, tokens):
    for option in command.options.values():
        key = option.key
        if key in values:
            continue
        if option.env and environ.get(option.env) not in (None, ""):
            raw = environ[option.env]
            if option.type == "list":
                value = [convert(option, part.strip(), option.env, lambda: tokens)
                         for part in raw.split(",") if part.strip()]
            else:
                value = convert(option, raw, f"${option.env}", lambda: tokens)
            values[key] = value
            where[key] = {"source": "env", "location": option.env}
            continue
        if option.required:
            insert = _insert_at(tokens)
            raise Refusal("missing_option",
                          f"'{' '.join(command.path)}' needs {option.flag} ({_describe(option)})",
                          hint=f"add {option.flag} {option.metavar}" +
                               (f" or set {option.env}" if option.env else ""),
                          fix=tokens[:insert] + [option.flag, option.metavar] + tokens[insert:])
        if option.default is not None:
            values[key] = list(option.default) if option.type == "list" else option.default
            where[key] = {"source": "default"}
        elif option.type == "boolean":
            values[key] = False
            where[key] = {"source": "default"}
        elif option.type == "list":
            values[key] = []
        else:
            values[key] = None
    for argument in command.arguments:
        key = "#" + argument.key
        if key in values:
            continue
        if argument.required:
            insert = _insert_at(tokens)
            missing = [a.metavar for a in command.arguments
                       if a.required and "#" + a.key not in values]
            raise Refusal("missing_argument",
                          f"'{' '.join(command.path)}' needs {argument.metavar}" +
                          (f" ({argument.description})" if argument.description else ""),
                          hint=f"usage: {' '.join(command.path)} " +
                               " ".join(a.metavar for a in command.arguments),
                          fix=tokens[:insert] + missing + tokens[insert:])
        values[key] = [] if argument.variadic else argument.default


def _insert_at(tokens) -> int:
    return tokens.index("--") if "--" in tokens else len(tokens)
