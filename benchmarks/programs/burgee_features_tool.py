"""The benchmark's small program in burgee, declaring every feature of issue 30: shared
options and setup, an env prefix, long help, ranges, a path check, a date, a UUID, a custom
value type, requires and conflicts, a count, a tuple, an off switch, a hidden option, a
prompt, an argument from the environment and a variadic argument before a fixed one."""
from workbench import Argument, Command, Option, Program, run


class Percent:
    def convert(self, raw):
        return float(raw.rstrip("%")) / 100

    def json_schema(self):
        return {"type": "string"}

    def describe(self):
        return "a percentage"


def connect(ctx):
    ctx.obj = {"verbose": ctx.options.verbose}


program = Program(
    name="tool", version="1.0.0", description="Ship builds", env_prefix="TOOL_", setup=connect,
    options={"verbose": Option(count=True, short="v", max=3, description="more output"),
             "config": Option(type="path", kind="file", description="a config file")},
    commands=[
        Command(name="deploy", description="Deploy a build", effects="non_idempotent",
                help="Ships the build to the target.\n\nIt waits for health checks.",
                epilog="See the runbook.",
                options={"target": Option(type="string", required=True,
                                          description="where to deploy"),
                         "yes": Option(type="boolean", description="skip the confirmation"),
                         "replicas": Option(type="integer", default=1, min=1, max=50,
                                            description="how many"),
                         "at": Option(type="date", description="when"),
                         "build_id": Option(type="uuid", description="which build"),
                         "canary": Option(type=Percent(), description="traffic share"),
                         "notify": Option(type="boolean", requires=["channel"],
                                          description="tell people"),
                         "channel": Option(description="where to tell them"),
                         "quiet": Option(type="boolean", conflicts=["notify"],
                                         description="tell nobody"),
                         "region": Option(type="number", nargs=2, description="lat lon"),
                         "fast": Option(type="boolean", off="--careful", description="skip waits"),
                         "trace": Option(type="integer", hidden=True, description="tracing"),
                         "token": Option(sensitive=True, prompt="API token", hide_input=True,
                                         description="the API token")},
                arguments=[Argument("files", type="path", variadic=True, required=False,
                                    description="extra files"),
                           Argument("stage", env="TOOL_STAGE", description="which stage")],
                examples=["tool deploy prod --target staging --yes --token $TOOL_DEPLOY_TOKEN"],
                run=lambda ctx: {"target": ctx.options.target}),
        Command(name="status", description="Show status", effects="read_only",
                options={"detail": Option(type="boolean", description="more detail")},
                run=lambda ctx: {"ok": True}),
    ])

if __name__ == "__main__":
    run(program)
