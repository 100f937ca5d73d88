"""black as installed: its Click command."""
from black import main  # noqa: F401
