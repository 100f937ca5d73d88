"""Change review: every difference between two versions of a program's contract, classified.

The input on both sides is the snapshot folder's content as `{relative path: text}` (what
`burgee dev --headless` writes, or `snapshot.render` of a loaded program): `schema.json`
(version, description, command order), `cards/<cmd>.json` (effects, aliases, examples,
output), `schemas/<cmd>.json` (the input schema), `mcp/tools/<tool>.json` (annotations) and
`diffs.json` (each example's exit code). Pure: no I/O, nothing imported but the standard library and `workbench._text`.

    review = review_files(old_files, new_files)
    review.breaking, review.additive, review.cosmetic    # tuples of Change
    review.blocked                                        # breaking and no major version bump

Each `Change` says its class (`additive`, `breaking`, `cosmetic`), the rule that found it,
the command and surface it concerns, and a reason a person can act on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from workbench._text import nearest
from workbench.declaration._agentic import release   # the one reading of a version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ADDITIVE, BREAKING, COSMETIC = "additive", "breaking", "cosmetic"
KINDS = (BREAKING, ADDITIVE, COSMETIC)
"""The classes, in report order: breaking changes first."""

_EFFECT_RANK = {"read_only": 0, "idempotent": 1, "non_idempotent": 2, "undeclared": 3}
_UNSAFE_HINT = {"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True,
                "openWorldHint": True}
"""The value of each MCP hint that asks a client for more care."""


@dataclass(frozen=True)
class Change:
    """One classified difference: `kind` (additive | breaking | cosmetic), `rule` (e.g.
    `option_removed`), `command` ("pr merge", or None for the program), `surface` (the
    snapshot file it shows in), `reason` (what changed and what to do)."""

    kind: str
    rule: str
    command: str | None
    surface: str
    reason: str
    before: object = None
    after: object = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, "command": self.command,
                "surface": self.surface, "reason": self.reason, "before": self.before,
                "after": self.after}


@dataclass(frozen=True)
class Review:
    """All changes between two versions, breaking first, and the semver verdict."""

    changes: tuple[Change, ...] = ()
    old_version: str | None = None
    new_version: str | None = None
    major_bump: bool = False
    unexplained: tuple[str, ...] = field(default=())   # files that differ with no classified change

    def of(self, kind: str) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.kind == kind)

    @property
    def breaking(self) -> tuple[Change, ...]:
        return self.of(BREAKING)

    @property
    def additive(self) -> tuple[Change, ...]:
        return self.of(ADDITIVE)

    @property
    def cosmetic(self) -> tuple[Change, ...]:
        return self.of(COSMETIC)

    @property
    def blocked(self) -> bool:
        """Breaking changes without a major version bump: callers would break unannounced."""
        return bool(self.breaking) and not self.major_bump

    def summary(self) -> str:
        """e.g. `2 breaking, 1 additive, 0 cosmetic (1.2.0 -> 1.3.0: no major bump)`."""
        counts = ", ".join(f"{len(self.of(kind))} {kind}" for kind in KINDS)
        bump = "major bump" if self.major_bump else "no major bump"
        return f"{counts} ({self.old_version} \u2192 {self.new_version}: {bump})"

    def to_dict(self) -> dict[str, Any]:
        return {"old_version": self.old_version, "new_version": self.new_version,
                "major_bump": self.major_bump, "blocked": self.blocked,
                "counts": {kind: len(self.of(kind)) for kind in KINDS},
                "changes": [change.to_dict() for change in self.changes],
                "unexplained": list(self.unexplained), "summary": self.summary()}


def major_bump(old: str | None, new: str | None) -> bool:
    """Whether `new` raises the major version of `old` (semver; in 0.y.z the minor is the
    major, as Cargo reads it: 0.3 -> 0.4 may break, 0.3.1 -> 0.3.2 may not)."""
    def parts(version):
        found = release(version)
        return (found[0] + (0,))[:2] if found else None
    before, after = parts(old), parts(new)
    if before is None or after is None:
        return False
    if before[0] == 0 and after[0] == 0:
        return after[1] > before[1]
    return after[0] > before[0]


# --- reading the contract out of the snapshot files -------------------------------------------

def _json(files: dict[str, Any], path: str):
    text = files.get(path)
    if not isinstance(text, str):
        return text        # already data (a live surface's), or missing
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def contract(files: dict[str, Any]) -> dict[str, Any]:
    """The contract facts the rules compare, read from snapshot files:
    `{version, description, order, commands: {path: {card, input, tool, card_file, ...}}}`."""
    schema = _json(files, "schema.json") or {}
    commands: dict = {}
    for path in sorted(files):
        if not (path.startswith("cards/") and path.endswith(".json")):
            continue
        card = _json(files, path)
        if not isinstance(card, dict) or "command" not in card:
            continue
        slug = path[len("cards/"):-len(".json")]
        tool_file = f"mcp/tools/{card['tool']}.json" if card.get("tool") else None
        commands[card["command"]] = {
            "card": card, "card_file": path, "input_file": f"schemas/{slug}.json",
            "input": _json(files, f"schemas/{slug}.json") or {},
            "tool_file": tool_file, "tool": _json(files, tool_file) if tool_file else None}
    for row in _json(files, "diffs.json") or []:
        entry = commands.get(row.get("command")) if isinstance(row, dict) else None
        if entry is not None and row.get("exit") is not None:
            entry.setdefault("exits", {})[row["example"]] = row["exit"]
    order = [entry if isinstance(entry, str) else entry.get("command")
             for entry in schema.get("commands", [])]
    helped = _json(files, "help-json/names.json") or {}
    return {"version": schema.get("version"), "description": schema.get("description"),
            "order": [name for name in order if name in commands], "commands": commands,
            "ambiguous": helped.get("ambiguous") or {},
            "capabilities": helped.get("capabilities")}


def review_files(old_files: dict[str, Any], new_files: dict[str, Any]) -> Review:
    """Every change from `old_files` to `new_files` (snapshot folder contents), classified;
    with no change found, `unexplained` names the files that differ anyway."""
    review = review_contracts(contract(old_files), contract(new_files))
    if review.changes:
        return review
    return Review((), review.old_version, review.new_version, review.major_bump, tuple(sorted(
        path for path in set(old_files) | set(new_files)
        if old_files.get(path) != new_files.get(path))))


def review_contracts(old: dict[str, Any], new: dict[str, Any]) -> Review:
    """Every change between two `contract()`s, classified, breaking first."""
    found: list = []
    _program(old, new, found)
    _commands(old, new, found)
    found.sort(key=lambda change: KINDS.index(change.kind))   # stable: breaking first
    return Review(tuple(found), old["version"], new["version"],
                  major_bump(old["version"], new["version"]))


def live_files(surfaces: dict[str, Any]) -> dict[str, Any]:
    """Rendered surfaces (`snapshot.render`) as `contract()` input, without a JSON round trip:
    the data of JSON surfaces, the text of the others."""
    return {sid: surface.data if surface.is_json and surface.error is None else surface.text
            for sid, surface in surfaces.items()}


# --- the rules ---------------------------------------------------------------------------------

def _program(old, new, found) -> None:
    _words(old, new, found)
    if old["description"] != new["description"]:
        found.append(Change(COSMETIC, "program_description", None, "schema.json",
                            "the program's description changed; no caller depends on it",
                            old["description"], new["description"]))
    kept = [name for name in old["order"] if name in new["commands"]]
    if kept != [name for name in new["order"] if name in old["commands"]]:
        found.append(Change(COSMETIC, "command_order", None, "schema.json",
                            "commands are listed in another order; callers address them "
                            "by name", kept, [n for n in new["order"] if n in old["commands"]]))


def _renames(removed, added, same) -> dict[str, Any]:
    """removed name -> the added name it most likely became (nearest spelling, else the only
    pair left whose `same(old, new)` holds)."""
    pairs: dict = {}
    free = list(added)
    for name in removed:
        close = [c for c in nearest(name, free, n=1)] or \
            [c for c in free if (len(removed) == 1 and len(free) == 1) and same(name, c)]
        if close:
            pairs[name] = close[0]
            free.remove(close[0])
    return pairs


def _commands(old, new, found) -> None:
    before, after = old["commands"], new["commands"]
    removed = [name for name in before if name not in after]
    added = [name for name in after if name not in before]
    renamed = _renames(removed, added, lambda a, b: set(before[a]["input"].get(
        "properties", {})) == set(after[b]["input"].get("properties", {})))
    for name in removed:
        card_file = before[name]["card_file"]
        if name in renamed:
            found.append(Change(BREAKING, "command_renamed", name, card_file,
                                f"command '{name}' is gone; it looks renamed to "
                                f"'{renamed[name]}': callers of '{name}' (and tool "
                                f"{before[name]['card'].get('tool')}) now fail; keep '{name}' as "
                                f"an alias or a deprecated command (replaced_by="
                                f"'{renamed[name]}'), or bump the major version",
                                name, renamed[name]))
        else:
            found.append(Change(BREAKING, "command_removed", name, card_file,
                                f"command '{name}' was removed: callers of it now fail; keep "
                                f"it deprecated for a release, or bump the major version",
                                name, None))
    for name in added:
        if name not in renamed.values():
            found.append(Change(ADDITIVE, "command_added", name, after[name]["card_file"],
                                f"new command '{name}'; no existing call changes", None, name))
    for name in before:
        if name in after and before[name] != after[name]:   # equal facts: nothing to say
            _command(name, before[name], after[name], found)


def _command(name, old, new, found) -> None:
    a, b = old["card"], new["card"]
    card_file = new["card_file"]
    if (a.get("description") or "") != (b.get("description") or ""):
        found.append(Change(COSMETIC, "command_description", name, card_file,
                            f"'{name}' reads differently; its calls are unchanged",
                            a.get("description"), b.get("description")))
    if a.get("title") != b.get("title"):
        found.append(Change(COSMETIC, "command_title", name, card_file,
                            f"'{name}' is shown under another title; its calls are unchanged",
                            a.get("title"), b.get("title")))
    _effects(name, a.get("effects"), b.get("effects"), card_file, found)
    _contract_marks(name, a, b, card_file, found)
    lost = [alias for alias in a.get("aliases", []) if alias not in b.get("aliases", [])]
    gained = [alias for alias in b.get("aliases", []) if alias not in a.get("aliases", [])]
    if lost:
        found.append(Change(BREAKING, "alias_removed", name, card_file,
                            f"alias {', '.join(lost)} of '{name}' was removed: callers using "
                            f"it now fail; keep the alias, or bump the major version",
                            lost, None))
    if gained:
        found.append(Change(ADDITIVE, "alias_added", name, card_file,
                            f"'{name}' is also called {', '.join(gained)}", None, gained))
    if a.get("examples", []) != b.get("examples", []):
        found.append(Change(COSMETIC, "examples", name, card_file,
                            f"the examples of '{name}' changed; they document, callers do not "
                            f"depend on them", a.get("examples"), b.get("examples")))
    _inputs(name, old["input"], new["input"], new["input_file"], found,
            _old_names(b.get("options") or []))
    _shorts(name, a.get("options") or [], b.get("options") or [], card_file, found)
    _aliases(name, a.get("options") or [], b.get("options") or [], card_file, found)
    _path_checks(name, a.get("options") or [], b.get("options") or [], card_file, found)
    _annotations(name, old.get("tool"), new.get("tool"), new.get("tool_file") or card_file,
                 found)
    _output(name, a.get("output"), b.get("output"), card_file, found)
    _agentic(name, a, b, card_file, found)
    for example, code in old.get("exits", {}).items():
        now = new.get("exits", {}).get(example)
        if now is not None and now != code:
            found.append(Change(BREAKING, "example_exit", name, "diffs.json",
                                f"'{example}' exited {code}, now {now}: scripts branch on the "
                                f"exit code; restore it, or bump the major version",
                                code, now))


def _words(old, new, found) -> None:
    """Issue 34's program-wide facts (help --json): capabilities and ambiguous words."""
    was, now = old.get("capabilities"), new.get("capabilities")
    if was is not None and now is not None and was != now:
        lost = [name for name in was if name not in now]
        gained = [name for name in now if name not in was]
        if lost:
            found.append(Change(BREAKING, "capability_removed", None, "help-json/names.json",
                                f"capabilities {', '.join(lost)} are gone: agents that detect "
                                f"them now take another path; keep them, or bump the major "
                                f"version", lost, None))
        if gained:
            found.append(Change(ADDITIVE, "capability_added", None, "help-json/names.json",
                                f"new capabilities {', '.join(gained)}", None, gained))
    before, after = old.get("ambiguous") or {}, new.get("ambiguous") or {}
    for word in sorted(set(before) | set(after)):
        if before.get(word) == after.get(word):
            continue
        if word not in before:
            found.append(Change(ADDITIVE, "ambiguous_word_added", None, "help-json/names.json",
                                f"'{word}' is refused with each of its meanings' commands, "
                                f"where it was an unknown command", None, after[word]))
        else:
            found.append(Change(COSMETIC, "ambiguous_word_changed", None,
                                "help-json/names.json", f"the meanings listed for '{word}' "
                                f"changed; calling it is refused either way",
                                before[word], after.get(word)))


