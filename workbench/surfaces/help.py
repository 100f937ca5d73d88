"""Human help: `tool --help`, `tool GROUP --help`, `tool CMD --help`.

A pure function of the model. Imported on every `--help`, so it imports only the model's
own helpers and wraps text itself (no re, no textwrap).
"""

from __future__ import annotations

from workbench.declaration.builtins import Builtin
from workbench.surfaces import _facts

WIDTH = 80
"""The width help wraps to unless told another: what agents, pipes and snapshots read."""
_LABEL_MAX = 26


PERSON_BUILTINS = (("help",), ("help", "search"), ("completion",))
"""The built-ins a person's help lists under their own heading; the rest (mcp, skills) are
for agents, named in its closing line."""
_AGENT_KEYS = frozenset(("idempotency_key",))
"""Options a person's help leaves out: the framework's, for agents that retry."""


def render_help(program, node=None, width: int = WIDTH, person: bool = False) -> str:
    """Help text for the program (node None), a Group or a Command, wrapped to `width`
    columns; ends with one newline. `person`: the help a person at a terminal reads (effects
    as read-only / writes / destructive, built-ins under their own heading, the agent-facing
    lines as one closing line); else the full text agents and pipes read."""
    if node is None or node is program:
        lines = _program_help(program, width, person)
    elif node.is_group:
        lines = _group_help(program, node, width, person)
    else:
        lines = _command_help(program, node, width, person)
    return "\n".join(lines).rstrip() + "\n"


# -- layout helpers ------------------------------------------------------------------------

