"""This scenario's player-facing rules: the one home of every number a PI is told.

:func:`rules` turns a :class:`~world.config.WorldConfig` into a JSON-able dict of the
constants a player needs to plan (pay, attention, hour costs, caps, calendars, venues,
agencies, USD costs, horizon, starting budget); ``lab.rules()`` returns it. Nothing hidden
is in it: no hotness, no quality-formula coefficient, no ability distribution, no venue
bar or visibility, no agency bar, no probability, no reputation number.

:data:`RULES_DOC` documents every leaf key (dotted path → unit and meaning), and
:func:`render` fills ``{rules.KEY}`` placeholders in API docstrings and help text with the
scenario's values, formatted by unit (``{rules.pay.ra}`` → ``$1,800/month``).

Months of the year are 1-12 (12 is December) in this dict, whatever the config stores.
"""

from __future__ import annotations

import re
from typing import Any

from .config import AGENCIES, VENUES, WorldConfig

# The recruiting calendar is fixed by MECHANICS §5 (not a scenario parameter): the pool
# opens in month-of-year 1, offers are possible in months 1-3, answered at the tick of
# month 3, and accepted students are created at the tick of month 4 and arrive in month 5.
SEASON_OPEN_MONTH = 1
"""Month of the year whose opening generates the applicant pool (§5)."""
OFFER_MONTHS = (1, 2, 3)
"""Months of the year in which interviews and PhD offers are possible (§5)."""
OFFER_RESOLVE_MONTH = 3
"""Month of the year at whose tick outstanding offers are answered (§5)."""
PHD_JOIN_MONTH = 4
"""Month of the year at whose tick accepted PhD students are created (§5)."""
PHD_ARRIVAL_MONTH = PHD_JOIN_MONTH + 1
"""Month of the year in which new PhD students arrive and start (§5)."""

