"""A small user program that must pass `mypy --strict` (tests/test_types.py): the typed API's
decorators keep the functions' types, and the declared API's classes are annotated."""

from __future__ import annotations

from typing import Annotated, Literal, Protocol

from workbench import Argument, Command, Context, Fail, Option, Program, run
from workbench.testing import Runner
from workbench.typed import App, Arg, Opt

app = App("ship", version="1.0.0", description="Ship builds")


@app.callback()
def main(verbose: bool = False) -> None:
    """Ship builds to their targets."""


@app.command(effects="read_only", examples=["ship status --target prod"])
def status(target: Literal["staging", "prod"] = "staging") -> dict[str, str]:
    """Show what is deployed where.

    Args:
        target: which target
    """
    return {"target": target, "build": "b-12"}


@app.command(effects="idempotent", examples=["ship deploy b-12 --target prod"])
def deploy(build: Annotated[str, Arg("the build to ship")],
           target: Annotated[str, Opt(short="t")] = "staging") -> dict[str, str]:
    """Deploy a build."""
    if build == "none":
        raise Fail("not_found", "no such build", hint="list builds first", exit=3)
    return {"deployed": build, "target": target}


sync = app.group("sync", "Keep targets in step")


@sync.command(effects="read_only", examples=["ship sync check"])
def check() -> list[str]:
    """Compare the targets."""
    return ["staging", "prod"]


shown: dict[str, str] = status("prod")   # a decorated function keeps its own type


class HelloOptions(Protocol):
    """What `ctx.options` holds for `hello` (docs/reference.md, "Typed ctx.options")."""
    name: str
    loud: bool


def prepare(ctx: Context) -> None:
    ctx.obj = {"punctuation": "!"}


def hello(ctx: Context[HelloOptions]) -> dict[str, object]:
    greeting: str = f"hello {ctx.options.name}{ctx.obj['punctuation']}"
    return {"greeting": greeting.upper() if ctx.options.loud else greeting,
            "agent": ctx.agent, "rest": ctx.args.extra}


program = Program(name="hello", version="1.0.0", description="Say hello", setup=prepare, commands=[
    Command(name="hello", description="Say hello", effects="read_only",
            options={"name": Option(type="string", default="world", description="who"),
                     "loud": Option(type="boolean", description="shout")},
            arguments=[Argument("extra", description="more words", required=False)],
            examples=["hello hello --name Ada"], run=hello,
            text=lambda data: str(data["greeting"])),
])
assert Runner(program).invoke(["hello", "--name", "Ada", "--json"]).json["data"]["greeting"] == \
    "hello Ada!"

result = Runner(app).call("status", {"target": "prod"})
assert result.envelope is not None and result.exit == 0
outcome: int = Runner(program).invoke(["hello", "--json"]).exit

if __name__ == "__main__":
    run(program)
