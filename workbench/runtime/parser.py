"""argv -> Request, or a Refusal that names the fix. Pure: reads the model and the environment.

One parser for everything: a program's own commands, the built-in commands and the global
flags (both declared as data in `workbench.declaration.builtins`), and the examples the
definition checks parse (`placeholders=True` lets `<slot>` and `$ENV` stand for values).
"""

from __future__ import annotations

from workbench.declaration.builtins import (GLOBAL_OPTIONS, GLOBAL_SPELLINGS, SHARED_SPELLINGS,
                                            find_builtin)
from workbench.declaration.model import child_named
from workbench.declaration.params import FALSE_WORDS, TRUE_WORDS, number_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from collections.abc import Callable, Mapping, Sequence

    from workbench.declaration.builtins import Builtin
    from workbench.declaration.model import Command, Group, Program
    from workbench.declaration.params import Argument, Option
    _ValuesBase = dict[str, Any]
else:
    _ValuesBase = dict

class Refusal(Exception):
    """A usage refusal (exit 2): `fix` is the corrected argv after the program name; `field`
    the key of the input at fault (None when no one input is)."""

    def __init__(self, code: str, message: str, hint: str | None = None,
                 fix: list[str] | None = None,
                 exit: int = 2, field: str | None = None):
        super().__init__(message)
        self.field = field
        self.code = code
        self.message = message
        self.hint = hint
        self.fix: list[str] | None = fix
        self.exit = exit


class Values(_ValuesBase):
    """Parsed inputs with attribute and item access: `ctx.options.target`, `ctx.options["target"]`."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"no input named {key!r}; known: {', '.join(self) or 'none'}") \
                from None


def _default_flags() -> dict[str, Any]:
    return {key: (False if option.type == "boolean" else None)
            for key, option in GLOBAL_OPTIONS.items()}


class Request:
    """What argv asked for: a node (program, group or command) or a built-in, global flags,
    parsed inputs."""

    flags: dict[str, Any]   # the attributes' types, for checkers
    node: Program | Command | Group | None
    command: Command | None
    builtin: Builtin | None
    options: Values
    args: Values
    extras: Values
    provenance: dict[str, dict[str, str]]
    prompts: list[str]   # keys of the options to ask a person for (`Option(prompt=...)`)

    def __init__(self) -> None:
        self.flags = _default_flags()
        self.node = None
        self.command = None
        self.path: list[str] = []
        self.builtin = None           # a Builtin (workbench.declaration.builtins) or None
        self.options = Values()
        self.args = Values()
        self.provenance = {}
        self.tokens: list[str] = []   # the command's own tokens as given (no globals)
        self.stdin_inputs: list[str] = []
        self.warnings: list[str] = []
        self.extras = Values()        # framework inputs (--limit, --dry-run, ...) by key
        self.prompts = []

    @property
    def json(self) -> bool:
        """`--json` or `--format json`: one envelope on stdout."""
        return self.flags["json"] or self.flags["format"] == "json"


def split_globals(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Take the global flags out of argv (before `--`): (flags, remaining argv).

    Refuses a global flag's bad value (`--format bogus`) as any option's would be refused."""
    flags = _default_flags()
    rest: list[str] = []
    json_fields = None
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
            if eq and option.key == "json" and inline:
                flags["json"] = True   # `--json=a,b`: the envelope with these fields only
                json_fields = inline
            elif eq:
                rest.append(token)   # `--flag=x`: not a global spelling; the command refuses it
            else:
                flags[option.key] = True
            i += 1
            continue
        if eq:
            raw, width = inline, 1
        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            raw, width = argv[i + 1], 2
        else:
            example = str(option.choices[-1]) if option.choices else option.metavar
            fix = rest + [option.flag, str(option.choices[0]) if option.choices else
                          option.metavar] + argv[i + 1:]
            raise Refusal("missing_value", f"{option.flag} needs a value ({option.describe()})",
                          hint=f"e.g. {option.flag} {example}", fix=fix, field=option.key)
        try:
            flags[option.key] = option.convert(raw)
        except ValueError:
            from workbench._text import nearest
            choices = option.choices or []   # only an enum's value fails to convert
            close = nearest(raw, [str(c) for c in choices], n=1)
            fixed = close[0] if close else str(choices[0])
            raise Refusal("invalid_choice", f"{option.flag} must be {option.describe()}; "
                          f"got {_shown_raw(raw)}",
                          hint=f"did you mean {fixed}?" if close else None,
                          fix=rest + [option.flag, fixed] + argv[i + width:], field=option.key) from None
        i += width
    if json_fields is not None:
        flags["fields"] = _json_fields(json_fields, flags["fields"], argv)
    return flags, rest


