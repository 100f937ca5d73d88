"""Cold start: the same small program in burgee (as data and typed), argparse, Click, Typer
and cyclopts.

`burgee_typed` is the burgee program declared with `workbench.typed` (hints that need no
`typing` import); `burgee_annotated` is the same with `Annotated[str, Opt(...)]` (the program
imports `typing` itself). Both build the very Program `burgee` declares as data.
`burgee_features` is the same `tool` declaring every feature of issue 30 (shared options and
setup, ranges, paths, dates, UUIDs, a custom type, counts, tuples, prompts...): what a
program pays for using all of them.

Every case is a fresh interpreter (`python -X frozen_modules=on PROGRAM ARGS`), timed
from spawn to exit, interleaved round-robin so machine noise hits every case alike, and
reported as medians and as ratios against `python -c pass` and against burgee.

By default the project is installed as a regular (non-editable) wheel, built offline from
the local tree, into a throwaway venv whose only other path entry is the project venv's
site-packages (for click, typer, cyclopts); bytecode is compiled before timing. That is
what a user's `pip install burgee` gives, without the ~12 ms an editable install's finder
`.pth` adds to every interpreter start.

    .venv/bin/python benchmarks/cold_start.py                 # print the table
    .venv/bin/python benchmarks/cold_start.py --runs 60 --write   # and update docs/performance.md
    .venv/bin/python benchmarks/cold_start.py --why burgee    # -X importtime: what --help imports
    .venv/bin/python benchmarks/cold_start.py --smoke         # seconds: check that it runs

No test depends on these timings; they are measurements, not assertions.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROGRAMS = HERE / "programs"
PERFORMANCE_MD = ROOT / "docs" / "performance.md"
sys.path.insert(0, str(ROOT / "benchmarks"))
from _bench import add_smoke, parse, replace_section  # noqa: E402

SECTION = "## Cold start"
GOAL = 1.4
"""`--help` and `status --json` of the small program, × `python -c pass` (issue 37)."""

FRAMEWORKS = ("burgee", "burgee_typed", "burgee_annotated", "burgee_features", "argparse",
              "click", "typer", "cyclopts")
TYPED = ("burgee_typed", "burgee_annotated")
PACKAGES = {"burgee": "workbench", "click": "click", "typer": "typer", "cyclopts": "cyclopts"}

# Case name -> argv per framework; None where the framework has no equivalent.
CASES = {
    "--version": {f: ["--version"] for f in FRAMEWORKS},
    "--help": {f: ["--help"] for f in FRAMEWORKS},
    "help --json": {"burgee": ["help", "--json"], "burgee_typed": ["help", "--json"],
                    "burgee_annotated": ["help", "--json"], "burgee_features": ["help", "--json"],
                    "argparse": None, "click": None, "typer": None, "cyclopts": None},
    "usage error": {f: ["deploy", "--targt", "x"] for f in FRAMEWORKS},
    "status": {f: ["status"] for f in FRAMEWORKS},   # a handler runs, for a person
    "status --json": {f: ["status", "--json"] if f in ("burgee", "burgee_features") else None
                      for f in FRAMEWORKS},   # its output caught at the fd level
}
EXPECTED_EXIT = {"--version": 0, "--help": 0, "help --json": 0, "usage error": 2, "status": 0,
                 "status --json": 0}
BASELINE = ("python", "-c pass")

# Environment passed to every child: what a person's shell has, nothing that changes
# behaviour (no PYTHON* variables, no agent markers, a fixed terminal width).
ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TERM", "USER")

# Modules the design keeps off burgee's start-up path (DESIGN §7, notes/libraries.md).
WATCHED = ("re", "json.encoder", "dataclasses", "typing", "inspect", "pathlib", "subprocess",
           "difflib", "shlex", "textwrap", "enum", "argparse", "string", "gettext", "locale",
           "shutil", "importlib.metadata", "tempfile", "ast", "tokenize", "datetime", "uuid",
           "textual", "mcp", "tiktoken", "watchfiles", "jsonschema", "rich", "pydantic", "click",
           "typer")


# --------------------------------------------------------------------------- setup

class Env:
    """The interpreter the cases run under, and how it was made."""

    def __init__(self, python: str, how: str, tmp: str | None = None):
        self.python = python
        self.how = how
        self.tmp = tmp

    def close(self, keep: bool) -> None:
        if self.tmp and not keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


def child_env() -> dict:
    env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
    env["COLUMNS"] = "80"
    env["LINES"] = "24"
    return env


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def _source_files(root: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files: what a clean checkout would build."""
    out = _run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard"])
    if out.returncode == 0 and out.stdout.strip():
        return [line for line in out.stdout.splitlines() if line]
    skip = {".venv", ".git", "build", "dist", "__pycache__"}
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(root).parts)]