RULES_DOC: dict[str, tuple[str, str]] = {
    "horizon_months": ("months", "length of the career: the tick of this month is the last (§1)"),
    "start_budget": ("USD", "cash at the start of month 1 (§2)"),
    "pay.phd": ("USD/month", "stipend of a PhD student, paid at each tick (§2)"),
    "pay.postdoc": ("USD/month", "salary of a postdoc (§2)"),
    "pay.ra": ("USD/month", "salary of a research assistant (§2)"),
    "pay.manager": ("USD/month", "salary of a lab manager (§2)"),
    "costs.proposal": ("USD", "administrative fee of each grant proposal (§2, §9)"),
    "costs.talk_travel": ("USD", "travel for an accepted invited talk (§2, §11)"),
    "costs.conference": ("USD", "a conference trip (§2, §11)"),
    "costs.postdoc_search": ("USD", "fee of a postdoc search, paid when posted (§2, §5)"),
    "costs.compute_unit": ("USD/unit", "price of one compute unit per month before the price multiplier (§2)"),
    "costs.award_overhead": ("USD/month", "overhead charged per running award and month (§2)"),
    "attention.base": ("hours/month", "the PI's monthly hours before oversight and service (§3)"),
    "attention.floor": ("hours/month", "the pool never falls below this (§3)"),
    "attention.oversight_per_researcher": ("hours/month", "oversight per PhD student or postdoc with no manager (§3)"),
    "attention.oversight_manager_relief": ("hours/month", "oversight saved per researcher by each lab manager (§3)"),
    "attention.oversight_min_per_researcher": (
        "hours/month",
        "least oversight per researcher, however many managers (§3)",
    ),
    "attention.oversight_per_ra": ("hours/month", "oversight per research assistant (§3)"),
    "attention.service_tax_hours": ("hours", "hours lost to service duty once a year (§3)"),
    "attention.service_tax_month": ("month of year", "the month of each year with service duty (§3)"),
    "attention.unlimited": (
        "switch",
        "true in the unlimited-attention ablation: the pool is practically unbounded (§17)",
    ),
    "hours.interview": ("hours", "interviewing one new candidate; repeats are free (§3, §5)"),
    "hours.proposal_min": ("hours", "the least a grant proposal may take (§3, §9)"),
    "hours.talk": ("hours", "an accepted invited talk (§3, §11)"),
    "hours.review": ("hours", "an accepted review request (§3, §11)"),
    "hours.crisis": ("hours", "supporting a student in crisis (§3, §11)"),
    "hours.conference": ("hours", "a conference trip (§3, §11)"),
    "hours.collaboration": ("hours/month", "reserved each month of an accepted collaboration (§3, §11)"),
    "hours.polish_saturation": ("hours", "polish hours on a draft beyond this add nothing (§7)"),
    "hours.revise_saturation": ("hours", "revision hours beyond this in one revision add nothing (§7)"),
    "caps.researchers": (
        "researchers",
        "PhD students + postdocs, counting outstanding offers, incoming students and open postdoc searches (§5, Decisions §1)",
    ),
    "caps.managers": ("managers", "lab managers at once (§5)"),
    "caps.active_projects": ("projects", "projects running at once (§6)"),
    "caps.compute_per_project": ("units/month", "compute units a project may buy each month (§6)"),
    "caps.mentoring_hours": ("hours/month", "standing mentoring hours per person (§3)"),
    "season.pool_opens": ("month of year", "a new applicant pool opens with this month (§5)"),
    "season.offer_months": ("months of year", "interviews and PhD offers are possible in these months (§5)"),
    "season.offers_resolve": ("month of year", "offers are answered at the tick of this month (§5)"),
    "season.arrival": ("month of year", "accepted PhD students arrive in this month (§5)"),
    "season.graduation_month": ("month of year", "PhD students may graduate at the tick of this month (§5)"),
    "season.graduation_min_months": ("months", "months in the lab before a PhD may graduate (§5)"),
    "season.graduation_min_papers": ("papers", "accepted papers a PhD needs to graduate (§5)"),
    "postdoc.search_months": ("months", "a postdoc search resolves at the tick this many months after posting (§5)"),
    "postdoc.contract_months": ("months", "length of a postdoc contract (§5)"),
    "postdoc.renewal_window_months": ("months", "a contract may be renewed this close to its end (§5)"),
    "postdoc.renewal_months": ("months", "months a renewal adds (§5)"),
    "projects.tier_work": (
        "work units",
        "work a project of each tier needs ({tier: units}); progress is shown in percent (§6)",
    ),
    "projects.overload_per_person": (
        "projects",
        "a PhD student or postdoc on more active projects than this is overloaded, which weighs on them (§5)",
    ),
    "collaboration.months": (
        "months",
        "duration of an accepted collaboration; its draft arrives at the last tick (§11)",
    ),
    "collaboration.tier": ("tier", "tier of a collaboration draft (§7, §11)"),
    "events.talk_respond_months": (
        "months",
        "an invited talk can be answered until this many months after it arrives (§11)",
    ),
    "events.review_respond_months": ("months", "the same for a review request (§11)"),
    "events.collaboration_respond_months": ("months", "the same for a collaboration offer (§11)"),
    "events.conference_gap_months": ("months", "months between two conference trips (§11)"),
    "venues.*.kind": ("text", "kind of venue (top conference, mid conference, workshop, journal) (§7)"),
    "venues.*.conference": (
        "switch",
        "true for a conference: submissions only in its deadline months, publication after its next deadline (§7)",
    ),
    "venues.*.deadline_months": (
        "months of year",
        "months of the year that accept submissions (empty: every month) (§7)",
    ),
    "venues.*.decision_delay_months": ("months", "months from submission to the decision (§7)"),
    "agencies.*.award": ("USD", "total of an award, paid in equal monthly installments (§9)"),
    "agencies.*.duration_months": ("months", "months an award pays, starting the month after the decision (§9)"),
    "agencies.*.decision_delay_months": ("months", "months from proposal to decision (§9)"),
    "agencies.*.max_concurrent": (
        "awards",
        "running awards plus pending proposals allowed with this agency at once (§9)",
    ),
    "agencies.*.once": ("switch", "true if the agency funds a lab at most once (§9)"),
    "agencies.*.rolling": ("switch", "true for a call open every month of the career (§9)"),
    "agencies.*.call_months": (
        "months",
        "career months in which a windowed call opens; it stays open the next month too (§9)",
    ),
    "agencies.*.cooldown_months": ("months", "least months between two proposals to this agency (0: none) (§9)"),
    "harness.memory_max_chars": ("characters", "the agent's notes are cut to this length (§16)"),
    "harness.query_max_rows": ("rows", "a query returns at most this many rows (§14)"),
}
"""Every leaf key of :func:`rules` (``*`` stands for a venue or an agency): ``(unit, meaning)``."""


def _month_of_year(m: int) -> int:
    """A config month-of-year (``m mod 12``, 0 = December) as 1-12."""
    return m if m else 12


