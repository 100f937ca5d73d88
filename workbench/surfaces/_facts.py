"""Facts every surface derives the same way from the model (hints, errors, usage, types).

Shared so that help, cards and schemas can never disagree; still a pure function of the
model, never of another surface's output.
"""

from __future__ import annotations

HINTS = {
    "read_only": {"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False},
    "idempotent": {"readOnlyHint": False, "idempotentHint": True, "destructiveHint": False},
    "non_idempotent": {"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True},
}
"""MCP tool annotations per effects (DESIGN §5); withheld and undeclared have none."""


def hints(command) -> dict | None:
    """The MCP annotation hints for a command, or None (withheld, undeclared): those of its
    effects, `destructiveHint` as `destructive=` says when given (a read-only command never
    destroys), and `openWorldHint` when `open_world=` is given."""
    found = HINTS.get(command.effects)
    if found is None:
        return None
    found = dict(found)
    if command.destructive is not None and command.effects != "read_only":
        found["destructiveHint"] = bool(command.destructive)
    if command.open_world is not None:
        found["openWorldHint"] = bool(command.open_world)
    return found


def offered(command) -> bool:
    """Whether a command is an MCP tool: anything but `withheld` and `person_only` (an MCP
    caller is an agent, whom a person-only command refuses)."""
    return command.effects != "withheld" and not getattr(command, "person_only", None)


def visible(node) -> list:
    """The children of a Program or Group that help and listings show (not hidden)."""
    return [child for child in node.commands if not child.hidden]


def listed_commands(program) -> list:
    """Every runnable command that is not hidden itself nor inside a hidden group."""
    return list(iter_listed(program))


def iter_listed(node):
    """`listed_commands` under a Program or Group, in order, as a generator: a lazy group is
    imported only when the walk reaches it, so a caller that stops early loads no more."""
    for child in node.commands:
        if child.hidden:
            continue
        if child.is_group:
            yield from iter_listed(child)
        else:
            yield child


def group_shown(program, group) -> bool:
    """A group is shown unless it, or a group above it, is hidden."""
    for depth in range(1, len(group.path) + 1):
        if program.find(group.path[:depth]).hidden:
            return False
    return True


def may_need_action(command) -> bool:
    """Whether a command can end in action_required (exit 4): it changes state or has a plan."""
    return command.effects != "read_only" or command.plan is not None


def errors(command) -> list[dict]:
    """The error codes a command can return: [{"code", "exit", "when"}], stable order."""
    from workbench.declaration.exits import EXIT_CODES
    by_name = {name: code for code, (name, _) in EXIT_CODES.items()}
    out = [{"code": "usage", "exit": 2,
            "when": "the command line or input was refused before running; see error.fix"}]
    if may_need_action(command):
        out.append({"code": "action_required", "exit": 4,
                    "when": "it needs a confirmation or decision; run one of next"})
    if command.batch:
        out.append({"code": "partial", "exit": 8,
                    "when": "some items succeeded and some failed"})
    out.extend(framework_errors(command))
    seen = {entry["code"] for entry in out} | {"internal"}
    for entry in command.errors:
        if isinstance(entry, str):
            code, exit_, when = entry, by_name.get(entry, 1), None
        else:
            code = entry["code"]
            exit_ = entry.get("exit", by_name.get(code, 1))
            when = entry.get("when") or entry.get("description") or entry.get("message")
        if code in seen:
            continue
        seen.add(code)
        item = {"code": code, "exit": exit_}
        item["when"] = when if when else EXIT_CODES.get(exit_, ("", ""))[1]
        out.append(item)
    out.append({"code": "internal", "exit": 1, "when": "the command failed unexpectedly"})
    return out


def framework_errors(command) -> list[dict]:
    """The errors the runtime raises because of what the command declares: `plan=` can end
    in `plan_changed`, `non_idempotent` (its idempotency key) in a conflict, a wait, or a
    store that cannot be used. The one place a card learns them."""
    from workbench.declaration.exits import FRAMEWORK_ERRORS
    codes = []
    if command.plan is not None:
        codes.append("plan_changed")
    if command.effects == "non_idempotent":
        codes += ["idempotency_conflict", "in_progress", "idempotency_store_unavailable"]
    if command.self_scope is not None:
        codes.append("not_yours")
    if getattr(command, "verdict", False):
        codes.append("check_failed")
    if getattr(command, "person_only", None):
        codes.append("person_required")
    return [{"code": code, "exit": FRAMEWORK_ERRORS[code][0], "when": FRAMEWORK_ERRORS[code][1]}
            for code in codes]


def contract_marks(command) -> dict:
    """What a card says of `verdict=`, `person_only=` and `why=` (only what is declared)."""
    marks: dict = {}
    if getattr(command, "verdict", False):
        marks["verdict"] = True
    if getattr(command, "person_only", None):
        marks["person_only"] = dict(command.person_only)
    if getattr(command, "why", None):
        marks["why"] = command.why
    return marks


def person_only(commands) -> list[dict]:
    """`[{"command", "reason", "how"}]` for the person-only commands among `commands`: what
    `help --json` lists so an agent knows them before trying."""
    return [{"command": " ".join(command.path), **command.person_only}
            for command in commands if getattr(command, "person_only", None)]


def exit_codes(command) -> list[int]:
    """Every exit code a command can end with, ascending (0 included)."""
    return sorted({0} | {entry["exit"] for entry in errors(command)})


def exit_table() -> list[dict]:
    """The program's exit-code table as data: [{"exit", "code", "meaning"}]."""
    from workbench.declaration.exits import EXIT_CODES
    return [{"exit": code, "code": name, "meaning": meaning}
            for code, (name, meaning) in sorted(EXIT_CODES.items())]


def deprecation(item) -> str:
    """'' or a short note: 'deprecated: use --x instead'."""
    if not item.deprecated and not item.replaced_by:
        return ""
    words = "deprecated"
    if isinstance(item.deprecated, str):
        words += ": " + item.deprecated
    if item.replaced_by:
        words += ("; " if isinstance(item.deprecated, str) else ": ") + \
            f"use {getattr(item, 'replacement', item.replaced_by)} instead"
    return words + removal(item)


def removal(item) -> str:
    """'; removed in 3.0' for a deprecated item that says when it goes (`removed_in`), else
    '': the one wording help, skills, tools and warnings share."""
    removed = getattr(item, "removed_in", None)
    return f"; removed in {removed}" if removed else ""


def meanings(program) -> list[tuple[str, list[tuple[str, str]]]]:
    """`Program(ambiguous=...)` as a reader sees it: [(word, [(command line, what it means)])],
    each line the program name and the meaning's command without its `{args} {flags}` slots
    (`tasks done`): what a person's help and the skills say."""
    return [(word, [(f"{program.name} {meaning['use'].split('{')[0].strip()}",
                     meaning["means"]) for meaning in listed])
            for word, listed in (program.ambiguous or {}).items()]


def usage(program, node) -> str:
    """The usage line: `tool deploy --target <target> [options] <file>`; a required option
    of the program or a group stands after the words of the one that declares it."""
    if node.is_group:
        words = [program.name, *_required(program)]
        at = program
        for name in node.path:
            at = _child(at, name)
            words.append(name)
            words += _required(at)
        return " ".join(words + ["<command>", "[options]"])
    words = [program.name]
    shared = dict(node.inherited)
    if program in shared:
        words += _required(program)
    at = program
    for name in node.words[:-1]:
        at = _child(at, name)
        words.append(name)
        if at in shared:
            words += _required(at)
    words += node.words[-1:]
    optional = False
    for option in node.listed_options.values():
        if option.hidden:
            continue
        if option.required_from_caller:
            words.append(" ".join([option.flag, *option.value_slots]))
        else:
            optional = True
    if optional:
        words.append("[options]")
    for argument in node.arguments:
        words.append(argument.metavar if argument.required else f"[{argument.metavar}]")
    return " ".join(words)


def _child(node, name):
    from workbench.declaration.model import child_named
    return child_named(node, name)


def _required(node) -> list:
    """`--store <store>` for each required option of a program or group (not hidden, no
    environment variable to give it instead)."""
    words = []
    for option in getattr(node, "options", {}).values():
        if option.required_from_caller and not option.hidden:
            words.append(" ".join([option.flag, *option.value_slots]))
    return words
