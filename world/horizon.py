"""The default length of a career (MECHANICS §1), in a module that imports nothing.

:attr:`world.config.WorldConfig.months` defaults to it; ``pibench --help`` names it without
importing the world's config (dataclasses, inspect: ~15 ms of a start-up whose goal is
120 ms).
"""

from __future__ import annotations

DEFAULT_HORIZON_MONTHS = 60
"""Months in a career of the default world: the tick of this month is the last (§1)."""

__all__ = ["DEFAULT_HORIZON_MONTHS"]
