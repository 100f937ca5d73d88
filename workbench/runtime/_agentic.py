"""Issue 34's runtime checks of who acts and on what: self-scoped commands (`not_yours`),
ambiguous words, and a request given whole as JSON (`--input FILE|-`).

Imported only when a command declares one of them (or argv names an ambiguous word).
"""

from __future__ import annotations

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


def _target(program, use: str):
    """(the command `use` names, the words naming it), or (None, words) for a template that
    names no command (the definition checks refuse that)."""
    words = []
    node = program
    from workbench.declaration.model import child_named
    for token in use.split():
        if token.startswith("{") or token.startswith("-") or not node.is_group:
            break
        node = child_named(node, token)
        if node is None:
            return None, words
        words.append(token)
    return (node if node is not program and not node.is_group else None), words


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
    targets = [_target(program, meaning["use"])[0] for meaning in program.ambiguous[word]]
    tables = [flag_table(command) for command in targets if command is not None]
    args, flags = _split(program, tables, tokens)
    meanings = []
    for meaning, command in zip(program.ambiguous[word], targets):
        table = flag_table(command) if command is not None else {}
        taken = [part for flag, given in flags if flag in table for part in given]
        line = []
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
        command, _ = _target(program, meaning["use"])
        if command is None:
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
