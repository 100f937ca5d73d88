"""Tasks that agents claim: issue 34's part B in one program (tests/test_contract_34b.py).

Each task has an owner (the agent that claimed it). `done` and `drop` are self-scoped: an
agent touches only its own tasks; `close` is an ambiguous word (done or drop); `report` takes
and returns text a third party wrote; `claim` takes its request as JSON (`--input`); `done`
has a read-only MCP twin `done_plan`; `finish` is deprecated, removed in 3.0; `whoami` shows
`ctx.session`. The tasks live in TASKS_FILE.
"""

import json
import os

from workbench import Argument, Command, Fail, Option, Program, run


def _load():
    try:
        with open(os.environ.get("TASKS_FILE", "tasks.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {"next_id": 1, "tasks": []}


def _save(store):
    with open(os.environ.get("TASKS_FILE", "tasks.json"), "w", encoding="utf-8") as handle:
        json.dump(store, handle)


def _task(store, task_id):
    for task in store["tasks"]:
        if task["id"] == task_id:
            return task
    raise Fail("not_found", f"no task {task_id}", exit=3, fix="mine")


def owner(ctx):
    return _task(_load(), ctx.args.id)["owner"]


def claim(ctx):
    store = _load()
    task = {"id": store["next_id"], "title": ctx.args.title, "owner": ctx.options.owner
            or ctx.agent or "person", "priority": ctx.options.priority, "done": False}
    store["next_id"] += 1
    store["tasks"].append(task)
    _save(store)
    return task


def mine(ctx):
    who = ctx.options.agent or ctx.agent
    return {"tasks": [t for t in _load()["tasks"] if t["owner"] == who]}


def done_plan(ctx):
    task = _task(_load(), ctx.args.id)
    return {"close": task["id"], "was_done": task["done"]}


def done(ctx):
    store = _load()
    task = _task(store, ctx.args.id)
    ctx.changed(not task["done"])
    task["done"] = True
    _save(store)
    return task


def drop(ctx):
    store = _load()
    _task(store, ctx.args.id)
    store["tasks"] = [t for t in store["tasks"] if t["id"] != ctx.args.id]
    _save(store)
    return {"dropped": ctx.args.id}


def report(ctx):
    if ctx.options.body.startswith("confirm:") and not ctx.options.follow:
        ctx.action_required("confirm", "a report that asks for confirmation", next=[
            {"command": ["report", "--body", ctx.options.body, "--follow"],
             "when": "to file it"}])
    if ctx.options.follow:
        ctx.next(["report", "--body", ctx.options.body], why="to report it again")
        ctx.next(["mine"], why="to see your tasks")
    return {"body": ctx.options.body, "summary": f"{len(ctx.options.body)} characters"}


def feed(ctx):
    yield {"from": "a web page", "text": ctx.options.text}
    yield {"from": "us", "text": "all-fine"}
    if ctx.options.follow:   # a value from the streamed data: never in a next
        ctx.next(["report", "--body", "all-fine"], why="to report the last item")


def whoami(ctx):
    return {"agent": ctx.agent, "session": ctx.session}


TASK = Argument("id", type="integer", description="the task's id")

program = Program(
    name="tasks", version="2.1.0", description="Tasks that agents claim",
    ambiguous={"close": [{"means": "mark a task done", "use": "done {args} {flags}"},
                         {"means": "drop a task", "use": "drop {args} {flags}"}],
               "take": [{"means": "claim a new task", "use": "claim {args} {flags}"},
                        {"means": "list your tasks", "use": "mine {flags}"}]},
    commands=[
        Command(name="claim", description="Claim a new task", effects="non_idempotent",
                destructive=False, input_json=True,
                arguments=[Argument("title", description="what the task is")],
                options={"owner": Option(type="string", description="who owns it"),
                         "priority": Option(type="integer", default=2, min=1, max=5,
                                            description="1 (high) to 5 (low)"),
                         "token": Option(type="string", sensitive=True, env="TASKS_TOKEN",
                                         description="access token")},
                examples=["tasks claim 'fix the build'"], run=claim),
        Command(name="mine", description="List your tasks", effects="read_only",
                options={"agent": Option(type="string", description="whose tasks")},
                examples=["tasks mine"], run=mine),
        Command(name="done", description="Mark one of your tasks done", effects="idempotent",
                self_scope=owner, instead="mine --agent {agent}", plan=done_plan,
                plan_tool=True, arguments=[TASK], options={
                    "note": Option(type="string", description="a closing note")},
                examples=["tasks done 1"], run=done),
        Command(name="drop", description="Drop one of your tasks", effects="idempotent",
                destructive=True, self_scope=owner, arguments=[TASK],
                examples=["tasks drop 1"], run=drop),
        Command(name="finish", description="Old name of done", effects="idempotent",
                deprecated="renamed", replaced_by="done", removed_in="3.0",
                arguments=[TASK], options={
                    "quiet": Option(type="boolean", description="say less",
                                    deprecated="does nothing", removed_in="3.0")},
                examples=["tasks finish 1"], run=done),
        Command(name="report", description="File a report someone wrote", effects="read_only",
                options={"body": Option(type="string", required=True, untrusted=True,
                                        description="the report's text, as its author wrote it"),
                         "follow": Option(type="boolean", description="suggest what next")},
                output={"type": "object",
                        "properties": {"body": {"type": "string", "x-burgee-untrusted": True},
                                       "summary": {"type": "string"}},
                        "required": ["body", "summary"]},
                examples=["tasks report --body 'it broke'"], run=report),
        Command(name="feed", description="Stream what others wrote", effects="read_only",
                options={"text": Option(type="string", default="hi", untrusted=True,
                                        description="text someone wrote"),
                         "follow": Option(type="boolean", description="suggest what next")},
                output={"type": "array", "items": {"type": "object", "properties": {
                    "from": {"type": "string"},
                    "text": {"type": "string", "x-burgee-untrusted": True}}}},
                examples=["tasks feed"], run=feed),
        Command(name="whoami", description="Who is calling, and from which session",
                effects="read_only", examples=["tasks whoami"], run=whoami),
    ],
)

if __name__ == "__main__":
    run(program)
