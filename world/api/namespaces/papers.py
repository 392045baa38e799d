"""The ``papers`` namespace: drafts, polish, submissions, revisions, publications (MECHANICS §7, §15)."""

from __future__ import annotations

from typing import Any

from ... import explain as explain_mod
from ... import papers as papers_mod
from ... import views
from ...config import VENUES
from ...state import Draft
from .. import checks
from ..registry import ActionError, Unchanged, api_call
from .base import Namespace


class Papers(Namespace):
    """Drafts, polish, submissions, revisions, publications (§7)."""

    _name = "papers"

    def _draft(self, draft_id: Any) -> Draft:
        d: Draft = self._live(
            self._w.s.drafts, draft_id, "draft", "available", "available", wrong_state_code="not_allowed"
        )
        return d

    @api_call(mutating=False)
    def drafts(self) -> list[Any]:
        """All drafts: id, topic, tier, status, created_month, authors, polish_hours, revisions, salvage, collab."""
        return [views.draft_row(d) for d in self._w.s.drafts.values()]

    @api_call(mutating=True)
    def polish(self, draft_id: Any, hours: Any) -> dict[str, Any]:
        """Spend hours polishing an available draft (gains saturate at {rules.hours.polish_saturation} in total)."""
        d = self._draft(draft_id)
        h = checks.num(hours, "hours", 0.0)
        self._check_hours(h, f"polishing {d.id}")
        if h == 0:
            return Unchanged({"ok": True, "total_polish_hours": d.polish_hours, "note": "0 h: nothing polished"})
        papers_mod.polish(self._w, d, h)
        cap = self._w.cfg.polish_cap_hours
        note = f"polish beyond {cap:g} h adds nothing" if d.polish_hours > cap else "polished"
        return {"ok": True, "total_polish_hours": d.polish_hours, "note": note}

    @api_call(mutating=True)
    def submit(self, draft_id: Any, venue: Any) -> dict[str, Any]:
        """Submit an available draft to a venue (conferences only in their deadline months). Near the horizon the reply has a ``note``: never decided, or published after the last month."""
        w = self._w
        d = self._draft(draft_id)
        if not isinstance(venue, str) or venue not in VENUES:
            raise ActionError("bad_argument", f"unknown venue {venue!r}; venues: {', '.join(VENUES)}")
        v = w.cfg.venues[venue]
        m = w.s.month
        if v["conference"] and (m % 12) not in v["deadlines"]:
            months = ", ".join(str(x if x else 12) for x in v["deadlines"])
            open_now = [
                n for n in VENUES if not w.cfg.venues[n]["conference"] or (m % 12) in w.cfg.venues[n]["deadlines"]
            ]
            raise ActionError(
                "wrong_month",
                f"{venue} takes submissions only in months {months} of each year; open this month: {', '.join(open_now)}",
            )
        sub = papers_mod.submit(w, d, venue)
        out: dict[str, Any] = {"ok": True, "submission_id": sub.id, "decision_expected_month": sub.decision_month}
        if note := explain_mod.submission_horizon_note(w.cfg, venue, sub.decision_month):
            out["note"] = note
        return out

    @api_call(mutating=True)
    def revise(self, draft_id: Any, hours: Any) -> dict[str, Any]:
        """Revise a rejected, available draft (once a month; gains stop at {rules.hours.revise_saturation} and shrink with each revision)."""
        w = self._w
        d = self._draft(draft_id)
        h = checks.num(hours, "hours", 0.0)
        if refused := papers_mod.revise_refusal(w, d.id):
            raise ActionError("not_allowed", refused)
        # A draft is the lab's: like polishing and submitting, revising it (the PI's hours, §7) is
        # allowed whoever of its authors has left (README design notes, issue 27 §2).
        self._check_hours(h, f"revising {d.id}")
        papers_mod.revise(w, d, h)
        return {
            "ok": True,
            "revisions": d.revisions,
            "note": f"revised; gains beyond {w.cfg.revise_cap_hours:g} h are lost and shrink with each revision",
        }

    @api_call(mutating=True)
    def withdraw(self, submission_id: Any) -> dict[str, Any]:
        """Withdraw a submission under review; the draft becomes available again."""
        w = self._w
        checks.string_id(submission_id, "submission id")
        sub = w.s.submissions.get(submission_id)
        if sub is None or sub.status != "under_review":
            live = [x.id for x in w.s.submissions.values() if x.status == "under_review"]
            raise ActionError(
                "unknown_id", f"no submission {submission_id!r} under review; under review: {checks.listing(live)}"
            )
        papers_mod.withdraw(w, sub)
        return {"ok": True}

    @api_call(mutating=False)
    def submissions(self) -> list[Any]:
        """All submissions: id, draft_id, venue, status, submitted_month, decision_month (None while under review), decision_expected_month, reviewer_scores."""
        return [views.submission_row(sub) for sub in self._w.s.submissions.values()]

    @api_call(mutating=False)
    def publications(self) -> list[Any]:
        """Published papers: id, draft_id, venue, topic, tier, published_month, citations, authors, collab."""
        return [views.publication_row(p) for p in views.published(self._w)]
