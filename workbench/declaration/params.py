"""Option and Argument: one parameter model, normalised once: what is declared at construction,
what derives from it (spellings, the value type) on first read, so a program of thousands of
options builds only what a call reads.

Every spelling (key, long flag, short flag, `--no-` form, old names) and every value rule
(convert a command-line string, check a JSON value, describe it, schema it, check a default)
is derived here and only here; the parser, the definition checks, help, cards, schemas,
completions, MCP arguments and the adapters all read these attributes.
"""

from __future__ import annotations

TYPE_CHECKING = False   # typing costs start-up time; only checkers and the reference read it
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


class ValueType:
    """One kind of value: `convert` a command-line string, `fits`/`coerce` a JSON value,
    `describe` it for people, `json_schema` it, and say what is wrong with a default.

    A custom value type (`Option(type=URL())`) needs only three of these, the protocol:
    `convert(raw) -> value` (ValueError with a short reason when `raw` is not one),
    `json_schema() -> dict` and `describe() -> str` (`"an http(s) URL"`); an optional
    `name` names it in help and cards (default: its class name, lowercased), and an optional
    `suggest(raw) -> str | None` gives a value it accepts near a refused one, for the fix."""

    name = "string"
    words = "a string"
    rich = False
    """Values are objects made by `convert` (a date, a UUID...): a declared default is the
    string form, converted for the handler like a typed one."""
    explains = False
    """`convert`'s ValueError says why, in words worth showing (custom types)."""

    def __init__(self, choices: Sequence[object] | None = None):
        self.choices: list[Any] | None = list(choices) if choices is not None else None

    def convert(self, raw: str) -> Any:
        """The typed value of a command-line string; ValueError when it is not one."""
        return raw

    def fits(self, value: object) -> bool:
        """Whether a JSON value (an MCP argument) is already of this type."""
        return isinstance(value, str)

    def coerce(self, value: object) -> Any:
        """The value a JSON caller most likely meant, in this type, or None."""
        if isinstance(value, str):
            try:
                return self.convert(value.strip())
            except ValueError:
                return None
        return None

    def json_schema(self) -> dict[str, Any]:
        return {"type": self.name}

    def describe(self) -> str:
        return self.words

    def suggest(self, raw: str) -> str | None:
        """A value it accepts near the refused `raw`, as text, for a fix; None for none."""
        return None

    def default_problem(self, value: object) -> str:
        """'' when `value` is a valid default, else what is wrong and how to write it."""
        if not isinstance(value, str):
            return f"is not a string; use e.g. default='{value}'"
        return ""