def _json_fields(inline: str, given, argv: list) -> str:
    """The field list of `--json=a,b` (Frazer's spelling of `--fields a,b --json`). Only the
    `=` form takes fields: `--json a,b` would make a positional argument ambiguous. Refused
    beside a different `--fields`, the fix keeping `--json=a,b` and dropping `--fields`."""
    if given is None or given == inline:
        return inline
    fix, skip = [], False
    for token in argv:
        if skip:
            skip = False
        elif token == "--fields":
            skip = True
        elif not token.startswith("--fields="):
            fix.append(token)
    raise Refusal("conflicting_options", f"--json={_clip(inline)} and --fields {_clip(given)} "
                  "name different fields", hint="give the fields once", fix=fix)


def _clip(text: str) -> str:
    """A caller's token, cut short when long (a 1 MB token never lands in a message whole)."""
    return text if len(text) <= 60 else text[:57] + "..."


def _shown_raw(raw: str) -> str:
    return repr(_clip(raw))


def parse(program: Program, argv: list[str], environ: Mapping[str, str], *,
          placeholders: bool = False) -> Request:
    """Resolve argv against the program. Raises Refusal with a fix on bad input.

    `placeholders=True` (examples) accepts `<slot>` and `$ENV` for any value."""
    request = Request()
    request.flags, argv = split_globals(list(argv))
    flags = request.flags
    node: Any = program   # Program, Group or Command: `is_group` tells, which checkers do not read
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
            if not node.__dict__.get("_chain"):   # nothing shared: the command's own flags
                break
            from workbench.runtime._rules import shared_width
            width = shared_width(node, argv, i)
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
                if name in getattr(program, "ambiguous", ()):   # issue 34: say which
                    from workbench.runtime._agentic import refuse_ambiguous
                    refuse_ambiguous(program, name, leading + argv[i + 1:])
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
        if leading and not (flags["help"] or flags["schema"] or flags["version"]):
            from workbench.runtime._rules import refuse_no_command
            refuse_no_command(program, node, words, leading)
        return request
    request.command = node
    if flags["help"] or flags["schema"] or node.run is None and node.adapter is None:
        return request
    try:
        _parse_command(request, node, _shared_back(flags, node, leading + argv[i:]), environ,
                       placeholders)
    except Refusal as refusal:
        if refusal.fix is not None:
            refusal.fix = words + list(refusal.fix)
        raise
    return request


def _shared_back(flags, command, tokens) -> list:
    """A shared global spelling (`--no-color`) the command declares too goes back to its own
    tokens (before any `--`): the command reads it as well as the global flag."""
    for spelling in SHARED_SPELLINGS:
        if flags[GLOBAL_SPELLINGS[spelling].key] and spelling in flag_table(command):
            at = tokens.index("--") if "--" in tokens else len(tokens)
            tokens = tokens[:at] + [spelling] + tokens[at:]
    return tokens


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


def _refuse_unknown_command(program: Program, node: Program | Group, name: str,
                            argv: list[str], i: int) -> NoReturn:
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


def _field_of(flag: str) -> str:
    """The input key a typed flag would be (`--dry-run=x` -> `dry_run`): an unknown option's
    `field`."""
    return flag.partition("=")[0].lstrip("-").replace("-", "_")


def flag_table(command: Command) -> dict[str, tuple[Option, bool, str | None]]:
    """Every spelling the command accepts -> (option, negated, old name used or None)."""
    table = command.__dict__.get("_flag_table") if hasattr(command, "__dict__") else None
    if table is None:
        table = {}
        for option in command.options.values():
            for spelling, (negated, alias) in option.spellings.items():
                table.setdefault(spelling, (option, negated, alias))
        try:
            command._flag_table = table   # type: ignore[attr-defined]  # a cache; Builtin has slots
        except AttributeError:   # a Builtin (slots): small enough to rebuild
            pass
    return table


