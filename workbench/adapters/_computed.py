"""Defaults the original computes as it loads (a random seed, a timestamp, the process id).

Such a default is a different value in every process, so baked into help, cards and schemas
it changes them from run to run (`burgee dev --headless` fails every run). They are told apart
by loading the file a second time in a child process and comparing every modelled default:
one that differs is described ("Default: computed at run time.") and left out of the model.
The original still computes its own where it runs (the adapter never passes defaults).

The second load costs a process (about as long as the first load), so it is made only where
help, cards or schemas are produced (`Program.settle_defaults`), never on a plain call.
"""

from __future__ import annotations

NOTE = "Default: computed at run time."

_SECOND_LOAD = (
    "import json, os, runpy, sys\n"
    "source, key = sys.argv[1], sys.argv[2] or None\n"
    "sys.path.insert(0, os.path.dirname(source))\n"
    "namespace = runpy.run_path(source, run_name='__burgee_second_load__')\n"
    "from workbench.adapters import adapt_namespace\n"
    "from workbench.adapters._computed import defaults\n"
    "found = adapt_namespace(namespace, key, source=source)\n"
    "sys.stdout.write('\\n' + json.dumps(defaults(found[1]) if found else None))\n"
)


def defaults(program) -> dict:
    """{"command path/key": the default as JSON} of every option and argument modelled."""
    import json
    return {name: json.dumps(param.default, sort_keys=True, default=repr)
            for name, param in _params(program)}


def settler(program, source: str, key: str | None):
    """The `Program.defaults_settler` of an adapted program loaded from `source` (its
    variable `key`): marks the defaults a second load computes differently."""

    def settle() -> None:
        seen = _second_load(source, key)
        if seen is None:
            return   # the second load failed: nothing can be told apart, nothing is changed
        mine = defaults(program)
        for name, param in _params(program):
            if name in seen and seen[name] != mine[name] and param.default is not None:
                param.default = None
                described = (param.description or "").rstrip()
                if NOTE not in described:
                    ends = described.endswith((".", "!", "?", ":")) or not described
                    param.description = f"{described}{'' if ends else '.'} {NOTE}".strip()

    return settle


def _params(program):
    """("command path/key", parameter) of the program's, each group's and command's inputs."""
    for node in [program, *program.groups(), *program.walk()]:
        where = " ".join(node.path)
        for key, param in node.options.items():
            yield f"{where}/{key}", param
        for argument in getattr(node, "arguments", ()):
            yield f"{where}/{argument.key}", argument


def _second_load(source: str, key: str | None) -> dict | None:
    """The defaults the program has when a fresh process loads `source`, else None."""
    import json
    import subprocess
    import sys
    try:
        done = subprocess.run([sys.executable, "-c", _SECOND_LOAD, source, key or ""],
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        # the last line: what the file printed as it loaded comes before it
        seen = json.loads(done.stdout.rsplit("\n", 1)[-1]) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return seen if isinstance(seen, dict) else None
