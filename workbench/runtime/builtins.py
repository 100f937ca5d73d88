"""What the built-in commands do, once the one parser has parsed them (`help`, `help search`,
`completion`, `mcp`, `mcp config`). Each returns what to print; the pipeline prints it.

A handler returns `Document(data, text)` (help as data, or text for a person),
`Envelope(doc, text)` (a result envelope), or `Served(exit)`; bad input raises `Refusal`.
"""

from __future__ import annotations

from workbench.declaration.builtins import BUILTINS, find_builtin
from workbench.declaration.model import child_named
from workbench.runtime import envelope as _envelope
from workbench.runtime.parser import Refusal, parse

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from workbench.declaration.model import Program


class Document:
    """Print `data` as compact JSON under `--json`, else `text`."""

    __slots__ = ("data", "text")
    data: Any   # the slots' types, for checkers
    text: str

    def __init__(self, data, text):
        self.data = data
        self.text = text


class Envelope:
    """An envelope to deliver; `text(data)` renders a success for a person."""

    __slots__ = ("doc", "text")
    doc: dict[str, Any]   # the slots' types, for checkers
    text: Callable[[Any], str] | None

    def __init__(self, doc, text=None):
        self.doc = doc
        self.text = text


class Served:
    """A transport ran (the MCP server) and ended with `exit`."""

    __slots__ = ("exit",)
    exit: int   # the slot's type, for checkers

    def __init__(self, exit: int):
        self.exit = exit


def run_builtin(program, request, world, serve=None):
    """Dispatch a parsed built-in; `serve(program, address, policy=)` runs the MCP server (the
    process entry point hands it in; in-process callers have none)."""
    builtin = request.builtin
    if request.flags["help"]:
        return _about(program, builtin, request.json, world)
    return _HANDLERS[builtin.path](program, request, world, serve)


def _about(program, node, as_json, world):
    from workbench.runtime.pipeline import help_layout
    from workbench.surfaces import cards, help
    if as_json:
        return Document(cards.card(node), None)
    return Document(None, help.render_help(program, node, **help_layout(world)))


def _help(program, request, world, serve):
    path = list(request.args.get("path") or [])
    node = _help_target(program, path)
    as_json = request.json
    from workbench.runtime.pipeline import help_layout
    from workbench.surfaces import cards, help
    if node in BUILTINS.values():
        return _about(program, node, as_json, world)
    if not as_json:
        return Document(None, help.render_help(program, None if node is program else node,
                                               **help_layout(world)))
    level = request.options["level"]
    if node is program:
        return Document(cards.help_document(program, level), None)
    if node.is_group:
        return Document(cards.group_document(program, node, level), None)
    return Document(cards.card(node), None)


def _help_target(program, path):
    """The program, group, command or built-in `help PATH` is about; Refusal if none."""
    builtin, used = find_builtin(path)
    if builtin is not None and used == len(path):
        return builtin
    node = program
    for at, name in enumerate(path):
        if not node.is_group:
            raise Refusal("unexpected_argument",
                          f"'{' '.join(node.path)}' is a command, so help has nothing under it "
                          f"called {name!r}",
                          hint=f"help takes the path of a group or command, e.g. "
                               f"'{program.name} help {' '.join(node.path)}'",
                          fix=["help", *node.path])
        child = child_named(node, name)
        if child is None:
            try:
                parse(program, path[:at + 1], {})
            except Refusal as refusal:
                if refusal.fix is None or "<command>" in refusal.fix:
                    refusal.fix = ["help", *path[:at]]   # no near name: list what there is
                else:
                    refusal.fix = ["help", *refusal.fix, *path[at + 1:]]
                raise
            raise Refusal("unknown_command", f"no command {name!r}", fix=["help"])
        node = child
    return node


def _search(program, request, world, serve):
    sentence = " ".join(request.args.get("words") or []).strip()
    if not sentence:
        raise Refusal("missing_argument", "help search needs words to look for",
                      hint='e.g. help search "undo a deploy"',
                      fix=["help", "search", "<words>"])
    doc = search_envelope(program, sentence)
    return Envelope(doc, _search_text if doc["ok"] else None)