def _agentic(name, a, b, surface, found) -> None:
    """Issue 34's marks on a card: self scope, plan twin, --input, removal dates, untrusted
    inputs (the outputs' `x-burgee-untrusted` is a change of the output schema)."""
    if a.get("scope") != b.get("scope"):
        if b.get("scope") == "self":
            found.append(Change(BREAKING, "self_scoped", name, surface,
                                f"'{name}' now acts only on the caller's own items: calls on "
                                f"another agent's item are refused not_yours; bump the major "
                                f"version, or declare it on a new command", None, "self"))
        else:
            found.append(Change(ADDITIVE, "self_scope_lifted", name, surface,
                                f"'{name}' acts on any item again, not only the caller's own",
                                a.get("scope"), None))
    elif a.get("instead") != b.get("instead"):
        found.append(Change(COSMETIC, "self_scope_instead", name, surface,
                            f"what '{name}' suggests instead on another agent's item changed",
                            a.get("instead"), b.get("instead")))
    if a.get("plan_tool") != b.get("plan_tool"):
        if b.get("plan_tool"):
            found.append(Change(ADDITIVE, "plan_tool_added", name, surface,
                                f"'{name}' offers its plan as the read-only MCP tool "
                                f"{b['plan_tool']}", a.get("plan_tool"), b["plan_tool"]))
        else:
            found.append(Change(BREAKING, "plan_tool_removed", name, surface,
                                f"the MCP tool {a['plan_tool']} is gone: agents calling it now "
                                f"fail; offer it again, or bump the major version",
                                a["plan_tool"], None))
    if a.get("input_json") != b.get("input_json"):
        kind, rule, reason = (ADDITIVE, "input_json_added", f"'{name}' takes its request as "
                              "JSON (--input FILE|-)") if b.get("input_json") else (
            BREAKING, "input_json_removed", f"'{name}' no longer takes --input: callers that "
            "send it are refused; keep it, or bump the major version")
        found.append(Change(kind, rule, name, surface, reason, a.get("input_json"),
                            b.get("input_json")))
    removals = [(f"'{name}'", a.get("removed_in"), b.get("removed_in"))]
    options_before = {o.get("key"): o for o in a.get("options") or []}
    for option in b.get("options") or []:
        was = options_before.get(option.get("key"))
        if was is None:
            continue
        removals.append((option.get("flag"), was.get("removed_in"), option.get("removed_in")))
        if bool(was.get("untrusted")) != bool(option.get("untrusted")):
            found.append(Change(COSMETIC, "untrusted_input", name, surface,
                                f"{option.get('flag')} of '{name}' is "
                                f"{'now' if option.get('untrusted') else 'no longer'} marked "
                                f"as text a third party wrote; calls are unchanged",
                                was.get("untrusted"), option.get("untrusted")))
    for what, was, now in removals:
        if was != now:
            found.append(Change(COSMETIC, "removal_announced", name, surface,
                                f"{what} says when it goes: removed in {now}" if now else
                                f"{what} no longer says when it goes", was, now))


