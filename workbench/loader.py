"""The one program loader: run a Python file in a fresh module and find the Program it declares.

The CLI (`burgee run|mcp|schema FILE`), `burgee diff` and the workbench (`workbench.dev.loader`,
which adds a time-limited check in a subprocess and re-reads sibling modules on each save) all
load through these functions, so a file loads, is matched and is refused the same way
everywhere:

    program = load_program("app.py", "program")     # raises LoadError

A failure is one exception type, `LoadError`, whose `code` is one of `CODES`; its `message`
names the fix, `traceback` starts at the user's file and `line` says where, when known. The
workbench keeps it as data (`State.load_error`) instead of raising it.

The matching rule (`find_program`): a module-level `Program` or typed `App`; with a NAME, the
variable of that name, else the one whose `Program.name` it is; with none found, a Click,
Typer or argparse object, adapted (only if the file imported one of those libraries).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from types import CodeType, ModuleType
    from typing import Any

    from workbench.declaration.model import Program

CODES = {
    "not_found": "FILE does not exist or cannot be read",
    "syntax_error": "FILE does not compile (or is not UTF-8); `line` says where",
    "import_failed": "running FILE raised an exception or called sys.exit",
    "definition": "the declaration cannot work (a DefinitionError: the message names the fix)",
    "no_program": "FILE declares no Program (or none called NAME)",
    "several_programs": "FILE declares several; choose one with --program NAME",
    "adapt_failed": "a Click, Typer or argparse object that cannot be adapted",
    "timeout": "loading did not finish within the workbench's time limit",
}
"""Every `LoadError.code`, and what it means."""


class LoadError(Exception):
    """FILE could not give a Program: `code` (one of `CODES`), a `message` that names the fix,
    the `traceback` from the user's file ("" when there is none) and the `line` at fault."""

    def __init__(self, code: str, message: str, traceback: str = "",
                 line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.traceback = traceback
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "line": self.line,
                "traceback": self.traceback}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LoadError:
        """The error `to_dict` wrote (the workbench's check process sends it as JSON)."""
        return cls(data["code"], data["message"], data.get("traceback") or "", data.get("line"))

    def __repr__(self) -> str:
        return f"LoadError({self.code!r}, {self.message!r})"


def module_name(path: str) -> str:
    """The name a loaded file's module gets (`_burgee_app_app` for `app.py`): never
    `__main__`, so `if __name__ == "__main__": run(program)` does not run."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return "_burgee_app_" + "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in stem)


def read_source(path: str) -> bytes:
    """The bytes of FILE; LoadError `not_found` when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise LoadError("not_found", f"cannot read {path}: {error.strerror or error}") from None


def compile_source(source: str | bytes, path: str) -> CodeType:
    """FILE's bytecode (bytes honour a coding declaration); LoadError `syntax_error`."""
    try:
        return compile(source, path, "exec", dont_inherit=True)   # not this module's __future__
    except (SyntaxError, ValueError) as error:
        raise syntax_error(error, path) from None


def syntax_error(error: BaseException, path: str) -> LoadError:
    """The LoadError of a file that does not compile (or does not decode)."""
    if not isinstance(error, SyntaxError):
        return LoadError("syntax_error", f"cannot read {os.path.basename(path)}: {error}")
    import traceback
    return LoadError("syntax_error", f"{type(error).__name__}: {error.msg} "
                     f"({os.path.basename(path)}, line {error.lineno})",
                     "".join(traceback.format_exception_only(type(error), error)),
                     error.lineno)


def run_module(path: str, code: CodeType, name: str | None = None) -> ModuleType:
    """Run `code` (FILE's bytecode) as a fresh module (`name`, default `module_name(path)`;
    FILE's folder on sys.path) and return it; it stays in sys.modules. Anything it raises, `SystemExit` too,
    becomes a LoadError (`import_failed`, or `definition` for a DefinitionError); a
    KeyboardInterrupt is raised again."""
    import types
    path = os.path.abspath(path)
    name = name or module_name(path)
    module = types.ModuleType(name)
    module.__file__ = path
    module.__dict__["__builtins__"] = __builtins__
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - user code may raise anything, even SystemExit
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
        if isinstance(error, KeyboardInterrupt):
            raise
        raise import_error(error, path) from None
    return module


