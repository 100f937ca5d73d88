"""One call built by hand (the dashboard's Call pane): a form from a command's input schema,
its values as MCP arguments and argv, and the result kept as an example or a replay line.

    fields = form_fields(command)                  # Field per input, in schema order
    arguments = arguments_from(fields, {"target": "prod", "yes": True})   # ValueError names it
    line = example_line(command, arguments)        # `tool deploy --target prod --yes`
    new_source, diff = add_example(source, command, line)   # a unified diff to show first
"""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench._text import join
from workbench.declaration.model import Command
from workbench.dev.records import TrafficEntry
from workbench.runtime.arguments import to_argv
from workbench.surfaces.schema import input_schema


@dataclass(frozen=True)
class Field:
    """One form field: `kind` is string, integer, number, boolean, enum or array."""

    key: str
    flag: str
    kind: str
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    items: str = "string"
    description: str = ""

    @property
    def label(self) -> str:
        return self.flag + (" *" if self.required else "")


def form_fields(command: Command) -> list[Field]:
    """A Field for each property of the command's input schema (what MCP clients are shown)."""
    schema = input_schema(command)
    required = set(schema.get("required", ()))
    fields = []
    for key, prop in schema["properties"].items():
        kind = "enum" if "enum" in prop else prop.get("type", "string")
        items = prop.get("items") or {}
        fields.append(Field(key, prop.get("flag") or key, kind, key in required,
                            prop.get("default"), tuple(prop.get("enum", ())),
                            "enum" if "enum" in items else items.get("type", "string"),
                            prop.get("description", "")))
    return fields


def _scalar(field: Field, kind: str, text: str) -> Any:
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{field.flag}: {text!r} is not an integer") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{field.flag}: {text!r} is not a number") from None
        return int(number) if number.is_integer() and "." not in text else number
    return text


def arguments_from(fields: Iterable[Field], values: dict[str, Any]) -> dict[str, Any]:
    """MCP arguments from raw form values (text, a bool, or None for blank); a blank value
    and a value equal to the default are left out (the call and its example stay minimal). Raises ValueError naming the field for a missing required
    value or a value of the wrong type."""
    arguments: dict[str, Any] = {}
    for field in fields:
        raw = values.get(field.key)
        if field.kind == "boolean":
            if raw is not None and bool(raw) != bool(field.default):
                arguments[field.key] = bool(raw)
            continue
        text = raw.strip() if isinstance(raw, str) else raw
        if text in (None, ""):
            if field.required:
                raise ValueError(f"{field.flag} is required")
            continue
        if field.kind == "array":
            if isinstance(text, str) and text.startswith("["):
                try:
                    parts = json.loads(text)
                except ValueError as exc:
                    raise ValueError(f"{field.flag}: not a JSON list: {exc}") from None
            else:
                parts = [part.strip() for part in str(text).split(",") if part.strip()]
            value = [_scalar(field, field.items, str(part)) for part in parts]
        else:
            value = _scalar(field, field.kind, str(text))
        if value != field.default or field.required:
            arguments[field.key] = value
    return arguments


def example_line(command: Command, arguments: dict[str, Any]) -> str:
    """The command line that makes this call, as an example is written (program name first)."""
    program = command.program
    return join([program.name if program is not None else "", *to_argv(command, arguments)])


def _examples_node(tree: ast.AST, command: Command) -> ast.List | ast.Call:
    """The `examples=` keyword of the one `Command(name=<leaf>)` call in the source, or the
    call itself when it has none; raises ValueError when there is not exactly one."""
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name != "Command":
            continue
        for keyword in node.keywords:
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant) \
                    and keyword.value.value == command.name:
                calls.append(node)
    if len(calls) != 1:
        raise ValueError(f"found {len(calls)} Command(name={command.name!r}) calls in the "
                         f"source; add the example to its examples=[...] by hand")
    call = calls[0]
    for keyword in call.keywords:
        if keyword.arg == "examples":
            if not isinstance(keyword.value, ast.List):
                raise ValueError("its examples= is not a list literal; add the example by hand")
            return keyword.value
    return call


def add_example(source: str, command: Command, line: str,
                name: str = "source") -> tuple[str, str]:
    """(new source, unified diff) with `line` added to the command's `examples=[...]` (or an
    `examples=[...]` keyword added to its `Command(...)` call). Raises ValueError when the
    source does not declare the command as one literal call (the message says what to do)."""
    if line in command.examples:
        raise ValueError(f"'{line}' is already an example of '{' '.join(command.path)}'")
    tree = ast.parse(source)
    node = _examples_node(tree, command)
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for text in lines:
        offsets.append(offsets[-1] + len(text))

    def end_of(node: ast.expr) -> int:   # ast columns are UTF-8 byte offsets
        lineno, col = node.end_lineno or 1, node.end_col_offset or 0
        return offsets[lineno - 1] + len(lines[lineno - 1].encode("utf-8")[:col]
                                          .decode("utf-8"))
    literal = json.dumps(line, ensure_ascii=False)
    if isinstance(node, ast.List):
        end = end_of(node) - 1       # the closing bracket
        insert = (", " if node.elts else "") + literal
        if node.elts:
            end = end_of(node.elts[-1])
    else:
        end = end_of(node) - 1       # the closing parenthesis
        before = source[:end].rstrip()
        insert = ("" if before.endswith((",", "(")) else ", ") + f"examples=[{literal}]"
        end = len(before)
    new = source[:end] + insert + source[end:]
    diff = "".join(difflib.unified_diff(source.splitlines(keepends=True),
                                        new.splitlines(keepends=True), "a/" + name,
                                        "b/" + name))
    return new, diff


def replay_entry(command: Command, arguments: dict[str, Any], result_text: str,
                 is_error: bool, at: float) -> TrafficEntry:
    """A TrafficEntry for one hand-made call, as a Recorder writes it to a replay file."""
    return TrafficEntry(at=at, client="burgee dev (call pane)", session=None,
                        method="tools/call", tool=command.tool_name, arguments=arguments,
                        result=result_text, is_error=is_error, seconds=0.0)
