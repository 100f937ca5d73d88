"""Prompts for options declared with `prompt=`: asked of a person who can answer, checked like
the flag and asked again when refused; for anyone else, the default or `input_required`.
Imported only by a call that has an option to ask for (`Context._ask_prompts`)."""

from __future__ import annotations

from workbench.runtime._rules import fill as _fill
from workbench.runtime.parser import Refusal, convert


def ask_prompts(ctx) -> None:
    """Fill each option declared with `prompt=` that the call did not give: asked when a
    person can answer (converted and checked like the flag, asked again when refused);
    else its default, else the `input_required` refusal naming the flag to pass."""
    request = ctx._request
    if not ctx.can_prompt:
        unanswered = []
        for key in request.prompts:
            option = ctx.command.options[key]
            if option.default is not None:
                request.provenance[key] = {"source": "default"}
            else:
                unanswered.append(option)
        if not unanswered:
            return
        first = unanswered[0]
        flags = [option.flag for option in unanswered]
        raise Refusal("input_required", f"{first.prompt_text}: nobody can answer a prompt "
                      f"here; pass {' and '.join(flags)}",
                      hint="add " + ", ".join(_answer(option) for option in unanswered),
                      fix=_inserted(ctx.invocation(), [
                          token for option in unanswered
                          for token in [option.flag, *_fill(option)]]), field=first.key)
    for key in request.prompts:
        option = ctx.command.options[key]
        while True:
            try:
                value = _ask_option(ctx, option)
            except Refusal as refusal:
                ctx._world.err(f"error: {refusal.message}\n")
                continue
            break
        request.options[key] = value
        request.provenance[key] = {"source": "prompt"}
        if option.sensitive and isinstance(value, str):
            ctx._world.redactor.add([value])


def _answer(option) -> str:
    """How a caller answers in advance: `--force (or --no-force for no)`, `--name <name>`."""
    if option.type == "boolean":
        words = option.flag + (f" (or {option.negation} for no)" if option.negation else "")
    else:
        words = " ".join([option.flag, *option.value_slots])
    return words + (f" (or set {option.env})" if option.env else "")


def _ask_option(ctx, option):
    """One answer for `option`: [y/N] for a boolean; the default on an empty answer."""
    text = option.prompt_text
    default = option.default
    if option.type == "boolean":
        shown = "Y/n" if default else "y/N"
        answer = ctx._ask(f"{text} [{shown}]: ").strip().lower()
        if not answer:
            return bool(default)
        if answer in ("y", "yes", "true", "1"):
            return True
        if answer in ("n", "no", "false", "0"):
            return False
        raise Refusal("invalid_value", f"{answer!r} is not an answer; type y or n")
    suffix = f" [{_shown_default(default)}]" if default is not None and \
        not option.sensitive else ""
    raw = ctx._ask(f"{text}{suffix}: ", option.hide_input)
    if not raw:
        if default is not None:
            return option.default_value()
        raise Refusal("missing_value", "a value is required")
    if option.nargs > 1 or option.type == "list":
        parts = raw.split()
        value = [convert(option, part, option.flag, lambda: []) for part in parts]
        if option.nargs > 1:
            if len(value) % option.nargs or not value:
                        raise Refusal("invalid_value", f"{option.flag} takes {option.nargs} values "
                              f"separated by spaces")
            value = [tuple(value[at:at + option.nargs])
                     for at in range(0, len(value), option.nargs)]
            value = value if option.type == "list" else value[0]
    else:
        value = convert(option, raw, option.flag, lambda: [])
    if option.confirmation_prompt:
        again = ctx._ask("Repeat for confirmation: ", option.hide_input)
        if again != raw:
                raise Refusal("invalid_value", "the two entered values do not match")
    return value


def _inserted(tokens: list, more: list) -> list:
    """`tokens` with `more` added before a `--` (after which flags would be values)."""
    at = tokens.index("--") if "--" in tokens else len(tokens)
    return tokens[:at] + more + tokens[at:]


def _shown_default(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)
