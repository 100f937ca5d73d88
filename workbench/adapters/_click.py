"""Click commands and groups as a Program; also the walker Typer's bundled Click reuses.

Both Click and Typer's copy of it (`typer._click`) build the same object graph: commands
with `params`, groups with `commands`, options with `opts`/`secondary_opts`/`is_flag`/
`multiple`/`count`/`envvar`. `walk()` reads that graph through a `Flavour`, which says how a
library names its types and exceptions. A call rebuilds the original argv from what the
caller gave and runs `make_context` + `invoke` on the root, as `main()` would, in-process.
"""

from __future__ import annotations

from workbench.adapters._build import (CommandSpec, GroupSpec, Input, Spec, first_paragraph,
                                       group_argument_dropped, group_name, rebuild_argv,
                                       takes_argument, text_value)


class Flavour:
    """How one Click-like library spells types and exceptions (overridden by Typer)."""

    library = "click"
    entry = None
    """The program's entry function that runs the command (`main()` around `cli()`), if any."""

    def __init__(self):
        import click
        from click import exceptions
        self.click = click
        self.UsageError = exceptions.UsageError
        self.BadParameter = exceptions.BadParameter
        self.MissingParameter = exceptions.MissingParameter
        self.NoSuchOption = exceptions.NoSuchOption
        self.ClickException = exceptions.ClickException
        self.Exit = exceptions.Exit
        self.Abort = exceptions.Abort

    def is_group(self, node) -> bool:
        return isinstance(getattr(node, "commands", None), dict)

    def running(self, root):
        """What a call through the entry function runs inside (Typer's makes `app()` run
        `root`); for Click, `cli()` is `root` already."""
        import contextlib
        return contextlib.nullcontext()

    def show(self, error, root) -> None:
        """Print a failure as the library's own `main()` does (a custom `show()` included);
        a rich-click command's `main` prints it through the command's error formatter (the
        usage and error panel)."""
        formatter = _rich_click_formatter(root)
        if formatter is None:
            error.show()
        elif type(error).__name__ == "NoArgsIsHelpError":
            print(error.message)
        else:
            import sys
            formatter.write_error(error)
            sys.stderr.write(formatter.getvalue())

    def show_abort(self, root) -> None:
        import sys
        formatter = _rich_click_formatter(root)
        if formatter is None:
            sys.stderr.write("Aborted!\n")
        else:   # its `aborted_text`
            formatter.write_abort()
            sys.stderr.write(formatter.getvalue())

    def kind(self, param):
        """(type, items, choices) of a parameter's values, before multiple/nargs."""
        click = self.click
        kind = param.type
        if isinstance(kind, click.Choice) and getattr(kind, "case_sensitive", True):
            return "enum", "string", [choice_text(c) for c in kind.choices]
        if isinstance(kind, click.Choice):   # any case goes: the original checks the value
            return "string", "string", None
        if isinstance(kind, click.types.IntParamType):
            return "integer", "string", None
        if isinstance(kind, click.types.FloatParamType):
            return "number", "string", None
        if isinstance(kind, click.types.BoolParamType):
            return "enum", "string", ["true", "false"]
        if isinstance(kind, click.Path):
            return "path", "string", None
        if isinstance(kind, click.DateTime) and list(kind.formats) == list(_ISO_FORMATS):
            return "datetime", "string", None
        if isinstance(kind, click.types.UUIDParameterType):
            return "uuid", "string", None
        return "string", "string", None

    def checks(self, param) -> dict:
        """`min`/`max` of an IntRange or FloatRange (closed and not clamping: those the
        model refuses as the original does) and the checks of a `click.Path`."""
        kind = param.type
        out: dict = {}
        if isinstance(kind, self.click.types._NumberRangeBase) and not getattr(
                kind, "clamp", False):
            if kind.min is not None and not kind.min_open:
                out["min"] = kind.min
            if kind.max is not None and not kind.max_open:
                out["max"] = kind.max
        if isinstance(kind, self.click.Path) and not getattr(kind, "allow_dash", False):
            out.update(path_checks(kind.exists, kind.file_okay, kind.dir_okay, kind.readable,
                                   kind.writable))
        return out

    def default(self, param):
        value = param.default
        if value is getattr(self.click.core, "UNSET", None) or callable(value):
            return None   # Click 8.2+ marks "no default" with a sentinel
        if isinstance(value, (list, tuple)):
            return [choice_text(v) if _is_enum(v) else v for v in value]
        return choice_text(value) if _is_enum(value) else value


