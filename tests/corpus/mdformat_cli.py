"""mdformat as installed: the parser its run() builds, run through run()."""
import mdformat.plugins
from mdformat._cli import make_arg_parser, run

parser = make_arg_parser(mdformat.plugins._PARSER_EXTENSION_DISTS,
                         mdformat.plugins._CODEFORMATTER_DISTS,
                         mdformat.plugins.PARSER_EXTENSIONS)


def main(argv):
    return run(argv)
