"""The ``events`` namespace: pending events and answers (MECHANICS §11, §15)."""

from __future__ import annotations

from typing import Any

from ... import events as events_mod
from ... import people as people_mod
from ... import views
from .. import checks
from ..registry import ActionError, api_call
from .base import Namespace


class Events(Namespace):
    """Pending events and answers (§11)."""

    _name = "events"

    @api_call(mutating=False)
    def pending(self) -> list[Any]:
        """Events awaiting an answer: id, kind, status, arrived_month, respond_by_month, details."""
        return [views.event_row(e) for e in views.pending_events(self._w)]

    @api_call(mutating=True)
    def respond(self, event_id: Any, action: Any) -> dict[str, Any]:
        """Answer a pending event: talk/review/collaboration accept|decline; crisis support|ignore."""
        w = self._w
        s, cfg = w.s, w.cfg
        checks.string_id(event_id, "event id")
        ev = s.events.get(event_id)
        if ev is None or ev.status != "pending":
            pend = [e.id for e in s.events.values() if e.status == "pending"]
            state = "" if ev is None else f" (it is {ev.status})"
            raise ActionError("unknown_id", f"no pending event {event_id!r}{state}; pending events: {checks.listing(pend)}")
        valid = events_mod.ACTIONS[ev.kind]
        if not isinstance(action, str) or action not in valid:
            raise ActionError("bad_argument", f"{ev.kind.replace('_', ' ')} {ev.id} takes one of: {', '.join(valid)}; got {action!r}")
        positive = action in ("accept", "support")
        if ev.kind == "invited_talk":
            if positive:
                self._check_hours(cfg.talk_hours, "an invited talk")
                self._charge(cfg.talk_hours, "an invited talk")
                w.spend(-cfg.talk_travel_cost, "travel", ev.id)
                w.reputation_impulse("talk", cfg.rep_talk)
                events_mod.boost_next_season(w)
        elif ev.kind == "review_request":
            if positive:
                self._check_hours(cfg.review_hours, "a review")
                self._charge(cfg.review_hours, "a review")
                w.reputation_impulse("review", cfg.rep_review_accept)
            else:
                w.reputation_impulse("review declined", cfg.rep_review_decline)
        elif ev.kind == "student_crisis":
            p = s.people.get(ev.details["student_id"])
            if positive:
                self._check_hours(cfg.crisis_hours, "supporting a student in crisis")
                self._charge(cfg.crisis_hours, "crisis support")
                if p is not None and p.status == "active":
                    p.impulse += cfg.impulse_crisis_supported
            elif p is not None and p.status == "active":
                p.impulse += cfg.impulse_crisis_ignored / p.resilience
        elif ev.kind == "collaboration_offer" and positive:
            if not people_mod.active_people(w):
                raise ActionError("not_allowed", "a collaboration needs at least one active lab member")
            for k in range(1, cfg.collab_months + 1):
                s.collab_reservations.append([s.month + k, ev.id])
            s.collab_deliveries.append([s.month + cfg.collab_months, ev.id, ev.details["topic"]])
        ev.status = {"accept": "accepted", "support": "supported", "decline": "declined", "ignore": "ignored"}[action]
        if ev.kind == "student_crisis" and action == "accept":
            ev.status = "supported"
        if ev.kind == "student_crisis" and action == "decline":
            ev.status = "ignored"
        ev.answered_month = s.month
        return {"ok": True, "event": ev.id, "action": action}
