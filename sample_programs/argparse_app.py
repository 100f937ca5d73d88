"""A unit converter written with argparse, served by burgee through the argparse adapter.

    python sample_programs/argparse_app.py temp 21.5 --from c --to f
    burgee run sample_programs/argparse_app.py table length --from km --to mi --json
    burgee dev sample_programs/argparse_app.py
"""

import argparse
import json

TEMPERATURE = ("c", "f", "k")
LENGTH = {"m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.344}


def precision(text):
    """--precision: a whole number from 0 to 10."""
    value = int(text)
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 10")
    return value


def to_celsius(value, unit):
    return {"c": value, "f": (value - 32) * 5 / 9, "k": value - 273.15}[unit]


def from_celsius(value, unit):
    return {"c": value, "f": value * 9 / 5 + 32, "k": value + 273.15}[unit]


def convert_temp(value, source, target):
    return from_celsius(to_celsius(value, source), target)


def convert_length(value, source, target):
    return value * LENGTH[source] / LENGTH[target]


def show(args, rows):
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print(f"{row['value']:g} {row['from']} = {row['result']:.{args.precision}f} {row['to']}")


def cmd_temp(args):
    result = convert_temp(args.value, args.source, args.target)
    show(args, [{"value": args.value, "from": args.source, "to": args.target,
                 "result": round(result, args.precision)}])


def cmd_length(args):
    result = convert_length(args.value, args.source, args.target)
    show(args, [{"value": args.value, "from": args.source, "to": args.target,
                 "result": round(result, args.precision)}])


def cmd_table(args):
    convert = convert_temp if args.quantity == "temp" else convert_length
    units = TEMPERATURE if args.quantity == "temp" else tuple(LENGTH)
    if args.source not in units or args.target not in units:
        parser.error(f"{args.quantity} units are: {', '.join(units)}")
    rows = []
    value = args.start
    for _ in range(args.steps):
        rows.append({"value": value, "from": args.source, "to": args.target,
                     "result": round(convert(value, args.source, args.target), args.precision)})
        value += args.step
    show(args, rows)


parser = argparse.ArgumentParser(prog="units", description="Convert temperatures and lengths.")
parser.add_argument("--version", action="version", version="%(prog)s 1.2.0")
parser.add_argument("--json", action="store_true", help="print JSON instead of text")
parser.add_argument("-p", "--precision", type=precision, default=2,
                    help="decimal places, 0 to 10 (default: %(default)s)")
commands = parser.add_subparsers(dest="command", required=True)

temp = commands.add_parser("temp", help="convert a temperature")
temp.add_argument("value", type=float, help="the temperature")
temp.add_argument("--from", dest="source", choices=TEMPERATURE, default="c", help="from unit")
temp.add_argument("--to", dest="target", choices=TEMPERATURE, default="f", help="to unit")
temp.set_defaults(func=cmd_temp)

length = commands.add_parser("length", aliases=["len"], help="convert a length")
length.add_argument("value", type=float, help="the length")
length.add_argument("--from", dest="source", choices=tuple(LENGTH), required=True,
                    help="from unit")
length.add_argument("--to", dest="target", choices=tuple(LENGTH), required=True,
                    help="to unit")
length.set_defaults(func=cmd_length)

table = commands.add_parser("table", help="print conversion tables")
tables = table.add_subparsers(dest="quantity", required=True)
for quantity, (source, target) in {"temp": ("c", "f"), "length": ("km", "mi")}.items():
    sub = tables.add_parser(quantity, help=f"a table of {quantity} conversions")
    sub.add_argument("--from", dest="source", default=source, help="from unit")
    sub.add_argument("--to", dest="target", default=target, help="to unit")
    sub.add_argument("--start", type=float, default=0.0, help="first value")
    sub.add_argument("--step", type=float, default=10.0, help="step between rows")
    sub.add_argument("--steps", type=int, default=5, help="number of rows")
    sub.set_defaults(func=cmd_table)


def main(argv=None):
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
