"""The ``lab`` namespace: dashboard, ledger and attention (MECHANICS §15)."""

from __future__ import annotations

from typing import Any

from ... import explain as explain_mod
from ... import rules as rules_mod
from ... import views
from .. import checks
from ..registry import api_call
from .base import Namespace


class Lab(Namespace):
    """The lab's dashboard, ledger and attention (MECHANICS §15 ``lab``)."""

    _name = "lab"

    @api_call(mutating=False)
    def dashboard(self) -> dict[str, Any]:
        """Everything on the PI's desk this month. It holds budget, burn, runway, attention,
        people, projects, drafts, submissions, proposals, awards, events, deadlines, open calls
        and notes."""
        return views.dashboard(self._w, parts=self._month_parts())

    def _month_parts(self) -> views.MonthParts:
        """The dashboard's pieces that only the tick changes (built afresh here;
        :class:`world.api.cached.CachedApi` keeps them for the month)."""
        return views.month_parts(self._w)

    @api_call(mutating=False)
    def ledger(self, n: int = 20) -> list[Any]:
        """The last ``n`` ledger rows: month, category, amount (USD, signed), note."""
        n = checks.integer(n, "n", 0, 100_000)
        rows = self._w.s.ledger[-n:] if n else []
        return [{"month": r[0], "category": r[1], "amount": r[2], "note": r[3]} for r in rows]

    @api_call(mutating=False)
    def attention(self) -> dict[str, Any]:
        """Hours this month: base, oversight_tax, pool, mentoring_reserved, oneoff_used, left (§3).

        pool = base {rules.attention.base} − oversight ({rules.attention.oversight_per_researcher} per PhD/postdoc,
        {rules.attention.oversight_manager_relief} less per lab manager but at least {rules.attention.oversight_min_per_researcher};
        {rules.attention.oversight_per_ra} per RA) − service duty ({rules.attention.service_tax_hours} in month
        {rules.attention.service_tax_month} of each year), never below {rules.attention.floor}."""
        return views.attention(self._w)

    @api_call(mutating=False)
    def rules(self) -> dict[str, Any]:
        """This scenario's rules as numbers: horizon_months, start_budget, pay (USD/month per
        role), costs (USD), attention (hours), hours (per action), caps, season (months of
        the year), postdoc, projects, collaboration, events, venues (deadline months,
        decision delays), agencies (awards, durations, delays, call months), harness.
        Nothing hidden (no hotness, quality, ability or acceptance bars)."""
        return rules_mod.rules(self._w.cfg)

    @api_call(mutating=False)
    def explain(self, kind: str, id: str = "") -> str:  # noqa: A002 - the API's word
        """Why an outcome went as it did, from what the PI could see. It is the text of the TUI
        digest's "why:" lines (world/explain.py; MECHANICS §5-§10), never a hidden value. ``kind`` and
        its ``id``: "quit" (a person who left), "warning" (a person: signals before quitting),
        "left_behind" (a person: orphaned projects, drafts with no author), "proposal",
        "decision" (a submission id), "venue" (a venue name: its bar and worth), "dead_end"
        (a project id), "scoop" (a project id), "offer" (an applicant id), "search" ("unfilled" or "paused"),
        "standing" (no id). Returns one string; once the career is over, no advice to act."""
        kind = checks.string_id(kind, "kind")
        ident = checks.string_id(id, "id")
        w = self._w
        return explain_mod.explain(
            self._mirror.query, w.cfg, kind, ident, w.month, w.standing(), w.s.action_log, over=w.s.finished
        )