def search_envelope(program, sentence: str, entries=None) -> dict[str, Any]:
    """The envelope `help search SENTENCE --json` prints (before the meta every envelope gets);
    the cost model measures it too (`entries`: a search index it reuses)."""
    from workbench.surfaces.search import search
    results = search(program, sentence, entries=entries)
    if not results:
        return _envelope.failure(
            "not_found", f"no command matches {sentence!r}", exit=_envelope.EXIT_NOT_FOUND,
            hint=f"list every command with: {program.name} help --json --level names")
    return _envelope.success({"query": sentence, "results": results})


def _search_text(data) -> str:
    rows = data["results"]
    width = max(len(row["command"]) for row in rows)
    return "".join(f"{row['command'].ljust(width)}  {row['description']}\n" for row in rows)


def _completion(program, request, world, serve):
    from workbench.surfaces.completion import completion_script
    return Document(None, completion_script(program, request.args["shell"]))


def _mcp(program, request, world, serve):
    value = request.options.get("http")
    address = None
    if value is not None:
        try:
            address = parse_address(value)
        except ValueError:
            raise Refusal("invalid_value",
                          f"--http needs HOST:PORT, e.g. 127.0.0.1:8000; got {value!r}",
                          hint="PORT 0 picks a free port",
                          fix=["mcp", "--http", "127.0.0.1:8000"]) from None
    if serve is None:
        raise Refusal("unavailable_here", f"'{program.name} mcp' serves MCP from a process of "
                      f"its own; it cannot run inside another call",
                      hint=f"start it as a command: {program.name} mcp", fix=None)
    policy = _policy(request.options, address, value, world)
    from workbench.runtime.extras import require
    require("mcp", f"'{program.name} mcp'")   # a Fail naming the install command
    if address is None and not _readable(world.stdin):
        raise Refusal("stdin_closed", "standard input is closed, and MCP over stdio reads "
                      "requests from it",
                      hint=f"let an MCP client start '{program.name} mcp' (see "
                           f"'{program.name} mcp config'), or serve HTTP",
                      fix=["mcp", "--http", "127.0.0.1:0"])
    return Served(serve(program, address, policy=policy))


_HTTP_ONLY = ("token_file", "no_auth", "allow_remote", "max_sessions", "idle_timeout")


def _policy(options, address, value, world):
    """The `workbench.runtime.serving.Policy` for `tool mcp` (stdio: its result limit and its
    call bounds)."""
    from workbench.runtime import serving
    given = [key for key in _HTTP_ONLY if options.get(key) not in (None, False)]
    try:
        if address is None:
            if given:
                flag = "--" + given[0].replace("_", "-")
                raise Refusal("invalid_option", f"{flag} applies to HTTP only (with --http); "
                              "over stdio the client that starts the server is the only caller",
                              hint="add --http HOST:PORT, or drop the flag",
                              fix=["mcp", "--http", "127.0.0.1:0", *_flags(options)])
            policy = serving.Policy(None, None, max_result_bytes=serving.max_result_bytes(
                world.environ, options.get("max_result_bytes")))
        else:
            policy = serving.http_policy(
                *address, environ=world.environ, token_file=options.get("token_file"),
                no_auth=bool(options.get("no_auth")),
                allow_remote=bool(options.get("allow_remote")),
                max_sessions=options.get("max_sessions"), idle_timeout=options.get("idle_timeout"),
                max_result_bytes=options.get("max_result_bytes"))
        policy.call_timeout, policy.max_calls = serving.call_bounds(
            world.environ, call_timeout=options.get("call_timeout"),
            max_calls=options.get("max_concurrent_calls"))
        policy.grace = serving.shutdown_grace(world.environ)
        return policy
    except serving.PolicyError as error:
        kept = ["--http", value] if value is not None and error.fix[:1] != ["--http"] else []
        raise Refusal(error.code, error.message, hint=error.hint,
                      fix=["mcp", *kept, *error.fix]) from None


