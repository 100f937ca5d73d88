"""Issue 34's runtime checks of who acts and on what: self-scoped commands (`not_yours`),
ambiguous words, and a request given whole as JSON (`--input FILE|-`).

Imported only when a command declares one of them (or argv names an ambiguous word).
"""

from __future__ import annotations

from workbench.declaration._agentic import target_of, untrusted_paths
from workbench.runtime.parser import Refusal


def check_scope(command, ctx) -> None:
    """Refuse `not_yours` (exit 2) when the item this call acts on belongs to another agent.

    The caller is `--agent` when given, else the detected agent (`ctx.agent` becomes it); a
    person (neither) acts on anything. `command.self_scope(ctx)` names the owner (None:
    nobody's, anyone may act)."""
    caller = ctx._request.extras.get("agent") or ctx.agent
    ctx.agent = caller
    if caller is None:
        return
    owner = command.self_scope(ctx)
    if owner is None or str(owner) == caller:
        return
    name = " ".join(command.path)
    message = (f"'{name}' acts only on the caller's own items: this one belongs to "
               f"{str(owner)!r}, and you are {caller!r}")
    if command.instead:
        fix = command.instead.replace("{agent}", caller).replace("{owner}", str(owner))
        raise Refusal("not_yours", message, hint="work on your own items instead (the fix), "
                      f"or ask the person to run it for {str(owner)!r}", fix=fix)
    raise Refusal("not_yours", message, hint=f"ask the person: only they (or {str(owner)!r}) "
                  f"can run '{name}' on it")


# --- ambiguous words ------------------------------------------------------------------


class Ambiguous(Refusal):
    """`ambiguous` (exit 2): the word has several meanings; `meanings` holds each one's
    `(means, argv)`, made runnable where the caller's output mode is known (`error.meanings`)."""

    def __init__(self, word: str, meanings: list):
        super().__init__("ambiguous", f"'{word}' has {len(meanings)} meanings here; run the "
                         "command of the one you mean")
        self.meanings = meanings


def _split(program, tables, tokens) -> tuple:
    """The caller's tokens as (positionals, [(flag, [its tokens])]): a flag takes a value
    when a meaning's command says so (`tables`: their flag tables), or when it is a
    sensitive spelling of the program."""
    from workbench.runtime.redact import sensitive_flag
    args, flags = [], []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            args += tokens[i + 1:]
            break
        if token.startswith("-") and token != "-":
            flag = token.partition("=")[0]
            entry = next((table[flag] for table in tables if flag in table), None)
            valued = not entry[0].flag_only if entry is not None else \
                sensitive_flag(program, flag) is not None
            given = [token]
            if valued and "=" not in token and i + 1 < len(tokens):
                given.append(tokens[i + 1])
                i += 1
            flags.append((flag, given))
        else:
            args.append(token)
        i += 1
    return args, flags


def refuse_ambiguous(program, word: str, tokens) -> None:
    """Refuse an ambiguous `word`: each meaning's `use` with `{args}` and `{flags}` filled
    in from the caller's `tokens` (the flags its command takes; masked when printed, as
    every runnable line is)."""
    from workbench.runtime.parser import flag_table, split_globals
    tokens = split_globals(list(tokens))[1]
    targets = [target_of(program, meaning["use"]) for meaning in program.ambiguous[word]]
    tables = [flag_table(command) for command in targets if command is not None]
    args, flags = _split(program, tables, tokens)
    meanings = []
    for meaning, command in zip(program.ambiguous[word], targets):
        table = flag_table(command) if command is not None else {}
        taken = [part for flag, given in flags if flag in table for part in given]
        line: list[str] = []
        for part in meaning["use"].split():
            line += args if part == "{args}" else taken if part == "{flags}" else [part]
        meanings.append((meaning["means"], line))
    raise Ambiguous(word, meanings)


def ambiguous_tool(program, name: str, arguments) -> dict:
    """The MCP answer for a call of an ambiguous word's tool name: each meaning as the tool
    to call with the caller's arguments it takes (sensitive ones as their slot)."""
    from workbench.runtime import envelope as _envelope
    given = arguments if isinstance(arguments, dict) else {}
    meanings = []
    for meaning in program.ambiguous[name]:
        command = target_of(program, meaning["use"])
        if command is None or command.effects == "withheld":   # no tool to call
            continue
        inputs = {item.key: item for item in command.inputs if not item.cli_only}
        passed = {key: (inputs[key].slot if getattr(inputs[key], "sensitive", False)
                        else value) for key, value in given.items() if key in inputs}
        meanings.append({"means": meaning["means"],
                         "tool": {"name": command.tool_name, "arguments": passed}})
    doc = _envelope.failure("ambiguous", f"{name!r} has {len(meanings)} meanings here; call "
                            "the tool of the one you mean", exit=_envelope.EXIT_USAGE,
                            hint="; ".join(f"{m['tool']['name']}: {m['means']}"
                                           for m in meanings), meanings=meanings)
    return _envelope.stamp(doc, program.schema_version)