_ISO_FORMATS = ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")
"""Click's and Typer's default DateTime formats: each reads as an ISO 8601 datetime."""


def path_checks(exists, file_okay, dir_okay, readable, writable) -> dict:
    """A Click (or Typer) path's checks as the parameter model's settings."""
    out: dict = {}
    if exists:
        out["exists"] = True
    if file_okay and not dir_okay:
        out["kind"] = "file"
    elif dir_okay and not file_okay:
        out["kind"] = "dir"
    if readable:
        out["readable"] = True
    if writable:
        out["writable"] = True
    return out


def _is_enum(value) -> bool:
    import enum
    return isinstance(value, enum.Enum)


def choice_text(choice) -> str:
    """What a caller types for a Click choice (an Enum member by its name)."""
    return choice.name if _is_enum(choice) else str(choice)


def describe(obj, fallback=None, main=None) -> Spec:
    """The Spec of a click.Command or click.Group; `main`, the program's entry function that
    runs it (each call goes through it, so its own error handling is kept)."""
    flavour = Flavour()
    flavour.entry = main
    return walk(obj, flavour, fallback)


def walk(root, flavour, fallback=None, *, name=None, description=None) -> Spec:
    name = name or (fallback if _named_after_function(root) else None) or root.name or \
        fallback or flavour.library
    description = description if description is not None else \
        first_paragraph(getattr(root, "help", None) or getattr(root, "short_help", None))
    prefix = (getattr(root, "context_settings", None) or {}).get("auto_envvar_prefix")
    prefix = prefix.upper().replace("-", "_") if prefix else None
    problems: list = []
    options = []
    group = flavour.is_group(root) and not _callback_only(root)
    if group:
        children = _children(root, flavour, [(root, name)], [prefix], problems)
        options = _own_options(root, flavour, 0, prefix)
    else:
        children = [_command(root, root.name or name, flavour, [(root, name)], [prefix],
                             problems)]
    spec = Spec(flavour.library, name, children, description=description,
                version=declared_version(root), options=options)
    spec.problems = problems
    spec.single = not group
    return spec


def _callback_only(group) -> bool:
    """A group without subcommands whose callback does the work (`invoke_without_command`,
    a Typer app of one `@app.callback()`): one command, its own."""
    return not group.commands and bool(getattr(group, "invoke_without_command", False))


def declared_version(root) -> str | None:
    """The version a Click `version_option` prints: its `version=`, else its `package_name`'s
    installed version; None without one (the entry point's distribution may give it)."""
    for param in getattr(root, "params", ()):
        callback = getattr(param, "callback", None)
        code = getattr(callback, "__code__", None)
        if not getattr(param, "is_eager", False) or param.name != "version" or code is None:
            continue
        try:
            cells = {name: cell.cell_contents for name, cell in
                     zip(code.co_freevars, getattr(callback, "__closure__", None) or ())}
        except ValueError:   # an empty cell
            continue
        if isinstance(cells.get("version"), str):
            return cells["version"]
        if isinstance(cells.get("package_name"), str):
            from importlib import metadata
            try:
                return metadata.version(cells["package_name"])
            except metadata.PackageNotFoundError:
                return None
    return None


def _named_after_function(node) -> bool:
    """Whether Click named the command after its function (`cli`, `main`) rather than the
    author: then the file or entry point names the program."""
    callback = getattr(node, "callback", None)
    derived = getattr(callback, "__name__", "").lower().replace("_", "-")
    return bool(node.name) and node.name in (derived, derived.replace("-", ""))


def _children(group, flavour, chain, prefixes, problems):
    out = []
    for token, child in _subcommands(group, chain, problems):
        sub_prefix = f"{prefixes[-1]}_{token.upper().replace('-', '_')}" if prefixes[-1] else None
        sub_chain = chain + [(child, token)]
        if flavour.is_group(child):
            out.append(GroupSpec(token, _help(child), _children(child, flavour, sub_chain,
                                                                prefixes + [sub_prefix],
                                                                problems),
                                 hidden=bool(getattr(child, "hidden", False)),
                                 options=_own_options(child, flavour, len(chain),
                                                      sub_prefix)))
        else:
            out.append(_command(child, token, flavour, sub_chain, prefixes + [sub_prefix],
                                problems))
    return out


