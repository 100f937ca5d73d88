"""A small task list written with Click, served by burgee through the Click adapter.

    python sample_programs/click_app.py add "write docs" --priority high --tag docs
    burgee run sample_programs/click_app.py list --json
    burgee dev sample_programs/click_app.py

Tasks live in a JSON file: --db, or $TASKS_DB, or burgee-samples/tasks.json under
$XDG_STATE_HOME (~/.local/state).
"""

import json
import os

import click

PRIORITIES = ["low", "normal", "high"]


def _load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {"next": 1, "tasks": []}


def _save(path, data):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)


@click.group(name="tasks")
@click.option("--db", envvar="TASKS_DB", type=click.Path(dir_okay=False),
              help="The task file (default: tasks.json in the state folder).")
@click.pass_context
def cli(ctx, db):
    """Keep a small list of tasks."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    ctx.obj = db or os.path.join(state, "burgee-samples", "tasks.json")


@cli.command()
@click.argument("title")
@click.option("--priority", "-p", type=click.Choice(PRIORITIES), default="normal",
              help="How urgent it is.")
@click.option("--tag", "-t", "tags", multiple=True, help="A label; repeat for more.")
@click.option("--due-days", type=click.IntRange(0, 365), default=None,
              help="Due in this many days.")
@click.pass_obj
def add(db, title, priority, tags, due_days):
    """Add a task."""
    data = _load(db)
    task = {"id": data["next"], "title": title, "priority": priority, "tags": list(tags),
            "due_days": due_days, "done": False}
    data["next"] += 1
    data["tasks"].append(task)
    _save(db, data)
    click.echo(f"added task {task['id']}: {title}")


@cli.command(name="list")
@click.option("--status", type=click.Choice(["open", "done", "all"]), default="open",
              help="Which tasks to show.")
@click.option("--output", "-o", type=click.Choice(["text", "json"]), default="text",
              help="Print text lines or JSON.")
@click.option("--limit", type=int, default=20, help="At most this many.")
@click.pass_obj
def list_tasks(db, status, output, limit):
    """List tasks."""
    tasks = [t for t in _load(db)["tasks"]
             if status == "all" or t["done"] == (status == "done")][:limit]
    if output == "json":
        click.echo(json.dumps(tasks))
        return
    for task in tasks:
        mark = "x" if task["done"] else " "
        click.echo(f"[{mark}] {task['id']:>3} {task['priority']:<6} {task['title']}")


@cli.command()
@click.argument("task_id", type=click.IntRange(min=1))
@click.option("--undo", is_flag=True, help="Mark it open again.")
@click.pass_obj
def done(db, task_id, undo):
    """Mark a task done."""
    data = _load(db)
    for task in data["tasks"]:
        if task["id"] == task_id:
            task["done"] = not undo
            _save(db, data)
            click.echo(f"task {task_id} {'reopened' if undo else 'done'}")
            return
    click.echo(f"no task {task_id}", err=True)
    raise SystemExit(3)


@cli.group()
def tags():
    """Work with tags."""


@tags.command(name="list")
@click.option("--counts/--no-counts", default=True, help="Show how many tasks carry each tag.")
@click.pass_obj
def tags_list(db, counts):
    """List the tags in use."""
    seen = {}
    for task in _load(db)["tasks"]:
        for tag in task["tags"]:
            seen[tag] = seen.get(tag, 0) + 1
    click.echo(json.dumps(seen if counts else sorted(seen)))


@tags.command()
@click.argument("old")
@click.argument("new")
@click.option("--dry-run", is_flag=True, help="Show what would change.")
@click.pass_obj
def rename(db, old, new, dry_run):
    """Rename a tag on every task."""
    data = _load(db)
    changed = 0
    for task in data["tasks"]:
        if old in task["tags"]:
            task["tags"] = [new if t == old else t for t in task["tags"]]
            changed += 1
    if not dry_run:
        _save(db, data)
    click.echo(f"{'would rename' if dry_run else 'renamed'} {old} -> {new} on {changed} tasks")


if __name__ == "__main__":
    cli()
