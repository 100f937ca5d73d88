"""What a command takes from above it: the options its program and groups declare for every
command under them, and the environment variables an `env_prefix` names.

Both are normalised once, when the Program binds its commands: the shared options are put in
each command's `options` (after its own), so the parser, MCP arguments, schemas and redaction
read them as any other option, and `command.inherited` says which node declared which; the
surfaces that list many commands show them once, at that node.
"""

from __future__ import annotations


def env_name(prefix: str, path, key: str) -> str:
    """`TOOL_` + `ITEMS_LIST_` + `BIN`: Click's `auto_envvar_prefix` naming."""
    words = [word.upper().replace("-", "_") for word in path] + [key.upper()]
    return prefix + "_".join(words)


def derive_env(node, prefix: str, path, options: dict) -> None:
    """Give each option of `node` (a command, group or program) without its own `env` the
    one `prefix` names. An Option object shared with another node under another path is
    copied first, so each node's variable is its own."""
    from workbench.declaration.model import _copy
    for key, option in list(options.items()):
        if not isinstance(option, _option_type()) or not isinstance(key, str):
            continue
        derived = option.__dict__.get("_env_for")
        if option.env is not None and derived is None:
            continue   # declared by the author
        name = env_name(prefix, path, key)
        if derived is not None and derived != name:
            option = options[key] = _copy(option)
        option.env = name
        option._env_for = name


def _option_type():
    from workbench.declaration.params import Option
    return Option


def inherit(command, chain) -> None:
    """Put the options of each node of `chain` (outermost first) in `command.options`, after
    its own, and record them in `command.inherited`. A key the command declares itself is
    left to the definition checks to refuse (`command._shared_clash`)."""
    inherited = []
    for node, options in chain:
        keys = []
        for key, option in options.items():
            if key in command.options and command.options[key] is not option:
                command._shared_clash = (key, node)
                continue
            command.options[key] = option
            keys.append(key)
        if keys:
            inherited.append((node, tuple(keys)))
    command.inherited = tuple(inherited)
