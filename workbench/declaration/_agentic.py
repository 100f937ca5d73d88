"""Definition checks for issue 34's declarations: self-scoped commands, ambiguous words,
`--input`, `<tool>_plan` twins, `removed_in` and untrusted options. Every refusal names the
fix, as `_checks` does; `_checks` calls these once per command and once per program."""

from __future__ import annotations

from workbench.declaration.model import DefinitionError


def check_command(where: str, command, version: str | None = None) -> None:
    """Refuse a command whose issue-34 settings cannot work; `version`, the program's,
    refuses a deprecation whose `removed_in` it has reached (`due_for_removal`)."""
    if command.self_scope is not None and not callable(command.self_scope):
        raise DefinitionError(f"{where}: self_scope= must be a function owner(ctx) giving the "
                              f"name of the agent that owns the item (None: nobody's), got "
                              f"{type(command.self_scope).__name__}")
    if command.instead is not None:
        if command.self_scope is None:
            raise DefinitionError(f"{where}: instead= says what a self-scoped command's caller "
                                  f"runs on its own items; add self_scope=owner or drop it")
        if not isinstance(command.instead, str) or not command.instead.strip():
            raise DefinitionError(f"{where}: instead= is a command line after the program "
                                  f"name, e.g. instead='list --agent {{agent}}'")
    for attr in ("input_json", "plan_tool"):
        if not isinstance(getattr(command, attr), bool):
            raise DefinitionError(f"{where}: {attr}= is True or False, got "
                                  f"{getattr(command, attr)!r}")
    if command.plan_tool and command.plan is None:
        raise DefinitionError(f"{where}: plan_tool=True offers the plan as a read-only MCP "
                              f"tool, and it has no plan=; add plan=... or drop plan_tool")
    if command.plan_tool and command.effects == "withheld":
        raise DefinitionError(f"{where}: plan_tool=True offers an MCP tool, and the command "
                              f"is withheld from MCP; drop plan_tool or change effects")
    _check_removed_in(where, command, version)
    for option in command.options.values():
        _check_removed_in(f"{where}: option {option.key!r}", option, version)
        if not isinstance(option.untrusted, bool):
            raise DefinitionError(f"{where}: option {option.key!r}: untrusted= is True or "
                                  f"False, got {option.untrusted!r}")


def _check_removed_in(where: str, item, version: str | None) -> None:
    removed = getattr(item, "removed_in", None)
    if removed is None:
        return
    if not isinstance(removed, str) or not removed.strip():
        raise DefinitionError(f"{where}: removed_in= is the version that removes it, as a "
                              f"string, e.g. removed_in='3.0'")
    if not item.deprecated and not item.replaced_by:
        raise DefinitionError(f"{where}: removed_in={removed!r} says when a deprecated thing "
                              f"goes; add deprecated='why' (or replaced_by=...) too")
    if due_for_removal(version, removed):
        raise DefinitionError(f"{where} is deprecated with removed_in={removed!r}, and this "
                              f"is version {version}: remove it (and what still uses it), or "
                              f"raise removed_in= above {version} to keep it for now")


def release(version: object) -> tuple[tuple[int, ...], bool] | None:
    """A version's release numbers and whether it is a final release (`3.0.0rc1`: `(3, 0,
    0)`, False), as PEP 440 orders them, trailing zeros dropped (`3.0` = `3`); a leading
    `v` is allowed; None for a version with no leading number (`dev`, `next major`)."""
    if not isinstance(version, str):
        return None
    text = version.strip().lower()
    text = text[1:] if text.startswith("v") else text
    numbers: list[int] = []
    rest = text
    while True:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        if not digits:
            break
        numbers.append(int(rest[:digits]))
        rest = rest[digits:]
        if not (rest.startswith(".") and rest[1:2].isdigit()):
            break
        rest = rest[1:]
    if not numbers:
        return None
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    suffix = rest.lstrip("-_.")
    final = not suffix.startswith(("a", "b", "c", "rc", "pre", "dev"))   # post, +local: final
    return tuple(numbers), final


def due_for_removal(version: str | None, removed_in: str) -> bool:
    """Whether a program at `version` has reached `removed_in` (a pre-release of that very
    version has not: `3.0rc1` < `3.0`); False when either has no version number to compare."""
    now, due = release(version), release(removed_in)
    if now is None or due is None:
        return False
    return now[0] > due[0] or (now[0] == due[0] and now[1] >= due[1])


