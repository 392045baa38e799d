"""The ``grants`` namespace: calls, proposals and awards (MECHANICS §9, §15)."""

from __future__ import annotations

from typing import Any

from ... import explain as explain_mod
from ... import grants as grants_mod
from ... import views
from .. import checks
from ..registry import ActionError, api_call
from .base import Namespace


class Grants(Namespace):
    """Calls, proposals and awards (§9)."""

    _name = "grants"

    @api_call(mutating=False)
    def calls(self) -> list[Any]:
        """Calls open this month: id, agency, award (USD), duration_months, open_month, last_month_to_apply, decision_delay_months."""
        w = self._w
        return [views.call_row(w, c) for c in views.open_calls(w)]

    @api_call(mutating=True)
    def propose(self, call_id: Any, topic: Any, hours: Any, attach: Any = None) -> dict[str, Any]:
        """Write a proposal to an open call: at least {rules.hours.proposal_min}, {rules.costs.proposal}, optional drafts/publications as evidence. Decided after the horizon, the reply has a ``note``."""
        w = self._w
        s, cfg = w.s, w.cfg
        m = s.month
        checks.string_id(call_id, "call id")
        c = s.calls.get(call_id)
        if c is None or not (c.open_month <= m <= c.close_month):
            open_ids = [x.id for x in s.calls.values() if x.open_month <= m <= x.close_month]
            raise ActionError(
                "unknown_id", f"no open call {call_id!r} this month; open calls: {checks.listing(open_ids)}"
            )
        topic = checks.topic(topic)
        h = checks.num(hours, "hours", cfg.proposal_min_hours)
        refused = grants_mod.refusal(w, c)
        if refused is not None:
            raise ActionError(*refused)
        if attach is None:
            attach = []
        if isinstance(attach, str):
            attach = [attach]
        if not isinstance(attach, (list, tuple)):
            raise ActionError("bad_argument", f"attach must be a list of draft or publication ids, got {attach!r}")
        papers_seen: dict[str, str] = {}
        for x in attach:
            checks.string_id(x, "attachment id")
            if x in s.publications:
                key = s.publications[x].draft_id
            elif x in s.drafts:
                key = x
            else:
                raise ActionError(
                    "unknown_id",
                    f"attachment {x!r} is neither a draft nor a publication; drafts: {checks.listing(list(s.drafts))}; "
                    f"publications: {checks.listing([p.id for p in s.publications.values() if p.published_month <= m])}",
                )
            if key in papers_seen:
                raise ActionError(
                    "bad_argument",
                    f"attachment {x!r} is the same paper as {papers_seen[key]!r}; attach each paper once",
                )
            papers_seen[key] = x
        self._check_hours(h, f"a proposal of {h:g} h")
        prop = grants_mod.submit_proposal(w, c, topic, h, list(attach))
        out: dict[str, Any] = {"ok": True, "proposal_id": prop.id, "decision_expected_month": prop.decision_month}
        if note := explain_mod.proposal_horizon_note(cfg, prop.decision_month):
            out["note"] = note
        return out

    @api_call(mutating=False)
    def proposals(self) -> list[Any]:
        """All proposals: id, call_id, agency, topic, status, hours, submitted_month, decision_month, attached."""
        return [views.proposal_row(p) for p in self._w.s.proposals.values()]

    @api_call(mutating=False)
    def awards(self) -> list[Any]:
        """All awards: id, agency, total (USD), monthly (USD), start_month, end_month."""
        return [views.award_row(a) for a in self._w.s.awards.values()]
