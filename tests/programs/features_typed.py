"""tests/programs/features.py declared with type hints: the same Program, byte for byte."""

import os
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Optional
from uuid import UUID

from workbench.typed import App, Arg, Opt

here = os.path.dirname(os.path.abspath(__file__))
Percent = __import__("runpy").run_path(os.path.join(here, "features.py"))["Percent"]

app = App("kit", version="1.0.0", description="Every declaration feature at once",
          env_prefix="KIT_")
jobs = app.group("jobs", "Scheduled jobs")


@app.callback()
def open_store(ctx,
               store: Annotated[Path, Opt("where jobs are kept", kind="dir")] = Path("."),
               verbose: Annotated[int, Opt("more output: -v, -vv, -vvv", count=True, short="v",
                                           max=3)] = 0):
    ctx.obj = {"opened": ["program"]}


@jobs.callback()
def open_jobs(ctx, queue: Annotated[str, Opt("the queue")] = "main"):
    ctx.obj["opened"].append("jobs")


@jobs.command(effects="non_idempotent", epilog="Jobs run in priority order.",
              examples=["kit jobs add <inputs> <target> --token $KIT_JOBS_ADD_TOKEN"])
def add(ctx,
        inputs: Annotated[list[Path], Arg("files it reads", exists=True, kind="file")],
        target: Annotated[Path, Arg("where it writes", writable=True)],
        priority: Annotated[int, Opt("1 (low) to 9", min=1, max=9)] = 5,
        weight: Annotated[Optional[float], Opt("how heavy", min=0, max=1.5)] = None,
        at: Annotated[Optional[datetime], Opt("when it runs")] = None,
        on: Annotated[Optional[date], Opt("the day it is for")] = None,
        job_id: Annotated[Optional[UUID], Opt("its id")] = None,
        share: Annotated[Optional[float], Opt("its share of the queue", type=Percent())] = None,
        point: Annotated[Optional[tuple[float, float]], Opt("where",
                                                            placeholder="<x> <y>")] = None,
        label: Annotated[list[tuple[str, str]], Opt("a label",
                                                    placeholder="<key> <value>")] = [],
        notify: Annotated[bool, Opt("mail when done", requires=["email"])] = False,
        email: Annotated[Optional[str], Opt("who to mail")] = None,
        quiet: Annotated[bool, Opt("say nothing", conflicts=["notify"])] = False,
        urgent: Annotated[bool, Opt("run it first", off="--relaxed")] = False,
        trace_level: Annotated[Optional[int], Opt("internal tracing", hidden=True)] = None,
        token: Annotated[Optional[str], Opt("the API token", sensitive=True,
                                            prompt="API token", hide_input=True,
                                            confirmation_prompt=True)] = None):
    """Add a job

    A job runs at a time, with a priority.

    It is kept in the store.
    """
    return {"options": dict(ctx.options), "args": dict(ctx.args), "opened": ctx.obj["opened"]}


@jobs.command(effects="read_only", examples=["kit jobs show nightly"])
def show(ctx, name: Annotated[str, Arg("the job", env="KIT_JOB")]):
    """Show a job"""
    return {"name": name, "queue": ctx.options.queue, "opened": ctx.obj["opened"]}


if __name__ == "__main__":
    from workbench import run
    run(app)
