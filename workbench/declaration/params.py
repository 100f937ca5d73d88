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

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


class ValueType:
    """One kind of value: `convert` a command-line string, `fits`/`coerce` a JSON value,
    `describe` it for people, `json_schema` it, and say what is wrong with a default."""

    name = "string"
    words = "a string"

    def __init__(self, choices=None):
        self.choices = list(choices) if choices is not None else None

    def convert(self, raw: str):
        """The typed value of a command-line string; ValueError when it is not one."""
        return raw

    def fits(self, value) -> bool:
        """Whether a JSON value (an MCP argument) is already of this type."""
        return isinstance(value, str)

    def coerce(self, value):
        """The value a JSON caller most likely meant, in this type, or None."""
        if isinstance(value, str):
            try:
                return self.convert(value.strip())
            except ValueError:
                return None
        return None

    def json_schema(self) -> dict:
        return {"type": self.name}

    def default_problem(self, value) -> str:
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
        value = float(raw)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(raw)
        return int(value) if raw.lstrip("-").isdigit() else value

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
    def words(self) -> str:
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


VALUE_TYPES = {"string": _String, "integer": _Integer, "number": _Number,
               "boolean": _Boolean, "enum": _Enum}
"""Scalar value types by name; `list` is a parameter whose items have one of these."""

_WITHOUT_CHOICES = {name: factory(None) for name, factory in VALUE_TYPES.items()}
"""One shared value type per name for parameters without choices (a value type holds
nothing else), so declaring thousands of options builds none."""

TYPES = ("string", "integer", "number", "boolean", "enum", "list")
ITEM_TYPES = ("string", "integer", "number", "enum")


