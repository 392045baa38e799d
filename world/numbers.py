"""Rounding as the world records it: one home for the two precisions it uses."""

from __future__ import annotations


def round1(x: float) -> float:
    """``round(x, 1)``: progress percentages, review scores, runway months."""
    return round(x, 1)


def round2(x: float) -> float:
    """``round(x, 2)``: USD to cents, hours to 0.01 (MECHANICS §2, §3), report scores."""
    return round(x, 2)
