"""Counts in words: ``1 career``, ``2 careers`` (every count a report or the harness prints)."""

from __future__ import annotations

__all__ = ["count", "noun"]


def noun(n: float, word: str, many: str | None = None) -> str:
    """``word`` in the number ``n`` asks for: ``word`` for exactly 1, else ``many`` (default
    ``word + "s"``): ``noun(1, "seed")`` is ``"seed"``, ``noun(0, "seed")`` ``"seeds"``."""
    return word if n == 1 else (many if many is not None else word + "s")


def count(n: float, word: str, many: str | None = None) -> str:
    """``n`` and its noun (:func:`noun`), the number with thousands separators:
    ``count(1, "career")`` is ``"1 career"``, ``count(1200, "month")`` ``"1,200 months"``,
    ``count(2.5, "hour")`` ``"2.5 hours"``."""
    shown = f"{int(n):,}" if float(n).is_integer() else f"{n:,g}"
    return f"{shown} {noun(n, word, many)}"
