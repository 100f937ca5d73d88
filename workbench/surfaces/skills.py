"""Skills and llms.txt: the program as an Agent Skills `SKILL.md` and an `llms.txt` index.

Pure functions of the model. A skill's front matter (`name`, `description`) is what a client
keeps in context all session; the body (when to use which command, effects, how to get a
card) is read when the skill is chosen; a card is read when a command is. A program with
more than `SPLIT_FROM` listed commands gets one more skill per top-level group, and its
own skill points to them, so no body grows with the program.
"""

from __future__ import annotations

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from workbench.declaration.model import Group, Program

SPLIT_FROM = 40
"""Programs listing more commands than this get one skill per top-level group."""

NAME_MAX = 64
DESCRIPTION_MAX = 1024
"""Limits of the Agent Skills specification for `name` and `description`."""

_EFFECT_WORDS = {
    "read_only": "read-only",
    "idempotent": "idempotent",
    "non_idempotent": "changes state each run",
    "withheld": "CLI only",
    "undeclared": "effects unknown",
}


def skill_name(program: Program, group: Group | None = None) -> str:
    """The skill's name: lowercase letters, digits and single hyphens, at most 64 characters
    (also its folder's name)."""
    words = [program.name, *(group.path if group is not None else ())]
    out, dash = [], False
    for char in "-".join(words).lower():
        if char.isascii() and char.isalnum():
            out.append(char)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    name = "".join(out).strip("-")[:NAME_MAX].rstrip("-")
    return name or "program"


def split(program: Program) -> bool:
    """Whether the program is large enough to get one skill per top-level group."""
    return len(_facts.listed_commands(program)) > SPLIT_FROM


def skill_files(program: Program) -> dict[str, str]:
    """`{folder}/SKILL.md` -> text, for the program and (large programs) each group."""
    files = {f"{skill_name(program)}/SKILL.md": skill_md(program)}
    if split(program):
        for group in _top_groups(program):
            files[f"{skill_name(program, group)}/SKILL.md"] = skill_md(program, group)
    return files


def _top_groups(program) -> list:
    return [node for node in _facts.visible(program) if node.is_group]


def _listed_under(node) -> list:
    out = []
    for child in _facts.visible(node):
        if child.is_group:
            out.extend(_listed_under(child))
        else:
            out.append(child)
    return out


def _one_line(text: str) -> str:
    return " ".join((text or "").split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _description(program, group) -> str:
    name = program.name
    if group is None:
        what = _one_line(program.description) or f"the {name} command line"
        head = what[:1].upper() + what[1:].rstrip(".")
        text = (f"{head}. Use when a task needs {name}: run its commands with --json and "
                f"read one command's card with '{name} <command> --help --json'.")
    else:
        path = " ".join(group.path)
        what = _one_line(group.description) or f"the {path} commands"
        head = what[:1].upper() + what[1:].rstrip(".")
        names = ", ".join(c.name for c in _facts.visible(group))
        text = f"{head} ({name} {path}: {names}). Use when a task needs {name} {path}."
    return _clip(text, DESCRIPTION_MAX)


def _front_matter(name: str, description: str) -> list:
    quoted = '"' + description.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return ["---", f"name: {name}", f"description: {quoted}", "---", ""]


def _command_line(program, command) -> str:
    words = ", ".join(filter(None, [_EFFECT_WORDS.get(command.effects, command.effects),
                                    "acts only on your own items"
                                    if command.self_scope is not None else "",
                                    _facts.deprecation(command),
                                    "a person runs it, never an agent"
                                    if getattr(command, "person_only", None) else ""]))
    line = f"- `{program.name} {' '.join(command.path)}`: {_one_line(command.description)}"
    return line + (f" ({words})" if words else "")


def skill_md(program: Program, group: Group | None = None) -> str:
    """One SKILL.md: front matter, then which command to use when, effects, and how to get a
    card and call a command. `group` None: the program's own skill."""
    name = program.name
    lines = _front_matter(skill_name(program, group), _description(program, group))
    title = name if group is None else f"{name} {' '.join(group.path)}"
    lines += [f"# {title}", ""]
    about = _one_line(program.description if group is None else group.description)
    if about:
        lines += [about, ""]
    lines += ["## When to use which command", ""]
    if group is None and split(program):
        commands = [c for c in _facts.visible(program) if not c.is_group]
        lines += [_command_line(program, command) for command in commands]
        for top in _top_groups(program):
            count = len(_listed_under(top))
            lines.append(f"- `{name} {' '.join(top.path)} ...`: {_one_line(top.description)} "
                         f"({count} commands; skill `{skill_name(program, top)}`)")
    else:
        node = program if group is None else group
        lines += [_command_line(program, command) for command in _listed_under(node)]
    if group is None and program.ambiguous:   # issue 34: say which before calling the word
        lines += ["", "## Words with several meanings", ""]
        lines += [f"- `{name} {word}` is refused; say which: " + "; ".join(
            f"`{line}` to {means}" for line, means in meanings)
            for word, meanings in _facts.meanings(program)]
    lines += ["", "## Effects", "",
              "read-only commands change nothing; idempotent ones may be repeated safely; "
              "commands that change state each run must not be retried blindly.", "",
              "## Cards and calls", "",
              f"- One command's card (options, types, examples, errors): "
              f"`{name} <command> --help --json`",
              f"- Find a command by what it does: `{name} help search \"<words>\" --json`",
              "- Add `--json` to any call: one envelope on stdout, `ok` true or false; "
              "on failure `error.fix` is the corrected command line.",
              "- Exit 4 (`action_required`): run one of `next` once you have checked it. "
              "Exit 2: the input was refused; nothing ran."]
    lines += _exit_lines(program if group is None else group)
    return "\n".join(lines) + "\n"


_EXIT_LINES = {
    11: "- Exit 11 (`check_failed`): the check ran and failed; `data` holds what it found.",
    13: "- Exit 13 (`person_required`): only a person can do this; tell them `error.how`, "
        "do not retry.",
    14: "- Exit 14 (`limit_reached`): stopped at your limit; `data` is the best so far, "
        "`next` continues with a larger one.",
}
"""Said in a skill only when one of its commands can end so."""


def _exit_lines(node) -> list:
    found = {code for command in _listed_under(node) for code in _facts.exit_codes(command)}
    return [line for code, line in _EXIT_LINES.items() if code in found]


def llms_txt(program: Program) -> str:
    """The llms.txt index: title, summary, then one line per command (grouped), each with the
    command that prints its card."""
    name = program.name
    lines = [f"# {name}", ""]
    summary = _one_line(program.description)
    if summary:
        lines += [f"> {summary}", ""]
    lines += [f"{name} {program.version}. Every command takes --json (one envelope on "
              f"stdout); '{name} <command> --help --json' prints its card; "
              f"'{name} help search \"<words>\"' finds one.", ""]
    top = [c for c in _facts.visible(program) if not c.is_group]
    if top:
        lines += ["## Commands", ""]
        lines += [_command_line(program, command) for command in top]
        lines.append("")
    for group in program.groups():
        if not _facts.group_shown(program, group):
            continue
        commands = [c for c in _facts.visible(group) if not c.is_group]
        if not commands:
            continue
        lines += [f"## {name} {' '.join(group.path)}", ""]
        about = _one_line(group.description)
        if about:
            lines += [about, ""]
        lines += [_command_line(program, command) for command in commands]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
