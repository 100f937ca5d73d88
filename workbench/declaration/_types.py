"""The value types with a shape — `date`, `datetime`, `uuid`, `path` — and the adapter of a
custom value type, imported by the first parameter that has one (`Param.value_type`), so a
program that uses none of them never loads this module, nor `datetime` or `uuid`."""

from __future__ import annotations

from workbench.declaration.params import ValueType, number_token


class _Text(ValueType):
    """A string with a shape (a date, a UUID): JSON callers send the string; `convert` makes
    the object. Its module is imported only when a value is converted."""

    rich = True
    format = ""
    example = ""

    def coerce(self, value):
        return None

    def json_schema(self):
        return {"type": "string", "format": self.format}

    def default_problem(self, value):
        try:
            if isinstance(value, str):
                self.convert(value)
                return ""
        except ValueError:
            pass
        return f"is not {self.words}; write it as a string, e.g. default='{self.example}'"


class _Date(_Text):
    name, words, format, example = "date", "a date (YYYY-MM-DD)", "date", "2024-01-31"

    def convert(self, raw):
        from datetime import date
        return date.fromisoformat(raw.strip())


class _DateTime(_Text):
    name, format, example = "datetime", "date-time", "2024-01-31T09:30:00Z"
    words = "an ISO 8601 date and time (2024-01-31T09:30:00Z; no offset means UTC)"

    def convert(self, raw):
        from datetime import datetime, timezone
        value = datetime.fromisoformat(raw.strip())
        if value.tzinfo is None:   # no offset given: UTC, never the local time of a machine
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class _Uuid(_Text):
    name, words, format, example = "uuid", "a UUID", "uuid", \
        "123e4567-e89b-12d3-a456-426614174000"

    def convert(self, raw):
        import uuid
        return uuid.UUID(raw.strip())


class _Path(ValueType):
    name, words = "path", "a path"

    def convert(self, raw):
        if not raw or "\x00" in raw:
            raise ValueError(raw)
        return raw

    def json_schema(self):
        return {"type": "string"}


class Custom(ValueType):
    """A custom value type (the protocol: `convert`, `json_schema`, `describe`) behind the
    interface every surface reads."""

    rich = True
    explains = True

    def __init__(self, kind, choices=None):
        super().__init__(choices)
        self.kind = kind
        named = getattr(kind, "name", None)
        self.name = named if isinstance(named, str) and named else type(kind).__name__.lower()

    @property
    def words(self) -> str:   # type: ignore[override]  # a class attribute in ValueType
        try:
            return str(self.kind.describe())
        except Exception:  # noqa: BLE001 - the author's code: a refusal still reads
            return self.name

    def convert(self, raw):
        try:
            return self.kind.convert(raw)
        except ValueError:
            raise
        except Exception as error:  # noqa: BLE001 - a bug in it is a refusal, never a traceback
            raise ValueError(f"{type(error).__name__}: {error}") from None

    def json_schema(self):
        schema = self.kind.json_schema()
        return dict(schema) if isinstance(schema, dict) else {}

    def suggest(self, raw):
        suggest = getattr(self.kind, "suggest", None)
        if not callable(suggest):
            return None
        try:
            value = suggest(raw)
            self.convert(value)
        except Exception:  # noqa: BLE001 - the author's code; a suggestion that fails is none
            return None
        return value if isinstance(value, str) else None

    def fits(self, value):
        kind = self.json_schema().get("type")
        if kind == "string":
            return isinstance(value, str)
        if kind == "integer":
            return isinstance(value, int) and not isinstance(value, bool)
        if kind == "number":
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind == "boolean":
            return isinstance(value, bool)
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)

    def coerce(self, value):
        if self.json_schema().get("type") == "string" and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            return number_token(value)
        return None

    def default_problem(self, value):
        try:
            self.convert(value if isinstance(value, str) else number_token(value))
        except (ValueError, TypeError):
            return f"is not {self.words}; give it as the text a caller would type"
        return ""


_SHAPED = {"date": _Date, "datetime": _DateTime, "uuid": _Uuid, "path": _Path}
_SHARED: dict = {}


def shaped(kind: str) -> ValueType:
    """The one value type of a shaped kind (they hold nothing per parameter)."""
    found = _SHARED.get(kind)
    if found is None:
        found = _SHARED[kind] = _SHAPED[kind]()
    return found
