"""The calls `burgee check` makes of a command, generated from its declaration.

Every command gets *sources* — valid calls: each example as written (a `<slot>` or `$VAR` in it
filled with a value of its type), one built from the declaration when there is no example, and,
when the command takes a sensitive value, the same call carrying a planted secret (`CANARY`) —
and *mutations* of them, one refusal class each: a misspelt flag, an unknown flag with and
without a value, a missing required input, a wrong type, a wrong choice, an extra word, a value
or a flag after `--`, an option given twice, a flag with no value, a template placeholder in
place of a value (`<x>`, `$X`, `YOUR_X`), control characters in a value, an empty standard
input, a boolean flag left out (a confirmation), the planted secret misplaced (misspelt,
after `--`, as a stray word, on a command that does not take it), and what issue 30 declares: a
number outside `min`..`max`, a path that is not there or of the wrong kind, a counting flag
given a word, a tuple one value short, two conflicting options, a required companion left out.

Deterministic: the same program, budget and seed give the same calls in the same order. When a
command has more than `budget` calls, every source is kept and the mutations are sampled so that
each kind is represented before any kind repeats (a seeded shuffle inside each kind).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.declaration.model import Command, Program

CANARY = "S3cr3t-burgee-7f3a9c1e"
"""The sensitive value the checker plants; any 8-character piece of it in an output is a leak."""

CONTROL = "\x1b]0;burgee\x07\x1b[2J\x1b[31mhi"
"""Control characters planted in a string value: retitle the window, ring, clear, colour."""

MUTATIONS = {
    "misspelt_flag": "a flag misspelt by one letter",
    "unknown_flag": "a flag the command does not have",
    "unknown_flag_value": "a flag the command does not have, with a value",
    "missing_option": "a required option left out",
    "missing_argument": "a required argument left out",
    "wrong_type": "a value of the wrong type",
    "wrong_choice": "a choice misspelt by one letter",
    "out_of_range": "a number just outside the option's min..max",
    "path_not_found": "a path that must exist, misspelt (or one that is not there)",
    "invalid_path": "a folder where a file goes, or a file where a folder goes",
    "count_value": "a counting flag given a value that is not a number (`--verbose=many`)",
    "tuple_short": "an option that takes several values given one too few",
    "conflicting": "an option added next to one it conflicts with",
    "requires_dropped": "an option another given option requires, left out",
    "extra_argument": "one word more than the command takes",
    "value_after_dashdash": "an extra word after `--`",
    "flag_after_dashdash": "an option written after `--`",
    "duplicate_option": "an option that takes one value given twice",
    "missing_value": "a flag that takes a value given none",
    "placeholder": "a template placeholder (<x>, $X, YOUR_X) in place of a value",
    "control_characters": "control characters in a value",
    "empty_stdin": "`-` with nothing on standard input",
    "drop_flag": "a boolean flag left out (a confirmation, when it is one)",
    "secret_misspelt": "the sensitive option's flag misspelt",
    "secret_after_dashdash": "the sensitive option after `--`",
    "secret_stray": "the sensitive value as a stray word",
    "secret_elsewhere": "another command's sensitive option, with a value",
}
"""Mutation kind -> what it does to its source call."""

RUN_ONLY = ("control_characters", "empty_stdin")
"""Mutations that are values to run, not mistakes to refuse: their runs are held to every rule,
but a refusal they meet (the source's own) is not a recovery to measure."""

DEFAULT_BUDGET = 24
"""Calls per command by default (sources included); `burgee check --calls N` raises it."""

WORKBENCH_CALLS = 2_400
"""About the most calls the workbench's check (`burgee dev`, `--headless`) makes by default:
`DEFAULT_BUDGET` per command up to 100 commands, fewer per command past that
(`workbench_budget`). A check call of a big program is a fork of it (~20 ms at 1,000 commands
on 2 idle cores): 24 a command made `--headless` of 1,000 commands take 8 minutes."""


def workbench_budget(commands: int) -> int:
    """Calls per command for the workbench's check of a program of `commands` commands: never
    more than `DEFAULT_BUDGET`, never under 1 (each command's sources always run)."""
    return max(1, min(DEFAULT_BUDGET, WORKBENCH_CALLS // max(1, commands)))


@dataclass(frozen=True)
class Call:
    """One generated call.

    Attributes:
        index: its position among its command's calls (stable for a budget and seed).
        command: the command's path.
        argv: the command line after the program name, without output flags (`--json`,
            `--format`): each environment adds its own.
        kind: `example`, `declared` (built from the declaration), `secret` (a source
            carrying the planted secret) or a mutation kind (`MUTATIONS`).
        note: what the call is, for a person.
        source: the index of the valid call this one mutates (None for a source).
        env: variables this call adds to its environment, as (name, value) pairs.
        stdin: what standard input holds (None: /dev/null).
        streams: whether it also runs as `--format ndjson` (the example asked for it, or
            the command is paginated).
        values: for a source, the text given to each input, by key: what fills the slots of
            a fix that recovers one of its mutations.
        spoiled: for a mutation that put a value no fix can read back (`many` for a number,
            a path that is not there), the key of that input: a fix recovers it with any value
            the input takes, everything else as the source gave it.
    """

    index: int
    command: tuple[str, ...]
    argv: tuple[str, ...]
    kind: str
    note: str
    source: int | None = None
    env: tuple[tuple[str, str], ...] = ()
    stdin: str | None = None
    streams: bool = False
    values: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), compare=False)
    spoiled: str | None = None

    @property
    def is_source(self) -> bool:
        return self.source is None


@dataclass
class _Item:
    """A parameter as the tokens of a call give it: where it starts and how many tokens."""

    param: object
    is_option: bool
    start: int
    width: int


def sample_value(param) -> str:
    """A value of `param`'s type for a call built from the declaration (the planted secret
    for a sensitive one)."""
    if getattr(param, "sensitive", False):
        return CANARY
    choices = param.enum_values
    if choices:
        return str(choices[0])
    kind = param.value_type.name if param.value_type is not None else ""
    if kind == "path":   # one the sandbox holds (`sandbox.SAMPLE_FILE`), of the declared kind
        from workbench.check.sandbox import SAMPLE_FILE
        return "." if param.kind == "dir" else SAMPLE_FILE
    if kind in ("integer", "number"):   # inside min..max
        from workbench.declaration.params import number_token
        return number_token(param.clamped(1 if kind == "integer" else 1.5))
    words = {"boolean": "true", "date": "2024-01-31", "datetime": "2024-01-31T09:30:00Z",
             "uuid": "123e4567-e89b-12d3-a456-426614174000"}
    if kind in words or getattr(param.value_type, "kind", None) is None:
        return words.get(kind, "x")
    schema = param.value_type.json_schema()    # a custom type: the first word it takes
    for word in (*schema.get("examples", ()), schema.get("default"), "1", "2", "x", "1.5",
                 "true", "https://example.org", "a@example.org"):
        if isinstance(word, str) and not _refuses(param, word):
            return word
    return "x"


def _refuses(param, word: str) -> bool:
    """Whether `param` refuses `word` (its type or its limits)."""
    try:
        value = param.convert(word)
    except (ValueError, TypeError):
        return True
    return bool(param.checked and param.check(value))


def _split(program, line: str) -> tuple[Any, ...]:
    """(an example's argv after the program name without output flags, whether it asked for
    `--format ndjson`)."""
    from workbench._text import split
    tokens = split(line)
    if tokens[:1] == [program.name]:
        tokens = tokens[1:]
    mode: list = []
    kept: list = []
    skip = False
    for index, token in enumerate(tokens):     # output flags are each environment's own
        if token == "--":
            kept += tokens[index:]
            break
        if skip:
            skip = False
            mode.append(token)
        elif token == "--format":
            skip = True
        elif token.startswith("--format="):
            mode.append(token.partition("=")[2])
        elif token not in ("--json", "--progress"):
            kept.append(token)
    return kept, "ndjson" in mode


def _items(command, tokens) -> list[Any]:
    """The parameters the command's own tokens give, in order (flags, then positionals)."""
    from workbench.runtime.parser import flag_table
    table = flag_table(command)
    items: list = []
    arguments = list(command.arguments)
    position = 0
    i = 0
    rest = False
    while i < len(tokens):
        token = tokens[i]
        if token == "--" and not rest:
            rest = True
            i += 1
            continue
        flag, eq, _ = token.partition("=")
        entry = table.get(flag) if not rest and token.startswith("-") and token != "-" else None
        if entry is not None:
            option = entry[0]
            width = 1 if eq or option.flag_only else 1 + option.nargs
            items.append(_Item(option, True, i, min(width, len(tokens) - i)))
            i += width
            continue
        if position < len(arguments):
            argument = arguments[position]
            items.append(_Item(argument, False, i, 1))
            if not argument.variadic:
                position += 1
        i += 1
    return items


def _fill_slots(tokens, command, env: dict[str, Any]) -> list[Any]:
    """An example's `<slot>` and `$VAR` values replaced by values of their type (a `$VAR` of
    an option that reads that variable sets the variable instead of a flag value)."""
    from workbench._text import placeholder
    out = list(tokens)
    for item in _items(command, tokens):
        at = item.start + item.width - 1
        if item.is_option and item.width == 1 and "=" in out[at]:
            flag, _, raw = out[at].partition("=")
            if placeholder(raw) is not None:
                out[at] = flag + "=" + sample_value(item.param)
            continue
        if item.is_option and item.width == 1:
            continue
        if placeholder(out[at]) is not None:
            out[at] = sample_value(item.param)
    for option in command.options.values():   # an example that names a variable: set it
        if option.env and option.env not in env and any(
                token in ("$" + option.env, "${" + option.env + "}") for token in tokens):
            env[option.env] = sample_value(option)
    return out


OPTIONAL_IN_DECLARED = 6
"""Plain optional options a second call built from the declaration gives values (the first
ones); every option with a rule of its own to break (`_declares_less`) is given too."""


def _declared_call(command, optional: bool = False) -> list[Any]:
    """A call built from the declaration: every required input with a value of its type
    (with `optional`, also the first few optional options that take a value)."""
    tokens: list = []
    extra = 0
    given: set = set()
    options = {key: option for key, option in command.options.items()   # shared ones too
               if key not in command.framework_keys}
    for option in options.values():   # required, or asked for with nothing to fall back on
        if option.required and not option.env or (
                option.prompt is not None and option.default is None):
            tokens += _given(option)
            given.add(option.key)
    for option in sorted(options.values(), key=_declares_less):
        if not optional or (extra >= OPTIONAL_IN_DECLARED and _declares_less(option)) or \
                option.key in given or \
                (option.type == "boolean" and not option.requires) or option.sensitive or \
                option.prompt is not None:
            continue
        needs = [options[key] for key in option.requires if key in options]
        if any(_clash(one, options[key]) for one in [option, *needs] for key in given) or \
                any(other.sensitive for other in needs):
            continue   # a pair the declaration refuses together
        for other in [*needs, option]:
            if other.key not in given:
                tokens += _given(other)
                given.add(other.key)
        extra += 1
    for argument in command.arguments:
        if argument.required:
            tokens.append(sample_value(argument))
    return tokens


def _declares_less(option) -> int:
    """0 for an option with a rule of its own to break (a count, a tuple, requires or
    conflicts, limits, a path check), else 1: those come first in a declared call."""
    return 0 if (option.count or option.nargs > 1 or option.requires or option.conflicts or
                 option.checked) else 1


def _clash(one, other) -> bool:
    """Whether two options conflict (either declares it)."""
    return other.key in one.conflicts or one.key in other.conflicts


def _given(option) -> list[Any]:
    """An option as a call gives it: the flag, and a value for each of its `nargs`."""
    return [option.flag] if option.flag_only else [option.flag] + [sample_value(option)] * \
        option.nargs


def input_values(command: Command, tokens: list[str]) -> tuple[Any, ...]:
    """(key, texts) for every input the tokens give (several for a list or a variadic
    argument): what fills a fix's slots for that input."""
    found: dict = {}
    for item in _items(command, tokens):
        if item.is_option and item.param.flag_only:
            continue
        if item.is_option and item.width == 1:
            texts = [tokens[item.start].partition("=")[2]]
        else:   # every value of a tuple (`--point 1 2`), one for anything else
            texts = tokens[item.start + (1 if item.is_option else 0):item.start + item.width]
        found.setdefault(item.param.key, []).extend(texts)
    return tuple((key, tuple(texts)) for key, texts in found.items())


def _misspell(flag: str) -> str:
    """`--target` -> `--targt`: the last but one letter dropped (a plain, one-edit typo)."""
    body = flag[2:]
    if len(body) < 4:
        return flag + flag[-1]
    return "--" + body[:-2] + body[-1]


def _sensitive_options(command) -> list[Any]:
    return [option for option in command.options.values()
            if option.sensitive and option.type != "boolean"]


def _program_secret(program, command):
    """A sensitive option of another command whose flag this command does not have."""
    from workbench.runtime.parser import flag_table
    table = flag_table(command)
    for other in program.walk():
        if other is command:
            continue
        for option in _sensitive_options(other):
            if option.flag not in table:
                return option
    return None


class _Builder:
    """Collects a command's calls: sources first, then mutations by kind."""

    def __init__(self, program, command):
        self.program = program
        self.command = command
        self.words = list(command.words)
        self.sources: list = []     # (argv, kind, note, env, stdin, streams, values)
        self.mutations: dict = {}   # kind -> [(source position, argv, note, env, stdin)]
        self._seen: set = set()

    def source(self, tokens, kind, note, env=None, stdin=None, streams=False):
        key = (tuple(tokens), tuple(sorted((env or {}).items())))
        if key in self._seen:
            return None
        self._seen.add(key)
        self.sources.append((tuple(self.words + list(tokens)), kind, note,
                             tuple(sorted((env or {}).items())), stdin, streams,
                             input_values(self.command, tokens)))
        return len(self.sources) - 1

    def mutate(self, position, kind, tokens, note, env=None, stdin=None, spoiled=None):
        source_env = dict(self.sources[position][3])
        source_env.update(env or {})
        key = (tuple(tokens), tuple(sorted(source_env.items())), stdin)
        if key in self._seen:
            return
        self._seen.add(key)
        self.mutations.setdefault(kind, []).append(
            (position, tuple(self.words + list(tokens)), note, tuple(sorted(source_env.items())),
             stdin, spoiled))


def _sources(builder) -> None:
    command: Command
    program, command = builder.program, builder.command
    for example in command.examples:
        try:
            argv, streams = _split(program, example)
        except ValueError:
            continue
        from workbench.runtime.parser import Refusal, parse
        try:
            request = parse(program, argv, {}, placeholders=True)
        except Refusal:
            continue
        if request.command is not command:
            continue
        env: dict = {}
        tokens = _fill_slots(list(request.tokens), command, env)
        builder.source(tokens, "example", f"the example {example!r}", env,
                       streams=streams or bool(command.paginated))
    if not builder.sources:
        builder.source(_declared_call(command), "declared",
                       "a call built from the declaration (the command has no example)",
                       streams=bool(command.paginated))
        builder.source(_declared_call(command, optional=True), "declared",
                       "a call built from the declaration, with optional options",
                       streams=bool(command.paginated))
    else:   # the options no example gives get a call too (declared with optional options)
        shown = {key for source in builder.sources for key, _ in source[6]}
        if any(not option.flag_only and not option.sensitive and option.key not in shown
               for option in command.declared_options.values()):
            builder.source(_declared_call(command, optional=True), "declared",
                           "a call built from the declaration, with optional options",
                           streams=bool(command.paginated))
    first = builder.sources[0]
    for option in _sensitive_options(command):   # the same call, carrying a secret
        tokens = list(first[0][len(builder.words):])
        if not any(item.param is option for item in _items(command, tokens)):
            at = tokens.index("--") if "--" in tokens else len(tokens)
            tokens[at:at] = [option.flag, CANARY]
            builder.source(tokens, "secret", f"{option.flag} given a secret",
                           dict(first[3]), streams=first[5])
        if option.env:
            builder.source(list(first[0][len(builder.words):]), "secret",
                           f"${option.env} holding a secret", {**dict(first[3]),
                                                              option.env: CANARY},
                           streams=first[5])


def _mutate(builder, position) -> None:
    """Every mutation of the source at `position`."""
    command = builder.command
    argv, kind, _, env, stdin, _, _ = builder.sources[position]
    tokens = list(argv[len(builder.words):])
    items = _items(command, tokens)
    end = tokens.index("--") if "--" in tokens else len(tokens)
    secret = kind == "secret"
    add = builder.mutate

    def replace(item, value):
        out = list(tokens)
        at = item.start + item.width - 1
        if item.is_option and item.width == 1:
            out[at] = out[at].partition("=")[0] + "=" + value
        else:
            out[at] = value
        return out

    def without(item):
        return tokens[:item.start] + tokens[item.start + item.width:]

    for item in items:
        param = item.param
        flag_token = tokens[item.start]
        if item.is_option and flag_token.startswith("--") and not secret:
            wrong = _misspell(flag_token.partition("=")[0])
            rest = flag_token.partition("=")
            out = list(tokens)
            out[item.start] = wrong + (rest[1] + rest[2] if rest[1] else "")
            add(position, "misspelt_flag", out, f"{param.flag} misspelt as {wrong}")
        if secret:
            continue
        if param.required and not (item.is_option and param.env):
            add(position, "missing_option" if item.is_option else "missing_argument",
                without(item), f"{param.flag if item.is_option else param.metavar} left out")
        is_value = not (item.is_option and param.flag_only)
        name = getattr(param, "flag", None) or param.metavar
        kind = param.value_type.name if is_value and param.value_type is not None else ""
        if kind in ("integer", "number", "date", "datetime", "uuid") or (
                getattr(param.value_type, "kind", None) is not None and
                not param.enum_values and _refuses(param, "many")):
            add(position, "wrong_type", replace(item, "many"), f"{name} given 'many'",
                spoiled=param.key)
        _mutate_checked(builder, position, tokens, item, replace, without, kind, name)
        choices = param.enum_values
        current = tokens[item.start + item.width - 1].partition("=")[2] \
            if item.is_option and item.width == 1 else tokens[item.start + item.width - 1]
        if is_value and choices and len(current) > 2:
            typo = current[:-2] + current[-1]
            if typo not in [str(c) for c in choices]:
                add(position, "wrong_choice", replace(item, typo),
                    f"{getattr(param, 'flag', param.metavar)} given {typo!r}")
        if is_value and not choices and param.value_type.name == "string":
            for form in _placeholder_forms(param):
                add(position, "placeholder", replace(item, form),
                    f"{getattr(param, 'flag', param.metavar)} given {form!r}")
            if not param.sensitive and current != "-":
                add(position, "control_characters", replace(item, CONTROL),
                    f"{getattr(param, 'flag', param.metavar)} given control characters")
        if item.is_option and is_value and param.type != "list" and item.width == 2:
            add(position, "duplicate_option", tokens[:end] + tokens[item.start:item.start + 2]
                + tokens[end:], f"{param.flag} given twice")
        if item.is_option and is_value and item.width == 2:   # the flag last, before `--`
            rest = without(item)
            add(position, "missing_value", rest[:end - 2] + [param.flag] + rest[end - 2:],
                f"{param.flag} given no value")
        if item.is_option and param.type == "boolean":
            add(position, "drop_flag", without(item), f"{flag_token} left out")
        if item.is_option and not _takes_rest(command):
            moved = without(item)
            add(position, "flag_after_dashdash", moved + ([] if "--" in moved else ["--"])
                + tokens[item.start:item.start + item.width], f"{param.flag} written after --")
        if not item.is_option and getattr(param, "stdin", False) and current != "-":
            add(position, "empty_stdin", replace(item, "-"),
                f"{param.metavar} read from an empty standard input",
                env={"CLAUDECODE": "1"}, stdin="")
    if secret:
        _misplace_secret(builder, position, tokens, items)
        return
    add(position, "unknown_flag", tokens[:end] + ["--bogus"] + tokens[end:], "--bogus added")
    add(position, "unknown_flag_value", tokens[:end] + ["--bogus", "value"] + tokens[end:],
        "--bogus value added")
    if _all_arguments_given(command, items):
        add(position, "extra_argument", tokens[:end] + ["stray"] + tokens[end:],
            "a stray word added")
        add(position, "value_after_dashdash", tokens + (["stray"] if "--" in tokens
                                                        else ["--", "stray"]),
            "a stray word after --")
    if not _sensitive_options(command):
        other = _program_secret(builder.program, command)
        if other is not None:
            add(position, "secret_elsewhere", tokens[:end] + [other.flag, CANARY] + tokens[end:],
                f"{other.flag} (another command's) given a secret")


def _mutate_checked(builder, position, tokens, item, replace, without, kind, name) -> None:
    """The mutations of what issue 30 declares: limits, paths, counts, tuples, requires and
    conflicts."""
    from workbench.check.sandbox import SAMPLE_FILE
    from workbench.declaration.params import number_token
    add = builder.mutate
    param = item.param
    key = param.key
    if kind in ("integer", "number") and (param.min is not None or param.max is not None):
        step = 1 if kind == "integer" else 0.5
        outside = param.max + step if param.max is not None else param.min - step
        add(position, "out_of_range", replace(item, number_token(outside)),
            f"{name} given {number_token(outside)}", spoiled=key)
    current = tokens[item.start + item.width - 1]
    if item.is_option and item.width == 1:
        current = current.partition("=")[2]
    if kind == "path" and param.exists:
        if len(current) > 3 and current != ".":
            add(position, "path_not_found", replace(item, current[:-1]),
                f"{name} given {current[:-1]!r} (a letter short)")
        else:
            add(position, "path_not_found", replace(item, "no-such-path"),
                f"{name} given a path that is not there", spoiled=key)
    if kind == "path" and param.kind in ("file", "dir"):
        wrong = "." if param.kind == "file" else SAMPLE_FILE
        add(position, "invalid_path", replace(item, wrong),
            f"{name} given a {'folder' if wrong == '.' else 'file'}", spoiled=key)
    if not item.is_option:
        return
    options = builder.command.options
    if param.count and tokens[item.start].startswith("--"):
        out = list(tokens)
        out[item.start] = param.flag + "=many"
        add(position, "count_value", out, f"{param.flag}=many")
    if param.nargs > 1 and item.width == 1 + param.nargs:
        out = tokens[:item.start + item.width - 1] + tokens[item.start + item.width:]
        add(position, "tuple_short", out, f"{param.flag} given one value too few")
    given = {each.param.key for each in _items(builder.command, tokens)}
    end = tokens.index("--") if "--" in tokens else len(tokens)
    for other in options.values():
        if _clash(param, other) and other.key not in given and not other.sensitive:
            add(position, "conflicting", tokens[:end] + _given(other) + tokens[end:],
                f"{other.flag} added next to {param.flag}, which conflicts with it")
    needed = [options[k] for k in given if k in options and key in options[k].requires]
    if needed:
        add(position, "requires_dropped", without(item),
            f"{param.flag} left out ({needed[0].flag} requires it)")


def _misplace_secret(builder, position, tokens, items) -> None:
    """The planted secret where it does not belong: misspelt flag, after `--`, a stray word."""
    add = builder.mutate
    for item in items:
        option = item.param
        if not (item.is_option and option.sensitive and item.width == 2):
            continue
        rest = tokens[:item.start] + tokens[item.start + 2:]
        end = rest.index("--") if "--" in rest else len(rest)
        add(position, "secret_misspelt", rest[:end] + [_misspell(option.flag), CANARY]
            + rest[end:], f"{option.flag} misspelt, with a secret")
        add(position, "secret_after_dashdash", rest + (["--"] if "--" not in rest else [])
            + [option.flag, CANARY], f"{option.flag} and a secret after --")
        if not builder.command.arguments:
            add(position, "secret_stray", rest[:end] + [CANARY] + rest[end:],
                "a secret as a stray word")


def _all_arguments_given(command, items) -> bool:
    """Whether one more word is one too many: every argument is given and none takes the
    rest (else the word would be an argument's value, not a stray)."""
    given = sum(1 for item in items if not item.is_option)
    return not _takes_rest(command) and given >= len(command.arguments)


def _takes_rest(command) -> bool:
    """Whether the command's last argument takes every remaining word."""
    return bool(command.arguments) and command.arguments[-1].variadic


def _placeholder_forms(param) -> list[Any]:
    """The template forms a caller copies by mistake, for this parameter."""
    from workbench._text import placeholder
    key = param.key.upper()
    slots = getattr(param, "value_slots", None) or [param.metavar]
    slot = slots[-1]   # the slot of the value a mutation replaces (a tuple's last)
    forms = [slot if placeholder(slot) is not None else f"<{param.key}>"]
    forms.append("$" + (getattr(param, "env", None) or key))
    forms.append("YOUR_" + key)
    return forms


def generate(program: Program, commands: Sequence[Command], budget: int = DEFAULT_BUDGET, seed: int = 0) -> list[Any]:
    """The calls for `commands` (of `program`), each command's numbered from 0: every source,
    then up to `budget` in all with mutations sampled across kinds (see the module). A
    command's calls depend on nothing but the command, the budget and the seed."""
    calls: list = []
    for command in commands:
        index = 0
        builder = _Builder(program, command)
        _sources(builder)
        for position in range(len(builder.sources)):
            _mutate(builder, position)
        chosen = _sample(builder.mutations, max(0, budget - len(builder.sources)),
                         seed, " ".join(command.path))
        numbers = {}
        for position, (argv, kind, note, env, stdin, streams, values) in \
                enumerate(builder.sources):
            numbers[position] = index
            calls.append(Call(index, command.path, argv, kind, note, None, env, stdin,
                              streams, values))
            index += 1
        for kind, (position, argv, note, env, stdin, spoiled) in chosen:
            calls.append(Call(index, command.path, argv, kind, note, numbers[position], env,
                              stdin, builder.sources[position][5], spoiled=spoiled))
            index += 1
    return calls


def _sample(mutations: dict[str, Any], budget: int, seed: int, name: str) -> list[Any]:
    """Up to `budget` (kind, mutation) pairs: round-robin over the kinds (in `MUTATIONS`
    order), each kind's own list shuffled by a generator seeded with `seed` and the command.
    When the budget is smaller than the kinds the command has, the round starts at a kind
    drawn by that generator (each command would otherwise get only the first kinds)."""
    rng = random.Random(f"{seed}:{name}")
    queues = []
    for kind in MUTATIONS:
        found = list(mutations.get(kind, ()))
        rng.shuffle(found)
        if found:
            queues.append((kind, found))
    if 0 < budget < len(queues):   # not every kind gets one: start at a kind of this
        start = rng.randrange(len(queues))   # command's, so a program's commands share them
        queues = queues[start:] + queues[:start]
    chosen: list = []
    while queues and len(chosen) < budget:
        for kind, found in list(queues):
            if len(chosen) >= budget:
                break
            chosen.append((kind, found.pop(0)))
            if not found:
                queues.remove((kind, found))
    order = {kind: number for number, kind in enumerate(MUTATIONS)}
    chosen.sort(key=lambda pair: (order[pair[0]], pair[1][0]))
    return chosen
