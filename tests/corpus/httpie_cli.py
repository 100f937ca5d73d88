"""httpie's `http` as installed: its argparse parser, run through its own main."""
from httpie.cli.definition import parser  # noqa: F401
from httpie.core import main as _main


def main(argv):
    return _main(["http", *argv])
