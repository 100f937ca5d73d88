"""Typer apps as a Program.

Current Typer ships its own trimmed copy of Click (`typer._click`, no `ParamType`s: each
parameter carries a `type_descriptor` built from its annotation) and never imports the real
`click`. So this module builds Typer's own command graph with `typer.main.get_command(app)`
and walks it with the Click walker through a Typer flavour: types come from annotations
(int, float, bool, Enum and Literal choices, lists), exceptions from `typer._click` and
`typer.exceptions`. The real `click` is never imported here.
"""

from __future__ import annotations

from workbench.adapters._build import first_paragraph
from workbench.adapters._click import path_checks, walk


class TyperFlavour:
    library = "typer"
    entry = None
    """The program's entry function that runs the app (`main()` around `app()`), if any."""
    app = None

    def __init__(self):
        from typer import exceptions as typer_exceptions
        from typer._click import exceptions
        self.UsageError = exceptions.UsageError
        self.BadParameter = exceptions.BadParameter
        self.MissingParameter = exceptions.MissingParameter
        self.NoSuchOption = exceptions.NoSuchOption
        self.ClickException = exceptions.ClickException
        self.Exit = typer_exceptions.Exit
        self.Abort = typer_exceptions.Abort

    def is_group(self, node) -> bool:
        return isinstance(getattr(node, "commands", None), dict)

    def show(self, error, root) -> None:
        """Print a failure as Typer's `main()` does: with Rich when it would use it."""
        if self._rich(root):
            from typer import rich_utils
            rich_utils.rich_format_error(error)
        else:
            error.show()

    def show_abort(self, root) -> None:
        if self._rich(root):
            from typer import rich_utils
            rich_utils.rich_abort_error()
        else:
            import sys
            sys.stderr.write("Aborted!\n")

    @staticmethod
    def _rich(root) -> bool:
        from typer import core
        return bool(core.HAS_RICH) and getattr(root, "rich_markup_mode", None) is not None

    def running(self, root):
        """For a call through the entry function: `app()` runs `root`, the command this
        adapter walked (whose `main` the call replaces), not a new one."""
        import contextlib

        import typer.main
        built, app = typer.main.get_command, self.app

        @contextlib.contextmanager
        def patched():
            typer.main.get_command = lambda typer_app: root if typer_app is app else \
                built(typer_app)
            try:
                yield
            finally:
                typer.main.get_command = built
        return patched()

    def kind(self, param):
        """(type, items, choices) from the parameter's annotation."""
        from typing import get_args
        from typer._param_types import choice_as_str
        desc = getattr(param, "type_descriptor", None)
        if desc is None:
            return "string", "string", None
        choices = desc.choices
        choices = [choice_as_str(c) for c in choices] if choices else None
        annotation = desc.annotation
        if desc.is_list or desc.is_tuple:
            args = get_args(annotation)
            annotation = args[0] if args else str
        if choices:
            return "enum", "string", choices
        info = desc.parameter_info
        if desc.is_path:
            return "path", "string", None
        if getattr(annotation, "__name__", "") == "datetime" and not getattr(
                info, "formats", None):
            return "datetime", "string", None
        if getattr(annotation, "__name__", "") == "UUID":
            return "uuid", "string", None
        if annotation is bool:
            return "boolean", "string", None
        if annotation is int:
            return "integer", "string", None
        if annotation is float:
            return "number", "string", None
        return "string", "string", None

    def checks(self, param) -> dict:
        """`min`/`max` (not clamped) and a path's checks, from the parameter's info."""
        desc = getattr(param, "type_descriptor", None)
        info = getattr(desc, "parameter_info", None)
        out: dict = {}
        if desc is None or info is None:
            return out
        if desc.is_ranged and not getattr(info, "clamp", False):
            if info.min is not None:
                out["min"] = info.min
            if info.max is not None:
                out["max"] = info.max
        if desc.is_path and not getattr(info, "allow_dash", False):
            out.update(path_checks(info.exists, info.file_okay, info.dir_okay, info.readable,
                                   info.writable))
        return out

    def default(self, param):
        import enum
        value = param.default
        if isinstance(value, enum.Enum):
            return str(value.value)
        if isinstance(value, (list, tuple)):
            return [str(v.value) if isinstance(v, enum.Enum) else v for v in value]
        return value


def describe(app, fallback=None, main=None):
    """The Spec of a typer.Typer app (or a command Typer built); `main`, the program's entry
    function that runs it (each call goes through it, so its own error handling is kept)."""
    import typer
    import typer.main
    if isinstance(app, typer.Typer):
        flavour = TyperFlavour()
        flavour.entry, flavour.app = main, app
        info = app.info
        name = _given(getattr(info, "name", None))
        help_text = _given(getattr(info, "help", None))
        root = typer.main.get_command(app)
        callback = _given(getattr(info, "callback", None)) or \
            getattr(getattr(app, "registered_callback", None), "callback", None)
        if not help_text and callback is not None and callback.__doc__:
            help_text = callback.__doc__
        return walk(root, flavour, fallback,
                    name=name or fallback or root.name,
                    description=first_paragraph(help_text or getattr(root, "help", None)))
    return walk(app, TyperFlavour(), fallback)


def _given(value):
    """Typer marks unset settings with a `DefaultPlaceholder`; treat those as None."""
    if value is None or type(value).__name__ == "DefaultPlaceholder":
        return None
    return value
