"""A program whose commands answer with a result of any size, for the result size limit."""

from workbench import Command, Option, Program, run


def blob(ctx):
    return {"blob": "x" * ctx.options.megabytes * 1_000_000}


def items(ctx):
    return [{"id": i, "text": "y" * 1000} for i in range(ctx.options.count)]


def shaped(ctx):
    return {"text": "z" * ctx.options.kilobytes * 1000}


def small(ctx):
    return {"ok": True}


program = Program(
    name="huge", version="1.0.0", description="Results of any size",
    commands=[
        Command(name="blob", description="One string of MEGABYTES megabytes", effects="read_only",
                options={"megabytes": Option(type="integer", default=1,
                                             description="size in megabytes")},
                run=blob, examples=["huge blob --megabytes 1"]),
        Command(name="items", description="COUNT items of about 1 KB", effects="read_only",
                paginated=100000,
                options={"count": Option(type="integer", default=10,
                                         description="how many items")},
                run=items, examples=["huge items --count 10"]),
        Command(name="shaped", description="An object of KILOBYTES kilobytes, with an output "
                "schema (sent twice: text and structuredContent)", effects="read_only",
                options={"kilobytes": Option(type="integer", default=1,
                                             description="size in kilobytes")},
                output={"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]},
                run=shaped, examples=["huge shaped --kilobytes 1"]),
        Command(name="small", description="A small answer", effects="read_only", run=small,
                examples=["huge small"]),
    ],
)

if __name__ == "__main__":
    run(program)
