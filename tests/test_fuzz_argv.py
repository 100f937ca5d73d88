"""A seeded argv fuzz test: thousands of mutated examples of the sample programs, each with
`--json` appended, and not one traceback, every `--json` output one envelope (or, under
`--format ndjson`, one stream) with stderr empty, every exit code in the table.

Thousands of processes would take minutes, so the vectors run in one long-lived process per
encoding (`tests/_fuzz_worker.py`): each goes through the real entry point
(`workbench.entry.run`) with the process's own fds 1 and 2 pointed at temporary files. A
smaller sample then runs as real processes (`python notes.py ...`, argv as bytes, some of
them not UTF-8), under `PYTHONIOENCODING=utf-8:strict` and without it, and must give the
same exit code and the same bytes on stdout and stderr as the worker did.
"""

import base64
import json
import os
import random
import shutil
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from _mcp_helpers import examples
from conftest import AGENT_VARIABLES, ROOT, SAMPLES
from workbench.declaration.exits import EXIT_CODES
from workbench.loader import load_program

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

SEED = 1010
VECTORS = 3000            # in-process, split over two workers (default and strict encoding)
SUBPROCESS_VECTORS = 100  # real processes, compared byte for byte with the worker
PROGRAMS = ("notes", "warehouse")
WORKER = Path(__file__).resolve().parent / "_fuzz_worker.py"
STRICT = {"PYTHONIOENCODING": "utf-8:strict"}

UNKNOWN = ["--bogus", "--zz=1", "-q", "-x", "--tokn", "--no-such-flag", "---", "--=", "-=",
           "--no-", "--Json", "--JSON", "-j", "--jsn", "--tag-", "--.", "-\u00e9"]
SPECIAL = ["--", "-", "", "=", " ", "--json", "--help", "-h", "--schema", "--version",
           "--format", "ndjson", "text", "json", "--format=ndjson", "--format=bogus",
           "--progress", "help", "search", "completion", "bash", "--level", "card", "names",
           "--dry-run", "--idempotency-key", "key-1", "--expect-plan", "0000000000000000",
           "--limit", "0", "-1", "--cursor", "--all", "--fields", "sku,nope", "--yes",
           "--no-yes", "--tag", "-t", "--remote", "--quantity", "--count", "--sku", "--item",
           "--bin", "--fail-at", "2", "1", "999999999999999999999999", "1e400", "nan", "-0",
           "0x10", "true", "false", "\u00e9", "\u65e5\u672c", "a\nb", "'", '"', "$(x)", "\t",
           "\u202e", "e\u0301", "\U0001f600", "sync", "push", "status", "items", "orders",
           "list", "ls", "show", "add", "import", "restock", "SKU-0001=3", "SKU-0003"]
BAD_BYTES = [b"\xff", b"caf\xe9", b"\xc3\x28", b"--tag=\xfe\xff", b"\xed\xa0\x80",
             b"--\xff", b"SKU-\x80=1", b"\xf0\x28\x8c\x28"]
VALUES = ["1", "2", "999", "0", "-3", "x", "SKU-0001", "SKU-0003", "SKU-9999", "home", "urgent",
          "SKU-0001=3", "SKU-0002=x", "2.5", "", "-", "\u00e9t\u00e9", "key-2", "sku,count",
          "B", "https://r.example.invalid", "bash", "zsh", "fish"]
FLAGS_WITH_VALUES = ["--idempotency-key", "--tag", "--remote", "--sku", "--bin", "--fields",
                     "--cursor", "--expect-plan", "--level", "--format", "--token"]
HUGE = [4096, 65536, 100_000]   # below the kernel's 128 KiB limit on one argument


# --- vectors -------------------------------------------------------------------------------

def _bases() -> list:
    """(program name, example tokens) for every example of both sample programs."""
    bases = []
    for name in PROGRAMS:
        program = load_program(str(SAMPLES / f"{name}.py"))
        bases.extend((name, tokens) for _command, tokens in examples(program))
    return bases


def _at(rng, tokens) -> int:
    """Where to insert: anywhere, or (as often) at the end, inside the command named."""
    return len(tokens) if rng.random() < 0.5 else rng.randint(0, len(tokens))


def _drop(rng, t):
    if t:
        del t[rng.randrange(len(t))]


def _duplicate(rng, t):
    if t:
        i = rng.randrange(len(t))
        t.insert(i, t[i])


def _swap(rng, t):
    if len(t) > 1:
        i, j = rng.sample(range(len(t)), 2)
        t[i], t[j] = t[j], t[i]