def _dynamic_version(src: Path, project: dict) -> str:
    """The version setuptools reads from `attr = "package.__version__"` (without importing it)."""
    import ast
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, variable = attr.rpartition(".")
    path = src / module.replace(".", "/")
    source = (path / "__init__.py" if path.is_dir() else path.with_suffix(".py")).read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == variable
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(f"{attr} not found")


def build_wheel(src: Path, out: Path) -> Path:
    """A py3-none-any wheel of the tree's pure-Python package(s), as setuptools lays it out."""
    import base64
    import hashlib
    import tomllib
    import zipfile

    project = tomllib.loads((src / "pyproject.toml").read_text())
    meta = project["project"]
    name, version = meta["name"], meta.get("version") or _dynamic_version(src, project)
    include = project.get("tool", {}).get("setuptools", {}).get("packages", {}).get(
        "find", {}).get("include", [])
    tops = sorted({pattern.rstrip("*").rstrip(".") for pattern in include}) or [name]
    files = [p for top in tops for p in sorted((src / top).rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    scripts = "".join(f"{k} = {v}\n" for k, v in meta.get("scripts", {}).items())
    extra = {
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                            f"Requires-Python: {meta.get('requires-python', '>=3')}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: cold_start\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
        f"{dist}/entry_points.txt": f"[console_scripts]\n{scripts}" if scripts else "",
        f"{dist}/top_level.txt": "".join(t + "\n" for t in tops),
    }
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        entries = [(str(p.relative_to(src)), p.read_bytes()) for p in files]
        entries += [(k, v.encode()) for k, v in extra.items() if v]
        for arcname, data in entries:
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{arcname},sha256={digest.decode()},{len(data)}")
            z.writestr(arcname, data)
        record.append(f"{dist}/RECORD,,")
        z.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return wheel


def make_env(source_python: str, log) -> Env:
    """A throwaway venv with burgee installed as a regular wheel, built offline."""
    tmp = tempfile.mkdtemp(prefix="burgee-cold-start-")
    venv, src, wheels = Path(tmp, "venv"), Path(tmp, "src"), Path(tmp, "wheels")
    try:
        for rel in _source_files(ROOT):
            if rel.startswith(("benchmarks/", "tests/", "screenshots/")):
                continue
            source = ROOT / rel
            if source.is_file():
                (src / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, src / rel)
        if not (src / "README.md").exists():   # pyproject names it; a fresh tree may lack it
            (src / "README.md").write_text("burgee\n")
        # As a user's pip would: an isolated build whose backend (setuptools>=77) pip fetches
        # from the configured index; then offline with the installed setuptools.
        log("building a wheel of the local tree (`pip wheel`, build isolation)")
        started = time.perf_counter()
        built = _run([source_python, "-m", "pip", "wheel", "-q", "--no-deps",
                      "-w", str(wheels), str(src)])
        builder = "`pip wheel` (build isolation)"
        if built.returncode:
            log("pip wheel with build isolation failed; trying offline without it")
            built = _run([source_python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                          "--no-build-isolation", "-w", str(wheels), str(src)])
            builder = "`pip wheel --no-build-isolation` (offline)"
        if built.returncode:
            # An older setuptools without the `wheel` package cannot build offline; a pure
            # Python wheel is a zip with a dist-info, so make it with the standard library.
            log("pip wheel failed offline (" + (built.stderr.strip().splitlines() or ["?"])[-1]
                + "); building the wheel with the standard library instead")
            build_wheel(src, wheels)
            builder = "the standard library, as `pip wheel` could not build it offline"
        made = _run([source_python, "-m", "venv", "--without-pip", str(venv)])
        if made.returncode:
            raise RuntimeError("venv failed:\n" + made.stderr[-2000:])
        python = str(venv / "bin" / "python")
        purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
                       ).stdout.strip()
        source_purelib = _run([source_python, "-c",
                               "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
                              ).stdout.strip()
        # A plain path line: the project venv's packages (click, typer, cyclopts) become
        # importable, but its own .pth files (an editable finder, if any) are not run.
        Path(purelib, "_cold_start_deps.pth").write_text(source_purelib + "\n")
        wheel = next(wheels.glob("*.whl"))
        installed = _run([source_python, "-m", "pip", "--python", python, "install", "-q",
                          "--no-deps", "--no-index", str(wheel)])
        if installed.returncode:
            raise RuntimeError("pip install failed:\n" + installed.stderr[-2000:])
        log(f"wheel venv ready in {time.perf_counter() - started:.1f} s")
        return Env(python, f"`{wheel.name}` installed with `pip install` into a throwaway "
                           f"venv (a regular install, no editable finder); wheel built by "
                           f"{builder}; building the venv took "
                           f"{time.perf_counter() - started:.1f} s", tmp)
    except Exception:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def compile_bytecode(python: str, log) -> None:
    """Compile every package the cases import, so no run pays for compiling."""
    code = ("import importlib.util, sys\n"
            "for name in sys.argv[1:]:\n"
            "    spec = importlib.util.find_spec(name)\n"
            "    if spec and spec.submodule_search_locations:\n"
            "        print(*spec.submodule_search_locations, sep='\\n')\n"
            "    elif spec and spec.origin:\n"
            "        print(spec.origin)\n")
    names = ["workbench", "click", "typer", "cyclopts", "rich", "rich_rst", "shellingham",
             "docstring_parser", "attr", "attrs", "annotated_doc", "typing_extensions",
             "markdown_it", "mdurl", "pygments", "docutils"]
    where = _run([python, "-c", code, *names], env=child_env()).stdout.splitlines()
    log(f"compiling bytecode for {len(where)} packages")
    _run([python, "-m", "compileall", "-q", "-j0", *where], env=child_env())


# --------------------------------------------------------------------------- timing

def program_path(framework: str) -> Path:
    return PROGRAMS / f"{framework}_tool.py"


def command_for(python: str, framework: str | None, argv: list[str]) -> list[str]:
    if framework is None:
        return [python, "-X", "frozen_modules=on", "-c", "pass"]
    return [python, "-X", "frozen_modules=on", str(program_path(framework)), *argv]


def spawn_time(cmd: list[str], env: dict, devnull: int) -> tuple[float, int, float]:
    """Wall time in ms from spawn to exit, output discarded; the exit status; and the
    child's CPU time (user + system, ms), which other processes on the machine disturb less."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
               (os.POSIX_SPAWN_DUP2, devnull, 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(cmd[0], cmd, env, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    return elapsed, os.waitstatus_to_exitcode(status), (usage.ru_utime + usage.ru_stime) * 1e3


def check(python: str, frameworks, env: dict) -> tuple[list, dict]:
    """Run every case once, capturing output; keep the ones that behave as the case says."""
    cases, notes = [(BASELINE[0], BASELINE[1], None)], {}
    for framework in frameworks:
        for case, argv in CASES.items():
            if argv[framework] is None:
                notes[(framework, case)] = "none built in"
                continue
            out = _run(command_for(python, framework, argv[framework]), env=env, timeout=60,
                       stdin=subprocess.DEVNULL)
            text = out.stdout + out.stderr
            problem = None
            if out.returncode != EXPECTED_EXIT[case]:
                problem = f"exit {out.returncode}, expected {EXPECTED_EXIT[case]}"
            elif case == "--version" and "1.0.0" not in text:
                problem = "no 1.0.0 in the output"
            elif case in ("--help", "help --json") and "deploy" not in text:
                problem = "the output does not mention deploy"
            if problem:
                last = (text.strip().splitlines() or ["(no output)"])[-1][:160]
                notes[(framework, case)] = f"not runnable: {problem}: {last}"
                continue
            cases.append((framework, case, argv[framework]))
    return cases, notes


def measure(python: str, cases, runs: int, warmup: int, env: dict, log) -> dict:
    """Round-robin: each iteration runs every case once, starting one case later."""
    samples = {(f, c): [] for f, c, _ in cases}
    cpu = {(f, c): [] for f, c, _ in cases}
    cmds = [((f, c), command_for(python, f if f != BASELINE[0] else None, argv or []))
            for f, c, argv in cases]
    expected = {(f, c): EXPECTED_EXIT.get(c, 0) for f, c, _ in cases}
    surprises = 0
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        total = warmup + runs
        for i in range(total):
            k = i % len(cmds)
            for key, cmd in cmds[k:] + cmds[:k]:
                ms, code, cpu_ms = spawn_time(cmd, env, devnull)
                if code != expected[key] and surprises < 5:
                    surprises += 1
                    log(f"{' '.join(key)}: exit {code} in iteration {i + 1}, expected "
                        f"{expected[key]}; the files changed under the benchmark?")
                if i >= warmup:
                    samples[key].append(ms)
                    cpu[key].append(cpu_ms)
            if (i + 1) % 10 == 0 or i + 1 == total:
                log(f"iteration {i + 1}/{total}")
    finally:
        os.close(devnull)
    return samples, cpu


def typed_table(samples: dict, cpu: dict) -> str:
    """The data and typed declarations of burgee's program side by side: wall and CPU time,
    each as a ratio to the data form, per case."""
    lines = ["| case | program | wall median | × data | CPU median | × data |",
             "|---|---|---:|---:|---:|---:|"]
    for case in CASES:
        data = ("burgee", case)
        if not samples.get(data):
            continue
        wall0, cpu0 = statistics.median(samples[data]), statistics.median(cpu[data])
        for framework in ("burgee", *TYPED):
            key = (framework, case)
            if not samples.get(key):
                continue
            wall, used = statistics.median(samples[key]), statistics.median(cpu[key])
            lines.append(f"| `{case}` | {framework} | {wall:.1f} ms | {wall / wall0:.2f}× | "
                         f"{used:.1f} ms | {used / cpu0:.2f}× |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- report

def quartiles(xs: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def versions(python: str, env: dict) -> dict:
    code = ("import importlib.metadata as m\n"
            "for d in ('burgee', 'click', 'typer', 'cyclopts', 'rich'):\n"
            "    try: print(d, m.version(d))\n"
            "    except Exception: print(d, '?')\n")
    out = _run([python, "-c", code], env=env).stdout.split()
    return dict(zip(out[::2], out[1::2]))


def machine(python: str, env: dict) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    pyver = _run([python, "-c", "import sys; print(sys.version.split()[0])"], env=env)
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu}, "
            f"{platform.system()} {platform.release()}, CPython {pyver.stdout.strip()}; "
            f"load average {load} (1/5/15 min) when the report was written")


def table(samples: dict, notes: dict, frameworks) -> tuple[str, dict]:
    base = statistics.median(samples[BASELINE])
    med = {key: statistics.median(v) for key, v in samples.items() if v}
    lines = ["| program | case | median | p25–p75 | × `python -c pass` | × burgee |",
             "|---|---|---:|---:|---:|---:|"]
    lo, hi = quartiles(samples[BASELINE])
    lines.append(f"| `python -c pass` | — | {base:.1f} ms | {lo:.1f}–{hi:.1f} | 1.00× | |")
    for case in CASES:
        for framework in frameworks:
            key = (framework, case)
            if key not in med:
                note = notes.get(key, "not run").replace("|", "\\|")
                lines.append(f"| {framework} | `{case}` | {note} | | | |")
                continue
            lo, hi = quartiles(samples[key])
            ref = med.get(("burgee", case))
            vs_burgee = f"{med[key] / ref:.2f}×" if ref else "—"
            name = f"**{framework}**" if framework.startswith("burgee") else framework
            lines.append(f"| {name} | `{case}` | {med[key]:.1f} ms | {lo:.1f}–{hi:.1f} | "
                         f"{med[key] / base:.2f}× | {vs_burgee} |")
    return "\n".join(lines), med


def verdict(med: dict, cpu: dict | None = None) -> list[str]:
    base = med[BASELINE]
    out = []
    burgee_help = med.get(("burgee", "--help"))
    if burgee_help is None:
        return ["- Target not checked: the burgee program did not run."]
    ratio = burgee_help / base
    out.append(f"- burgee `--help` within {GOAL}× of `python -c pass`: "
               f"{'**met**' if ratio <= GOAL else '**not met**'} ({ratio:.2f}×).")
    status = med.get(("burgee", "status --json"))
    if status is not None:
        ratio = status / base
        out.append(f"- burgee `status --json` within {GOAL}× of `python -c pass`: "
                   f"{'**met**' if ratio <= GOAL else '**not met**'} ({ratio:.2f}×).")
    for typed in TYPED:
        typed_help = med.get((typed, "--help"))
        if typed_help:
            share = typed_help / burgee_help
            out.append(f"- {typed} `--help` within 1.15× of the same program as data: "
                       f"{'**met**' if share <= 1.15 else '**not met**'} ({share:.2f}×, "
                       f"{typed_help:.1f} ms vs {burgee_help:.1f} ms).")
    click_help = med.get(("click", "--help"))
    if click_help:
        out.append(f"- burgee `--help` faster than Click's: "
                   f"{'**met**' if burgee_help < click_help else '**not met**'} "
                   f"({burgee_help:.1f} ms vs {click_help:.1f} ms, "
                   f"{burgee_help / click_help:.2f}×).")
    status, captured = med.get(("burgee", "status")), med.get(("burgee", "status --json"))
    if status and captured:
        out.append(f"- A handler run for a person (`status`, no capture): {status:.1f} ms, "
                   f"{status / burgee_help:.2f}× burgee's `--help`; with its output caught at "
                   f"the fd level (`status --json`): {captured:.1f} ms, "
                   f"{captured / status:.2f}× `status`.")
    used = cpu or {}
    if used.get(BASELINE) and used.get(("burgee", "--help")):
        line = (f"- The same in CPU time (user + system, which load disturbs less): burgee "
                f"`--help` {used[('burgee', '--help')] / used[BASELINE]:.2f}× `python -c pass`")
        if used.get(("burgee", "status")) and used.get(("burgee", "status --json")):
            line += (f"; `status --json` "
                     f"{used[('burgee', 'status --json')] / used[('burgee', 'status')]:.2f}× "
                     f"`status`")
        out.append(line + ".")
    return out


def load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def the_command(args_argv: list[str]) -> str:
    from _bench import command_line
    return command_line(args_argv, __file__)


def section(report: str, heading: str = SECTION) -> str:
    return f"{heading}\n\n{report.strip()}\n"


# --------------------------------------------------------------------------- --why

IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|( *)(\S+)")


def parse_importtime(stderr: str) -> list[tuple[str, int, int, int]]:
    """(module, self µs, cumulative µs, depth) in the order -X importtime prints them."""
    rows = []
    for line in stderr.splitlines():
        m = IMPORT_LINE.match(line)
        if m:
            rows.append((m.group(4), int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2))
    return rows


def parents(rows) -> dict[str, str]:
    """Who imported whom: importtime prints a module's children before the module."""
    found, pending = {}, {}
    for name, _, _, depth in rows:
        for child in pending.pop(depth + 1, []):
            found[child] = name
        pending.setdefault(depth, []).append(name)
    return found


def why(python: str, framework: str, case: str, repeat: int, top: int, env: dict) -> str:
    argv = CASES[case][framework]
    if argv is None:
        return f"{framework} has no `{case}`."
    baseline_mods = {r[0] for r in parse_importtime(
        _run([python, "-X", "importtime", "-X", "frozen_modules=on", "-c", "pass"],
             env=env).stderr)}
    per_mod: dict[str, list[tuple[int, int]]] = {}
    rows = []
    for _ in range(repeat):
        out = _run([python, "-X", "importtime", "-X", "frozen_modules=on",
                    str(program_path(framework)), *argv], env=env, stdin=subprocess.DEVNULL)
        if out.returncode != EXPECTED_EXIT[case]:
            tail = "\n".join(line for line in out.stderr.splitlines()
                             if not line.startswith("import time:"))[-1500:]
            return (f"`{framework} {case}` exited {out.returncode}, expected "
                    f"{EXPECTED_EXIT[case]}:\n{tail}")
        rows = parse_importtime(out.stderr)
        for name, self_us, cum_us, _ in rows:
            per_mod.setdefault(name, []).append((self_us, cum_us))
    who = parents(rows)
    extra = {name: (statistics.median(s for s, _ in v), statistics.median(c for _, c in v))
             for name, v in per_mod.items() if name not in baseline_mods}
    total_self = sum(s for s, _ in extra.values())
    depth = {name: d for name, _, _, d in rows}
    top_level = sorted((n for n in extra if depth.get(n) == 0), key=lambda n: -extra[n][1])
    lines = [f"`{framework} {case}` imports {len(extra)} modules beyond `python -c pass`, "
             f"{total_self / 1000:.1f} ms of import time (median of {repeat} runs, "
             f"-X importtime; its own overhead inflates absolute figures).", "",
             "Top-level imports by cumulative time:", "",
             "| module | cumulative | self |", "|---|---:|---:|"]
    for name in top_level[:top]:
        lines.append(f"| `{name}` | {extra[name][1] / 1000:.2f} ms | {extra[name][0] / 1000:.2f} ms |")
    lines += ["", f"Top {top} modules by self time:", "",
              "| module | self | cumulative | imported by |", "|---|---:|---:|---|"]
    for name in sorted(extra, key=lambda n: -extra[n][0])[:top]:
        lines.append(f"| `{name}` | {extra[name][0] / 1000:.2f} ms | "
                     f"{extra[name][1] / 1000:.2f} ms | "
                     f"{'`' + who[name] + '`' if name in who else 'top level or in a function'} |")
    watched = [n for n in WATCHED if n in extra]
    if watched:
        lines += ["", "On the path though DESIGN §7 / libraries.md would keep them off it:", ""]
        for name in watched:
            chain, cur = [name], name
            while cur in who and len(chain) < 12:
                cur = who[cur]
                chain.append(cur)
            lines.append(f"- `{name}` ({extra[name][1] / 1000:.2f} ms cumulative): "
                         + (" ← ".join(f"`{c}`" for c in chain[1:])
                            or "imported at top level or in a function"))
    else:
        lines += ["", "None of the watched modules (re, typing, dataclasses, inspect, pathlib, "
                      "subprocess, difflib, …) is imported."]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cold_start.py",
        description="Cold-start benchmark: the same small program in burgee, argparse, "
                    "Click, Typer and cyclopts, against `python -c pass`.")
    parser.add_argument("--runs", type=int, default=40, help="timed runs per case (default 40)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds first (default 3)")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                        help="comma-separated subset of " + ",".join(FRAMEWORKS))
    parser.add_argument("--write", action="store_true",
                        help="update the Cold start section of docs/performance.md")
    parser.add_argument("--section", default=SECTION[3:], metavar="TITLE",
                        help="with --write: the section to replace or add (default "
                             f"'{SECTION[3:]}'), e.g. for a run on a loaded machine")
    parser.add_argument("--why", metavar="FRAMEWORK", choices=FRAMEWORKS,
                        help="instead of timing, list what FRAMEWORK's program imports "
                             "(-X importtime) for --why-case")
    parser.add_argument("--why-case", default="--help", choices=list(CASES),
                        help="the case --why inspects (default --help)")
    parser.add_argument("--top", type=int, default=20, help="rows in the --why tables")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter whose site-packages provide click, typer, cyclopts "
                             "and that builds the wheel (default: this one)")
    parser.add_argument("--in-place", action="store_true",
                        help="skip the throwaway venv; run under --python as it is "
                             "(an editable install there adds its finder's cost to every case)")
    parser.add_argument("--keep-venv", action="store_true", help="keep the throwaway venv")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    add_smoke(parser, runs=3, warmup=0, frameworks="burgee,argparse")
    args = parse(parser, argv)
    argv_used = sys.argv[1:] if argv is None else argv

    def log(message: str) -> None:
        if not args.quiet:
            print(f"cold_start: {message}", file=sys.stderr, flush=True)

    frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(frameworks) - set(FRAMEWORKS))
    if unknown:
        parser.error(f"unknown framework(s) {', '.join(unknown)}; choose from {', '.join(FRAMEWORKS)}")
    if args.runs < 3:
        parser.error("--runs must be at least 3 (quartiles need a few samples)")

    if args.in_place:
        env_info = Env(args.python, f"in place: {args.python}")
    else:
        try:
            env_info = make_env(args.python, log)
        except Exception as exc:   # report, then measure what we can
            log(f"could not build the throwaway venv ({exc}); running in place")
            env_info = Env(args.python, f"in place (venv build failed): {args.python}")
    try:
        env = child_env()
        compile_bytecode(env_info.python, log)
        if args.why:
            print(why(env_info.python, args.why, args.why_case, 5, args.top, env))
            return 0
        cases, notes = check(env_info.python, frameworks, env)
        for (framework, case), note in notes.items():
            if note.startswith("not runnable"):
                log(f"{framework} {case}: {note}")
        log(f"timing {len(cases)} cases × {args.runs} runs (+{args.warmup} warm-up rounds), "
            f"round-robin")
        load_before = load()
        samples, cpu = measure(env_info.python, cases, args.runs, args.warmup, env, log)
        load_after = load()
        rendered, med = table(samples, notes, frameworks)
        ver = versions(env_info.python, env)
        report = "\n".join([
            "Each case starts a fresh interpreter, `python -X frozen_modules=on PROGRAM ARGS`,",
            "with bytecode compiled and output sent to `/dev/null`; wall time from spawn to exit.",
            "Cases run interleaved (round-robin, a different first case each iteration), so",
            "machine noise falls on all of them alike. The programs are the same `tool`",
            "(`deploy`, `status`) in each framework: `benchmarks/programs/`; `burgee_typed` and",
            "`burgee_annotated` declare burgee's program with `workbench.typed` (without and with",
            "`typing.Annotated`), building the same Program as `burgee`'s data.",
            "",
            f"- Command: `{the_command(argv_used)}`",
            f"- Machine: {machine(env_info.python, env)}",
            f"- Install: {env_info.how}",
            "- Versions: " + ", ".join(f"{k} {v}" for k, v in ver.items()),
            f"- Runs: {args.runs} timed per case after {args.warmup} warm-up rounds; "
            f"{time.strftime('%Y-%m-%d %H:%M %Z')}",
            f"- Load: 1-minute load average {load_before} before and {load_after} after the "
            f"runs on {os.cpu_count()} CPUs (a shared machine: compare ratios from one run, "
            "not absolute times)",
            "",
            rendered,
            "",
            "`help --json`: only burgee has help as data built in; argparse, Click, Typer and",
            "cyclopts have no equivalent (Click's `to_info_dict()` is an API, not a flag).",
            "The usage error is `deploy --targt x`: every program exits 2 (argparse reports",
            "the missing `--target` rather than the unknown flag). Typer and cyclopts",
            "render help and errors with Rich, their default when it is installed.",
            "`status` runs a handler for a person (nothing captured); `status --json` runs it",
            "with fds 1 and 2 caught for `meta.output` (issue 11), which only burgee does.",
            "",
            f"Targets: median `--help` and `status --json` within {GOAL}× of `python -c pass` "
            "(issue 37), and faster than Click (issue 2); the typed declaration's `--help` within 1.15× of the same program as "
            "data (issue 15).",
            "",
            *verdict(med, {key: statistics.median(v) for key, v in cpu.items() if v}),
        ])
        if any(samples.get((typed, "--help")) for typed in TYPED):
            report += ("\n\n### Typed declarations against the same program as data\n\n"
                       "The same runs, burgee rows only. CPU time is the child's user + system "
                       "time (`wait4`),\nwhich a loaded machine disturbs less than wall time.\n\n"
                       + typed_table(samples, cpu)
                       + "\n\n`burgee_annotated` pays for the program's own `import typing` (which "
                       "brings `re`,\n`collections`, ...: `--why burgee_annotated` lists them); "
                       "reading its hints imports\nnothing more than `burgee_typed`'s "
                       "(tests/test_typed.py compares `sys.modules`).")
        if ("burgee", "--help") in med:
            report += ("\n\n### What burgee's `--help` imports\n\n"
                       f"From `{the_command(['--why', 'burgee'])}`:\n\n"
                       + why(env_info.python, "burgee", "--help", 5, 10, env))
        if ("burgee_typed", "--help") in med:
            report += ("\n\n### What the typed declaration's `--help` imports\n\n"
                       f"From `{the_command(['--why', 'burgee_typed'])}`:\n\n"
                       + why(env_info.python, "burgee_typed", "--help", 5, 10, env))
        print(report)
        if args.write:
            heading = "## " + args.section
            replace_section(heading, section(report, heading))
            log(f"wrote the {args.section} section of {PERFORMANCE_MD.relative_to(ROOT)}")
        return 0
    finally:
        env_info.close(args.keep_venv)


if __name__ == "__main__":
    sys.exit(main())
