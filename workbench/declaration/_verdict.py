"""Whether a Program must be checked: the verdict that lets a released source skip its checks.

`check_once` (called as a Program is constructed) skips `_checks.check_program` when this very
source already passed every check: the verdict is a file under
`$XDG_CACHE_HOME/burgee/checked/` named by the content of the file whose top level built the
Program. Kept apart from the checks themselves so that a call whose verdict exists never
imports them (cold start).
"""

from __future__ import annotations

import os

from workbench.declaration.model import DefinitionError, derived

_CHECKS_FILE = os.path.join(os.path.dirname(__file__), "_checks.py")
"""The checks' source: a verdict names its size and time, so changed checks run again."""

_RAN_CHECKED: set = set()
"""Module code objects a load check process already ran to their end (`burgee dev` runs the
check's own bytecode after it: `workbench.dev.loader.load_in_process`)."""

_DEFERRED: dict = {}
"""Module code object -> [(Program, verdict path)] built at its top level whose checks wait
for `check_deferred` (the load check process answers first: `workbench.dev._check`)."""


def defer_checks(code) -> None:
    """Programs built at the top level of `code` from now on are checked by
    `check_deferred(code)`, not as they are constructed."""
    _DEFERRED[code] = []


def check_deferred(code) -> None:
    """Run the checks `defer_checks(code)` held back, in construction order (a DefinitionError
    as construction would have raised it, minus where: the caller runs the module again)."""
    for program, path in _DEFERRED.pop(code, []):
        _check(program, path)


def check_once(program, frame) -> None:
    """`check_program`, skipped when this very source already passed every check.

    The verdict is a file under `$XDG_CACHE_HOME/burgee/checked/` named by the content of
    the file whose top level constructs the Program (plus line, names, versions); it is
    written by `record_verdict` once the examples have passed too. Only a Program built at
    the top level of a module imported from disk can be trusted this way; any other (a
    function building one, `burgee dev`'s loader, `BURGEE_CHECK=always`) is checked.
    A trusted program checks each lazy group when it loads (`check_lazy`). A Program built
    at the top level of bytecode in `_RAN_CHECKED` is not checked again; one built at the
    top level of bytecode in `_DEFERRED` is checked when `check_deferred` says.
    """
    if frame.f_code in _RAN_CHECKED:
        return
    path = _verdict_path(program, frame)
    deferred = _DEFERRED.get(frame.f_code)
    if deferred is not None:
        deferred.append((program, path))
        return
    _check(program, path)


def _check(program, path: str | None) -> None:
    state = derived(program)
    if path is not None and os.path.exists(path):
        state.examples_checked = True
        state.lazy_trusted = os.path.basename(path)
        return
    state.lazy_verdicts = []   # the lazy groups check_program loads, recorded with it
    state.verdict = path
    from workbench.declaration._checks import check_program
    try:
        check_program(program)
    except DefinitionError as error:
        if path is None or not getattr(error, "lazy", False):
            raise   # a loader, the workbench, a test: refused here, as for any group
        state.broken = error   # a released program's lazy group: every call answers


def check_lazy(program, group) -> None:
    """A lazy group just loaded. Under a full check it is checked with the program (its
    verdict is recorded with the program's); in a program trusted by its verdict it is
    checked now, alone, unless its own verdict (the module's file content, the group's
    path and the program's verdict) says this source already passed; its examples are
    parsed by `ensure_checked` before the call runs."""
    state = derived(program)
    trusted = state.lazy_trusted
    if trusted is None:
        if state.lazy_verdicts is None:
            return   # check=False, or a check that records nothing
        from workbench.declaration._checks import check_group
        check_group(program, group)   # as check_program will, but naming the lazy group
        if state.verdict is not None:
            state.lazy_verdicts.append(_group_verdict_path(group, state.verdict))
        return
    path = _group_verdict_path(group, trusted)
    if path is not None and os.path.exists(path):
        return
    from workbench.declaration._checks import check_group
    check_group(program, group)
    state.lazy_pending.append((group, path))


