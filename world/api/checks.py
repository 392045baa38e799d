"""Argument checks shared by the API namespaces (MECHANICS §15).

Each check returns the value in its canonical type or raises :class:`ActionError`
(``bad_argument``) naming the argument, what was given and what is valid.
"""

from __future__ import annotations

import math
from typing import Any

from ..config import TOPICS
from .registry import ActionError


def num(value: Any, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite real number in [lo, hi]; bools are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError("bad_argument", f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v):
        raise ActionError("bad_argument", f"{name} must be a finite number, got {value!r}")
    if lo is not None and v < lo:
        raise ActionError("bad_argument", f"{name} must be at least {lo:g}, got {value!r}")
    if hi is not None and v > hi:
        raise ActionError("bad_argument", f"{name} must be at most {hi:g}, got {value!r}")
    return v


def integer(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer in [lo, hi] (a float with an integral value is accepted)."""
    if isinstance(value, bool):
        raise ActionError("bad_argument", f"{name} must be an integer, got {value!r}")
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ActionError("bad_argument", f"{name} must be an integer, got {value!r}")
    if lo is not None and value < lo:
        raise ActionError("bad_argument", f"{name} must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise ActionError("bad_argument", f"{name} must be at most {hi}, got {value}")
    return value


def string_id(value: Any, name: str) -> str:
    """A string id (any string; the caller looks it up)."""
    if not isinstance(value, str):
        raise ActionError("bad_argument", f"{name} must be a string id, got {value!r}")
    return value


def listing(ids: list[str], limit: int = 15) -> str:
    """Ids for an error message: all of them, or the last ``limit`` with a count."""
    if not ids:
        return "none"
    if len(ids) > limit:
        return ", ".join(ids[-limit:]) + f" (last {limit} of {len(ids)})"
    return ", ".join(ids)


def topic(value: Any) -> str:
    """One of the research topics (§4)."""
    if not isinstance(value, str) or value not in TOPICS:
        raise ActionError("bad_argument", f"unknown topic {value!r}; topics: {', '.join(TOPICS)}")
    return value
