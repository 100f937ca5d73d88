"""The benchmark's small program, written with the standard library's argparse."""
import argparse
import json


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tool", description="Ship builds")
    parser.add_argument("--version", action="version", version="tool 1.0.0")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    deploy = commands.add_parser("deploy", help="Deploy a build", description="Deploy a build",
                                 epilog="example: tool deploy --target staging --yes")
    deploy.add_argument("--target", required=True, help="where to deploy")
    deploy.add_argument("--yes", action="store_true", help="skip the confirmation")
    deploy.add_argument("--replicas", type=int, default=1, help="how many")

    status = commands.add_parser("status", help="Show status", description="Show status")
    status.add_argument("--verbose", action="store_true", help="more detail")

    args = parser.parse_args(argv)
    if args.command == "deploy":
        print(json.dumps({"target": args.target}))
    else:
        print(json.dumps({"ok": True}))


if __name__ == "__main__":
    main()
