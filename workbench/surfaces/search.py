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


def run_search(program, words, as_json: bool, world):
    """The `help search` builtin: prints results; exit 0 with matches, 3 with none."""
    from workbench.runtime import envelope
    sentence = " ".join(words).strip()
    if not sentence:
        doc = envelope.failure("missing_argument", "help search needs words to look for",
                               exit=2, hint='e.g. help search "undo a deploy"',
                               fix=f"{program.name} help search <words>" + (" --json" if as_json else ""))
        doc["meta"] = {"schema_version": program.schema_version}
        _print(world, doc, as_json)
        return 2, doc
    results = search(program, sentence)
    doc = envelope.success({"query": sentence, "results": results},
                           {"schema_version": program.schema_version})
    if not results:
        doc = envelope.failure("not_found", f"no command matches {sentence!r}", exit=3,
                               hint=f"list every command with: {program.name} help --json "
                                    f"--level names")
        doc["meta"] = {"schema_version": program.schema_version}
    _print(world, doc, as_json)
    return envelope.exit_code(doc), doc


def _print(world, doc, as_json):
    from workbench.runtime import envelope
    if as_json:
        world.out(envelope.encode(doc) + "\n")
        return
    if doc["ok"] is not True:
        world.err(f"error: {doc['error']['message']}\n" +
                  (f"hint: {doc['error']['hint']}\n" if doc["error"].get("hint") else ""))
        return
    rows = doc["data"]["results"]
    width = max(len(r["command"]) for r in rows)
    world.out("".join(f"{r['command'].ljust(width)}  {r['description']}\n" for r in rows))