def _effects(name, old, new, surface, found) -> None:
    if old == new:
        return
    if new == "withheld":
        found.append(Change(BREAKING, "tool_withheld", name, surface,
                            f"'{name}' is no longer an MCP tool (effects {old} -> withheld): "
                            f"agents calling it now fail; offer it again, or bump the major "
                            f"version", old, new))
    elif old == "withheld":
        found.append(Change(ADDITIVE, "tool_offered", name, surface,
                            f"'{name}' is now offered as an MCP tool ({new})", old, new))
    elif _EFFECT_RANK.get(new, 3) > _EFFECT_RANK.get(old, 3):
        found.append(Change(BREAKING, "effects_escalated", name, surface,
                            f"'{name}' escalated from {old} to {new}: agents that call it "
                            f"freely (or retry it) would now change state; if it really writes, "
                            f"bump the major version, else declare effects='{old}'", old, new))
    else:
        found.append(Change(ADDITIVE, "effects_relaxed", name, surface,
                            f"'{name}' is now {new} (was {old}): safer to call", old, new))


def _contract_marks(name, a: dict, b: dict, surface, found) -> None:
    """`person_only`, `verdict`, `why` and the error codes of two cards (issue 34)."""
    was, now = a.get("person_only"), b.get("person_only")
    if now and not was:
        found.append(Change(BREAKING, "person_only_added", name, surface,
                            f"'{name}' is now run by a person only: agents calling it are "
                            f"refused (exit 13) and it left tools/list; bump the major "
                            f"version, or drop person_only=", None, now))
    elif was and not now:
        found.append(Change(ADDITIVE, "person_only_removed", name, surface,
                            f"'{name}' may now be run by agents too (an MCP tool again)",
                            was, None))
    elif was != now:
        found.append(Change(COSMETIC, "person_only_reason", name, surface,
                            f"the reason or how of person-only '{name}' reads differently",
                            was, now))
    if bool(a.get("verdict")) != bool(b.get("verdict")):
        found.append(Change(BREAKING, "verdict_changed", name, surface,
                            f"'{name}' {'now' if b.get('verdict') else 'no longer'} gives a "
                            f"verdict (a failed check exits 11): scripts branch on the exit "
                            f"code; restore it, or bump the major version",
                            bool(a.get("verdict")), bool(b.get("verdict"))))
    if a.get("why") != b.get("why"):
        required = b.get("why") == "required"
        found.append(Change(BREAKING if required else ADDITIVE, "why_changed", name, surface,
                            f"'{name}' " + ("now requires --why: calls without it are "
                                            "refused; make it optional, or bump the major "
                                            "version" if required else
                                            f"takes --why ({b.get('why') or 'no longer'})"),
                            a.get("why"), b.get("why")))
    old_exits = {e.get("code"): e.get("exit") for e in a.get("errors") or []}
    new_exits = {e.get("code"): e.get("exit") for e in b.get("errors") or []}
    for code, exit in new_exits.items():
        if code not in old_exits:
            found.append(Change(ADDITIVE, "error_added", name, surface,
                                f"'{name}' can now fail with {code} (exit {exit}); callers "
                                f"that branch on exit codes should know it", None, exit))
        elif old_exits[code] != exit:
            found.append(Change(BREAKING, "error_exit_changed", name, surface,
                                f"error {code} of '{name}' exited {old_exits[code]}, now "
                                f"{exit}: scripts branch on the exit code; restore it, or "
                                f"bump the major version", old_exits[code], exit))
    for code in old_exits.keys() - new_exits.keys():
        found.append(Change(COSMETIC, "error_removed", name, surface,
                            f"'{name}' no longer lists {code}; a caller that handles it "
                            f"loses nothing", old_exits[code], None))


