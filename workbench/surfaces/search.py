"""`tool help search "words"`: the best commands for a sentence, from a local index of the cards.

No network, no model: a weighted term index over command names, descriptions, options and
examples, with light stemming and inverse document frequency. Deterministic: ties keep
declaration order.
"""

from __future__ import annotations

from functools import lru_cache as _lru_cache

from workbench.surfaces import _facts

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from workbench.declaration.model import Command, Program

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
    return list(_terms(text))


@_lru_cache(maxsize=16384)
def _terms(text: str) -> tuple:
    """`terms`, cached by text: a reload re-indexes only what changed."""
    words, current = [], []
    for char in text.lower():
        if char.isalnum():
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return tuple(_stem(w) for w in words if w not in STOPWORDS)


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


def index(program: Program, weights_of: Callable[[Command], dict[str, float]] | None = None
          ) -> list[tuple[Any, dict[str, float]]]:
    """[(command, {term: weight})] for every listed command (none hidden, none in a hidden
    group: what `help --json` lists), each followed by its `<tool>_plan` twin when it offers
    one (a `surfaces.tools.PlanTwin`, as tools/list lists it). `weights_of(command)`: one
    command's weights (default `command_weights`; the workbench passes a cached one)."""
    entries: list = []
    for command in _facts.listed_commands(program):
        entries.append((command, (weights_of or command_weights)(command)))
        if command.plan_tool:
            from workbench.surfaces.tools import plan_twins
            entries += [(twin, _weights(tuple(_twin_fields(twin))))
                        for twin in plan_twins(command)]
    return entries


def _twin_fields(twin):
    """A plan twin's fields: its command's, named `plan` too and described as the tool is."""
    for field, text in _fields(twin.command):
        if field == "name":
            text += " plan"
        elif field == "description":
            text = twin.description
        yield field, text


def command_weights(command: Command) -> dict[str, float]:
    """{term: weight} of one command: its name, group, description, options, examples."""
    return _weights(tuple(_fields(command)))


@_lru_cache(maxsize=4096)
def _weights(fields: tuple) -> dict:
    """{term: weight} of one command's fields, cached by their text (never mutated)."""
    weights: dict = {}
    for field, text in fields:
        for term in _terms(text):
            weights[term] = max(weights.get(term, 0.0), _WEIGHTS[field])
    return weights


def search(program: Program, sentence: str, limit: int = 5,
           entries: list[tuple[Command, dict[str, float]]] | None = None) -> list[dict[str, Any]]:
    """Best matching commands for `sentence`, best first, with their scores; `entries`: the
    program's `index`, when a caller searches it several times."""
    import math
    entries = index(program) if entries is None else entries
    query = list(dict.fromkeys(terms(sentence)))
    total = len(entries) or 1
    frequencies = {term: sum(1 for _, other in entries if term in other) or 1
                   for term in query}
    related = _related(query, entries)
    scored = []
    for position, (command, weights) in enumerate(entries):
        score = 0.0
        for term in query:
            weight = weights.get(term)
            if weight is None:
                weight = 0.0 if len(term) < 3 else _prefix_weight(weights, related[term])
            if weight:
                score += weight * (1.0 + math.log(total / frequencies[term]))
        if score > 0:
            scored.append((-round(score, 3), position, command))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    results = []
    for negative, _, command in scored[:limit]:
        twin = hasattr(command, "command")   # a plan twin: on the command line, --dry-run
        entry = {"command": " ".join(command.path) + (" --dry-run" if twin else ""),
                 "description": command.description, "effects": command.effects,
                 "score": -negative, "usage": " ".join((program.name, *command.words,
                                                        "--help"))}
        if twin or _facts.offered(command):
            entry["tool"] = command.tool_name
        results.append(entry)
    return results


def _related(query, entries) -> dict:
    """term -> the indexed terms it is a prefix of or starts with (a miss's half weight),
    found once over the vocabulary instead of once per command."""
    vocabulary = set()
    for _, weights in entries:
        vocabulary.update(weights)
    return {term: frozenset(t for t in vocabulary if t.startswith(term) or term.startswith(t))
            for term in query if len(term) >= 3}


def _prefix_weight(weights: dict, related: frozenset) -> float:
    """Half the best weight among a command's terms related to a query term (0.0: none)."""
    if len(related) < len(weights):
        return max((weights[t] * 0.5 for t in related if t in weights), default=0.0)
    return max((w * 0.5 for t, w in weights.items() if t in related), default=0.0)
