"""MkDocs hook: the guides link screenshots as `../screenshots/x.png` (right when read on the
repository); the site serves the same files under `screenshots/`, and the links follow."""

from __future__ import annotations

import os

from mkdocs.structure.files import File

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTS = os.path.join(ROOT, "screenshots")


def on_files(files, config):
    """Add every screenshot to the site as `screenshots/<name>`."""
    for name in sorted(os.listdir(SHOTS)) if os.path.isdir(SHOTS) else ():
        if name.endswith(".png"):
            files.append(File.generated(config, f"screenshots/{name}",
                                        abs_src_path=os.path.join(SHOTS, name)))
    return files


def on_page_markdown(markdown, page, config, files):
    """`](../screenshots/` in a guide at the top of docs/ -> `](screenshots/`."""
    return markdown.replace("](../screenshots/", "](screenshots/")