def _looks_negative_number(token: str) -> bool:
    body = token[1:]
    return bool(body) and body.replace(".", "", 1).isdigit()


def _is_slot(raw: str) -> bool:
    return (raw.startswith("<") and raw.endswith(">") and len(raw) > 2) or \
        (raw.startswith("$") and len(raw) > 1)


def _parse_command(request, command, tokens, environ, placeholders=False, trial=False):
    """Parse a command's own tokens into `request`. `trial` (a candidate fix being tried)
    refuses without working out fixes of its own."""
    table = flag_table(command)
    values: dict = {}
    where: dict = {}
    positionals: list[str] = []
    spots: list[int] = []   # where each positional is in `tokens`
    request.tokens = list(tokens)
    i = 0
    only_positional = False
    rest = _rest_at(command)
    while i < len(tokens):
        token = tokens[i]
        if rest is not None and not only_positional and (
                len(positionals) >= rest > 0 or (rest == 0 and not token.startswith("-"))):
            only_positional = True   # the rest argument's from here on, `--strict` included
            positionals.append(token)
            spots.append(i)
            i += 1
            continue
        if only_positional or token == "-" or not token.startswith("-") \
                or (_looks_negative_number(token) and token not in table):
            if token == "--" and not only_positional:
                only_positional = True
            else:
                positionals.append(token)
                spots.append(i)
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
            _refuse_unknown_option(command, tokens, i, flag, environ, placeholders, trial)
        option, negated, alias = entry
        if alias:
            request.warnings.append(
                f"{flag} is deprecated; use {option.flag}" +
                (f" ({option.deprecated})" if isinstance(option.deprecated, str) else ""))
        elif option.deprecated or option.replaced_by:
            request.warnings.append(_deprecated_option(option) + _removal(option))
        if option.count:
            from workbench.runtime._rules import count
            count(option, values, where, flag, eq, inline, tokens, i)
            i += 1
            continue
        if option.nargs > 1:
            from workbench.runtime._rules import take_nargs
            i += take_nargs(option, values, where, flag, eq, tokens, i, placeholders, table)
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
                                  fix=_replace(tokens, i, [flag]), field=option.key)
                value = (low in TRUE_WORDS) != negated
            else:
                value = not negated
            _store(option, values, where, value, flag if negated else option.flag,
                   tokens, i, 1)
            i += 1
            continue
        if option.greedy is not None and not eq:   # `-k a b`: every value up to a flag
            taken = _values_after(tokens, i + 1)
            if len(taken) >= option.greedy:
                value = [raw if placeholders and _is_slot(raw) else convert(
                    option, raw, flag, lambda: _replace(tokens, i, [flag, option.metavar],
                                                        len(taken) + 1)) for raw in taken]
                _store(option, values, where, value, option.flag, tokens, i, len(taken) + 1)
                i += len(taken) + 1
                continue
        if eq:
            raw, width = inline, 1
        elif _values_after(tokens, i + 1)[:1]:
            raw, width = tokens[i + 1], 2
        elif option.bare is not None:   # `-L` alone: the value its flag means by itself
            _store(option, values, where, option.bare[0], option.flag, tokens, i, 1)
            i += 1
            continue
        else:
            _refuse_missing_value(table, option, flag, tokens, i)
        if placeholders and _is_slot(raw):
            value = [raw] if option.type == "list" else raw
        else:
            value = convert(option, raw, flag,
                            lambda: _replace(tokens, i, [flag, option.metavar], width))
        _store(option, values, where, value, option.flag, tokens, i, width)
        i += width
    try:
        _assign_positionals(request, command, positionals, values, where, tokens, placeholders,
                            environ, trial, spots)
    except Refusal as refusal:
        _move_flags_back(command, refusal, tokens, environ, placeholders, trial)
        _words_short(command, refusal, positionals, tokens, spots, trial)
        raise
    _fill_missing(request, command, values, where, environ, tokens, placeholders, spots)
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
    if request.flags["fields"] is not None:   # a projection (`surfaces.output.projected_in`)
        request.provenance["fields"] = {"source": "flag", "location": "--fields"}
        if "fields" in extra_keys:   # a paginated command's MCP argument is the global flag
            request.extras["fields"] = request.flags["fields"]
    if request.flags["jq"] is not None:   # a filter (`surfaces.output.filtered_in`)
        request.provenance["jq"] = {"source": "flag", "location": "--jq"}
    if command.deprecated or command.replaced_by:
        request.warnings.append(
            f"'{' '.join(command.path)}' is deprecated" +
            (f"; use '{command.replaced_by}'" if command.replaced_by else "") +
            (f" ({command.deprecated})" if isinstance(command.deprecated, str) else "") +
            _removal(command))


