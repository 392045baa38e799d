"""The ``field`` namespace: news, preprints, conference reports and trips (MECHANICS §4, §11, §15)."""

from __future__ import annotations

from typing import Any

from ... import field as field_mod
from ...config import TOPICS
from .. import checks
from ..registry import ActionError, api_call
from .base import Namespace


class Field(Namespace):
    """News, preprint feed, conference reports, conference trips (§4, §11)."""

    _name = "field"

    @api_call(mutating=False)
    def news(self, n: int = 20) -> list[Any]:
        """The last ``n`` news items: month, kind, topic, text."""
        n = checks.integer(n, "n", 0, 100_000)
        if not n:
            return []
        return [{"month": r[0], "kind": r[1], "topic": r[2], "text": r[3]} for r in self._w.s.news[-n:]]

    @api_call(mutating=False)
    def preprints(self, n_months: int = 3) -> list[Any]:
        """Preprint counts per topic for the last ``n_months`` months."""
        w = self._w
        n = checks.integer(n_months, "n_months", 0, 100_000)
        lo = w.s.month - n
        return [{"month": r[0], "topic": r[1], "preprint_count": r[2]} for r in w.s.preprints if r[0] > lo]

    @api_call(mutating=False)
    def conference_report(self) -> list[Any]:
        """The last 32 conference-report rows: month, venue, topic, accepted_papers."""
        return [
            {"month": r[0], "venue": r[1], "topic": r[2], "accepted_papers": r[3]}
            for r in self._w.s.conference_reports[-32:]
        ]

    @api_call(mutating=True)
    def attend_conference(self) -> dict[str, Any]:
        """Attend a conference: {rules.hours.conference}, {rules.costs.conference}, at most once every {rules.events.conference_gap_months}; returns hallway intel."""
        w = self._w
        s, cfg = w.s, w.cfg
        m = s.month
        if s.last_conference_month is not None and m - s.last_conference_month < cfg.conference_gap:
            raise ActionError(
                "wrong_month",
                f"the last conference trip was in month {s.last_conference_month}; the next is possible in month {s.last_conference_month + cfg.conference_gap}",
            )
        self._check_hours(cfg.conference_hours, "a conference trip")
        intel = field_mod.attend_conference(w)
        return {"ok": True, "hallway_intel": intel, "note": "you hear what people are excited about"}

    @api_call(mutating=False)
    def topics(self) -> list[Any]:
        """The research topics, in their fixed order."""
        return list(TOPICS)
