"""Data shaped for output tests: lists of objects with awkward cells, one object, nested and
missing fields, a stream, a page with a total, a success that suggests what to run next."""

from workbench import Command, Fail, Group, Option, Program, run

BOOKS = [
    {"id": 1, "title": "nut 1", "loc": {"shelf": "A", "bin": 3}, "tags": ["x", "y"]},
    {"id": 2, "title": "tab\there", "loc": {"shelf": "B"}, "note": "line\nbreak"},
    {"id": 3, "title": "back\\slash", "loc": None, "note": None},
]

BOOK = {"type": "object",
        "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                       "loc": {"type": ["object", "null"],
                               "properties": {"shelf": {"type": "string"},
                                              "bin": {"type": "integer"}}},
                       "tags": {"type": "array"}, "note": {"type": ["string", "null"]}}}


def books(ctx):
    return [dict(book) for book in BOOKS]


def book(ctx):
    return dict(BOOKS[ctx.options.id - 1])


def loose(ctx):
    return [{"a": 1, "b": {"c": 2}}, {"a": 3}]


def stream(ctx):
    for item in BOOKS:
        yield {"id": item["id"], "title": item["title"]}


def page(ctx):
    ctx.total(120)
    return [{"n": n} for n in range(120)]


def add(ctx):
    ctx.next(["book", "--id", "3"], why="to see it")
    return {"id": 3, "added": True}


def slow(ctx):
    import time
    steps = ctx.options.steps
    for done in range(1, steps + 1):
        time.sleep(0.02)
        ctx.progress(done, steps, "copying")
        if done == ctx.options.fail_at:
            raise Fail("disk_full", f"the disk filled up at step {done}", exit=7)
    return {"copied": steps}


def count(ctx):
    return 3


program = Program(
    name="shelf", version="1.0", description="Books on shelves", mcp_filters=True,
    commands=[
        Command(name="books", description="All books", effects="read_only", run=books,
                output={"type": "array", "items": BOOK}),
        Command(name="book", description="One book", effects="read_only", run=book,
                output=BOOK, options={"id": Option(type="integer", default=1,
                                                   description="which book")}),
        Command(name="loose", description="Objects without a schema", effects="read_only",
                run=loose),
        Command(name="stream", description="Books as a stream", effects="read_only",
                run=stream),
        Command(name="page", description="A paged list with a total", effects="read_only",
                run=page, paginated=True),
        Command(name="add", description="Add a book", effects="idempotent", run=add),
        Command(name="slow", description="Work with progress", effects="read_only", run=slow,
                options={"steps": Option(type="integer", default=30, description="steps"),
                         "fail_at": Option(type="integer", description="fail at this step")},
                errors=[{"code": "disk_full", "exit": 7}]),
        Command(name="count", description="How many books", effects="read_only", run=count),
    ])

if __name__ == "__main__":
    run(program)
