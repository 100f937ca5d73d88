"""The watcher: atomic saves, sibling packages and pyproject.toml reload; other files do not."""

import asyncio

import pytest
from conftest import hello_program, save

from workbench.dev.engine import Workbench

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]   # a real watcher: left out of the quick subset

# conftest's hello program, its description imported from a sibling package
APP = "from helpers.words import DESCRIPTION\n" + hello_program().replace('"Say hello"',
                                                                       "DESCRIPTION")


async def test_saves_of_the_file_its_packages_and_pyproject_reload(tmp_path):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    save(tmp_path / "helpers" / "words.py", 'DESCRIPTION = "Say hello"\n')
    save(tmp_path / "app.py", APP)
    bench = Workbench(str(tmp_path / "app.py"), load_timeout=5.0)
    states: asyncio.Queue = asyncio.Queue()
    bench.subscribe(lambda e: states.put_nowait(e.data) if e.kind == "state" else None)
    await bench.start(serve=False)
    try:
        first = await asyncio.wait_for(states.get(), 20)
        assert first.ok and str(tmp_path / "helpers") in bench.watch_paths()

        save(tmp_path / "helpers" / "words.py", 'DESCRIPTION = "Say hello nicely"\n')
        state = await asyncio.wait_for(states.get(), 20)
        assert state.program.find(["hello"]).description == "Say hello nicely"
        assert state.changes.changed == ("hello",)

        (tmp_path / "notes.txt").write_text("not code", encoding="utf-8")
        (tmp_path / ".app.py.swp").write_text("editor junk", encoding="utf-8")
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(states.get(), 0.6)

        save(tmp_path / "pyproject.toml", "[tool.burgee.budgets]\ncard = 7\n")
        state = await asyncio.wait_for(states.get(), 20)
        assert state.tokens.get("cards/hello.json").budget == 7
        assert any(p.code == "budget_exceeded" for p in state.problems)
    finally:
        await bench.stop()


async def test_a_save_is_served_while_the_previous_saves_state_is_still_building(tmp_path):
    import threading
    gate = threading.Event()

    class SlowStates(Workbench):
        def build_state(self, *args, **kwargs):
            if self.state.generation >= 1:      # every state after the first load waits
                gate.wait(60)
            return super().build_state(*args, **kwargs)

    file = tmp_path / "app.py"
    save(file, hello_program(description="first"))
    bench = SlowStates(str(file), load_timeout=10.0)
    await bench.start(serve=False)

    async def served(text: str) -> None:
        for _ in range(400):
            with open(bench.good_source_file, encoding="utf-8") as handle:
                if f'"{text}"' in handle.read():
                    return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{text!r} was never served")

    try:
        save(file, hello_program(description="second"))
        await served("second")
        save(file, hello_program(description="third"))
        await served("third")          # while the state of "second" is still being built
        assert bench.state.generation == 1 and not gate.is_set()
        gate.set()
        for _ in range(400):
            if bench.state.program.find(["hello"]).description == "third":
                break
            await asyncio.sleep(0.05)
        assert bench.state.program.find(["hello"]).description == "third"
    finally:
        gate.set()
        await bench.stop()
