"""Click's `validation` example, ported to burgee with type hints: the same Program as
../validation.py (whose value types and text renderer it reuses).

    python sample_programs/ported/typed/validation.py --count 4 --url https://example.org
"""

import os
import runpy
from typing import Annotated, Literal, Optional
from urllib.parse import ParseResult

from workbench import run
from workbench.typed import App, Opt

_data = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "validation.py"))
EvenCount, URL, shown = _data["EvenCount"], _data["URL"], _data["shown"]

app = App("validation", version="1.0", description="Validation.", single=True)


@app.command(effects="read_only", text=shown,
             examples=["validation --count 4 --url https://example.org"])
def validation(count: Annotated[int, Opt("A positive even number.", type=EvenCount())] = 2,
               foo: Annotated[Optional[Literal["wat"]], Opt("A mysterious parameter.")] = None,
               url: Annotated[Optional[ParseResult], Opt("A URL", type=URL())] = None):
    """Validation.

    This example validates parameters in different ways. It does it through a custom value
    type for the count and the URL, and a choice for foo.
    """
    return {"count": count, "foo": foo, "url": url._asdict() if url is not None else None}


if __name__ == "__main__":
    run(app)
