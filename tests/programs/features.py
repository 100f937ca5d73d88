"""Every declaration feature of issue 30 in one program (the data form; features_typed.py is
the same program with type hints): shared options and setup at the program and a group, an
env prefix, long help and an epilog, ranges, path checks, dates, datetimes, UUIDs, a custom
value type, requires and conflicts, a count, tuples, an off switch, a hidden option, prompts,
an argument read from the environment and a variadic argument before a fixed one."""

from workbench import Argument, Command, Group, Option, Program


class Percent:
    """A custom value type: `50%` (or `50`) is 0.5."""

    name = "percent"

    def convert(self, raw):
        value = float(raw.strip().rstrip("%"))
        if not 0 <= value <= 100:
            raise ValueError("a share is from 0% to 100%")
        return value / 100

    def json_schema(self):
        return {"type": "string", "pattern": "^[0-9.]+%?$"}

    def describe(self):
        return "a percentage, e.g. 50%"

    def suggest(self, raw):
        try:
            value = float(raw.strip().rstrip("%"))
        except ValueError:
            return None
        return f"{min(max(value, 0), 100):g}%"


def open_store(ctx):
    ctx.obj = {"opened": ["program"]}


def open_jobs(ctx):
    ctx.obj["opened"].append("jobs")


def add(ctx):
    return {"options": dict(ctx.options), "args": dict(ctx.args), "opened": ctx.obj["opened"]}


def show(ctx):
    return {"name": ctx.args.name, "queue": ctx.options.queue, "opened": ctx.obj["opened"]}


PROGRAM_OPTIONS = {
    "store": Option(type="path", default=".", kind="dir", description="where jobs are kept"),
    "verbose": Option(count=True, short="v", max=3, description="more output: -v, -vv, -vvv"),
}

ADD_OPTIONS = {
    "priority": Option(type="integer", min=1, max=9, default=5, description="1 (low) to 9"),
    "weight": Option(type="number", min=0, max=1.5, description="how heavy"),
    "at": Option(type="datetime", description="when it runs"),
    "on": Option(type="date", description="the day it is for"),
    "job_id": Option(type="uuid", description="its id"),
    "share": Option(type=Percent(), description="its share of the queue"),
    "point": Option(type="number", nargs=2, placeholder="<x> <y>", description="where"),
    "label": Option(type="list", nargs=2, placeholder="<key> <value>", description="a label"),
    "notify": Option(type="boolean", requires=["email"], description="mail when done"),
    "email": Option(description="who to mail"),
    "quiet": Option(type="boolean", conflicts=["notify"], description="say nothing"),
    "urgent": Option(type="boolean", off="--relaxed", description="run it first"),
    "trace_level": Option(type="integer", hidden=True, description="internal tracing"),
    "token": Option(sensitive=True, prompt="API token", hide_input=True,
                    confirmation_prompt=True, description="the API token"),
}

program = Program(
    name="kit", version="1.0.0", description="Every declaration feature at once",
    env_prefix="KIT_", options=PROGRAM_OPTIONS, setup=open_store,
    commands=[
        Group("jobs", "Scheduled jobs", setup=open_jobs,
              options={"queue": Option(default="main", description="the queue")},
              commands=[
                  Command("add", "Add a job", effects="non_idempotent",
                          help="A job runs at a time, with a priority.\n\nIt is kept in the "
                               "store.",
                          epilog="Jobs run in priority order.",
                          options=ADD_OPTIONS,
                          arguments=[Argument("inputs", type="path", variadic=True, exists=True,
                                              kind="file", description="files it reads"),
                                     Argument("target", type="path", writable=True,
                                              description="where it writes")],
                          run=add,
                          examples=["kit jobs add <inputs> <target> --token $KIT_JOBS_ADD_TOKEN"]),
                  Command("show", "Show a job", effects="read_only",
                          arguments=[Argument("name", env="KIT_JOB", description="the job")],
                          run=show, examples=["kit jobs show nightly"]),
              ]),
    ],
)


if __name__ == "__main__":
    from workbench import run
    run(program)
