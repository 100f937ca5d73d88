"""Shell completions: `tool completion bash|zsh|fish` prints a static script from the model.

The script knows every (visible) command, group and alias, every flag (with `--no-x` for
booleans and the built-ins), and the values of enums; it completes the command path, then
flags, then flag values and positional enum values. Nothing calls back into the program
at completion time, so a TAB costs no Python start-up.
"""

from __future__ import annotations

from workbench.declaration.builtins import BUILTINS, GLOBAL_OPTIONS, SHELLS
from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from workbench.declaration.model import Program


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@+,=%")


def completion_script(program: Program, shell: str, nodes: list[Any] | None = None) -> str:
    """The completion script for `shell` (bash, zsh or fish), install notes included.

    `nodes`: the program's `contexts(program)`, when a caller writes several shells."""
    if shell not in SHELLS:
        raise ValueError(f"shell {shell!r} is not supported; use one of {', '.join(SHELLS)}")
    if nodes is None:
        nodes = contexts(program)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](program, nodes)


# -- the model, flattened for the generators -----------------------------------------------

class _Flag:
    __slots__ = ("long", "short", "description", "takes_value", "choices", "dirs")

    def __init__(self, long, short=None, description="", takes_value=0, choices=None,
                 dirs=False):
        self.long = long
        self.short = short
        self.description = description
        self.takes_value = takes_value   # how many words follow it (nargs), 0 for none
        self.choices = choices
        self.dirs = dirs                 # its value is a folder


class _Node:
    __slots__ = ("path", "subs", "flags", "positional", "choices", "lines", "skips")

    def __init__(self, path):
        self.path = path          # "notes add", "" for the program
        self.subs = []            # [(name, aliases, description)]
        self.flags = []           # [_Flag]
        self.skips = []           # [_Flag] taking values, before a command's name
        self.positional = False   # takes positional arguments
        self.choices = None       # values of its enum positionals, if any
        self.lines = {}           # section -> its lines in a script (`_lines`)


