"""flask as installed: its FlaskGroup (app and plugin commands come lazily)."""
from flask.cli import cli  # noqa: F401
