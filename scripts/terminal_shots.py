"""Regenerate what a person sees at a terminal, in screenshots/: coloured help, an error and a
progress bar. Each command runs in a real pseudo-terminal 80 columns wide (the tests' own
`run_in_pty`); its bytes are drawn with Rich's SVG export, then turned into a PNG as
scripts/screenshots.py does (cairosvg or rsvg-convert; without either, SVGs only).

    .venv/bin/python scripts/terminal_shots.py
"""

from __future__ import annotations

import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

NOTES = os.path.join(ROOT, "sample_programs", "notes.py")
SHELF = os.path.join(ROOT, "tests", "programs", "shelf.py")

SHOTS = (
    # (name, the command line shown, argv run under python)
    ("terminal-help", "notes add --help", [NOTES, "add", "--help"]),
    ("terminal-error", "notes add --tga home 'buy milk'", [NOTES, "add", "--tga", "home",
                                                           "buy milk"]),
    ("terminal-progress", "shelf slow --steps 60", [SHELF, "slow", "--steps", "60"]),
)


def screen(output: str, progress: bool) -> str:
    """What the terminal shows: each line as its last redraw left it (`\\r` starts a line
    again); for a progress bar, the redraw half-way through instead of the finished one."""
    lines = []
    for line in output.replace("\x1b[K", "").split("\r\n"):
        frames = [frame for frame in line.split("\r") if frame]
        if not frames:
            lines.append("")
        elif progress and len(frames) > 2:
            lines.append(frames[len(frames) // 2])
            break
        else:
            lines.append(frames[-1])
    return "\n".join(lines).rstrip("\n")


def svg_of(command: str, shown: str) -> str:
    from rich.console import Console
    from rich.text import Text
    console = Console(record=True, width=80, force_terminal=True, color_system="standard",
                      file=io.StringIO())
    console.print(Text("$ " + command, style="bold"))
    console.print(Text.from_ansi(shown))
    return console.export_svg(title="burgee: a person at a terminal")


def main() -> int:
    from conftest import clean_env, run_in_pty
    from workbench.dev.dashboard.shots import preserve_spaces, svg_to_png
    folder = os.path.join(ROOT, "screenshots")
    env = clean_env(NOTES_FILE=os.path.join(folder, ".notes-unused.json"))
    env.pop("COLUMNS", None)
    for name, command, argv in SHOTS:
        _, output = run_in_pty(argv, env, columns=80)
        svg = preserve_spaces(svg_of(command, screen(output, name == "terminal-progress")))
        path = os.path.join(folder, name + ".svg")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(svg)
        print(os.path.relpath(path, ROOT))
        made = svg_to_png(svg, os.path.join(folder, name + ".png"), width=1000)
        if made:
            print(os.path.relpath(made, ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
