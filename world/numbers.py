"""Exact fast rounding for the world's hot paths.

:func:`round2` is ``round(x, 2)`` — the same float, always — at about half the cost for the
values the world rounds every month (cents of money, hundredths of hours and scores). The
tick and the dashboard round a few dozen values a month, and ``round(x, 2)`` on a float goes
through a correctly rounded decimal conversion and back (~0.35 µs).
"""

from __future__ import annotations

from typing import Any

_LIMIT = 4e12
"""Below this magnitude of ``100 x`` (< 2**42) the product's rounding error is at most
2**42 × 2**-53 = 2**-11 < 0.001, so a product farther than 0.001 from a half-integer rounds
to the same integer as the exact ``100 x``."""


def round2(x: Any) -> Any:
    """``round(x, 2)``, exactly (same value, same type, the sign of a zero kept).

    For a float ``x`` with ``|100 x| < 4e12`` whose ``100 x`` is not within 0.001 of a
    half-integer (nearly every value), ``round(x, 2)`` is the double nearest the decimal
    ``r / 100`` where ``r`` is the integer nearest ``100 x``; that integer is ``round(x *
    100.0)`` (the product is off by less than 0.001, see :data:`_LIMIT`), and ``r / 100.0``
    is that nearest double (IEEE division is correctly rounded, ``r`` and 100 are exact).
    Every other value (near a tie, huge, not finite, zero after rounding — the sign of
    ``-0.0`` — or not a float) goes to ``round(x, 2)`` itself.
    ``tests/world/test_numbers.py`` compares the two on edge cases and random floats.
    """
    if type(x) is float:
        y = x * 100.0
        if -_LIMIT < y < _LIMIT:
            r = round(y)
            if r and -0.499 < y - r < 0.499:
                return r / 100.0
    return round(x, 2)


__all__ = ["round2"]
