"""`tool mcp install --client NAME [--scope user|project] [--dry-run]`: write this program's
server entry into the client's own configuration file.

The entry is `surfaces.clients.client_config`'s (what `tool mcp config` prints); the file is
`surfaces.clients.config_file`'s. Merging keeps every other key and server; a file that does
not parse is never overwritten (`InvalidConfig`); the previous file is copied beside itself
with a timestamp before it is replaced, atomically, keeping its permissions; writing the same
entry twice changes nothing.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from typing import Any

BACKUP_SUFFIX = ".bak"


class InvalidConfig(Exception):
    """The client's file exists but cannot be merged into safely: `reason` says where."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def plan(path: str, key: str, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """What installing `entry` as `key.name` into the file at `path` changes, written nowhere:
    `{"action": "added"|"replaced"|"unchanged", "entry", "previous", "before", "after",
    "existed"}` (`before`/`after`: the file's text; `entry` as written, the previous entry's
    own settings kept). Raises InvalidConfig, OSError."""
    existed = os.path.exists(path)
    before = _read(path) if existed else ""
    current = _parse(path, before)
    previous = _servers(path, current, key).get(name)
    entry = kept_settings(previous, entry)
    if previous == entry:
        return {"action": "unchanged", "entry": entry, "previous": previous,
                "before": before, "after": before, "existed": existed}
    if not _is_toml(path):
        after = _json_merged(before, current, key, name, entry)
    else:
        after = _toml_merged(path, before, current, key, name, entry)
    if "\r\n" in before:   # a file edited on Windows keeps its line endings
        after = after.replace("\r\n", "\n").replace("\n", "\r\n")
    return {"action": "added" if previous is None else "replaced", "entry": entry,
            "previous": previous, "before": before, "after": after, "existed": existed}


TRANSPORT_KEYS = frozenset({"type", "transport", "command", "args", "url", "httpUrl",
                            "serverUrl", "headers", "http_headers", "bearer_token_env_var"})
"""Keys of a server entry that say how to reach it: `install` writes them afresh."""


def kept_settings(previous: object, entry: dict[str, Any]) -> dict[str, Any]:
    """`entry`, plus what a person added to the server's previous entry that is not about
    reaching it (`env`, `cwd`, timeouts, `disabled`, ...): reinstalling keeps them."""
    if not isinstance(previous, dict):
        return entry
    kept = {key: value for key, value in previous.items()
            if key not in TRANSPORT_KEYS and key not in entry}
    return {**entry, **kept}


def read_servers(path: str, key: str) -> dict[str, Any]:
    """The servers table `key` of the client file at `path` ({} when it has none). Raises
    InvalidConfig, OSError."""
    return _servers(path, _parse(path, _read(path)), key)


def _is_toml(path: str) -> bool:
    return path.endswith(".toml")


def _parse(path: str, text: str) -> dict[str, Any]:
    return (_toml_loads if _is_toml(path) else _json_loads)(path, text)


def _servers(path: str, current: dict[str, Any], key: str) -> dict[str, Any]:
    servers = current.get(key, {})
    if not isinstance(servers, dict):
        raise InvalidConfig(path, f"{key!r} is a {type(servers).__name__}, not a table of "
                                  "servers")
    return servers


def diff(path: str, before: str, after: str, existed: bool) -> str:
    """A unified diff of the file's text, as `diff -u` shows it."""
    import difflib
    lines = difflib.unified_diff(before.splitlines(keepends=True),
                                 after.splitlines(keepends=True),
                                 fromfile=path if existed else "/dev/null", tofile=path)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def write(path: str, text: str, existed: bool, now=None) -> str | None:
    """Replace the file at `path` (its target, when a symlink) with `text` atomically, after
    copying it to `PATH.burgee-YYYYmmddTHHMMSSZ.bak`; returns that backup's path (None for a
    new file). Raises OSError."""
    import shutil
    import stat
    import tempfile
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    os.makedirs(folder, exist_ok=True)
    backup = None
    if existed:
        backup = _backup_path(real, now)
        shutil.copy2(real, backup)
        mode = stat.S_IMODE(os.stat(real).st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(real) + ".",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return backup


def _backup_path(real: str, now=None) -> str:
    import time
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    candidate = f"{real}.burgee-{stamp}{BACKUP_SUFFIX}"
    count = 1
    while os.path.exists(candidate):
        count += 1
        candidate = f"{real}.burgee-{stamp}-{count}{BACKUP_SUFFIX}"
    return candidate


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidConfig(path, f"not UTF-8 text (byte {error.start})") from None


def _json_loads(path: str, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidConfig(path, f"not valid JSON at line {error.lineno}, column "
                                  f"{error.colno}: {error.msg} (comments and trailing commas "
                                  "are not JSON)") from None
    if not isinstance(data, dict):
        raise InvalidConfig(path, f"holds a JSON {type(data).__name__}, not an object")
    return data


def _json_merged(before: str, current: dict[str, Any], key: str, name: str,
                 entry: dict[str, Any]) -> str:
    import re
    found = re.search(r"\n([ \t]+)\"", before)
    indent = found.group(1) if found else 2
    merged = dict(current)
    merged[key] = {**current.get(key, {}), name: entry}
    return json.dumps(merged, indent=indent, ensure_ascii=False) + "\n"


def _toml_loads(path: str, text: str) -> dict[str, Any]:
    import tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidConfig(path, f"not valid TOML: {error}") from None


def _toml_merged(path: str, before: str, current: dict[str, Any], key: str, name: str,
                 entry: dict[str, Any]) -> str:
    """`before` with the tables `[key.name]` and `[key.name.*]` replaced, in place, by the new
    table (appended when there was none). Checked by parsing the result: anything else changed
    (the server defined inline, a multi-line string that looks like a table) is an
    InvalidConfig, never a write."""
    table = _toml_table(key, name, entry)
    kept: list[str] = []
    at = None
    dropping = False
    for line in before.splitlines(keepends=True):
        header = _toml_header(line)
        if header is not None:
            dropping = header[:2] == [key, name]
            if dropping and at is None:
                at = len(kept)
        if not dropping:
            kept.append(line)
    if kept and not kept[-1].endswith("\n"):
        kept[-1] += "\n"
    if at is None:
        after = "".join(kept) + ("\n" if "".join(kept).strip() else "") + table
    else:
        after = "".join(kept[:at]) + table + "\n" + "".join(kept[at:])
        after = after.rstrip("\n") + "\n"
    expected = dict(current)
    expected[key] = {**current.get(key, {}), name: entry}
    try:
        import tomllib
        same = tomllib.loads(after) == expected
    except ValueError:
        same = False
    if not same:
        raise InvalidConfig(path, f"defines [{key}.{name}] in a form burgee cannot replace "
                                  "without touching anything else (inline, or split); edit "
                                  "that entry by hand")
    return after


def _toml_header(line: str):
    """The key path of a table header line (`[a.b]` -> ['a', 'b']); `["[["]` for an array of
    tables; None for any other line."""
    text = line.strip()
    if not text.startswith("["):
        return None
    if text.startswith("[["):
        return ["[["]
    import tomllib
    try:
        node = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while isinstance(node, dict) and len(node) == 1:
        [(part, node)] = node.items()
        path.append(part)
    return path


def _toml_table(key: str, name: str, entry: dict[str, Any]) -> str:
    from workbench.surfaces.clients import _toml_key
    lines = [f"[{_toml_key(key)}.{_toml_key(name)}]"]
    lines += [f"{_toml_key(field)} = {_toml_value(value)}" for field, value in entry.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value) -> str:
    """A TOML value for JSON-like data (tables inline)."""
    from workbench.surfaces.clients import _toml_key, _toml_string
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return _toml_string(str(value))