def _values_after(tokens, i) -> list:
    """The tokens from `i` on that are values, not flags, up to the first flag or `--`."""
    out = []
    for token in tokens[i:]:
        if token.startswith("-") and token != "-" and not _looks_negative_number(token):
            break
        out.append(token)
    return out


def _rest_at(command) -> int | None:
    """The index of a command's `rest` argument (everything after the arguments before it
    is its value, as argparse's `REMAINDER` takes it), or None."""
    for index, argument in enumerate(command.arguments):
        if argument.rest:
            return index
    return None


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


def _refuse_missing_value(table, option, flag, tokens, i):
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if following is not None and following != "--" and following not in table \
            and following.partition("=")[0] not in table \
            and following not in GLOBAL_SPELLINGS:   # `--token -x`: a value that starts with -
        raise Refusal("missing_value",
                      f"{flag} needs a value ({_describe(option)}); "
                      f"{_shown(option, following)} looks like a flag",
                      hint=f"a value that starts with '-' is written {option.flag}=VALUE",
                      fix=_replace(tokens, i, [f"{option.flag}={option.metavar}"], 2), field=option.key)
    raise Refusal("missing_value", f"{flag} needs a value ({_describe(option)})",
                  hint=f"write {option.flag} {option.metavar}",
                  fix=_replace(tokens, i, [flag, option.metavar]), field=option.key)


def _removal(item) -> str:
    """'; removed in 3.0' when the deprecated item says (`surfaces._facts.removal`)."""
    if not item.removed_in:
        return ""
    from workbench.surfaces._facts import removal
    return removal(item)


def _deprecated_option(option) -> str:
    return f"{option.flag} is deprecated" + \
        (f"; use {option.replacement}" if option.replaced_by else "") + \
        (f" ({option.deprecated})" if isinstance(option.deprecated, str) else "")


def _store(option, values, where, value, location, tokens, i, width):
    key = option.key
    if option.type == "list":
        values.setdefault(key, []).extend(value if isinstance(value, list) else [value])
        where.setdefault(key, {"source": "flag", "location": location})
        return
    if key in values and where[key]["source"] == "flag" and option.type != "boolean":
        # a boolean flag given again (`-vvv`, `--yes --no-yes`): the last wins, as in Click
        raise Refusal("duplicate_option",
                      f"{option.flag} was given more than once; it takes one value",
                      hint="keep the one you mean",
                      fix=tokens[:i] + tokens[i + width:], field=option.key)
    values[key] = value
    where[key] = {"source": "flag", "location": location}


def _describe(option) -> str:
    return option.describe() + (": " + option.description if option.description else "")


def _shown(param, raw: str) -> str:
    return "a hidden value" if param.sensitive else _shown_raw(raw)


def convert(param, raw: str, label: str, fix_tokens):
    """Convert one raw string to the parameter's (item) type, or refuse naming the type; then
    keep its limits (`min`, `max`, the path checks), or refuse with a fix that keeps them.

    A template placeholder (`<target>`, `$TOKEN`, `YOUR_TOKEN`...) is refused before it can
    run as a value: `input_placeholder`, naming the real way to give it."""
    from workbench._text import placeholder
    if placeholder(raw) is not None:
        _refuse_placeholder(param, raw, label, fix_tokens)
    try:
        value = param.convert(raw)
    except ValueError as error:
        reason = str(error) if param.value_type.explains and str(error) else ""
    else:
        if param.checked:
            problem = param.check(value)
            if problem:
                from workbench.runtime._rules import refuse_check
                refuse_check(param, raw, value, problem, label, fix_tokens)
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
                      fix=_fix_value(fix_tokens(), param.metavar, near), field=param.key)
    from workbench._text import nearest
    close = [] if param.sensitive else nearest(raw, [str(c) for c in choices], n=1)
    raise Refusal("invalid_choice",
                  f"{label} must be one of: {', '.join(map(str, choices))}; "
                  f"got {_shown(param, raw)}",
                  hint=f"did you mean {close[0]}?" if close else None,
                  fix=_fix_value(fix_tokens(), param.metavar,
                                 param.fill_value(close[0] if close else None)), field=param.key)


