"""Rounding as the world records it: one home for the fast, exact ``round(x, 1)`` and ``round(x, 2)``.

``round(x, n)`` of a float costs a decimal conversion each way (CPython's ``double_round``:
the correctly rounded ``n``-place decimal of the exact binary value of ``x``, then the
double nearest to that decimal), ~0.5 µs a call, and the world rounds reports, scores, pay,
hours and progress many times a month. :func:`round1` and :func:`round2` give the same float
from float arithmetic in almost every case, and call ``round`` in the others.

**Why the fast path is exact.** Let ``S = 10**n`` and ``p = x * S`` (the float product). For
``|p| < 2**40`` the product is off the exact ``x·S`` by at most half an ulp of ``p``, at most
``2**-14``. Let ``k = round(p)`` (the integer nearest ``p``). If ``|p - k| < 0.5 - 2**-12``,
then ``|x·S - k| < 0.5``: ``k`` is *the* integer nearest the exact ``x·S``, which is the
``n``-place decimal ``round`` finds (``k / S``; no tie is near, so its tie rule never acts).
``round`` then returns the double nearest ``k / S``, and so does the IEEE division
``k / S`` (``k`` and ``S`` are exact doubles; the division is correctly rounded). A zero
keeps the sign of ``x`` (``round(-0.001, 2)`` is ``-0.0``): ``0.0 * x``. Everything else —
``p`` within ``2**-12`` of a half, ``|p| >= 2**40``, infinities, NaN, ints, float subclasses
such as numpy's — goes through ``round`` itself. ``tests/world/test_numbers.py`` compares
both with ``round`` on near-ties, huge, tiny and random values.
"""

from __future__ import annotations

_LIMIT = 2.0**40
"""``|x · 10**n|`` below this: the fast path's float product is within ``2**-14`` of the exact one."""

_INSIDE = 0.5 - 2.0**-12
"""``|p - round(p)|`` below this: the exact product rounds to the same integer (no tie near)."""


def round1(x: float) -> float:
    """``round(x, 1)`` (progress percentages, review scores, runway months): the same value,
    type and sign of zero (see the module doc for why)."""
    if type(x) is float:
        p = x * 10.0
        if -_LIMIT < p < _LIMIT:
            k = round(p)
            if -_INSIDE < p - k < _INSIDE:
                return k / 10.0 if k else 0.0 * x
    return round(x, 1)


def round2(x: float) -> float:
    """``round(x, 2)`` — USD to cents, hours to 0.01 (MECHANICS §2, §3), report scores — the
    same value, type and sign of zero (see the module doc for why)."""
    if type(x) is float:
        if x.is_integer():  # what round gives for it (±0.0, and huge floats, included): hours, pay
            return x
        p = x * 100.0
        if -_LIMIT < p < _LIMIT:
            k = round(p)
            if -_INSIDE < p - k < _INSIDE:
                return k / 100.0 if k else 0.0 * x
    return round(x, 2)
