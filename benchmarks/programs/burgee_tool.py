"""The benchmark's small program, declared with burgee (DESIGN §3, unchanged)."""
from workbench import Program, Command, Option, run

program = Program(name="tool", version="1.0.0", description="Ship builds", commands=[
    Command(name="deploy", description="Deploy a build", effects="non_idempotent",
            options={"target": Option(type="string", required=True, description="where to deploy"),
                     "yes": Option(type="boolean", description="skip the confirmation"),
                     "replicas": Option(type="integer", default=1, description="how many")},
            examples=["tool deploy --target staging --yes"], run=lambda ctx: {"target": ctx.options.target}),
    Command(name="status", description="Show status", effects="read_only",
            options={"verbose": Option(type="boolean", description="more detail")}, run=lambda ctx: {"ok": True}),
])

if __name__ == "__main__":
    run(program)
