"""Click's `validation` example, ported to burgee as data: what Click checks in a callback,
a custom type and the function body is declared, so help, the schema and MCP say it too.

    python sample_programs/ported/validation.py --count 4 --url https://example.org
    python sample_programs/ported/validation.py --count 3   # refused: an even count

`--count` is an `EvenCount` (a custom value type: `convert`, `json_schema`, `describe`),
`--foo` takes only `wat`, `--url` is a `URL` that must be http or https.
"""

from urllib import parse as urlparse

from workbench import Command, Option, Program, run


class EvenCount:
    """A positive, even integer (Click's callback `validate_count`)."""

    name = "even-count"

    def convert(self, raw):
        value = int(raw)
        if value < 0 or value % 2 != 0:
            raise ValueError("should be a positive, even integer")
        return value

    def json_schema(self):
        return {"type": "integer", "minimum": 0, "multipleOf": 2}

    def describe(self):
        return "a positive, even integer"

    def suggest(self, raw):
        """The nearest positive, even integer, for a refusal's fix."""
        try:
            value = abs(int(float(raw)))
        except ValueError:
            return None
        return str(value + value % 2)


class URL:
    """An http or https URL, parsed (Click's custom `URL` type)."""

    name = "url"

    def convert(self, raw):
        value = urlparse.urlparse(raw)
        if value.scheme not in ("http", "https"):
            raise ValueError(f"invalid URL scheme ({value.scheme}). Only HTTP URLs are allowed")
        return value

    def json_schema(self):
        return {"type": "string", "format": "uri", "pattern": "^https?://"}

    def describe(self):
        return "an http or https URL"

    def suggest(self, raw):
        """The same address over https, for a refusal's fix."""
        rest = raw.split("://", 1)[-1]
        return "https://" + rest if rest else None


def validate(ctx):
    url = ctx.options.url
    return {"count": ctx.options.count, "foo": ctx.options.foo,
            "url": url._asdict() if url is not None else None}


def shown(data):
    url = urlparse.ParseResult(**data["url"]) if data["url"] is not None else None
    return f"count: {data['count']}\nfoo: {data['foo']}\nurl: {url!r}"


program = Program(
    name="validation", version="1.0", description="Validation.", single=True,
    commands=[
        Command("validation", "Validation.", effects="read_only",
                help="This example validates parameters in different ways. It does it through "
                     "a custom value type for the count and the URL, and a choice for foo.",
                options={"count": Option(type=EvenCount(), default=2,
                                         description="A positive even number."),
                         "foo": Option(type="enum", choices=["wat"],
                                       description="A mysterious parameter."),
                         "url": Option(type=URL(), description="A URL")},
                run=validate, text=shown,
                examples=["validation --count 4 --url https://example.org"]),
    ],
)

if __name__ == "__main__":
    run(program)