def _flip(rng, t):
    flags = [i for i, token in enumerate(t) if token.startswith("--") and len(token) > 2]
    if not flags:
        t.insert(_at(rng, t), "--no-yes")
        return
    i = rng.choice(flags)
    t[i] = "--" + t[i][5:] if t[i].startswith("--no-") else "--no-" + t[i][2:]


def _unknown(rng, t):
    t.insert(_at(rng, t), rng.choice(UNKNOWN))


def _special(rng, t):
    t.insert(_at(rng, t), rng.choice(SPECIAL))


def _equals(rng, t):
    flags = [i for i, token in enumerate(t) if token.startswith("-")]
    if not flags:
        t.insert(_at(rng, t), "--tag=")
        return
    i = rng.choice(flags)
    if "=" in t[i]:
        t[i:i + 1] = t[i].split("=", 1)
    elif i + 1 < len(t):
        t[i:i + 2] = [t[i] + "=" + t[i + 1]]
    else:
        t[i] += "="


def _empty(rng, t):
    t.insert(_at(rng, t), "")


def _huge(rng, t):
    size = rng.choice(HUGE)
    t.insert(_at(rng, t), rng.choice(["x" * size, "--" + "y" * size, "--tag=" + "z" * size,
                                       "\u00e9" * (size // 2)]))


def _bad_bytes(rng, t):
    raw = os.fsdecode(rng.choice(BAD_BYTES))
    if t and rng.random() < 0.5:
        i = rng.randrange(len(t))
        t[i] = t[i] + raw
    elif rng.random() < 0.3:   # the value of an option that is not the command's own text
        t[len(t):] = [rng.choice(FLAGS_WITH_VALUES), raw]
    else:
        t.insert(_at(rng, t), raw)


def _value(rng, t):
    """Replace a value (a token that is not a flag) by another plausible one."""
    values = [i for i, token in enumerate(t) if not token.startswith("-")]
    if values:
        t[rng.choice(values)] = rng.choice(VALUES)


def _pair(rng, t):
    """A flag and a value at the end (options of the command, or of another one)."""
    t[len(t):] = [rng.choice(FLAGS_WITH_VALUES), rng.choice(VALUES)]


def _misspell(rng, t):
    words = [i for i, token in enumerate(t) if len(token) > 3]
    if words:
        i = rng.choice(words)
        j = rng.randrange(1, len(t[i]) - 1)
        t[i] = t[i][:j] + t[i][j + 1] + t[i][j] + t[i][j + 2:]


MUTATIONS = [_drop, _duplicate, _swap, _flip, _unknown, _special, _equals, _empty, _huge,
             _bad_bytes, _misspell, _value, _pair]
WEIGHTS = [3, 2, 2, 2, 3, 5, 2, 1, 1, 2, 2, 4, 3]
ROUNDS = [0, 1, 1, 1, 2, 2, 3, 4]   # how many mutations a vector gets


def vectors(count: int, seed: int, bad_bytes_share: float = 0.0) -> list:
    """`count` vectors, each an example mutated up to four times, `--json` appended."""
    rng = random.Random(seed)
    bases = _bases()
    out = []
    for _ in range(count):
        name, tokens = rng.choice(bases)
        tokens = list(tokens)
        for mutation in rng.choices(MUTATIONS, WEIGHTS, k=rng.choice(ROUNDS)):
            mutation(rng, tokens)
        if rng.random() < bad_bytes_share:
            _bad_bytes(rng, tokens)
        out.append({"program": name, "argv": tokens + ["--json"]})
    return out


# --- running -------------------------------------------------------------------------------

def environment(root: Path, extra: dict) -> dict:
    """A private environment: state, home and stores under `root`; no agent or CI markers."""
    env = {k: v for k, v in os.environ.items()
           if k not in AGENT_VARIABLES and k not in ("NOTES_TOKEN", "PYTHONIOENCODING")}
    for name in ("home", "state", "xdg", "tmp", "cwd"):
        (root / name).mkdir(parents=True, exist_ok=True)
    env.update({"HOME": str(root / "home"), "BURGEE_STATE_DIR": str(root / "state"),
                "XDG_STATE_HOME": str(root / "xdg"), "TMPDIR": str(root / "tmp"),
                "NOTES_FILE": str(root / "notes.json"),
                "WAREHOUSE_FILE": str(root / "warehouse.json"),
                "BURGEE_STDIN_TIMEOUT": "1",   # stdin is /dev/null anyway: nothing waits
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)})
    env.update(extra)
    return env


def run_worker(batch: list, root: Path, extra: dict) -> list:
    """Run `batch` in one worker process; its results, one per vector."""
    env = environment(root, extra)
    vectors_file, results_file = root / "vectors.json", root / "results.jsonl"
    vectors_file.write_text(json.dumps(batch), encoding="utf-8")
    done = subprocess.run([sys.executable, str(WORKER), str(vectors_file), str(results_file)],
                          env=env, cwd=str(root / "cwd"), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=240)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
    results = [json.loads(line) for line in results_file.read_text().splitlines()]
    assert len(results) == len(batch)
    for result in results:
        result["stdout"] = base64.b64decode(result["stdout"])
        result["stderr"] = base64.b64decode(result["stderr"])
    return results


def run_processes(batch: list, root: Path, extra: dict) -> list:
    """Run `batch` as real processes, one after another, argv as bytes."""
    env = environment(root, extra)
    results = []
    for vector in batch:
        argv = [os.fsencode(token) for token in vector["argv"]]
        done = subprocess.run([sys.executable, str(SAMPLES / f"{vector['program']}.py"), *argv],
                              env=env, cwd=str(root / "cwd"), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60)
        results.append({"exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                        "escaped": None})
    return results


def in_parallel(*jobs):
    """Run the (function, args...) jobs in threads; their results in order."""
    results, errors = [None] * len(jobs), []

    def go(i, job):
        try:
            results[i] = job[0](*job[1:])
        except BaseException as error:  # noqa: BLE001 - re-raised below
            errors.append(error)
    threads = [threading.Thread(target=go, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


# --- the promises --------------------------------------------------------------------------

def _head(argv) -> list:
    return argv[:argv.index("--")] if "--" in argv else argv


def check(vector: dict, result: dict) -> str:
    """Every promise for one vector; returns its kind (envelope, document, stream, text)."""
    argv = vector["argv"]
    where = f"{vector['program']} {argv!r}"[:400]
    assert result["escaped"] is None, f"{where}\n{result['escaped']}"
    code = result["exit"]
    assert code in EXIT_CODES, f"{where}: exit {code}"
    out = result["stdout"].decode("utf-8")     # strict: the output is always valid UTF-8
    err = result["stderr"].decode("utf-8")
    assert "Traceback" not in out + err, f"{where}\n{err[-2000:]}"
    head = _head(argv)
    if "--json" not in head:   # `--json` after `--` is a value, not the flag: text mode
        return "text"
    if "--progress" in head:   # asked for: JSON progress lines on stderr, nothing else
        for line in err.splitlines():
            assert "progress" in json.loads(line), f"{where}: {line}"
    else:
        assert err == "", f"{where}: stderr {err[:500]!r}"
    assert out.endswith("\n"), f"{where}: {out[-200:]!r}"
    lines = out[:-1].split("\n")
    if lines[0].startswith('{"@meta"'):   # `--format ndjson`: one stream
        assert "ndjson" in head or "--format=ndjson" in head, f"{where}: a stream"
        items = [json.loads(line) for line in lines]
        assert "@meta" in items[0] and "@end" in items[-1], f"{where}: {out[-300:]}"
        assert not any("@meta" in i or "@end" in i for i in items[1:-1] if isinstance(i, dict))
        assert items[-1]["@end"]["exit"] == code, where
        if items[-1]["@end"]["ok"] is False:
            assert items[-1]["@end"]["error"]["code"], where
        return "stream"
    assert len(lines) == 1, f"{where}: {len(lines)} lines: {out[:500]!r}"
    doc = json.loads(out)
    if not (isinstance(doc, dict) and "ok" in doc):   # help, a card, a schema, --version
        assert code == 0 and isinstance(doc, dict), f"{where}: exit {code}: {out[:300]}"
        return "document"
    assert doc["ok"] in (True, False, "partial"), where
    assert isinstance(doc.get("meta"), dict) and doc["meta"].get("schema_version"), where
    if doc["ok"] is True:
        assert code == 0, f"{where}: ok with exit {code}"
    elif doc["ok"] == "partial":
        assert code == 8, where
    else:
        error = doc["error"]
        assert isinstance(error.get("code"), str) and error["code"], where
        assert isinstance(error.get("message"), str) and error["message"], where
        assert error["exit"] == code, f"{where}: error.exit {error['exit']} != {code}"
        assert error["code"] != "internal", f"{where}: {out[:500]}"   # a framework bug
        if code == 2:
            assert error.get("fix"), f"{where}: a refusal with no fix: {out[:500]}"
        if code == 4:
            assert doc.get("next"), where
    return "envelope"


def check_all(pairs) -> list:
    """check() for every (vector, result); the kinds. Fails listing every broken promise
    (the first ten), not only the first."""
    kinds, failures = [], []
    for vector, result in pairs:
        try:
            kinds.append(check(vector, result))
        except (AssertionError, ValueError, KeyError, TypeError) as error:
            failures.append(f"{type(error).__name__}: {error}".splitlines()[0][:600])
    assert not failures, f"{len(failures)} vectors broke a promise:\n" + "\n".join(failures[:10])
    return kinds


def _summary(label, batch, results, kinds) -> str:
    codes = Counter(r["exit"] for r in results)
    errors = Counter()
    for r in results:
        try:
            doc = json.loads(r["stdout"])
            errors[doc["error"]["code"]] += 1
        except (ValueError, KeyError, TypeError):
            pass
    bad = sum(any("\udc80" <= c <= "\udcff" for c in "".join(v["argv"])) for v in batch)
    return (f"{label}: {len(batch)} vectors ({bad} with bytes that are not UTF-8); "
            f"kinds {dict(Counter(kinds))}; exits {dict(sorted(codes.items()))}; "
            f"top errors {errors.most_common(8)}")


def test_thousands_of_mutated_examples_each_end_in_one_envelope(tmp_path):
    batch = vectors(VECTORS, SEED, bad_bytes_share=0.1)
    halves = batch[0::2], batch[1::2]
    results = in_parallel((run_worker, halves[0], tmp_path / "default", {}),
                          (run_worker, halves[1], tmp_path / "strict", STRICT))
    for label, part, found in zip(("default", "utf-8:strict"), halves, results):
        kinds = check_all(zip(part, found))
        assert kinds.count("envelope") > len(part) // 2   # the promises were really tested
        print(_summary(label, part, found, kinds))


def test_real_processes_match_the_worker_byte_for_byte(tmp_path):
    """The in-process worker is faithful: a sample of vectors, half of them with bytes that
    are not UTF-8 in argv, run as real processes gives the same exit, stdout and stderr."""
    batch = vectors(SUBPROCESS_VECTORS, SEED + 1, bad_bytes_share=0.5)
    halves = batch[0::2], batch[1::2]

    def compare(part, root, extra):
        by_worker = run_worker(part, root, extra)
        shutil.rmtree(root)    # the same paths, the same starting state
        by_process = run_processes(part, root, extra)
        return by_worker, by_process

    found = in_parallel((compare, halves[0], tmp_path / "default", {}),
                        (compare, halves[1], tmp_path / "strict", STRICT))
    for label, part, (by_worker, by_process) in zip(("default", "utf-8:strict"), halves, found):
        kinds = check_all(zip(part, by_process))
        for vector, worker, process in zip(part, by_worker, by_process):
            where = f"{label} {vector['program']} {vector['argv']!r}"[:400]
            assert (process["exit"], process["stdout"], process["stderr"]) == \
                (worker["exit"], worker["stdout"], worker["stderr"]), where
        print(_summary(f"processes, {label}", part, by_process, kinds))


def test_the_generator_is_seeded():
    assert vectors(50, SEED) == vectors(50, SEED)
    assert vectors(50, SEED) != vectors(50, SEED + 1)


# --- what the fuzz found -------------------------------------------------------------------

def test_an_idempotency_key_that_is_not_utf8_is_claimed_and_replays(tmp_path):
    """Found by the fuzz: `--idempotency-key` with bytes that are not UTF-8 in argv was an
    `internal` error (SQLite refused the lone surrogates); the key is kept as its escapes."""
    from workbench import call
    from workbench.samples.notes import program
    env = environment(tmp_path, {})
    key = "k-" + os.fsdecode(b"\xff\xfe")
    first = call(program, ["add", "x", "--idempotency-key", key, "--json"], environ=env)
    assert first.exit == 0, first.stdout
    again = call(program, ["add", "x", "--idempotency-key", key, "--json"], environ=env)
    assert again.exit == 0 and json.loads(again.stdout)["meta"]["replayed"] is True
    other = call(program, ["add", "y", "--idempotency-key", key, "--json"], environ=env)
    doc = json.loads(other.stdout)
    assert other.exit == 5 and doc["error"]["code"] == "idempotency_conflict"
    assert doc["error"]["message"].encode("utf-8")   # the key shown as its escapes


def test_a_cursor_no_page_gave_is_refused_with_a_fix(tmp_path):
    """Found by the fuzz: `--cursor fish` was a usage refusal (exit 2) with no `fix`."""
    from workbench import call
    program = load_program(str(SAMPLES / "warehouse.py"))
    outcome = call(program, ["items", "list", "--limit", "3", "--cursor", "fish", "--json"],
                   environ=environment(tmp_path, {"WAREHOUSE_FILE": ""}))
    doc = json.loads(outcome.stdout)
    assert outcome.exit == 2 and doc["error"]["code"] == "invalid_value"
    assert doc["error"]["fix"] == "warehouse items list --limit 3 --json"
