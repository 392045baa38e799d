"""``world.numbers.round2``: the ledger's, the monthly stats' and the attention hours' rounding
(MECHANICS §2, §3) is exactly ``round(x, 2)``."""

from __future__ import annotations

import math
import random

import pytest

from world import numbers
from world.numbers import round2


@pytest.fixture
def small_store(monkeypatch):
    """A store of 64 kept roundings, emptied many times along the way; empty before and after."""
    monkeypatch.setattr(numbers, "_KEPT_MAX", 64)
    numbers._KEPT.clear()
    yield
    numbers._KEPT.clear()


def test_round2_is_round_to_two_places(small_store):
    """Value, type and sign of zero equal ``round(x, 2)``'s for integral floats (returned as
    they are), halfway-looking decimals, huge and non-finite values and ints, on a first pass
    and again when the results are kept; the store never grows past its limit."""
    rng = random.Random(9)
    values = [0.0, -0.0, 3.0, -1e6, 2.0**60, 0.005, 0.015, 1.005, -1.005, 2.675, -2.675, 0.125, 1e300, -1e-300]
    values += [math.inf, -math.inf, 7, -3]
    values += [rng.uniform(-1e6, 1e6) for _ in range(1000)] + [rng.randint(-(10**7), 10**7) / 100 for _ in range(1000)]
    values += [round(rng.uniform(0, 90), 3) for _ in range(500)]
    for _ in range(2):  # the second pass finds kept values
        for x in values:
            got, want = round2(x), round(x, 2)
            assert type(got) is type(want) and got == want, x
            assert math.copysign(1.0, got) == math.copysign(1.0, want), x
        assert len(numbers._KEPT) <= 64
    assert math.isnan(round2(math.nan))
