"""Definition checks of what most programs never declare: options and setup of a program or a
group, an env prefix, `min`/`max` and path checks, counts, tuples, off switches, prompts,
`requires`/`conflicts`. Imported by `_checks` only for a declaration that has one."""

from __future__ import annotations

from workbench.declaration._checks import _NAME_CHARS, _check_option, _suggest_name
from workbench.declaration.model import DefinitionError
from workbench.declaration.params import PATH_KINDS, RANGED, Argument


def check_program_settings(program) -> None:
    """A program's shared options and setup, and its env prefix."""
    name = program.name
    check_shared(f"program '{name}'", program, "Program")
    if program.env_prefix is not None and (
            not isinstance(program.env_prefix, str) or not program.env_prefix
            or not set(program.env_prefix) <= _ENV_CHARS):
        raise DefinitionError(f"program '{name}': env_prefix={program.env_prefix!r} must be "
                              f"the start of environment variable names, e.g. "
                              f"env_prefix='{_suggest_name(name).upper().replace('-', '_')}_'")


_ENV_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def check_shared(where: str, node, kind: str) -> None:
    """The options a program or group declares for every command under it, and its setup."""
    setup = getattr(node, "setup", None)
    if setup is not None and not callable(setup):
        raise DefinitionError(f"{where}: setup= must be a function taking ctx, got "
                              f"{type(setup).__name__}")
    options = node.options
    if not isinstance(options, dict):
        raise DefinitionError(f"{where}: options= must map keys to Option(...), e.g. "
                              f"{kind}(..., options={{'verbose': Option(type='boolean')}})")
    for key, option in options.items():
        _check_option(where, key, option)


def check_relations(where: str, command, key: str, option) -> None:
    """`requires` and `conflicts` name other inputs of the command."""
    inputs = list(command.options) + [argument.key for argument in command.arguments
                                      if isinstance(argument, Argument)]
    for attr in ("requires", "conflicts"):
        names = getattr(option, attr)
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            raise DefinitionError(f"{where}: option '{key}': {attr}= must list keys of other "
                                  f"inputs, e.g. {attr}=['other_option']")
        for name in names:
            if name == key:
                raise DefinitionError(f"{where}: option '{key}' {attr} itself; drop '{name}' "
                                      f"from {attr}=")
            if name not in inputs:
                from workbench._text import nearest
                close = nearest(name, inputs, n=1)
                raise DefinitionError(
                    f"{where}: option '{key}' {attr} '{name}', which is not an input of the "
                    f"command; " + (f"did you mean '{close[0]}'?" if close else
                                    f"name one of: {', '.join(inputs) or 'none'}"))


def check_option_features(at: str, option) -> None:
    """count, nargs, off, hidden, prompts: what each needs and what it cannot combine with."""
    if option.count:
        if option.type != "integer":
            raise DefinitionError(f"{at}: count=True counts uses of a flag, an integer; drop "
                                  f"type={option.type!r}")
        if option.required or option.nargs != 1:
            raise DefinitionError(f"{at}: count=True cannot be required or take nargs; drop "
                                  f"{'required=True' if option.required else 'nargs='}")
    nargs = option.nargs
    if not isinstance(nargs, int) or isinstance(nargs, bool) or nargs < 1:
        raise DefinitionError(f"{at}: nargs={nargs!r} must be a whole number of values, "
                              f"e.g. nargs=2 for --point X Y")
    if nargs > 1 and option.type == "boolean":
        raise DefinitionError(f"{at}: a boolean flag takes no values; drop nargs= or use "
                              f"type='string'")
    if option.off is not None:
        word = option.off.lstrip("-") if isinstance(option.off, str) else ""
        if option.type != "boolean" or not word or not set(word) <= _NAME_CHARS \
                or not option.off.startswith("--") or word[0] == "-":
            raise DefinitionError(f"{at}: off= names a boolean's off switch as a long flag, "
                                  f"e.g. off='--deep' for --shallow")
        if not option.negatable:
            raise DefinitionError(f"{at}: off={option.off!r} is an off switch; drop "
                                  f"negatable=False")
    if not isinstance(option.hidden, bool):
        raise DefinitionError(f"{at}: hidden= must be True or False")
    prompt = option.prompt
    if prompt is not None and (prompt is not True and (not isinstance(prompt, str)
                                                       or not prompt.strip())):
        raise DefinitionError(f"{at}: prompt= is the question to ask, e.g. prompt='Your name', "
                              f"or True to ask for the key in words")
    if prompt is not None and option.count:
        raise DefinitionError(f"{at}: a count cannot be asked for; drop prompt=")
    if (option.confirmation_prompt or option.hide_input) and prompt is None:
        raise DefinitionError(f"{at}: confirmation_prompt= and hide_input= shape a prompt; add "
                              f"prompt='...' or drop them")


def check_limits(at: str, item) -> None:
    """`min`/`max` on numbers only, in order; the path checks on paths only."""
    base = item.items if item.type == "list" else item.type
    for attr in ("min", "max"):
        value = getattr(item, attr)
        if value is None:
            continue
        if base not in RANGED:
            raise DefinitionError(f"{at}: {attr}= limits an integer or a number; drop {attr}= "
                                  f"or use type='integer'")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
            raise DefinitionError(f"{at}: {attr}={value!r} must be a number, e.g. {attr}=1")
    if item.min is not None and item.max is not None and item.min > item.max:
        raise DefinitionError(f"{at}: min={item.min!r} is above max={item.max!r}; swap them")
    if item.kind is not None and item.kind not in PATH_KINDS:
        raise DefinitionError(f"{at}: kind={item.kind!r} must be 'file' or 'dir'")
    for attr in ("exists", "kind", "readable", "writable"):
        if getattr(item, attr) and base != "path":
            raise DefinitionError(f"{at}: {attr}= checks a path; use type='path' or drop "
                                  f"{attr}=")
        if attr != "kind" and not isinstance(getattr(item, attr), bool):
            raise DefinitionError(f"{at}: {attr}= must be True or False")
