"""MCP client configuration for a program: `tool mcp config --client NAME`.

Each client gets where its configuration lives (`path`), the snippet to put there (`snippet`,
exactly as that file or shell wants it) and the same as data (`data`). The server is started
with `command`: by default `[python, FILE, "mcp"]` for a program loaded from a file
(`[python, -m, workbench.cli, mcp, FILE]` for an adapted Click/Typer/argparse file), else
`[NAME, "mcp"]` (an installed console script).

`http_config(name, client, url, token)` is the same for a running HTTP server (`tool mcp
--http`, `burgee dev`): its URL and the `Authorization: Bearer` header in each client's own
format (sources: docs/decisions.md, "Client configs for an authenticated HTTP server").
"""

from __future__ import annotations

import json
import sys

from workbench.declaration.builtins import MCP_CLIENTS as CLIENTS
from workbench.declaration.builtins import MCP_SCOPES as SCOPES

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from workbench.declaration.model import Program


def server_command(program: Program, command: Sequence[str] | None = None) -> list[str]:
    """The argv that starts this program's MCP server over stdio."""
    if command is not None:
        return list(command)
    if program.source:
        if any(getattr(c, "adapter", None) is not None for c in program.walk()):
            # a Click/Typer/argparse file has no `mcp` command of its own: burgee serves it
            return [sys.executable, "-m", "workbench.cli", "mcp", program.source]
        return [sys.executable, program.source, "mcp"]
    return [program.name, "mcp"]


def _desktop_path(platform: str) -> str:
    """Claude Desktop's file as a person reads it (`~`, `%APPDATA%`), for `mcp config`."""
    folder = _app_data(platform, "~", {"APPDATA": "%APPDATA%"})
    return ("\\" if platform.startswith("win") else "/").join((folder, *_DESKTOP_FILE))


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)   # a TOML basic string reads the same escapes


def _toml_key(name: str) -> str:
    bare = name and all(c.isascii() and (c.isalnum() or c in "-_") for c in name)
    return name if bare else _toml_string(name)


def client_config(program: Program, client: str,
                  command: Sequence[str] | None = None) -> dict[str, Any]:
    """`{"client", "name", "path", "format", "snippet", "data", "note"}` for one client.

    Raises ValueError for a client not in CLIENTS.
    """
    argv = server_command(program, command)
    name = program.name
    stdio: dict = {"command": argv[0], "args": argv[1:]}
    if client == "claude-code":
        from workbench._text import join
        line = join(["claude", "mcp", "add", name, "--"] + argv)
        return {"client": client, "name": name, "path": None, "format": "shell",
                "snippet": line, "data": {"mcpServers": {name: stdio}},
                "note": "run it in the project; add --scope project to write .mcp.json "
                        "(the data) for everyone"}
    if client in ("claude-desktop", "cursor", "gemini"):
        data = {"mcpServers": {name: dict(stdio)}}
        path = {"claude-desktop": _desktop_path(sys.platform),
                "cursor": "~/.cursor/mcp.json",
                "gemini": "~/.gemini/settings.json"}[client]
        note = {"claude-desktop": "merge into mcpServers, then restart Claude Desktop",
                "cursor": "or .cursor/mcp.json in the project; merge into mcpServers",
                "gemini": "or .gemini/settings.json in the project; merge into mcpServers"}[client]
        return {"client": client, "name": name, "path": path, "format": "json",
                "snippet": json.dumps(data, indent=2, ensure_ascii=False), "data": data,
                "note": note}
    if client == "vscode":
        data = {"servers": {name: {"type": "stdio", **stdio}}}
        return {"client": client, "name": name, "path": ".vscode/mcp.json", "format": "json",
                "snippet": json.dumps(data, indent=2, ensure_ascii=False), "data": data,
                "note": "merge into servers (a workspace file; the user-level one works too)"}
    if client == "codex":
        args = ", ".join(_toml_string(arg) for arg in stdio["args"])
        snippet = (f"[mcp_servers.{_toml_key(name)}]\n"
                   f"command = {_toml_string(stdio['command'])}\n"
                   f"args = [{args}]\n")
        return {"client": client, "name": name, "path": "~/.codex/config.toml",
                "format": "toml", "snippet": snippet,
                "data": {"mcp_servers": {name: stdio}},
                "note": "append to the file"}
    raise ValueError(f"unknown client {client!r}; one of: {', '.join(CLIENTS)}")


def config_text(config: dict[str, Any]) -> str:
    """What `tool mcp config --client NAME` prints for a person."""
    lines = []
    if config["path"]:
        lines.append(f"# {config['path']}: {config['note']}")
    elif config.get("note"):
        lines.append(f"# {config['note']}")
    lines.append(config["snippet"].rstrip("\n"))
    return "\n".join(lines) + "\n"


TOKEN_PLACEHOLDER = "<token>"
CODEX_TOKEN_ENV = "BURGEE_MCP_TOKEN"
"""The variable a Codex config names (`bearer_token_env_var`): Codex takes no token inline."""


