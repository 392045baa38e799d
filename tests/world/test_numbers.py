"""``world.numbers.round1`` and ``round2``: the world's rounding (MECHANICS §2, §3: cents and
hours; reports, scores, progress) is exactly ``round(x, 1)`` and ``round(x, 2)``."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from world.numbers import round1, round2

ROUNDERS = [(round1, 1), (round2, 2)]


def same(got: object, want: object) -> bool:
    """Equal value and type, and the same sign of zero (NaN: both NaN)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        assert isinstance(got, float)
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    return got == want


def near_ties(ndigits: int, rng: random.Random) -> list[float]:
    """Floats on, and a few ulps either side of, the halfway decimals ``(k + 0.5) / 10**ndigits``,
    and of the limit of the fast path (where the float product is near ``2**40``)."""
    scale = 10**ndigits
    out: list[float] = []
    centres = [(k + 0.5) / scale for k in range(-300, 300)]
    centres += [(rng.randint(-(10**9), 10**9) + 0.5) / scale for _ in range(300)]
    centres += [2.0**40 / scale, -(2.0**40) / scale, 2.0**40 / scale - 0.5 / scale]
    for c in centres:
        x = c
        out.append(x)
        for _ in range(4):
            x = math.nextafter(x, math.inf)
            out.append(x)
        x = c
        for _ in range(4):
            x = math.nextafter(x, -math.inf)
            out.append(x)
    return out


@pytest.mark.parametrize(("fast", "ndigits"), ROUNDERS)
def test_the_fast_rounding_is_round(fast, ndigits):
    """Value, type and sign of zero equal ``round(x, ndigits)``'s for zeros, integral and
    halfway-looking decimals, values a few ulps from a halfway decimal, huge, tiny and
    non-finite values, ints, numpy floats and random floats of every magnitude."""
    rng = random.Random(9)
    values: list[object] = [0.0, -0.0, 3.0, -1e6, 2.0**60, 0.005, 0.015, 1.005, -1.005, 2.675, -2.675, 0.125]
    values += [0.05, -0.05, 0.25, -0.35, 1e300, -1e-300, 5e-324, -0.004, -0.04, -0.0499, 1e-9, -1e-9]
    values += [math.inf, -math.inf, 7, -3, 0, True, np.float64(2.675), np.float64(-0.001)]
    values += near_ties(ndigits, rng)
    values += [rng.uniform(-1e6, 1e6) for _ in range(2000)] + [rng.randint(-(10**7), 10**7) / 100 for _ in range(2000)]
    values += [round(rng.uniform(0, 90), 3) for _ in range(1000)] + [rng.random() for _ in range(2000)]
    values += [math.ldexp(rng.random(), rng.randint(-60, 60)) * rng.choice((1, -1)) for _ in range(3000)]
    for x in values:
        assert same(fast(x), round(x, ndigits)), x
    assert math.isnan(fast(math.nan))


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=False))
def test_the_fast_rounding_is_round_for_any_float(x):
    """Any finite or infinite float: both roundings equal ``round``'s, sign of zero included."""
    for fast, ndigits in ROUNDERS:
        assert same(fast(x), round(x, ndigits)), (x, ndigits)
