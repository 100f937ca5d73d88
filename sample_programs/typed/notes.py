"""The notes sample (sample_programs/notes.py) declared with type hints: the same Program.

It reuses the data sample's store (`workbench.samples.notes`, the bundled copy).

    python sample_programs/typed/notes.py add "buy milk" --tag home
    python sample_programs/typed/notes.py list --json
"""

from dataclasses import dataclass
from typing import Annotated, Optional, TypedDict

from workbench import Fail, run
from workbench.samples.notes import _find, _load, _save
from workbench.typed import App, Arg, Opt

Store = Annotated[Optional[str], Opt(
    "JSON file holding the notes (default ~/.local/state/burgee-notes/notes.json)",
    env="NOTES_FILE")]
Remote = Annotated[str, Opt("remote to sync with")]
NoteId = Annotated[int, Arg("the note's id")]


@dataclass
class Note:
    id: int
    text: str
    tags: list[str]


class NoteList(TypedDict):
    notes: list[Note]
    count: int


NOT_FOUND = {"code": "not_found", "exit": 3, "when": "no note has that id"}

app = App("notes", version="0.3.0", description="Keep short notes with tags")


@app.command(effects="non_idempotent", destructive=False,
             examples=["notes add 'buy milk' --tag home"],
             text=lambda note: f"added note {note['id']}")
def add(ctx, text: Annotated[str, Arg(stdin=True)],
        tag: Annotated[list[str], Opt(short="t")] = [], store: Store = None):
    """Add a note

    Args:
        text: the note's text; - reads stdin
        tag: a tag
    """
    data = _load(ctx)
    note = {"id": data["next_id"], "text": text, "tags": sorted(set(tag))}
    data["next_id"] += 1
    data["notes"].append(note)
    _save(ctx, data)
    return note


@app.command("list", effects="read_only", aliases=["ls"],
             examples=["notes list", "notes list --tag home"],
             text=lambda d: "\n".join(f"{n['id']:>3}  {n['text']}  {' '.join('#' + t for t in n['tags'])}".rstrip()
                                      for n in d["notes"]) or "no notes")
def list_notes(ctx, tag: Optional[str] = None, store: Store = None) -> NoteList:
    """List notes, optionally by tag

    Args:
        tag: only notes with this tag
    """
    notes = [Note(**n) for n in _load(ctx)["notes"] if not tag or tag in n["tags"]]
    return {"notes": notes, "count": len(notes)}


@app.command(effects="read_only", examples=["notes show 1", "notes show 999"],
              errors=[NOT_FOUND])
def show(ctx, id: NoteId, store: Store = None) -> Note:
    """Show one note"""
    return Note(**_find(_load(ctx), id))


@app.command("tag", effects="idempotent", examples=["notes tag 1 --tag urgent"],
              errors=[NOT_FOUND])
def tag_note(ctx, id: NoteId, tag: Annotated[list[str], Opt(short="t")], store: Store = None):
    """Add tags to a note

    Args:
        tag: a tag to add
    """
    data = _load(ctx)
    note = _find(data, id)
    tags = sorted(set(note["tags"]) | set(tag))
    ctx.changed(tags != note["tags"])
    note["tags"] = tags
    _save(ctx, data)
    return note


@app.command(effects="idempotent", destructive=True, examples=["notes remove 1"])
def remove(ctx, id: NoteId, store: Store = None):
    """Remove a note (removing it twice changes nothing)"""
    data = _load(ctx)
    kept = [n for n in data["notes"] if n["id"] != id]
    removed = len(kept) != len(data["notes"])
    ctx.changed(removed)
    data["notes"] = kept
    _save(ctx, data)
    return {"id": id, "removed": removed}


@app.command(effects="withheld", examples=["notes purge --yes"],
              errors=[{"code": "cancelled", "exit": 1, "when": "the person said no"}])
def purge(ctx, yes: bool = False, store: Store = None):
    """Delete every note (command line only)

    Args:
        yes: skip the confirmation
    """
    if not ctx.confirm("delete every note?"):
        raise Fail("cancelled", "nothing deleted")
    data = _load(ctx)
    count = len(data["notes"])
    _save(ctx, {"next_id": data["next_id"], "notes": []})
    return {"deleted": count}


sync = app.group("sync", "Sync notes with a remote")


@sync.command(effects="non_idempotent", open_world=True, title="Push notes to the remote",
              examples=["notes sync push"],
               errors=[{"code": "unauthorized", "exit": 2,
                        "when": "no token: set NOTES_TOKEN or pass --token"}])
def push(ctx, token: Annotated[Optional[str], Opt(env="NOTES_TOKEN", sensitive=True)] = None,
         remote: Remote = "https://notes.example.invalid", store: Store = None):
    """Push notes to the remote

    Args:
        token: access token for the remote
    """
    data = _load(ctx)
    if not token:
        raise Fail("unauthorized", "pushing needs a token", exit=2,
                   hint="set NOTES_TOKEN or pass --token", fix="sync push --token <token>")
    return {"remote": remote, "pushed": len(data["notes"])}


@sync.command("status", effects="read_only", open_world=True,
              examples=["notes sync status"])
def sync_status(ctx, remote: Remote = "https://notes.example.invalid", store: Store = None):
    """Compare local notes with the remote"""
    return {"remote": remote, "local": len(_load(ctx)["notes"])}


if __name__ == "__main__":
    run(app)
