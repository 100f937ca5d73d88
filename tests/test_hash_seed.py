"""Every surface of every sample reads the same in every process: nothing an agent or a
snapshot reads may follow the order of a set, which moves with PYTHONHASHSEED."""

import json
import subprocess
import sys

import pytest
from conftest import SAMPLES, clean_env

pytestmark = pytest.mark.slow   # end to end: left out of the quick subset (README)

RENDER = r'''
import hashlib, json, sys
from workbench.dev.loader import load_in_process
from workbench.dev.snapshot import render
out = {}
for file in sys.argv[1:]:
    program = load_in_process(file).program
    program.source = "<file>"     # the path shows in client configs; the same in every run
    for id, surface in render(program).items():
        out[file + ":" + id] = hashlib.sha256(surface.text.encode()).hexdigest()
print(json.dumps(out, sort_keys=True))
'''


def test_every_surface_of_every_sample_is_the_same_under_any_hash_seed(tmp_path):
    files = [str(path) for path in sorted(SAMPLES.glob("*.py")) + sorted(
        (SAMPLES / "typed").glob("*.py"))]
    seen = {}
    for seed in ("0", "1", "2", "3"):
        done = subprocess.run([sys.executable, "-c", RENDER, *files], capture_output=True,
                              text=True, cwd=tmp_path,
                              env=clean_env(PYTHONHASHSEED=seed, HOME=str(tmp_path)))
        assert done.returncode == 0, done.stderr[-3000:]
        seen[seed] = json.loads(done.stdout)
    first = seen["0"]
    assert len(first) > 200
    for seed, surfaces in seen.items():
        differ = sorted(key for key in first if surfaces.get(key) != first[key])
        assert not differ, (seed, differ[:10])
