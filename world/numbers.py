"""Rounding as the world records it: one home for the fast, exact ``round(x, 2)``."""

from __future__ import annotations

_KEPT: dict[float, float] = {}
"""``x → round(x, 2)`` for non-integral floats rounded before (see :func:`round2`)."""

_KEPT_MAX = 4096
"""At most this many kept roundings (emptied when full: memory stays flat over a sweep)."""


def round2(x: float) -> float:
    """``round(x, 2)`` — USD to cents, hours to 0.01 (MECHANICS §2, §3) — the same value,
    type and sign of zero, at a fraction of the cost of ``round``'s decimal conversion.

    A float that is an integer (±0.0 included) is returned as it is, which is what ``round``
    gives for it; other floats are kept by value (the attention hours and pay rows repeat
    month after month), a kept result being ``round(x, 2)`` of an equal float; anything else
    (an int) goes through ``round``.
    """
    if type(x) is not float:
        return round(x, 2)
    if x.is_integer():
        return x
    r = _KEPT.get(x)
    if r is None:
        if len(_KEPT) >= _KEPT_MAX:
            _KEPT.clear()
        r = _KEPT[x] = round(x, 2)
    return r
