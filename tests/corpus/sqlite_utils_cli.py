"""sqlite-utils as installed: its Click group."""
from sqlite_utils.cli import cli  # noqa: F401