def _subcommands(group, chain, problems) -> list:
    """(name, command) under a group as its own `--help` lists them: `list_commands()` and
    `get_command()`, so lazy groups (Flask's app and plugin commands) are expanded. A name
    that gives no command is a problem (the workbench lists it), never silently missing."""
    path = " ".join(token for _, token in chain[1:])
    try:
        ctx = type(group).context_class(group, info_name=chain[-1][1], resilient_parsing=True)
        listed = list(group.list_commands(ctx))   # Click sorts them: keep declaration order
        names = [n for n in group.commands if n in listed] + \
            [n for n in listed if n not in group.commands]
    except Exception as error:   # noqa: BLE001 - a library's own code
        problems.append(("error", "commands_not_listed", f"group '{path or chain[0][1]}' could "
                         f"not list its commands: {type(error).__name__}: {error}",
                         "make the group's list_commands() work without arguments (a lazy "
                         "group that needs an app or a plugin: install or point at it)", path))
        return list(group.commands.items())
    out = []
    for name in names:
        try:
            child, why = _resolved(group, ctx, name), "get_command() gave None"
        except Exception as error:   # noqa: BLE001
            child, why = None, f"{type(error).__name__}: {error}"
        if child is None:
            problems.append(("error", "command_not_adapted", f"'{(path + ' ' + name).strip()}' "
                             f"is listed but could not be loaded ({why})",
                             "make the group's get_command() return it (its module must "
                             "import), or stop listing it", path))
            continue
        out.append((name, child))
    return out


def _resolved(group, ctx, name):
    """The command `name` runs: what the group's resolve_command() gives, as at dispatch (a
    group may swap a placeholder without params or help for the real command there:
    huggingface_hub's `hf`), else get_command()."""
    try:
        child = group.resolve_command(ctx, [name])[1]
    except Exception:   # noqa: BLE001 - a library's own code; get_command() says why
        child = None
    return child if child is not None else group.get_command(ctx, name)


def _own_options(group, flavour, level, prefix) -> list:
    """A group's own options (no arguments, no eager actions), as Inputs at its level."""
    return [_input(param, flavour, level, False, prefix) for param in group.params
            if not _is_action(param) and param.param_type_name != "argument"
            and not (getattr(param, "is_eager", False) and param.callback)]


def _is_action(param) -> bool:
    """An eager option that gives the command no value (--version, --install-completion);
    a non-eager one (`-q` whose callback sets `ctx.obj`) is an input like any other."""
    return not getattr(param, "expose_value", True) and getattr(param, "is_eager", False)


def _help(node) -> str:
    return getattr(node, "short_help", None) or getattr(node, "help", None) or ""


def _command(node, token, flavour, chain, prefixes, problems) -> CommandSpec:
    inputs = []
    last = len(chain) - 1
    for level, (owner, _) in enumerate(chain):
        for param in owner.params:
            if _is_action(param):
                continue   # --version, --install-completion
            positional = param.param_type_name == "argument"
            if level != last and getattr(param, "is_eager", False) and param.callback:
                _note_action(problems, chain[:level + 1], param)
                continue   # the group's own action (hf's --install-completion, --skills)
            if positional and level != last:   # a group's own arguments: not modelled
                problems.append(group_argument_dropped(" ".join(t for _, t in chain[1:]),
                                                       group_name(chain, level), param.name,
                                                       "@click.option"))
                continue
            inputs.append(_input(param, flavour, level, positional, prefixes[level]))
    deprecated = getattr(node, "deprecated", None)
    return CommandSpec(token, _help(node), inputs, _Runner(flavour, chain),
                       hidden=bool(getattr(node, "hidden", False)),
                       deprecated=deprecated if isinstance(deprecated, str) else bool(deprecated))


def _note_action(problems, chain, param) -> None:
    """An eager option of a group with a callback runs and exits (`--install-completion`):
    an action of the group itself, not an input of each command under it."""
    where = " ".join([group_name(chain, 0), *(t for _, t in chain[1:])])
    flag = max(param.opts, key=len)
    problem = ("info", "group_action_not_modelled",
               f"'{where}' option {flag} is an action of the group itself (it runs and exits), "
               f"so its commands do not take it", f"run it on the original program: {where} "
               f"{flag}", " ".join(t for _, t in chain[1:]))
    if problem not in problems:
        problems.append(problem)


