"""``world.numbers.round2`` is ``round(x, 2)`` exactly: the same float (bit for bit, the sign
of zero included) and the same type, on edge cases and on many random values."""

from __future__ import annotations

import math
import random
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from world.numbers import round2


def same(a: object, b: object) -> bool:
    """Equal values of the same type; floats compared by their bits (−0.0 ≠ 0.0, NaN = NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)  # type: ignore[arg-type]
    return a == b


EDGES = [
    0.0,
    -0.0,
    0.004,
    -0.004,
    0.005,
    -0.005,
    0.125,
    -0.125,
    0.375,
    2.675,
    1.005,
    -1.005,
    0.015,
    0.045,
    1e-300,
    -1e-300,
    5e-324,
    1e15,
    -1e15,
    4e10,
    3.999999999999e10,
    123456789.125,
    123456789.135,
    math.inf,
    -math.inf,
    math.nan,
    1.7976931348623157e308,
]


def test_round2_equals_round_on_edge_cases():
    """Ties, values that round to ±0, huge and non-finite values, and ints and bools."""
    for x in EDGES:
        assert same(round2(x), round(x, 2)), x
    for x in (0, 5, -7, 10**20, True, False):
        assert same(round2(x), round(x, 2)), x


def test_round2_equals_round_next_to_every_half_cent():
    """Values a few ulps around k/200 (the half-cent points, where the decimal rounding turns)
    for many k, on both sides of zero."""
    rng = random.Random(7)
    ks = list(range(-3000, 3000)) + [rng.randrange(-(10**14), 10**14) for _ in range(3000)]
    ks += [rng.choice((-1, 1)) * rng.randrange(10**11, 8 * 10**14) for _ in range(20_000)]  # |100 x| near the limit
    for k in ks:
        x = k / 200
        for _ in range(4):
            for y in (x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)):
                assert same(round2(y), round(y, 2)), y
            x = math.nextafter(x, math.inf)


def test_round2_equals_round_on_random_magnitudes():
    """Random floats of every magnitude from 1e-6 to 1e14 (money, hours, scores and beyond)."""
    rng = random.Random(11)
    for _ in range(200_000):
        x = rng.uniform(-1, 1) * 10 ** rng.uniform(-6, 14)
        assert same(round2(x), round(x, 2)), x


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_round2_equals_round_on_any_float(x):
    """Any float at all."""
    assert same(round2(x), round(x, 2))
