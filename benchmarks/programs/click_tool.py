"""The benchmark's small program, written with Click."""
import json

import click


@click.group(help="Ship builds")
@click.version_option("1.0.0", prog_name="tool")
def cli():
    pass


@cli.command(help="Deploy a build", epilog="example: tool deploy --target staging --yes")
@click.option("--target", required=True, help="where to deploy")
@click.option("--yes", is_flag=True, help="skip the confirmation")
@click.option("--replicas", type=int, default=1, show_default=True, help="how many")
def deploy(target, yes, replicas):
    click.echo(json.dumps({"target": target}))


@cli.command(help="Show status")
@click.option("--verbose", is_flag=True, help="more detail")
def status(verbose):
    click.echo(json.dumps({"ok": True}))


if __name__ == "__main__":
    cli(prog_name="tool")
