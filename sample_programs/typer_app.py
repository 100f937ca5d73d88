"""A small bookmark keeper written with Typer, served by burgee through the Typer adapter.

    python sample_programs/typer_app.py add https://example.org --title Example --rating 4
    burgee run sample_programs/typer_app.py list --json
    burgee dev sample_programs/typer_app.py

Bookmarks live in a JSON file: --store, or $BOOKMARKS_FILE, or burgee-samples/bookmarks.json
under $XDG_STATE_HOME (~/.local/state).
"""

import json
import os
from enum import Enum
from typing import Annotated, Optional

import typer

app = typer.Typer(name="marks", help="Keep bookmarks with tags and ratings.",
                  add_completion=False)
tags_app = typer.Typer(help="Look at tags.")
app.add_typer(tags_app, name="tags")

class Sort(str, Enum):
    added = "added"
    title = "title"
    rating = "rating"


state = {"store": None}


@app.callback()
def main(store: Annotated[Optional[str], typer.Option(
        envvar="BOOKMARKS_FILE", help="The bookmark file (default: in the state folder).")] = None):
    """Keep bookmarks with tags and ratings."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    state["store"] = store or os.path.join(base, "burgee-samples", "bookmarks.json")


def _load():
    try:
        with open(state["store"], encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return []


def _save(marks):
    os.makedirs(os.path.dirname(state["store"]) or ".", exist_ok=True)
    with open(state["store"], "w", encoding="utf-8") as handle:
        json.dump(marks, handle, indent=1)


@app.command()
def add(url: Annotated[str, typer.Argument(help="The address to keep.")],
        title: Annotated[Optional[str], typer.Option(help="A title; the URL if left out.")] = None,
        tag: Annotated[Optional[list[str]], typer.Option("--tag", "-t",
                                                         help="A tag; repeat for more.")] = None,
        rating: Annotated[int, typer.Option(min=1, max=5, help="1 to 5 stars.")] = 3):
    """Add a bookmark."""
    if not url.startswith(("http://", "https://")):
        raise typer.BadParameter("must start with http:// or https://", param_hint="URL")
    marks = _load()
    marks.append({"url": url, "title": title or url, "tags": tag or [], "rating": rating})
    _save(marks)
    typer.echo(f"saved {url}")


@app.command(name="list")
def list_marks(sort: Annotated[Sort, typer.Option(help="Order of the list.")] = Sort.added,
               min_rating: Annotated[int, typer.Option(help="Only this many stars or more.")] = 1,
               reverse: Annotated[bool, typer.Option("--reverse/--forward",
                                                     help="Reverse the order.")] = False):
    """List bookmarks as JSON."""
    marks = [m for m in _load() if m["rating"] >= min_rating]
    if sort is not Sort.added:
        marks.sort(key=lambda m: m[sort.value])
    if reverse:
        marks.reverse()
    print(json.dumps(marks))


@app.command()
def remove(url: str, force: Annotated[bool, typer.Option("--force", "-f",
                                                         help="No error if it is missing.")] = False):
    """Remove a bookmark."""
    marks = _load()
    kept = [m for m in marks if m["url"] != url]
    if len(kept) == len(marks) and not force:
        typer.echo(f"no bookmark {url}", err=True)
        raise typer.Exit(code=3)
    _save(kept)
    typer.echo(f"removed {url}")


@tags_app.command(name="show")
def tags_show(top: Annotated[int, typer.Option(help="How many tags to show.")] = 10):
    """Show the most used tags with their counts."""
    counts = {}
    for mark in _load():
        for tag in mark["tags"]:
            counts[tag] = counts.get(tag, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    print(json.dumps(dict(ordered)))


if __name__ == "__main__":
    app()
