"""The recovery rate: of the refusals a mutation met, the share whose `fix` (or first `next`),
followed mechanically, reaches the call the mutation came from.

Followed mechanically means: take the line as printed, fill each slot it holds (`<target>`,
`$NOTES_TOKEN`) with the value the original call gave that input, and set the variable of an
option the line leaves out when the original gave it (what the hint of an
`input_placeholder` says to do). It reaches the original call when the parser reads it as the
same call: the same command with the same inputs and the same flags but the output mode (the
values, not where they came from: a flag's value may now come from its variable). A mutation
that spoiled a value nobody can read back (`--count many`, a path that is not there) reaches it
when the line keeps everything else and gives that input a value it takes: the fix may name
the default, the nearest value inside `min`..`max` or the nearest existing path. Nothing is
run to decide it, so a write is measured without running it.
"""

from __future__ import annotations


def recover(context, runner, call, source, run) -> dict | None:
    """The recovery record of mutation `call` of `source`, from `run` (its agent `--json`
    run), or None when that run was not refused (exit 2) nor stopped for an action (4), or
    the mutation is a value to run rather than a mistake (`calls.RUN_ONLY`)."""
    from workbench._text import split
    from workbench.check.calls import RUN_ONLY
    if call.kind in RUN_ONLY:
        return None
    doc = run.document() if run is not None else None
    if run is None or run.exit not in (2, 4) or not isinstance(doc, dict) or \
            not isinstance(doc.get("error"), dict):
        return None
    reason = doc["error"].get("code") or "unknown"
    if run.exit == 2 and _as_its_source(context, runner, call, source, reason):
        return None
    line = doc["error"].get("fix")
    if line is None and doc.get("next"):
        step = doc["next"][0]
        line = step.get("command") if isinstance(step, dict) else None
    record = {"command": context.name, "reason": reason, "kind": call.kind,
              "mutation": call.note, "call": _line(context, call.argv), "followed": line,
              "recovered": False}
    if not isinstance(line, str):
        record["why"] = "no fix and no next"
        return record
    try:
        tokens = split(line)[1:]
    except ValueError:
        record["why"] = "the line does not parse"
        return record
    values = dict(source.values)
    env = dict(source.env)
    filled, missing = _filled(context.command, tokens, values)
    if missing:
        record["why"] = f"no value for {missing} in the original call"
        return record
    _variables_for_left_out(context.command, filled, values, env)
    got = same_call(context.program, filled, runner.environ("agent", env))
    wanted = same_call(context.program, list(source.argv), runner.environ("agent", source.env))
    if call.spoiled is not None and got[0] == "call" and wanted[0] == "call":
        got, wanted = _without(got, call.spoiled), _without(wanted, call.spoiled)
    record["recovered"] = got == wanted and got[0] == "call"
    if not record["recovered"]:
        record["why"] = _difference(got, wanted)
    return record


def _as_its_source(context, runner, call, source, reason) -> bool:
    """Whether a mutation that still parses is refused as its source is (a prompt nobody
    answers, say): the refusal is the source's, not a mistake of the mutation's."""
    if same_call(context.program, list(call.argv), runner.environ("agent", dict(call.env)))[0] \
            != "call":
        return False
    first = runner.cli(source.argv, "agent", "json", source.env, source.stdin)
    doc = first.document()
    return first.exit == 2 and isinstance(doc, dict) and isinstance(doc.get("error"), dict) \
        and doc["error"].get("code") == reason


def same_call(program, argv, environ) -> tuple:
    """What the parser reads argv as, for comparing calls: ("call", path, inputs, flags
    but the output mode), or ("refused", code)."""
    from workbench.runtime.parser import Refusal, parse
    try:
        request = parse(program, list(argv), environ)
    except Refusal as refusal:
        return ("refused", refusal.code)
    flags = {key: value for key, value in request.flags.items()
             if key not in ("json", "format", "progress")}
    path = tuple(request.command.path) if request.command is not None else \
        tuple(request.path)
    return ("call", path, dict(request.options), dict(request.args), dict(request.extras),
            flags)


