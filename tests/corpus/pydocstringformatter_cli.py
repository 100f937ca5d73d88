"""pydocstringformatter as installed: the parser its ArgumentsManager builds (argparse, with a
BooleanOptionalAction per formatter), run through its own entry point."""
from pydocstringformatter import __version__, _formatting, run_docstring_formatter
from pydocstringformatter._configuration.arguments_manager import ArgumentsManager

parser = ArgumentsManager(__version__, _formatting.FORMATTERS).parser


def main(argv):
    return run_docstring_formatter(argv)