def _annotations(name, old_tool, new_tool, surface, found) -> None:
    a = (old_tool or {}).get("annotations") or {}
    b = (new_tool or {}).get("annotations") or {}
    if old_tool is None or new_tool is None or a == b:
        return
    riskier = [key for key, unsafe in _UNSAFE_HINT.items()
               if b.get(key) == unsafe and a.get(key) != unsafe]
    moved = ", ".join(f"{key} {a.get(key)} -> {b.get(key)}" for key in sorted(set(a) | set(b))
                      if a.get(key) != b.get(key))
    if riskier:
        found.append(Change(BREAKING, "annotations_changed", name, surface,
                            f"tool {new_tool.get('name')} asks for more care ({moved}): clients "
                            f"that auto-approved it will prompt or refuse; bump the major "
                            f"version if intended", a, b))
    else:
        found.append(Change(ADDITIVE, "annotations_changed", name, surface,
                            f"tool {new_tool.get('name')} hints changed ({moved}); it asks for "
                            f"no more care than before", a, b))


def _type_words(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(map(str, prop["enum"]))
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type_words(prop.get('items') or {})}"
    return str(kind)


def _retyped(name, flag, a: dict[str, Any], b: dict[str, Any], surface, found) -> None:
    """Type, enum and item-type rules for one input (`flag`) whose schema went from a to b."""
    ta, tb = a.get("type"), b.get("type")
    if ta != tb:
        if (ta, tb) == ("integer", "number") or tb is None:
            found.append(Change(ADDITIVE, "type_widened", name, surface,
                                f"{flag} now takes {_type_words(b)} (was {_type_words(a)}): "
                                f"every old value still fits", ta, tb))
        else:
            rule = "type_narrowed" if (ta, tb) == ("number", "integer") or ta is None \
                else "type_changed"
            found.append(Change(BREAKING, rule, name, surface,
                                f"{flag} now takes {_type_words(b)} (was {_type_words(a)}): "
                                f"values callers send today are refused; accept both, or bump "
                                f"the major version", ta, tb))
        return
    ea, eb = a.get("enum"), b.get("enum")
    if ea is None and eb is not None:
        found.append(Change(BREAKING, "type_narrowed", name, surface,
                            f"{flag} now takes only {', '.join(map(str, eb))} (any {ta} "
                            f"before): other values callers send are refused; widen it, or bump "
                            f"the major version", None, eb))
    elif ea is not None and eb is None:
        found.append(Change(ADDITIVE, "type_widened", name, surface,
                            f"{flag} takes any {tb} now (was one of {', '.join(map(str, ea))})",
                            ea, None))
    elif ea is not None and eb is not None:
        gone = [value for value in ea if value not in eb]
        new = [value for value in eb if value not in ea]
        if gone:
            found.append(Change(BREAKING, "enum_value_removed", name, surface,
                                f"{flag} no longer accepts {', '.join(map(str, gone))}: callers "
                                f"sending it are refused; keep the value, or bump the major "
                                f"version", gone, None))
        if new:
            found.append(Change(ADDITIVE, "enum_value_added", name, surface,
                                f"{flag} also accepts {', '.join(map(str, new))}", None, new))
    _limits(name, flag, a, b, surface, found)
    if ta == "array" and tb == "array":
        _retyped(name, f"each item of {flag}", a.get("items") or {}, b.get("items") or {},
                 surface, found)