def _input(param, flavour, level, positional, prefix) -> Input:
    kind, items, choices = flavour.kind(param)
    count = bool(getattr(param, "count", False))
    flag = bool(getattr(param, "is_flag", False)) and not count
    nargs = getattr(param, "nargs", 1)
    multiple = bool(getattr(param, "multiple", False))
    variadic = False
    more = flavour.checks(param)
    if count:
        kind, choices = "integer", None
        more["count"] = True
    elif flag:
        kind, choices = "boolean", None
        more = {}
        off = [o for o in getattr(param, "secondary_opts", ()) if o.startswith("--")]
        if off:
            more["off"] = off[0]   # --shallow/--deep
    elif positional and nargs != 1:
        variadic = True
    elif isinstance(nargs, int) and nargs > 1:   # --config KEY VALUE: a tuple per use
        more["nargs"] = nargs
        if multiple:
            items, kind = kind, "list"
    elif multiple or nargs != 1:
        items, kind = kind, "list"
    if kind == "boolean" or count:
        more = {k: v for k, v in more.items() if k in ("count", "off", "min", "max")}
    if getattr(param, "hidden", False):
        more["hidden"] = True
    prompt = getattr(param, "prompt", None)
    if isinstance(prompt, str) and prompt and not positional and not count:
        more["prompt"] = prompt
        if getattr(param, "confirmation_prompt", False):
            more["confirmation_prompt"] = True
        if getattr(param, "hide_input", False):
            more["hide_input"] = True
    env = param.envvar
    if isinstance(env, (list, tuple)):
        env = env[0] if env else None
    if env is None and prefix and not positional and getattr(param, "allow_from_autoenv", True) \
            and param.name:
        env = f"{prefix}_{param.name.upper()}"   # Click's auto_envvar_prefix naming
    if positional:
        name = param.name or "arg"
        short = None
    else:
        longs = [o for o in param.opts if o.startswith("--")]
        name = longs[0] if longs else (param.name or param.opts[0])
        shorts = [o[1] for o in param.opts if len(o) == 2 and o[0] == "-" and o[1] != "-"]
        short = shorts[0] if shorts else None   # a short off switch (-S) is not modelled
    required = bool(param.required)
    default = flavour.default(param)
    if more.get("nargs") and isinstance(default, list):
        default = [tuple(v) for v in default] if kind == "list" else tuple(default)
    return Input(name, positional=positional, type=kind, items=items, choices=choices,
                 default=default, required=required, variadic=variadic,
                 env=env, short=short, sensitive=bool(getattr(param, "hide_input", False)),
                 description=getattr(param, "help", None) or "", level=level, ref=param,
                 more=more)


def option_tokens(param, item, value) -> list:
    """argv for one option as the original spells it."""
    longs = [o for o in param.opts if o.startswith("--")]
    flag = longs[0] if longs else param.opts[0]
    if getattr(param, "count", False):
        return [flag] * max(int(value or 0), 0)
    nargs = getattr(param, "nargs", 1)
    if isinstance(nargs, int) and nargs > 1:   # a tuple per use (a list of them: multiple)
        uses = value if item.type == "list" else [value]
        return [token for use in uses or () for token in [flag, *map(text_value, use)]]
    if item.type == "boolean":
        if value:
            return [flag]
        off = list(getattr(param, "secondary_opts", ()))
        return [off[0]] if off else []
    if item.type == "list":
        values = [text_value(v) for v in value or ()]
        nargs = max(getattr(param, "nargs", 1), 1)
        out = []
        for start in range(0, len(values), nargs):
            out += [flag, *values[start:start + nargs]]
            if not getattr(param, "multiple", False):
                break
        return out
    text = text_value(value)
    return [f"{flag}={text}"] if flag.startswith("--") else [flag + text]




