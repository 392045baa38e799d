"""This scenario's player-facing rules for the harness prompt: ``lab.rules()``.

The numbers come from :func:`world.rules.rules` (the one home of every number a PI is
told, the dict ``lab.rules()`` returns), plus the projection horizon of the score
(MECHANICS §12) from the scenario's config. Nothing is typed here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["scenario_rules"]


def scenario_rules(cfg: Any) -> dict[str, Any]:
    """``lab.rules()`` for ``cfg`` plus ``projection_months`` (the §12 projection horizon).

    Args:
        cfg: The scenario's ``WorldConfig``.

    Returns:
        A JSON-able dict; keys as documented in ``world.rules.RULES_DOC``.
    """
    from world.rules import rules

    out = dict(rules(cfg))
    out["projection_months"] = int(cfg.projection_months)
    return out
