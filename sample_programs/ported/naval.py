"""Click's `naval` example (docopt's Naval Fate), ported to burgee as data.

    python sample_programs/ported/naval.py ship new Titanic
    python sample_programs/ported/naval.py ship move Titanic 1.5 2 --speed 12
    python sample_programs/ported/naval.py mine set 3 4 --drifting

Coordinates are numbers, so `1.5 2` arrives as the floats 1.5 and 2.0, as in Click.
"""

from workbench import Argument, Command, Group, Option, Program, run


def coordinates():
    return [Argument("x", type="number"), Argument("y", type="number")]


def at(data):
    return f"{data['x']},{data['y']}"


program = Program(
    name="naval", version="2.0", description="Naval Fate.",
    commands=[
        Group("ship", "Manages ships.", commands=[
            Command("new", "Creates a new ship.", effects="non_idempotent",
                    arguments=[Argument("name")],
                    run=lambda ctx: {"ship": ctx.args.name},
                    text=lambda data: f"Created ship {data['ship']}",
                    examples=["naval ship new Titanic"]),
            Command("move", "Moves SHIP to the new location X,Y.", effects="idempotent",
                    options={"speed": Option(type="integer", default=10, placeholder="KN",
                                             description="Speed in knots.")},
                    arguments=[Argument("ship"), *coordinates()],
                    run=lambda ctx: {"ship": ctx.args.ship, "x": ctx.args.x, "y": ctx.args.y,
                                     "speed": ctx.options.speed},
                    text=lambda data: f"Moving ship {data['ship']} to {at(data)} with speed "
                                      f"{data['speed']}",
                    examples=["naval ship move Titanic 1.5 2 --speed 12"]),
            Command("shoot", "Makes SHIP fire to X,Y.", effects="non_idempotent",
                    arguments=[Argument("ship"), *coordinates()],
                    run=lambda ctx: {"ship": ctx.args.ship, "x": ctx.args.x, "y": ctx.args.y},
                    text=lambda data: f"Ship {data['ship']} fires to {at(data)}",
                    examples=["naval ship shoot Titanic 3 4"]),
        ]),
        Group("mine", "Manages mines.", commands=[
            Command("set", "Sets a mine at a specific coordinate.", effects="idempotent",
                    options={"moored": Option(type="boolean", default=True, off="--drifting",
                                              description="Moored (anchored) mine, the "
                                                          "default; --drifting for a drifting "
                                                          "one.")},
                    arguments=coordinates(),
                    run=lambda ctx: {"x": ctx.args.x, "y": ctx.args.y,
                                     "type": "moored" if ctx.options.moored else "drifting"},
                    text=lambda data: f"Set {data['type']} mine at {at(data)}",
                    examples=["naval mine set 3 4 --drifting"]),
            Command("remove", "Removes a mine at a specific coordinate.", effects="idempotent",
                    arguments=coordinates(),
                    run=lambda ctx: {"x": ctx.args.x, "y": ctx.args.y},
                    text=lambda data: f"Removed mine at {at(data)}",
                    examples=["naval mine remove 3 4"]),
        ]),
    ],
)

if __name__ == "__main__":
    run(program)
