"""Every parameter of the world, with its unit and the MECHANICS.md section it comes from.

A scenario is a :class:`WorldConfig` plus a seed. Nothing in the rules hard-codes a number
that lives here (MECHANICS.md, Decisions §2).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from .horizon import DEFAULT_HORIZON_MONTHS
from .textcache import fingerprint

TOPICS: tuple[str, ...] = (
    "sparse_models",
    "ai4science",
    "embodied",
    "reasoning",
    "alignment",
    "data_systems",
    "theory",
    "neuro_ai",
)
"""Topic names in their fixed order (MECHANICS.md §4)."""

TOPIC_INDEX: dict[str, int] = {t: k for k, t in enumerate(TOPICS)}
"""Topic name → its position in :data:`TOPICS` (``TOPICS.index`` as one lookup)."""

POOLS: tuple[str, ...] = ("elite", "international", "nontraditional", "local")
"""Applicant pools in table order (MECHANICS.md §5)."""

VENUES: tuple[str, ...] = ("NAIC", "CLAR", "W-SHOP", "JMR")
"""Venues in table order (MECHANICS.md §7)."""

AGENCIES: tuple[str, ...] = ("BSF", "AMP", "TIF", "FEL")
"""Funding agencies in table order (MECHANICS.md §9)."""

STANDING_WORDS: tuple[str, ...] = ("unknown", "rising", "established", "renowned")
"""The lab's public standing words, lowest first (MECHANICS §10): below ``standing_rising``,
then below ``standing_established``, then below ``standing_renowned``, then at or above it."""


def _p(default: Any, unit: str, section: str, lo: float | None = None, hi: float | None = None) -> Any:
    """A scalar parameter with its unit, MECHANICS section and valid range (inclusive)."""
    return field(default=default, metadata={"unit": unit, "section": section, "min": lo, "max": hi})


def _t(factory: Callable[[], Any], unit: str, section: str) -> Any:
    """A table-valued parameter (a dict of dicts or of numbers)."""
    return field(default_factory=factory, metadata={"unit": unit, "section": section, "min": None, "max": None})


def _initial_hotness() -> dict[str, float]:
    return {
        "sparse_models": 1.6,
        "ai4science": 1.2,
        "embodied": 0.8,
        "reasoning": 2.2,
        "alignment": 1.0,
        "data_systems": 0.7,
        "theory": 0.5,
        "neuro_ai": 0.9,
    }


def _pools() -> dict[str, dict[str, float]]:
    # ability mean, ability sd, transcript noise, letter bias, letter noise,
    # accept base, accept per reputation point, volume lambda
    rows = {
        "elite": (0.68, 0.10, 0.05, 0.02, 0.08, 0.35, 0.05, 2.0),
        "international": (0.62, 0.14, 0.10, 0.12, 0.15, 0.60, 0.03, 3.5),
        "nontraditional": (0.55, 0.20, 0.18, -0.05, 0.12, 0.75, 0.02, 2.5),
        "local": (0.50, 0.10, 0.06, 0.00, 0.06, 0.85, 0.01, 2.0),
    }
    keys = (
        "ability_mean",
        "ability_sd",
        "transcript_noise",
        "letter_bias",
        "letter_noise",
        "accept_base",
        "accept_per_rep",
        "volume",
    )
    return {pool: dict(zip(keys, vals, strict=True)) for pool, vals in rows.items()}


def _tiers() -> dict[str, dict[str, float]]:
    return {
        "1": {"work": 6.0, "p_infeasible": 0.03, "base_quality": 1.2},
        "2": {"work": 14.0, "p_infeasible": 0.10, "base_quality": 2.6},
        "3": {"work": 28.0, "p_infeasible": 0.28, "base_quality": 3.6},
    }


def _venues() -> dict[str, dict[str, Any]]:
    return {
        "NAIC": {
            "kind": "top conference",
            "deadlines": [3, 9],
            "delay": 3,
            "bar": 6.3,
            "visibility": 3.0,
            "half_life": 30.0,
            "reputation": 0.50,
            "conference": True,
        },
        "CLAR": {
            "kind": "mid conference",
            "deadlines": [0, 6],
            "delay": 3,
            "bar": 4.6,
            "visibility": 1.2,
            "half_life": 30.0,
            "reputation": 0.15,
            "conference": True,
        },
        "W-SHOP": {
            "kind": "workshop",
            "deadlines": [],
            "delay": 1,
            "bar": 2.6,
            "visibility": 0.4,
            "half_life": 30.0,
            "reputation": 0.03,
            "conference": False,
        },
        "JMR": {
            "kind": "journal",
            "deadlines": [],
            "delay": 7,
            "bar": 5.6,
            "visibility": 2.0,
            "half_life": 40.0,
            "reputation": 0.35,
            "conference": False,
        },
    }


def _agencies() -> dict[str, dict[str, Any]]:
    return {
        "BSF": {
            "call_months": [2, 8, 14, 20, 26, 32, 38, 44, 50, 56],
            "rolling": False,
            "award": 360000.0,
            "duration": 36,
            "bar": 1.15,
            "delay": 5,
            "max_concurrent": 2,
            "once": False,
            "reputation": 0.25,
        },
        "AMP": {
            "call_months": [5, 14, 26, 38, 50],
            "rolling": False,
            "award": 850000.0,
            "duration": 24,
            "bar": 1.45,
            "delay": 6,
            "max_concurrent": 1,
            "once": False,
            "reputation": 0.40,
        },
        "TIF": {
            "call_months": [],
            "rolling": True,
            "award": 90000.0,
            "duration": 12,
            "bar": 0.92,
            "delay": 2,
            "max_concurrent": 2,
            "once": False,
            "reputation": 0.05,
        },
        "FEL": {
            "call_months": [9, 21, 33],
            "rolling": False,
            "award": 150000.0,
            "duration": 24,
            "bar": 1.35,
            "delay": 4,
            "max_concurrent": 1,
            "once": True,
            "reputation": 0.50,
        },
    }


TABLE_RANGES: dict[str, dict[str, tuple[float, float]]] = {
    "pools": {
        "ability_mean": (0.0, 1.0),
        "ability_sd": (0.0, 1.0),
        "transcript_noise": (0.0, 1.0),
        "letter_bias": (-1.0, 1.0),
        "letter_noise": (0.0, 1.0),
        "accept_base": (0.0, 1.0),
        "accept_per_rep": (-1.0, 1.0),
        "volume": (0.0, 100.0),
    },
    "tiers": {"work": (0.001, 1000.0), "p_infeasible": (0.0, 1.0), "base_quality": (-10.0, 20.0)},
    "venues": {
        "deadlines": (0, 11),
        "delay": (0, 60),
        "bar": (-10.0, 20.0),
        "visibility": (0.0, 100.0),
        "half_life": (0.001, 1000.0),
        "reputation": (-10.0, 10.0),
    },
    "agencies": {
        "call_months": (1, 1000),
        "award": (0.0, 1e9),
        "duration": (1, 240),
        "bar": (-10.0, 10.0),
        "delay": (0, 60),
        "max_concurrent": (0, 100),
        "reputation": (-10.0, 10.0),
    },
}
"""Valid ranges (inclusive) of the numbers inside the table parameters; lists are checked item by item."""


@dataclasses.dataclass(frozen=True)
class WorldConfig:
    """Every rule parameter of the world (MECHANICS.md, Decisions §2).

    Scalars carry ``metadata`` with ``unit``, ``section`` and an inclusive ``min``/``max``
    used by :meth:`validate` and the scenario loader. Table fields are dicts keyed by topic,
    pool, tier (as a string ``"1".."3"``), venue or agency.
    """

    # --- §1 time, §2 money -------------------------------------------------------------
    months: int = _p(DEFAULT_HORIZON_MONTHS, "months", "§1", 1, 240)
    start_budget: float = _p(600_000.0, "USD", "§2", 0, 1e9)
    pay_phd: float = _p(3_200.0, "USD/month", "§2", 0, 1e6)
    pay_postdoc: float = _p(6_500.0, "USD/month", "§2", 0, 1e6)
    pay_ra: float = _p(1_800.0, "USD/month", "§2", 0, 1e6)
    pay_manager: float = _p(4_500.0, "USD/month", "§2", 0, 1e6)
    compute_unit_cost: float = _p(1.0, "USD/unit", "§2", 0, 1e3)
    award_overhead: float = _p(600.0, "USD/award-month", "§2", 0, 1e6)
    proposal_fee: float = _p(500.0, "USD", "§2", 0, 1e6)
    talk_travel_cost: float = _p(1_500.0, "USD", "§2", 0, 1e6)
    conference_cost: float = _p(2_500.0, "USD", "§2", 0, 1e6)
    postdoc_search_fee: float = _p(1_000.0, "USD", "§2", 0, 1e6)

    # --- §3 attention ------------------------------------------------------------------
    unlimited_attention: bool = _p(False, "switch", "§17 ablation")
    attention_base: float = _p(100.0, "hours/month", "§3", 0, 1e7)
    attention_unlimited_base: float = _p(1e6, "hours/month", "§17 ablation", 0, 1e9)
    oversight_per_researcher: float = _p(4.0, "hours/month", "§3", 0, 100)
    oversight_manager_relief: float = _p(2.0, "hours/month per manager", "§3", 0, 100)
    oversight_min_per_researcher: float = _p(1.0, "hours/month", "§3", 0, 100)
    oversight_per_ra: float = _p(1.5, "hours/month", "§3", 0, 100)
    service_tax_hours: float = _p(12.0, "hours", "§3", 0, 100)
    service_tax_month: int = _p(7, "month of year (m mod 12)", "§3", 0, 11)
    attention_floor: float = _p(30.0, "hours/month", "§3", 0, 1e7)
    mentoring_max: float = _p(40.0, "hours/month per person", "§3", 0, 1000)
    interview_hours: float = _p(3.0, "hours", "§3", 0, 100)
    proposal_min_hours: float = _p(5.0, "hours", "§3/§9", 0, 100)
    talk_hours: float = _p(8.0, "hours", "§3", 0, 100)
    review_hours: float = _p(6.0, "hours", "§3", 0, 100)
    crisis_hours: float = _p(10.0, "hours", "§3", 0, 100)
    conference_hours: float = _p(15.0, "hours", "§3", 0, 100)
    collab_hours: float = _p(6.0, "hours/month", "§3", 0, 100)
    collab_months: int = _p(3, "months", "§3/§11", 1, 24)

    # --- §4 field ----------------------------------------------------------------------
    frozen_field: bool = _p(False, "switch", "Decisions §4")
    initial_hotness: dict[str, Any] = _t(_initial_hotness, "hotness", "§4")
    hot_drift_sd: float = _p(0.015, "log-hotness/month", "§4", 0, 10)
    hot_reversion: float = _p(0.06, "fraction/month", "§4", 0, 1)
    hot_noise_sd: float = _p(0.10, "log-hotness/month", "§4", 0, 10)
    boom_p: float = _p(0.02, "probability/month", "§4", 0, 1)
    bust_p: float = _p(0.015, "probability/month", "§4", 0, 1)
    boom_log_mean_factor: float = _p(2.2, "factor", "§4", 0.01, 100)
    boom_log_sd: float = _p(0.3, "log units", "§4", 0, 10)
    bust_low: float = _p(0.35, "factor", "§4", 0.001, 1)
    bust_high: float = _p(0.6, "factor", "§4", 0.001, 1)
    hot_min: float = _p(0.25, "hotness", "§4", 0.001, 100)
    hot_max: float = _p(6.0, "hotness", "§4", 0.001, 100)
    trajectory_padding: int = _p(8, "months", "§4", 0, 120)
    crowd_initial_factor: float = _p(0.8, "factor", "§4", 0, 10)
    crowd_initial_min: float = _p(0.4, "crowding", "§4", 0, 10)
    crowd_rate: float = _p(0.12, "fraction/month", "§4", 0, 1)
    crowd_noise_sd: float = _p(0.03, "crowding", "§4", 0, 10)
    crowd_min: float = _p(0.2, "crowding", "§4", 0, 10)
    climate_amplitude: float = _p(0.18, "climate", "§4", 0, 10)
    climate_period: float = _p(30.0, "months", "§4", 1, 1000)
    climate_rate: float = _p(0.25, "fraction/month", "§4", 0, 1)
    climate_noise_sd: float = _p(0.05, "climate", "§4", 0, 10)
    climate_min: float = _p(0.6, "climate", "§4", 0, 10)
    climate_max: float = _p(1.4, "climate", "§4", 0, 10)
    shock_p: float = _p(0.05, "probability/month", "§4", 0, 1)
    shock_up: float = _p(1.3, "multiplier", "§4", 0, 100)
    shock_down: float = _p(0.7, "multiplier", "§4", 0, 100)
    shock_up_p: float = _p(0.5, "probability a shock is a surge", "§4", 0, 1)
    shock_months: int = _p(4, "months", "§4", 1, 120)
    news_rate: float = _p(1.2, "items per unit hotness", "§4", 0, 100)
    word_surging: float = _p(1.6, "hotness", "§4", 0, 100)
    word_gaining: float = _p(1.2, "hotness", "§4", 0, 100)
    word_steady: float = _p(0.8, "hotness", "§4", 0, 100)
    preprint_rate: float = _p(6.0, "preprints per unit crowding", "§4", 0, 1000)
    conference_report_rate: float = _p(4.0, "papers per unit hotness", "§4", 0, 1000)
    conference_report_lag: int = _p(3, "months", "§4", 0, 24)
    funding_news_lag: int = _p(2, "months", "§4", 0, 24)
    funding_news_noise_sd: float = _p(0.05, "fraction", "§4", 0, 10)
    funding_word_up: float = _p(1.05, "climate", "§4", 0, 10)
    funding_word_down: float = _p(0.95, "climate", "§4", 0, 10)

    # --- §5 people ---------------------------------------------------------------------
    pools: dict[str, Any] = _t(_pools, "per-pool table", "§5")
    pool_candidates: int = _p(12, "candidates per pool", "§5", 0, 100)
    pool_max_revealed: int = _p(12, "candidates per pool", "§5", 0, 100)
    pool_reputation_volume: float = _p(0.25, "per reputation point", "§5", 0, 10)
    pool_boost: float = _p(1.15, "factor", "§5", 0, 10)
    ability_min: float = _p(0.15, "ability", "§5", 0, 1)
    ability_max: float = _p(0.95, "ability", "§5", 0, 1)
    interview_noise_sd: float = _p(0.07, "score", "§5", 0, 1)
    applicant_speed_mean: float = _p(1.0, "multiplier", "§5", 0, 10)
    applicant_speed_sd: float = _p(0.15, "multiplier", "§5", 0, 10)
    applicant_resilience_low: float = _p(0.4, "resilience", "§5", 0.01, 10)
    applicant_resilience_high: float = _p(1.0, "resilience", "§5", 0.01, 10)
    applicant_independence_low: float = _p(0.3, "independence", "§5", 0, 1)
    applicant_independence_high: float = _p(1.0, "independence", "§5", 0, 1)
    applicant_growth_mean: float = _p(1.0, "multiplier", "§5", 0, 10)
    applicant_growth_sd: float = _p(0.3, "multiplier", "§5", 0, 10)
    growth_min: float = _p(0.3, "multiplier", "§5", 0, 10)
    alumni_lift: float = _p(0.012, "ability per alum", "§5", 0, 1)
    alumni_lift_cap: float = _p(0.06, "ability", "§5", 0, 1)
    offer_p_min: float = _p(0.05, "probability", "§5", 0, 1)
    offer_p_max: float = _p(0.95, "probability", "§5", 0, 1)
    researcher_cap: int = _p(12, "researchers", "§5", 0, 1000)
    phd_skill_base: float = _p(0.35, "skill", "§5", 0, 2)
    phd_skill_per_ability: float = _p(0.30, "skill per ability", "§5", 0, 2)
    initial_morale: float = _p(0.75, "morale", "§5", 0, 1)
    skill_growth: float = _p(0.012, "skill/month", "§5", 0, 1)
    skill_mentor_gain: float = _p(1.2, "factor", "§5", 0, 10)
    skill_mentor_hours: float = _p(8.0, "hours", "§5", 0.001, 1000)
    skill_cap: float = _p(1.2, "skill", "§5", 0, 10)
    morale_target: float = _p(0.70, "morale", "§5", 0, 1)
    morale_reversion: float = _p(0.06, "fraction/month", "§5", 0, 1)
    overload_projects: int = _p(2, "projects", "§5", 0, 100)
    overload_impulse: float = _p(-0.10, "morale", "§5", -1, 1)
    neglect_hours: float = _p(2.0, "hours", "§5", 0, 100)
    neglect_impulse: float = _p(-0.08, "morale", "§5", -1, 1)
    runway_stress_months: float = _p(6.0, "months", "§5", 0, 1000)
    runway_stress_impulse: float = _p(-0.10, "morale", "§5", -1, 1)
    peer_morale_rate: float = _p(0.05, "fraction", "§5", 0, 1)
    peer_morale_default: float = _p(0.7, "morale", "§5", 0, 1)
    impulse_accept_first: float = _p(0.35, "morale", "§5/§7", -1, 1)
    impulse_accept_other: float = _p(0.25, "morale", "§5/§7", -1, 1)
    impulse_reject: float = _p(-0.18, "morale / resilience", "§5/§7", -1, 1)
    impulse_killed: float = _p(-0.15, "morale / resilience", "§5/§6", -1, 1)
    impulse_scooped: float = _p(-0.20, "morale / resilience", "§5/§6", -1, 1)
    impulse_crisis_supported: float = _p(0.05, "morale", "§5/§11", -1, 1)
    impulse_crisis_ignored: float = _p(-0.35, "morale / resilience", "§5/§11", -1, 1)
    report_noise_sd: float = _p(0.15, "report quality", "§5", 0, 10)
    sentiment_noise_sd: float = _p(0.18, "sentiment", "§5", 0, 10)
    sentiment_min_hours: float = _p(1.0, "hours", "§5", 0, 100)
    quit_p_max: float = _p(0.25, "probability/month", "§5", 0, 1)
    quit_p_scale: float = _p(0.5, "factor on the logistic", "§5", 0, 1)
    report_morale_base: float = _p(0.6, "report factor at morale 0", "§5", 0, 10)
    report_morale_gain: float = _p(0.4, "report factor per morale", "§5", 0, 10)
    quit_center: float = _p(0.35, "morale", "§5", 0, 1)
    quit_scale: float = _p(0.07, "morale", "§5", 0.0001, 10)
    graduation_month: int = _p(5, "month of year (m mod 12)", "§5", 0, 11)
    graduation_min_months: int = _p(48, "months", "§5", 0, 1000)
    graduation_min_papers: int = _p(2, "accepted papers", "§5", 0, 100)
    graduation_reputation: float = _p(0.25, "reputation", "§5/§10", -10, 10)
    alumni_citation_bonus: float = _p(0.005, "factor per alum", "§5/§8", 0, 1)
    postdoc_fill_base: float = _p(0.45, "probability", "§5", 0, 1)
    postdoc_fill_per_rep: float = _p(0.06, "probability per reputation point", "§5", 0, 1)
    postdoc_fill_max: float = _p(0.85, "probability", "§5", 0, 1)
    postdoc_search_months: int = _p(2, "months", "§5", 0, 24)
    postdoc_contract_months: int = _p(24, "months", "§5", 1, 240)
    postdoc_renewal_window: int = _p(3, "months", "§5", 0, 240)
    postdoc_renewal_months: int = _p(12, "months", "§5", 1, 240)
    postdoc_ability_mean: float = _p(0.74, "ability", "§5", 0, 1)
    postdoc_ability_sd: float = _p(0.12, "ability", "§5", 0, 1)
    postdoc_ability_min: float = _p(0.2, "ability", "§5", 0, 1)
    postdoc_ability_max: float = _p(0.97, "ability", "§5", 0, 1)
    postdoc_skill_base: float = _p(0.55, "skill", "§5", 0, 2)
    postdoc_skill_per_ability: float = _p(0.35, "skill per ability", "§5", 0, 2)
    postdoc_speed_mean: float = _p(1.05, "multiplier", "§5", 0, 10)
    postdoc_speed_sd: float = _p(0.12, "multiplier", "§5", 0, 10)
    postdoc_resilience_low: float = _p(0.5, "resilience", "§5", 0.01, 10)
    postdoc_resilience_high: float = _p(1.0, "resilience", "§5", 0.01, 10)
    postdoc_independence_low: float = _p(0.6, "independence", "§5", 0, 1)
    postdoc_independence_high: float = _p(1.0, "independence", "§5", 0, 1)
    postdoc_growth_mean: float = _p(0.8, "multiplier", "§5", 0, 10)
    postdoc_growth_sd: float = _p(0.2, "multiplier", "§5", 0, 10)
    ra_ability_low: float = _p(0.35, "ability", "§5", 0, 1)
    ra_ability_high: float = _p(0.55, "ability", "§5", 0, 1)
    ra_skill: float = _p(0.5, "skill", "§5", 0, 2)
    ra_speed_mean: float = _p(0.9, "multiplier", "§5", 0, 10)
    ra_speed_sd: float = _p(0.1, "multiplier", "§5", 0, 10)
    ra_resilience: float = _p(0.8, "resilience", "§5", 0.01, 10)
    ra_independence: float = _p(0.9, "independence", "§5", 0, 1)
    ra_morale: float = _p(0.7, "morale", "§5", 0, 1)
    manager_cap: int = _p(2, "managers", "§5", 0, 100)

    # --- §6 projects -------------------------------------------------------------------
    no_scooping: bool = _p(False, "switch", "§17 ablation")
    tiers: dict[str, Any] = _t(_tiers, "per-tier table", "§6")
    max_active_projects: int = _p(10, "projects", "§6", 0, 1000)
    max_compute: float = _p(50_000.0, "units/month", "§6", 0, 1e9)
    novelty_crowding: float = _p(0.06, "novelty per crowding", "§6", 0, 10)
    novelty_start_mean: float = _p(1.0, "novelty", "§6", 0, 10)
    novelty_start_sd: float = _p(0.1, "novelty", "§6", 0, 10)
    novelty_min: float = _p(0.3, "novelty", "§6", 0, 10)
    novelty_max: float = _p(1.3, "novelty", "§6", 0, 10)
    novelty_bleed: float = _p(0.015, "novelty per crowding/month", "§6", 0, 10)
    mentor_effect_hours: float = _p(6.0, "hours", "§6", 0.001, 1000)
    effect_morale_base: float = _p(0.5, "effectiveness factor at morale 0", "§6", 0, 10)
    effect_morale_gain: float = _p(0.5, "effectiveness factor per morale", "§6", 0, 10)
    progress_rate: float = _p(0.9, "work units", "§6", 0, 100)
    progress_exponent: float = _p(0.9, "exponent", "§6", 0, 10)
    compute_gain: float = _p(0.30, "factor", "§6", 0, 10)
    compute_scale: float = _p(800.0, "units", "§6", 0.001, 1e9)
    progress_noise_sd: float = _p(0.22, "fraction", "§6", 0, 10)
    progress_noise_floor: float = _p(0.1, "fraction", "§6", 0, 10)
    scoop_progress: float = _p(0.25, "fraction of work", "§6", 0, 1)
    scoop_rate: float = _p(0.010, "probability per crowding", "§6", 0, 1)
    scoop_factor: float = _p(0.45, "novelty factor", "§6", 0, 1)
    deadend_progress: float = _p(0.6, "fraction of work", "§6", 0, 1)
    salvage_p: float = _p(0.5, "probability", "§6", 0, 1)
    salvage_q_low: float = _p(1.5, "quality", "§6", 0, 10)
    salvage_q_high: float = _p(2.8, "quality", "§6", 0, 10)
    quality_ka: float = _p(1.8, "quality per skill×ability", "§6", 0, 100)
    quality_novelty: float = _p(0.9, "quality per novelty", "§6", 0, 100)
    quality_novelty_center: float = _p(0.6, "novelty", "§6", 0, 10)
    quality_compute: float = _p(0.35, "quality", "§6", 0, 100)
    quality_noise_sd: float = _p(0.45, "quality", "§6", 0, 10)
    breakthrough_p: float = _p(0.18, "probability", "§6", 0, 1)
    breakthrough_bonus: float = _p(1.5, "quality", "§6", 0, 10)
    quality_min: float = _p(0.5, "quality", "§6", 0, 10)
    quality_max: float = _p(10.0, "quality", "§6", 0, 100)
    unstaffed_ka: float = _p(0.2, "skill×ability", "§6", 0, 10)

    # --- §7 papers -------------------------------------------------------------------
    venues: dict[str, Any] = _t(_venues, "per-venue table", "§7")
    polish_gain: float = _p(0.5, "quality", "§7", 0, 10)
    polish_cap_hours: float = _p(12.0, "hours", "§7", 0.001, 1000)
    review_hotness: float = _p(0.35, "score per hotness", "§7", 0, 10)
    review_reputation: float = _p(0.15, "score per reputation point", "§7", 0, 10)
    review_noise_sd: float = _p(0.5, "score", "§7", 0, 10)
    reviewer_noise_sd: float = _p(0.35, "score", "§7", 0, 10)
    reviewers: int = _p(3, "reviewers", "§7", 1, 20)
    revise_gain: float = _p(0.35, "quality", "§7", 0, 10)
    revise_cap_hours: float = _p(10.0, "hours", "§7", 0.001, 1000)
    revise_decay: float = _p(0.8, "factor per revision", "§7", 0, 1)
    collab_q_mean: float = _p(4.8, "quality", "§7", 0, 10)
    collab_q_sd: float = _p(0.8, "quality", "§7", 0, 10)
    collab_q_min: float = _p(1.0, "quality", "§7", 0, 10)
    collab_q_max: float = _p(8.0, "quality", "§7", 0, 10)
    collab_tier: int = _p(2, "tier", "§7", 1, 3)

    # --- §8 citations, §12 score --------------------------------------------------------
    citation_quality_slope: float = _p(0.42, "per quality point", "§8", 0, 10)
    citation_quality_center: float = _p(5.0, "quality", "§8", 0, 10)
    citation_ramp_months: float = _p(6.0, "months", "§8", 0.001, 120)
    citation_decay_start: float = _p(6.0, "months", "§8", 0, 120)
    citation_reputation: float = _p(0.08, "per reputation point", "§8", 0, 10)
    collab_citation_factor: float = _p(0.5, "factor", "§8", 0, 10)
    citation_reputation_gain: float = _p(0.04, "reputation per ln(1+citations)", "§8/§10", 0, 10)
    projection_months: int = _p(36, "months", "§12", 0, 600)

    # --- §9 grants ---------------------------------------------------------------------
    agencies: dict[str, Any] = _t(_agencies, "per-agency table", "§9")
    grant_hours_coef: float = _p(0.42, "quality", "§9", 0, 10)
    grant_hours_ref: float = _p(25.0, "hours", "§9", 0.001, 1000)
    grant_hours_exp: float = _p(0.7, "exponent", "§9", 0, 10)
    grant_evidence_coef: float = _p(0.55, "quality", "§9", 0, 10)
    grant_evidence_scale: float = _p(6.0, "evidence units", "§9", 0.001, 1000)
    grant_evidence_draft_weight: float = _p(0.4, "weight", "§9", 0, 10)
    grant_evidence_offtopic: float = _p(0.25, "factor", "§9", 0, 10)
    grant_rep_coef: float = _p(0.06, "quality per reputation point", "§9", 0, 10)
    grant_rep_cap: float = _p(0.35, "quality", "§9", 0, 10)
    grant_pref_range: float = _p(0.6, "quality", "§9", 0, 10)
    amp_hot_coef: float = _p(0.35, "quality per hotness", "§9", 0, 10)
    amp_hot_lead: int = _p(6, "months", "§9", 0, 60)
    amp_pref_coef: float = _p(0.5, "factor", "§9", 0, 10)
    amp_tier3_bonus: float = _p(0.15, "quality", "§9", 0, 10)
    grant_climate_coef: float = _p(0.25, "quality per climate", "§9", 0, 10)
    grant_overcommit: float = _p(0.10, "quality per active award", "§9", 0, 10)
    tif_hot_coef: float = _p(0.20, "quality per hotness", "§9", 0, 10)
    tif_cooldown: int = _p(3, "months", "§9", 0, 60)
    grant_noise_sd: float = _p(0.28, "quality", "§9", 0, 10)

    # --- §10 reputation ----------------------------------------------------------------
    reputation_start: float = _p(2.0, "reputation", "§10", 0, 10)
    reputation_baseline: float = _p(2.0, "reputation (R0)", "§10", 0, 10)
    reputation_decay: float = _p(0.01, "fraction/month", "§10", 0, 1)
    reputation_max: float = _p(10.0, "reputation", "§10", 0, 100)
    standing_rising: float = _p(2.5, "reputation", "§10", 0, 100)
    standing_established: float = _p(4.0, "reputation", "§10", 0, 100)
    standing_renowned: float = _p(6.0, "reputation", "§10", 0, 100)
    rep_talk: float = _p(0.12, "reputation", "§10", -10, 10)
    rep_conference: float = _p(0.06, "reputation", "§10", -10, 10)
    rep_review_accept: float = _p(0.02, "reputation", "§10", -10, 10)
    rep_review_decline: float = _p(-0.03, "reputation", "§10", -10, 10)

    # --- §11 events --------------------------------------------------------------------
    talk_p_base: float = _p(0.05, "probability/month", "§11", 0, 1)
    talk_p_per_rep: float = _p(0.08, "probability per reputation point", "§11", 0, 1)
    talk_p_max: float = _p(0.6, "probability/month", "§11", 0, 1)
    review_p: float = _p(0.6, "probability/month", "§11", 0, 1)
    crisis_p: float = _p(0.02, "probability/month per researcher", "§11", 0, 1)
    collab_p_per_rep: float = _p(0.05, "probability per reputation point", "§11", 0, 1)
    collab_p_max: float = _p(0.5, "probability/month", "§11", 0, 1)
    talk_expiry: int = _p(2, "months", "§11", 0, 24)
    review_expiry: int = _p(2, "months", "§11", 0, 24)
    collab_expiry: int = _p(1, "months", "§11", 0, 24)
    conference_gap: int = _p(5, "months", "§11", 0, 120)
    intel_noise_sd: float = _p(0.5, "hotness", "§11", 0, 10)
    intel_very_hot: float = _p(2.0, "hotness", "§11", 0, 100)
    intel_hot: float = _p(1.3, "hotness", "§11", 0, 100)
    intel_warm: float = _p(0.8, "hotness", "§11", 0, 100)

    # --- harness (§16) -----------------------------------------------------------------
    memory_max_chars: int = _p(6_000, "characters", "§16", 0, 10_000_000)
    query_max_rows: int = _p(2_000, "rows", "§14", 1, 1_000_000)

    # ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return every parameter as plain JSON-able data (tables deep-copied)."""
        return {f.name: copy.deepcopy(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def content_hash(self) -> str:
        """The scenario as its content: SHA-256 (hex) of :meth:`to_dict` as canonical JSON
        (sorted keys, no spaces, ASCII). Two configs share it only when every parameter is
        equal, whatever their names; a config read back from JSON has the same hash. The
        one home of this hash (runs, saves and reports carry it; issue 25 §1)."""
        return config_hash(self.to_dict())

    @classmethod
    def check(cls, data: Mapping[str, Any], paths: Mapping[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
        """Type- and range-check (possibly partial) parameters without building a config.

        The one validator of world parameters: scenario files, the CLI and :meth:`from_dict`
        all use it. Every problem is reported, each starting with the key path it concerns
        (``months``, ``pools.elite.volume``, ``venues.NAIC.deadlines[1]``) and saying what is
        valid: unknown keys (with a "did you mean" and the valid keys), wrong types, numbers
        outside the parameter's inclusive ``min``/``max`` (field metadata, :data:`TABLE_RANGES`).

        Args:
            data: parameter name → value; a table may be given in part (it merges into the default).
            paths: how to name a top-level key in messages (e.g. ``{"hot_max": "world.hot_max"}``).

        Returns:
            ``(values, problems)``: the valid values coerced to their types (floats for float
            parameters), and the problems (empty when all is well).
        """
        paths = paths or {}
        fields = _FIELDS()
        defaults = _DEFAULTS()
        problems: list[str] = []
        values: dict[str, Any] = {}
        for key, value in data.items():
            path = paths.get(key, key)
            f = fields.get(key)
            if f is None:
                problems.append(unknown_key(path, str(key), sorted(fields), "parameter"))
                continue
            checked = _check(path, value, _model(defaults, f), f.metadata, problems, TABLE_RANGES.get(key))
            if checked is not None:
                values[key] = checked
        return values, problems

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], paths: Mapping[str, str] | None = None) -> WorldConfig:
        """Build a config from (possibly partial) data; tables merge into the defaults.

        Raises:
            ConfigError: every problem at once (:meth:`check`, then the rules of
                :meth:`problems` on the merged config), each naming its key and what is valid.
        """
        if not isinstance(data, Mapping):
            raise ConfigError([f"config must be a table of parameters, got {value_kind(data)} {short_repr(data)}"])
        # A value exactly its default (same types, values and order: a config read back from a
        # save is mostly defaults) is left to the default instead of checked and merged: the
        # check would pass it and the merge give the default again (exact; see _default_prints).
        prints = _default_prints()
        values, problems = cls.check({k: v for k, v in data.items() if prints.get(k) != _print(v)}, paths)
        base = cls()  # fresh tables: a config never shares a dict with another
        merged: dict[str, Any] = {
            k: _merge_into(getattr(base, k), v) if isinstance(getattr(base, k), dict) else v for k, v in values.items()
        }
        cfg = dataclasses.replace(base, **merged)
        # With no problem found, check() has range-checked every value given, with the bounds
        # problems() uses, and every other value is a default (in range): only the cross-field
        # rules are left (the same problems as problems(), which checked every range again).
        problems += cfg._rule_problems(paths or {}) if not problems else cfg.problems(paths)
        if problems:
            raise ConfigError(_unique(problems))
        return cfg

    def problems(self, paths: Mapping[str, str] | None = None) -> list[str]:
        """Every value of this config outside its valid range, and the cross-field rules.

        Args:
            paths: how to name a top-level key in messages (as in :meth:`check`).
        """
        paths = paths or {}
        return self._range_problems(paths) + self._rule_problems(paths)

    def _range_problems(self, paths: Mapping[str, str]) -> list[str]:
        """The values of :meth:`problems` outside their valid range."""
        out: list[str] = []
        every, tables, scalars_of, default_scalars = _plan()
        prints = _default_prints()
        # Scalars equal to the defaults (all in range) have no problem to report: only the
        # tables are then checked, in field order as always.
        for f in every if scalars_of(self) != default_scalars else tables:
            value = getattr(self, f.name)
            path = paths.get(f.name, f.name)
            if isinstance(value, dict):
                ranges = TABLE_RANGES.get(f.name)
                if ranges is None:
                    continue
                blob = _print(value)
                if blob is not None and blob == prints.get(f.name):
                    # exactly the default table (the same types, values and order: a bool or a
                    # float for the int 1 prints otherwise), which is in range: no cell to check
                    continue
                for row_key, row in value.items():
                    for key, (lo, hi) in ranges.items():
                        item = row.get(key)
                        items = item if isinstance(item, list) else [item]
                        for i, v in enumerate(items):
                            if _plainly_within(v, lo, hi):
                                continue  # the common case: no message to build
                            where = f"{path}.{row_key}.{key}" + (f"[{i}]" if isinstance(item, list) else "")
                            _number(where, v, {"min": lo, "max": hi}, out)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                meta = f.metadata
                if not _plainly_within(value, meta.get("min"), meta.get("max")):
                    _number(path, value, meta, out)
        return out

    def _rule_problems(self, paths: Mapping[str, str]) -> list[str]:
        """The cross-field rules of :meth:`problems` this config breaks."""
        out: list[str] = []
        path = paths.get("initial_hotness", "initial_hotness")
        if set(self.initial_hotness) != set(TOPICS):
            out.append(f"{path}: must give exactly the topics {', '.join(TOPICS)}")
        for k, h in self.initial_hotness.items():
            if not (isinstance(h, (int, float)) and not isinstance(h, bool) and math.isfinite(h) and h > 0):
                out.append(f"{path}.{k}: must be a positive number, got {short_repr(h)}")
        return out

    def validate(self) -> None:
        """Check every value against its range and the cross-field rules.

        Raises:
            ConfigError: listing every problem, each naming the parameter, its value and the valid range.
        """
        problems = self.problems()
        if problems:
            raise ConfigError(problems)

    def hotness0(self) -> list[float]:
        """Initial hotness in topic order (MECHANICS.md §4)."""
        return [float(self.initial_hotness[t]) for t in TOPICS]


class ConfigError(ValueError):
    """Invalid world parameters. ``problems`` lists every one, each starting with its key path."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = self.problems[0]
        else:
            text = f"{len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(text)


SEED_MAX = 2**63 - 1
"""Largest world seed (seeds are integers in ``0..SEED_MAX``)."""


def config_hash(data: Mapping[str, Any]) -> str:
    """:meth:`WorldConfig.content_hash` of a config's :meth:`~WorldConfig.to_dict` (or the
    same dict read back from JSON): SHA-256 (hex) of it as canonical JSON."""
    import hashlib
    import json

    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def seed_problem(seed: Any) -> str | None:
    """Why ``seed`` is not a valid world seed (an integer in ``0..SEED_MAX``), or None."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        return f"must be an integer, got {value_kind(seed)} {short_repr(seed)}"
    if not 0 <= seed <= SEED_MAX:
        return f"{seed} is out of range; it must be between 0 and {SEED_MAX}"
    return None


# ------------------------------------------------------------------------------ checking
_cache: dict[str, Any] = {}


def _FIELDS() -> dict[str, dataclasses.Field[Any]]:  # noqa: N802 - a cached constant
    fields: dict[str, dataclasses.Field[Any]] | None = _cache.get("fields")
    if fields is None:
        fields = _cache["fields"] = {f.name: f for f in dataclasses.fields(WorldConfig)}
    return fields


def _plan() -> tuple[tuple[dataclasses.Field[Any], ...], tuple[dataclasses.Field[Any], ...], Any, tuple[Any, ...]]:
    """For :meth:`WorldConfig.problems`, computed once: every field in order, the table
    fields (a dict by default) in order, a getter of the other (scalar) fields' values as a
    tuple, and the defaults' tuple.

    A scalar equal to its default is never a problem: the defaults are in range and an
    equal value is either a plain number in range or not an ``int``/``float`` at all (a
    bool, a numpy integer, a ``Fraction``), which the scalar check passes over as well.
    """
    plan: tuple[Any, Any, Any, Any] | None = _cache.get("plan")
    if plan is None:
        every = tuple(dataclasses.fields(WorldConfig))
        defaults = _DEFAULTS()
        tables = tuple(f for f in every if isinstance(getattr(defaults, f.name), dict))
        names = [f.name for f in every if f not in tables]
        getter = operator.attrgetter(*names)
        plan = _cache["plan"] = (every, tables, getter, getter(defaults))
    return plan


def _DEFAULTS() -> WorldConfig:  # noqa: N802 - a cached constant (never mutated: tables are copied on merge)
    base: WorldConfig | None = _cache.get("defaults")
    if base is None:
        base = _cache["defaults"] = WorldConfig()
    return base


def _print(value: Any) -> bytes | None:
    """``value``'s :func:`world.textcache.fingerprint` (exact types, values and order), or
    ``None`` for a value it refuses."""
    try:
        return fingerprint(value)
    except ValueError:
        return None


def _default_prints() -> dict[str, bytes]:
    """For :meth:`WorldConfig.from_dict`, computed once: parameter name -> the :func:`_print`
    of its default value, for every parameter whose default is already in the form
    :func:`_check` gives back (a float parameter with an ``int`` default is not: the check
    makes it a float). A given value with that very print (only plain data has it: a numpy
    number or a subclass prints otherwise) passes the check, and a config built from it holds
    the default exactly; ``from_dict`` then leaves it to the default (no check, no merge)."""
    prints: dict[str, bytes] | None = _cache.get("prints")
    if prints is None:
        defaults = _DEFAULTS()
        prints = {}
        for name, f in _FIELDS().items():
            value = getattr(defaults, name)
            problems: list[str] = []
            checked = _check(name, value, _model(defaults, f), f.metadata, problems, TABLE_RANGES.get(name))
            blob = _print(value)
            if not problems and blob is not None and _print(checked) == blob:
                prints[name] = blob
        _cache["prints"] = prints
    return prints


def _model(defaults: WorldConfig, f: dataclasses.Field[Any]) -> Any:
    """The value whose type a setting must have: the default, as a float if declared one."""
    default = getattr(defaults, f.name)
    if f.type in ("float", float) and isinstance(default, int) and not isinstance(default, bool):
        return float(default)
    return default


def value_kind(value: Any) -> str:
    """What ``value`` is, in words for a message ("an integer", "text", "a table" ...)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def short_repr(value: Any) -> str:
    """``value`` for a message: TOML-style booleans, long reprs cut to 40 characters."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def unknown_key(path: str, key: str, valid: list[str], what: str) -> str:
    """The message for an unknown key: a "did you mean" when one is close, and the valid keys."""
    import difflib  # only for the hint of an error message (start-up stays light)

    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{path}: unknown {what}{hint}; valid {what}s: {', '.join(valid)}"


def _plainly_within(value: Any, lo: float | None, hi: float | None) -> bool:
    """True if ``value`` is a plain finite ``int``/``float`` (not bool, not a subclass) within
    the inclusive bounds (``None`` = unbounded): a fast pre-check before :func:`_number`,
    which it agrees with wherever it returns True."""
    t = type(value)
    if t is not int and t is not float:
        return False
    if t is float and not math.isfinite(value):
        return False
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _number(path: str, value: Any, meta: Mapping[str, Any], problems: list[str]) -> Any:
    """``value`` if it is a finite number within ``meta``'s inclusive min/max, else None (problem noted)."""
    if _plainly_within(value, meta.get("min"), meta.get("max")):
        return value  # the common case, decided as below without building a message (exact)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(f"{path}: must be a number, got {value_kind(value)} {short_repr(value)}")
        return None
    if isinstance(value, float) and not math.isfinite(value):
        problems.append(f"{path}: must be a finite number, got {short_repr(value)}")
        return None
    lo, hi = meta.get("min"), meta.get("max")
    unit = f" {meta['unit']}" if meta.get("unit") else ""
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = (
            f"between {lo:g} and {hi:g}"
            if lo is not None and hi is not None
            else (f"at least {lo:g}" if lo is not None else f"at most {hi:g}")
        )
        problems.append(f"{path}: {short_repr(value)} is out of range; it must be {bounds}{unit}")
        return None
    return value


def _check(
    path: str,
    value: Any,
    default: Any,
    meta: Mapping[str, Any],
    problems: list[str],
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> Any:
    """Type-check ``value`` against the default's type (and its range); return it coerced, or None.

    A table is checked key by key against the default table (unknown keys refused); ``ranges``
    gives the ranges of the numbers inside the rows of a table (:data:`TABLE_RANGES`).
    """
    if isinstance(default, (bool, int, float, str)):
        return _check_scalar(path, value, default, meta, problems)
    if isinstance(default, list):
        return _check_array(path, value, default, meta, problems)
    if isinstance(default, dict):
        return _check_table(path, value, default, problems, ranges)
    problems.append(f"{path}: cannot be set")
    return None


def _check_scalar(path: str, value: Any, default: Any, meta: Mapping[str, Any], problems: list[str]) -> Any:
    """:func:`_check` of a true/false, integer, number or text setting (numbers also against ``meta``'s range)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            problems.append(f"{path}: must be true or false, got {value_kind(value)} {short_repr(value)}")
            return None
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{path}: must be an integer, got {value_kind(value)} {short_repr(value)}")
            return None
        return _number(path, value, meta, problems)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{path}: must be a number, got {value_kind(value)} {short_repr(value)}")
            return None
        try:
            number = float(value)
        except OverflowError:  # a JSON integer of 310 digits: no float holds it
            problems.append(f"{path}: {short_repr(value)} is too large for a number")
            return None
        checked = _number(path, number, meta, problems)
        return None if checked is None else number
    if not isinstance(value, str):
        problems.append(f"{path}: must be text, got {value_kind(value)} {short_repr(value)}")
        return None
    return value


def _check_array(path: str, value: Any, default: list[Any], meta: Mapping[str, Any], problems: list[str]) -> Any:
    """:func:`_check` of an array: each item against the default's first item (or an integer)."""
    if not isinstance(value, list):
        problems.append(f"{path}: must be an array, got {value_kind(value)} {short_repr(value)}")
        return None
    model = default[0] if default else 0
    items = [_check(f"{path}[{i}]", v, model, meta, problems) for i, v in enumerate(value)]
    return None if any(v is None for v in items) else items


def _check_table(
    path: str,
    value: Any,
    default: dict[str, Any],
    problems: list[str],
    ranges: Mapping[str, tuple[float, float]] | None,
) -> Any:
    """:func:`_check` of a table, key by key against the default table (unknown keys refused;
    the rows of a ranged table through :func:`_check_ranged_row`)."""
    if not isinstance(value, dict):
        problems.append(f"{path}: must be a table, got {value_kind(value)} {short_repr(value)}")
        return None
    out = {}
    valid = [str(k) for k in default]
    for k, v in value.items():
        k = str(k)
        if k not in default:
            problems.append(unknown_key(f"{path}.{k}", k, valid, "key"))
            continue
        if ranges is not None and isinstance(default[k], dict):  # a row of a ranged table
            row = _check_ranged_row(f"{path}.{k}", v, default[k], problems, ranges)
            if row is not None:
                out[k] = row
            continue
        checked = _check(f"{path}.{k}", v, default[k], {}, problems)
        if checked is not None:
            out[k] = checked
    return out


def _check_ranged_row(
    path: str, value: Any, default: dict[str, Any], problems: list[str], ranges: Mapping[str, tuple[float, float]]
) -> dict[str, Any] | None:
    """One row of a ranged table: each key against the default row, numbers against ``ranges``;
    the keys that passed (None when the row is not a table)."""
    if not isinstance(value, dict):
        problems.append(f"{path}: must be a table, got {value_kind(value)} {short_repr(value)}")
        return None
    row_out = {}
    row_valid = [str(x) for x in default]
    for k2, v2 in value.items():
        if k2 not in default:
            problems.append(unknown_key(f"{path}.{k2}", str(k2), row_valid, "key"))
            continue
        lo_hi = ranges.get(k2)
        sub_meta = {"min": lo_hi[0], "max": lo_hi[1]} if lo_hi else {}
        checked = _check(f"{path}.{k2}", v2, default[k2], sub_meta, problems)
        if checked is not None:
            row_out[k2] = checked
    return row_out


def _merge_into(table: dict[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``table`` with the checked values of ``new`` merged in (rows in part), in place.

    Both are fresh, so nothing is copied (it was deep-copied twice; the same result): the
    table is a new config's default (its ``default_factory`` builds it anew), and ``new`` is
    what :func:`_check` built (new dicts and lists around immutable values, sharing nothing
    with the data it checked)."""
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(table.get(k), dict):
            table[k].update(v)
        else:
            table[k] = v
    return table


def _unique(problems: list[str]) -> list[str]:
    """Problems in order, each once (a value refused by both checks is named once)."""
    seen: set[str] = set()
    return [p for p in problems if not (p in seen or seen.add(p))]  # type: ignore[func-returns-value]