def _wrap(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    """Greedy word wrap: the first line starts with `first`, the rest with `indent`."""
    lines: list[str] = []
    line = first
    fresh = True
    for word in _units(text):
        if not fresh and len(line) + 1 + len(word) > width:
            lines.append(line)
            line, fresh = indent + word, False
            continue
        line = line + word if fresh else line + " " + word
        fresh = False
    lines.append(line)
    return lines


def _units(text: str) -> list[str]:
    """Words, keeping a 'quoted command line' together so it never breaks across lines."""
    units: list[str] = []
    open_quote = False
    for word in text.split():
        if open_quote:
            units[-1] += " " + word
            open_quote = "'" not in word
        else:
            units.append(word)
            open_quote = word.startswith("'") and word.count("'") == 1
    return units


def _rows(rows: list[tuple[str, str]], width: int) -> list[str]:
    """Two columns: labels padded to a shared width, details wrapped under themselves."""
    if not rows:
        return []
    column = min(max(len(label) for label, _ in rows), _LABEL_MAX, width // 3)
    pad = " " * (2 + column + 2)
    out: list[str] = []
    for label, detail in rows:
        if len(label) > column:
            out.append("  " + label)
            if detail:
                out.extend(_wrap(detail, width, pad, pad))
            continue
        head = "  " + label.ljust(column) + "  "
        out.extend(_wrap(detail, width, pad, head) if detail else [head.rstrip()])
    return out


def _title(program, width: int) -> list[str]:
    head = f"{program.name} {program.version}"
    if program.description:
        head += " - " + program.description
    return _wrap(head, width)


def _child_row(child) -> tuple[str, str]:
    label = child.name
    if child.aliases:
        label += " (" + ", ".join(child.aliases) + ")"
    detail = child.description or ""
    if child.is_group:
        if child.load is None:   # a lazy group is listed without loading it
            names = [c.name for c in _facts.visible(child)]
            detail = (detail + " " if detail else "") + "[" + ", ".join(names) + "]"
    else:
        note = _facts.deprecation(child)
        if note:
            detail += f" ({note})"
    return label, detail.strip()


# -- program and groups --------------------------------------------------------------------

def _program_help(program, width: int, person: bool) -> list[str]:
    name = program.name
    lines = _title(program, width)
    lines += ["", f"Usage: {_facts.usage(program, program)}", "", "Commands:"]
    lines += _rows([_child_row(child) for child in _facts.visible(program)], width)
    if person:
        return lines + _person_program_tail(program, width)
    lines += ["", "Options:"] + _program_options(program, width, False)
    lines += ["", f"Built in: {name} help, {name} completion bash|zsh|fish, {name} mcp, "
              f"{name} skills"]
    lines += [""]
    lines += _wrap(f"Run '{name} <command> --help' for one command. As data: "
                   f"'{name} help --json' (--level names|summary|card), "
                   f"'{name} <command> --help --json'.", width)
    return lines


def _program_options(program, width: int, person: bool) -> list[str]:
    """The program's options and the global flags its help names: `--schema` for agents,
    `--no-color` for a person."""
    return _rows([_option_row(option) for option in _shown(program.options)] + [
        ("--json", "one JSON document on stdout (the envelope)"),
        ("--no-color", "no colour (also NO_COLOR=1)") if person else
        ("--schema", "the whole program as data (JSON Schema)"),
        ("--version", "print the version"),
        ("-h, --help", "this help"),
    ], width)


def _person_program_tail(program, width: int) -> list[str]:
    """A person's program help after its commands: the built-ins a person uses, the options,
    and one closing line for agents."""
    name = program.name
    lines = []
    if program.ambiguous:   # as `help --json` lists them (`ambiguous`)
        lines += [""] + _wrap("Words with several meanings (alone, each is refused; run the "
                              "one you mean):", width)
        lines += _rows([(word, "; ".join(f"'{line}' to {means}" for line, means in listed))
                        for word, listed in _facts.meanings(program)], width)
    from workbench.declaration.builtins import BUILTINS   # made on first use
    lines += ["", "Built-in commands:"]
    lines += _rows([(_facts.usage(program, BUILTINS[path])[len(name) + 1:]
                     .replace(" [options]", ""), BUILTINS[path].description)
                    for path in PERSON_BUILTINS], width)
    lines += ["", "Options:"] + _program_options(program, width, True)
    lines += [""] + _wrap(f"Run '{name} <command> --help' for one command.", width)
    lines += _wrap(f"For agents: '{name} help --json', '{name} --schema', '{name} mcp' (an MCP "
                   f"server), '{name} skills'.", width)
    return lines


def _group_help(program, group, width: int, person: bool) -> list[str]:
    name = program.name
    path = " ".join(group.path)
    lines = [f"Usage: {_facts.usage(program, group)}"]
    if group.description:
        lines += [""] + _wrap(group.description, width)
    if group.aliases:
        lines += ["", "Aliases: " + ", ".join(group.aliases)]
    lines += ["", "Commands:"]
    lines += _rows([_child_row(child) for child in _facts.visible(group)], width)
    options = _shown(group.options)
    if options:
        lines += ["", "Options (before or after the command's name):"]
        lines += _rows([_option_row(option) for option in options], width)
    lines += [""]
    if person:
        return lines + _wrap(f"Run '{name} {path} <command> --help' for one command.", width) \
            + _wrap(f"For agents: '{name} help {path} --json', '{name} {path} --schema'.", width)
    lines += _wrap(f"Run '{name} {path} <command> --help' for one command. As data: "
                   f"'{name} {path} --schema' (its commands), '{name} {path} <command> --help "
                   f"--json', '{name} help --json'.", width)
    return lines


# -- commands ------------------------------------------------------------------------------

def _shown(options: dict) -> list:
    """The options human help lists: all but the hidden ones."""
    return [option for option in options.values() if not option.hidden]


def _option_row(option) -> tuple[str, str]:
    label = option.flag
    if option.negation:
        label += " / " + option.negation if option.off else ", " + option.negation
    elif not option.flag_only:
        slots = " ".join(option.value_slots)
        label += " " + slots + ("..." if option.type == "list" else "")
    if option.short_flag:
        label = option.short_flag + ", " + label
    facts = ["count: repeat it" + (f" ({option.short_flag + option.short * 2})"
                                   if option.short_flag else "")
             if option.count else option.type_words]
    values = option.enum_values
    if values is not None:
        facts.append("one of: " + ", ".join(map(str, values)))
    facts += _limits(option)
    if option.type == "list":
        facts.append("repeatable")
    if option.required:
        facts.append("required" + (" unless $" + option.env + " is set" if option.env else ""))
    if option.sensitive:
        facts.append("sensitive, never printed")
    elif option.default is not None and option.default != [] and option.default != ():
        facts.append("default: " + _show(option.default))
    if option.env:
        facts.append("env: $" + option.env)
    if option.prompt is not None:
        facts.append("asked when not given" + (", twice" if option.confirmation_prompt else ""))
    if option.requires:
        facts.append("needs " + ", ".join(map(_named, option.requires)))
    if option.conflicts:
        facts.append("not with " + ", ".join(map(_named, option.conflicts)))
    if option.alias_flags:
        facts.append("deprecated old name: " + ", ".join(option.alias_flags))
    if option.since:
        facts.append("since " + option.since)
    note = _facts.deprecation(option)
    if note:
        facts.append(note)
    detail = option.description or ""
    return label, (detail + " " if detail else "") + "(" + "; ".join(facts) + ")"


def _limits(item) -> list:
    """`from 1 to 10`, `an existing file`...: the checks a value must pass, for help."""
    facts = []
    limits = item.range_words()
    if limits:
        facts.append(limits)
    if item.exists or item.kind or item.readable or item.writable:
        facts.append(item.path_words())
    return facts


def _named(key: str) -> str:
    """The flag an option's `requires`/`conflicts` key names (an argument's key reads the
    same way as its flag would)."""
    return "--" + key.replace("_", "-")


def _argument_row(argument) -> tuple[str, str]:
    facts = [argument.type_words]
    values = argument.enum_values
    if values is not None:
        facts.append("one of: " + ", ".join(map(str, values)))
    facts += _limits(argument)
    facts.append("required" if argument.required else "optional")
    if argument.variadic:
        facts.append("takes the rest")
    if argument.stdin:
        facts.append("'-' reads standard input")
    if argument.default is not None:
        facts.append("default: " + _show(argument.default))
    if argument.env:
        facts.append("env: $" + argument.env)
    detail = argument.description or ""
    return argument.metavar, (detail + " " if detail else "") + "(" + "; ".join(facts) + ")"


def _paragraphs(text, width: int) -> list[str]:
    """Long help or an epilog: each paragraph (blank-line separated) wrapped, a blank line
    before each; a paragraph whose lines are indented keeps its lines as written."""
    if not text:
        return []
    lines: list[str] = []
    for block in text.strip().split("\n\n"):
        rows = [row.rstrip() for row in block.split("\n") if row.strip()]
        if not rows:
            continue
        lines.append("")
        if all(row.startswith(" ") for row in rows):
            lines += rows
        else:
            lines += _wrap(" ".join(row.strip() for row in rows), width)
    return lines


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v) for v in value)
    return str(value)


