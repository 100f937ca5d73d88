"""Problems: a lint of the declaration, each finding with a severity and the fix.

Errors fail `--headless`; warnings and infos are shown. Definition-time checks already refuse
what cannot work (missing effects, bad names, examples that do not parse); this lint covers
what works but reads badly to a caller, costs too many tokens, or leaks.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from workbench._text import split
from workbench.declaration.model import MAX_TOOL_NAME, Command, Group, Program
from workbench.dev.records import Diff, Problem

if TYPE_CHECKING:
    from workbench.dev.snapshot import Memo, Surface
    from workbench.dev.tokens import TokenTable

MAX_DESCRIPTION = 120


def lint(program: Program, surfaces: dict[str, Surface] | None = None,
         tokens: TokenTable | None = None, diffs: Iterable[Diff] | None = (),
         memo: Memo | None = None) -> list[Problem]:
    """Every finding for `program`, program-level ones first, then command by command.

    `memo`: the `snapshot.Memo` the surfaces were rendered with; a command whose dependency
    key is unchanged keeps its findings."""
    found: list[Problem] = []
    add = found.append
    if not (program.description or "").strip():
        add(Problem("warning", "description_missing", f"the program '{program.name}' has no "
                    "description", "add Program(description=...): one line on what it is for"))
    for node in _groups(program):
        name = " ".join(node.path)
        if not (node.description or "").strip():
            add(Problem("warning", "description_missing", f"group '{name}' has no description",
                        f"add Group(name='{node.name}', description=...)", name))
    for command in program.walk():
        if memo is None:
            found.extend(_command_problems(program, command))
        else:
            found.extend(memo.piece("problems", command,
                                    partial(_command_problems, program, command)))
    for severity, code, message, fix, where in getattr(program, "adapter_problems", ()):
        add(Problem(severity, code, message, fix, where or None))   # what adapt() could not carry
    if surfaces:
        found.extend(_surface_problems(surfaces))
    if tokens is not None:
        for row in tokens.over:
            used = f"{row.chars} characters" if row.unit == "chars" else f"{row.tokens} tokens"
            key = "schema" if row.unit == "chars" else row.kind
            add(Problem("error", "budget_exceeded",
                        f"{row.surface} is {used}, over its budget of {row.budget}",
                        f"shorten it, or raise the budget: Program(budgets={{'{key}': ...}}) "
                        f"or [tool.burgee.budgets] {key} = ... in pyproject.toml",
                        row.command, row.surface))
    for diff in diffs or ():
        found.extend(_diff_problems(program, diff))
    return found


def _groups(program: Program) -> list[Group]:
    return program.groups() if hasattr(program, "groups") else []


def _command_problems(program: Program, command: Command) -> tuple[Problem, ...]:
    out = []
    name = " ".join(command.path)
    description = (command.description or "").strip()
    if not description:
        out.append(Problem("warning", "description_missing", f"'{name}' has no description",
                           f"add Command(name='{command.name}', description=...): one line "
                           f"saying what it does", name))
    elif len(description) > MAX_DESCRIPTION:
        out.append(Problem("warning", "description_long",
                           f"'{name}' has a {len(description)}-character description "
                           f"(over {MAX_DESCRIPTION}); every card and tool repeats it",
                           f"cut it to one line under {MAX_DESCRIPTION} characters; put the "
                           f"rest in option descriptions or examples", name))
    if command.effects == "undeclared":   # an adapted Click/Typer/argparse command (issue 7)
        out.append(Problem("warning", "effects_undeclared",
                           f"'{name}' does not declare its effects: MCP clients get no hints "
                           f"and must treat it as unsafe",
                           f"declare them where the program is adapted: program = adapt(cli, "
                           f"effects={{'{name}': 'read_only'}}) (or 'idempotent', "
                           f"'non_idempotent', 'withheld')", name))
    adapted = command.adapter is not None   # fixes go where the original program is written
    for key, option in command.options.items():
        if not (option.description or "").strip():
            out.append(Problem("warning", "option_description_missing",
                               f"'{name}' option {option.flag} has no description",
                               f"give {option.flag} a help text in the original program "
                               f"(help=...)" if adapted else
                               f"add Option(..., description=...) for '{key}'", name))
    for argument in command.arguments:
        if not (argument.description or "").strip():
            out.append(Problem("warning", "argument_description_missing",
                               f"'{name}' argument <{argument.name}> has no description",
                               f"describe <{argument.name}> in the original program: help=... "
                               f"in argparse or Typer; Click arguments take no help, so say it "
                               f"in the command's docstring" if adapted else
                               f"add Argument('{argument.name}', description=...)", name))
    if command.effects != "withheld" and not command.hidden and not command.examples:
        out.append(Problem("warning", "examples_missing", f"'{name}' has no examples",
                           (f"pass them where the program is adapted: program = adapt(cli, "
                            f"examples={{'{name}': ['{program.name} {name} ...']}})" if adapted
                            else f"add examples=['{program.name} {name} ...']")
                           + ": agents copy them, and the workbench diffs each one CLI vs MCP",
                           name))
    sensitive = [option for option in command.options.values() if option.sensitive]
    for example in command.examples:
        tokens = _example_tokens(example)
        for option in sensitive:
            if any(t == option.flag or t.startswith(option.flag + "=") for t in tokens) or (
                    option.short and ("-" + option.short) in tokens):
                # A literal value is refused at definition time; a placeholder still teaches
                # callers to put a secret on the command line (and into shell history).
                out.append(Problem("warning", "sensitive_in_example",
                                   f"'{name}' example passes the sensitive option {option.flag} "
                                   f"on the command line: {example}",
                                   f"leave {option.flag} out of examples"
                                   + (f" (it reads {option.env})" if option.env else
                                      f", or show a placeholder such as {option.flag} "
                                      f"{option.slot}"),
                                   name))
    limit = MAX_TOOL_NAME
    if command.effects != "withheld" and len(command.tool_name) > limit:
        out.append(Problem("error", "tool_name_too_long",
                           f"tool name '{command.tool_name}' is {len(command.tool_name)} "
                           f"characters, over {limit}",
                           "shorten the command or group names", name))
    return tuple(out)


def _example_tokens(example: str) -> list[str]:
    try:
        return split(example)
    except ValueError:
        return example.split()


def _surface_problems(surfaces: dict[str, Surface]) -> list[Problem]:
    out = []
    for surface in surfaces.values():
        if surface.error:
            out.append(Problem("error", "surface_failed",
                               f"{surface.id} could not be rendered: {surface.error}",
                               "see the traceback in the surface; this is a bug in the "
                               "declaration or in burgee", surface.command_name, surface.id))
    return out


def _diff_problems(program: Program, diff: Diff) -> list[Problem]:
    out: list[Problem] = []
    current = program.find(diff.command.split()) if diff.command else None
    if current is None or diff.example not in getattr(current, "examples", ()):
        return out   # a diff from before the last reload, for an example that is gone
    if diff.equal is False:
        out.append(Problem("error", "envelope_mismatch",
                           f"'{diff.example}': the CLI --json output and the MCP result differ",
                           "see the Diff view; the two transports must print the same bytes",
                           diff.command))
    if diff.error and not diff.invalid_output:
        out.append(Problem("warning", "example_failed", f"'{diff.example}' could not run: "
                           f"{diff.error}", "fix the example or the handler", diff.command))
    if diff.invalid_output:
        problem = diff.invalid_output
        out.append(Problem("error", "invalid_output",
                           f"'{diff.example}': {problem.get('message')}",
                           problem.get("hint") or "fix the handler's return value or "
                           "Command(output=...)", diff.command))
    return out