def _without(read: tuple, key: str) -> tuple:
    """A call as `same_call` reads it, but for input `key` (a value the mutation spoiled: the
    line only has to give it a value it takes, which parsing it already proved)."""
    return read[:2] + tuple({k: v for k, v in part.items() if k != key} for part in read[2:5]) \
        + read[5:]


def _difference(got, wanted) -> str:
    """Why a followed line is not the original call, in a few words."""
    if got[0] == "refused":
        return f"it is refused ({got[1]})"
    if wanted[0] == "refused":
        return f"the original is refused ({wanted[1]})"
    if got[1] != wanted[1]:
        return f"it runs '{' '.join(got[1])}', not '{' '.join(wanted[1])}'"
    for index, what in ((5, "flag"), (2, "option"), (3, "argument"), (4, "option")):
        for key in sorted(set(got[index]) | set(wanted[index])):
            if got[index].get(key) != wanted[index].get(key):
                return f"its {what} {key!r} differs"
    return "it differs"


def _line(context, argv) -> str:
    from workbench._text import join
    from workbench.check.rules import shown
    return shown(join([context.program.name, *argv]), 240)


def declared_slots(command) -> set:
    """The slot texts of a command's inputs (`<target>`, `$NOTES_TOKEN`, a declared metavar
    such as Click's `KN`): a line holding one is for the caller to fill."""
    return set(_slots(command))


def _slots(command) -> dict:
    """Slot text -> input key: each input's metavar, and `$VAR` for an option's variable."""
    slots: dict = {}
    for option in command.options.values():
        for slot in [option.metavar, *option.value_slots]:   # a tuple's, one per value
            slots.setdefault(slot, option.key)
        if option.env:
            slots.setdefault("$" + option.env, option.key)
            slots.setdefault("${" + option.env + "}", option.key)
    for argument in command.arguments:
        slots.setdefault(argument.metavar, argument.key)
        slots.setdefault(argument.metavar.removesuffix("..."), argument.key)
    return slots


def _filled(command, tokens, values) -> tuple:
    """(tokens with every slot filled from the original call's values, the first slot that
    could not be filled or None). An input given several values (a list, a variadic
    argument) fills its slots with those the line does not already hold, in order."""
    from workbench._text import placeholder
    from workbench.check.calls import input_values
    slots = _slots(command)
    left = {key: list(texts) for key, texts in values.items()}
    words = len(command.words)
    own = tokens[words:] if tuple(tokens[:words]) == tuple(command.words) else tokens
    for key, texts in input_values(command, own):       # what the line already gives
        for text in texts:
            if text in left.get(key, ()):
                left[key].remove(text)
    out = []
    for token in tokens:
        flag, eq, raw = token.partition("=") if token.startswith("--") else ("", "", token)
        if placeholder(raw) is None and raw not in slots:   # `KN`: a declared metavar
            out.append(token)
            continue
        key = slots.get(raw)
        if key is None or not left.get(key):
            return out, raw
        value = left[key].pop(0)
        out.append(flag + eq + value if eq else value)
    return out, None


def _variables_for_left_out(command, tokens, values, env) -> None:
    """An option the line leaves out but the original call gave, read from its variable: the
    variable is set to the original value (what the refusal's hint says to do)."""
    written = {token.partition("=")[0] for token in tokens if token.startswith("-")}
    for key, texts in values.items():
        option = command.options.get(key)
        if option is None or not option.env or option.env in env:
            continue
        if not written & set(option.spellings):
            env[option.env] = ",".join(texts)


def summarise(records: list, budget: float) -> dict:
    """The recovery table: overall, per reason and per command (each sorted by name), and
    the records that did not recover (first 50)."""
    def table(key) -> list:
        groups: dict = {}
        for record in records:
            entry = groups.setdefault(record[key], [0, 0])
            entry[0] += 1
            entry[1] += record["recovered"]
        return [{key: name, "refusals": total, "recovered": good,
                 "rate": round(good / total, 4)} for name, (total, good) in sorted(groups.items())]

    total = len(records)
    good = sum(record["recovered"] for record in records)
    rate = round(good / total, 4) if total else None
    return {"rate": rate, "budget": budget, "refusals": total, "recovered": good,
            "within_budget": rate is None or rate >= budget,
            "by_reason": table("reason"), "by_command": table("command"),
            "unrecovered": [record for record in records if not record["recovered"]][:50]}