def rules(cfg: WorldConfig) -> dict[str, Any]:
    """This scenario's player-facing constants as a JSON-able dict (keys: :data:`RULES_DOC`).

    Args:
        cfg: the scenario's world parameters.

    Returns:
        ``{"horizon_months", "start_budget", "pay", "costs", "attention", "hours", "caps",
        "season", "postdoc", "projects", "collaboration", "events", "venues", "agencies",
        "harness"}``; USD, hours and months as the units in :data:`RULES_DOC` say.
    """
    venues = {
        v: {
            "kind": cfg.venues[v]["kind"],
            "conference": bool(cfg.venues[v]["conference"]),
            "deadline_months": sorted(_month_of_year(int(d)) for d in cfg.venues[v]["deadlines"]),
            "decision_delay_months": int(cfg.venues[v]["delay"]),
        }
        for v in VENUES
    }
    agencies = {}
    for name in AGENCIES:
        a = cfg.agencies[name]
        agencies[name] = {
            "award": float(a["award"]),
            "duration_months": int(a["duration"]),
            "decision_delay_months": int(a["delay"]),
            "max_concurrent": int(a["max_concurrent"]),
            "once": bool(a["once"]),
            "rolling": bool(a["rolling"]),
            "call_months": [] if a["rolling"] else [int(m) for m in a["call_months"] if 1 <= m <= cfg.months],
            "cooldown_months": int(cfg.tif_cooldown) if name == "TIF" else 0,
        }
    return {
        "horizon_months": cfg.months,
        "start_budget": cfg.start_budget,
        "pay": {"phd": cfg.pay_phd, "postdoc": cfg.pay_postdoc, "ra": cfg.pay_ra, "manager": cfg.pay_manager},
        "costs": {
            "proposal": cfg.proposal_fee,
            "talk_travel": cfg.talk_travel_cost,
            "conference": cfg.conference_cost,
            "postdoc_search": cfg.postdoc_search_fee,
            "compute_unit": cfg.compute_unit_cost,
            "award_overhead": cfg.award_overhead,
        },
        "attention": {
            "base": cfg.attention_unlimited_base if cfg.unlimited_attention else cfg.attention_base,
            "floor": cfg.attention_floor,
            "oversight_per_researcher": cfg.oversight_per_researcher,
            "oversight_manager_relief": cfg.oversight_manager_relief,
            "oversight_min_per_researcher": cfg.oversight_min_per_researcher,
            "oversight_per_ra": cfg.oversight_per_ra,
            "service_tax_hours": 0.0 if cfg.unlimited_attention else cfg.service_tax_hours,
            "service_tax_month": _month_of_year(cfg.service_tax_month),
            "unlimited": cfg.unlimited_attention,
        },
        "hours": {
            "interview": cfg.interview_hours,
            "proposal_min": cfg.proposal_min_hours,
            "talk": cfg.talk_hours,
            "review": cfg.review_hours,
            "crisis": cfg.crisis_hours,
            "conference": cfg.conference_hours,
            "collaboration": cfg.collab_hours,
            "polish_saturation": cfg.polish_cap_hours,
            "revise_saturation": cfg.revise_cap_hours,
        },
        "caps": {
            "researchers": cfg.researcher_cap,
            "managers": cfg.manager_cap,
            "active_projects": cfg.max_active_projects,
            "compute_per_project": cfg.max_compute,
            "mentoring_hours": cfg.mentoring_max,
        },
        "season": {
            "pool_opens": SEASON_OPEN_MONTH,
            "offer_months": list(OFFER_MONTHS),
            "offers_resolve": OFFER_RESOLVE_MONTH,
            "arrival": PHD_ARRIVAL_MONTH,
            "graduation_month": _month_of_year(cfg.graduation_month),
            "graduation_min_months": cfg.graduation_min_months,
            "graduation_min_papers": cfg.graduation_min_papers,
        },
        "postdoc": {
            "search_months": cfg.postdoc_search_months,
            "contract_months": cfg.postdoc_contract_months,
            "renewal_window_months": cfg.postdoc_renewal_window,
            "renewal_months": cfg.postdoc_renewal_months,
        },
        "projects": {
            "tier_work": {t: float(cfg.tiers[t]["work"]) for t in sorted(cfg.tiers)},
            "overload_per_person": cfg.overload_projects,
        },
        "collaboration": {"months": cfg.collab_months, "tier": cfg.collab_tier},
        "events": {
            "talk_respond_months": cfg.talk_expiry,
            "review_respond_months": cfg.review_expiry,
            "collaboration_respond_months": cfg.collab_expiry,
            "conference_gap_months": cfg.conference_gap,
        },
        "venues": venues,
        "agencies": agencies,
        "harness": {"memory_max_chars": cfg.memory_max_chars, "query_max_rows": cfg.query_max_rows},
    }


