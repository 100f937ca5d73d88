"""What one call is, worked out from the program alone: its argv, its MCP arguments, its
command and whether it writes. Pure functions of the declaration; nothing runs here.

    argv = example_argv(program, "tool deploy --target prod --json")   # [deploy, --target, prod]
    command, arguments = arguments_from_argv(program, argv)           # as a client sends them
    writes(command)                # anything but read_only: runs only when a person asks
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench._text import split
from workbench.declaration.model import Command, Program
from workbench.runtime.arguments import to_argv
from workbench.runtime.parser import parse

SAFE_EFFECTS: tuple[str, ...] = ("read_only",)
"""Effects whose examples the workbench runs by itself (every other runs when asked)."""

WRITE_EFFECTS: dict[str, str] = {
    "idempotent": "idempotent: it changes something (running it again changes nothing more)",
    "non_idempotent": "non_idempotent: every run changes something again",
    "undeclared": "undeclared: it does not say what it changes, so it may change anything",
    "withheld": "withheld: it runs on the command line only and may change anything",
}


def example_argv(program: Program, example: str) -> list[str]:
    """argv after the program name for an example line (`tool deploy --yes` -> [deploy, --yes]).

    Presentation flags (`--format ndjson`, `--progress`) are dropped: an MCP result is always
    one envelope, so the CLI side compared with it is the example's `--json` envelope.
    """
    tokens = split(example)
    if tokens and tokens[0] == program.name:
        tokens = tokens[1:]
    kept: list[str] = []
    skip = False
    for index, token in enumerate(tokens):
        if token == "--":
            return kept + tokens[index:]
        if skip:
            skip = False
        elif token == "--format":
            skip = True
        elif not token.startswith("--format=") and token != "--progress":
            kept.append(token)
    return kept


def arguments_from_argv(program: Program, argv: Sequence[str]) -> tuple[Command, dict[str, Any]]:
    """(command, MCP arguments) for argv after the program name, as a client would send them.

    Only inputs given on the command line become arguments; defaults and environment values
    are left for the server to fill, as they would be. Raises what the parser refuses.
    """
    request = parse(program, [token for token in argv if token != "--json"], {})
    command = request.command
    if command is None:
        raise ValueError(f"{' '.join(argv)!r} does not name a runnable command")
    arguments: dict[str, Any] = {}
    inputs = list(request.options.items()) + list(request.extras.items()) + list(request.args.items())
    for key, value in inputs:
        where = request.provenance.get(key)
        if isinstance(where, dict) and where.get("source") in ("flag", "argument", "stdin"):
            arguments[key] = value
    return command, arguments


def argv_from_arguments(command: Command, arguments: dict[str, Any]) -> list[str]:
    """argv after the program name for MCP `arguments` of `command` (its path included)."""
    return list(to_argv(command, arguments))


def resolve_command(program: Program, command: str | None) -> Command:
    """A command by path (`"pr merge"`) or tool name (`"pr_merge"`); ValueError if none."""
    found = program.find(command.split()) if command else None
    if isinstance(found, Command):
        return found
    tool = program.tool(command or "")
    if tool is None:
        raise ValueError(f"no command {command!r}")
    return tool


def target_command(program: Program | None, argv: Sequence[str] | None = None,
                   command: str | None = None) -> Command | None:
    """The Command an input runs (argv after the program name, or `command`), or None."""
    if program is None:
        return None
    try:
        if argv is None:
            return resolve_command(program, command)
        return arguments_from_argv(program, [token for token in argv if token != "--json"])[0]
    except Exception:  # noqa: BLE001 - e.g. a required option the run would read from env
        return _command_by_path(program, argv or ())


def _command_by_path(program: Program, argv: Sequence[str]) -> Command | None:
    """The command named by the leading words of argv (before any flag), or None: an input
    that does not parse here may still run (a value from the environment), so its effects
    must still be known."""
    words: list[str] = []
    for token in argv:
        if token.startswith("-"):
            break
        words.append(token)
    for end in range(len(words), 0, -1):
        try:
            found = program.find(words[:end])
        except Exception:  # noqa: BLE001
            found = None
        if isinstance(found, Command):
            return found
    return None


def writes(command: Command | None) -> bool:
    """Whether running `command` may change something: anything but `read_only`."""
    return command is not None and command.effects not in SAFE_EFFECTS


def effect_note(command: Command) -> str:
    """What running `command` does, in words, for a confirmation (`"non_idempotent: ..."`)."""
    return WRITE_EFFECTS.get(str(command.effects), f"{command.effects}: it may change something")


def dry_run_input(command: Command | None, argv: Sequence[str] | None = None,
                  arguments: dict[str, Any] | None = None
                  ) -> tuple[list[str] | None, dict[str, Any] | None]:
    """(argv, arguments) asking for `--dry-run` (a command with a `plan`); unchanged if they
    already ask for it or for a reviewed plan (`--expect-plan`)."""
    listed = list(argv) if argv is not None else None
    if command is None or command.plan is None:
        return listed, arguments
    if listed is not None:
        end = listed.index("--") if "--" in listed else len(listed)
        head = listed[:end]
        if not any(token == "--dry-run" or token.startswith("--expect-plan") for token in head):
            listed = head + ["--dry-run"] + listed[end:]
        return listed, arguments
    arguments = dict(arguments or {})
    if "expect_plan" not in arguments:
        arguments.setdefault("dry_run", True)
    return listed, arguments
