"""argparse parsers (with nested subparsers) as a Program.

A call rebuilds the argv the parser expects from what the caller gave, then runs the
original: `main(argv)` (or `main()` with `sys.argv` set) when `adapt(..., main=main)` names
the entry point, else `parse_args(argv)` and the handler the subparser set with
`set_defaults(func=...)`. argparse has no environment variables, so none carry over.
"""

from __future__ import annotations

import argparse
import os
import sys

from workbench.adapters._build import (CommandSpec, GroupSpec, Input, Spec, first_paragraph,
                                       group_argument_dropped, group_name, rebuild_argv,
                                       takes_argument, text_value)

HANDLER_KEYS = ("func", "handler", "callback", "run", "command")
"""`set_defaults` names that hold a subcommand's handler, in the order they are looked for."""


def describe(parser, fallback=None, main=None) -> Spec:
    prog = parser.prog
    if not prog or prog == os.path.basename(sys.argv[0]):   # argparse's default: the script
        stem = os.path.splitext(prog or "")[0].lstrip("-")
        prog = fallback or (stem if stem and stem != "c" else "prog")
    version = None
    for action in parser._actions:
        if isinstance(action, argparse._VersionAction) and action.version:
            import re
            found = re.search(r"\d+(?:\.\d+)+[\w.+-]*|\b\d+\b",
                              str(action.version).replace("%(prog)s", ""))
            version = found.group(0) if found else None
    chain = [(parser, prog)]
    subparsers = _subparsers(parser)
    problems: list = []
    if subparsers is None:
        children = [_command(prog, parser.description or "", chain, main, problems)]
    else:
        children = _children(subparsers, chain, main, problems)
    spec = Spec("argparse", prog, children, version=version,
                description=first_paragraph(_expand(parser.description, parser)),
                options=_own_options(parser, 0) if subparsers is not None else ())
    spec.problems = problems
    spec.single = subparsers is None
    return spec


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _children(action, chain, main, problems):
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    out, seen = [], {}
    for token, sub in action.choices.items():
        if id(sub) in seen:
            seen[id(sub)].aliases.append(token)
            continue
        description = helps.get(token) or sub.description or ""
        if description == argparse.SUPPRESS:
            description = ""
        sub_chain = chain + [(sub, token)]
        inner = _subparsers(sub)
        if inner is not None:
            node = GroupSpec(token, description, _children(inner, sub_chain, main, problems),
                             options=_own_options(sub, len(chain)))
        else:
            node = _command(token, description, sub_chain, main, problems)
        node.hidden = helps.get(token) == argparse.SUPPRESS and token in helps
        seen[id(sub)] = node
        out.append(node)
    return out


def _own_options(parser, level) -> list:
    """A parent parser's own options (given before its subcommand), as Inputs."""
    found = [_input(action, parser, level) for action in parser._actions
             if action.option_strings]
    return [item for item in found if item is not None]


def _command(token, description, chain, main, problems) -> CommandSpec:
    inputs = []
    last = len(chain) - 1
    for level, (parser, _) in enumerate(chain):
        for action in parser._actions:
            item = _input(action, parser, level)
            if item is None:
                continue
            if item.positional and level != last:   # a parent parser's own positional
                problems.append(group_argument_dropped(
                    " ".join(t for _, t in chain[1:]), group_name(chain, level), action.dest,
                    f"add_argument('--{action.dest.replace('_', '-')}')"))
                continue
            inputs.append(item)
    return CommandSpec(token, _expand(description, chain[-1][0]), inputs, _Runner(chain, main))


