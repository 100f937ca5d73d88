"""The command tree: groups and commands with their problem counts, filterable with `/`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Input, Tree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from textual.app import ComposeResult
    from textual.widgets.tree import TreeNode

    from workbench.declaration.model import Command, Group
    from workbench.dev.records import Problem
    from workbench.dev.state import State

PROGRAM = ()
"""The data of the root node: the program itself (an empty path)."""


def problem_counts(problems: Iterable[Problem]) -> dict[str, Any]:
    """path string ("" for the program) -> (errors, warnings), counted up the tree too."""
    table: dict = {}
    for problem in problems:
        name = problem.command or ""
        parts = name.split() if name else []
        keys = {""} | {" ".join(parts[:i]) for i in range(1, len(parts) + 1)}
        for key in keys:
            errors, warnings = table.get(key, (0, 0))
            if problem.severity == "error":
                errors += 1
            elif problem.severity == "warning":
                warnings += 1
            table[key] = (errors, warnings)
    return table


def label(name: str, counts: dict[str, Any] | None, hidden: bool = False) -> Text:
    text = Text(name, style="dim" if hidden else "")
    errors, warnings = counts or (0, 0)
    if errors:
        text.append(f" \u2717{errors}", style="bold red")
    if warnings:
        text.append(f" \u26a0{warnings}", style="yellow")
    return text


def matches(node: Command | Group, words: str) -> bool:
    if not words:
        return True
    haystack = (" ".join(node.path) + " " + (node.description or "")).lower()
    return all(word in haystack for word in words.lower().split())


class CommandTree(Vertical):
    """A filter input over a Tree of the program; node data is the command path (a tuple)."""

    DEFAULT_CSS: ClassVar[str] = """
    CommandTree { width: 34; border-right: vkey $primary 40%; }
    CommandTree #filter { border: none; height: 1; padding: 0 1; margin: 0 0 1 0; }
    CommandTree Tree { height: 1fr; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.filter_text: str = ""
        self.shown: list[tuple[str, ...]] = []   # paths shown after the filter, in order
        self.pending: tuple[str, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ filter commands", id="filter")
        tree = Tree("program", data=PROGRAM, id="tree")
        tree.show_root = True
        tree.guide_depth = 2
        yield tree

    @property
    def tree_widget(self) -> Tree[tuple[str, ...]]:
        return self.query_one("#tree", Tree)

    def rebuild(self, state: State, selected: tuple[Any, ...] | None) -> None:
        """Redraw from `state`'s program, keeping `selected` (a path; () for the program)."""
        tree = self.tree_widget
        program = state.program
        counts = problem_counts(state.problems)
        tree.clear()
        if program is None:
            tree.root.set_label(Text("(no program loaded)", style="dim"))
            self.shown = []
            return
        tree.root.set_label(label(program.name, counts.get("")))
        tree.root.data = PROGRAM
        words = self.filter_text.strip()
        found = {}
        self.shown = []

        def visit(parent, nodes):
            for node in nodes:
                path = tuple(node.path)
                kids = list(node.commands) if node.is_group else []
                wanted = matches(node, words)
                if node.is_group:
                    # a group is shown when it or any descendant matches
                    if not wanted and not any(matches(n, words) for n in _walk(kids)):
                        continue
                    branch = parent.add(label(node.name, counts.get(" ".join(path))),
                                        data=path, expand=True)
                    found[path] = branch
                    self.shown.append(path)
                    visit(branch, kids)
                elif wanted:
                    leaf = parent.add_leaf(label(node.name, counts.get(" ".join(path)),
                                                 getattr(node, "hidden", False)), data=path)
                    found[path] = leaf
                    self.shown.append(path)

        visit(tree.root, program.commands)
        tree.root.expand()
        target = tuple(selected) if selected and tuple(selected) in found else None
        if target is None and words and self.shown:
            target = best_match(self.shown, {path: node for path, node in _paths(program)},
                                words)
        self.move_to(target or PROGRAM)

    def move_to(self, path: tuple[Any, ...]) -> None:
        """Put the cursor on `path` once the rebuilt tree has its lines; until then the
        highlight messages of the rebuild are ignored (`pending`), so the selection holds."""
        self.pending = tuple(path)
        self.call_after_refresh(self._move, tuple(path))

    def _move(self, path: tuple[Any, ...]) -> None:
        node = find_node(self.tree_widget.root, path)
        self.pending = None
        if node is not None:
            self.tree_widget.move_cursor(node)

    def set_filter(self, text: str, state: State, selected: tuple[Any, ...] | None) -> None:
        self.filter_text = text
        self.rebuild(state, selected)


def best_match(shown: list[Any], nodes: dict[str, Any], words: str) -> tuple[Any, ...]:
    """The path to select for a filter: a command whose name starts with the first word,
    then a group whose name does, then any command, then the first shown (tree order
    breaks ties), so `sta` selects the command `status`, not the group `sync`."""
    first = words.lower().split()[0]

    def rank(path):
        group = bool(getattr(nodes.get(path), "is_group", False))
        return (0 if path[-1].lower().startswith(first) else 2) + (1 if group else 0)
    return min(shown, key=lambda path: (rank(path), shown.index(path)))


def _paths(program):
    for node in _walk(program.commands):
        yield tuple(node.path), node


def _walk(nodes):
    for node in nodes:
        yield node
        if node.is_group:
            yield from _walk(node.commands)


def find_node(node: TreeNode[tuple[str, ...]],
              path: tuple[Any, ...]) -> TreeNode[tuple[str, ...]] | None:
    """The tree node whose data is `path`, or None."""
    if tuple(node.data or ()) == tuple(path):
        return node
    for child in node.children:
        found = find_node(child, path)
        if found is not None:
            return found
    return None