def commands_under(group):
    for child in group.commands:
        if child.is_group:
            yield from commands_under(child)
        else:
            yield child


def _group_verdict_path(group, program_verdict: str) -> str | None:
    import sys
    module = sys.modules.get(group.load.partition(":")[0])
    file = getattr(getattr(module, "__spec__", None), "origin", None)
    try:
        with open(file, "rb") as handle:   # type: ignore[arg-type]  # None: TypeError
            data = handle.read()
    except (OSError, TypeError):
        return None
    ident = f"{os.path.basename(program_verdict)}\0{file}\0{' '.join(group.path)}"
    return _path("lazy-", data, ident)


def record_verdict(program) -> None:
    """Remember that the program's source (and each lazy group's) passed every check (best
    effort: a read-only cache only means the checks run again next time)."""
    state = derived(program)
    paths = [state.verdict, *(state.lazy_verdicts or ())]
    state.verdict, state.lazy_verdicts = None, None   # recorded (or not): never again
    if os.environ.get("BURGEE_CHECK") == "always":
        return
    for path in paths:
        if path is None:
            continue
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "x"):
                pass
        except OSError:
            pass


def _cache_dir() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "burgee", "checked")


def _verdict_path(program, frame) -> str | None:
    environ = os.environ
    if environ.get("BURGEE_CHECK") == "always" or frame.f_code.co_name != "<module>":
        return None
    file = frame.f_code.co_filename
    if getattr(frame.f_globals.get("__loader__"), "path", None) != file:
        return None   # not imported from this file as it is on disk
    try:
        with open(file, "rb") as handle:
            data = handle.read()
        ours = os.stat(_CHECKS_FILE)
    except OSError:
        return None
    import sys
    burgee = getattr(sys.modules.get("workbench"), "__version__", "")
    ident = (f"{file}\0{frame.f_lineno}\0{program.name}\0{program.version}\0{burgee}\0"
             f"{ours.st_size}\0{ours.st_mtime_ns}\0{sys.version}")
    return _path("", data, ident)


def _path(prefix: str, data: bytes, ident: str) -> str:
    """A verdict's file: named by the source's bytes and what else identifies it.

    `{length}.{residue}-{length}.{residue}` (hex) of the source, then of `ident`. The residue
    is pure Python: `zlib` (whose crc32 and adler32 named verdicts before) cost every start
    ~0.25 ms to import. Names of the earlier form never match one of this form: a source
    they named is checked once more.
    """
    key = ident.encode("utf-8", "replace")
    name = (f"{len(data):x}.{_residue(data):016x}-"
            f"{len(key):x}.{_residue(key):016x}")
    return os.path.join(_cache_dir(), prefix + name)


_PRIME = 11400714819323198549
"""The first prime after 2**64 / golden ratio (0x9e3779b97f4a7c15, the Fibonacci-hashing
constant): a 64-bit prime far from any power of two. Over 255, it divides no d * 256**i
(0 < |d| < 256), so a one-byte edit anywhere changes the residue; 256's order modulo it is
(P - 1) / 4, so a swap of two bytes does at any distance under ~2.8e18 bytes; and no 256**k
for k < 2e7 is d2 / d1 modulo it, so two one-byte edits of one source never share a name
within 20 MB. Primes near a power of two fail that last: 256**8 is 59 modulo 2**64 - 59, and
256**61 is 1 modulo the Mersenne prime 2**61 - 1 (edits 61 bytes apart collided)."""

_CHUNK = 16384
_CHUNK_SHIFT = pow(256, _CHUNK, _PRIME)


def _residue(data: bytes) -> int:
    """`int.from_bytes(data, "big") % _PRIME`, ~4x faster on a long source (~1 ms a MB):
    the chunks' integers, each times its place value modulo the prime, summed, then one
    division of a chunk-sized number."""
    total, place = 0, 1
    for end in range(len(data), 0, -_CHUNK):
        total += int.from_bytes(data[max(0, end - _CHUNK):end], "big") * place
        place = place * _CHUNK_SHIFT % _PRIME
    return total % _PRIME
