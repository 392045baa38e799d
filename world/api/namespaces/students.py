"""The ``students`` namespace: everyone ever in the lab, mentoring, monthly reports (MECHANICS §5, §15)."""

from __future__ import annotations

import builtins
from typing import Any

from ... import people as people_mod
from ... import views
from ...numbers import round2
from .. import checks
from ..registry import ActionError, Unchanged, api_call
from .base import Namespace


class Students(Namespace):
    """People ever in the lab, mentoring, monthly reports (§5)."""

    _name = "students"

    @api_call(mutating=False)
    def list(self) -> list[Any]:
        """Everyone ever in the lab, any role or status: id, name, role, status, arrived_month, left_month, months_in, stipend, mentoring_hours, papers_accepted, first_author_accepted, contract_end."""
        w = self._w
        return [views.student_row(w, p) for p in w.s.people.values()]

    @api_call(mutating=True)
    def set_mentoring(self, hours: Any) -> dict[str, Any]:
        """Set standing monthly mentoring hours ``{id: h}`` (0 to {rules.caps.mentoring_hours} each; others keep theirs)."""
        w = self._w
        if not isinstance(hours, dict) or not hours:
            raise ActionError("bad_argument", f"hours must be a non-empty dict {{person_id: hours}}, got {hours!r}")
        new: dict[str, float] = {}
        for pid, h in hours.items():
            p = self._person(pid)
            new[p.id] = checks.num(h, f"mentoring hours for {p.id}", 0.0, w.cfg.mentoring_max)
        total = sum(new.get(p.id, p.mentoring) for p in people_mod.active_people(w))  # as they would be
        pool = people_mod.attention_pool(w)
        if total + w.s.oneoff_used > pool + 1e-9:
            raise ActionError(
                "no_attention",
                f"mentoring would total {total:.2f} h; with {w.s.oneoff_used:.2f} h already used this month the pool of {pool:.2f} h allows at most {pool - w.s.oneoff_used:.2f} h",
            )
        result = {"ok": True, "mentoring_total": round2(total)}
        if all(w.s.people[pid].mentoring == h for pid, h in new.items()):
            return Unchanged(result)  # the same hours again: nothing to log
        people_mod.set_mentoring(w, new)
        return result

    @api_call(mutating=False)
    def reports(self, student_id: Any, n: int = 6) -> builtins.list[Any]:
        """The last ``n`` monthly reports of a person: month, report_quality, meeting_sentiment."""
        w = self._w
        checks.string_id(student_id, "student id")
        if student_id not in w.s.people:
            raise ActionError(
                "unknown_id", f"no such student {student_id!r}; students: {checks.listing(list(w.s.people))}"
            )
        n = checks.integer(n, "n", 0, 10_000)
        rows = self._report_rows(student_id, n) if n else []
        return [{"month": r[1], "report_quality": r[2], "meeting_sentiment": r[3]} for r in rows]

    def _report_rows(self, student_id: str, n: int) -> builtins.list[Any]:
        """The last ``n`` (> 0) rows of ``student_id`` in the monthly reports, oldest first (a
        walk over every report; :class:`world.api.cached.CachedApi` keeps an index instead)."""
        return [r for r in self._w.s.student_reports if r[0] == student_id][-n:]