def _flags(options) -> list[Any]:
    """The HTTP flags given, as tokens (for a fix that keeps them)."""
    tokens = []
    for key in _HTTP_ONLY:
        found = options.get(key)
        if found is True:
            tokens.append("--" + key.replace("_", "-"))
        elif found not in (None, False):
            tokens += ["--" + key.replace("_", "-"), str(found)]
    return tokens


def _readable(stream) -> bool:
    """Whether `stream` is an open file a server can read from (not `<&-`)."""
    if stream is None:
        return False
    try:
        import os
        os.fstat(stream.fileno())
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _mcp_config(program, request, world, serve):
    from workbench.surfaces.clients import (TOKEN_PLACEHOLDER, client_config, config_text,
                                            http_config)
    options = request.options
    if options.get("url") is None:
        if options.get("token_file") is not None:
            raise Refusal("invalid_option", "--token-file goes with --url (a running HTTP "
                          "server); a stdio client starts the server itself",
                          hint="add --url http://127.0.0.1:PORT/mcp, or drop --token-file",
                          fix=["mcp", "config", "--client", options["client"]])
        config = client_config(program, options["client"], _script_command(program))
        return Envelope(_envelope.success(config), config_text)
    from workbench.runtime import serving
    token = TOKEN_PLACEHOLDER
    try:
        if options.get("token_file") is not None:
            token = serving.http_policy("127.0.0.1", 0, token_file=options["token_file"]).token
        elif (world.environ or {}).get(serving.TOKEN_ENV, "").strip():
            token = world.environ[serving.TOKEN_ENV].strip()
    except serving.PolicyError as error:
        raise Refusal(error.code, error.message, hint=error.hint,
                      fix=["mcp", "config", "--client", options["client"], "--url",
                           options["url"], *error.fix]) from None
    config = http_config(program.name, options["client"], options["url"], token)
    if token == TOKEN_PLACEHOLDER:
        config["note"] += ("; replace <token> with the token the server printed (or pass "
                           f"--token-file, or set ${serving.TOKEN_ENV})")
    return Envelope(_envelope.success(config), config_text)


def _mcp_install(program, request, world, serve):
    import os
    from workbench.runtime import install
    from workbench.runtime.pipeline import runnable
    from workbench.surfaces import clients
    options = request.options
    client, scope, dry_run = options["client"], options["scope"], bool(options.get("dry_run"))
    environ = world.environ or {}
    try:
        path = clients.config_file(client, scope, _home(environ), os.getcwd(), environ)
    except ValueError as error:
        raise Refusal("invalid_option", f"--scope {scope}: {error}",
                      hint="drop --scope (the user's file)",
                      fix=["mcp", "install", "--client", client]) from None
    config = clients.client_config(program, client, install_command(program, environ))
    key, name, entry = clients.server_entry(config)
    fix = ["mcp", "install", "--client", client, "--scope", scope]
    try:
        change = install.plan(path, key, name, entry)
    except install.InvalidConfig as error:
        return Envelope(_envelope.failure(
            "invalid_config", f"{error.path} is not a file burgee can merge into: "
                              f"{error.reason}; it was left as it was",
            exit=_envelope.EXIT_CONFLICT,
            hint=f"fix or move that file, then run again; or add this to it by hand: "
                 f"{config['snippet']}",
            fix=runnable(program, fix, request.json)))
    except OSError as error:
        raise _unwritable(path, error, fix) from None
    backup = None
    if change["action"] != "unchanged" and not dry_run:
        try:
            backup = install.write(path, change["after"], change["existed"])
        except OSError as error:
            raise _unwritable(path, error, fix) from None
    data = {"client": client, "scope": scope, "name": name, "path": path,
            "action": change["action"], "entry": change["entry"], "previous": change["previous"],
            "backup": backup, "dry_run": dry_run,
            "diff": install.diff(path, change["before"], change["after"], change["existed"])}
    note = _INSTALL_NOTES.get((client, scope)) or _INSTALL_NOTES.get(client)
    if note:
        data["note"] = note
    changed = change["action"] != "unchanged" and not dry_run
    return Envelope(_envelope.success(data, {"changed": changed}), _install_text)


