"""This scenario's player-facing rules, in the shape the harness prompt formats.

``lab.rules()`` (MECHANICS Decisions 8 era, the one home of player-facing constants) is
preferred when the API has it; until then the same facts are read from the scenario's
:class:`~world.config.WorldConfig`. Either way the numbers come from the world, never
from text typed here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["scenario_rules"]


def scenario_rules(cfg: Any) -> dict[str, Any]:
    """The rules the system prompt formats (see :func:`pibench_tui.harness.prompt.mechanics_text`).

    Args:
        cfg: The scenario's ``WorldConfig``.

    Returns:
        A JSON-able dict: ``months``, ``start_budget`` (USD), ``pay`` (USD/month by role),
        ``attention`` (hours), ``hours`` (one-off costs in hours), ``costs`` (USD), ``caps``,
        ``postdoc`` (months), ``venues``, ``agencies``, ``service_month``,
        ``conference_gap``, ``collab_months``, ``tif_cooldown``, ``polish_cap_hours``,
        ``projection_months``, ``memory_max_chars``.
    """
    return {
        "months": int(cfg.months),
        "start_budget": float(cfg.start_budget),
        "projection_months": int(cfg.projection_months),
        "pay": {"phd": cfg.pay_phd, "postdoc": cfg.pay_postdoc, "ra": cfg.pay_ra, "manager": cfg.pay_manager},
        "attention": {
            "base": cfg.attention_unlimited_base if cfg.unlimited_attention else cfg.attention_base,
            "oversight_per_researcher": cfg.oversight_per_researcher,
            "oversight_per_ra": cfg.oversight_per_ra,
            "manager_relief": cfg.oversight_manager_relief,
            "floor": cfg.attention_floor,
            "service_tax": 0.0 if cfg.unlimited_attention else cfg.service_tax_hours,
            "mentoring_max": cfg.mentoring_max,
        },
        "hours": {
            "interview": cfg.interview_hours,
            "talk": cfg.talk_hours,
            "review": cfg.review_hours,
            "crisis": cfg.crisis_hours,
            "conference": cfg.conference_hours,
            "collab": cfg.collab_hours,
            "proposal_min": cfg.proposal_min_hours,
        },
        "costs": {
            "compute_unit": cfg.compute_unit_cost,
            "conference": cfg.conference_cost,
            "proposal": cfg.proposal_fee,
            "postdoc_search": cfg.postdoc_search_fee,
            "talk_travel": cfg.talk_travel_cost,
            "award_overhead": cfg.award_overhead,
        },
        "caps": {
            "researchers": cfg.researcher_cap,
            "managers": cfg.manager_cap,
            "active_projects": cfg.max_active_projects,
            "compute": cfg.max_compute,
        },
        "postdoc": {
            "search_months": cfg.postdoc_search_months,
            "contract_months": cfg.postdoc_contract_months,
            "renewal_months": cfg.postdoc_renewal_months,
            "renewal_window": cfg.postdoc_renewal_window,
        },
        "venues": {
            name: {"kind": v["kind"], "deadlines": list(v["deadlines"]), "decision_delay": v["delay"]}
            for name, v in cfg.venues.items()
        },
        "agencies": {
            name: {
                "award": a["award"],
                "duration": a["duration"],
                "call_months": [m for m in a["call_months"] if m <= cfg.months],
                "rolling": bool(a["rolling"]),
                "delay": a["delay"],
                "max_concurrent": a["max_concurrent"],
                "once": bool(a["once"]),
            }
            for name, a in cfg.agencies.items()
        },
        "service_month": cfg.service_tax_month or 12,
        "conference_gap": cfg.conference_gap,
        "collab_months": cfg.collab_months,
        "tif_cooldown": cfg.tif_cooldown,
        "polish_cap_hours": cfg.polish_cap_hours,
        "memory_max_chars": cfg.memory_max_chars,
    }
