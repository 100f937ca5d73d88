"""A notes store: groups; read-only, idempotent and non-idempotent commands; a not-found error;
an output schema; an env-backed option (NOTES_FILE) and a sensitive one (NOTES_TOKEN).

Bundled with the package: `burgee dev` with no FILE opens it (also at sample_programs/notes.py).

    python sample_programs/notes.py add "buy milk" --tag home
    python sample_programs/notes.py list --json
"""

import json
import os

from workbench import Argument, Command, Fail, Group, Option, Program, run

STORE = Option(type="string", env="NOTES_FILE",
               description="JSON file holding the notes (default ~/.local/state/burgee-notes/notes.json)")

NOTE_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "text": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "text", "tags"],
    "additionalProperties": False,
}


def _path(ctx):
    if ctx.options.store:
        return ctx.options.store
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "burgee-notes", "notes.json")


def _load(ctx):
    try:
        with open(_path(ctx), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {"next_id": 1, "notes": []}


def _save(ctx, store):
    path = _path(ctx)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(store, handle, indent=1)
    os.replace(temporary, path)


def _find(store, note_id):
    for note in store["notes"]:
        if note["id"] == note_id:
            return note
    raise Fail("not_found", f"no note with id {note_id}", exit=3,
               hint="list the notes to see their ids", fix="list")


def add(ctx):
    store = _load(ctx)
    note = {"id": store["next_id"], "text": ctx.args.text, "tags": sorted(set(ctx.options.tag))}
    store["next_id"] += 1
    store["notes"].append(note)
    _save(ctx, store)
    return note


def list_notes(ctx):
    notes = _load(ctx)["notes"]
    if ctx.options.tag:
        notes = [n for n in notes if ctx.options.tag in n["tags"]]
    return {"notes": notes, "count": len(notes)}


def show(ctx):
    return _find(_load(ctx), ctx.args.id)


def tag(ctx):
    store = _load(ctx)
    note = _find(store, ctx.args.id)
    tags = sorted(set(note["tags"]) | set(ctx.options.tag))
    ctx.changed(tags != note["tags"])
    note["tags"] = tags
    _save(ctx, store)
    return note


def remove(ctx):
    store = _load(ctx)
    kept = [n for n in store["notes"] if n["id"] != ctx.args.id]
    removed = len(kept) != len(store["notes"])
    ctx.changed(removed)
    store["notes"] = kept
    _save(ctx, store)
    return {"id": ctx.args.id, "removed": removed}


def purge(ctx):
    if not ctx.confirm("delete every note?"):
        raise Fail("cancelled", "nothing deleted")
    store = _load(ctx)
    count = len(store["notes"])
    _save(ctx, {"next_id": store["next_id"], "notes": []})
    return {"deleted": count}


def push(ctx):
    store = _load(ctx)
    if not ctx.options.token:
        raise Fail("unauthorized", "pushing needs a token", exit=2,
                   hint="set NOTES_TOKEN or pass --token", fix="sync push --token <token>")
    return {"remote": ctx.options.remote, "pushed": len(store["notes"])}


def sync_status(ctx):
    return {"remote": ctx.options.remote, "local": len(_load(ctx)["notes"])}


NOT_FOUND = {"code": "not_found", "exit": 3, "when": "no note has that id"}

REMOTE = Option(type="string", default="https://notes.example.invalid", description="remote to sync with")

program = Program(
    name="notes", version="0.3.0", description="Keep short notes with tags",
    commands=[
        Command(name="add", description="Add a note", effects="non_idempotent",
                destructive=False,   # adding twice makes two notes, and destroys nothing
                arguments=[Argument("text", description="the note's text; - reads stdin", stdin=True)],
                options={"tag": Option(type="list", description="a tag", short="t"),
                         "store": STORE},
                examples=["notes add 'buy milk' --tag home"], run=add,
                text=lambda note: f"added note {note['id']}"),
        Command(name="list", description="List notes, optionally by tag", effects="read_only",
                aliases=["ls"],
                options={"tag": Option(type="string", description="only notes with this tag"),
                         "store": STORE},
                output={"type": "object",
                        "properties": {"notes": {"type": "array", "items": NOTE_SCHEMA},
                                       "count": {"type": "integer"}},
                        "required": ["notes", "count"]},
                examples=["notes list", "notes list --tag home"], run=list_notes,
                text=lambda d: "\n".join(f"{n['id']:>3}  {n['text']}  {' '.join('#' + t for t in n['tags'])}".rstrip()
                                         for n in d["notes"]) or "no notes"),
        Command(name="show", description="Show one note", effects="read_only",
                arguments=[Argument("id", type="integer", description="the note's id")],
                options={"store": STORE}, output=NOTE_SCHEMA,
                errors=[NOT_FOUND], examples=["notes show 1", "notes show 999"], run=show),
        Command(name="tag", description="Add tags to a note", effects="idempotent",
                arguments=[Argument("id", type="integer", description="the note's id")],
                options={"tag": Option(type="list", required=True, description="a tag to add",
                                       short="t"),
                         "store": STORE},
                errors=[NOT_FOUND], examples=["notes tag 1 --tag urgent"], run=tag),
        Command(name="remove", description="Remove a note (removing it twice changes nothing)",
                effects="idempotent", destructive=True,   # repeatable, yet the note is gone
                arguments=[Argument("id", type="integer", description="the note's id")],
                options={"store": STORE}, examples=["notes remove 1"], run=remove),
        Command(name="purge", description="Delete every note (command line only)", effects="withheld",
                options={"yes": Option(type="boolean", description="skip the confirmation"),
                         "store": STORE},
                errors=[{"code": "cancelled", "exit": 1, "when": "the person said no"}],
                examples=["notes purge --yes"], run=purge),
        Group(name="sync", description="Sync notes with a remote", commands=[
            Command(name="push", description="Push notes to the remote", effects="non_idempotent",
                    open_world=True, title="Push notes to the remote",
                    options={"token": Option(type="string", env="NOTES_TOKEN", sensitive=True,
                                             description="access token for the remote"),
                             "remote": REMOTE, "store": STORE},
                    errors=[{"code": "unauthorized", "exit": 2,
                             "when": "no token: set NOTES_TOKEN or pass --token"}],
                    examples=["notes sync push"], run=push),
            Command(name="status", description="Compare local notes with the remote",
                    effects="read_only", open_world=True,
                    options={"remote": REMOTE, "store": STORE},
                    examples=["notes sync status"], run=sync_status),
        ]),
    ],
)

if __name__ == "__main__":
    run(program)
