"""The benchmark's small program, written with Typer (its defaults: Rich help when Rich is installed)."""
import json
from typing import Optional

import typer

app = typer.Typer(name="tool", help="Ship builds", no_args_is_help=True)


def _version(value: bool):
    if value:
        print("tool 1.0.0")
        raise typer.Exit()


@app.callback()
def main(version: Optional[bool] = typer.Option(None, "--version", callback=_version,
                                                is_eager=True, help="Show the version and exit.")):
    pass


@app.command(help="Deploy a build", epilog="example: tool deploy --target staging --yes")
def deploy(target: str = typer.Option(..., help="where to deploy"),
           yes: bool = typer.Option(False, "--yes", help="skip the confirmation"),
           replicas: int = typer.Option(1, help="how many")):
    print(json.dumps({"target": target}))


@app.command(help="Show status")
def status(verbose: bool = typer.Option(False, "--verbose", help="more detail")):
    print(json.dumps({"ok": True}))


if __name__ == "__main__":
    app(prog_name="tool")