def import_error(error: BaseException, path: str) -> LoadError:
    """The LoadError of a file that raised while it ran: the traceback starts at its frames."""
    if isinstance(error, SystemExit):
        return LoadError("import_failed", f"{os.path.basename(path)} called "
                         f"sys.exit({error.code!r}) while loading; keep run(program) under "
                         f"`if __name__ == \"__main__\":`")
    import traceback
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.abspath(frame.filename) == path:
            line = frame.lineno
    here = os.path.abspath(__file__)
    tb = error.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == here:
        tb = tb.tb_next      # the loader's own frames: the user's traceback starts at theirs
    text = "".join(traceback.format_exception(type(error), error, tb))
    code = "definition" if type(error).__name__ == "DefinitionError" else "import_failed"
    return LoadError(code, f"{type(error).__name__}: {error}", text, line)


def find_program(namespace: dict[str, Any], name: str | None = None,
                 path: str = "the file") -> tuple[str, Program]:
    """(variable name, Program) from a module's namespace, by the matching rule in the module
    docstring; LoadError `no_program`, `several_programs`, `definition` or `adapt_failed`."""
    from workbench.declaration.model import Program
    found = [(key, value) for key, value in namespace.items()
             if isinstance(value, Program) and not key.startswith("__")]
    found += typed_programs(namespace, path)
    seen: set = set()
    unique = []
    for key, value in found:
        if id(value) not in seen:
            seen.add(id(value))
            unique.append((key, value))
    if not unique or (name and all(name not in (key, value.name) for key, value in unique)):
        adapted = _adapted(namespace, name, path)   # a Click/Typer/argparse program (issue 7)
        if adapted is not None:
            return adapted
    if name:
        for key, value in unique:
            if key == name:
                return key, value
        for key, value in unique:
            if value.name == name:
                return key, value
        raise LoadError("no_program", f"{path} has no Program named {name!r}; it has: "
                        f"{', '.join(key for key, _ in unique) or 'none'}")
    if len(unique) == 1:
        return unique[0]
    if not unique:
        raise LoadError("no_program", f"{path} declares no Program at module level; add "
                        f"`program = Program(...)` or a typed `app = App(...)` (see "
                        f"docs/getting-started.md)")
    raise LoadError("several_programs", f"{path} declares several Programs "
                    f"({', '.join(key for key, _ in unique)}); pick one with --program NAME")


def typed_programs(namespace: dict[str, Any], path: str = "the file"
                   ) -> list[tuple[str, Program]]:
    """(variable name, Program) for each typed App in the namespace (`workbench.typed` is
    read only when the file imported it itself)."""
    if "workbench.typed" not in sys.modules:
        return []
    from workbench.declaration.model import DefinitionError
    from workbench.typed import programs_in
    try:
        return programs_in(namespace)
    except DefinitionError as error:
        raise LoadError("definition", f"{path}: DefinitionError: {error}",
                        f"DefinitionError: {error}\n") from None


def _adapted(namespace: dict, name: str | None, path: str):
    """(variable name, Program) for the module's Click/Typer/argparse object, or None. The
    adapters load only when the module imported one of those libraries itself (so never on
    a declared path)."""
    if not any(lib in sys.modules for lib in ("click", "typer", "argparse")):
        return None
    from workbench.adapters import adapt_namespace
    try:
        return adapt_namespace(namespace, name, source=namespace.get("__file__"))
    except LookupError as error:
        raise LoadError("several_programs", f"{path} has several command-line objects "
                        f"({error}); pick one with --program NAME") from None
    except ValueError as error:
        raise LoadError("adapt_failed", f"{path}: {error}") from None


def check_examples(program: Program) -> None:
    """Parse the program's examples (`workbench.runtime.checks.ensure_checked`); a refusal is
    a LoadError `definition`."""
    from workbench.declaration.model import DefinitionError
    from workbench.runtime.checks import ensure_checked
    try:
        ensure_checked(program)
    except DefinitionError as error:
        raise LoadError("definition", f"DefinitionError: {error}",
                        f"DefinitionError: {error}\n") from None


def exec_file(path: str, name: str | None = None) -> ModuleType:
    """Compile and run FILE as a fresh module (never `__main__`; `name`, default
    `module_name(path)`); returns the module."""
    return run_module(path, compile_source(read_source(path), path), name)


def load_program(path: str, name: str | None = None) -> Program:
    """Load FILE and return its Program (examples checked, `program.source` set to the
    absolute path); LoadError otherwise."""
    module = exec_file(path)
    _key, program = find_program(module.__dict__, name, path)
    check_examples(program)
    program.source = os.path.abspath(path)
    return program