def _refuse_placeholder(param, raw, label, fix_tokens):
    """`--target '<target>'`, `--token '$NOTES_TOKEN'`: a slot copied from a fix or a doc, not
    a value. The fix keeps the slot for the caller to fill; a sensitive option read from a
    variable gets `$VAR` unquoted instead, so the shell that runs the fix gives it."""
    env = getattr(param, "env", None)
    what = _describe(param)
    fix = fix_tokens()
    flag = getattr(param, "flag", None)   # None for an argument (`Argument(env=...)`)
    if label.startswith("$"):       # the variable itself holds the placeholder
        hint = f"set {env} to the real value ({what}), or pass " + (
            f"{flag} with it" if flag else f"it as {param.metavar}")
    elif env and flag:
        hint = (f"set {env} to the real value ({what}) and leave {flag} out "
                f"(a quoted variable is not expanded), or write the real value after {label}")
        at = next((j for j in range(len(fix) - 1)
                   if fix[j] == label and fix[j + 1] == param.metavar), None)
        if at is not None and param.sensitive:   # a secret is never written: its variable,
            fix = fix[:at + 1] + ["$" + env] + fix[at + 2:]   # which the shell expands
    elif env:   # an argument: leaving it out would move the words after it
        hint = (f"write the real value ({what}) in place of {_shown(param, raw)}, or set "
                f"{env} to it and leave {param.metavar} out when nothing follows it")
    else:
        hint = f"write the real value ({what}) in place of {_shown(param, raw)}"
    raise Refusal("input_placeholder",
                  f"{label} got {_shown(param, raw)}, a placeholder, not a value", hint=hint,
                  fix=fix, field=param.key)


def _fix_value(tokens, metavar, value):
    if value is None:
        return tokens
    return [value if token == metavar else token for token in tokens]


def _replace(tokens, i, new, width=1):
    return tokens[:i] + list(new) + tokens[i + width:]


def _words_short(command, refusal, positionals, tokens, spots, trial) -> None:
    """A value refused while fewer words were given than the command's required arguments
    (`add-column x x` for DB TABLE COLUMN): the words are likely shifted, so the refusal
    becomes `missing_argument`, its fix every argument's slot in order."""
    arguments = command.arguments
    if trial or refusal.code not in _VALUE_REFUSALS or any(a.variadic for a in arguments) \
            or len(positionals) >= sum(1 for a in arguments if a.required):
        return
    label = " ".join(command.path)
    refusal.code = "missing_argument"
    refusal.message = (f"'{label}' takes {' '.join(a.metavar for a in arguments)}; got "
                       f"{len(positionals)} word{'s' if len(positionals) != 1 else ''} "
                       f"({refusal.message})")
    refusal.hint = f"usage: {' '.join(command.words)} " + " ".join(a.metavar for a in arguments)
    refusal.fix = _with_arguments(command, {}, tokens, 0, spots)


_VALUE_REFUSALS = frozenset(("invalid_value", "invalid_choice", "out_of_range", "path_not_found",
                             "invalid_path", "input_placeholder"))


def _move_flags_back(command, refusal, tokens, environ, placeholders, trial) -> None:
    """A refused value that is one of the command's flags written after `--` (`... --
    --token T` read as arguments): the fix is the line with the `--` taken out, when that
    parses."""
    if trial or "--" not in tokens or refusal.code == "unexpected_argument":
        return
    at = tokens.index("--")
    table = flag_table(command)
    if not any(token.partition("=")[0] in table for token in tokens[at + 1:]):
        return
    moved = tokens[:at] + tokens[at + 1:]
    if _refused(command, moved, environ or {}, placeholders) is None:
        refusal.fix = moved


def _refused(command, tokens, environ, placeholders):
    """The Refusal parsing `tokens` (a candidate fix) meets, or None when they parse."""
    try:
        _parse_command(Request(), command, tokens, environ, placeholders, trial=True)
    except Refusal as refusal:
        return refusal
    return None