def meanings_of(program, refusal, mode) -> list:
    """`error.meanings` of an `Ambiguous` refusal: each meaning's runnable command line."""
    from workbench.runtime.pipeline import runnable
    return [{"means": means, "command": runnable(program, line, mode)}
            for means, line in refusal.meanings]


# --- --input FILE|- -------------------------------------------------------------------

INPUT_MAX_BYTES = 1 << 20
"""The most `--input` reads (1 MiB); a larger request is refused, naming the limit."""


def merged_input(program, argv, world):
    """argv with `--input FILE|-` replaced by the request it holds: the JSON object's
    properties as flags and arguments, except those argv gives itself (flags override it).
    Returns (the new argv, the keys the object gave), or the refusing envelope (a dict)
    when its properties are refused as MCP arguments would be; raises Refusal for input
    that cannot be read. argv for a command without `input_json` comes back as it is (the
    parser refuses `--input`)."""
    from workbench.runtime.parser import split_globals
    rest = split_globals(list(argv))[1]
    command, at = _command_of(program, rest)
    if command is None or not command.input_json:
        return argv, ()
    where = next((i for i, token in enumerate(argv) if token == "--input"
                  or token.startswith("--input=")), None)
    token = argv[where]
    if token == "--input":
        if where + 1 >= len(argv):
            return argv, ()   # the parser refuses the missing value, naming <file>
        source, width = argv[where + 1], 2
    else:
        source, width = token.partition("=")[2], 1
    without = argv[:where] + argv[where + width:]
    if any(token == "--input" or token.startswith("--input=") for token in
           without[:without.index("--") if "--" in without else len(without)]):
        raise Refusal("duplicate_option", "--input was given more than once; it takes one "
                      "request", hint="keep the one you mean", fix=split_globals(without)[1])
    request = _read_request(command, source, world, without)
    given = _given_keys(command, split_globals(without)[1][at:])
    rest_of = {key: value for key, value in request.items() if key not in given}
    from workbench.runtime.arguments import check_arguments, to_argv
    refused = check_arguments(command, rest_of, partial=True)
    if refused is not None:
        return refused
    names = {argument.key for argument in command.arguments}
    flags = to_argv(command, {k: v for k, v in rest_of.items() if k not in names})
    positionals = to_argv(command, {k: v for k, v in rest_of.items() if k in names})
    flags, positionals = flags[len(command.words):], positionals[len(command.words):]
    merged = without[:where] + flags + without[where:]
    if positionals[:1] == ["--"] and "--" in merged:
        positionals = positionals[1:]
    return merged + positionals, tuple(rest_of)


def _command_of(program, tokens) -> tuple:
    """(the command the words of `tokens` select, how many tokens its words took), or
    (None, 0)."""
    from workbench.declaration.model import child_named
    if getattr(program, "single", False):
        return program.commands[0], 0
    node = program
    for at, token in enumerate(tokens):
        if not node.is_group:
            return node, at
        if token.startswith("-"):
            return None, 0
        node = child_named(node, token)
        if node is None:
            return None, 0
    return (node, len(tokens)) if not node.is_group else (None, 0)


def _given_keys(command, tokens) -> set:
    """The keys argv's own tokens give: its flags, and the arguments its positionals fill."""
    from workbench.runtime.parser import flag_table
    table = flag_table(command)
    keys = set()
    count = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            count += len(tokens) - i - 1
            break
        entry = table.get(token.partition("=")[0]) if token.startswith("-") and token != "-" \
            else None
        if entry is not None:
            keys.add(entry[0].key)
            if not entry[0].flag_only and "=" not in token:
                i += entry[0].nargs
        elif not token.startswith("-") or token == "-":
            count += 1
        i += 1
    for argument in command.arguments[:count]:
        keys.add(argument.key)
    if count and command.arguments and command.arguments[-1].variadic:
        keys.add(command.arguments[-1].key)
    return keys