_SKIP = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def _input(action, parser, level):
    if isinstance(action, _SKIP):
        return None
    hidden = action.help == argparse.SUPPRESS
    positional = not action.option_strings
    if hidden and positional and not action.required:
        return None
    more: dict = {"hidden": True} if hidden and not positional else {}
    kind, items, choices = _kind(action)
    variadic = False
    nargs = action.nargs
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                           argparse._StoreConstAction, argparse._AppendConstAction)):
        kind, choices = "boolean", None
        default = False
    elif isinstance(action, argparse.BooleanOptionalAction):
        kind, choices = "boolean", None
        default = action.default if isinstance(action.default, bool) else None
        off = [o for o in action.option_strings if o.startswith("--no-")]
        if off:
            more["off"] = off[0]
    elif isinstance(action, argparse._CountAction):
        kind, choices, default = "integer", None, action.default
        more["count"] = True
    elif nargs == 0 and not positional:   # a custom Action taking no value: a flag
        kind, choices, default = "boolean", None, False
    else:
        default = action.default
        many = nargs in ("*", "+", argparse.REMAINDER) or (isinstance(nargs, int) and nargs > 1)
        if positional and many:
            variadic = True
            if nargs == argparse.REMAINDER:   # option-looking tokens included
                more["rest"] = True
        elif isinstance(nargs, int) and nargs > 1:   # -p NAME VALUE: a tuple per use
            more["nargs"] = nargs
            if isinstance(action, (argparse._AppendAction, argparse._ExtendAction)):
                kind, items = "list", kind
                default = [tuple(v) for v in default] if isinstance(default, list) else None
            elif isinstance(default, (list, tuple)):
                default = tuple(default)
        elif many or isinstance(action, (argparse._AppendAction, argparse._ExtendAction)):
            kind, items = "list", kind
            if nargs in ("+", "*"):   # `-k a b`: the flag takes the values after it
                more["greedy"] = 1 if nargs == "+" else 0
        elif nargs == "?" and not positional:   # `-L` alone is its const
            more["bare"] = (action.const,)
    span = _span(action.choices) if kind == "enum" else None
    if span is not None:   # choices=range(64): an integer from 0 to 63, not 64 listed values
        kind, choices = "integer", None
        more["min"], more["max"] = span
    if default == argparse.SUPPRESS:
        default = None
    if positional:
        required = nargs not in ("?", "*", argparse.REMAINDER)
        name = action.metavar if isinstance(action.metavar, str) else action.dest
        short = None
    else:
        required = bool(action.required)
        longs = [o for o in action.option_strings if o.startswith("--")]
        if isinstance(action, argparse.BooleanOptionalAction):   # named from --x, not --no-x
            longs = [o for o in longs if o != more.get("off")] or longs
        # the longest long flag names it: isort's `--df` is short for `--diff`
        name = max(longs, key=len) if longs else action.dest
        shorts = [o[1] for o in action.option_strings if len(o) == 2 and o[1] != "-"]
        short = shorts[0] if shorts else None
    return Input(name, positional=positional, type=kind, items=items, choices=choices,
                 default=default, required=required, variadic=variadic, short=short,
                 description="" if hidden else _expand(action.help, parser, action),
                 level=level, ref=action, more=more)


def _kind(action):
    if action.choices is not None and not isinstance(action.choices, dict):
        choices = [str(c) for c in action.choices]
        if isinstance(action.choices, (set, frozenset)):   # no order of its own: sorted,
            choices.sort()                                 # so schemas stay the same
        return "enum", "string", choices
    if action.type is int:
        return "integer", "string", None
    if action.type is float:
        return "number", "string", None
    return "string", "string", None


def _span(choices) -> tuple[int, int] | None:
    """(lowest, highest) when the choices are every integer between them (three or more)."""
    try:
        values = sorted(set(choices))
    except TypeError:
        return None
    if len(values) < 3 or not all(type(v) is int for v in values) or \
            values[-1] - values[0] + 1 != len(values):
        return None
    return values[0], values[-1]


def _expand(text, parser, action=None) -> str:
    """A help text with argparse's %(default)s / %(prog)s / %(choices)s filled in."""
    if not text or text == argparse.SUPPRESS:
        return ""
    if "%" not in text:
        return text
    values = {"prog": parser.prog}
    if action is not None:
        values.update(vars(action))
        if action.choices is not None:
            values["choices"] = ", ".join(map(str, action.choices))
    try:
        return text % values
    except (KeyError, TypeError, ValueError):
        return text




