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

    # not "people": an answer moves a person's hidden morale impulse only, nothing a read shows
    @api_call(mutating=True)
    def respond(self, event_id: Any, action: Any) -> dict[str, Any]:
        """Answer a pending event: talk/review/collaboration accept|decline; crisis support|ignore."""
        w = self._w
        s = w.s
        checks.string_id(event_id, "event id")
        ev = s.events.get(event_id)
        if ev is None or ev.status != "pending":
            pend = [e.id for e in s.events.values() if e.status == "pending"]
            state = "" if ev is None else f" (it is {ev.status})"
            raise ActionError(
                "unknown_id", f"no pending event {event_id!r}{state}; pending events: {checks.listing(pend)}"
            )
        valid = events_mod.ACTIONS[ev.kind]
        if not isinstance(action, str) or action not in valid:
            raise ActionError(
                "bad_argument", f"{ev.kind.replace('_', ' ')} {ev.id} takes one of: {', '.join(valid)}; got {action!r}"
            )
        hours, what = events_mod.answer_hours(w, ev, action)
        if hours:
            lapses = ""
            if ev.respond_by <= w.month:  # its last month: it lapses at this close (§11, events.expiry_step)
                ignored = " and counts as ignored" if ev.kind == "student_crisis" else ""
                lapses = f"{ev.id} lapses unanswered at this month's end{ignored}"
            self._check_hours(hours, what, lapses)
        if ev.kind == "collaboration_offer" and action in events_mod.POSITIVE and not people_mod.active_people(w):
            raise ActionError("not_allowed", "a collaboration needs at least one active lab member")
        events_mod.respond(w, ev, action)
        return {"ok": True, "event": ev.id, "action": action}
