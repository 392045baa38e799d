"""The agent API: everything a PI may see and do (MECHANICS §15).

Namespaces ``lab, recruit, students, projects, papers, grants, field, events, time`` plus
``query(sql)`` and ``memory``. Every call validates its arguments, money and attention
*before* changing anything; a refused call raises :class:`ActionError` (one type, with a
``code`` and a message that names the problem and the valid choices) and changes nothing.
Every accepted mutating call is appended to the world's action log as
``[month, "namespace.method", kwargs]``, enough to replay the career with :func:`replay`.
Results are JSON-able dicts and lists.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable

from .. import events as events_mod
from .. import field as field_mod
from .. import grants as grants_mod
from .. import people as people_mod
from .. import projects as projects_mod
from .. import scoring
from ..config import TOPICS, VENUES, WorldConfig
from ..engine import World
from ..errors import ActionError as ActionError  # re-exported: world.api.ActionError
from ..errors import SimulationOver as SimulationOver  # re-exported
from ..state import Posting, Proposal, Submission


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()
"""Sentinel for a parameter without a default in :class:`CallSpec`."""


@dataclass(frozen=True)
class CallSpec:
    """One API call: its name, parameters ``((name, default or REQUIRED), ...)``, doc, kind."""

    name: str
    params: tuple
    doc: str
    mutating: bool


def _call(mutating: bool) -> Callable:
    """Mark a namespace method as an API call; mutating calls are refused after the end and logged."""

    def deco(fn: Callable) -> Callable:
        sig = inspect.signature(fn)

        names = [p.name for p in sig.parameters.values()][1:]
        defaults = {p.name: p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty}

        def bind(self: "_Namespace", args: tuple, kwargs: dict) -> dict:
            """Map call arguments to parameter names (a fast ``Signature.bind``)."""
            if len(args) > len(names):
                raise TypeError(f"takes {len(names)} argument(s) but {len(args)} were given")
            out = dict(zip(names, args))
            for k, v in kwargs.items():
                if k not in names:
                    raise TypeError(f"got an unexpected keyword argument {k!r}")
                if k in out:
                    raise TypeError(f"got multiple values for argument {k!r}")
                out[k] = v
            for k in names:
                if k not in out:
                    if k not in defaults:
                        raise TypeError(f"missing a required argument: {k!r}")
                    out[k] = defaults[k]
            return out

        @functools.wraps(fn)
        def wrapper(self: "_Namespace", *args: Any, **kwargs: Any) -> Any:
            try:
                bound = bind(self, args, kwargs)
            except TypeError as exc:
                raise ActionError("bad_argument", f"{self._name}.{fn.__name__}: {exc}; usage: {self._name}.{fn.__name__}{_usage(sig)}") from None
            w = self._api.world
            if not mutating:
                return fn(self, **bound)
            if w.s.finished:
                raise ActionError("career_over", _over_message(w))
            month = w.s.month
            call_args = _jsonable(bound)
            result = fn(self, **bound)
            w.s.action_log.append([month, f"{self._name}.{fn.__name__}", call_args])
            w.version += 1
            return result

        wrapper._api_mutating = mutating  # type: ignore[attr-defined]
        wrapper._api_signature = sig  # type: ignore[attr-defined]
        return wrapper

    return deco


def _usage(sig: inspect.Signature) -> str:
    params = [p for p in sig.parameters.values() if p.name != "self"]
    parts = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params]
    return "(" + ", ".join(parts) + ")"


def _over_message(w: World) -> str:
    if w.s.collapsed:
        return f"simulation is over: the lab collapsed in month {w.s.collapse_month}; only reading calls and query() work"
    return f"simulation is over: month {w.s.month} was the horizon; only reading calls and query() work"


def _copy_plain(x: Any) -> Any:
    """A deep copy of plain JSON-like data (dicts, lists, scalars), faster than ``copy.deepcopy``."""
    if isinstance(x, dict):
        return {k: _copy_plain(v) if isinstance(v, (dict, list)) else v for k, v in x.items()}
    if isinstance(x, list):
        return [_copy_plain(v) if isinstance(v, (dict, list)) else v for v in x]
    return x


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return repr(x)


# ------------------------------------------------------------------------ argument checks
def _num(value: Any, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite real number in [lo, hi]; bools are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError("bad_argument", f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v):
        raise ActionError("bad_argument", f"{name} must be a finite number, got {value!r}")
    if lo is not None and v < lo:
        raise ActionError("bad_argument", f"{name} must be at least {lo:g}, got {value!r}")
    if hi is not None and v > hi:
        raise ActionError("bad_argument", f"{name} must be at most {hi:g}, got {value!r}")
    return v


def _int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer in [lo, hi] (a float with an integral value is accepted)."""
    if isinstance(value, bool):
        raise ActionError("bad_argument", f"{name} must be an integer, got {value!r}")
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ActionError("bad_argument", f"{name} must be an integer, got {value!r}")
    if lo is not None and value < lo:
        raise ActionError("bad_argument", f"{name} must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise ActionError("bad_argument", f"{name} must be at most {hi}, got {value}")
    return value


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ActionError("bad_argument", f"{name} must be a string id, got {value!r}")
    return value


def _listing(ids: list[str], limit: int = 15) -> str:
    if not ids:
        return "none"
    if len(ids) > limit:
        return ", ".join(ids[-limit:]) + f" (last {limit} of {len(ids)})"
    return ", ".join(ids)


def _topic(value: Any) -> str:
    if not isinstance(value, str) or value not in TOPICS:
        raise ActionError("bad_argument", f"unknown topic {value!r}; topics: {', '.join(TOPICS)}")
    return value


class _Namespace:
    _name = ""

    def __init__(self, api: "Api") -> None:
        self._api = api

    @property
    def _w(self) -> World:
        return self._api.world

    def _charge(self, hours: float, what: str) -> None:
        """Charge one-off attention hours, refusing more than is left (§3)."""
        w = self._w
        if hours < 0:
            raise ActionError("bad_argument", f"{what}: hours cannot be negative")
        left = people_mod.attention_left(w)
        if hours > left + 1e-9:
            raise ActionError(
                "no_attention",
                f"{what} needs {hours:g} h but only {max(0.0, left):.2f} h are left this month "
                f"(pool {people_mod.attention_pool(w):.2f} h, mentoring {people_mod.mentoring_reserved(w):.2f} h, "
                f"used {w.s.oneoff_used:.2f} h); lower mentoring or wait for next month",
            )
        w.s.oneoff_used += hours

    def _check_hours(self, hours: float, what: str) -> None:
        w = self._w
        left = people_mod.attention_left(w)
        if hours > left + 1e-9:
            raise ActionError(
                "no_attention",
                f"{what} needs {hours:g} h but only {max(0.0, left):.2f} h are left this month "
                f"(pool {people_mod.attention_pool(w):.2f} h, mentoring {people_mod.mentoring_reserved(w):.2f} h, "
                f"used {w.s.oneoff_used:.2f} h)",
            )

    @staticmethod
    def _live(collection: dict, eid: Any, noun: str, status: str, adjective: str, *,
              wrong_state_code: str = "unknown_id") -> Any:
        """The entity ``eid`` of ``collection`` if its status is ``status``, else an ActionError
        naming its actual state and listing the ids that are (e.g. "no such active project ...")."""
        _str(eid, f"{noun} id")
        e = collection.get(eid)
        if e is None or e.status != status:
            live = [x.id for x in collection.values() if x.status == status]
            state = "" if e is None else f" (it is {e.status.replace('_', ' ')})"
            raise ActionError("unknown_id" if e is None else wrong_state_code,
                              f"no such {adjective} {noun} {eid!r}{state}; {adjective} {noun}s: {_listing(live)}")
        return e

    def _person(self, pid: Any, *, active: bool = True, roles: tuple[str, ...] | None = None, what: str = "lab member"):
        w = self._w
        _str(pid, "id")
        p = w.s.people.get(pid)
        pool = [q for q in w.s.people.values() if (not active or q.status == "active") and (roles is None or q.role in roles)]
        if p is None or (active and p.status != "active") or (roles is not None and p.role not in roles):
            state = "" if p is None else f" ({p.role}, {p.status})"
            raise ActionError("unknown_id", f"no such active {what} {pid!r}{state}; current: {_listing([q.id for q in pool])}")
        return p


# ======================================================================== namespaces
class Lab(_Namespace):
    """The lab's dashboard, ledger and attention (MECHANICS §15 ``lab``)."""

    _name = "lab"

    @_call(mutating=False)
    def dashboard(self) -> dict:
        """Everything on the PI's desk this month: budget, burn, runway, attention, people,
        projects, drafts, submissions, proposals, awards, events, deadlines, open calls, notes."""
        w = self._w
        key = (w.version, w.s.month, w.s.budget, w.s.oneoff_used, len(w.s.action_log))
        cached = self._api._dashboard_cache
        if cached is None or cached[0] != key:
            cached = self._api._dashboard_cache = (key, _dashboard(w))
        return _copy_plain(cached[1])

    @_call(mutating=False)
    def ledger(self, n: int = 20) -> list:
        """The last ``n`` ledger rows: month, category, amount (USD, signed), note."""
        n = _int(n, "n", 0, 100_000)
        rows = self._w.s.ledger[-n:] if n else []
        return [{"month": r[0], "category": r[1], "amount": r[2], "note": r[3]} for r in rows]

    @_call(mutating=False)
    def attention(self) -> dict:
        """Hours this month: pool, mentoring_reserved, oneoff_used, left (§3)."""
        return _attention(self._w)


class Recruit(_Namespace):
    """Applicants, interviews, offers, postdocs, RAs, managers, dismissal (§5)."""

    _name = "recruit"

    @_call(mutating=False)
    def applicants(self) -> list:
        """This season's pending/offered applicants (months ≡ 1-3 only, else [])."""
        w = self._w
        m = w.s.month
        if not people_mod.in_offer_season(m):
            return []
        y = people_mod.season_year(m)
        return [
            {"id": a.id, "name": a.name, "pool": a.pool, "transcript": a.transcript, "letter": a.letter,
             "interview": a.interview_score if a.interviewed else None, "status": a.status}
            for a in w.s.applicants.values() if a.season_year == y and a.status in ("pending", "offered")
        ]

    def _season_applicant(self, aid: Any):
        w = self._w
        _str(aid, "applicant id")
        y = people_mod.season_year(w.s.month)
        a = w.s.applicants.get(aid)
        if a is None or a.season_year != y:
            current = [x.id for x in w.s.applicants.values() if x.season_year == y and x.status in ("pending", "offered")]
            raise ActionError("unknown_id", f"no such applicant {aid!r} this season; current applicants: {_listing(current)}")
        return a

    def _require_season(self, what: str) -> None:
        m = self._w.s.month
        if not people_mod.in_offer_season(m):
            nxt = m + ((1 - m) % 12)
            raise ActionError("wrong_month", f"{what} is possible only in recruiting months (month of year 1-3); the next season opens in month {nxt}")

    @_call(mutating=True)
    def interview(self, ids: Any) -> dict:
        """Interview one applicant id or a list of ids: 3 h per new candidate, repeats free.

        Returns ``{"interview_scores": {id: score}}``. All-or-nothing: if the hours for all
        new candidates are not left, nobody is interviewed.
        """
        self._require_season("interviewing")
        ids_list = [ids] if isinstance(ids, str) else ids
        if not isinstance(ids_list, (list, tuple)) or not ids_list:
            raise ActionError("bad_argument", f"ids must be an applicant id or a non-empty list of ids, got {ids!r}")
        apps = []
        for aid in ids_list:
            a = self._season_applicant(aid)
            if a not in apps:
                apps.append(a)
        new = [a for a in apps if not a.interviewed]
        cost = self._w.cfg.interview_hours * len(new)
        self._check_hours(cost, f"interviewing {len(new)} new candidate(s)")
        self._charge(cost, "interviews")
        for a in new:
            a.interviewed = True
        return {"interview_scores": {a.id: a.interview_score for a in apps}}

    @_call(mutating=True)
    def offer(self, applicant_id: Any) -> dict:
        """Make a PhD offer (months ≡ 1-3); resolved at the tick of month ≡ 3, arrival month ≡ 5."""
        self._require_season("making offers")
        w = self._w
        a = self._season_applicant(applicant_id)
        if a.status != "pending":
            raise ActionError("not_allowed", f"applicant {a.id} is {a.status}, not pending; offer only to pending applicants")
        used = people_mod.researcher_commitments(w)
        if used >= w.cfg.researcher_cap:
            raise ActionError("cap_reached", f"the lab is at its researcher cap of {w.cfg.researcher_cap} (active researchers, outstanding offers, incoming students and open postdoc searches count)")
        a.status = "offered"
        y = people_mod.season_year(w.s.month)
        return {"ok": True, "note": f"offer sent to {a.name}; answers come at the end of month {12 * y + 3}, arrivals in month {12 * y + 5}"}

    @_call(mutating=True)
    def post_postdoc(self) -> dict:
        """Post a postdoc search ($1,000); it resolves at the tick two months later."""
        w = self._w
        if people_mod.researcher_commitments(w) >= w.cfg.researcher_cap:
            raise ActionError("cap_reached", f"the lab is at its researcher cap of {w.cfg.researcher_cap}; a postdoc search cannot be posted")
        s = w.s
        pid = s.next_id("PDsearch")
        s.postings[pid] = Posting(id=pid, month=s.month, resolve_month=s.month + w.cfg.postdoc_search_months)
        w.spend(-w.cfg.postdoc_search_fee, "recruiting", pid)
        return {"ok": True, "search_id": pid, "note": f"search {pid} posted; result at the end of month {s.month + w.cfg.postdoc_search_months}"}

    @_call(mutating=True)
    def renew_postdoc(self, postdoc_id: Any) -> dict:
        """Extend an active postdoc's contract by 12 months (within 3 months of its end)."""
        w = self._w
        p = self._person(postdoc_id, roles=("postdoc",), what="postdoc")
        if p.contract_end - w.s.month > w.cfg.postdoc_renewal_window:
            raise ActionError("wrong_month", f"{p.id}'s contract ends in month {p.contract_end}; renewal opens in month {p.contract_end - w.cfg.postdoc_renewal_window}")
        p.contract_end += w.cfg.postdoc_renewal_months
        return {"ok": True, "new_contract_end": p.contract_end}

    @_call(mutating=True)
    def hire_ra(self) -> dict:
        """Hire a research assistant now ($1,800/month; never an author)."""
        p = people_mod.hire_staff(self._w, "ra")
        return {"ok": True, "staff_id": p.id, "monthly_cost": p.stipend, "note": f"{p.name} joins as a research assistant"}

    @_call(mutating=True)
    def hire_manager(self) -> dict:
        """Hire a lab manager now ($4,500/month; 2 h less oversight per researcher; at most 2)."""
        w = self._w
        n = len(people_mod.active_people(w, ("manager",)))
        if n >= w.cfg.manager_cap:
            raise ActionError("cap_reached", f"the lab already has {n} lab managers (at most {w.cfg.manager_cap})")
        p = people_mod.hire_staff(w, "manager")
        return {"ok": True, "staff_id": p.id, "monthly_cost": p.stipend,
                "attention_relief_per_researcher": w.cfg.oversight_manager_relief,
                "note": f"{p.name} joins as lab manager"}

    @_call(mutating=True)
    def dismiss(self, staff_id: Any) -> dict:
        """Dismiss an RA or lab manager; they leave at the end of this month (paid for it)."""
        w = self._w
        p = self._person(staff_id, roles=("ra", "manager"), what="RA or lab manager")
        if p.dismiss_at_tick:
            raise ActionError("not_allowed", f"{p.id} is already leaving at the end of this month")
        p.dismiss_at_tick = True
        return {"ok": True, "note": f"{p.name} leaves at the end of month {w.s.month} (this month is still paid and overseen)"}


class Students(_Namespace):
    """People ever in the lab, mentoring, monthly reports (§5)."""

    _name = "students"

    @_call(mutating=False)
    def list(self) -> list:
        """Everyone ever in the lab, any role or status."""
        w = self._w
        return [_person_row(w, p) for p in w.s.people.values()]

    @_call(mutating=True)
    def set_mentoring(self, hours: Any) -> dict:
        """Set standing monthly mentoring hours ``{id: h}`` (0-40 h each; others keep theirs)."""
        w = self._w
        if not isinstance(hours, dict) or not hours:
            raise ActionError("bad_argument", f"hours must be a non-empty dict {{person_id: hours}}, got {hours!r}")
        new: dict[str, float] = {}
        for pid, h in hours.items():
            p = self._person(pid)
            new[p.id] = _num(h, f"mentoring hours for {p.id}", 0.0, w.cfg.mentoring_max)
        total = sum(new.get(p.id, p.mentoring) for p in people_mod.active_people(w))
        pool = people_mod.attention_pool(w)
        if total + w.s.oneoff_used > pool + 1e-9:
            raise ActionError("no_attention", f"mentoring would total {total:.2f} h; with {w.s.oneoff_used:.2f} h already used this month the pool of {pool:.2f} h allows at most {pool - w.s.oneoff_used:.2f} h")
        for pid, h in new.items():
            w.s.people[pid].mentoring = h
        return {"ok": True, "mentoring_total": round(total, 2)}

    @_call(mutating=False)
    def reports(self, student_id: Any, n: int = 6) -> list:
        """The last ``n`` monthly reports of a person: month, report_quality, meeting_sentiment."""
        w = self._w
        _str(student_id, "student id")
        if student_id not in w.s.people:
            raise ActionError("unknown_id", f"no such student {student_id!r}; students: {_listing(list(w.s.people))}")
        n = _int(n, "n", 0, 10_000)
        rows = [r for r in w.s.student_reports if r[0] == student_id]
        rows = rows[-n:] if n else []
        return [{"month": r[1], "report_quality": r[2], "meeting_sentiment": r[3]} for r in rows]


class Projects(_Namespace):
    """Start, staff, fund and kill projects (§6)."""

    _name = "projects"

    def _project(self, project_id: Any):
        return self._live(self._w.s.projects, project_id, "project", "active", "active")

    @_call(mutating=False)
    def list(self) -> list:
        """All projects ever: id, topic, tier, status, progress_pct, members, monthly_compute, started_month, ended_month, draft, scooped_times."""
        return [_project_row(self._w, pj) for pj in self._w.s.projects.values()]

    @_call(mutating=True)
    def start(self, topic: Any, tier: Any, members: Any, monthly_compute: Any = 0) -> dict:
        """Start a project: topic, tier 1-3, member ids, compute units/month (0-50,000)."""
        w = self._w
        topic = _topic(topic)
        if isinstance(tier, bool) or tier not in (1, 2, 3):
            raise ActionError("bad_argument", f"tier must be 1, 2 or 3, got {tier!r}")
        tier = int(tier)
        if isinstance(members, str):
            members = [members]
        if not isinstance(members, (list, tuple)) or not members:
            raise ActionError("bad_argument", f"members must be a non-empty list of lab member ids, got {members!r}")
        seen: set[str] = set()
        for pid in members:
            self._person(pid)
            if pid in seen:
                raise ActionError("bad_argument", f"member {pid!r} is listed twice; list each member once")
            seen.add(pid)
        compute = _num(monthly_compute, "monthly_compute", 0.0, w.cfg.max_compute)
        active = sum(1 for pj in w.s.projects.values() if pj.status == "active")
        if active >= w.cfg.max_active_projects:
            raise ActionError("cap_reached", f"the lab already runs {active} projects (at most {w.cfg.max_active_projects}); finish or kill one first")
        pj = projects_mod.start_project(w, topic, tier, list(members), compute)
        work = w.cfg.tiers[str(tier)]["work"]
        return {"ok": True, "project_id": pj.id,
                "est_months_note": f"tier {tier} needs about {work:g} units of work; two mentored students make roughly one unit a month"}

    @_call(mutating=True)
    def set_compute(self, project_id: Any, monthly_compute: Any) -> dict:
        """Set a project's compute units/month (0-50,000), paid at the tick × price multiplier."""
        pj = self._project(project_id)
        pj.compute = _num(monthly_compute, "monthly_compute", 0.0, self._w.cfg.max_compute)
        return {"ok": True, "monthly_compute": pj.compute}

    @_call(mutating=True)
    def assign(self, project_id: Any, student_id: Any) -> dict:
        """Add an active lab member to an active project (no duplicates)."""
        pj = self._project(project_id)
        p = self._person(student_id)
        if p.id in pj.members:
            raise ActionError("not_allowed", f"{p.id} is already a member of {pj.id}")
        pj.members.append(p.id)
        return {"ok": True, "members": list(pj.members)}

    @_call(mutating=True)
    def unassign(self, project_id: Any, student_id: Any) -> dict:
        """Remove a member from an active project (a non-member is ignored)."""
        pj = self._project(project_id)
        _str(student_id, "student id")
        pj.members = [x for x in pj.members if x != student_id]
        return {"ok": True, "members": list(pj.members)}

    @_call(mutating=True)
    def kill(self, project_id: Any) -> dict:
        """Stop an active project: no draft, and its members' morale suffers."""
        pj = self._project(project_id)
        projects_mod.kill_project(self._w, pj)
        return {"ok": True}


class Papers(_Namespace):
    """Drafts, polish, submissions, revisions, publications (§7)."""

    _name = "papers"

    def _draft(self, draft_id: Any):
        return self._live(self._w.s.drafts, draft_id, "draft", "available", "available", wrong_state_code="not_allowed")

    @_call(mutating=False)
    def drafts(self) -> list:
        """All drafts: id, topic, tier, status, created_month, authors, polish_hours, revisions, salvage, collab."""
        return [_draft_row(d) for d in self._w.s.drafts.values()]

    @_call(mutating=True)
    def polish(self, draft_id: Any, hours: Any) -> dict:
        """Spend hours polishing an available draft (gains saturate at 12 h in total)."""
        d = self._draft(draft_id)
        h = _num(hours, "hours", 0.0)
        self._charge(h, f"polishing {d.id}")
        d.polish_hours += h
        note = "polish beyond 12 h adds nothing" if d.polish_hours > self._w.cfg.polish_cap_hours else "polished"
        return {"ok": True, "total_polish_hours": d.polish_hours, "note": note}

    @_call(mutating=True)
    def submit(self, draft_id: Any, venue: Any) -> dict:
        """Submit an available draft to a venue (conferences only in their deadline months)."""
        w = self._w
        d = self._draft(draft_id)
        if not isinstance(venue, str) or venue not in VENUES:
            raise ActionError("bad_argument", f"unknown venue {venue!r}; venues: {', '.join(VENUES)}")
        v = w.cfg.venues[venue]
        m = w.s.month
        if v["conference"] and (m % 12) not in v["deadlines"]:
            months = ", ".join(str(x if x else 12) for x in v["deadlines"])
            open_now = [n for n in VENUES if not w.cfg.venues[n]["conference"] or (m % 12) in w.cfg.venues[n]["deadlines"]]
            raise ActionError("wrong_month", f"{venue} takes submissions only in months {months} of each year; open this month: {', '.join(open_now)}")
        sid = w.s.next_id("SUB")
        w.s.submissions[sid] = Submission(id=sid, draft_id=d.id, venue=venue, submitted_month=m, decision_month=m + int(v["delay"]))
        d.status = "under_review"
        return {"ok": True, "submission_id": sid, "decision_expected_month": m + int(v["delay"])}

    @_call(mutating=True)
    def revise(self, draft_id: Any, hours: Any) -> dict:
        """Revise a rejected, available draft (once a month); gains shrink with each revision."""
        w = self._w
        d = self._draft(draft_id)
        h = _num(hours, "hours", 0.0)
        if not any(sub.draft_id == d.id and sub.status == "reject" for sub in w.s.submissions.values()):
            raise ActionError("not_allowed", f"{d.id} has not been rejected yet; only rejected drafts can be revised")
        if d.revised_month == w.s.month:
            raise ActionError("not_allowed", f"{d.id} was already revised this month; revise again next month")
        if d.authors and not any(w.s.people[a].status == "active" for a in d.authors):
            raise ActionError("not_allowed", f"none of {d.id}'s authors is still in the lab")
        self._charge(h, f"revising {d.id}")
        cfg = w.cfg
        d.q = min(cfg.quality_max, d.q + cfg.revise_gain * min(h, cfg.revise_cap_hours) / cfg.revise_cap_hours * cfg.revise_decay ** d.revisions)
        d.revisions += 1
        d.revised_month = w.s.month
        return {"ok": True, "revisions": d.revisions, "note": "revised; gains beyond 10 h are lost and shrink with each revision"}

    @_call(mutating=True)
    def withdraw(self, submission_id: Any) -> dict:
        """Withdraw a submission under review; the draft becomes available again."""
        w = self._w
        _str(submission_id, "submission id")
        sub = w.s.submissions.get(submission_id)
        if sub is None or sub.status != "under_review":
            live = [x.id for x in w.s.submissions.values() if x.status == "under_review"]
            raise ActionError("unknown_id", f"no submission {submission_id!r} under review; under review: {_listing(live)}")
        sub.status = "withdrawn"
        sub.decided_month = w.s.month
        w.s.drafts[sub.draft_id].status = "available"
        return {"ok": True}

    @_call(mutating=False)
    def submissions(self) -> list:
        """All submissions: id, draft, venue, status, months, reviewer_scores."""
        return [_submission_row(sub) for sub in self._w.s.submissions.values()]

    @_call(mutating=False)
    def publications(self) -> list:
        """Published papers: id, venue, topic, tier, published_month, citations, authors, collab."""
        w = self._w
        return [_publication_row(p) for p in w.s.publications.values() if p.published_month <= w.s.month]


class Grants(_Namespace):
    """Calls, proposals and awards (§9)."""

    _name = "grants"

    @_call(mutating=False)
    def calls(self) -> list:
        """Calls open this month with award (USD), duration and deadline."""
        w = self._w
        m = w.s.month
        out = []
        for c in w.s.calls.values():
            if c.open_month <= m <= c.close_month:
                a = w.cfg.agencies[c.agency]
                out.append({"id": c.id, "agency": c.agency, "award": a["award"], "duration_months": a["duration"],
                            "open_month": c.open_month, "last_month_to_apply": c.close_month,
                            "decision_delay_months": a["delay"]})
        return out

    @_call(mutating=True)
    def propose(self, call_id: Any, topic: Any, hours: Any, attach: Any = None) -> dict:
        """Write a proposal to an open call: ≥ 5 h, $500, optional drafts/publications as evidence."""
        w = self._w
        s, cfg = w.s, w.cfg
        m = s.month
        _str(call_id, "call id")
        c = s.calls.get(call_id)
        if c is None or not (c.open_month <= m <= c.close_month):
            open_ids = [x.id for x in s.calls.values() if x.open_month <= m <= x.close_month]
            raise ActionError("unknown_id", f"no open call {call_id!r} this month; open calls: {_listing(open_ids)}")
        topic = _topic(topic)
        h = _num(hours, "hours", cfg.proposal_min_hours)
        agency = c.agency
        a = cfg.agencies[agency]
        if a["once"] and s.fel_funded:
            raise ActionError("not_allowed", f"{agency} funds a lab only once, and it already funded this lab")
        live = sum(1 for x in s.awards.values() if x.agency == agency and x.end_month >= m)
        live += sum(1 for x in s.proposals.values() if x.agency == agency and x.status == "pending")
        if live >= a["max_concurrent"]:
            raise ActionError("cap_reached", f"{agency} allows {a['max_concurrent']} running awards plus pending proposals at once; the lab has {live}")
        if agency == "TIF" and s.last_tif_month is not None and m - s.last_tif_month < cfg.tif_cooldown:
            raise ActionError("wrong_month", f"TIF accepts one proposal every {cfg.tif_cooldown} months; the next is possible in month {s.last_tif_month + cfg.tif_cooldown}")
        if attach is None:
            attach = []
        if isinstance(attach, str):
            attach = [attach]
        if not isinstance(attach, (list, tuple)):
            raise ActionError("bad_argument", f"attach must be a list of draft or publication ids, got {attach!r}")
        papers_seen: dict[str, str] = {}
        for x in attach:
            _str(x, "attachment id")
            if x in s.publications:
                key = s.publications[x].draft_id
            elif x in s.drafts:
                key = x
            else:
                raise ActionError("unknown_id", f"attachment {x!r} is neither a draft nor a publication; drafts: {_listing(list(s.drafts))}; "
                                   f"publications: {_listing([p.id for p in s.publications.values() if p.published_month <= m])}")
            if key in papers_seen:
                raise ActionError("bad_argument", f"attachment {x!r} is the same paper as {papers_seen[key]!r}; attach each paper once")
            papers_seen[key] = x
        self._check_hours(h, f"a proposal of {h:g} h")
        quality = grants_mod.proposal_quality(w, agency, topic, h, list(attach))
        self._charge(h, "proposal")
        w.spend(-cfg.proposal_fee, "proposal", c.id)
        pid = s.next_id("PR")
        s.proposals[pid] = Proposal(id=pid, call_id=c.id, agency=agency, topic=topic, hours=h, attached=list(attach),
                                    quality=quality, submitted_month=m, decision_month=m + int(a["delay"]))
        if agency == "TIF":
            s.last_tif_month = m
        return {"ok": True, "proposal_id": pid, "decision_expected_month": m + int(a["delay"])}

    @_call(mutating=False)
    def proposals(self) -> list:
        """All proposals: id, call, agency, topic, status, submitted_month, decision_month."""
        return [_proposal_row(p) for p in self._w.s.proposals.values()]

    @_call(mutating=False)
    def awards(self) -> list:
        """All awards: id, agency, total (USD), monthly (USD), start_month, end_month."""
        return [_award_row(a) for a in self._w.s.awards.values()]


class Field(_Namespace):
    """News, preprint feed, conference reports, conference trips (§4, §11)."""

    _name = "field"

    @_call(mutating=False)
    def news(self, n: int = 20) -> list:
        """The last ``n`` news items: month, kind, topic, text."""
        n = _int(n, "n", 0, 100_000)
        rows = self._w.s.news[-n:] if n else []
        return [{"month": r[0], "kind": r[1], "topic": r[2], "text": r[3]} for r in rows]

    @_call(mutating=False)
    def preprints(self, n_months: int = 3) -> list:
        """Preprint counts per topic for the last ``n_months`` months."""
        w = self._w
        n = _int(n_months, "n_months", 0, 100_000)
        lo = w.s.month - n
        return [{"month": r[0], "topic": r[1], "preprint_count": r[2]} for r in w.s.preprints if r[0] > lo]

    @_call(mutating=False)
    def conference_report(self) -> list:
        """The last 32 conference-report rows: month, venue, topic, accepted_papers."""
        return [{"month": r[0], "venue": r[1], "topic": r[2], "accepted_papers": r[3]} for r in self._w.s.conference_reports[-32:]]

    @_call(mutating=True)
    def attend_conference(self) -> dict:
        """Attend a conference: 15 h, $2,500, at most once every 5 months; returns hallway intel."""
        w = self._w
        s, cfg = w.s, w.cfg
        m = s.month
        if s.last_conference_month is not None and m - s.last_conference_month < cfg.conference_gap:
            raise ActionError("wrong_month", f"the last conference trip was in month {s.last_conference_month}; the next is possible in month {s.last_conference_month + cfg.conference_gap}")
        self._check_hours(cfg.conference_hours, "a conference trip")
        self._charge(cfg.conference_hours, "a conference trip")
        w.spend(-cfg.conference_cost, "travel", "conference")
        w.reputation_impulse("conference", cfg.rep_conference)
        events_mod.boost_next_season(w)
        s.last_conference_month = m
        return {"ok": True, "hallway_intel": field_mod.conference_intel(w, m), "note": "you hear what people are excited about"}

    @_call(mutating=False)
    def topics(self) -> list:
        """The research topics, in their fixed order."""
        return list(TOPICS)


class Events(_Namespace):
    """Pending events and answers (§11)."""

    _name = "events"

    @_call(mutating=False)
    def pending(self) -> list:
        """Events awaiting an answer: id, kind, arrived_month, respond_by_month, details."""
        return _pending_events(self._w)

    @_call(mutating=True)
    def respond(self, event_id: Any, action: Any) -> dict:
        """Answer a pending event: talk/review/collaboration accept|decline; crisis support|ignore."""
        w = self._w
        s, cfg = w.s, w.cfg
        _str(event_id, "event id")
        ev = s.events.get(event_id)
        if ev is None or ev.status != "pending":
            pend = [e.id for e in s.events.values() if e.status == "pending"]
            state = "" if ev is None else f" (it is {ev.status})"
            raise ActionError("unknown_id", f"no pending event {event_id!r}{state}; pending events: {_listing(pend)}")
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


class Time(_Namespace):
    """The clock (§1)."""

    _name = "time"

    @_call(mutating=True)
    def next_month(self) -> dict:
        """Close this month (the tick) and open the next; returns the new dashboard, or the
        summary with ``simulation_over: True`` once the horizon or a collapse is reached,
        plus ``"report"``: what happened in the closed month (see ``time.last_report()``)."""
        w = self._w
        report = w.next_month().to_dict()
        if w.s.finished:
            return {"simulation_over": True, **scoring.summary(w), "report": report}
        return {**_dashboard(w), "report": report}

    @_call(mutating=False)
    def last_report(self) -> dict:
        """The report of the last closed month again (MECHANICS Decisions 8): month, label,
        decisions, offers, postdoc_searches, arrivals, graduations, quits, contracts_ended,
        drafts_completed, dead_ends, scoops, publications, proposals, citations
        {earned, total, by_publication}, money {by_category, inflow, outflow, net, budget}
        (USD), events {arrived, expired}, headlines, collapsed, finished.

        Raises:
            ActionError: ``no_report`` before the first month has been closed.
        """
        rep = self._w.last_report
        if rep is None:
            raise ActionError("no_report", f"no month has been closed yet; the first report comes with time.next_month() at the end of month {self._w.s.month}")
        return rep.to_dict()


class Memory:
    """The agent's own notes (§16): at most ``memory_max_chars`` characters."""

    def __init__(self, api: "Api") -> None:
        self._api = api

    def read(self) -> str:
        """The notes as last written ("" at first)."""
        return self._api.world.s.memory

    def write(self, text: Any) -> dict:
        """Replace the notes with ``str(text)``; longer text is cut with a notice."""
        text = text if isinstance(text, str) else str(text)
        limit = self._api.world.cfg.memory_max_chars
        note = "saved"
        if len(text) > limit:
            note = f"cut to {limit} characters (of {len(text)})"
            text = text[:limit]
        self._api.world.s.memory = text
        return {"ok": True, "chars": len(text), "note": note}


NAMESPACES: dict[str, type[_Namespace]] = {
    "lab": Lab, "recruit": Recruit, "students": Students, "projects": Projects, "papers": Papers,
    "grants": Grants, "field": Field, "events": Events, "time": Time,
}


def _build_registry() -> dict[str, dict[str, CallSpec]]:
    reg: dict[str, dict[str, CallSpec]] = {}
    for ns, cls in NAMESPACES.items():
        calls = {}
        for name, fn in vars(cls).items():
            if name.startswith("_") or not hasattr(fn, "_api_mutating"):
                continue
            params = tuple(
                (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
                for p in fn._api_signature.parameters.values() if p.name != "self"
            )
            calls[name] = CallSpec(name=name, params=params, doc=inspect.getdoc(fn) or "", mutating=fn._api_mutating)
        reg[ns] = calls
    return reg


API_CALLS: dict[str, dict[str, CallSpec]] = _build_registry()
"""namespace → method → :class:`CallSpec`; the registry every front end builds on."""


class Api:
    """The agent API over one :class:`World` (MECHANICS §15).

    Args:
        world: the world to act on.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.lab = Lab(self)
        self.recruit = Recruit(self)
        self.students = Students(self)
        self.projects = Projects(self)
        self.papers = Papers(self)
        self.grants = Grants(self)
        self.field = Field(self)
        self.events = Events(self)
        self.time = Time(self)
        self.memory = Memory(self)
        self._dashboard_cache: tuple | None = None  # (world version key, dashboard) — reads between changes

    def query(self, sql: Any) -> list:
        """Run one read-only SELECT/WITH over the observable database (§14).

        Returns:
            A list of ``{column: value}`` rows, at most ``query_max_rows``; when cut, a last
            row ``{"_truncated": "..."}`` says how many rows there were.

        Raises:
            ActionError: ``sql_error`` for anything but one SELECT/WITH statement.
        """
        from ..observe import observer_for

        return observer_for(self.world).query(sql)

    def call(self, namespace: str, method: str, args: list | tuple = (), kwargs: dict | None = None) -> Any:
        """Dispatch ``namespace.method(*args, **kwargs)`` (also ``query`` and ``memory.*``).

        Raises:
            ActionError: ``unknown_call`` for an unknown namespace or method, otherwise the
                call's own errors.
        """
        kwargs = kwargs or {}
        if not isinstance(args, (list, tuple)) or not isinstance(kwargs, dict):
            raise ActionError("bad_argument", "args must be a list and kwargs a dict")
        if not all(isinstance(k, str) for k in kwargs):
            raise ActionError("bad_argument", "keyword argument names must be strings")
        if not isinstance(namespace, str) or not isinstance(method, str):
            raise ActionError("unknown_call", f"namespace and method must be strings; namespaces: {', '.join(API_CALLS)}, query, memory")
        if namespace == "query" and method in ("", "query"):
            if len(args) + len(kwargs) != 1 or (kwargs and "sql" not in kwargs):
                raise ActionError("bad_argument", "query takes exactly one argument: query(sql)")
            return self.query(*args, **kwargs)
        if namespace == "memory" and method in ("read", "write"):
            try:
                return getattr(self.memory, method)(*args, **kwargs)
            except TypeError as exc:
                raise ActionError("bad_argument", f"memory.{method}: {exc}") from None
        calls = API_CALLS.get(namespace)
        if calls is None:
            raise ActionError("unknown_call", f"no API namespace {namespace!r}; namespaces: {', '.join(API_CALLS)}, query, memory")
        if method not in calls:
            raise ActionError("unknown_call", f"{namespace} has no call {method!r}; calls: {', '.join(calls)}")
        return getattr(getattr(self, namespace), method)(*args, **kwargs)


def replay(config: WorldConfig, seed: int, action_log: list) -> World:
    """Rebuild a career from its action log (``[month, "ns.method", kwargs]`` rows).

    Raises:
        ActionError: a logged call is refused on replay (the log does not fit this world).
    """
    w = World(config, seed)
    api = Api(w)
    for month, name, kwargs in action_log:
        if w.s.month != month:
            raise ActionError("bad_argument", f"action log out of step: {name} logged in month {month}, world is in month {w.s.month}")
        ns, method = name.split(".", 1)
        api.call(ns, method, [], kwargs)
    return w


# ======================================================================== rows
def _attention(w: World) -> dict:
    oversight = people_mod.oversight_tax(w)
    pool = people_mod.attention_pool(w, oversight)
    mentoring = people_mod.mentoring_reserved(w)
    return {
        "base": w.cfg.attention_unlimited_base if w.cfg.unlimited_attention else w.cfg.attention_base,
        "oversight_tax": round(oversight, 2),
        "pool": round(pool, 2),
        "mentoring_reserved": round(mentoring, 2),
        "oneoff_used": round(w.s.oneoff_used, 2),
        "left": round(pool - mentoring - w.s.oneoff_used, 2),
    }


def _last_reports(w: World) -> dict[str, list]:
    out: dict[str, list] = {}
    floor = w.s.month - 2
    for row in reversed(w.s.student_reports):
        if row[1] < floor:
            break
        out.setdefault(row[0], row)
    return out


def _person_row(w: World, p) -> dict:
    return {
        "id": p.id, "name": p.name, "role": p.role, "status": p.status, "arrived_month": p.arrived_month,
        "months_in": max(0, (p.left_month if p.left_month is not None else w.s.month) - p.arrived_month),
        "mentoring_hours": p.mentoring, "papers_accepted": p.papers_accepted,
        "first_author_accepted": p.first_author_accepted, "contract_end": p.contract_end,
    }


def _project_row(w: World, pj) -> dict:
    return {"id": pj.id, "topic": pj.topic, "tier": pj.tier, "status": pj.status,
            "progress_pct": round(min(100.0, 100.0 * pj.progress / pj.work), 1), "members": list(pj.members),
            "monthly_compute": pj.compute, "started_month": pj.started_month, "ended_month": pj.ended_month,
            "draft": pj.draft_id, "scooped_times": pj.scoops}


def _draft_row(d) -> dict:
    return {"id": d.id, "project_id": d.project_id, "topic": d.topic, "tier": d.tier, "status": d.status,
            "created_month": d.created_month, "authors": list(d.authors), "polish_hours": d.polish_hours,
            "revisions": d.revisions, "salvage": d.salvage, "collab": d.collab}


def _submission_row(sub) -> dict:
    return {"id": sub.id, "draft": sub.draft_id, "venue": sub.venue, "status": sub.status,
            "submitted_month": sub.submitted_month,
            "decision_month": sub.decided_month,
            "decision_expected_month": sub.decision_month,
            "reviewer_scores": list(sub.reviewer_scores) if sub.reviewer_scores is not None else None}


def _publication_row(p) -> dict:
    return {"id": p.id, "draft": p.draft_id, "venue": p.venue, "topic": p.topic, "tier": p.tier,
            "published_month": p.published_month, "citations": p.citations, "authors": list(p.authors),
            "collab": p.collab}


def _proposal_row(p) -> dict:
    return {"id": p.id, "call": p.call_id, "agency": p.agency, "topic": p.topic, "status": p.status,
            "hours": p.hours, "attached": list(p.attached), "submitted_month": p.submitted_month,
            "decision_month": p.decision_month}


def _award_row(a) -> dict:
    return {"id": a.id, "agency": a.agency, "total": a.total, "monthly": round(a.monthly, 2),
            "start_month": a.start_month, "end_month": a.end_month}


def _pending_events(w: World) -> list:
    return [{"id": e.id, "kind": e.kind, "arrived_month": e.month, "respond_by_month": e.respond_by,
             "details": dict(e.details)} for e in w.s.events.values() if e.status == "pending"]


def _dashboard(w: World) -> dict:
    s, cfg = w.s, w.cfg
    m = s.month
    burn = w.burn_rate()
    runway = s.budget / burn if burn > 0 else None
    reports = _last_reports(w)
    students = []
    staff = []
    for p in s.people.values():
        if p.status != "active":
            continue
        if p.role in ("phd", "postdoc"):
            rep = reports.get(p.id)
            students.append({
                "id": p.id, "name": p.name, "role": p.role, "months_in": m - p.arrived_month, "stipend": p.stipend,
                "mentoring_hours": p.mentoring, "papers_accepted": p.papers_accepted,
                "last_report_quality": rep[2] if rep else None, "last_meeting_sentiment": rep[3] if rep else None,
                "contract_end": p.contract_end,
            })
        else:
            staff.append({"id": p.id, "name": p.name, "role": p.role, "monthly_cost": p.stipend,
                          "leaving_at_month_end": p.dismiss_at_tick})
    deadlines = [v for v in VENUES if cfg.venues[v]["conference"] and (m % 12) in cfg.venues[v]["deadlines"]]
    notes = []
    if m % 12 == 1:
        notes.append("Recruiting season is open: review applicants, interview, make offers (months 1-3 of the year).")
    if m % 12 in (2, 3):
        notes.append(f"Offer deadline: offers are possible until the end of month {m + (3 - m % 12)}.")
    for v in deadlines:
        notes.append(f"{v} deadline this month.")
    if s.compute_mult != 1.0:
        notes.append(f"Compute price multiplier this month: {s.compute_mult:g}.")
    if m % 12 == cfg.service_tax_month and not cfg.unlimited_attention:
        notes.append(f"Service duty this month: {cfg.service_tax_hours:g} h less attention.")
    open_calls = []
    for c in s.calls.values():
        if c.open_month <= m <= c.close_month:
            a = cfg.agencies[c.agency]
            open_calls.append({"id": c.id, "agency": c.agency, "award": a["award"], "duration_months": a["duration"],
                               "last_month_to_apply": c.close_month})
    return {
        "month": m,
        "label": f"Y{(m - 1) // 12 + 1}M{(m - 1) % 12 + 1}",
        "months_total": cfg.months,
        "finished": s.finished,
        "collapsed": s.collapsed,
        "budget": round(s.budget),
        "est_monthly_burn": round(burn),
        "runway_months": round(runway, 1) if runway is not None else None,
        "attention": _attention(w),
        "staff": staff,
        "lab_standing": w.standing(),
        "students": students,
        "active_projects": [
            {"id": pj.id, "topic": pj.topic, "tier": pj.tier, "progress_pct": round(min(100.0, 100.0 * pj.progress / pj.work), 1),
             "members": list(pj.members), "monthly_compute": pj.compute}
            for pj in s.projects.values() if pj.status == "active"
        ],
        "available_drafts": [
            {"id": d.id, "topic": d.topic, "tier": d.tier, "created": d.created_month, "salvage": d.salvage,
             "collab": d.collab, "polish_hours": d.polish_hours, "revisions": d.revisions}
            for d in s.drafts.values() if d.status == "available"
        ],
        "submissions_under_review": [
            {"id": sub.id, "draft": sub.draft_id, "venue": sub.venue, "decision_expected_month": sub.decision_month}
            for sub in s.submissions.values() if sub.status == "under_review"
        ],
        "proposals_pending": [
            {"id": p.id, "agency": p.agency, "topic": p.topic, "decision_expected_month": p.decision_month}
            for p in s.proposals.values() if p.status == "pending"
        ],
        "active_awards": [
            {"id": a.id, "agency": a.agency, "monthly_income": round(a.monthly, 2), "ends_month": a.end_month}
            for a in s.awards.values() if a.end_month >= m
        ],
        "pending_events": [
            {"id": e["id"], "kind": e["kind"], "respond_by_month": e["respond_by_month"], "details": e["details"]}
            for e in _pending_events(w)
        ],
        "venue_deadlines_this_month": deadlines,
        "open_grant_calls": open_calls,
        "notes": notes,
    }
