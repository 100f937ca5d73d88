"""The one redaction policy: what counts as a secret, and how it is shown.

The placeholder scheme (docs/contract.md, "Sensitive values"):

- inside a command line (`fix`, `next`), a sensitive value is replaced by a slot the caller
  fills: `$ENV` when the option reads an environment variable, else its metavar `<token>`;
- everywhere else (stdout, stderr, envelopes, MCP results and notifications, the traffic
  log, the idempotency store, headless files, the dashboard) each secret's text becomes
  `***`.

A value is a secret when it is given to a sensitive option by any route: a flag, `--flag=`,
its short or old name, its environment variable, an MCP argument — and also when the flag or
key is misspelt (the nearest spelling is sensitive) or the flag is given where it does not
belong (a sensitive spelling of any command of the program).
"""

from __future__ import annotations

from workbench.declaration.model import derived

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from workbench.declaration.model import Command, Option, Program

PLACEHOLDER = "***"
MIN_SECRET = 3
"""Shorter values are not masked inside text: masking `ab` would shred every message."""


class Redactor:
    """Masks a set of secret strings in JSON-like values (by structure: in strings, never in
    numbers, a key only when it is a secret) and in text (captured output, a person's lines),
    in every written form of each secret: as given, JSON-escaped, as `repr` writes it."""

    __slots__ = ("secrets", "_exact")

    def __init__(self, secrets: Iterable[str] = ()):
        self.secrets: list[str] = []
        self._exact: frozenset = frozenset()
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        found = set(self.secrets)
        for secret in secrets:
            from workbench._text import placeholder   # here: a call with no secret skips it
            text = str(secret)
            # a template (`$NOTES_TOKEN`) is no secret: it is refused, and its fix names it
            if len(text) >= MIN_SECRET and placeholder(text) is None:
                found.add(text)
                found.update(form for form in _written_forms(text) if len(form) >= MIN_SECRET)
        self.secrets = sorted(found, key=len, reverse=True)
        self._exact = frozenset(found)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, text: str) -> str:
        """`text` with every secret replaced by `***`."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, PLACEHOLDER)
        return text

    def pending(self, text: str) -> int:
        """How many characters at the end of `text` may begin a secret (a stream holds them
        back until the next chunk shows whether they do)."""
        longest = 0
        for secret in self.secrets:
            at = text.find(secret[0], max(0, len(text) - len(secret) + 1))
            while at != -1 and len(text) - at > longest:
                if secret.startswith(text[at:]):
                    longest = len(text) - at
                    break
                at = text.find(secret[0], at + 1)
        return longest

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every secret masked in its strings, before it is
        encoded, so the encoding stays valid JSON of the same shape: numbers are never
        masked, and a key is masked only when it is a secret whole (`quantity` keeps its
        name whatever the secret; a key that is one becomes `***`)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {PLACEHOLDER if k in self._exact else k: self.value(v)
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def document(self, text: str) -> str:
        """`text` masked as the JSON document it is (by structure, so it stays valid JSON),
        or as text when it is not JSON."""
        if not self.secrets:
            return text
        import json
        try:
            doc = json.loads(text)
        except ValueError:
            return self.text(text)
        from workbench.runtime.envelope import encode
        try:
            return encode(self.value(doc))
        except (TypeError, ValueError):
            return self.text(text)

    def crossing(self, text: str, at: int) -> int:
        """Where to cut `text` so that no secret is cut in two at `at`: `at`, or the start of
        a secret that spans it (what is kept then holds the whole secret, and is masked)."""
        start = at
        for secret in self.secrets:
            found = text.find(secret, max(0, at - len(secret) + 1))
            while found != -1 and found < at:
                start = min(start, found)
                found = text.find(secret, found + 1)
        return start


def _written_forms(text: str) -> list:
    """How a secret reads once a handler wrote it: JSON-escaped (`json.dumps` with and
    without `ensure_ascii`: `\\u00e4`, `\\"`), twice JSON-escaped (a JSON document inside a
    string), as `repr` and `ascii` write it (backslashes doubled), and, for bytes that are
    not UTF-8 (argv's `\\udcff` surrogates), escaped or replaced (U+FFFD) as the capture
    reads them back. The C escapers: `json` would import `re` on the CLI path."""
    import _json
    forms = [_json.encode_basestring_ascii(text)[1:-1], _json.encode_basestring(text)[1:-1],
             repr(text)[1:-1], ascii(text)[1:-1]]
    forms.append(_json.encode_basestring_ascii(forms[0])[1:-1])
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
        forms += [text.encode("utf-8", "backslashreplace").decode("utf-8"),
                  raw.decode("utf-8", "replace")]
    return [form for form in dict.fromkeys(forms) if form != text]


def _spellings(program) -> tuple[dict, frozenset]:
    """(sensitive spelling -> Option, every spelling of every option and global flag).

    With no sensitive option nothing reads the second, and it is left empty: a program's
    every spelling is derived only when there is a secret to tell apart from the rest."""
    if program is None:
        return {}, frozenset()
    generation = getattr(program, "generation", 0)   # lazy groups loaded since: rebuild
    state = derived(program)
    cached = state.redact_spellings
    if cached is None or cached[0] != generation:
        sensitive: dict = {}
        for command in _loaded(program):
            for option in command.options.values():
                if option.sensitive:
                    for spelling in option.spellings:
                        sensitive.setdefault(spelling, option)
        known: set = set()
        if sensitive:
            from workbench.declaration.builtins import GLOBAL_SPELLINGS
            known.update(GLOBAL_SPELLINGS)
            for command in _loaded(program):
                for option in command.options.values():
                    known.update(option.spellings)
        cached = state.redact_spellings = (generation, (sensitive, frozenset(known)))
    return cached[1]


def _loaded(program):
    """Every command built so far: a lazy group's count once a call or a listing loads it."""
    return program.walk(load=False)


def _sensitive_options(program) -> list:
    """Every sensitive Option of every command: two commands may each have a `--token` with
    its own environment variable, so the spelling table alone would miss one."""
    if program is None:
        return []
    generation = getattr(program, "generation", 0)
    state = derived(program)
    cached = state.redact_options
    if cached is None or cached[0] != generation:
        cached = state.redact_options = (generation, [
            option for command in _loaded(program) for option in command.options.values()
            if option.sensitive])
    return cached[1]


def _plain(name: str) -> str:
    """A name with case, leading dashes and `-`/`_` set aside: `--API-Token` -> `api_token`."""
    return str(name).lstrip("-").casefold().replace("-", "_")


def _sensitive_name(name, sensitive: dict, known):
    """What `name` (a flag or an argument key) refers to in `sensitive` (spelling -> item):
    its own entry; else, when it is no `known` name, the entry it nearly spells or contains
    whatever the case and dashes (`--tokn`, `--TOKEN`, `api_token`); else None."""
    hit = sensitive.get(name)
    if hit is not None or not sensitive or name in known:
        return hit
    plain: dict = {}
    for spelling, item in sensitive.items():
        if len(_plain(spelling)) > 1:   # `-t` is matched as itself only
            plain.setdefault(_plain(spelling), item)
    word = _plain(name)
    if word in plain:
        return plain[word]
    from workbench._text import nearest
    close = nearest(word, list(plain), n=1)
    if close:
        return plain[close[0]]
    return next((item for each, item in plain.items() if len(each) >= MIN_SECRET and each in word),
                None)


def _sensitive_keys(program) -> dict:
    """Every sensitive option's key anywhere in the program -> that Option."""
    return {option.key: option for option in {id(o): o for o in
                                              sensitive_spellings(program).values()}.values()}


def sensitive_spellings(program: Program) -> dict[str, Option]:
    """Every spelling of a sensitive option anywhere in the program -> that Option."""
    return _spellings(program)[0]


def sensitive_flag(program: Program, flag: str) -> Option | None:
    """The sensitive Option a flag spells, or nearly spells (`--tokn`, `--TOKEN`,
    `--api-token`, `-T` for `-t`, when that is no option's own spelling), else None."""
    sensitive, known = _spellings(program)
    if not flag.startswith("--"):
        if len(flag) == 2 and flag not in known:
            return sensitive.get(flag) or sensitive.get(flag.swapcase())
        return sensitive.get(flag)
    return _sensitive_name(flag, sensitive, known)


def _attached(token: str, sensitive: dict, known) -> tuple:
    """(Option, where its value starts) for a sensitive short with its value attached,
    alone or after boolean shorts (`-tV`, `-ytV`, as the parser reads them), else (None, 0)."""
    if token.startswith("--") or len(token) < 3:
        return None, 0
    for at in range(1, len(token) - 1):
        short = "-" + token[at]
        option = sensitive.get(short)
        if option is not None:
            return (option, at + 1) if option.type != "boolean" else (None, 0)
        if short not in known:
            break
    return None, 0


def _names_a_flag(token: str, known) -> bool:
    """`--json`, `-h`, `--remote=x`: a spelling of a flag, so never the value before it."""
    return token.startswith("-") and token.partition("=")[0] in known


def secrets_in_argv(program: Program, argv: Sequence[str],
                    environ: Mapping[str, str] | None = None) -> list[str]:
    """Values argv (and the environment) give to sensitive options, however misplaced: after
    `--` too, where a flag is only a word (`tool login -- --token V`) but is still a secret."""
    spellings = sensitive_spellings(program)
    if not spellings:
        return []
    known = _spellings(program)[1]
    found: list[str] = []
    tokens = list(argv)
    for i, token in enumerate(tokens):
        if not token.startswith("-") or token == "-" or token == "--":
            continue
        flag, eq, inline = token.partition("=")
        option = sensitive_flag(program, flag)
        if option is None:
            option, at = _attached(token, spellings, known)
            if option is not None:
                found.append(token[at:])
            continue
        if option.type == "boolean":
            continue
        if eq:
            found.append(inline)
        elif i + 1 < len(tokens) and not _names_a_flag(tokens[i + 1], known):
            found.append(tokens[i + 1])
    for option in _sensitive_options(program):
        if option.env and environ and environ.get(option.env):
            found.append(environ[option.env])
    return found


def secrets_in_request(command: Command, options: Mapping[str, object]) -> list[str]:
    """The values a parsed call gives its command's sensitive options, by whatever route
    they came (flag, short, cluster, environment)."""
    return [leaf for key, option in command.options.items()
            if option.sensitive and option.type != "boolean"
            for leaf in _leaves(options.get(key))]


def secrets_in_arguments(program: Program | None, command: Command | None,
                         arguments: object) -> list[str]:
    """Values MCP arguments give to sensitive properties, including misspelt keys, keys nested
    in an object and a sensitive key of another command; with no command (an unknown tool
    name), the sensitive properties of every command count."""
    if not isinstance(arguments, dict):
        return []
    commands = [command] if command is not None else \
        (list(program.walk()) if program is not None else [])
    keys: set = set()
    sensitive: set = set()
    for each in commands:
        for key, option in each.options.items():
            keys.add(key)
            if option.sensitive:
                sensitive.add(key)
        keys.update(argument.key for argument in each.arguments)
    for key, option in _sensitive_keys(program).items():   # another tool's key, misplaced
        if key not in keys:
            keys.add(key)
            sensitive.add(key)
    if not sensitive:
        return []
    from workbench.declaration.builtins import GLOBAL_OPTIONS
    keys.update(GLOBAL_OPTIONS)
    by_key = {key: key for key in sensitive}
    found: list[str] = []

    def walk(mapping) -> None:   # junk nests: {"junk": {"tokn": V}} is masked too
        for key, value in mapping.items():
            if _sensitive_name(key, by_key, keys) is not None:
                found.extend(_leaves(value))
            else:
                for inner in _objects(value):
                    walk(inner)

    walk(arguments)
    return found


def _leaves(value) -> list[str]:
    """Every scalar in a JSON-like value, as text (a secret may hide in a list or object)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [] if value is None else [str(value)]


def _objects(value) -> list[dict]:
    """The objects directly in a value: itself, or the items of a list."""
    if isinstance(value, dict):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for item in value if isinstance(item, dict)]
    return []


def mask_argv(program: Program, tokens: Sequence[str]) -> list[str]:
    """argv tokens with the value after any sensitive spelling replaced by its slot."""
    spellings = sensitive_spellings(program)
    if not spellings:
        return list(tokens)
    known = _spellings(program)[1]
    masked: list[str] = []
    hide = None
    for token in tokens:
        if hide is not None and not _names_a_flag(token, known):
            masked.append(token if token.startswith("<") and token.endswith(">")
                          or token.startswith("$") else hide)
            hide = None
            continue
        hide = None
        if token == "--":
            masked.append(token)
            continue
        flag, eq, _ = token.partition("=")
        option = sensitive_flag(program, flag) if token.startswith("-") else None
        if option is None and token.startswith("-"):
            attached, at = _attached(token, spellings, known)
            if attached is not None:
                masked += [token[:at], attached.slot]
                continue
        if option is None or option.type == "boolean":
            masked.append(token)
        elif eq:
            masked.append(flag + "=" + option.slot)
        else:
            masked.append(token)
            hide = option.slot
    return masked