def _read_request(command, source: str, world, argv) -> dict:
    """The JSON object `--input` names (a file, or `-`: standard input), or a Refusal."""
    limit = INPUT_MAX_BYTES
    fix = _with_input(argv, "<file>")
    if source == "-":
        if world.stdin is None or world.stdin_tty:
            raise Refusal("stdin_required", "--input - reads the request from standard input, "
                          "and nothing was piped in", hint="pipe one JSON object in, or name "
                          "a file: --input <file>", fix=fix)
        from workbench.runtime.context import detect_agent, read_stream, stdin_wait
        text = read_stream(world.stdin, stdin_wait(world.environ, detect_agent(world.environ)),
                           limit + 1)
        if text is None:
            raise Refusal("stdin_timeout", "--input -: nothing more arrived on standard input, "
                          "and it was not closed", hint="pipe the JSON object and close "
                          "standard input, or name a file", fix=fix)
        size = len(text.encode("utf-8", "surrogateescape"))
    else:
        try:
            with open(source, "rb") as handle:
                raw = handle.read(limit + 1)
        except OSError as error:
            raise Refusal("input_not_found" if isinstance(error, FileNotFoundError)
                          else "invalid_input", f"--input {source!r} cannot be read: "
                          f"{error.strerror or error}", hint="name a JSON file that exists, or "
                          "pass - and pipe the object in", fix=fix) from None
        size = len(raw)
        text = raw.decode("utf-8", "surrogateescape")
    if size > limit:
        raise Refusal("input_too_large", f"--input holds more than {limit:,} bytes; a request "
                      f"is at most {limit:,} bytes", hint="send a smaller request: large "
                      "values belong in files the command reads", fix=None)
    import json
    try:
        request = json.loads(text)
    except ValueError as error:
        raise Refusal("invalid_input", f"--input is not JSON: {error}",
                      hint="give one JSON object of the command's properties, e.g. "
                           + _example(command), fix=fix) from None
    if not isinstance(request, dict):
        raise Refusal("invalid_input", f"--input must hold a JSON object, got "
                      f"{type(request).__name__}", hint="give one JSON object of the "
                      "command's properties, e.g. " + _example(command), fix=fix)
    return request


def _with_input(argv, value) -> list:
    """argv (no global flags) with `--input VALUE` after the command's words."""
    from workbench.runtime.parser import split_globals
    rest = split_globals(list(argv))[1]
    at = rest.index("--") if "--" in rest else len(rest)
    return rest[:at] + ["--input", value] + rest[at:]


def _example(command) -> str:
    """A JSON object of the command's required properties, each as its slot."""
    import json
    return json.dumps({item.key: item.slot for item in command.inputs
                       if item.required and not item.cli_only})


# --- <tool>_plan ----------------------------------------------------------------------


def plan_call(twin, arguments):
    """(command, argv) for a call of a plan twin: the command with `--dry-run`; or the
    refusing result when the arguments are refused (as the command's would be, and what
    only applying takes: `expect_plan`, `dry_run`, `idempotency_key`)."""
    from workbench.runtime import envelope as _envelope
    from workbench.runtime.arguments import check_arguments, to_argv, with_json
    from workbench.runtime.toolcall import result
    from workbench.surfaces.tools import PLAN_ONLY_DROPS
    command = twin.command
    given = arguments
    if isinstance(given, dict):
        extra = [key for key in given if key in PLAN_ONLY_DROPS]
        if extra:
            doc = _envelope.failure(
                "unknown_option", f"'{twin.tool_name}' has no property {extra[0]!r}: it "
                f"only plans", exit=_envelope.EXIT_USAGE,
                hint=f"call {command.tool_name!r} to apply a plan (expect_plan: its digest)",
                fix=_envelope.encode({k: v for k, v in given.items()
                                      if k not in PLAN_ONLY_DROPS}))
            return result(_envelope.stamp(doc, command.program.schema_version), False)
    refusal = check_arguments(command, given)
    if refusal is not None:
        return result(refusal, False)
    return command, with_json(to_argv(command, {**(given or {}), "dry_run": True}))


# --- untrusted text -------------------------------------------------------------------

def _at(data, parts):
    """Every value at the path `parts` (`*`: each item of a list)."""
    if not parts:
        yield data
        return
    head, rest = parts[0], parts[1:]
    if head == "*" and isinstance(data, list):
        for item in data:
            yield from _at(item, rest)
    elif isinstance(data, dict) and head in data:
        yield from _at(data[head], rest)