_INSTALL_NOTES = {
    "claude-desktop": "restart Claude Desktop to load it",
    ("codex", "project"): "Codex reads .codex/config.toml only in a project you trust",
    ("claude-code", "project"): "Claude Code asks each person to approve a server of .mcp.json",
}


def _install_text(data) -> str:
    where = data["path"]
    if data["action"] == "unchanged":
        return f"{data['name']} in {where} is already this server: unchanged\n"
    verb = {"added": "add", "replaced": "replace"}[data["action"]]
    if data["dry_run"]:
        head = f"would {verb} {data['name']} in {where} (dry run: nothing written)\n"
    else:
        head = f"{data['action']} {data['name']} in {where}"
        head += f" (the previous file: {data['backup']})\n" if data["backup"] else "\n"
    note = f"note: {data['note']}\n" if data.get("note") else ""
    return head + data["diff"] + note


def _unwritable(path, error, fix):
    return Refusal("unwritable", f"cannot write {path}: {error.strerror or error}",
                   hint="check that file's and its folder's permissions, or try --dry-run to "
                        "see the change", fix=fix + ["--dry-run"])


def _home(environ) -> str:
    import os
    return environ.get("HOME") or environ.get("USERPROFILE") or os.path.expanduser("~")


def install_command(program: Program, environ: Mapping[str, str]) -> list[str] | None:
    """The server command a client's file gets: `mcp config`'s, with an installed console
    script's absolute path (a client such as Claude Desktop starts it with a short PATH): the
    script running now, else the one on PATH."""
    command = _script_command(program)
    if command is None and not program.source:
        import os
        import shutil
        import sys
        running = sys.argv[0] if sys.argv else ""
        found: str | None
        if os.path.basename(running) == program.name and os.path.isfile(running):
            found = running
        else:
            found = shutil.which(program.name, path=environ.get("PATH"))
        if found:
            command = [os.path.abspath(found), "mcp"]
    return command


def _doctor(program, request, world, serve):
    from workbench.runtime import doctor
    from workbench.runtime.pipeline import output_mode, runnable
    from workbench.surfaces import clients
    environ = world.environ or {}
    options = request.options
    argv = clients.server_command(program, install_command(program, environ))
    findings = [doctor.check_program(program), doctor.check_command(argv, environ),
                doctor.check_extra()]
    commands = set()   # the fixes that are command lines: the envelope's `next` on a failure
    source = program.source or (_script_command(program) or [None, None])[1]
    checking = None
    if source:
        check_fix = doctor.check_command_line(source, environ, output_mode(world, request.json))
        commands.add(check_fix)
        if options["check"]:   # runs while the server is checked
            checking = doctor.start_contract(source, environ)
    try:
        if all(item["status"] == "ok" for item in findings):
            findings.append(doctor.check_server(argv, environ, options["timeout"]))
        else:
            findings.append(doctor.finding("mcp server", "skipped", "not started: a check "
                                           "above failed", "fix that first"))
        if checking is not None:
            findings.append(doctor.finish_contract(checking, check_fix))
        elif source:
            findings.append(doctor.finding("contract", "skipped", "not run (--no-check)",
                                           check_fix))
        else:
            findings.append(doctor.finding("contract", "skipped", "not run: the program's file "
                                           "is not known (an installed console script)",
                                           "run 'burgee check FILE' on the file that declares "
                                           "it"))
    finally:   # interrupted or terminated: the checker's processes end with doctor
        doctor.stop_contract(checking)
    import os
    home, project = _home(environ), os.getcwd()
    seen = set()
    for client in [options["client"]] if options.get("client") else clients.CLIENTS:
        config = clients.client_config(program, client, install_command(program, environ))
        for scope in clients.SCOPES:
            try:
                path = clients.config_file(client, scope, home, project, environ)
            except ValueError:   # no file of that scope (Claude Desktop's project)
                continue
            if path in seen:   # the project is the home folder: one file, checked once
                continue
            seen.add(path)
            fix = runnable(program, ["mcp", "install", "--client", client]
                           + (["--scope", scope] if scope != "user" else []), request.json)
            commands.add(fix)
            findings.append(doctor.check_client(client, scope, path, config, fix, environ))
            if (client, scope) == ("claude-code", "user"):
                local = doctor.check_claude_local(path, project, config, environ)
                findings += [local] if local is not None else []
    data = {"program": program.name, "command": argv, "findings": findings,
            "summary": doctor.summary(findings)}
    failed = [item for item in findings if item["status"] == "fail"]
    if not failed:
        return Envelope(_envelope.success(data), doctor.render)
    first = failed[0]
    error = _envelope.failure("setup_problems", f"{len(failed)} problem(s); first, "
                              f"{first['check']}: {first['message']}",
                              exit=_envelope.EXIT_FAILURE,
                              hint="each finding in data.findings names its fix")["error"]
    steps: list = []
    for item in failed:
        if item["fix"] in commands and item["fix"] not in (s["command"] for s in steps):
            steps.append({"command": item["fix"], "when": f"to fix {item['check']}"})
    doc = {"ok": False, "data": data, **({"next": steps} if steps else {}), "error": error}
    return Envelope(doc, doctor.render)