def check_program(program, tools: dict) -> None:
    """Refuse a `<tool>_plan` twin whose name is taken or too long (`tools`: tool name ->
    command), and ambiguous words that cannot be said (`_check_words`)."""
    from workbench.declaration.model import MAX_TOOL_NAME
    for name, command in tools.items():
        if not command.plan_tool:
            continue
        twin = name + "_plan"
        if twin in tools:
            raise DefinitionError(f"command '{' '.join(command.path)}': plan_tool=True offers "
                                  f"the MCP tool '{twin}', which is already command "
                                  f"'{' '.join(tools[twin].path)}'; rename one, or drop "
                                  f"plan_tool")
        if len(twin) > MAX_TOOL_NAME:
            raise DefinitionError(f"command '{' '.join(command.path)}': plan_tool=True offers "
                                  f"'{twin}', {len(twin)} characters, over the limit of "
                                  f"{MAX_TOOL_NAME}; shorten the command's name or drop "
                                  f"plan_tool")
    if program.ambiguous:
        _check_words(program)


def _check_words(program) -> None:
    """Refuse `ambiguous=` words that cannot be said: each a free top-level word with two or
    more meanings, each meaning `{"means": text, "use": "command {args} {flags}"}` naming a
    command of the program."""
    from workbench.declaration.builtins import RESERVED_COMMANDS
    from workbench.declaration.model import child_named
    if not isinstance(program.ambiguous, dict):
        raise DefinitionError(f"program {program.name!r}: ambiguous= maps a word to its "
                              f"meanings, e.g. {{'close': [{{'means': 'mark done', 'use': "
                              f"'done {{args}} {{flags}}'}}, ...]}}")
    for word, meanings in program.ambiguous.items():
        where = f"program {program.name!r}: ambiguous word {word!r}"
        if not isinstance(word, str) or not word or word.startswith("-") or \
                any(c.isspace() for c in word):
            raise DefinitionError(f"{where} is not one word; use a word people type")
        if child_named(program, word) is not None or word in RESERVED_COMMANDS:
            raise DefinitionError(f"{where} is already a command; an ambiguous word is one "
                                  f"that names none (drop it from ambiguous= or rename)")
        if not isinstance(meanings, (list, tuple)) or len(meanings) < 2:
            raise DefinitionError(f"{where}: give two or more meanings, each "
                                  f"{{'means': ..., 'use': 'command {{args}} {{flags}}'}}")
        for meaning in meanings:
            if not isinstance(meaning, dict) or set(meaning) != {"means", "use"} or \
                    not all(isinstance(meaning[k], str) and meaning[k].strip()
                            for k in ("means", "use")):
                raise DefinitionError(f"{where}: each meaning is {{'means': text, 'use': "
                                      f"'command {{args}} {{flags}}'}}, got {meaning!r}")
            if target_of(program, meaning["use"]) is None:
                raise DefinitionError(f"{where}: use={meaning['use']!r} must start with a "
                                      f"command of the program, e.g. 'done {{args}} {{flags}}'")


def target_of(program, use: str):
    """The command an ambiguous word's `use` template starts with, or None."""
    from workbench.declaration.model import child_named
    node = program
    for part in use.split():
        if part.startswith(("{", "-")) or not node.is_group:
            break
        node = child_named(node, part)
        if node is None:
            return None
    return None if node is program or node.is_group else node


UNTRUSTED = "x-burgee-untrusted"
"""The output-schema keyword that marks a field as text a third party wrote."""


def untrusted_paths(schema, at: str = "") -> list:
    """JSON pointers (`*` for any array item) of the fields `schema` marks untrusted."""
    if not isinstance(schema, dict):
        return []
    found = [at or "/"] if schema.get(UNTRUSTED) is True else []
    for key, sub in (schema.get("properties") or {}).items():
        found += untrusted_paths(sub, f"{at}/{key}")
    items = schema.get("items")
    if isinstance(items, dict):
        found += untrusted_paths(items, f"{at}/*")
    for keyword in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(keyword) or ():
            found += [path for path in untrusted_paths(sub, at) if path not in found]
    return found
