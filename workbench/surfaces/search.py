"""`tool help search "words"`: the best commands for a sentence, from a local index of the cards.

No network, no model: a weighted term index over command names, descriptions, options and
examples, with light stemming and inverse document frequency. Deterministic: ties keep
declaration order.
"""

from __future__ import annotations

STOPWORDS = frozenset("a an and are as at be by do for from how i in is it me my of on or the "
                      "this to what with want can".split())

_WEIGHTS = {"name": 3.0, "group": 2.0, "description": 2.0, "option": 1.0, "example": 0.5}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """Lowercase word stems of `text`, without stop words."""
    words, current = [], []
    for char in text.lower():
        if char.isalnum():
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return [_stem(w) for w in words if w not in STOPWORDS]


def _fields(command):
    yield "name", " ".join(command.path[-1:] + command.aliases)
    yield "group", " ".join(command.path[:-1])
    yield "description", command.description or ""
    for option in command.declared_options.values():
        yield "option", option.key.replace("_", " ") + " " + (option.description or "")
    for argument in command.arguments:
        yield "option", argument.name + " " + (argument.description or "")
    for example in command.examples:
        yield "example", example


def index(program) -> list:
    """[(command, {term: weight})] for every visible command."""
    out = []
    for command in program.walk():
        if command.hidden:
            continue
        weights: dict = {}
        for field, text in _fields(command):
            for term in terms(text):
                weights[term] = max(weights.get(term, 0.0), _WEIGHTS[field])
        out.append((command, weights))
    return out


def search(program, sentence: str, limit: int = 5) -> list[dict]:
    """Best matching commands for `sentence`, best first, with their scores."""
    import math
    entries = index(program)
    query = list(dict.fromkeys(terms(sentence)))
    total = len(entries) or 1
    scored = []
    for position, (command, weights) in enumerate(entries):
        score = 0.0
        for term in query:
            weight = weights.get(term)
            if weight is None:
                weight = max((w * 0.5 for t, w in weights.items()
                              if len(term) >= 3 and (t.startswith(term) or term.startswith(t))),
                             default=0.0)
            if weight:
                frequency = sum(1 for _, other in entries if term in other) or 1
                score += weight * (1.0 + math.log(total / frequency))
        if score > 0:
            scored.append((-round(score, 3), position, command))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    results = []
    for negative, _, command in scored[:limit]:
        entry = {"command": " ".join(command.path), "description": command.description,
                 "effects": command.effects, "score": -negative,
                 "usage": f"{program.name} {' '.join(command.path)} --help"}
        if command.effects != "withheld":
            entry["tool"] = command.tool_name
        results.append(entry)
    return results


class Answer:
    """What `help search` found, as data: `data` on a match, else `error`; `text` for a person.

    `error` holds `code`, `message`, `exit` and `hint`, and `fix` as argv tokens after the
    program's name; the runtime turns it into the envelope (and keeps the caller's `--json`).
    A plain class: `typing.NamedTuple` would import `typing` on the CLI path.
    """

    __slots__ = ("data", "error", "text")

    def __init__(self, data: dict | None, error: dict | None, text: str):
        self.data = data
        self.error = error
        self.text = text


def answer(program, words) -> Answer:
    """The `help search` builtin as a pure function: exit 0 with matches, 3 with none, 2 empty."""
    sentence = " ".join(words).strip()
    if not sentence:
        error = {"code": "missing_argument", "message": "help search needs words to look for",
                 "exit": 2, "hint": 'e.g. help search "undo a deploy"',
                 "fix": ["help", "search", "<words>"]}
        return Answer(None, error, _error_text(error))
    results = search(program, sentence)
    if not results:
        error = {"code": "not_found", "message": f"no command matches {sentence!r}", "exit": 3,
                 "hint": f"list every command with: {program.name} help --json --level names"}
        return Answer(None, error, _error_text(error))
    width = max(len(r["command"]) for r in results)
    text = "".join(f"{r['command'].ljust(width)}  {r['description']}\n" for r in results)
    return Answer({"query": sentence, "results": results}, None, text)


def _error_text(error: dict) -> str:
    return (f"error: {error['message']}\n"
            + (f"hint: {error['hint']}\n" if error.get("hint") else ""))
