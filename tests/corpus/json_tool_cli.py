"""`python -m json.tool`: the parser its main() builds, run through that main()."""
import argparse
import json.tool


def _parser():
    """The parser json.tool.main() makes (it keeps none at module level)."""
    real = argparse.ArgumentParser.parse_args

    def stop(self, *args, **kwargs):
        raise LookupError(self)

    argparse.ArgumentParser.parse_args = stop
    try:
        json.tool.main()
    except LookupError as made:
        return made.args[0]
    finally:
        argparse.ArgumentParser.parse_args = real


parser = _parser()


def main():
    json.tool.main()
