"""Events: invited talks, review requests, student crises, collaboration offers (MECHANICS §11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import TOPICS
from .field import hotness
from .kinds import EventAnswer, EventKind, EventStatus
from .people import RESEARCHER_ROLES, active_people, boost_next_season, spend_attention
from .projects import collaboration_draft
from .state import Event

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World

ACTIONS: dict[EventKind, tuple[EventAnswer, ...]] = {
    "invited_talk": ("accept", "decline"),
    "review_request": ("accept", "decline"),
    "student_crisis": ("support", "accept", "ignore", "decline"),
    "collaboration_offer": ("accept", "decline"),
}
"""Valid answers per event kind (§11)."""


def _new_event(w: World, kind: EventKind, m: int, respond_by: int, details: dict[str, Any]) -> Event:
    s = w.s
    eid = s.next_id("E")
    ev = Event(id=eid, kind=kind, month=m, respond_by=respond_by, details=details)
    s.events[eid] = ev
    if w.report is not None:
        w.report.events["arrived"].append(
            {"id": eid, "kind": kind, "month": m, "respond_by_month": respond_by, "details": dict(details)}
        )
    return ev


def generate_events(w: World, m: int) -> None:
    """Events at the open of month ``m`` (keyed by month; crises by person × month) (§11)."""
    cfg, s = w.cfg, w.s
    r = s.reputation
    u_talk, u_review, u_collab, u_topic = w.rng.keyed_text(f"events|{m}").random(4).tolist()
    # min(a, x) is x only if x < a; max(0.0, d) is d only if d > 0.0
    above = r - cfg.reputation_baseline
    above = above if above > 0.0 else 0.0
    p_talk = cfg.talk_p_per_rep * above + cfg.talk_p_base
    p_talk = p_talk if p_talk < cfg.talk_p_max else cfg.talk_p_max
    if u_talk < p_talk:
        _new_event(
            w,
            "invited_talk",
            m,
            m + cfg.talk_expiry,
            {
                "hours": cfg.talk_hours,
                "cost_usd": cfg.talk_travel_cost,
                "text": "An invitation to give a talk about the lab's work.",
            },
        )
    if u_review < cfg.review_p:
        _new_event(
            w,
            "review_request",
            m,
            m + cfg.review_expiry,
            {"hours": cfg.review_hours, "text": "A journal asks you to review a manuscript."},
        )
    p_collab = cfg.collab_p_per_rep * above
    p_collab = p_collab if p_collab < cfg.collab_p_max else cfg.collab_p_max
    if u_collab < p_collab:
        h = hotness(w, m)
        total = sum(h)
        acc = 0.0
        topic = TOPICS[-1]
        for k, hk in enumerate(h):
            acc += hk / total
            if u_topic < acc:
                topic = TOPICS[k]
                break
        _new_event(
            w,
            "collaboration_offer",
            m,
            m + cfg.collab_expiry,
            {
                "topic": topic,
                "hours_per_month": cfg.collab_hours,
                "months": cfg.collab_months,
                "text": f"A group elsewhere invites you to co-author a paper on {topic}.",
            },
        )
    if not s.people:
        return
    keyed_text = w.rng.keyed_text
    crisis_p = cfg.crisis_p
    for p in active_people(w, RESEARCHER_ROLES):
        if keyed_text(f"crisis|{p.id}|{m}").random() < crisis_p:
            _new_event(
                w,
                "student_crisis",
                m,
                m,
                {
                    "student_id": p.id,
                    "name": p.name,
                    "hours": cfg.crisis_hours,
                    "text": f"{p.name} is struggling and asks to talk.",
                },
            )


def expiry_step(w: World, m: int) -> None:
    """Tick step 6: expire unanswered events, auto-ignore crises, deliver collaboration drafts (§11)."""
    cfg, s = w.cfg, w.s
    for ev in s.events.values():
        if ev.status != "pending" or ev.respond_by > m:
            continue
        if w.report is not None:
            w.report.events["expired"].append(
                {"id": ev.id, "kind": ev.kind, "status": "ignored" if ev.kind == "student_crisis" else "expired"}
            )
        if ev.kind == "student_crisis":
            ev.status = "ignored"
            p = s.people.get(ev.details["student_id"])
            if p is not None and p.status == "active":
                p.impulse += cfg.impulse_crisis_ignored / p.resilience
        else:
            ev.status = "expired"
            if ev.kind == "review_request":
                w.reputation_impulse("review expired", cfg.rep_review_decline)
    due = [row for row in s.collab_deliveries if row[0] == m]
    if due:
        s.collab_deliveries = [row for row in s.collab_deliveries if row[0] != m]
        for _, eid, topic in due:
            d = collaboration_draft(w, eid, topic)
            w.add_news("lab", topic, f"Collaboration draft {d.id} on {topic} arrived.")
            w.note_fact(
                "drafts_completed",
                {"project_id": None, "draft_id": d.id, "topic": d.topic, "tier": d.tier, "collab": True},
            )


# ---------------------------------------------------------------------------------- answers
POSITIVE: tuple[EventAnswer, ...] = ("accept", "support")
"""Answers that take the event up (a crisis answered ``accept`` is supported)."""


def answer_hours(w: World, ev: Event, action: str) -> tuple[float, str]:
    """One-off PI hours answering ``ev`` with ``action`` costs, and what they are for (§11)."""
    cfg = w.cfg
    if action not in POSITIVE:
        return 0.0, ""
    return {
        "invited_talk": (cfg.talk_hours, "an invited talk"),
        "review_request": (cfg.review_hours, "a review"),
        "student_crisis": (cfg.crisis_hours, "supporting a student in crisis"),
        "collaboration_offer": (0.0, ""),
    }[ev.kind]


def respond(w: World, ev: Event, action: str) -> None:
    """Answer a pending event (§11); the caller checked the action and the hours.

    Talk accepted: hours, travel cost, reputation, next season's pool boosted. Review:
    hours and reputation up, or reputation down when declined. Crisis: hours and a morale
    impulse when supported, a larger negative one (÷ resilience) when ignored.
    Collaboration accepted: hours reserved for ``collab_months`` and a draft delivered after.
    """
    s, cfg = w.s, w.cfg
    positive = action in POSITIVE
    hours, _ = answer_hours(w, ev, action)
    if hours:
        spend_attention(w, hours)
    if ev.kind == "invited_talk":
        if positive:
            w.spend(-cfg.talk_travel_cost, "travel", ev.id)
            w.reputation_impulse("talk", cfg.rep_talk)
            boost_next_season(w)
    elif ev.kind == "review_request":
        if positive:
            w.reputation_impulse("review", cfg.rep_review_accept)
        else:
            w.reputation_impulse("review declined", cfg.rep_review_decline)
    elif ev.kind == "student_crisis":
        p = s.people.get(ev.details["student_id"])
        if p is not None and p.status == "active":
            p.impulse += cfg.impulse_crisis_supported if positive else cfg.impulse_crisis_ignored / p.resilience
    elif ev.kind == "collaboration_offer" and positive:
        for k in range(1, cfg.collab_months + 1):
            s.collab_reservations.append([s.month + k, ev.id])
        s.collab_deliveries.append([s.month + cfg.collab_months, ev.id, ev.details["topic"]])
    answered: dict[str, EventStatus] = {
        "accept": "accepted",
        "support": "supported",
        "decline": "declined",
        "ignore": "ignored",
    }
    ev.status = answered[action]
    if ev.kind == "student_crisis" and action == "accept":
        ev.status = "supported"
    if ev.kind == "student_crisis" and action == "decline":
        ev.status = "ignored"
    ev.answered_month = s.month
