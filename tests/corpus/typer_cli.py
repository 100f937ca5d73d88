"""Typer's own `typer` command as installed: its Typer app."""
from typer.cli import app  # noqa: F401
