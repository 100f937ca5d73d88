"""The ctrl+p palette: the dashboard's actions and one entry per command (jump to it)."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Provider

from workbench.dev.dashboard._view import dashboard
from workbench.dev.dashboard.panes import PANES
from workbench.dev.snapshot import nodes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.command import Hits

CLIENTS = ("claude-code", "cursor", "claude-desktop", "vscode", "codex", "gemini")


def actions(app):
    """(title, help, callback) for each dashboard action."""
    yield "Run environments", "run the Environments input under every environment", \
        app.action_run_environments
    yield "Run diffs", "every example: CLI --json vs MCP tools/call", app.action_run_diffs
    yield "Cancel runs", "stop the environment and diff runs in progress", app.action_cancel
    yield "Record MCP calls", "start or stop recording calls to .burgee/traffic/ (R)", \
        app.action_toggle_record
    yield "Reload now", "load the file again (saves reload by themselves)", app.action_reload
    yield "Filter commands", "focus the command tree's filter", app.action_filter
    yield "Keys", "every key of the dashboard", app.action_keys
    for client in CLIENTS:
        yield f"Copy client config: {client}", f"the live MCP server's config for {client}", \
            partial(app.action_copy_config, client)
    for number, (pane_id, title, _cls) in enumerate(PANES, 1):
        yield f"Show {title}", f"the {title} tab (key {number})", partial(app.show_tab, pane_id)


class CommandsProvider(Provider):
    """`Go to <command>` for every command and group of the loaded program."""

    def _targets(self):
        app = self.app
        program = app.state.program if app.state is not None else None
        if program is None:
            return []
        targets = [(f"Go to {program.name} (the program)", "", "")]
        for node in nodes(program):
            name = " ".join(node.path)
            targets.append((f"Go to {name}", node.description or "", name))
        return targets

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, name in self._targets():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text),
                          partial(dashboard(self.app).select_command, name),
                          text=text, help=help_text)

    async def discover(self) -> Hits:
        for text, help_text, name in self._targets()[:20]:
            yield DiscoveryHit(text, partial(dashboard(self.app).select_command, name), text=text,
                               help=help_text)
