"""bump-my-version as installed: its rich-click group."""
from bumpversion.cli import cli  # noqa: F401