def _norm(key: str) -> str:
    """``venues.NAIC.delay`` → ``venues.*.delay`` (the :data:`RULES_DOC` spelling)."""
    parts = key.split(".")
    if parts[0] in ("venues", "agencies") and len(parts) >= 2:
        parts[1] = "*"
    return ".".join(parts)


def leaf_keys(r: dict[str, Any]) -> list[str]:
    """The documented keys a :func:`rules` dict has, spelled as in :data:`RULES_DOC` (a leaf is
    a non-dict value or a documented table such as ``projects.tier_work``)."""
    out: set[str] = set()

    def walk(node: Any, key: str) -> None:
        if _norm(key) in RULES_DOC or not isinstance(node, dict):
            out.add(_norm(key))
            return
        for k, v in node.items():
            walk(v, f"{key}.{k}")

    for k, v in r.items():
        walk(v, k)
    return sorted(out)


def lookup(r: dict[str, Any], key: str) -> Any:
    """The value at dotted ``key`` of a :func:`rules` dict (``venues.NAIC.decision_delay_months``).

    Raises:
        KeyError: no such key (the message lists the valid top-level keys).
    """
    node: Any = r
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"no rule {key!r}; rules: {', '.join(r)}")
        node = node[part]
    return node


def _unit_of(key: str) -> str:
    return RULES_DOC.get(_norm(key), ("", ""))[0]


def _num(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return f"{v:,}" if isinstance(v, int) else f"{v:,.2f}".rstrip("0").rstrip(".")


def month_span(months: list[int] | tuple[int, ...]) -> str:
    """``[1, 2, 3]`` → ``"1-3"``; a non-contiguous list → ``"3, 9"``; empty → ``"none"``."""
    ms = list(months)
    if not ms:
        return "none"
    if len(ms) > 2 and ms == list(range(ms[0], ms[-1] + 1)):
        return f"{ms[0]}-{ms[-1]}"
    return ", ".join(str(m) for m in ms)


def fmt(value: Any, unit: str) -> str:
    """A rule value formatted for text by its unit: ``$1,800/month``, ``12 h``, ``3 months``,
    ``5 h/month``; lists of months as ``1, 2, 3``; other units as plain numbers."""
    if isinstance(value, list):
        if unit.startswith("month"):
            return month_span(value)
        return ", ".join(_num(x) for x in value) if value else "none"
    if unit.startswith("USD"):
        v = float(value)
        money = f"${v:,.0f}" if v.is_integer() else f"${v:,.2f}"
        return money + unit[3:]
    if unit == "hours":
        return f"{_num(value)} h"
    if unit.startswith("hours/"):
        return f"{_num(value)} h/{unit.split('/', 1)[1]}"
    if unit == "months":
        return f"{_num(value)} month" + ("" if value == 1 else "s")
    return _num(value)


def rule_text(r: dict[str, Any], key: str) -> str:
    """The rule at dotted ``key`` formatted by its unit (see :func:`fmt`).

    Raises:
        KeyError: no such key.
    """
    return fmt(lookup(r, key), _unit_of(key))


_PLACEHOLDER = re.compile(r"\{rules\.([A-Za-z0-9_.\-]+)\}")


def render(text: str, r: dict[str, Any]) -> str:
    """Fill every ``{rules.KEY}`` placeholder of ``text`` with :func:`rule_text` of ``r``.

    Raises:
        KeyError: a placeholder names no rule (a bug in the text).
    """
    if "{rules." not in text:
        return text
    return _PLACEHOLDER.sub(lambda mo: rule_text(r, mo.group(1)), text)


__all__ = [
    "OFFER_MONTHS",
    "OFFER_RESOLVE_MONTH",
    "PHD_ARRIVAL_MONTH",
    "PHD_JOIN_MONTH",
    "RULES_DOC",
    "SEASON_OPEN_MONTH",
    "fmt",
    "leaf_keys",
    "lookup",
    "month_span",
    "render",
    "rule_text",
    "rules",
]
