"""A verdict file's name tells sources apart (`workbench.declaration._verdict._path`).

Behaviour only, never timing. The name is the source's residue modulo a 64-bit prime, its
length and the same residue of what else identifies it: two sources one edit apart must
never share a verdict, or the edited one would skip its checks. A previous checksum
(modulo 2**61 - 1) named one-byte edits 61 bytes apart alike; these edits are the test.
"""

import os

import pytest

from workbench.declaration import _verdict

SOURCE = ('from workbench import Command, Option, Program, run\n\n'
          'program = Program("hi", "1.0.0", "greets", commands=[\n'
          '    Command("hello", "say hello", effects="read_only", run=lambda ctx: {},\n'
          '            options={"name": Option(description="who")}),\n'
          '])\n').encode() * 5 + bytes(range(256))
"""A program's source, and every byte value (a swap or an edit may meet any of them)."""


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def _name(data: bytes, ident: str = "key") -> str:
    return os.path.basename(_verdict._path("", data, ident))


def _edited(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + bytes((value,)) + data[at + 1:]


def test_every_one_byte_edit_has_a_name_of_its_own():
    names = {_name(SOURCE)}
    sources = 1
    for at in range(len(SOURCE)):   # every offset: edits 61 (or any) bytes apart included
        for value in {SOURCE[at] ^ 1, SOURCE[at] ^ 0x80, (SOURCE[at] + 1) % 256, 0, 255} - \
                {SOURCE[at]}:
            names.add(_name(_edited(SOURCE, at, value)))
            sources += 1
    assert len(names) == sources


def test_every_swap_of_two_bytes_has_a_name_of_its_own():
    data = SOURCE[-300:]
    seen = {data: _name(data)}
    for i in range(len(data)):
        for j in range(i + 1, len(data)):
            swapped = bytearray(data)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            seen.setdefault(bytes(swapped), _name(bytes(swapped)))
    assert len(set(seen.values())) == len(seen)


def test_appended_prepended_and_cut_bytes_change_the_name():
    variants = {SOURCE, SOURCE + b"\0", SOURCE + b"\0\0", SOURCE + b"\n", b"\0" + SOURCE,
                b"\0\0" + SOURCE, SOURCE[:-1], SOURCE[1:], b"", b"\0", b"\0\0"}
    assert len({_name(data) for data in variants}) == len(variants)


def test_what_else_identifies_the_source_is_in_the_name():
    idents = ["key", "kez", "key\0", "\0key", "lazy\0a b", "lazy\0b a", ""]
    assert len({_name(SOURCE, ident) for ident in idents}) == len(idents)
    assert os.path.basename(_verdict._path("lazy-", SOURCE, "key")) == "lazy-" + _name(SOURCE)


@pytest.mark.parametrize("size", [0, 1, 2 ** 14 - 1, 2 ** 14, 2 ** 14 + 1, 3 * 2 ** 14 + 5,
                                  2 ** 20])
def test_a_long_source_is_read_in_chunks_to_the_same_residue(size):
    data = (SOURCE * (size // len(SOURCE) + 1))[:size]
    assert _verdict._residue(data) == int.from_bytes(data, "big") % _verdict._PRIME


def _is_prime(number: int) -> bool:
    """Miller-Rabin with the first 12 primes as bases: exact below 3.1e23."""
    d, s = number - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for base in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if number % base == 0:
            return number == base
        x = pow(base, d, number)
        if x in (1, number - 1):
            continue
        for _ in range(s - 1):
            x = x * x % number
            if x == number - 1:
                break
        else:
            return False
    return True


def test_the_modulus_is_the_first_prime_after_the_golden_ratio_constant():
    prime = _verdict._PRIME
    assert _is_prime(prime) and prime > 2 ** 63
    assert not any(_is_prime(n) for n in range(0x9E3779B97F4A7C15, prime))


def test_no_two_one_byte_edits_within_100_kb_share_a_residue():
    """Edits by d1 at offset i and by d2 at offset i + k of one source differ by
    d1 * 256**i - d2 * 256**(i + k): the same residue iff 256**k == d1 / d2 modulo the prime
    (a swap of two bytes is d1 == d2, so the ratio 1 is among these)."""
    prime = _verdict._PRIME
    ratios = {d2 * pow(d1, -1, prime) % prime for d1 in range(1, 256)
              for d2 in range(-255, 256) if d2}
    power = 1
    for k in range(1, 100_000):
        power = power * 256 % prime
        assert power not in ratios, k
