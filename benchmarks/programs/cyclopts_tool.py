"""The benchmark's small program, written with cyclopts."""
import json

from cyclopts import App

app = App(name="tool", version="1.0.0", help="Ship builds")


@app.command
def deploy(*, target: str, yes: bool = False, replicas: int = 1):
    """Deploy a build.

    Parameters
    ----------
    target
        where to deploy
    yes
        skip the confirmation
    replicas
        how many
    """
    print(json.dumps({"target": target}))


@app.command
def status(*, verbose: bool = False):
    """Show status.

    Parameters
    ----------
    verbose
        more detail
    """
    print(json.dumps({"ok": True}))


if __name__ == "__main__":
    app()
