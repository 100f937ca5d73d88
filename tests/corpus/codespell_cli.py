"""codespell as installed: the parser its main() builds (it keeps none at module level), run
through main()."""
import argparse

from codespell_lib import _codespell


def _parser():
    """The parser codespell's parse_options() makes, stopped before it parses."""
    real = argparse.ArgumentParser.parse_args

    def stop(self, *args, **kwargs):
        raise LookupError(self)

    argparse.ArgumentParser.parse_args = stop
    try:
        _codespell.parse_options([])
    except LookupError as made:
        return made.args[0]
    finally:
        argparse.ArgumentParser.parse_args = real


parser = _parser()


def main(argv):
    return _codespell.main(*argv)
