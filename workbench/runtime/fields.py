"""`--fields a,b.c`: keep only the named fields of a command's data, on every command.

The one place that reads the flag's value, checks the names against what the data can hold
(the declared output schema, else the data itself) and builds the smaller objects. A named
field is always there (`null` when unset); a dotted path keeps a nested field inside its
parents (`loc.shelf` -> `{"loc":{"shelf":...}}`).
"""

from __future__ import annotations

from workbench.runtime.parser import Refusal

TYPE_CHECKING = False   # typing costs start-up time; only checkers read it
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any, NoReturn

    from workbench.declaration.model import Command


def wanted(text: str) -> list[str]:
    """The field paths of a `--fields` value, in the order given, each once."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def known_paths(schema: dict[str, Any] | None, sample: Iterable[object]) -> list[str]:
    """Every field path an object can have: from `schema` (an object's, nested properties as
    dotted paths) when it declares properties, else from the objects in `sample`."""
    paths: list = []
    if schema and schema.get("properties"):
        _schema_paths(schema, "", paths)
        return paths
    for item in sample:
        _data_paths(item, "", paths)
    return list(dict.fromkeys(paths))


def _schema_paths(schema: dict, prefix: str, paths: list) -> None:
    for key, sub in (schema.get("properties") or {}).items():
        paths.append(prefix + key)
        if isinstance(sub, dict) and sub.get("properties"):
            _schema_paths(sub, prefix + key + ".", paths)


def _data_paths(item, prefix: str, paths: list) -> None:
    if not isinstance(item, dict):
        return
    for key, value in item.items():
        paths.append(prefix + str(key))
        _data_paths(value, prefix + str(key) + ".", paths)


def item_schema(command: Command) -> dict[str, Any] | None:
    """The schema of one object of the command's data (a list's items), if declared."""
    schema = command.output or None
    if schema and schema.get("type") == "array":
        schema = schema.get("items")
    return schema if isinstance(schema, dict) else None


def check(command: Command, paths: list[str], sample: Iterable[object],
          invocation: Sequence[str]) -> None:
    """Refuse (exit 2, `unknown_field`) a path the data cannot hold, naming the known ones
    and the command line with the nearest instead; nothing to check against lets all pass."""
    known = known_paths(item_schema(command), sample)
    unknown = [path for path in paths if known and path not in known]
    if not unknown:
        return
    from workbench._text import nearest
    close = nearest(unknown[0], known, n=1)
    fixed = list(dict.fromkeys(close[0] if path == unknown[0] and close else path
                               for path in paths
                               if path not in unknown or (path == unknown[0] and close)))
    raise Refusal("unknown_field", f"unknown field{'s' if len(unknown) > 1 else ''}: "
                  f"{', '.join(unknown)}; known: {', '.join(known)}",
                  hint=f"did you mean {close[0]}?" if close else
                  "name fields from the known ones, comma-separated (a.b for a nested one)",
                  fix=list(invocation) + ["--fields", ",".join(fixed) or known[0]], field="fields")


def check_declared(command: Command, text: str, invocation: Sequence[str]) -> None:
    """Before the handler runs: refuse a path its declared output schema cannot hold, so a
    misspelt field never costs a call's effects (without a schema the data is the only
    list of fields, and `select` checks it after the run)."""
    schema = item_schema(command)
    if schema and schema.get("properties"):
        check(command, wanted(text), (), invocation)


def refuse_shape(command: Command, data: object, invocation: Sequence[str]) -> NoReturn:
    """`--fields` on data that is not an object or a list of objects: a usage refusal."""
    kind = "a list of values" if isinstance(data, list) else "nothing" if data is None else \
        "a boolean" if isinstance(data, bool) else "a number" if isinstance(data, (int, float)) \
        else "text" if isinstance(data, str) else f"a {type(data).__name__}"
    raise Refusal("fields_not_applicable", f"--fields picks fields of objects, and "
                  f"'{' '.join(command.path)}' returned {kind}",
                  hint="drop --fields for this command", fix=list(invocation), field="fields")


def pick(item: object, paths: list[str]) -> object:
    """`item` with only `paths` (each always present, `null` when unset); not an object:
    as it is."""
    if not isinstance(item, dict):
        return item
    out: dict = {}
    for path in paths:
        parts = path.split(".")
        value: object = item
        for part in parts:
            value = value.get(part) if isinstance(value, dict) else None
        into = out
        for part in parts[:-1]:
            nested = into.get(part)
            if not isinstance(nested, dict):
                nested = into[part] = {}
            into = nested
        into[parts[-1]] = value
    return out


def select(command: Command, data: object, text: str, invocation: Sequence[str]) -> object:
    """`data` (an object or a list of objects) with only the fields `text` names, after
    checking them (`check`); other data is refused (`refuse_shape`)."""
    paths = wanted(text)
    if isinstance(data, dict):
        check(command, paths, [data], invocation)
        return pick(data, paths)
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        check(command, paths, data, invocation)
        return [pick(item, paths) for item in data]
    refuse_shape(command, data, invocation)


def select_stream(command: Command, items: Iterable[object], text: str,
                  invocation: Sequence[str]) -> Iterator[object]:
    """A stream's items with only the named fields; the first object is checked (with the
    declared schema, or its own fields)."""
    paths = wanted(text)
    first = True
    for item in items:
        if first:
            check(command, paths, [item], invocation)
            first = False
        yield pick(item, paths)