def _limits(name, flag, a: dict[str, Any], b: dict[str, Any], surface, found) -> None:
    """`minimum`/`maximum` raised or lowered, a `format` added, the number of values of a
    tuple (`minItems`/`maxItems`) changed: narrowing breaks callers, widening does not."""
    for key, narrower in (("minimum", lambda old, new: new > old),
                          ("maximum", lambda old, new: new < old)):
        old, new = a.get(key), b.get(key)
        if old == new:
            continue
        if new is not None and (old is None or narrower(old, new)):
            found.append(Change(BREAKING, "range_narrowed", name, surface,
                                f"{flag} now has {key} {new} (was {old if old is not None else 'none'}"
                                f"): values callers send today are refused; keep the old "
                                f"limit, or bump the major version", old, new))
        else:
            found.append(Change(ADDITIVE, "range_widened", name, surface,
                                f"{flag} now has {key} {new if new is not None else 'none'} "
                                f"(was {old}): every old value still fits", old, new))
    fa, fb = a.get("format"), b.get("format")
    if fa != fb:
        if fb is not None:
            found.append(Change(BREAKING, "format_narrowed", name, surface,
                                f"{flag} must now be a {fb} (was {fa or 'any string'}): other "
                                f"values callers send are refused; bump the major version",
                                fa, fb))
        else:
            found.append(Change(ADDITIVE, "format_widened", name, surface,
                                f"{flag} takes any string now (was a {fa})", fa, None))
    counts = (a.get("minItems"), a.get("maxItems")), (b.get("minItems"), b.get("maxItems"))
    if counts[0] != counts[1] and a.get("type") == b.get("type") == "array":
        found.append(Change(BREAKING, "arity_changed", name, surface,
                            f"{flag} now takes {counts[1][0]} to {counts[1][1]} values (was "
                            f"{counts[0][0]} to {counts[0][1]}): calls giving the old number "
                            f"are refused; bump the major version", counts[0], counts[1]))


