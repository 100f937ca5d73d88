"""Issue 34's runtime checks of who acts and on what: self-scoped commands (`not_yours`),
ambiguous words, and a request given whole as JSON (`--input FILE|-`).

Imported only when a command declares one of them (or argv names an ambiguous word).
"""

from __future__ import annotations

from workbench.runtime.parser import Refusal


def check_scope(command, ctx) -> None:
    """Refuse `not_yours` (exit 2) when the item this call acts on belongs to another agent.

    The caller is `--agent` when given, else the detected agent (`ctx.agent` becomes it); a
    person (neither) acts on anything. `command.self_scope(ctx)` names the owner (None:
    nobody's, anyone may act)."""
    caller = ctx._request.extras.get("agent") or ctx.agent
    ctx.agent = caller
    if caller is None:
        return
    owner = command.self_scope(ctx)
    if owner is None or str(owner) == caller:
        return
    name = " ".join(command.path)
    message = (f"'{name}' acts only on the caller's own items: this one belongs to "
               f"{str(owner)!r}, and you are {caller!r}")
    if command.instead:
        fix = command.instead.replace("{agent}", caller).replace("{owner}", str(owner))
        raise Refusal("not_yours", message, hint="work on your own items instead (the fix), "
                      f"or ask the person to run it for {str(owner)!r}", fix=fix)
    raise Refusal("not_yours", message, hint=f"ask the person: only they (or {str(owner)!r}) "
                  f"can run '{name}' on it")