def _first_line(text: str, limit: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _flags(options) -> list:
    """Completion entries for options, every spelling read from the parameter model."""
    flags = []
    for option in options:
        if option.hidden:
            continue
        description = _first_line(option.description)
        takes_value = 0 if option.flag_only else option.nargs
        values = option.enum_values if takes_value else None
        flags.append(_Flag(option.flag, option.short_flag, description, takes_value, values,
                           option.kind == "dir"))
        if option.negation:
            flags.append(_Flag(option.negation, None, "turn off " + option.flag))
        for alias in option.alias_flags:
            flags.append(_Flag(alias, None, description, takes_value, values))
    return flags


_GLOBAL_FLAGS: dict = {}


def _global_flags(top: bool) -> tuple:
    """The built-in flags of a group (`top`: of the program, with --version); made once."""
    found = _GLOBAL_FLAGS.get(top)
    if found is None:
        found = _GLOBAL_FLAGS[top] = tuple(_flags(
            option for key, option in GLOBAL_OPTIONS.items() if top or key != "version"))
    return found


def contexts(program: Program,
             cached: Callable[..., Any] | None = None) -> list[Any]:
    """Every completion context: the program, its groups and commands, and the built-ins
    (what the generators read; `completion_script` takes them to write several shells).

    `cached(node, path, make)`: `make()`, the context of a group or command at `path`, or
    one an earlier call made for an equal node (the workbench passes its memo). A context
    depends only on its node, the node's visible children and `path`; nothing changes it
    once made."""
    nodes: list = []

    def visit(node, path: str) -> None:
        if cached is None or node is program:
            nodes.append(_context(program, node, path))
        else:
            nodes.append(cached(node, path, lambda: _context(program, node, path)))
        if node.is_group:
            for child in _facts.visible(node):
                visit(child, (path + " " + child.name).strip())

    visit(program, "")
    for path, builtin in BUILTINS.items():
        entry = _Node(" ".join(path))
        entry.subs = [(other[-1], [], _first_line(b.description)) for other, b in BUILTINS.items()
                      if len(other) == len(path) + 1 and other[:len(path)] == path]
        _fill(entry, builtin)
        nodes.append(entry)
    return nodes


def _context(program, node, path: str):
    """The completion context of the program, a group or a command at `path`."""
    entry = _Node(path)
    if not node.is_group:
        _fill(entry, node)
        return entry
    for child in _facts.visible(node):
        entry.subs.append((child.name, list(child.aliases), _first_line(child.description)))
    if node is program:
        entry.subs += [(words[0], [], _first_line(builtin.description))
                       for words, builtin in BUILTINS.items() if len(words) == 1]
    shared = _flags(option for _, options in getattr(node, "_chain", ())
                    for option in options.values())
    entry.flags = shared + list(_global_flags(node is program))
    entry.skips = [flag for flag in shared if flag.takes_value]
    return entry


def _fill(entry, command) -> None:
    entry.flags = _flags(command.options.values()) + list(_global_flags(False))
    entry.positional = bool(command.arguments)
    for argument in command.arguments:
        values = argument.enum_values
        if values is not None:
            entry.choices = (entry.choices or []) + [str(v) for v in values]


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _sq(text: str) -> str:
    """Single-quote for POSIX shells (bash, zsh)."""
    return "'" + text.replace("'", "'\\''") + "'"


def _word(value: str) -> str:
    """A word safe inside a `compgen -W` list (which expands its words once)."""
    return "".join(c if c in _SAFE else "\\" + c for c in str(value))


def _transitions(node) -> list:
    """(parent path, word, child path) for each subcommand name and alias of `node`."""
    out = []
    for name, aliases, _ in node.subs:
        child = (node.path + " " + name).strip()
        for word in [name, *aliases]:
            out.append((node.path, word, child))
    return out


def _lines(nodes, section, make) -> list:
    """Every node's lines of one section of a script, in order; `make(node)` gives one
    node's, made once per node (a node never changes once made, and the workbench hands
    the same node to the next render while its command is unchanged)."""
    out = []
    for node in nodes:
        found = node.lines.get(section)
        if found is None:
            found = node.lines[section] = tuple(make(node))
        out += found
    return out


def _header(program, shell: str, install: list) -> list:
    lines = [f"# {shell} completion for {program.name} {program.version}, generated by burgee "
             f"from the program's declaration.",
             f"# Regenerate after changing the program: {program.name} completion {shell}",
             "#", "# Install:"]
    lines += ["#   " + line for line in install]
    return lines


def _walk(nodes, first: str, count: str, array: str) -> list[str]:
    """Shell lines that follow the words typed so far to the command path `cpath`."""
    out = ['    cpath=""',
           f"    for (( i={first}; i<{count}; i++ )); do",
           f'        word="${{{array}[i]}}"',
           '        [[ "$word" == "--" ]] && break',
           '        case "$cpath:$word" in']
    out += _lines(nodes, "walk", lambda node: [
        f"            {_sq(parent + ':' + word)}) cpath={_sq(child)} ;;"
        for parent, word, child in _transitions(node)] + [
        f"            {labels}) (( i += {flag.takes_value} )) ;;"
        for labels, flag in _skips(node)])
    return out + ["        esac", "    done"]


def _skips(node):
    """(case labels, flag) for each shared option of a group that takes values: the walk
    steps over its values (`tool --store items items list`)."""
    for flag in node.skips:
        yield "|".join(_sq(node.path + ":" + f) for f in (flag.long, flag.short) if f), flag


def _value_flags(node):
    """(case labels `'path:--flag'|'path:-f'`, flag) for each of its flags that takes a value."""
    for flag in node.flags:
        if flag.takes_value:
            yield "|".join(_sq(node.path + ":" + f) for f in (flag.long, flag.short) if f), flag


# -- bash ----------------------------------------------------------------------------------

def _bash(program, nodes) -> str:
    name = program.name
    fn = f"_{_ident(name)}_complete"
    out = _header(program, "bash", [
        f"this shell:  source <({name} completion bash)",
        f"every shell: {name} completion bash > "
        f"~/.local/share/bash-completion/completions/{name}",
        f"             (or add 'source <({name} completion bash)' to ~/.bashrc)",
    ])
    out += ["", f"{fn}() {{",
            "    local cur prev cpath word i",
            "    COMPREPLY=()",
            '    cur="${COMP_WORDS[COMP_CWORD]}"',
            '    prev=""',
            '    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
            "    # --flag=value: bash splits at '=', so look one word further back",
            '    if [[ "$cur" == "=" ]]; then',
            '        cur=""',
            '    elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 1 )); then',
            '        prev="${COMP_WORDS[COMP_CWORD-2]}"',
            "    fi"]
    out += _walk(nodes, "1", "COMP_CWORD", "COMP_WORDS")
    out += ["    # the value of a flag that takes one",
            '    case "$cpath:$prev" in']
    out += _lines(nodes, "bash values", _bash_values)
    out += ["    esac",
            '    if [[ "$cur" == -* ]]; then',
            '        case "$cpath" in']
    out += _lines(nodes, "bash flags", _bash_flags)
    out += ["        esac", "        return 0", "    fi",
            '    case "$cpath" in']
    out += _lines(nodes, "bash words", _bash_words)
    out += ["    esac", "    return 0", "}", "",
            f"complete -F {fn} {_sq(name)}", ""]
    return "\n".join(out)


def _bash_values(node) -> list:
    out = []
    for labels, flag in _value_flags(node):
        if flag.choices:
            words = " ".join(_word(c) for c in flag.choices)
            out.append(f"        {labels}) COMPREPLY=( $(compgen -W {_sq(words)} -- "
                       f'"$cur") ); return 0 ;;')
        elif flag.dirs:
            out.append(f'        {labels}) COMPREPLY=( $(compgen -d -- "$cur") ); return 0 ;;')
        else:
            out.append(f"        {labels}) compopt -o default 2>/dev/null; return 0 ;;")
    return out


def _bash_flags(node) -> list:
    if not node.flags:
        return []
    words = " ".join(w for f in node.flags for w in (f.long, f.short) if w)
    return [f"            {_sq(node.path)}) COMPREPLY=( $(compgen -W {_sq(words)} -- "
            f'"$cur") ) ;;']


def _bash_words(node) -> list:
    words = [word for name, aliases, _ in node.subs for word in (name, *aliases)]
    if node.choices:
        words += [_word(c) for c in node.choices]
    if words:
        tail = "compopt -o default 2>/dev/null; " if node.positional and not node.choices \
            else ""
        return [f"        {_sq(node.path)}) {tail}COMPREPLY=( $(compgen -W "
                f'{_sq(" ".join(words))} -- "$cur") ) ;;']
    if node.positional:
        return [f"        {_sq(node.path)}) compopt -o default 2>/dev/null ;;"]
    return []


# -- zsh -----------------------------------------------------------------------------------

def _zdescribe(items) -> str:
    """A zsh array literal of 'word:description' entries for _describe."""
    entries = []
    for word, description in items:
        word = word.replace(":", "\\:")
        entries.append(_sq(f"{word}:{description}" if description else word))
    return "(" + " ".join(entries) + ")"


def _zsh(program, nodes) -> str:
    name = program.name
    fn = f"_{_ident(name)}"
    out = [f"#compdef {name}"]
    out += _header(program, "zsh", [
        f"this shell:  source <({name} completion zsh)   (after compinit)",
        f"every shell: {name} completion zsh > \"${{fpath[1]}}/_{name}\"",
        "             then start a new shell (compinit picks it up)",
    ])
    out += ["", f"{fn}() {{",
            "    local cur prev cpath word i",
            "    local -a items",
            '    cur="${words[CURRENT]}"',
            '    prev="${words[CURRENT-1]}"',
            "    if [[ $cur == --*=* ]]; then",
            '        prev="${cur%%=*}"',
            "        compset -P '*='",
            '        cur="${cur#*=}"',
            "    fi"]
    out += _walk(nodes, "2", "CURRENT", "words")
    out += ['    case "$cpath:$prev" in']
    out += _lines(nodes, "zsh values", _zsh_values)
    out += ["    esac",
            "    if [[ $cur == -* ]]; then",
            '        case "$cpath" in']
    out += _lines(nodes, "zsh flags", _zsh_flags)
    out += ["        esac",
            "        (( ${#items} )) && _describe -t options 'option' items",
            "        return", "    fi",
            '    case "$cpath" in']
    out += _lines(nodes, "zsh words", _zsh_words)
    out += ["    esac", "}", "",
            'if [[ "${funcstack[1]}" == ' + _sq(fn) + " ]]; then",
            f'    {fn} "$@"',
            "else",
            f"    compdef {fn} {_sq(name)}",
            "fi", ""]
    return "\n".join(out)


def _zsh_values(node) -> list:
    out = []
    for labels, flag in _value_flags(node):
        if flag.choices:
            values = " ".join(_sq(str(c)) for c in flag.choices)
            out.append(f"        {labels}) compadd -- {values}; return ;;")
        elif flag.dirs:
            out.append(f"        {labels}) _files -/; return ;;")
        else:
            out.append(f"        {labels}) _files; return ;;")
    return out


def _zsh_flags(node) -> list:
    if not node.flags:
        return []
    items = []
    for flag in node.flags:
        items.append((flag.long, flag.description))
        if flag.short:
            items.append((flag.short, flag.description))
    return [f"            {_sq(node.path)}) items={_zdescribe(items)} ;;"]


def _zsh_words(node) -> list:
    items = []
    for sub, aliases, description in node.subs:
        items.append((sub, description))
        items += [(alias, f"alias of {sub}") for alias in aliases]
    if items:
        return [f"        {_sq(node.path)}) items={_zdescribe(items)}; "
                f"_describe -t commands 'command' items ;;"]
    if node.choices:
        values = " ".join(_sq(c) for c in node.choices)
        return [f"        {_sq(node.path)}) compadd -- {values} ;;"]
    if node.positional:
        return [f"        {_sq(node.path)}) _files ;;"]
    return []


# -- fish ----------------------------------------------------------------------------------

def _fq(text: str) -> str:
    """Single-quote for fish (only \\ and ' are special inside)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(program, nodes) -> str:
    name = program.name
    ident = _ident(name)
    out = _header(program, "fish", [
        f"this shell:  {name} completion fish | source",
        f"every shell: {name} completion fish > ~/.config/fish/completions/{name}.fish",
    ])
    out += ["", f"function __{ident}_path",
            "    set -l tokens (commandline -opc)",
            "    set -e tokens[1]",
            "    set -l p ''",
            "    set -l skip 0",
            "    for t in $tokens",
            "        if test $skip -gt 0",
            "            set skip (math $skip - 1)",
            "            continue",
            "        end",
            "        test \"$t\" = '--'; and break",
            '        switch "$p:$t"']
    out += _lines(nodes, "fish walk", _fish_walk)
    out += ["        end", "    end", "    echo $p", "end", "",
            f"function __{ident}_at",
            f"    set -l p (__{ident}_path)",
            '    test "$p" = "$argv[1]"',
            "end", "",
            f"complete -c {_fq(name)} -f"]
    out += _lines(nodes, f"fish {name}", lambda node: _fish_node(name, node))
    out.append("")
    return "\n".join(out)


def _fish_walk(node) -> list:
    out = []
    for parent, word, child in _transitions(node):
        out.append(f"            case {_fq(parent + ':' + word)}")
        out.append(f"                set p {_fq(child)}")
    for flag in node.skips:
        labels = " ".join(_fq(node.path + ":" + f) for f in (flag.long, flag.short) if f)
        out.append(f"            case {labels}")
        out.append(f"                set skip {flag.takes_value}")
    return out


def _fish_node(name: str, node) -> list:
    """The `complete` lines of one node, for the program called `name`."""
    ident = _ident(name)
    cond = f"-n {_fq(f'__{ident}_at {_fq(node.path)}')}"
    base = f"complete -c {_fq(name)} {cond}"
    out = []
    for sub, aliases, description in node.subs:
        out.append(f"{base} -a {_fq(sub)} -d {_fq(description)}")
        for alias in aliases:
            out.append(f"{base} -a {_fq(alias)} -d {_fq('alias of ' + sub)}")
    if node.choices:
        values = " ".join(node.choices)
        out.append(f"{base} -a {_fq(values)}")
    elif node.positional:
        out.append(f"{base} -F")
    for flag in node.flags:
        line = f"{base} -l {_fq(flag.long[2:])}"
        if flag.short:
            line += f" -s {_fq(flag.short[1:])}"
        if flag.takes_value:
            if flag.choices:
                line += " -x -a " + _fq(" ".join(str(c) for c in flag.choices))
            elif flag.dirs:
                line += " -x -a '(__fish_complete_directories)'"
            else:
                line += " -r -F"
        if flag.description:
            line += f" -d {_fq(flag.description)}"
        out.append(line)
    return out
