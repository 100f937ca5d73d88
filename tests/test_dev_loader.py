"""The dev loader: fresh namespace, time limit, last good program kept, no stale siblings."""

import os
import subprocess
import sys
import textwrap

from workbench.dev import loader
from workbench.dev.engine import Workbench

GOOD = textwrap.dedent('''
    from workbench import Command, Program

    def hello(ctx):
        return {"hello": "world"}

    program = Program(name="app", version="1.0.0", description="A test program", commands=[
        Command(name="hello", description="Say hello", effects="read_only",
                examples=["app hello"], run=hello),
    ])
''')


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_loads_the_module_level_program(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD), timeout=10)
    assert loaded.ok and loaded.name == "program" and loaded.program.name == "app"
    assert loaded.program.source == str(tmp_path / "app.py")


def test_syntax_error_is_data_with_the_line(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\ndef broken(:\n"), timeout=10)
    assert not loaded.ok and loaded.error.kind == "syntax"
    assert loaded.error.line == GOOD.count("\n") + 2
    assert "SyntaxError" in loaded.error.traceback


def test_import_exception_keeps_the_traceback(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\n1 / 0\n"), timeout=10)
    assert loaded.error.kind == "import"
    assert "ZeroDivisionError" in loaded.error.message
    assert "app.py" in loaded.error.traceback and "1 / 0" in loaded.error.traceback


def test_definition_error_is_its_own_kind(tmp_path):
    bad = GOOD.replace('effects="read_only",', "")
    loaded = loader.load(write(tmp_path / "app.py", bad), timeout=10)
    assert loaded.error.kind == "definition" and "effects" in loaded.error.message


def test_hanging_import_is_cut_off(tmp_path):
    loaded = loader.load(write(tmp_path / "app.py", GOOD + "\nwhile True:\n    pass\n"),
                         timeout=1.0)
    assert loaded.error.kind == "timeout" and "did not finish" in loaded.error.message


def test_no_program_and_several_programs(tmp_path):
    none = loader.load(write(tmp_path / "none.py", "x = 1\n"), timeout=10)
    assert none.error.kind == "no_program" and "Program(" in none.error.message
    two = GOOD + "\nother = Program(name='other', description='Other', commands=[Command(name='x', description='X', effects='read_only', run=hello)])\n"
    several = loader.load(write(tmp_path / "two.py", two), timeout=10)
    assert several.error.kind == "ambiguous" and "--program" in several.error.message
    chosen = loader.load(str(tmp_path / "two.py"), program_name="other", timeout=10)
    assert chosen.ok and chosen.program.name == "other"
    by_name = loader.load(str(tmp_path / "two.py"), program_name="app", timeout=10)
    assert by_name.ok and by_name.name == "program"


def test_a_failed_reload_keeps_the_last_good_program(tmp_path):
    file = write(tmp_path / "app.py", GOOD)
    # A loaded machine can take over a second to load a good program: only the endless
    # import runs under the short timeout, so no other case can be mistaken for it.
    bench = Workbench(file, load_timeout=30.0)
    events = []
    bench.subscribe(events.append)
    first = bench.reload()
    assert first.ok and first.generation == 1
    for broken, kind in ((GOOD + "\ndef broken(:\n", "syntax"),
                         (GOOD + "\nraise RuntimeError('boom')\n", "import"),
                         (GOOD + "\nimport time\nwhile True:\n    time.sleep(1)\n", "timeout")):
        write(tmp_path / "app.py", broken)
        bench.load_timeout = 1.0 if kind == "timeout" else 30.0
        state = bench.reload()
        assert state.load_error.kind == kind
        assert state.program is first.program          # still the last good one
        assert state.surfaces is first.surfaces
        assert "last good" in state.changes.summary()
    write(tmp_path / "app.py", GOOD.replace('"Say hello"', '"Say hello twice"'))
    recovered = bench.reload()
    assert recovered.ok and recovered.load_error is None
    assert recovered.changes.changed == ("hello",)
    assert [e.kind for e in events] == ["state"] * 5
    assert [e.data.generation for e in events] == [1, 2, 3, 4, 5]


def test_an_edited_sibling_is_never_read_from_stale_bytecode(tmp_path):
    helper = tmp_path / "helper.py"
    write(helper, 'WORD = "aaaa"\n')
    write(tmp_path / "app.py", GOOD.replace('{"hello": "world"}', "{'word': helper.WORD}")
          .replace("from workbench", "import helper\nfrom workbench"))
    # Compile helper.pyc as a normal import would, then edit helper within the same
    # second and with the same size: a .pyc check on mtime+size would pass.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import sys; sys.dont_write_bytecode = False; "
                    "import helper"], cwd=tmp_path, check=True, env=env)
    assert list((tmp_path / "__pycache__").glob("helper*.pyc"))
    stat = os.stat(helper)
    first = loader.load(str(tmp_path / "app.py"), timeout=10)
    assert first.module.helper.WORD == "aaaa"
    write(helper, 'WORD = "bbbb"\n')
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = loader.load(str(tmp_path / "app.py"), timeout=10)
    assert second.module.helper.WORD == "bbbb"


def test_a_module_that_touches_stdout_at_import_gets_real_files(tmp_path):
    # httpie calls curses.setupterm(fd=sys.stdout.fileno()); pre-commit wraps sys.stdout.buffer
    prefix = ("import os\nimport sys\nsys.stdout.fileno(), sys.stderr.fileno()\n"
              "OUT = sys.stdout.buffer\nOUT.write(b'bytes at import\\n')\nOUT.flush()\n"
              "print('text at import')\nos.write(2, b'straight to fd 2\\n')\n")
    loaded = loader.load(write(tmp_path / "app.py", prefix + GOOD), timeout=10)
    assert loaded.ok, loaded.error and loaded.error.message
    assert "bytes at import\ntext at import\n" in loaded.output
    assert "straight to fd 2\n" in loaded.output
