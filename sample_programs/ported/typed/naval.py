"""Click's `naval` example, ported to burgee with type hints: the same Program as ../naval.py.

    python sample_programs/ported/typed/naval.py ship move Titanic 1.5 2 --speed 12
"""

from typing import Annotated

from workbench import run
from workbench.typed import App, Opt

app = App("naval", version="2.0", description="Naval Fate.")
ship = app.group("ship", "Manages ships.")
mine = app.group("mine", "Manages mines.")


def at(x: float, y: float) -> str:
    return f"{x},{y}"


@ship.command(effects="non_idempotent", text=lambda data: f"Created ship {data['ship']}",
              examples=["naval ship new Titanic"])
def new(name: str):
    """Creates a new ship."""
    return {"ship": name}


@ship.command(effects="idempotent",
              text=lambda data: f"Moving ship {data['ship']} to {at(data['x'], data['y'])} "
                                f"with speed {data['speed']}",
              examples=["naval ship move Titanic 1.5 2 --speed 12"])
def move(ship: str, x: float, y: float,
         speed: Annotated[int, Opt("Speed in knots.", placeholder="KN")] = 10):
    """Moves SHIP to the new location X,Y."""
    return {"ship": ship, "x": x, "y": y, "speed": speed}


@ship.command(effects="non_idempotent",
              text=lambda data: f"Ship {data['ship']} fires to {at(data['x'], data['y'])}",
              examples=["naval ship shoot Titanic 3 4"])
def shoot(ship: str, x: float, y: float):
    """Makes SHIP fire to X,Y."""
    return {"ship": ship, "x": x, "y": y}


@mine.command("set", effects="idempotent",
              text=lambda data: f"Set {data['type']} mine at {at(data['x'], data['y'])}",
              examples=["naval mine set 3 4 --drifting"])
def set_mine(x: float, y: float,
             moored: Annotated[bool, Opt("Moored (anchored) mine, the default; --drifting "
                                         "for a drifting one.", off="--drifting")] = True):
    """Sets a mine at a specific coordinate."""
    return {"x": x, "y": y, "type": "moored" if moored else "drifting"}


@mine.command(effects="idempotent", text=lambda data: f"Removed mine at {at(data['x'], data['y'])}",
              examples=["naval mine remove 3 4"])
def remove(x: float, y: float):
    """Removes a mine at a specific coordinate."""
    return {"x": x, "y": y}


if __name__ == "__main__":
    run(app)