class _Runner:
    """Runs one command of a Click-like tree: rebuild argv, make_context, invoke."""

    def __init__(self, flavour, chain):
        self.flavour = flavour
        self.chain = chain   # [(node, token)], the root first

    def argv(self, given) -> list:
        return rebuild_argv(self.chain, given, option_tokens)

    def __call__(self, given, command, request, world):
        from workbench.adapters import _capture
        flavour = self.flavour
        root = self.chain[0][0]
        argv = self.argv(given)
        by_param = {id(item.ref): item for item, _ in given}
        by_param.update({id(item.ref): item for item in command.adapter.inputs.values()})

        usage: list = []

        def run(**settings):
            with root.make_context(command.program.name, argv, **settings) as ctx:
                root.invoke(ctx)

        def call():
            if flavour.entry is not None:
                return _through_entry(flavour, root, command.program.name, argv, run, usage)
            try:
                run()
                return 0
            except flavour.Exit as done:
                return done.exit_code
            except flavour.Abort:
                flavour.show_abort(root)
                return 1
            except flavour.UsageError as error:
                raise usage_refusal(error, flavour, by_param, command, request, given) from None
            except flavour.ClickException as error:
                flavour.show(error, root)
                return error.exit_code
            except (EOFError, KeyboardInterrupt):
                flavour.show_abort(root)
                return 1

        code, out, err = _capture.captured(call, world, request)
        if usage:   # a usage error the entry function did not handle itself
            raise usage_refusal(usage[0], flavour, by_param, command, request, given)
        return _capture.finish(code, out, err, command, request, world)


def _through_entry(flavour, root, prog, argv, run, usage):
    """Run the program's own entry function (`main()` around `cli()`) with `sys.argv` set,
    its command's `main` standing in for Click's for this call: the argv the caller gave,
    the context settings the entry passes (`obj=`), failures printed as Click's `main()`
    prints them. A usage error is kept in `usage` for the caller's refusal. The status."""
    import sys

    def main(args=None, prog_name=None, complete_var=None, standalone_mode=True, **settings):
        if not standalone_mode:
            run(**settings)
            return None
        try:
            run(**settings)
        except flavour.Exit as done:
            sys.exit(done.exit_code)
        except flavour.Abort:
            flavour.show_abort(root)
            sys.exit(1)
        except flavour.UsageError as error:
            usage.append(error)
            sys.exit(2)
        except flavour.ClickException as error:
            flavour.show(error, root)
            sys.exit(error.exit_code)
        except (EOFError, KeyboardInterrupt):
            flavour.show_abort(root)
            sys.exit(1)
        sys.exit(0)

    sys.argv = [prog] + argv
    root.main = main   # an instance attribute: `cli()` calls it
    try:
        entry = flavour.entry
        with flavour.running(root):
            result = entry(argv) if takes_argument(entry) else entry()
    finally:
        del root.main
    return int(result) if isinstance(result, int) else 0


def usage_refusal(error, flavour, by_param, command, request, given):
    """A Click usage error as the framework's refusal, with a fix where the input is known."""
    from workbench.adapters._fix import refusal
    param = getattr(error, "param", None)
    item = by_param.get(id(param)) if param is not None else None
    if item is None and getattr(error, "param_hint", None):   # BadParameter(param_hint="URL")
        item = _by_hint(error.param_hint, by_param.values())
    message = error.format_message()
    if item is not None and isinstance(error, flavour.MissingParameter):
        return refusal(command, request, given, "missing_argument" if item.positional else
                       "missing_option", message, item, add=True)
    if item is not None and isinstance(error, flavour.BadParameter):
        return refusal(command, request, given, "invalid_value", message, item)
    if isinstance(error, flavour.NoSuchOption):
        return refusal(command, request, given, "unknown_option", message, None)
    return refusal(command, request, given, "usage", message, None)


def _by_hint(hint, items):
    """The input a `param_hint` ("URL", "'--rating'", ["--a", "-a"]) names, or None."""
    hints = hint if isinstance(hint, (list, tuple)) else [hint]
    wanted = {str(h).strip("'\" ").lstrip("-").lower().replace("-", "_") for h in hints}
    for item in items:
        param = item.ref
        names = {str(param.name or "").lower()} | {
            o.lstrip("-").lower().replace("-", "_") for o in getattr(param, "opts", ())}
        if names & wanted:
            return item
    return None


def _rich_click_formatter(root):
    """The formatter a rich-click command's own `main` prints failures through, else None
    (a plain Click command). rich-click replaces `main` (`RichCommand.main`), which the
    adapter does not call, so it asks the command for the formatter that `main` uses."""
    if not any(kind.__module__.split(".")[0] == "rich_click" for kind in type(root).__mro__):
        return None
    make = getattr(root, "_error_formatter", None)
    if make is None:
        return None
    try:
        return make()
    except Exception:  # noqa: BLE001 - its own `main` falls back to plain text the same way
        return None
