"""The ``time`` namespace: the clock (MECHANICS §1, §15)."""

from __future__ import annotations

from typing import Any

from ... import scoring, views
from ...report import pi_view
from ..registry import ActionError, api_call
from .base import Namespace


class Time(Namespace):
    """The clock (§1)."""

    _name = "time"
    _result_read = True  # False in Api.next_month_unread(): no one reads the new dashboard or the report

    @api_call(mutating=True)
    def next_month(self) -> dict[str, Any]:
        """Close this month (the tick) and open the next. Returns the new dashboard, or the
        summary with ``simulation_over: True`` once the horizon or a collapse is reached,
        plus ``"report"``: what happened in the closed month (see ``time.last_report()``)."""
        w = self._w
        closed = w.next_month()
        if not self._result_read:  # time.last_report() has the report; the dashboard is built when asked
            return {"simulation_over": True} if w.s.finished else {"month": w.s.month}
        report = pi_view(closed.to_dict())
        if w.s.finished:
            return {"simulation_over": True, **scoring.summary(w), "report": report}
        return {**views.dashboard(w), "report": report}

    @api_call(mutating=False)
    def last_report(self) -> dict[str, Any]:
        """The report of the last closed month again (MECHANICS Decisions 8): month, label,
        decisions, offers (the PhD offers you made, with their answers), applicant_pool
        {applicants, offered, never_offered} (the month offers are answered, else None),
        postdoc_searches, arrivals, graduations, quits, contracts_ended, drafts_completed,
        dead_ends, scoops, publications, proposals, citations {earned, total,
        by_publication}, money {by_category, inflow, outflow, net, budget} (USD), events
        {arrived, expired}, headlines, collapsed, finished.

        Raises:
            ActionError: ``no_report`` before the first month has been closed.
        """
        rep = self._w.last_report
        if rep is None:
            raise ActionError(
                "no_report",
                f"no month has been closed yet; the first report comes with time.next_month() at the end of month {self._w.s.month}",
            )
        return pi_view(rep.to_dict())