def _effect_marker(command) -> str:
    """What running a command does, in a person's words: `read-only`, `writes` or
    `destructive`, with what that means for running it again."""
    hints = _facts.hints(command)
    if command.effects == "undeclared":
        return "Effects not declared: treat it as unsafe."
    if hints is None:   # withheld: no MCP hints; destructive= still says
        return "Destructive: may delete or overwrite data." if command.destructive else \
            "Writes: may change data."
    if hints["readOnlyHint"]:
        return "Read-only: changes nothing."
    again = "running it again changes nothing more" if hints["idempotentHint"] else \
        "each run changes data again"
    if hints["destructiveHint"]:
        return f"Destructive: deletes or overwrites data; {again}."
    return f"Writes: {again}."


def _command_help(program, command, width: int, person: bool) -> list[str]:
    from workbench.declaration.model import EFFECT_MEANINGS
    name = program.name
    path = " ".join((name, *command.words))
    lines = _wrap(_facts.usage(program, command), width, "         ", "Usage: ")
    if command.description:
        lines += [""] + _wrap(command.description, width)
    lines += _paragraphs(command.help, width)
    note = _facts.deprecation(command)
    if note or command.since:
        marks = [m for m in (note[:1].upper() + note[1:],
                             f"Since {command.since}." if command.since else "") if m]
        lines += [""] + _wrap(" ".join(m if m.endswith(".") else m + "." for m in marks), width)
    if command.aliases:
        lines += ["", "Aliases: " + ", ".join(command.aliases)]
    if _builtin(command):   # a built-in's effects are the same everywhere: no line
        pass
    elif person:
        lines += [""] + _wrap(_effect_marker(command), width, "  ")
    else:
        lines += [""] + _wrap(EFFECT_MEANINGS.get(command.effects, command.effects or "")
                              + ".", width, "  ", f"Effects: {command.effects} - ")
    if getattr(command, "person_only", None):
        lines += [""] + _wrap(f"{command.person_only['reason']}; "
                              f"{command.person_only['how']}.", width, "  ", "Person only: ")
    options = _shown(command.listed_options)
    if person:
        options = [option for option in options if option.key not in _AGENT_KEYS]
    if options:
        lines += ["", "Options:"]
        lines += _rows([_option_row(option) for option in options], width)
    for node, keys in command.inherited:
        flags = [command.options[key].flag for key in keys if not command.options[key].hidden]
        if flags:
            owner = " ".join((name, *node.path))
            lines += [""] + _wrap(f"Also {', '.join(flags)}, before or after the command's "
                                  f"name: see '{owner} --help'.", width)
    if command.arguments:
        lines += ["", "Arguments:"]
        lines += _rows([_argument_row(argument) for argument in command.arguments], width)
    if command.examples:
        lines += ["", "Examples:"]
        lines += ["  " + example for example in command.examples]
    lines += _paragraphs(command.epilog, width)
    from workbench.declaration.exits import EXIT_CODES
    lines += [""]
    lines += _wrap(", ".join(f"{code} {EXIT_CODES[code][0]}" if code in EXIT_CODES else str(code)
                             for code in _facts.exit_codes(command)),
                   width, "  ", "Exit codes: ")
    lines += [""]
    if person:
        return lines + _wrap(f"For agents: --json, '{path} --help --json', '{path} --schema'.",
                             width)
    lines += _wrap("Also: --json (one JSON envelope on stdout). As data: "
                   f"'{path} --help --json', input schema: '{path} --schema'.",
                   width)
    return lines


def _builtin(command) -> bool:
    """Whether `command` is one of burgee's built-ins (help, completion, mcp, skills)."""
    return isinstance(command, Builtin)