def _tokens(action, item, value) -> list:
    strings = action.option_strings
    longs = [o for o in strings if o.startswith("--") and not o.startswith("--no-")]
    flag = longs[0] if longs else strings[0]
    if isinstance(action, argparse._CountAction):
        return [flag] * max(int(value or 0), 0)
    if isinstance(action.nargs, int) and action.nargs > 1:   # a tuple per use
        uses = value if item.type == "list" else [value]
        return [token for use in uses or () for token in [flag, *map(text_value, use)]]
    if item.type == "boolean":
        if value:
            return [flag]
        if isinstance(action, argparse.BooleanOptionalAction):
            off = [o for o in strings if o.startswith("--no-")]
            return off[:1]
        return []
    if action.nargs == "?" and not item.positional and value == action.const \
            and not isinstance(action, (argparse._AppendAction, argparse._ExtendAction)):
        return [flag]   # the const, as the flag alone gives it (whatever its type)
    if item.type == "list":
        values = [text_value(v) for v in value or ()]
        if isinstance(action, (argparse._AppendAction, argparse._ExtendAction)) and \
                action.nargs in (None, 1, "?"):
            out = []
            for one in values:
                out += _one(flag, one)
            return out
        return [flag, *values] if values else []
    return _one(flag, text_value(value))


def _one(flag, text) -> list:
    if flag.startswith("--"):
        return [f"{flag}={text}"]
    if len(flag) == 2:
        return [flag + text]
    return [flag, text]


class _Runner:
    def __init__(self, chain, main):
        self.chain = chain   # [(parser, token)], the root first
        self.main = main

    def argv(self, given) -> list:
        return rebuild_argv(self.chain, given, _tokens)

    def __call__(self, given, command, request, world):
        from workbench.adapters import _capture
        root = self.chain[0][0]
        argv = self.argv(given)

        def call():
            try:
                if self.main is not None:
                    sys.argv = [root.prog] + argv
                    result = self.main(argv) if takes_argument(self.main) else self.main()
                else:
                    namespace = root.parse_args(argv)
                    handler = _handler(namespace)
                    if handler is None:
                        sys.stderr.write(
                            f"'{' '.join(command.path)}' has no handler: give its parser "
                            f"set_defaults(func=...), or pass adapt(parser, main=main)\n")
                        return 1
                    result = handler(namespace)
            except argparse.ArgumentError as error:   # parsers built with exit_on_error=False
                sys.stderr.write(f"{root.prog}: error: {error}\n")
                return 2
            # as `sys.exit(main())` reads it: a number is the status, True is 1
            return int(result) if isinstance(result, int) else 0

        code, out, err = _capture.captured(call, world, request)
        if err is not None and code == 2 and ": error: " in err:
            raise _usage(err, command, request, given)
        return _capture.finish(code, out, err, command, request, world)


def _handler(namespace):
    for key in HANDLER_KEYS:
        value = getattr(namespace, key, None)
        if callable(value):
            return value
    return None


def _usage(err, command, request, given):
    """argparse's `prog: error: ...` (exit 2) as a refusal naming the input at fault."""
    from workbench.adapters._fix import refusal
    message = err.rsplit(": error: ", 1)[1].strip()
    inputs = command.adapter.inputs.values()
    item, code, add = None, "usage", False
    if message.startswith("argument "):
        names = message[len("argument "):].split(":", 1)[0].split("/")
        item = _named(names, inputs)
        code = "invalid_value"
    elif message.startswith("the following arguments are required: "):
        names = message.split(": ", 1)[1].split(", ")
        item = _named(names[:1], inputs)
        add = True
        code = "missing_argument" if item is not None and item.positional else "missing_option"
    if item is None:
        code = "usage"
    return refusal(command, request, given, code, message, item, add=add)


def _named(names, inputs):
    wanted = {name.strip() for name in names}
    for item in inputs:
        action = item.ref
        labels = set(action.option_strings) | {action.dest}
        if isinstance(action.metavar, str):
            labels.add(action.metavar)
        if labels & wanted:
            return item
    return None
