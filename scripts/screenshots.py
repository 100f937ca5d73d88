"""Regenerate screenshots/: an SVG (Textual's own screenshot) and a PNG of each main view of
the dashboard on sample_programs/deploy.py.

    .venv/bin/python scripts/screenshots.py            # every view
    .venv/bin/python scripts/screenshots.py mcp diff   # some views

PNGs need cairosvg (`pip install cairosvg`) or rsvg-convert (Debian: librsvg2-bin); without
either, only the SVGs are written. The views are listed in workbench/dev/dashboard/shots.py.
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def main(argv: list[str]) -> int:
    from workbench.dev.dashboard.shots import VIEWS, write_views
    names = set(argv) or None
    unknown = (names or set()) - {shot.name for shot in VIEWS}
    if unknown:
        print(f"unknown view(s): {', '.join(sorted(unknown))}; views: "
              + ", ".join(shot.name for shot in VIEWS), file=sys.stderr)
        return 2
    sample = os.path.join(ROOT, "sample_programs", "deploy.py")
    folder = os.path.join(ROOT, "screenshots")
    for path in write_views(sample, folder, names=names):
        print(os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
