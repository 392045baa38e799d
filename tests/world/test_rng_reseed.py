"""Keyed draws re-seed one PCG64 in place (MECHANICS §13); the fast byte copy must equal
numpy's documented ``state`` setter draw for draw."""

from __future__ import annotations

import world.rng as rng_mod
from world.rng import Rng, key_digest


def _draws(gen) -> list:
    return [
        gen.random(),
        gen.normal(0.0, 0.3),
        int(gen.integers(36)),
        gen.integers(0, 36, size=3).tolist(),
        int(gen.poisson(2.5)),
        gen.random(4).tolist(),
    ]


def test_fast_reseed_equals_state_setter():
    """Over many keys (and after draws that leave a cached 32-bit half), the in-place byte
    copy gives the same generator state and the same draws as the documented setter."""
    fast, slow = Rng(101), Rng(101)
    slow._words = None  # force the documented path
    for i in range(500):
        key = ("person_month", f"S{i % 40:03d}", i)
        a = _draws(fast.keyed(*key))
        b = _draws(slow.keyed(*key))
        assert a == b
        assert fast._bg.state == slow._bg.state


def test_fast_reseed_state_is_the_key_digest():
    """The re-seeded state is the key's SHA-256: state = first 16 bytes, inc = next 16 | 1."""
    r = Rng(-7)
    r.keyed("review", "D001", "NAIC", 3)
    digest = key_digest(-7, "review", "D001", "NAIC", 3)
    st = r._bg.state
    assert st["state"]["state"] == int.from_bytes(digest[:16], "little")
    assert st["state"]["inc"] == int.from_bytes(digest[16:], "little") | 1
    assert st["has_uint32"] == 0 and st["uinteger"] == 0


def test_fast_reseed_is_in_use_on_this_platform():
    """On little-endian 64-bit numpy the layout check passes, so the fast path is the one timed."""
    import sys

    if sys.byteorder == "little":
        assert rng_mod._FAST_RESEED is True
        assert Rng(1)._words is not None


def test_state_address_from_the_capsule_is_numpys():
    """The PCG64 state address read through the bit generator's capsule (no ctypes
    interface built) is the one numpy's own ctypes interface reports, for fresh generators
    and for the shared keyed one."""
    import numpy as np

    for seed in (0, 1, 12345):
        bg = np.random.PCG64(seed)
        assert rng_mod._state_address(bg) == bg.ctypes.state_address
    r = Rng(3)
    assert rng_mod._state_address(r._bg) == r._bg.ctypes.state_address


def test_keyed_text_equals_keyed_parts():
    """``keyed_text`` with the parts joined by an f-string gives the state and draws of
    ``keyed`` with the parts, on the fast path and through the documented setter alike
    (negative seed, int and str parts as the tick's call sites pass them)."""
    for words in (True, False):
        a, b = Rng(-3), Rng(-3)
        if not words:
            a._words = b._words = None
        for i in range(200):
            pid, m = f"P{i % 17:03d}", i % 61
            a.keyed_text(f"citations|{pid}|{m}")
            state_a = a._bg.state
            draws_a = _draws(a._gen)
            b.keyed("citations", pid, m)
            assert b._bg.state == state_a
            assert _draws(b._gen) == draws_a


def test_keyed_draws_hash_with_sha256():
    """The SHA-256 the keyed draws use (the interpreter's own when it agrees with hashlib's)
    gives hashlib's digest for keys of every length, so the streams stay the documented
    ``sha256("seed|k1|k2|...")``."""
    import hashlib
    import random

    rnd = random.Random(9)
    for n in range(0, 300, 7):
        data = bytes(rnd.randrange(256) for _ in range(n))
        assert rng_mod._sha256(data).digest() == hashlib.sha256(data).digest()
