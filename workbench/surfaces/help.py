"""Human help: `tool --help`, `tool GROUP --help`, `tool CMD --help`.

A pure function of the model. Imported on every `--help`, so it imports only the model's
own helpers and wraps text itself (no re, no textwrap).
"""

from __future__ import annotations

from workbench.declaration.builtins import BUILTINS
from workbench.surfaces import _facts

WIDTH = 80
_LABEL_MAX = 26


def render_help(program, node=None) -> str:
    """Help text for the program (node None), a Group or a Command; ends with one newline."""
    if node is None or node is program:
        lines = _program_help(program)
    elif node.is_group:
        lines = _group_help(program, node)
    else:
        lines = _command_help(program, node)
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


def _rows(rows: list[tuple[str, str]]) -> list[str]:
    """Two columns: labels padded to a shared width, details wrapped under themselves."""
    if not rows:
        return []
    width = min(max(len(label) for label, _ in rows), _LABEL_MAX)
    pad = " " * (2 + width + 2)
    out: list[str] = []
    for label, detail in rows:
        if len(label) > width:
            out.append("  " + label)
            if detail:
                out.extend(_wrap(detail, WIDTH, pad, pad))
            continue
        head = "  " + label.ljust(width) + "  "
        out.extend(_wrap(detail, WIDTH, pad, head) if detail else [head.rstrip()])
    return out


def _title(program) -> list[str]:
    head = f"{program.name} {program.version}"
    if program.description:
        head += " - " + program.description
    return _wrap(head, WIDTH)


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

def _program_help(program) -> list[str]:
    name = program.name
    lines = _title(program)
    lines += ["", f"Usage: {_facts.usage(program, program)}", "", "Commands:"]
    lines += _rows([_child_row(child) for child in _facts.visible(program)])
    lines += ["", "Options:"]
    lines += _rows([_option_row(option) for option in _shown(program.options)] + [
        ("--json", "one JSON document on stdout (the envelope)"),
        ("--schema", "the whole program as data (JSON Schema)"),
        ("--version", "print the version"),
        ("-h, --help", "this help"),
    ])
    lines += ["", f"Built in: {name} help, {name} completion bash|zsh|fish, {name} mcp, "
              f"{name} skills"]
    lines += [""]
    lines += _wrap(f"Run '{name} <command> --help' for one command. As data: "
                   f"'{name} help --json' (--level names|summary|card), "
                   f"'{name} <command> --help --json'.", WIDTH)
    return lines


def _group_help(program, group) -> list[str]:
    name = program.name
    path = " ".join(group.path)
    lines = [f"Usage: {_facts.usage(program, group)}"]
    if group.description:
        lines += [""] + _wrap(group.description, WIDTH)
    if group.aliases:
        lines += ["", "Aliases: " + ", ".join(group.aliases)]
    lines += ["", "Commands:"]
    lines += _rows([_child_row(child) for child in _facts.visible(group)])
    options = _shown(group.options)
    if options:
        lines += ["", "Options (before or after the command's name):"]
        lines += _rows([_option_row(option) for option in options])
    lines += [""]
    lines += _wrap(f"Run '{name} {path} <command> --help' for one command. As data: "
                   f"'{name} {path} --schema' (its commands), '{name} {path} <command> --help "
                   f"--json', '{name} help --json'.", WIDTH)
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


def _paragraphs(text) -> list[str]:
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
            lines += _wrap(" ".join(row.strip() for row in rows), WIDTH)
    return lines


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v) for v in value)
    return str(value)


def _command_help(program, command) -> list[str]:
    from workbench.declaration.model import EFFECT_MEANINGS
    name = program.name
    path = " ".join((name, *command.words))
    lines = _wrap(_facts.usage(program, command), WIDTH, "         ", "Usage: ")
    if command.description:
        lines += [""] + _wrap(command.description, WIDTH)
    lines += _paragraphs(command.help)
    note = _facts.deprecation(command)
    if note or command.since:
        marks = [m for m in (note[:1].upper() + note[1:],
                             f"Since {command.since}." if command.since else "") if m]
        lines += [""] + _wrap(" ".join(m if m.endswith(".") else m + "." for m in marks), WIDTH)
    if command.aliases:
        lines += ["", "Aliases: " + ", ".join(command.aliases)]
    if not _builtin(command):   # a built-in's effects are the same everywhere: no line
        lines += [""] + _wrap(EFFECT_MEANINGS.get(command.effects, command.effects or "")
                              + ".", WIDTH, "  ", f"Effects: {command.effects} - ")
    options = _shown(command.listed_options)
    if options:
        lines += ["", "Options:"]
        lines += _rows([_option_row(option) for option in options])
    for node, keys in command.inherited:
        flags = [command.options[key].flag for key in keys if not command.options[key].hidden]
        if flags:
            owner = " ".join((name, *node.path))
            lines += [""] + _wrap(f"Also {', '.join(flags)}, before or after the command's "
                                  f"name: see '{owner} --help'.", WIDTH)
    if command.arguments:
        lines += ["", "Arguments:"]
        lines += _rows([_argument_row(argument) for argument in command.arguments])
    if command.examples:
        lines += ["", "Examples:"]
        lines += ["  " + example for example in command.examples]
    lines += _paragraphs(command.epilog)
    from workbench.declaration.exits import EXIT_CODES
    lines += [""]
    lines += _wrap(", ".join(f"{code} {EXIT_CODES[code][0]}" if code in EXIT_CODES else str(code)
                             for code in _facts.exit_codes(command)),
                   WIDTH, "  ", "Exit codes: ")
    lines += [""]
    lines += _wrap("Also: --json (one JSON envelope on stdout). As data: "
                   f"'{path} --help --json', input schema: '{path} --schema'.",
                   WIDTH)
    return lines


def _builtin(command) -> bool:
    """Whether `command` is one of burgee's built-ins (help, completion, mcp, skills)."""
    return any(command is node for node in BUILTINS.values())
