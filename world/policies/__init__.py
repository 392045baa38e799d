"""Scripted reference policies (MECHANICS §17).

``POLICIES`` maps a name to an API-only policy class (``make_policy(name)`` builds one);
these may also run as agent scripts through headless mode. The oracle, the one policy that
reads hidden state, is deliberately not in ``POLICIES``: it lives in
:mod:`world.policies.oracle`, takes the :class:`~world.engine.World` itself, and only the
in-process runner can build it.
"""

from __future__ import annotations

from .ambitious import Ambitious
from .base import Policy
from .baseline import DEFAULT_CONFIG, TUNED_CONFIG, AllIn, Baseline, BaselineConfig, TunedBaseline, grid
from .simple import DoNothing, HireMax

POLICIES: dict[str, type[Policy]] = {
    "do-nothing": DoNothing,
    "baseline": Baseline,
    "baseline-tuned": TunedBaseline,
    "hire-max": HireMax,
    "ambitious": Ambitious,
    "all-in": AllIn,
}
"""API-only policies by name."""

ORACLE = "oracle"
"""The oracle's name (built by :func:`world.policies.oracle.Oracle` with the World)."""

ALL_NAMES: tuple[str, ...] = (*POLICIES, ORACLE)
"""Every policy name the runner accepts."""


def make_policy(name: str) -> Policy:
    """A fresh API-only policy by name.

    Raises:
        KeyError: unknown name (the oracle is not built here: it needs the World).
    """
    if name not in POLICIES:
        raise KeyError(f"unknown API-only policy {name!r}; policies: {', '.join(POLICIES)}")
    return POLICIES[name]()


__all__ = [
    "ALL_NAMES",
    "DEFAULT_CONFIG",
    "ORACLE",
    "POLICIES",
    "TUNED_CONFIG",
    "AllIn",
    "Ambitious",
    "Baseline",
    "BaselineConfig",
    "DoNothing",
    "HireMax",
    "Policy",
    "TunedBaseline",
    "grid",
    "make_policy",
]
