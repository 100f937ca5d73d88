"""A deploy tool with a confirmation: the program named `tool` from the design.

    python sample_programs/deploy.py deploy --target staging --yes
    CLAUDECODE=1 python sample_programs/deploy.py deploy --target prod --json   # exit 4, with `next`
"""

from workbench import Command, Fail, Option, Program, run

TARGETS = ("staging", "prod", "canary")
UNKNOWN_TARGET = {"code": "unknown_target", "exit": 3, "when": "no deploy target has that name"}
CANCELLED = {"code": "cancelled", "exit": 1, "when": "the person said no"}


def deploy(ctx):
    target = ctx.options.target
    if target not in TARGETS:
        raise Fail("unknown_target", f"no deploy target named {target!r}",
                   hint="targets: " + ", ".join(TARGETS), exit=3)
    if not ctx.options.yes and not ctx.interactive:
        ctx.action_required(
            reason="confirm",
            message=f"deploying to {target} needs confirmation",
            next=[{"command": f"deploy --target {target} --yes",
                   "when": "once you have reviewed the plan"}],
        )
    if not ctx.options.yes and not ctx.confirm(f"deploy to {target}?"):
        raise Fail("cancelled", "deploy cancelled", exit=1)
    return {"target": target, "build": ctx.options.build, "agent": ctx.agent}


def status(ctx):
    return {"target": ctx.options.target, "build": "2026.11.30-1", "healthy": True}


def rollback(ctx):
    ctx.changed(ctx.options.to != "2026.11.30-1")
    return {"target": ctx.options.target, "build": ctx.options.to}


program = Program(
    name="tool", version="1.0.0", description="Ship builds",
    commands=[
        Command(
            name="deploy", description="Deploy a build", effects="non_idempotent",
            options={
                "target": Option(type="string", required=True, description="where to deploy",
                                 short="t"),
                "yes": Option(type="boolean", description="skip the confirmation", short="y"),
                "build": Option(type="string", default="latest", description="build to ship"),
            },
            errors=[UNKNOWN_TARGET, CANCELLED],
            examples=["tool deploy --target staging --yes"],
            run=deploy,
            text=lambda d: f"deployed {d['build']} to {d['target']}",
        ),
        Command(
            name="status", description="Show what is deployed where", effects="read_only",
            options={"target": Option(type="enum", choices=TARGETS, default="staging",
                                      description="which target")},
            examples=["tool status", "tool status --target prod"],
            run=status,
        ),
        Command(
            name="rollback", description="Point a target at an earlier build", effects="idempotent",
            options={"target": Option(type="enum", choices=TARGETS, required=True,
                                      description="which target"),
                     "to": Option(type="string", required=True, description="build to go back to")},
            examples=["tool rollback --target staging --to 2026.11.29-3"],
            run=rollback,
        ),
    ],
)

if __name__ == "__main__":
    run(program)
