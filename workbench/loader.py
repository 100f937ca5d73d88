"""Find the Program declared in a Python file: compile and run it in a fresh module namespace."""

from __future__ import annotations

import os
import sys


class LoadError(Exception):
    """FILE could not give a Program; the message names the fix. `details` holds a traceback."""

    def __init__(self, message: str, details: str | None = None, code: str = "load_failed"):
        super().__init__(message)
        self.message = message
        self.details = details
        self.code = code


def exec_file(path: str, module_name: str = "__burgee_user__"):
    """Compile and run `path` as a fresh module (not `__main__`); returns the module."""
    import types
    path = os.path.abspath(path)
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError as error:
        raise LoadError(f"cannot read {path}: {error.strerror}",
                        code="not_found") from None
    module = types.ModuleType(module_name)
    module.__file__ = path
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = module
    try:
        code = compile(source, path, "exec", dont_inherit=True)   # not this module's __future__
        exec(code, module.__dict__)
    except SystemExit as error:
        raise LoadError(f"{path} called sys.exit({error.code}) while loading; keep "
                        f"run(program) under `if __name__ == \"__main__\":`") from None
    except BaseException as error:
        import traceback
        details = traceback.format_exc()
        kind = "syntax_error" if isinstance(error, SyntaxError) else "import_failed"
        raise LoadError(f"{os.path.basename(path)} failed to load: "
                        f"{type(error).__name__}: {error}", details, code=kind) from None
    finally:
        if previous is not None:
            sys.modules[module_name] = previous
        else:
            sys.modules.pop(module_name, None)
    return module


def find_program(module, name: str | None = None, path: str = "the file"):
    """The module-level Program (or the one called `name`)."""
    from workbench.declaration.model import Program
    found = {key: value for key, value in vars(module).items() if isinstance(value, Program)}
    for key, value in typed_programs(vars(module), path):
        if all(value is not other for other in found.values()):
            found[key] = value
    if not found or (name is not None and name not in found):
        adapted = _adapted(module, name, path)   # a Click/Typer/argparse program (issue 7)
        if adapted is not None:
            return adapted
    if name is not None:
        if name in found:
            return found[name]
        raise LoadError(f"{path} has no Program named {name!r}; it has: "
                        f"{', '.join(found) or 'none'}", code="no_program")
    if len(found) == 1:
        return next(iter(found.values()))
    if not found:
        raise LoadError(f"{path} declares no Program at module level; add "
                        f"`program = Program(...)` or a typed `app = App(...)` (see docs/getting-started.md)",
                        code="no_program")
    raise LoadError(f"{path} declares several Programs ({', '.join(found)}); pick one with "
                    f"--program NAME", code="several_programs")


def typed_programs(namespace: dict, path: str = "the file") -> list:
    """(variable name, Program) for each typed App in the namespace (`workbench.typed` is
    read only when the file imported it itself)."""
    if "workbench.typed" not in sys.modules:
        return []
    from workbench.declaration.model import DefinitionError
    from workbench.typed import programs_in
    try:
        return programs_in(namespace)
    except DefinitionError as error:
        raise LoadError(f"{path}: DefinitionError: {error}", code="definition") from None


def _adapted(module, name, path):
    """The module's Click/Typer/argparse object as a Program, or None. The adapters load only
    when the module imported one of those libraries itself (so never on a declared path)."""
    if not any(lib in sys.modules for lib in ("click", "typer", "argparse")):
        return None
    from workbench.adapters import adapt_namespace
    try:
        hit = adapt_namespace(vars(module), name,
                              source=path if path != "the file" else None)
    except LookupError as error:
        raise LoadError(f"{path} has several command-line objects ({error}); pick one with "
                        f"--program NAME", code="several_programs") from None
    except ValueError as error:
        raise LoadError(f"{path}: {error}", code="adapt_failed") from None
    return hit[1] if hit is not None else None


def load_program(path: str, name: str | None = None):
    """Load FILE and return its Program, with `program.source` set to the absolute path."""
    module = exec_file(path)
    program = find_program(module, name, path)
    from workbench.runtime.checks import ensure_checked
    ensure_checked(program)
    program.source = os.path.abspath(path)
    return program
