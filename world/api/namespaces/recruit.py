"""The ``recruit`` namespace: applicants, interviews, offers, postdocs, RAs, managers, dismissal (MECHANICS §5, §15)."""

from __future__ import annotations

from typing import Any

from ... import people as people_mod
from ... import rules as rules_mod
from ... import views
from ...state import Applicant
from .. import checks
from ..registry import ActionError, Unchanged, api_call
from .base import Namespace


class Recruit(Namespace):
    """Applicants, interviews, offers, postdocs, RAs, managers, dismissal (§5)."""

    _name = "recruit"

    @api_call(mutating=False)
    def applicants(self) -> list[Any]:
        """This season's pending/offered applicants (months {rules.season.offer_months} of the year only, else []): id, season_year, pool, name, transcript, letter, interview, status."""
        w = self._w
        m = w.s.month
        if not people_mod.in_offer_season(m):
            return []
        y = people_mod.season_year(m)
        return [
            views.applicant_row(a)
            for a in w.s.applicants.values()
            if a.season_year == y and a.status in ("pending", "offered")
        ]

    def _season_applicant(self, aid: Any) -> Applicant:
        w = self._w
        checks.string_id(aid, "applicant id")
        y = people_mod.season_year(w.s.month)
        a: Applicant | None = w.s.applicants.get(aid)
        if a is None or a.season_year != y:
            current = [
                x.id for x in w.s.applicants.values() if x.season_year == y and x.status in ("pending", "offered")
            ]
            raise ActionError(
                "unknown_id", f"no such applicant {aid!r} this season; current applicants: {checks.listing(current)}"
            )
        return a

    def _require_season(self, what: str) -> None:
        m = self._w.s.month
        if not people_mod.in_offer_season(m):
            nxt = m + ((rules_mod.SEASON_OPEN_MONTH - m) % 12)
            raise ActionError(
                "wrong_month",
                f"{what} is possible only in recruiting months (month of year {rules_mod.month_span(rules_mod.OFFER_MONTHS)}); "
                f"the next season opens in month {nxt}",
            )

    @api_call(mutating=True)
    def interview(self, ids: Any) -> dict[str, Any]:
        """Interview one applicant id or a list of ids: {rules.hours.interview} per new candidate, repeats free.

        Returns ``{"interview_scores": {id: score}}``. All-or-nothing: if the hours for all
        new candidates are not left, nobody is interviewed.
        """
        self._require_season("interviewing")
        ids_list = [ids] if isinstance(ids, str) else ids
        if not isinstance(ids_list, (list, tuple)) or not ids_list:
            raise ActionError("bad_argument", f"ids must be an applicant id or a non-empty list of ids, got {ids!r}")
        by_id: dict[str, Applicant] = {}  # each applicant once, in the order given
        for aid in ids_list:
            a = self._season_applicant(aid)
            # by id, not `a not in a_list` (which compared whole entities field by field): the same
            # applicants, as an id names one applicant
            by_id.setdefault(a.id, a)
        apps = list(by_id.values())
        new = [a for a in apps if not a.interviewed]
        cost = self._w.cfg.interview_hours * len(new)
        self._check_hours(cost, f"interviewing {len(new)} new candidate(s)")
        scores = {"interview_scores": {a.id: a.interview_score for a in apps}}
        if not new:
            return Unchanged(scores)  # repeats are free and change nothing: not logged
        people_mod.interview(self._w, new)
        return scores

    @api_call(mutating=True)
    def offer(self, applicant_id: Any) -> dict[str, Any]:
        """Make a PhD offer (months {rules.season.offer_months} of the year), answered at the tick of month
        {rules.season.offers_resolve}, arrival in month {rules.season.arrival}. A PhD student is paid {rules.pay.phd}."""
        self._require_season("making offers")
        w = self._w
        a = self._season_applicant(applicant_id)
        if a.status != "pending":
            raise ActionError(
                "not_allowed", f"applicant {a.id} is {a.status}, not pending; offer only to pending applicants"
            )
        used = people_mod.researcher_commitments(w)
        if used >= w.cfg.researcher_cap:
            raise ActionError(
                "cap_reached",
                f"the lab is at its researcher cap of {w.cfg.researcher_cap} (active researchers, outstanding offers, incoming students and open postdoc searches count)",
            )
        people_mod.make_offer(w, a)
        y = people_mod.season_year(w.s.month)
        return {
            "ok": True,
            "note": f"offer sent to {a.name}; answers come at the end of month {12 * y + rules_mod.OFFER_RESOLVE_MONTH}, "
            f"arrivals in month {12 * y + rules_mod.PHD_ARRIVAL_MONTH}",
        }

    @api_call(mutating=True)
    def post_postdoc(self) -> dict[str, Any]:
        """Post a postdoc search ({rules.costs.postdoc_search}); it resolves at the tick {rules.postdoc.search_months} later."""
        w = self._w
        if people_mod.researcher_commitments(w) >= w.cfg.researcher_cap:
            raise ActionError(
                "cap_reached",
                f"the lab is at its researcher cap of {w.cfg.researcher_cap}; a postdoc search cannot be posted",
            )
        post = people_mod.post_postdoc_search(w)
        return {
            "ok": True,
            "search_id": post.id,
            "note": f"search {post.id} posted; result at the end of month {post.resolve_month}",
        }

    @api_call(mutating=True)
    def renew_postdoc(self, postdoc_id: Any) -> dict[str, Any]:
        """Extend an active postdoc's contract by {rules.postdoc.renewal_months} (within {rules.postdoc.renewal_window_months} of its end)."""
        w = self._w
        p = self._person(postdoc_id, roles=("postdoc",), what="postdoc")
        assert p.contract_end is not None  # every postdoc has a contract end
        if p.contract_end - w.s.month > w.cfg.postdoc_renewal_window:
            raise ActionError(
                "wrong_month",
                f"{p.id}'s contract ends in month {p.contract_end}; renewal opens in month {p.contract_end - w.cfg.postdoc_renewal_window}",
            )
        people_mod.renew_postdoc(w, p)
        return {"ok": True, "new_contract_end": p.contract_end}

    @api_call(mutating=True)
    def hire_ra(self) -> dict[str, Any]:
        """Hire a research assistant now ({rules.pay.ra}; never an author)."""
        p = people_mod.hire_staff(self._w, "ra")
        return {
            "ok": True,
            "staff_id": p.id,
            "monthly_cost": p.stipend,
            "note": f"{p.name} joins as a research assistant",
        }

    @api_call(mutating=True)
    def hire_manager(self) -> dict[str, Any]:
        """Hire a lab manager now ({rules.attention.oversight_manager_relief} less oversight per researcher). A manager is paid {rules.pay.manager}; at most {rules.caps.managers}."""
        w = self._w
        n = len(people_mod.active_people(w, ("manager",)))
        if n >= w.cfg.manager_cap:
            raise ActionError("cap_reached", f"the lab already has {n} lab managers (at most {w.cfg.manager_cap})")
        p = people_mod.hire_staff(w, "manager")
        return {
            "ok": True,
            "staff_id": p.id,
            "monthly_cost": p.stipend,
            "attention_relief_per_researcher": w.cfg.oversight_manager_relief,
            "note": f"{p.name} joins as lab manager",
        }

    @api_call(mutating=True)
    def dismiss(self, staff_id: Any) -> dict[str, Any]:
        """Dismiss an RA or lab manager; they leave at the end of this month (paid for it)."""
        w = self._w
        p = self._person(staff_id, roles=("ra", "manager"), what="RA or lab manager")
        if p.dismiss_at_tick:
            raise ActionError("not_allowed", f"{p.id} is already leaving at the end of this month")
        people_mod.dismiss_staff(w, p)
        return {
            "ok": True,
            "note": f"{p.name} leaves at the end of month {w.s.month} (this month is still paid and overseen)",
        }
