"""`app count` returns data its output schema refuses (`"three"` for an integer); `app fine`
the same schema, kept. The program of the output-schema tests (invalid_output everywhere)."""

from workbench import Command, Program, run


def count(ctx):
    return {"count": "three"}


def fine(ctx):
    return {"count": 3}


SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}},
          "required": ["count"]}

program = Program(name="app", version="1.0.0", description="Counts", commands=[
    Command(name="count", description="Count things", effects="read_only",
            output=SCHEMA, examples=["app count"], run=count),
    Command(name="fine", description="Count correctly", effects="read_only",
            output=SCHEMA, examples=["app fine"], run=fine),
])

if __name__ == "__main__":
    run(program)