def _fits(command, tokens, environ, placeholders) -> bool:
    """Whether a candidate fix gets past its own words: it parses, or what stops it is another
    flag or a missing input, not a word the fix left in place."""
    refusal = _refused(command, tokens, environ, placeholders)
    return refusal is None or refusal.code in ("unknown_option", "missing_option")


def _without_unknown(command, tokens, i, environ, placeholders):
    """The fix for an unknown flag nobody else declares, and a note for the hint: the flag
    dropped with the word after it when that line gets past its words (flags are far more
    often given a value than followed by an argument), else dropped alone when that does;
    (None, None) when neither does (the fix is then the command's help)."""
    alone = tokens[:i] + tokens[i + 1:]
    if i + 1 >= len(tokens) or "=" in tokens[i] or tokens[i + 1] == "--" or (
            tokens[i + 1].startswith("-") and tokens[i + 1] != "-"
            and not _looks_negative_number(tokens[i + 1])):
        return alone, None
    both = tokens[:i] + tokens[i + 2:]
    if _fits(command, both, environ, placeholders):
        note = None
        if _fits(command, alone, environ, placeholders):
            note = f"the fix drops {_shown_raw(tokens[i + 1])} with it: put it back if it " \
                   f"is an argument"
        return both, note
    if _fits(command, alone, environ, placeholders):
        return alone, None
    return None, None


def _refuse_unknown_option(command, tokens, i, flag, environ=None, placeholders=False,
                           trial=False):
    from workbench._text import nearest
    if trial:
        raise Refusal("unknown_option", flag)
    table = flag_table(command)
    known = [f for f in table if f.startswith("--") and table[f][2] is None
             and not table[f][1]]
    spellings = {f: _canonical(table, f) for f in table if f.startswith("--")}
    spellings.update({was: option.flag for was, option in adapted_spellings(command).items()
                      if was not in spellings})
    close = list(dict.fromkeys(spellings[f] for f in nearest(flag, spellings)))
    label = " ".join(command.path)
    token = tokens[i]
    from workbench.runtime.redact import sensitive_flag
    secret = sensitive_flag(getattr(command, "program", None), flag)   # --TOKEN, --api-token
    if not close and secret is not None and table.get(secret.flag, (None,))[0] is secret:
        close = [secret.flag]
    if close:
        for candidate in close:   # not a flag already given (`--stes 1` next to `--step 2`)
            refusal = _refused(command, _replace(tokens, i, [candidate + token[len(flag):]]),
                               environ or {}, placeholders) if len(close) > 1 else None
            if refusal is None or refusal.code != "duplicate_option":
                close.remove(candidate)
                close.insert(0, candidate)
                break
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
        if elsewhere is None and width == 1:
            fix, note = _without_unknown(command, tokens, i, environ or {}, placeholders)
            if fix is None:
                fix = ["--help"]
            if note:
                hint += f" ({note})"
        else:
            fix = tokens[:i] + tokens[i + width:]
    raise Refusal("unknown_option", f"'{label}' has no option {_clip(flag)}", hint=hint,
                  fix=fix, field=_field_of(flag))


def adapted_spellings(command: Command) -> dict[str, Option]:
    """An adapted command's original flags the model had to rename (`--format` is a global
    flag, so the original's is `--format-option`) -> the Option now: a near miss of the name
    the caller knows suggests the option that reaches it (on the command line and over MCP)."""
    adapter = getattr(command, "adapter", None)
    out = {}
    for key, item in getattr(adapter, "inputs", {}).items():
        option = command.options.get(key)
        if option is not None and item.name.startswith("--") and item.name != option.flag:
            out[item.name] = option
    return out


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
                        placeholders=False, environ=None, trial=False, spots=()):
    arguments = command.arguments
    position = 0
    for index, argument, raw_values, position in _spread(arguments, positionals):
        key = "#" + argument.key
        converted = []
        first = position - len(raw_values)
        for at, raw in enumerate(raw_values):
            if raw == "-" and argument.stdin:
                request.stdin_inputs.append(argument.key)
                converted.append(raw)
                continue
            if placeholders and _is_slot(raw):
                converted.append(raw)
                continue
            spot = spots[first + at] if first + at < len(spots) else None
            converted.append(convert(argument, raw, "argument " + argument.metavar,
                                     lambda spot=spot, raw=raw: _replace(
                                         tokens, spot, [argument.metavar]) if spot is not None
                                     else [argument.metavar if t == raw else t
                                           for t in tokens]))
        values[key] = converted if argument.variadic else converted[0]
        where[key] = ({"source": "stdin"} if "-" in raw_values and argument.stdin
                      else {"source": "argument", "location": index + 1})
    if position < len(positionals):
        _refuse_extra(command, positionals[position:], tokens, placeholders, environ, trial)