def _script_command(program):
    """`[python, SCRIPT, "mcp"]` when a program with no loader-set source runs as a .py script."""
    if program.source:
        return None
    import os
    import sys
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if main and main.endswith(".py") and os.path.isfile(main):
        return [sys.executable, os.path.abspath(main), "mcp"]
    return None


def _skills(program, request, world, serve):
    from workbench.surfaces import skills
    options = request.options
    if options.get("llms"):
        text = skills.llms_txt(program)
        return Envelope(_envelope.success({"llms.txt": text}), lambda data: text)
    files = skills.skill_files(program)
    folder = options.get("dir")
    if options.get("client") is not None:
        folder = _skills_folder(options["client"], options.get("project"), world)
    elif options.get("project"):
        raise Refusal("missing_option", "--project chooses the project's skills folder of a "
                      "client, so it needs --client",
                      fix=["skills", "--client", "claude-code", "--project"])
    if folder is None:
        main = files[f"{skills.skill_name(program)}/SKILL.md"]
        return Envelope(_envelope.success({"files": files}), lambda data: main)
    written = _write_files(folder, files)
    return Envelope(_envelope.success({"folder": folder, "written": written}),
                    lambda data: "".join(f"wrote {path}\n" for path in data["written"]))


def _skills_folder(client, project, world):
    """Where `client` reads skills: `~/.claude/skills` (or `./.claude/skills` with
    --project) for Claude Code."""
    import os
    if project:
        return os.path.join(os.getcwd(), ".claude", "skills")
    home = (world.environ or {}).get("HOME")
    return os.path.join(home or os.path.expanduser("~"), ".claude", "skills")


def _write_files(folder, files) -> list[Any]:
    import os
    written = []
    for relative, text in files.items():
        path = os.path.join(folder, *relative.split("/"))
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise Refusal("unwritable", f"cannot write {path}: {error.strerror or error}",
                          hint="choose a folder you can write to",
                          fix=["skills", "--dir", "<folder>"]) from None
        written.append(path)
    return written


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `[::1]:PORT`, `:PORT` or `PORT` -> (host, port); host defaults to 127.0.0.1."""
    host, port = "127.0.0.1", text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1:end + 2] != ":":
            raise ValueError(text)
        host, port = text[1:end], text[end + 2:]
    elif ":" in text:
        host, port = text.rsplit(":", 1)
        host = host or "127.0.0.1"
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(text)
    return host, number


_HANDLERS = {("help",): _help, ("help", "search"): _search, ("completion",): _completion,
             ("mcp",): _mcp, ("mcp", "config"): _mcp_config, ("mcp", "install"): _mcp_install,
             ("mcp", "doctor"): _doctor, ("skills",): _skills}