class _String(ValueType):
    def coerce(self, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return number_token(value)
        return None


class _Integer(ValueType):
    name, words = "integer", "an integer"

    def convert(self, raw):
        return int(raw)

    def fits(self, value):
        return (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, float) and value.is_integer())

    def default_problem(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            return "is not an integer; use e.g. default=1"
        return ""


class _Number(ValueType):
    name, words = "number", "a number"

    def convert(self, raw):
        value = float(raw)   # floats are floats: `2` is 2.0, as Click and Typer give it
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(raw)
        return value

    def fits(self, value):
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and value == value and value not in (float("inf"), float("-inf"))

    def default_problem(self, value):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return "is not a number; use e.g. default=1.5"
        return ""


class _Boolean(ValueType):
    name, words = "boolean", "a boolean"

    def convert(self, raw):
        low = raw.lower()
        if low in TRUE_WORDS or low in FALSE_WORDS:
            return low in TRUE_WORDS
        raise ValueError(raw)

    def fits(self, value):
        return isinstance(value, bool)

    def default_problem(self, value):
        if not isinstance(value, bool):
            return "is not a boolean; use default=True or default=False"
        return ""


class _Enum(ValueType):
    name = "enum"

    @property
    def words(self) -> str:   # type: ignore[override]  # a class attribute in ValueType
        return "one of: " + ", ".join(map(str, self.choices or ()))

    def convert(self, raw):
        for choice in self.choices or ():
            if str(choice) == raw:
                return choice
        raise ValueError(raw)

    def fits(self, value):
        return not isinstance(value, bool) and value in (self.choices or ())

    def coerce(self, value):
        if isinstance(value, (dict, list)):
            return None
        text = str(value)
        for choice in self.choices or ():
            if str(choice) == text:
                return choice
        from workbench._text import nearest
        close = nearest(text, [str(c) for c in self.choices or ()], n=1)
        for choice in self.choices or ():
            if close and str(choice) == close[0]:
                return choice
        return None

    def json_schema(self):
        values = list(self.choices or ())
        out: dict = {}
        if values and all(isinstance(v, str) for v in values):
            out["type"] = "string"
        elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            out["type"] = "integer"
        out["enum"] = values
        return out

    def default_problem(self, value):
        if value not in (self.choices or ()):
            return f"is not one of the choices ({', '.join(map(str, self.choices or ()))}); " \
                   f"pick one"
        return ""


VALUE_TYPES: dict[str, type[ValueType]] = {
    "string": _String, "integer": _Integer, "number": _Number, "boolean": _Boolean,
    "enum": _Enum}
"""Scalar value types by name; `list` is a parameter whose items have one of these. The
shaped ones (`date`, `datetime`, `uuid`, `path`) and custom types live in `_types`, imported
by the first parameter that has one."""

_WITHOUT_CHOICES = {name: factory(None) for name, factory in VALUE_TYPES.items()}
"""One shared value type per name for parameters without choices (a value type holds
nothing else), so declaring thousands of options builds none."""


def is_value_type(kind: object) -> bool:
    """Whether `kind` speaks the custom value type protocol (`convert`, `json_schema`,
    `describe`)."""
    return all(callable(getattr(kind, name, None)) for name in ("convert", "json_schema",
                                                                 "describe"))

SHAPED = ("date", "datetime", "uuid", "path")
"""Types whose values have a shape (`workbench.declaration._types`)."""
TYPES = ("string", "integer", "number", "boolean", "enum", "list", "date", "datetime", "uuid",
         "path")
ITEM_TYPES = ("string", "integer", "number", "enum", "date", "datetime", "uuid", "path")
RANGED = ("integer", "number")
"""Types `min=` and `max=` apply to."""
PATH_KINDS = ("file", "dir")


def number_token(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return str(value)


def article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


class Param:
    """What options and arguments share: key, type, value rules, description, default.

    Settings most parameters never use (`min`, `max`, the path checks, an argument's `env`)
    are class-level defaults, stored on the instance only when declared."""

    __slots__ = ("type", "description", "required", "default", "choices", "items",
                 "sensitive", "value_type", "since", "deprecated", "replaced_by", "__dict__")

    min: float | None = None
    max: float | None = None
    exists: bool = False
    readable: bool = False
    writable: bool = False
    kind: str | None = None
    env: str | None = None
    nargs = 1
    hidden = False
    untrusted: bool = False   # its value is text a third party wrote (issue 34)
    cli_only: bool = False    # a command-line flag only, never an MCP property (`--input`)
    removed_in: str | None = None   # with deprecated: the version that removes it
    type: str | object   # the slots' types, for checkers
    items: str | object
    choices: list[Any] | None
    value_type: ValueType | None
    description: str
    required: bool
    default: Any
    sensitive: bool
    since: str | None
    deprecated: str | bool | None
    replaced_by: str | None

    def _init_value(self, type, items, choices) -> None:
        self.type = type
        self.items = items
        self.choices = list(choices) if choices is not None else None

    def _init_checks(self, min, max, exists, kind, readable, writable) -> None:
        """Store the value checks that were declared (the rest stay class defaults)."""
        if min is not None:
            self.min = min
        if max is not None:
            self.max = max
        if exists:
            self.exists = exists
        if kind is not None:
            self.kind = kind
        if readable:
            self.readable = readable
        if writable:
            self.writable = writable

    def __getattr__(self, name: str) -> Any:
        # Only reached for an unset slot: a value type nothing has read since it was built.
        if name == "value_type":
            self.value_type = value_type = self._value_type()
            return value_type
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")

    def _value_type(self) -> ValueType | None:
        """The value type of its `type` (of its `items`, for a list); None for no known type."""
        kind = self.items if self.type == "list" else self.type
        if not isinstance(kind, str):
            if not is_value_type(kind):
                return None
            from workbench.declaration._types import Custom
            return Custom(kind, self.choices)
        if self.choices is None:
            found = _WITHOUT_CHOICES.get(kind)
            if found is not None or kind not in SHAPED:
                return found
        factory = VALUE_TYPES.get(kind)
        if factory is None and kind in SHAPED:
            from workbench.declaration._types import shaped
            return shaped(kind)
        return factory(self.choices) if factory is not None else None

    @property
    def required_from_caller(self) -> bool:
        """Whether a caller must give it: `required`, and no environment variable (`env`) may
        supply it instead. Usage lines read this; `needed` adds what a machine caller must send
        because a person would be asked for it."""
        return bool(self.required) and not getattr(self, "env", None)

    @property
    def asked(self) -> bool:
        """Whether a person is asked for it on the command line (`prompt`) with no default:
        over MCP nobody can answer, so a machine caller must send it."""
        return getattr(self, "prompt", None) is not None and self.default is None

    @property
    def needed(self) -> bool:
        """Whether a machine caller must send it: `required` or `asked`, and no environment
        variable supplies it. The input schema and the checks of MCP arguments read this."""
        return (bool(self.required) or self.asked) and not getattr(self, "env", None)

    @property
    def slot(self) -> str:
        """What stands for a value wherever a real one is not written (a fix, an example, a
        masked command line): `$ENV` for a sensitive input an environment variable supplies,
        else its metavar (`<target>`)."""
        env = getattr(self, "env", None)
        if self.sensitive and env:
            return "$" + env
        metavar: str = getattr(self, "metavar", "<value>")
        return metavar.replace("...", "")

    @property
    def many(self) -> bool:
        """Whether it takes several values (a list option, a variadic argument)."""
        return self.type == "list" or bool(getattr(self, "variadic", False))

    @property
    def type_name(self) -> str:
        """Its type as a word (`integer`, `list`, a custom type's name), for cards."""
        if isinstance(self.type, str):
            return self.type
        value_type = self.value_type
        return value_type.name if value_type is not None else type(self.type).__name__

    @property
    def item_name(self) -> str:
        """The type of each value of a list, as a word."""
        if isinstance(self.items, str):
            return self.items
        value_type = self.value_type
        return value_type.name if value_type is not None else type(self.items).__name__

    @property
    def type_words(self) -> str:
        """`string`, `integer`, `list of integer`, `enum`... for help text."""
        one = self.item_name if self.type == "list" else self.type_name
        if self.nargs > 1:
            one = f"{self.nargs} x {one}"
        return "list of " + one if self.type == "list" else one

    def describe(self) -> str:
        """What a value must be, for refusals: `an integer`, `one of: a, b`, `a list of ...`."""
        one = self.value_type.words if self.value_type is not None else str(self.type)
        if self.type_name == "path" or (self.item_name == "path" and self.type == "list"):
            one = self.path_words() or one
        limits = self.range_words()
        if limits:
            one += " " + limits
        if self.nargs > 1:
            one = f"{self.nargs} values ({one})"
        return "a list, each " + one if self.many else one

    def range_words(self) -> str:
        """`from 1 to 10`, `of at least 0`, `of at most 2.5`, or ''."""
        low, high = self.min, self.max
        if low is not None and high is not None:
            return f"from {number_token(low)} to {number_token(high)}"
        if low is not None:
            return f"of at least {number_token(low)}"
        if high is not None:
            return f"of at most {number_token(high)}"
        return ""

    def path_words(self) -> str:
        """`the path of an existing file`, `a path (writable)`..., or '' when not a path."""
        what = {"file": "file", "dir": "folder"}.get(str(self.kind), "file or folder")
        if self.exists:
            words = f"the path of an existing {what}"
        elif self.kind:
            words = f"the path of a {what}"
        else:
            words = "a path"
        access = [word for word, on in (("readable", self.readable),
                                        ("writable", self.writable)) if on]
        return words + (f" ({' and '.join(access)})" if access else "")

    def convert(self, raw: str) -> Any:
        """One command-line string as this parameter's (item) type; ValueError if not."""
        return self.value_type.convert(raw)   # type: ignore[union-attr]  # a checked type

    @property
    def checked(self) -> bool:
        """Whether a converted value has limits to keep (`min`, `max`, the path checks)."""
        return self.min is not None or self.max is not None or bool(
            self.exists or self.kind or self.readable or self.writable)

    def check(self, value: Any) -> str:
        """'' when a converted value keeps the declared limits, else what is wrong with it
        (`must be at least 1`, `does not exist`); every item of a list or tuple is checked."""
        if isinstance(value, (list, tuple)):
            for item in value:
                problem = self.check(item)
                if problem:
                    return problem
            return ""
        if self.min is not None and value < self.min:
            return f"must be at least {number_token(self.min)}"
        if self.max is not None and value > self.max:
            return f"must be at most {number_token(self.max)}"
        if self.exists or self.kind or self.readable or self.writable:
            return self._path_problem(value)
        return ""

    def _path_problem(self, path) -> str:
        import os
        if not isinstance(path, str) or not os.path.exists(path):
            return "does not exist" if self.exists else ""
        folder = os.path.isdir(path)
        if self.kind == "file" and folder:
            return "is a folder, not a file"
        if self.kind == "dir" and not folder:
            return "is not a folder"
        if self.readable and not os.access(path, os.R_OK):
            return "is not readable"
        if self.writable and not os.access(path, os.W_OK):
            return "is not writable"
        return ""

    def clamped(self, value: Any) -> Any:
        """`value` moved inside `min`..`max` (for a fix that runs)."""
        if self.min is not None and value < self.min:
            return self.min
        if self.max is not None and value > self.max:
            return self.max
        return value

    def value_schema(self) -> dict[str, Any]:
        """The JSON Schema of the value (arrays for lists, variadics and tuples)."""
        schema = self.value_type.json_schema() if self.value_type is not None else {}
        if self.min is not None:
            schema["minimum"] = self.min
        if self.max is not None:
            schema["maximum"] = self.max
        if self.nargs > 1:
            schema = {"type": "array", "items": schema, "minItems": self.nargs,
                      "maxItems": self.nargs}
        if self.type == "list":
            schema = {"type": "array", "items": schema}
        if getattr(self, "variadic", False):
            schema = {"type": "array", "items": schema}
        return schema

    def default_problem(self) -> str:
        """'' when the declared default fits, else what is wrong with it."""
        value = self.default
        if value is None or self.value_type is None:
            return ""
        if self.type == "list":
            if not isinstance(value, (list, tuple)):
                return "is not a list; use a list, e.g. default=[]"
            for element in value:
                problem = self._one_default_problem(element)
                if problem:
                    return f"has an element {element!r} that {problem}"
            return ""
        return self._one_default_problem(value)

    def _one_default_problem(self, value) -> str:
        if self.nargs > 1:
            if not isinstance(value, (list, tuple)) or len(value) != self.nargs:
                return f"is not {self.nargs} values; use a tuple of {self.nargs}"
            for element in value:
                problem = self.value_type.default_problem(element)  # type: ignore[union-attr]
                if problem:
                    return problem
            return ""
        return self.value_type.default_problem(value)   # type: ignore[union-attr]

    def default_value(self) -> Any:
        """The declared default as the handler gets it: a number as a float, a date or UUID
        (or a custom type's value) converted from its string, a tuple for `nargs`."""
        value = self.default
        kind = self.value_type
        if value is None or kind is None:
            return value
        rich, number = kind.rich, kind.name == "number"
        if not rich and not number and self.nargs == 1:
            return list(value) if self.type == "list" else value

        def one(item):
            if number:
                return float(item)
            if rich:
                return kind.convert(item if isinstance(item, str) else number_token(item))
            return item

        def shaped(item):
            return tuple(map(one, item)) if self.nargs > 1 else one(item)
        return [shaped(item) for item in value] if self.type == "list" else shaped(value)

    def fill_value(self, near: str | None = None) -> str | None:
        """What a fix writes for a value the caller must still give: for an enum the nearest
        choice, else the default, else the first choice; None for other types (the fix then
        shows the metavar slot)."""
        choices = self.enum_values
        if not choices:
            return None
        if near is not None:
            return near
        default = self.default[0] if isinstance(self.default, (list, tuple)) and self.default \
            else self.default
        return str(default) if default is not None and default in choices else str(choices[0])

    @property
    def enum_values(self) -> list[Any] | None:
        """The allowed values of an enum input (or list of enums), else None."""
        return list(self.choices or ()) if isinstance(self.value_type, _Enum) else None


def _flag_word(name) -> str | None:
    """`--old_name`, `old-name`, `-x` -> `old-name`; None when nothing is left."""
    if not isinstance(name, str):
        return None
    word = name.lstrip("-").replace("_", "-")
    return word or None


_SPELLED = frozenset(("flag", "short_flag", "negation", "alias_flags", "metavar", "spellings"))


class Option(Param):
    """A named input: the key `skip_build` is the flag `--skip-build` and the MCP property
    `skip_build`. `short="d"` (or `"-d"`) adds `-d`; `aliases=["dest"]` (or `"--dest"`) keeps
    old names working, with a deprecation warning; a boolean also gets `--no-skip-build`.

    Its key is the one it has in `Command(options={...})`. A value comes from the flag, else
    the environment variable `env`, else a prompt (when declared and a person can answer),
    else `default`; `meta.provenance` says which.

        Command("deploy", effects="non_idempotent", options={
            "target": Option(required=True, description="where to deploy", short="t"),
            "replicas": Option(type="integer", default=2, min=1, max=10, env="REPLICAS"),
            "region": Option(type="enum", choices=["eu", "us"], default="eu"),
            "tag": Option(type="list", items="string", description="repeat: --tag a --tag b"),
            "token": Option(sensitive=True, env="DEPLOY_TOKEN", prompt="API token",
                            hide_input=True),
            "config": Option(type="path", exists=True, kind="file"),
            "verbose": Option(count=True, short="v", description="-vvv for more"),
            "shallow": Option(type="boolean", off="--deep"),
        }, run=deploy)

    Args:
        type: `string`, `integer`, `number` (always a float), `boolean` (a flag), `enum` (one
            of `choices`), `list` (repeated flag; each value of type `items`), `date`
            (`2024-01-31`), `datetime` (ISO 8601; the handler gets an aware datetime in UTC,
            no offset meaning UTC), `uuid`, `path` (a string; see `exists`), or a custom
            value type: an object with `convert(raw)`, `json_schema()` and `describe()`.
        description: one line, shown in help, cards and the input schema.
        required: the call is refused (exit 2, with a fix) without it.
        default: the value when neither the flag nor `env` gives one; it must fit `type`
            (dates, UUIDs and custom types as the text a caller types).
        choices: the allowed values of an `enum` (or of a list of enums).
        env: an environment variable that supplies the value when the flag is absent
            (`NOTES_FILE`); the flag wins.
        short: a one-letter short flag, `"d"` for `-d`.
        sensitive: a secret: masked as `***` in every output, never written in a fix or an
            example (`$ENV` or the placeholder stands in).
        placeholder: the value's name in usage lines and fixes (default `<key-with-dashes>`);
            with `nargs`, one name per value separated by spaces (`"<key> <value>"`).
        since: the version that added it, e.g. `"1.2"`.
        deprecated: True or a short reason: help marks it, using it warns in `meta.warnings`.
        replaced_by: what to use instead, named in the warning.
        aliases: old names that still work, each with a deprecation warning.
        items: with `type="list"`, the type of each value (any type but `boolean`/`list`).
        negatable: False drops a boolean's `--no-` form.
        min: the smallest value an `integer` or `number` takes (JSON Schema `minimum`).
        max: the largest value an `integer` or `number` takes (JSON Schema `maximum`).
        exists: with `type="path"`, the path must exist.
        kind: with `type="path"`, `"file"` or `"dir"`: what an existing path must be.
        readable: with `type="path"`, an existing path must be readable.
        writable: with `type="path"`, an existing path must be writable.
        count: the flag counts its uses (`-vvv` is 3; `--verbose=3` too); an integer,
            default 0.
        nargs: the flag takes this many values (`--point 1 2`), a tuple for the handler.
        off: a boolean's own off switch instead of `--no-KEY`, e.g. `off="--deep"` for
            `--shallow`.
        hidden: parsed, but left out of human help and completions (still in cards,
            schemas and MCP).
        prompt: ask for it (this text, or True for the key in words) when it is not given
            and a person can answer; converted and checked like the flag, asked again when
            the answer is refused. Nobody to answer: the default, else `input_required`.
        confirmation_prompt: ask twice and require the same answer.
        hide_input: do not echo what is typed at the prompt.
        requires: keys of other inputs that must be given whenever this one is.
        conflicts: keys of other inputs that must not be given with this one.
        untrusted: its value is text a third party wrote (an issue body, a web page): listed
            in `meta.untrusted`, never put into a `next` step, escaped for terminals.
        removed_in: with `deprecated`, the version that removes it (`"3.0"`).
    """

    __slots__ = ("_key", "_spelled", "env", "short", "placeholder", "aliases", "negatable",
                 "flag", "short_flag", "negation", "alias_flags", "metavar", "spellings")
    removed_in: str | None   # Param's default (None), set on the instance when declared
    variadic = False   # only an Argument can be; read without a miss (`Param.many`)
    count: bool = False
    off: str | bool | None = None
    prompt: str | bool | None = None
    confirmation_prompt: bool = False
    hide_input: bool = False
    env: str | None   # the slots' types, for checkers
    short: str | None
    placeholder: str | None
    aliases: tuple[str, ...]
    negatable: bool
    flag: str
    short_flag: str | None
    negation: str | None
    alias_flags: tuple[str, ...]
    metavar: str
    spellings: dict[str, tuple[bool, str | None]]
    requires: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    bare: tuple[Any, ...] | None = None
    """`(value,)`: the value its flag takes when given without one (argparse's `nargs="?"`
    with `const`; set by the adapter)."""
    greedy: int | None = None
    """For a list: the flag takes every value after it up to the next flag, at least this
    many (argparse's `nargs="+"` 1, `"*"` 0; set by the adapter)."""

    def __init__(self, type: str | object = "string", description: str = "",
                 required: bool = False, default: object = None,
                 choices: Sequence[object] | None = None,
                 env: str | None = None, short: str | None = None,
                 sensitive: bool = False, placeholder: str | None = None, *,
                 since: str | None = None, deprecated: str | bool | None = None,
                 replaced_by: str | None = None, aliases: Sequence[str] | str = (),
                 items: str | object = "string",
                 negatable: bool = True, min: float | None = None, max: float | None = None,
                 exists: bool = False, kind: str | None = None, readable: bool = False,
                 writable: bool = False, count: bool = False, nargs: int = 1,
                 off: str | None = None, hidden: bool = False,
                 prompt: str | bool | None = None, confirmation_prompt: bool = False,
                 hide_input: bool = False, requires: Sequence[str] = (),
                 conflicts: Sequence[str] = (), untrusted: bool = False,
                 removed_in: str | None = None):
        if count:
            self.count = count
            if type == "string":
                type = "integer"
            if default is None:
                default = 0
            if min is None:
                min = 0
        self._init_value(type, items, choices)
        self.description = description
        self.required = required
        self.default = default
        self.env = env
        self.short = short.lstrip("-") if isinstance(short, str) else short
        self.sensitive = sensitive
        self.placeholder = placeholder
        self.since = since
        self.deprecated = deprecated
        self.replaced_by = replaced_by
        self.aliases = tuple(aliases) if not isinstance(aliases, str) else (aliases,)
        self.negatable = negatable
        self._key = ""   # given by its Command; the spellings are derived on first read
        self._spelled = False
        if min is not None or max is not None or exists or kind is not None or readable \
                or writable:
            self._init_checks(min, max, exists, kind, readable, writable)
        if nargs != 1:
            self.nargs = nargs
        if off is not None:
            self.off = off
        if hidden:
            self.hidden = hidden
        if prompt is not None and prompt is not False:
            self.prompt = prompt
        if confirmation_prompt:
            self.confirmation_prompt = confirmation_prompt
        if hide_input:
            self.hide_input = hide_input
        if requires:
            self.requires = tuple(requires) if not isinstance(requires, str) else (requires,)
        if conflicts:
            self.conflicts = tuple(conflicts) if not isinstance(conflicts, str) \
                else (conflicts,)
        if untrusted:
            self.untrusted = untrusted
        if removed_in is not None:
            self.removed_in = removed_in

    @property
    def key(self) -> str:
        return self._key

    @key.setter
    def key(self, key: str) -> None:
        self._key = key
        if self._spelled:   # re-keyed after its spellings were read: derive them again
            self._spell()

    @property
    def replacement(self) -> str | None:
        """`replaced_by` as a caller writes it: an option's key (`everything`) as its flag
        (`--everything`); a flag or anything with a space (`deploy --to`) as declared."""
        named = self.replaced_by
        if not named or named.startswith("-") or " " in named:
            return named
        return "--" + named.replace("_", "-")

    @property
    def flag_only(self) -> bool:
        """Whether the flag takes no value: a boolean, or a count."""
        return self.type == "boolean" or bool(self.count)

    @property
    def prompt_text(self) -> str | None:
        """What a prompt asks: the declared text, or the key in words for `prompt=True`."""
        if self.prompt is None:
            return None
        if isinstance(self.prompt, str):
            return self.prompt
        return self._key.replace("_", " ").capitalize()

    @property
    def value_slots(self) -> list[str]:
        """The tokens that stand for its value in a fix: `[<target>]`, one per value for
        `nargs`, none for a flag that takes no value."""
        if self.flag_only:
            return []
        if self.nargs > 1:
            words = self.metavar.split() if isinstance(self.placeholder, str) else []
            return words if len(words) == self.nargs else [self.metavar] * self.nargs
        return [self.metavar]

    def __getattr__(self, name: str) -> Any:
        # Only reached for an unset slot: spellings nothing has read since it was built.
        if name in _SPELLED:
            self._spell()
            return object.__getattribute__(self, name)
        return Param.__getattr__(self, name)

    def _spell(self) -> None:
        """Derive every spelling from the key, short and aliases (once per key)."""
        self._spelled = True
        key = self._key if isinstance(self._key, str) else ""
        word = key.replace("_", "-")
        self.flag = "--" + word
        self.metavar = self.placeholder if isinstance(self.placeholder, str) and \
            self.placeholder else "<" + word + ">"
        self.short_flag = "-" + self.short if isinstance(self.short, str) and \
            len(self.short) == 1 else None
        boolean = self.type == "boolean"
        off = self.off
        if boolean and isinstance(off, str) and _flag_word(off):
            self.negation = "--" + str(_flag_word(off))
        else:
            self.negation = "--no-" + word if boolean and self.negatable else None
        self.alias_flags = tuple("--" + w for w in map(_flag_word, self.aliases) if w) \
            if self.aliases else ()
        spellings: dict[str, tuple[bool, str | None]] = {self.flag: (False, None)}
        if self.short_flag:
            spellings[self.short_flag] = (False, None)
        for alias in self.alias_flags:
            spellings.setdefault(alias, (False, alias))
        if self.negation:
            spellings.setdefault(self.negation, (True, None))
        self.spellings = spellings

    def __repr__(self) -> str:
        return f"Option({self.flag}, type={self.type!r})"


class Argument(Param):
    """A positional input. `variadic` takes the rest; `stdin` accepts `-` to read standard input.

        Command("add", effects="non_idempotent", arguments=[
            Argument("text", description="the note; - reads standard input", stdin=True),
        ], run=add)

        Command("copy", effects="non_idempotent", arguments=[   # copy SRC... DST
            Argument("src", type="path", variadic=True, exists=True),
            Argument("dst", type="path"),
        ], run=copy)

    Args:
        name: its name in usage lines (`<text>`) and, with dashes as underscores, its key in
            `ctx.args` and its MCP property.
        type: any type an `Option` takes (not `boolean`), or a custom value type.
        description: one line, shown in help, cards and the input schema.
        required: the call is refused (exit 2, with a fix) without it.
        variadic: it takes every remaining positional value, as a list; one variadic
            argument may come before required ones (`SRC... DST`), which take the last
            values.
        stdin: `-` as its value reads standard input (under an agent or CI, a silent open
            pipe times out instead of hanging).
        choices: the allowed values of an `enum`.
        default: the value when it is not given (with `required=False`).
        items: with `type="list"`, the type of each value.
        since: the version that added it, e.g. `"1.2"`.
        deprecated: True or a short reason: help marks it.
        env: an environment variable that supplies the value when it is not given (a
            variadic argument splits it at whitespace).
        min: the smallest value an `integer` or `number` takes.
        max: the largest value an `integer` or `number` takes.
        exists: with `type="path"`, the path must exist.
        kind: with `type="path"`, `"file"` or `"dir"`.
        readable: with `type="path"`, an existing path must be readable.
        writable: with `type="path"`, an existing path must be writable.
    """

    __slots__ = ("name", "variadic", "stdin")
    name: str   # the slots' types, for checkers
    variadic: bool
    stdin: bool
    env: str | None

    rest: bool = False
    """A variadic argument that takes every token after the arguments before it verbatim,
    option-looking ones included (argparse's `REMAINDER`; set by the adapter)."""

    def __init__(self, name: str, type: str | object = "string", description: str = "",
                 required: bool = True, variadic: bool = False, stdin: bool = False, *,
                 choices: Sequence[object] | None = None, default: object = None,
                 items: str | object = "string",
                 since: str | None = None, deprecated: str | bool | None = None,
                 env: str | None = None, min: float | None = None, max: float | None = None,
                 exists: bool = False, kind: str | None = None, readable: bool = False,
                 writable: bool = False):
        self.name = name
        self._init_value(type, items, choices)
        self.description = description
        self.required = required
        self.variadic = variadic
        self.stdin = stdin
        self.default = default
        self.sensitive = False
        self.since = since
        self.deprecated = deprecated
        self.replaced_by: str | None = None
        if env is not None:
            self.env = env
        if min is not None or max is not None or exists or kind is not None or readable \
                or writable:
            self._init_checks(min, max, exists, kind, readable, writable)

    @property
    def key(self) -> str:
        return self.name.replace("-", "_") if isinstance(self.name, str) else ""

    @property
    def metavar(self) -> str:
        return "<" + str(self.name) + ">" + ("..." if self.variadic else "")

    def __repr__(self) -> str:
        return f"Argument({self.name!r}, type={self.type!r})"