def http_config(name: str, client: str, url: str, token: str | None) -> dict[str, Any]:
    """Like `client_config`, for the streamable-HTTP server at `url` that wants
    `Authorization: Bearer <token>` (no header when `token` is None: a --no-auth server).

    Raises ValueError for a client not in CLIENTS.
    """
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    with_headers = {"headers": headers} if headers else {}
    if client == "claude-code":
        from workbench._text import join
        argv = ["claude", "mcp", "add", "--transport", "http", name, url]
        if headers:
            argv += ["--header", f"Authorization: Bearer {token}"]
        return {"client": client, "name": name, "path": None, "format": "shell",
                "snippet": join(argv), "url": url,
                "data": {"mcpServers": {name: {"type": "http", "url": url, **with_headers}}},
                "note": "run it in the project; add --scope project to write .mcp.json "
                        "(the data) for everyone"}
    if client in ("cursor", "gemini", "claude-desktop"):
        key = "httpUrl" if client == "gemini" else "url"
        data = {"mcpServers": {name: {key: url, **with_headers}}}
        path = {"cursor": "~/.cursor/mcp.json", "gemini": "~/.gemini/settings.json",
                "claude-desktop": _desktop_path(sys.platform)}[client]
        note = {"cursor": "or .cursor/mcp.json in the project; merge into mcpServers",
                "gemini": "or .gemini/settings.json in the project; merge into mcpServers "
                          "(httpUrl is streamable HTTP; url would be SSE)",
                "claude-desktop": "Claude Desktop's file may refuse a URL server; add it as "
                                  "a custom connector, or use the stdio config "
                                  "(mcp config without --url)"}[client]
        return {"client": client, "name": name, "path": path, "format": "json", "url": url,
                "snippet": json.dumps(data, indent=2, ensure_ascii=False), "data": data,
                "note": note}
    if client == "vscode":
        data = {"servers": {name: {"type": "http", "url": url, **with_headers}}}
        return {"client": client, "name": name, "path": ".vscode/mcp.json", "format": "json",
                "snippet": json.dumps(data, indent=2, ensure_ascii=False), "data": data,
                "url": url, "note": "merge into servers (a workspace file; the user-level one "
                "works too)"}
    if client == "codex":
        entry = {"url": url}
        snippet = f"[mcp_servers.{_toml_key(name)}]\nurl = {_toml_string(url)}\n"
        note = "append to the file"
        if token is not None:
            entry["bearer_token_env_var"] = CODEX_TOKEN_ENV
            snippet += f"bearer_token_env_var = {_toml_string(CODEX_TOKEN_ENV)}\n"
            note = (f"append to the file; Codex reads the token from ${CODEX_TOKEN_ENV} "
                    f"(it takes none inline): export {CODEX_TOKEN_ENV}={token} before "
                    "starting Codex")
        return {"client": client, "name": name, "path": "~/.codex/config.toml",
                "format": "toml", "snippet": snippet, "url": url,
                "data": {"mcp_servers": {name: entry}}, "note": note}
    raise ValueError(f"unknown client {client!r}; one of: {', '.join(CLIENTS)}")


_DESKTOP_FILE = ("Claude", "claude_desktop_config.json")
"""Claude Desktop's file, under the folder where desktop applications keep settings."""

_PROJECT_FILES = {"claude-code": ".mcp.json", "cursor": ".cursor/mcp.json",
                  "vscode": ".vscode/mcp.json", "codex": ".codex/config.toml",
                  "gemini": ".gemini/settings.json"}
"""Each client's file in a project, relative to its root (Claude Desktop has none)."""


def _app_data(platform: str, home: str, environ) -> str:
    """Where desktop applications keep their settings: `~/Library/Application Support` on
    macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME` (default `~/.config`) elsewhere."""
    import os
    if platform == "darwin":
        return os.path.join(home, "Library", "Application Support")
    if platform.startswith("win"):
        return environ.get("APPDATA") or os.path.join(home, "AppData", "Roaming")
    return environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")


def config_file(client: str, scope: str, home: str, project: str,
                environ: Mapping[str, str] | None = None,
                platform: str | None = None) -> str:
    """The absolute path of the file `client` reads its MCP servers from, for `scope`
    (`user`: under `home`; `project`: under the folder `project`). Sources: docs/mcp.md
    ("Writing the client's file").

    Raises ValueError with the reason when the client has no file for that scope.
    """
    import os
    environ = environ or {}
    platform = platform or sys.platform
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}; one of: {', '.join(CLIENTS)}")
    if scope == "project":
        if client not in _PROJECT_FILES:
            raise ValueError(f"{client} has no project file; it reads only the user's")
        return os.path.join(project, *_PROJECT_FILES[client].split("/"))
    if scope != "user":
        raise ValueError(f"unknown scope {scope!r}; one of: {', '.join(SCOPES)}")
    if client == "claude-code":
        return os.path.join(home, ".claude.json")
    if client == "claude-desktop":
        return os.path.join(_app_data(platform, home, environ), *_DESKTOP_FILE)
    if client == "vscode":
        return os.path.join(_app_data(platform, home, environ), "Code", "User", "mcp.json")
    if client == "codex":
        return os.path.join(environ.get("CODEX_HOME") or os.path.join(home, ".codex"),
                            "config.toml")
    folder = {"cursor": ".cursor", "gemini": ".gemini"}[client]
    return os.path.join(home, folder, "mcp.json" if client == "cursor" else "settings.json")


def server_entry(config: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(the file's key for servers, the server's name, its entry) of a `client_config`."""
    [(key, servers)] = config["data"].items()
    [(name, entry)] = servers.items()
    return key, name, entry