def _old_names(options) -> dict[str, Any]:
    """Alias flag -> the key of the option that keeps it (a card's `aliases`)."""
    return {alias: option.get("key") for option in options for alias in
            option.get("aliases") or ()}


def _inputs(name, old, new, surface, found, kept=None) -> None:
    """`kept`: alias flag -> the new option's key (an old name that still works)."""
    a, b = old.get("properties") or {}, new.get("properties") or {}
    required_a, required_b = set(old.get("required") or ()), set(new.get("required") or ())

    def flag(props, key):
        return (props.get(key) or {}).get("flag") or key
    removed = [key for key in a if key not in b]
    added = [key for key in b if key not in a]
    aliased = {key: (kept or {}).get(flag(a, key)) for key in removed}
    aliased = {key: new_key for key, new_key in aliased.items() if new_key in b}
    renamed = _renames([key for key in removed if key not in aliased], added,
                       lambda x, y: a[x].get("type") == b[y].get("type"))
    renamed.update(aliased)
    for key in removed:
        if key in aliased:
            new_key = aliased[key]
            found.append(Change(ADDITIVE, "option_renamed_kept", name, surface,
                                f"{flag(a, key)} of '{name}' is now {flag(b, new_key)}; the old "
                                f"name still works, with a deprecation warning ({flag(a, key)} "
                                f"on the command line, {key!r} over MCP)",
                                flag(a, key), flag(b, new_key)))
        elif key in renamed:
            new_key = renamed[key]
            found.append(Change(BREAKING, "option_renamed", name, surface,
                                f"{flag(a, key)} of '{name}' is gone; it looks renamed to "
                                f"{flag(b, new_key)}: callers passing {flag(a, key)} (or "
                                f"{key!r} over MCP) get a usage error; keep the old name with "
                                f"aliases=[{key!r}] on the new option, or bump the major "
                                f"version",
                                flag(a, key), flag(b, new_key)))
        else:
            found.append(Change(BREAKING, "option_removed", name, surface,
                                f"{flag(a, key)} of '{name}' was removed: callers passing it get "
                                f"a usage error; keep it deprecated for a release, or bump the "
                                f"major version", flag(a, key), None))
    for key in added:
        if key in renamed.values():
            continue
        if key in required_b:
            found.append(Change(BREAKING, "new_required_input", name, surface,
                                f"'{name}' now requires {flag(b, key)}: every existing call "
                                f"lacks it; give it a default, or bump the major version",
                                None, flag(b, key)))
        else:
            found.append(Change(ADDITIVE, "option_added", name, surface,
                                f"new optional {flag(b, key)} on '{name}'; existing calls are "
                                f"unchanged", None, flag(b, key)))
    for key in a:
        if key not in b:
            continue
        pa, pb = a[key], b[key]
        label = flag(a, key)
        if key in required_b and key not in required_a:
            found.append(Change(BREAKING, "option_required", name, surface,
                                f"{label} of '{name}' became required: calls without it are "
                                f"refused; give it a default, or bump the major version",
                                False, True))
        elif key in required_a and key not in required_b:
            found.append(Change(ADDITIVE, "option_optional", name, surface,
                                f"{label} of '{name}' is optional now", True, False))
        _retyped(name, label, pa, pb, surface, found)
        if pa.get("default") != pb.get("default"):
            found.append(Change(BREAKING, "default_changed", name, surface,
                                f"the default of {label} went from {pa.get('default')!r} to "
                                f"{pb.get('default')!r}: calls that omit it now do something "
                                f"else; keep the old default, or bump the major version",
                                pa.get("default"), pb.get("default")))
        if (pa.get("description") or "") != (pb.get("description") or ""):
            found.append(Change(COSMETIC, "option_description", name, surface,
                                f"{label} reads differently; its values are unchanged",
                                pa.get("description"), pb.get("description")))
    _relations(name, old, new, a, b, surface, found)
    kept_a = [key for key in a if key in b]
    kept_b = [key for key in b if key in a]
    if kept_a != kept_b:
        found.append(Change(COSMETIC, "input_order", name, surface,
                            f"the inputs of '{name}' are listed in another order; callers name "
                            f"them", kept_a, kept_b))


def _conflicts(schema: dict[str, Any]) -> set:
    """The pairs of inputs an input schema says cannot be given together (`not`, `allOf`)."""
    parts = [schema.get("not")] + [part.get("not") for part in schema.get("allOf") or ()
                                   if isinstance(part, dict)]
    return {frozenset(part["required"]) for part in parts
            if isinstance(part, dict) and isinstance(part.get("required"), list)}


