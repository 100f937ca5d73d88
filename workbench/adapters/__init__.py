"""Adapters: a Click command or group, a Typer app or an argparse parser as a Program.

    from workbench import adapt
    program = adapt(cli, effects={"notes list": "read_only", "notes add": "non_idempotent"})

The adapted program has the original's commands, options, arguments, types, choices,
defaults, help texts, nested groups and environment variables, so every surface (help, cards,
schemas, MCP tools, the workbench) works on it. Running a command runs the original code
in-process; what it prints becomes the envelope's `data`. Commands whose effects are not
given in `effects` are `"undeclared"`: listed as such, and offered over MCP with no hints.

Nothing here is imported on a declared program's path, and the libraries themselves are
imported only when the object handed in comes from them (see `find_adaptable`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False   # typing's own flag costs an import of typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.declaration.model import Program

__all__ = ["adapt", "find_adaptable", "adaptable_kind"]


def adaptable_kind(obj) -> str | None:
    """"click", "typer", "argparse" or None, without importing a library that is not loaded."""
    typer = sys.modules.get("typer")
    if typer is not None and isinstance(obj, getattr(typer, "Typer", ())):
        return "typer"
    for module_name in ("typer._click.core", "typer.core"):
        module = sys.modules.get(module_name)
        if module is not None and isinstance(obj, getattr(module, "Command", ())):
            return "typer"
    click = sys.modules.get("click")
    if click is not None and isinstance(obj, getattr(click, "Command", ())):
        return "click"
    argparse = sys.modules.get("argparse")
    if argparse is not None and isinstance(obj, getattr(argparse, "ArgumentParser", ())):
        return "argparse"
    return None


def adapt(obj: object, effects: dict[str, str] | None = None, *,
          examples: dict[str, list[str]] | None = None, name: str | None = None,
          version: str | None = None, description: str | None = None,
          main: Callable[..., object] | None = None, source: str | None = None) -> Program:
    """A checked `Program` for a Click command/group, a Typer app or an argparse parser.

        program = adapt(cli, effects={"notes list": "read_only", "notes add": "non_idempotent"})
        run(program)

    Args:
        obj: the `click.Command`/`click.Group`, `typer.Typer` or `argparse.ArgumentParser`.
        effects: command paths (space-joined, without the program name) to declared effects,
            e.g. `{"notes list": "read_only"}`; the rest stay `"undeclared"`.
        examples: the same paths to example command lines (checked like declared ones).
        name: overrides the program name the library object gives.
        version: overrides its version.
        description: overrides its description.
        main: the program's entry point, `main(argv)` or `main()` with `sys.argv` set. For
            argparse, without it the parser's `set_defaults(func=...)` handler is called
            with the parsed namespace. For Click, a `main` that calls the command inside its
            own error handling (`try: cli() except AppError: ...`): each call runs through
            it, so its handler prints what it prints and exits as it exits.
        source: the file it came from (its stem names a program that has no name of its own).
    """
    kind = adaptable_kind(obj)
    if kind is None:
        raise TypeError(f"cannot adapt {type(obj).__name__}: pass a click.Command or "
                        f"click.Group, a typer.Typer, or an argparse.ArgumentParser")
    fallback = _stem(source) if source else None
    if main is not None and not callable(main):
        raise TypeError("main= must be the program's entry function, e.g. main=main")
    if kind == "click":
        from workbench.adapters import _click
        spec = _click.describe(obj, fallback, main)
    elif kind == "typer":
        from workbench.adapters import _typer
        spec = _typer.describe(obj, fallback, main)
    else:
        from workbench.adapters import _argparse
        spec = _argparse.describe(obj, fallback, main)
    if name is None or version is None:
        script, release = _entry_point(obj, kind, main)
        name, version = name or script, version or spec.version or release
    from workbench.adapters import _build
    program = _build.program(spec, effects, name=name, version=version,
                             description=description, examples=examples)
    from workbench.runtime.checks import ensure_checked
    ensure_checked(program)
    if source:
        import os
        program.source = os.path.abspath(source)
    return program


def _entry_point(obj, kind, main=None) -> tuple:
    """(name, version) of the installed console script that runs `obj`'s module (`black`,
    `sqlite-utils`, `flask`), or failing that one in the same top-level package (the
    commands in `pkg.commands`, the script at `pkg.__main__:main`), else (None, None): a
    program is named as people type it. An argparse parser is found by its `main`: the
    module it is defined in, else the modules of what it calls (a wrapper around the
    package's own `run`), else the parser's own class (codespell's)."""
    if kind == "argparse":
        callback = main
    elif kind == "click":
        callback = getattr(obj, "callback", None)
    else:
        callback = getattr(getattr(obj, "registered_callback", None), "callback", None) or \
            next((c.callback for c in getattr(obj, "registered_commands", ())), None)
    module = getattr(callback, "__module__", None)
    if module is None and kind == "click":   # a group class without a callback (FlaskGroup)
        module = type(obj).__module__
        if module.split(".")[0] in ("click", "typer"):
            return None, None
    modules = [module]
    if kind == "argparse":   # a wrapper's main: the package functions it calls, its parser class
        code, names = getattr(main, "__code__", None), getattr(main, "__globals__", {})
        modules += [getattr(names.get(name), "__module__", None)
                    for name in (code.co_names if code is not None else ())]
        modules.append(type(obj).__module__)
    for module in modules:
        if not module or module.startswith("__") or module.split(".")[0] in _LIBRARIES:
            continue
        package = module.split(".")[0]
        hits = [(script, target, folder) for script, target, folder in _console_scripts()
                if target.split(":")[0].strip().split(".")[0] == package]
        hits.sort(key=lambda hit: (hit[1].split(":")[0].strip() != module,   # its module first,
                                   hit[1].split(":")[-1].strip() !=      # then the function
                                   getattr(callback, "__name__", None)))
        if hits:
            return hits[0][0], _dist_version(hits[0][2])
    return None, None


_LIBRARIES = frozenset({"argparse", "sys", "os", "builtins", "click", "typer", "workbench"})
"""Modules no program's console script is named after."""


def _console_scripts():
    """(script, "module:function", metadata folder) of every installed distribution, first
    on sys.path winning, as importlib.metadata finds them: read from the `entry_points.txt`
    files directly, since importing importlib.metadata costs more than the rest of the
    adapter (0.2 s of a 1 s start)."""
    import os
    import sys
    seen: set = set()
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            stem, dot, kind = name.rpartition(".")
            if kind not in ("dist-info", "egg-info") or not dot:
                continue
            project = stem.split("-")[0].lower().replace("-", "_").replace(".", "_")
            if project in seen:
                continue
            seen.add(project)
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"),
                          encoding="utf-8") as file:
                    text = file.read()
            except OSError:
                continue
            section = None
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("["):
                    section = line.strip("[]").strip()
                elif section == "console_scripts" and "=" in line:
                    script, _, target = line.partition("=")
                    yield script.strip(), target.split("[")[0].strip(), \
                        os.path.join(entry or ".", name)


def _dist_version(folder: str) -> str | None:
    """The version in a distribution's metadata file (`Version:`), else None."""
    import os
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as file:
                for line in file:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip() or None
                    if not line.strip():
                        break   # the headers end at the first blank line
        except OSError:
            continue
    return None


def find_adaptable(namespace: dict, name: str | None = None):
    """(variable name, object) of the one Click/Typer/argparse object in a module namespace.

    With `name`, the variable called so. Returns None when there is none, and raises
    LookupError naming the candidates when there are several. Subcommands of a group found
    in the same namespace (Click's decorated functions) are not counted as candidates.
    """
    found = []
    seen = set()
    for key, value in namespace.items():
        if key.startswith("__") or id(value) in seen:
            continue
        kind = adaptable_kind(value)
        if kind is not None:
            seen.add(id(value))
            found.append((key, value, kind))
    if name is not None:
        for key, value, _ in found:
            if key == name:
                return key, value
        return None
    if len(found) > 1:
        found = _roots(found)
    if not found:
        return None
    if len(found) > 1:
        raise LookupError(", ".join(key for key, _, _ in found))
    return found[0][0], found[0][1]


def _roots(found):
    """Drop objects that are reachable from another candidate (a group's commands, a typer
    app added to another, a subparser)."""
    inner = set()
    for _, value, kind in found:
        for child in _children(value, kind):
            inner.add(id(child))
    roots = [entry for entry in found if id(entry[1]) not in inner]
    # Typer apps: the click commands typer builds are never module-level, so nothing to drop.
    return roots


def _direct_children(node, kind) -> list:
    """The sub-commands or sub-apps right under one node of a Click/Typer/argparse tree."""
    if kind == "click":
        return list((getattr(node, "commands", None) or {}).values())
    if kind == "typer":
        return [info.typer_instance for info in getattr(node, "registered_groups", ())
                if getattr(info, "typer_instance", None) is not None]
    if kind == "argparse":
        return [child for action in node._actions
                if action.__class__.__name__ == "_SubParsersAction"
                for child in (getattr(action, "choices", None) or {}).values()]
    return []


def _children(value, kind):
    """Every node below `value`, depth first."""
    out, stack = [], [value]
    while stack:
        for child in _direct_children(stack.pop(), kind):
            out.append(child)
            stack.append(child)
    return out


def _stem(path: str) -> str:
    import os
    return os.path.splitext(os.path.basename(path))[0]


def _calls(function, obj) -> bool:
    """Whether `function`'s own code names `obj` (a `main` that runs `cli()` in a `try`)."""
    code, names = getattr(function, "__code__", None), getattr(function, "__globals__", {})
    return code is not None and any(names.get(name) is obj for name in code.co_names)


def adapt_namespace(namespace: dict, name: str | None = None, source: str | None = None):
    """(variable name, Program) for the Click/Typer/argparse object of a loaded module, or None.

    What the loaders call when a file declares no Program. For an argparse parser, a
    module-level `main` function defined in that file (or imported with the parser from the
    module that defines both) is its entry point; for a Click command, such a `main` is when
    its code calls the command or the Typer app (its own error handling around it is kept). Raises LookupError
    (several candidates, listed) or ValueError (the object cannot be adapted; message says why).
    """
    hit = find_adaptable(namespace, name)
    if hit is None:
        return None
    key, obj = hit
    main = None
    kind = adaptable_kind(obj)
    candidate = namespace.get("main")
    if candidate is not obj and callable(candidate) and kind in ("argparse", "click", "typer") and (
            getattr(candidate, "__module__", None) == namespace.get("__name__") or any(
                value is obj for value in getattr(candidate, "__globals__", {}).values())):
        if kind == "argparse" or _calls(candidate, obj):   # or beside the parser
            main = candidate
    from workbench.declaration.model import DefinitionError
    try:
        program = adapt(obj, main=main, source=source)
    except (DefinitionError, TypeError) as error:
        raise ValueError(f"cannot adapt {key!r}: {error}") from None
    if source:   # its defaults computed as it loads are told apart where help is made
        from workbench.adapters._computed import settler
        program.defaults_settler = settler(program, source, key)
    return key, program
