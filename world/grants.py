"""Grants: calls, proposal quality, decisions, awards (MECHANICS §9)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .config import AGENCIES, TOPICS, WorldConfig
from .field import hotness
from .papers import q_eff
from .people import spend_attention
from .state import Award, GrantCall, Proposal

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World


def schedule_calls(w: World) -> None:
    """Create every call of the career from the configured horizon (§9, Decisions §2).

    A windowed call opens in its month and stays open the next month; TIF has one rolling
    call ``TIF-rolling`` open in months 1..horizon.
    """
    cfg, s = w.cfg, w.s
    for agency in AGENCIES:
        a = cfg.agencies[agency]
        if a["rolling"]:
            cid = f"{agency}-rolling"
            s.calls[cid] = GrantCall(id=cid, agency=agency, open_month=1, close_month=cfg.months)
            continue
        for om in a["call_months"]:
            if 1 <= om <= cfg.months:
                cid = f"{agency}-m{om:02d}"
                s.calls[cid] = GrantCall(id=cid, agency=agency, open_month=om, close_month=min(cfg.months, om + 1))


def draw_preferences(w: World) -> dict[str, list[float]]:
    """π_agency,topic ~ U(−0.6, 0.6) from stream ``grants``, agencies × topics in order (§9)."""
    gen = w.rng.stream("grants")
    r = w.cfg.grant_pref_range
    # one vector per agency: the same draws, in the same order, as one scalar per topic
    return {agency: gen.uniform(-r, r, len(TOPICS)).tolist() for agency in AGENCIES}


def sat(y: float) -> float:
    """y / (1 + y)."""
    return y / (1.0 + y)


def active_awards(w: World, m: int) -> list[Award]:
    """Awards paying in month ``m`` (start ≤ m ≤ end)."""
    return [a for a in w.s.awards.values() if a.start_month <= m <= a.end_month]


def evidence_items(w: World, attach: list[str]) -> list[tuple[str, float, float, int]]:
    """Resolve attachment ids to (topic, weight, q', tier) rows (§9, Decisions §1).

    A published publication counts with weight 1.0 and its q; anything else (a draft, a
    draft under review, an accepted paper not yet published) with weight 0.4 and q_eff.
    """
    s, cfg = w.s, w.cfg
    rows = []
    for aid in attach:
        if aid in s.publications:
            pub = s.publications[aid]
            if pub.published_month <= s.month:
                rows.append((pub.topic, 1.0, pub.q, pub.tier))
            else:
                d = s.drafts[pub.draft_id]
                rows.append((d.topic, cfg.grant_evidence_draft_weight, q_eff(w, d), d.tier))
        else:
            d = s.drafts[aid]
            published = next((p for p in s.publications.values() if p.draft_id == d.id), None)
            if published is not None and published.published_month <= s.month:
                rows.append((published.topic, 1.0, published.q, published.tier))
            else:
                rows.append((d.topic, cfg.grant_evidence_draft_weight, q_eff(w, d), d.tier))
    return rows


def proposal_quality(w: World, agency: str, topic: str, hours: float, attach: list[str]) -> float:
    """Proposal quality with every term of §9, at submission time (frozen afterwards)."""
    cfg, s = w.cfg, w.s
    m = s.month
    k = TOPICS.index(topic)
    q: float = cfg.grant_hours_coef * (hours / cfg.grant_hours_ref) ** cfg.grant_hours_exp
    y = 0.0
    any_tier3 = False
    for t, weight, qq, tier in evidence_items(w, attach):
        v = weight * math.exp(cfg.citation_quality_slope * (qq - cfg.citation_quality_center))
        if t != topic:
            v *= cfg.grant_evidence_offtopic
        y += v
        any_tier3 = any_tier3 or tier == 3
    q += cfg.grant_evidence_coef * sat(y / cfg.grant_evidence_scale)
    q += min(cfg.grant_rep_cap, cfg.grant_rep_coef * (s.reputation - cfg.reputation_baseline))
    if agency == "AMP":
        q += (
            cfg.amp_hot_coef * (hotness(w, m + cfg.amp_hot_lead)[k] - 1.0)
            + cfg.amp_pref_coef * s.agency_prefs["AMP"][k]
        )
        if any_tier3:
            q += cfg.amp_tier3_bonus
    else:
        q += s.agency_prefs[agency][k]
    q += cfg.grant_climate_coef * (s.climate - 1.0)
    q -= cfg.grant_overcommit * len(active_awards(w, m))
    if agency == "TIF":
        q += cfg.tif_hot_coef * (hotness(w, m)[k] - 1.0)
    return q


def grant_decisions_step(w: World, m: int) -> None:
    """Tick step 5: funded iff quality + N(0, 0.28) ≥ θ, noise keyed by proposal (§9)."""
    cfg, s = w.cfg, w.s
    for pr in s.proposals.values():
        if pr.status != "pending" or pr.decision_month != m:
            continue
        a = cfg.agencies[pr.agency]
        noise = float(w.rng.keyed("proposal", pr.id).normal(0.0, cfg.grant_noise_sd))
        if pr.quality + noise >= a["bar"]:
            pr.status = "funded"
            aid = s.next_id("A")
            s.awards[aid] = Award(
                id=aid,
                agency=pr.agency,
                total=float(a["award"]),
                monthly=float(a["award"]) / a["duration"],
                start_month=m + 1,
                end_month=m + a["duration"],
                proposal_id=pr.id,
            )
            if pr.agency == "FEL":
                s.fel_funded = True
            w.reputation_impulse(f"grant {pr.agency}", a["reputation"])
            w.note_fact(
                "proposals",
                {
                    "proposal_id": pr.id,
                    "call_id": pr.call_id,
                    "agency": pr.agency,
                    "topic": pr.topic,
                    "outcome": "funded",
                    "award_id": aid,
                    "total": float(a["award"]),
                },
            )
        else:
            pr.status = "rejected"
            w.note_fact(
                "proposals",
                {
                    "proposal_id": pr.id,
                    "call_id": pr.call_id,
                    "agency": pr.agency,
                    "topic": pr.topic,
                    "outcome": "rejected",
                    "award_id": None,
                    "total": None,
                },
            )


# ---------------------------------------------------------------------------------- proposals
def refusal(w: World, call: GrantCall) -> tuple[str, str] | None:
    """Why the lab may not propose to ``call`` this month, as ``(error code, message)``, or None (§9).

    The agency's rules: FEL funds a lab once; at most ``max_concurrent`` running awards plus
    pending proposals per agency; TIF takes one proposal every ``tif_cooldown`` months.
    """
    s, cfg = w.s, w.cfg
    m = s.month
    agency = call.agency
    a = cfg.agencies[agency]
    if a["once"] and s.fel_funded:
        return "not_allowed", f"{agency} funds a lab only once, and it already funded this lab"
    live = sum(1 for x in s.awards.values() if x.agency == agency and x.end_month >= m)
    live += sum(1 for x in s.proposals.values() if x.agency == agency and x.status == "pending")
    if live >= a["max_concurrent"]:
        return (
            "cap_reached",
            (
                f"{agency} allows one running award or pending proposal at a time; the lab has {live}"
                if a["max_concurrent"] == 1
                else f"{agency} allows {a['max_concurrent']} running awards plus pending proposals at once; "
                f"the lab has {live}"
            ),
        )
    if agency == "TIF" and s.last_tif_month is not None and m - s.last_tif_month < cfg.tif_cooldown:
        return (
            "wrong_month",
            f"TIF accepts one proposal every {cfg.tif_cooldown} months; the next is possible in month {s.last_tif_month + cfg.tif_cooldown}",
        )
    return None


def call_refusal(w: World, call_id: str) -> str | None:
    """The message :func:`refusal` gives for the call ``call_id`` this month (the check
    ``grants.propose`` makes, §9), or ``None`` when the lab may propose to it or no call has that
    id. It reads only what the observable database shows too (the agency's running awards and
    pending proposals, whether FEL funded the lab, the month of the last TIF proposal), so a
    front end may ask it before the PI sends a proposal."""
    call = w.s.calls.get(call_id)
    refused = refusal(w, call) if call is not None else None
    return refused[1] if refused else None


def proposal_decision_month(cfg: WorldConfig, agency: str, submitted_month: int) -> int:
    """The month a proposal to ``agency`` made in ``submitted_month`` is decided (§9: the
    agency's decision delay after it). The world's proposal sets ``Proposal.decision_month``
    with it, and a front end may ask it for a proposal not yet written.

    Raises:
        KeyError: ``agency`` is not one of ``cfg.agencies``.
    """
    return submitted_month + int(cfg.agencies[agency]["delay"])


def submit_proposal(w: World, call: GrantCall, topic: str, hours: float, attach: list[str]) -> Proposal:
    """Write a proposal to an open call (§9): its hidden quality, ``hours`` of PI attention, the fee.

    The caller checked the call is open, :func:`refusal` is None, the attachments and the hours.
    """
    s, cfg = w.s, w.cfg
    m = s.month
    agency = call.agency
    quality = proposal_quality(w, agency, topic, hours, list(attach))
    spend_attention(w, hours)
    w.spend(-cfg.proposal_fee, "proposal", call.id)
    pid = s.next_id("PR")
    prop = Proposal(
        id=pid,
        call_id=call.id,
        agency=agency,
        topic=topic,
        hours=hours,
        attached=list(attach),
        quality=quality,
        submitted_month=m,
        decision_month=proposal_decision_month(cfg, agency, m),
    )
    s.proposals[pid] = prop
    if agency == "TIF":
        s.last_tif_month = m
    return prop
