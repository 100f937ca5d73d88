"""One module per tab of the dashboard; each pane draws a View and nothing else."""

from workbench.dev.dashboard.panes.call import CallPane
from workbench.dev.dashboard.panes.card import CardPane
from workbench.dev.dashboard.panes.cost import CostPane
from workbench.dev.dashboard.panes.diff import DiffPane
from workbench.dev.dashboard.panes.environments import EnvironmentsPane
from workbench.dev.dashboard.panes.help import HelpPane
from workbench.dev.dashboard.panes.mcp import McpPane
from workbench.dev.dashboard.panes.problems import ProblemsPane
from workbench.dev.dashboard.panes.schema import SchemaPane
from workbench.dev.dashboard.panes.tokens import TokensPane
from workbench.dev.dashboard.panes.traffic import TrafficPane

PANES = (
    ("help", "Help", HelpPane),
    ("card", "Card", CardPane),
    ("schema", "Schema", SchemaPane),
    ("mcp", "MCP", McpPane),
    ("tokens", "Tokens", TokensPane),
    ("environments", "Environments", EnvironmentsPane),
    ("diff", "Diff", DiffPane),
    ("traffic", "Traffic", TrafficPane),
    ("problems", "Problems", ProblemsPane),
    ("cost", "Cost", CostPane),
    ("call", "Call", CallPane),
)
"""(id, tab title, class), in tab order; keys 1-9 and 0 (the tenth) follow it, `k` the Call."""