def _paths(command) -> list:
    """The output schema's untrusted pointers, computed once per command (a stream asks per
    item)."""
    known = command.__dict__.get("_untrusted_paths")
    if known is None:
        known = command._untrusted_paths = untrusted_paths(command.output)
    return known


def mark_untrusted(command, ctx, data, meta) -> None:
    """`meta.untrusted` (the data paths and the inputs given that hold untrusted text), and
    the untrusted values `clean_steps` keeps out of this call's `next`. A stream calls it once
    per item (`data` then `[item]`: pointers stay pointers into the whole data, as an
    envelope's); what earlier items showed is kept, so its `@end` says what the envelope
    would."""
    seen, values = ctx.__dict__.setdefault("_untrusted_seen", set()), \
        ctx.__dict__.setdefault("_untrusted_data", set())
    for path in _paths(command):
        for value in _at(data, [p for p in path.split("/") if p]):
            seen.add(path)
            if isinstance(value, str) and value:
                values.add(value)
    inputs = [key for key, option in command.options.items() if option.untrusted
              and ctx._request.options.get(key) not in (None, "", [])]
    paths = [path for path in _paths(command) if path in seen]
    if inputs or paths:
        meta["untrusted"] = {key: value for key, value in (("data", paths), ("inputs", inputs))
                             if value}


def declared_untrusted(command) -> dict:
    """Where `command` may carry untrusted text, from its declaration alone (a stream's @meta):
    `data`, its output schema's pointers; `inputs`, its untrusted options."""
    inputs = [key for key, option in command.options.items() if option.untrusted]
    return {key: value for key, value in (("data", _paths(command)), ("inputs", inputs))
            if value}


def clean_steps(command, ctx, steps) -> list:
    """`steps` (ctx.next) with every untrusted value replaced by a slot: an untrusted
    option's value by its own (`<body>`), a value from untrusted data by `<untrusted>`."""
    from workbench._text import split
    slots = {}
    for key, option in command.options.items():
        value = ctx._request.options.get(key) if option.untrusted else None
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and one:
                slots[one] = option.slot
    for value in getattr(ctx, "_untrusted_data", ()):
        slots.setdefault(value, "<untrusted>")
    if not slots:
        return steps
    long = [value for value in slots if len(value) >= UNTRUSTED_PIECE]
    cleaned = []
    for step in steps:
        tokens = split(step["command"]) if isinstance(step["command"], str) \
            else list(step["command"])
        words = _command_words(ctx.program, tokens)   # `report`, `tasks mine`: never values
        out = tokens[:words]
        for token in tokens[words:]:
            flag, eq, value = token.partition("=")
            if token in slots and not token.startswith("-"):
                out.append(slots[token])
            elif eq and token.startswith("-") and value in slots:
                out.append(f"{flag}={slots[value]}")
            elif any(piece in token for piece in long):
                out.append("<untrusted>")
            else:
                out.append(token)
        cleaned.append({**step, "command": out})
    return cleaned


UNTRUSTED_PIECE = 8
"""An untrusted value this long is kept out of a step inside a longer token too; a shorter
one only where it is a whole value (`mine` as a word is not a body that said "mine")."""


def _command_words(program, tokens) -> int:
    """How many leading tokens name a command (the program's name, then its words)."""
    from workbench.declaration.model import child_named
    at = 1 if tokens[:1] == [program.name] else 0
    node = program
    while at < len(tokens) and node.is_group and child_named(node, tokens[at]) is not None:
        node = child_named(node, tokens[at])
        at += 1
    return at


def _neutral(text: str) -> str:
    """Untrusted text for a terminal: every control (newline and tab too) and every
    invisible format character (bidi overrides, zero-width) written as a visible escape."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if
                       code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def neutralised(command, doc) -> dict:
    """A copy of `doc` whose untrusted data fields are `_neutral` (for a person's terminal;
    the JSON envelope keeps them exact)."""
    import copy
    paths = _paths(command)
    if not paths or doc.get("data") is None:
        return doc
    doc = {**doc, "data": copy.deepcopy(doc["data"])}
    for path in paths:
        parts = [p for p in path.split("/") if p]
        if not parts:
            if isinstance(doc["data"], str):
                doc["data"] = _neutral(doc["data"])
            continue
        for parent in _at(doc["data"], parts[:-1]):
            last = parts[-1]
            if last == "*" and isinstance(parent, list):
                parent[:] = [_neutral(v) if isinstance(v, str) else v for v in parent]
            elif isinstance(parent, dict) and isinstance(parent.get(last), str):
                parent[last] = _neutral(parent[last])
    return doc
