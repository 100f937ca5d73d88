"""bump-pydantic as installed: its Typer app (one callback, no subcommands)."""
from bump_pydantic.main import app  # noqa: F401