def _refuse_extra(command, extra, tokens, placeholders, environ, trial):
    """Words past the command's arguments. Flags written after `--` move back in front of it
    when that parses; other words are dropped. A command with a sensitive option never echoes
    them: a stray word may be its secret (`tool login SECRET`)."""
    if trial:
        raise Refusal("unexpected_argument", "")
    label = " ".join(command.path)
    takes = " ".join(a.metavar for a in command.arguments) or "no arguments"
    fixed = None
    if "--" in tokens:
        at = tokens.index("--")
        moved = tokens[:at] + tokens[at + 1:]
        try:    # global flags moved in front of `--` count again: the fix carries the mode
            own = split_globals(moved)[1]
        except Refusal:
            own = None
        if own is not None and _refused(command, own, environ or {}, placeholders) is None:
            fixed = moved
    if fixed is None:
        fixed = list(tokens)
        for token in extra:
            if token in fixed:
                fixed.remove(token)
        if fixed and fixed[-1] == "--":
            fixed.pop()
    many = len(extra) > 1
    if any(option.sensitive and option.type != "boolean" for option in command.options.values()):
        shown = f"{len(extra)} word{'s' if many else ''} (not shown: '{label}' takes a " \
                f"sensitive value, which is never echoed)"
    else:
        shown = " ".join(_shown_raw(t) if len(t) > 60 else t for t in extra)
    raise Refusal("unexpected_argument",
                  f"'{label}' got unexpected argument{'s' if many else ''}: {shown}",
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


def _fill_missing(request, command, values, where, environ, tokens, placeholders=False,
                  spots=()):
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
                          fix=tokens[:insert] + [option.flag] + _fill_in(option)
                          + tokens[insert:], field=option.key)
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
            ambiguous = spots and not any(a.variadic for a in command.arguments)
            raise Refusal("missing_argument",
                          f"'{' '.join(command.path)}' needs {argument.metavar}" +
                          (f" ({argument.description})" if argument.description else "")
                          if not ambiguous else
                          f"'{' '.join(command.path)}' takes " +
                          " ".join(a.metavar for a in command.arguments) +
                          f"; got {len(spots)} word{'s' if len(spots) > 1 else ''}",
                          hint=f"usage: {' '.join(command.words) or command.program.name} " +
                               " ".join(a.metavar for a in command.arguments) +
                               (f" (or set {argument.env})" if argument.env else ""),
                          fix=_with_arguments(command, values, tokens, index, spots), field=argument.key)
        values[key] = [] if argument.variadic else argument.default_value()
    if _related(command):
        from workbench.runtime._rules import check_relations
        check_relations(request, command, values, where, tokens)


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
                          fix=tokens, field=option.key) from None
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
                          fix=tokens, field=option.key)
        groups = [tuple(converted[at:at + count]) for at in range(0, len(converted), count)]
        return groups if option.type == "list" else groups[0]
    return converted if option.type == "list" else converted[0]


def _fill_in(param) -> list:
    from workbench.runtime._rules import fill
    return fill(param)


def _with_arguments(command, values, tokens, missing_at: int, spots=()) -> list:
    from workbench.runtime._rules import with_arguments
    return with_arguments(command, values, tokens, missing_at, spots)


def _related(command) -> bool:
    """Whether an option of the command declares `requires` or `conflicts` (once per command)."""
    found = command.__dict__.get("_related") if hasattr(command, "__dict__") else None
    if found is None:
        found = any(option.requires or option.conflicts for option in command.options.values())
        try:
            command._related = found
        except AttributeError:
            pass
    return found


def _insert_at(tokens) -> int:
    return tokens.index("--") if "--" in tokens else len(tokens)