def _relations(name, old, new, a, b, surface, found) -> None:
    """`requires` (dependentRequired) and `conflicts` (not) added break calls that give one
    input alone or both together; removed, they only accept more."""
    def flags(props, keys):
        return ", ".join((props.get(key) or {}).get("flag") or key for key in keys)
    da, db = old.get("dependentRequired") or {}, new.get("dependentRequired") or {}
    for key in db:
        added = [need for need in db[key] if need not in da.get(key, [])]
        if added:
            found.append(Change(BREAKING, "requires_added", name, surface,
                                f"{flags(b, [key])} of '{name}' now needs {flags(b, added)}: "
                                f"calls that give it alone are refused; drop the requirement, "
                                f"or bump the major version", da.get(key), db[key]))
    for key in da:
        dropped = [need for need in da[key] if need not in db.get(key, [])]
        if dropped:
            found.append(Change(ADDITIVE, "requires_removed", name, surface,
                                f"{flags(a, [key])} of '{name}' no longer needs "
                                f"{flags(a, dropped)}", da[key], db.get(key)))
    ca, cb = _conflicts(old), _conflicts(new)
    for pair in sorted(cb - ca, key=sorted):
        found.append(Change(BREAKING, "conflict_added", name, surface,
                            f"{flags(b, sorted(pair))} of '{name}' can no longer be given "
                            f"together: such calls are refused; bump the major version",
                            None, sorted(pair)))
    for pair in sorted(ca - cb, key=sorted):
        found.append(Change(ADDITIVE, "conflict_removed", name, surface,
                            f"{flags(a, sorted(pair))} of '{name}' may be given together now",
                            sorted(pair), None))


_PATH_CHECKS = ("exists", "kind", "readable", "writable")


def _path_checks(name, old, new, surface, found) -> None:
    """A path check added to an option (it must exist, be a file...) refuses paths callers
    send today; one removed accepts more."""
    before = {option["key"]: option for option in old if "key" in option}
    for option in new:
        was = before.get(option.get("key"))
        if was is None:
            continue
        for check in _PATH_CHECKS:
            if option.get(check) == was.get(check):
                continue
            flag = option.get("flag") or option["key"]
            if option.get(check):
                found.append(Change(BREAKING, "path_check_added", name, surface,
                                    f"{flag} of '{name}' now checks {check}="
                                    f"{option[check]!r}: paths callers send today may be "
                                    f"refused; bump the major version", was.get(check),
                                    option[check]))
            else:
                found.append(Change(ADDITIVE, "path_check_removed", name, surface,
                                    f"{flag} of '{name}' no longer checks {check}",
                                    was.get(check), None))


def _aliases(name, old, new, surface, found) -> None:
    """An option's old name (`aliases=`) dropped breaks the callers still using it."""
    before = {option["key"]: option.get("aliases") or [] for option in old if "key" in option}
    after = {option["key"]: option.get("aliases") or [] for option in new if "key" in option}
    for key, aliases in before.items():
        lost = [alias for alias in aliases if key in after and alias not in after[key]]
        if lost:
            found.append(Change(BREAKING, "option_alias_removed", name, surface,
                                f"{', '.join(lost)} (old name of --{key.replace('_', '-')} on "
                                f"'{name}') no longer works: callers still using it get a usage "
                                f"error; keep it in aliases=, or bump the major version",
                                lost, None))


def _shorts(name, old, new, surface, found) -> None:
    """A short flag (`-t`) dropped or moved breaks CLI callers; a new one adds a spelling."""
    before = {option["key"]: option.get("short") for option in old if "key" in option}
    after = {option["key"]: option.get("short") for option in new if "key" in option}
    for key, short in before.items():
        if key in after and short != after[key]:
            if short is None:
                found.append(Change(ADDITIVE, "short_added", name, surface,
                                    f"--{key.replace('_', '-')} can also be written "
                                    f"{after[key]}", None, after[key]))
            else:
                found.append(Change(BREAKING, "short_removed", name, surface,
                                    f"{short} no longer means --{key.replace('_', '-')} on "
                                    f"'{name}'" + (f" (now {after[key]})" if after[key] else "")
                                    + ": CLI callers using it get a usage error; keep it, or "
                                    "bump the major version", short, after[key]))


