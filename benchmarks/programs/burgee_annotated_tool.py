"""The benchmark's small program declared with burgee's typed API in the Annotated style:
the same Program as burgee_tool.py; `typing` is imported by the program itself."""
from typing import Annotated

from workbench import run
from workbench.typed import App, Opt

app = App("tool", version="1.0.0", description="Ship builds")


@app.command(effects="non_idempotent", examples=["tool deploy --target staging --yes"])
def deploy(target: Annotated[str, Opt("where to deploy")], yes: bool = False,
           replicas: int = 1):
    """Deploy a build

    Args:
        yes: skip the confirmation
        replicas: how many
    """
    return {"target": target}


@app.command(effects="read_only")
def status(verbose: bool = False):
    """Show status

    Args:
        verbose: more detail
    """
    return {"ok": True}


if __name__ == "__main__":
    run(app)