def number_token(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return str(value)


def article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


class Param:
    """What options and arguments share: key, type, value rules, description, default."""

    __slots__ = ("type", "description", "required", "default", "choices", "items",
                 "sensitive", "value_type", "since", "deprecated", "replaced_by")

    def _init_value(self, type, items, choices) -> None:
        self.type = type
        self.items = items
        self.choices = list(choices) if choices is not None else None

    def __getattr__(self, name: str):
        # Only reached for an unset slot: a value type nothing has read since it was built.
        if name == "value_type":
            self.value_type = value_type = self._value_type()
            return value_type
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")

    def _value_type(self) -> ValueType | None:
        """The value type of its `type` (of its `items`, for a list); None for no known type."""
        kind = self.items if self.type == "list" else self.type
        if not isinstance(kind, str):
            return None   # not a type: the definition checks refuse it
        if self.choices is None:
            return _WITHOUT_CHOICES.get(kind)
        factory = VALUE_TYPES.get(kind)
        return factory(self.choices) if factory is not None else None

    @property
    def many(self) -> bool:
        """Whether it takes several values (a list option, a variadic argument)."""
        return self.type == "list" or bool(getattr(self, "variadic", False))

    @property
    def type_words(self) -> str:
        """`string`, `integer`, `list of integer`, `enum`... for help text."""
        return "list of " + (self.items or "string") if self.type == "list" else self.type

    def describe(self) -> str:
        """What a value must be, for refusals: `an integer`, `one of: a, b`, `a list of ...`."""
        one = self.value_type.words if self.value_type is not None else self.type
        return "a list, each " + one if self.many else one

    def convert(self, raw: str):
        """One command-line string as this parameter's (item) type; ValueError if not."""
        return self.value_type.convert(raw)

    def value_schema(self) -> dict:
        """The JSON Schema of the value (arrays for lists and variadics)."""
        schema = self.value_type.json_schema() if self.value_type is not None else {}
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
                problem = self.value_type.default_problem(element)
                if problem:
                    return f"has an element {element!r} that {problem}"
            return ""
        return self.value_type.default_problem(value)

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
    def enum_values(self) -> list | None:
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
    the environment variable `env`, else `default`; `meta.provenance` says which.

        Command("deploy", effects="non_idempotent", options={
            "target": Option(required=True, description="where to deploy", short="t"),
            "replicas": Option(type="integer", default=2, env="DEPLOY_REPLICAS"),
            "region": Option(type="enum", choices=["eu", "us"], default="eu"),
            "tag": Option(type="list", items="string", description="repeat: --tag a --tag b"),
            "token": Option(sensitive=True, env="DEPLOY_TOKEN"),
            "yes": Option(type="boolean", description="skip the confirmation"),
        }, run=deploy)

    Args:
        type: `string`, `integer`, `number`, `boolean` (a flag), `enum` (one of `choices`)
            or `list` (repeated flag; each value of type `items`).
        description: one line, shown in help, cards and the input schema.
        required: the call is refused (exit 2, with a fix) without it.
        default: the value when neither the flag nor `env` gives one; it must fit `type`.
        choices: the allowed values of an `enum` (or of a list of enums).
        env: an environment variable that supplies the value when the flag is absent
            (`NOTES_FILE`); the flag wins.
        short: a one-letter short flag, `"d"` for `-d`.
        sensitive: a secret: masked as `***` in every output, never written in a fix or an
            example (`$ENV` or the placeholder stands in).
        placeholder: the value's name in usage lines and fixes (default `<key-with-dashes>`).
        since: the version that added it, e.g. `"1.2"`.
        deprecated: True or a short reason: help marks it, using it warns in `meta.warnings`.
        replaced_by: what to use instead, named in the warning.
        aliases: old names that still work, each with a deprecation warning.
        items: with `type="list"`, the type of each value: `string`, `integer`, `number` or
            `enum`.
        negatable: False drops a boolean's `--no-` form.
    """

    __slots__ = ("_key", "_spelled", "env", "short", "placeholder", "aliases", "negatable",
                 "flag", "short_flag", "negation", "alias_flags", "metavar", "spellings")
    variadic = False   # only an Argument can be; read without a miss (`Param.many`)

    def __init__(self, type: str = "string", description: str = "", required: bool = False,
                 default: object = None, choices: Sequence[object] | None = None,
                 env: str | None = None, short: str | None = None,
                 sensitive: bool = False, placeholder: str | None = None, *,
                 since: str | None = None, deprecated: str | bool | None = None,
                 replaced_by: str | None = None, aliases: Sequence[str] | str = (),
                 items: str = "string",
                 negatable: bool = True):
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

    @property
    def key(self) -> str:
        return self._key

    @key.setter
    def key(self, key: str) -> None:
        self._key = key
        if self._spelled:   # re-keyed after its spellings were read: derive them again
            self._spell()

    def __getattr__(self, name: str):
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
        self.negation = "--no-" + word if boolean and self.negatable else None
        self.alias_flags = tuple("--" + w for w in map(_flag_word, self.aliases) if w) \
            if self.aliases else ()
        spellings = {self.flag: (False, None)}
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

    Args:
        name: its name in usage lines (`<text>`) and, with dashes as underscores, its key in
            `ctx.args` and its MCP property.
        type: `string`, `integer`, `number`, `boolean`, `enum` (one of `choices`) or `list`.
        description: one line, shown in help, cards and the input schema.
        required: the call is refused (exit 2, with a fix) without it.
        variadic: it takes every remaining positional value, as a list.
        stdin: `-` as its value reads standard input (under an agent or CI, a silent open
            pipe times out instead of hanging).
        choices: the allowed values of an `enum`.
        default: the value when it is not given (with `required=False`).
        items: with `type="list"`, the type of each value.
        since: the version that added it, e.g. `"1.2"`.
        deprecated: True or a short reason: help marks it.
    """

    __slots__ = ("name", "variadic", "stdin")

    def __init__(self, name: str, type: str = "string", description: str = "",
                 required: bool = True, variadic: bool = False, stdin: bool = False, *,
                 choices: Sequence[object] | None = None, default: object = None,
                 items: str = "string",
                 since: str | None = None, deprecated: str | bool | None = None):
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
        self.replaced_by = None

    @property
    def key(self) -> str:
        return self.name.replace("-", "_") if isinstance(self.name, str) else ""

    @property
    def metavar(self) -> str:
        return "<" + str(self.name) + ">" + ("..." if self.variadic else "")

    def __repr__(self) -> str:
        return f"Argument({self.name!r}, type={self.type!r})"