def _output(name, old, new, surface, found, where: str = "") -> None:
    if old == new:
        return
    if old is None:
        found.append(Change(ADDITIVE, "output_declared", name, surface,
                            f"'{name}' now declares its output schema", None, new))
        return
    if new is None:
        found.append(Change(BREAKING, "output_undeclared", name, surface,
                            f"'{name}' no longer declares an output schema: callers validating "
                            f"its data lose the contract; declare it again, or bump the major "
                            f"version", old, None))
        return
    if not where and old.get("type") != new.get("type"):
        found.append(Change(BREAKING, "output_retyped", name, surface,
                            f"the data of '{name}' is now {_type_words(new)} (was "
                            f"{_type_words(old)}); bump the major version", old.get("type"),
                            new.get("type")))
        return
    a, b = old.get("properties") or {}, new.get("properties") or {}
    required_b = set(new.get("required") or ())
    for key in a:
        field_name = where + key
        if key not in b:
            found.append(Change(BREAKING, "output_field_removed", name, surface,
                                f"data field '{field_name}' of '{name}' was removed: callers "
                                f"reading it break; keep it, or bump the major version",
                                field_name, None))
        elif _type_words(a[key]) != _type_words(b[key]) and \
                not ("enum" in a[key] and "enum" in b[key] and a[key].get("type") ==
                     b[key].get("type") and set(a[key]["enum"]) >= set(b[key]["enum"])):
            found.append(Change(BREAKING, "output_field_retyped", name, surface,
                                f"data field '{field_name}' of '{name}' is now "
                                f"{_type_words(b[key])} (was {_type_words(a[key])}): callers "
                                f"parsing it break; bump the major version",
                                _type_words(a[key]), _type_words(b[key])))
        elif a[key].get("type") == "object":
            _output(name, a[key], b[key], surface, found, where=field_name + ".")
    for key in b:
        if key not in a:
            found.append(Change(ADDITIVE, "output_field_added", name, surface,
                                f"new data field '{where + key}' on '{name}'"
                                + (" (always present)" if key in required_b else ""),
                                None, where + key))


# --- results: one recorded call against the same call now (replay) ------------------------------

def _kind_of(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean",
            type(None): "null"}.get(type(value), "number")


def review_result(call: str, command: str | None, old: str | None, new: str | None,
                  limit: int = 10) -> list[Any]:
    """Changes between a recorded result text (an envelope) and today's, for `call` (how the
    report names it, e.g. `status {"target": "db"}`). Breaking: the call fails now, its error
    code or exit changed, a data field went away or changed type or value. Additive: a new
    data field, or a call that failed and now succeeds. `meta` is not compared."""
    surface = "replay"
    try:
        a, b = json.loads(old or ""), json.loads(new or "")
    except ValueError:
        if old == new:
            return []
        return [Change(BREAKING, "result_changed", command, surface,
                       f"{call} answers other text now; review it, then record again",
                       old, new)]
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return [] if a == b else [Change(BREAKING, "result_changed", command, surface,
                                         f"{call} answers another document now", a, b)]
    if a.get("ok") and not b.get("ok"):
        error = b.get("error") or {}
        return [Change(BREAKING, "call_now_fails", command, surface,
                       f"{call} succeeded when recorded and now fails: {error.get('code')}: "
                       f"{error.get('message')}", True, error.get("code"))]
    if not a.get("ok") and b.get("ok"):
        return [Change(ADDITIVE, "call_now_succeeds", command, surface,
                       f"{call} failed when recorded ({(a.get('error') or {}).get('code')}) and "
                       f"succeeds now", (a.get("error") or {}).get("code"), True)]
    if not a.get("ok"):
        ea, eb = a.get("error") or {}, b.get("error") or {}
        found = []
        if ea.get("code") != eb.get("code"):
            found.append(Change(BREAKING, "error_code_changed", command, surface,
                                f"{call} now fails with {eb.get('code')} (was {ea.get('code')}):"
                                f" callers branch on error.code", ea.get("code"), eb.get("code")))
        if ea.get("exit") != eb.get("exit"):
            found.append(Change(BREAKING, "exit_changed", command, surface,
                                f"{call} now exits {eb.get('exit')} (was {ea.get('exit')})",
                                ea.get("exit"), eb.get("exit")))
        return found
    changes: list = []
    _data(call, command, a.get("data"), b.get("data"), "data", changes)
    return changes[:limit]


def _data(call, command, a, b, where, found) -> None:
    if a == b:
        return
    ka, kb = _kind_of(a), _kind_of(b)
    if ka != kb:
        found.append(Change(BREAKING, "result_field_retyped", command, "replay",
                            f"{call}: {where} is now {kb} (was {ka}): callers parsing it break",
                            a, b))
    elif ka == "object":
        for key in a:
            if key not in b:
                found.append(Change(BREAKING, "result_field_removed", command, "replay",
                                    f"{call}: {where}.{key} is gone: callers reading it break",
                                    a[key], None))
            else:
                _data(call, command, a[key], b[key], f"{where}.{key}", found)
        for key in b:
            if key not in a:
                found.append(Change(ADDITIVE, "result_field_added", command, "replay",
                                    f"{call}: new {where}.{key}", None, b[key]))
    elif ka == "array" and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            _data(call, command, x, y, f"{where}[{index}]", found)
    else:
        found.append(Change(BREAKING, "result_value_changed", command, "replay",
                            f"{call}: {where} is {json.dumps(b)[:80]} now (recorded "
                            f"{json.dumps(a)[:80]}); if intended, record the call again",
                            a, b))
