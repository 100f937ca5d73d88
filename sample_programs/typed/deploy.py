"""The deploy sample (sample_programs/deploy.py) declared with type hints: the same Program.

    python sample_programs/typed/deploy.py deploy --target staging --yes
"""

from typing import Annotated, Literal

from workbench import Fail, run
from workbench.typed import App, Opt

TARGETS = ("staging", "prod", "canary")
UNKNOWN_TARGET = {"code": "unknown_target", "exit": 3, "when": "no deploy target has that name"}
CANCELLED = {"code": "cancelled", "exit": 1, "when": "the person said no"}
Target = Literal["staging", "prod", "canary"]

app = App("tool", version="1.0.0", description="Ship builds")


@app.command(effects="non_idempotent",
             examples=["tool deploy --target staging --yes",
                       "tool deploy --target canary --yes --why 'try the new cache'"],
             errors=[UNKNOWN_TARGET, CANCELLED], why="optional",
             text=lambda d: f"deployed {d['build']} to {d['target']}")
def deploy(ctx, target: Annotated[str, Opt(short="t")],
           yes: Annotated[bool, Opt(short="y")] = False, build: str = "latest"):
    """Deploy a build

    Args:
        target: where to deploy
        yes: skip the confirmation
        build: build to ship
    """
    if target not in TARGETS:
        raise Fail("unknown_target", f"no deploy target named {target!r}",
                   hint="targets: " + ", ".join(TARGETS), exit=3)
    if not yes and not ctx.interactive:
        ctx.action_required(
            reason="confirm",
            message=f"deploying to {target} needs confirmation",
            next=[{"command": f"deploy --target {target} --yes",
                   "when": "once you have reviewed the plan"}],
        )
    if not yes and not ctx.confirm(f"deploy to {target}?"):
        raise Fail("cancelled", "deploy cancelled", exit=1)
    return {"target": target, "build": build, "agent": ctx.agent}


@app.command(effects="read_only", examples=["tool status", "tool status --target prod"])
def status(target: Target = "staging"):
    """Show what is deployed where

    Args:
        target: which target
    """
    return {"target": target, "build": "2026.11.30-1", "healthy": True}


@app.command(effects="idempotent", why="required",
             examples=["tool rollback --target staging --to 2026.11.29-3 --why 'build broke login'"])
def rollback(ctx, target: Annotated[Target, Opt()], to: Annotated[str, Opt()]):
    """Point a target at an earlier build

    Args:
        target: which target
        to: build to go back to
    """
    ctx.changed(to != "2026.11.30-1")
    return {"target": target, "build": to, "why": ctx.why}


@app.command(effects="non_idempotent", examples=["tool promote --build 2026.11.30-1"],
             person_only={"reason": "promoting to production needs a person's sign-off",
                          "how": "run `tool promote --build BUILD` yourself in a terminal"})
def promote(build: Annotated[str, Opt()]):
    """Promote a build to production for good

    Args:
        build: build to promote
    """
    return {"target": "prod", "build": build, "promoted": True}


if __name__ == "__main__":
    run(app)
