"""Argument checks shared by the API namespaces (MECHANICS §15).

Each check returns the value in its canonical type or raises :class:`ActionError`
(``bad_argument``) naming the argument, what was given and what is valid.
"""

from __future__ import annotations

import math
from typing import Any

from ..config import TOPICS
from ..errors import ActionError
from .limits import MAX_DICT_ITEMS, MAX_INT_BITS, MAX_LIST_ITEMS, MAX_STRING_CHARS


def _size_problem(value: Any) -> str | None:
    """Why one scalar argument (or list/dict item) is too big, or None."""
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            return f"is a string of {len(value):,} characters; strings (ids, names) are at most {MAX_STRING_CHARS}"
    elif isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_INT_BITS:
            return f"is an integer of {value.bit_length():,} bits; integers are at most {MAX_INT_BITS} bits"
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        return "holds a nested list or dict; lists and dicts hold ids and numbers only"
    return None


def _numpy_scalar(value: Any) -> Any:
    """The Python int, float or bool a numpy integer, floating or bool scalar holds, else ``value``."""
    t = type(value)
    if t.__module__ == "numpy" and getattr(value, "shape", None) == ():
        item = value.item()  # a long double's item() is a long double again: not taken
        if type(item) in (int, float, bool):
            return item
    return value


def plain(value: Any) -> Any:
    """``value`` with numpy integer, floating and bool scalars (alone, or as the items of a
    list or tuple, or the keys and values of a dict) turned into the Python int, float or bool
    they hold; ``value`` itself when it holds none (MECHANICS §15).

    Agent code computing with numpy passes ``numpy.int64`` ids and amounts; the API accepts
    them as the plain numbers, so the action log, saves and replays stay plain JSON data.
    Non-finite floats stay non-finite (the checks refuse them as before).
    """
    t = type(value)
    simple = _SIMPLE
    if t is list or t is tuple:
        for x in value:
            if type(x) not in simple:
                items = [_numpy_scalar(x) for x in value]
                return items if t is list else tuple(items)
        return value
    if t is dict:
        for k, v in value.items():
            if type(k) not in simple or type(v) not in simple:
                return {_numpy_scalar(k): _numpy_scalar(v) for k, v in value.items()}
        return value
    return value if t in simple else _numpy_scalar(value)


_SIMPLE = frozenset({str, int, float, bool, type(None)})


def bounded(name: str, value: Any) -> None:
    """Refuse an argument that is too big (:mod:`world.api.limits`) before anything else looks at it.

    Strings at most ``MAX_STRING_CHARS`` characters, lists at most ``MAX_LIST_ITEMS`` items and
    dicts at most ``MAX_DICT_ITEMS`` entries (of such strings and numbers, not nested), integers
    at most ``MAX_INT_BITS`` bits.

    Raises:
        ActionError: ``bad_argument`` naming the argument, its size and the limit.
    """
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_LIST_ITEMS:
            raise ActionError(
                "bad_argument", f"{name} is a list of {len(value):,} items; lists are at most {MAX_LIST_ITEMS} items"
            )
        items: Any = value
    elif isinstance(value, dict):
        if len(value) > MAX_DICT_ITEMS:
            raise ActionError(
                "bad_argument",
                f"{name} is a dict of {len(value):,} entries; dicts are at most {MAX_DICT_ITEMS} entries",
            )
        items = [*value.keys(), *value.values()]
    else:
        problem = _size_problem(value)
        if problem:
            raise ActionError("bad_argument", f"{name} {problem}")
        return
    for i, item in enumerate(items):
        problem = _size_problem(item)
        if problem:
            raise ActionError(
                "bad_argument",
                f"{name}[{i}] {problem}" if isinstance(value, (list, tuple)) else f"an entry of {name} {problem}",
            )


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
