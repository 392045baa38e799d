"""The rows the PI may see, built once (MECHANICS §14, §15).

Every public fact about an entity — a student, an applicant, a project, a draft, a
submission, a publication, a grant call, a proposal, an award, an event — is turned into a
row here and nowhere else. The API's list calls return these rows as dicts; the SQL mirror
(:mod:`world.observe`) stores the same rows, column for column, under the same names
(:data:`COLUMNS`; lists and dicts are stored as JSON text, booleans as 0/1). The dashboard
and its pieces are built here too.

Nothing hidden is ever read into a row: no ability, quality, novelty, feasibility, hotness,
crowding, climate, preferences, morale or numeric reputation (§14 "Hidden").

Foreign keys end in ``_id`` (``draft_id``, ``call_id``, ``project_id``), as in the SQL
mirror and the month report; months end in ``_month``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from . import people as people_mod
from . import rules as rules_mod
from .config import VENUES
from .numbers import round1, round2
from .projects import progress_pct

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World
    from .state import (
        Applicant,
        Award,
        Draft,
        Event,
        GrantCall,
        Person,
        Project,
        Proposal,
        Publication,
        Submission,
    )

COLUMNS: dict[str, tuple[str, ...]] = {
    "students": (
        "id",
        "name",
        "role",
        "status",
        "arrived_month",
        "left_month",
        "months_in",
        "stipend",
        "mentoring_hours",
        "papers_accepted",
        "first_author_accepted",
        "contract_end",
    ),
    "applicants": ("id", "season_year", "pool", "name", "transcript", "letter", "interview", "status"),
    "projects": (
        "id",
        "topic",
        "tier",
        "status",
        "started_month",
        "ended_month",
        "progress_pct",
        "monthly_compute",
        "members",
        "draft_id",
        "scooped_times",
    ),
    "drafts": (
        "id",
        "project_id",
        "topic",
        "tier",
        "status",
        "created_month",
        "authors",
        "polish_hours",
        "revisions",
        "salvage",
        "collab",
    ),
    "submissions": (
        "id",
        "draft_id",
        "venue",
        "status",
        "submitted_month",
        "decision_month",
        "decision_expected_month",
        "reviewer_scores",
    ),
    "publications": ("id", "draft_id", "venue", "topic", "tier", "published_month", "citations", "authors", "collab"),
    "grant_calls": (
        "id",
        "agency",
        "award",
        "duration_months",
        "open_month",
        "last_month_to_apply",
        "decision_delay_months",
    ),
    "proposals": (
        "id",
        "call_id",
        "agency",
        "topic",
        "status",
        "hours",
        "submitted_month",
        "decision_month",
        "attached",
    ),
    "awards": ("id", "agency", "total", "monthly", "start_month", "end_month"),
    "events": ("id", "kind", "status", "arrived_month", "respond_by_month", "details"),
}
"""View name → its column names, in order: the keys of the API's rows and the SQL mirror's columns."""


# ------------------------------------------------------------------------------ entity rows
def student_row(w: World, p: Person) -> dict[str, Any]:
    """A lab member, any role or status (``students.list()``, table ``students``).

    ``months_in`` counts months in the lab up to now or up to leaving; ``stipend`` is the
    monthly pay or cost in USD.
    """
    return {
        "id": p.id,
        "name": p.name,
        "role": p.role,
        "status": p.status,
        "arrived_month": p.arrived_month,
        "left_month": p.left_month,
        "months_in": max(0, (p.left_month if p.left_month is not None else w.s.month) - p.arrived_month),
        "stipend": p.stipend,
        "mentoring_hours": p.mentoring,
        "papers_accepted": p.papers_accepted,
        "first_author_accepted": p.first_author_accepted,
        "contract_end": p.contract_end,
    }


def applicant_row(a: Applicant) -> dict[str, Any]:
    """An applicant (``recruit.applicants()``, table ``applicants``); ``interview`` is None until interviewed."""
    return {
        "id": a.id,
        "season_year": a.season_year,
        "pool": a.pool,
        "name": a.name,
        "transcript": a.transcript,
        "letter": a.letter,
        "interview": a.interview_score if a.interviewed else None,
        "status": a.status,
    }


def project_row(w: World, pj: Project) -> dict[str, Any]:
    """A project (``projects.list()``, table ``projects``); ``draft_id`` is the draft it produced, if any.

    ``scooped_times`` counts the scoops the news has told of: a scoop at the tick of m is news
    at the tick of m + 1, and the PI first learns of it acting in month m + 2 (§6), from the
    news and from this count alike (the world's count, a month ahead, is hidden until then)."""
    untold = sum(1 for _, project_id, _ in w.s.pending_scoop_news if project_id == pj.id)
    return {
        "id": pj.id,
        "topic": pj.topic,
        "tier": pj.tier,
        "status": pj.status,
        "started_month": pj.started_month,
        "ended_month": pj.ended_month,
        "progress_pct": progress_pct(pj),
        "monthly_compute": pj.compute,
        "members": list(pj.members),
        "draft_id": pj.draft_id,
        "scooped_times": pj.scoops - untold,
    }


def draft_row(d: Draft) -> dict[str, Any]:
    """A draft (``papers.drafts()``, table ``drafts``); ``project_id`` is None for a collaboration draft."""
    return {
        "id": d.id,
        "project_id": d.project_id,
        "topic": d.topic,
        "tier": d.tier,
        "status": d.status,
        "created_month": d.created_month,
        "authors": list(d.authors),
        "polish_hours": d.polish_hours,
        "revisions": d.revisions,
        "salvage": d.salvage,
        "collab": d.collab,
    }


def submission_row(sub: Submission) -> dict[str, Any]:
    """A submission (``papers.submissions()``, table ``submissions``).

    ``decision_month`` is the month it was decided or withdrawn (None while under review);
    ``decision_expected_month`` the month the venue's decision is due.
    """
    return {
        "id": sub.id,
        "draft_id": sub.draft_id,
        "venue": sub.venue,
        "status": sub.status,
        "submitted_month": sub.submitted_month,
        "decision_month": sub.decided_month,
        "decision_expected_month": sub.decision_month,
        "reviewer_scores": list(sub.reviewer_scores) if sub.reviewer_scores is not None else None,
    }


def publication_row(p: Publication) -> dict[str, Any]:
    """A publication (``papers.publications()``, table ``publications``; published rows only)."""
    return {
        "id": p.id,
        "draft_id": p.draft_id,
        "venue": p.venue,
        "topic": p.topic,
        "tier": p.tier,
        "published_month": p.published_month,
        "citations": p.citations,
        "authors": list(p.authors),
        "collab": p.collab,
    }


def call_row(w: World, c: GrantCall) -> dict[str, Any]:
    """A grant call (``grants.calls()``, table ``grant_calls``): award in USD, duration and delay in months."""
    a = w.cfg.agencies[c.agency]
    return {
        "id": c.id,
        "agency": c.agency,
        "award": a["award"],
        "duration_months": a["duration"],
        "open_month": c.open_month,
        "last_month_to_apply": c.close_month,
        "decision_delay_months": a["delay"],
    }


def proposal_row(p: Proposal) -> dict[str, Any]:
    """A proposal (``grants.proposals()``, table ``proposals``); ``hours`` of PI attention spent on it."""
    return {
        "id": p.id,
        "call_id": p.call_id,
        "agency": p.agency,
        "topic": p.topic,
        "status": p.status,
        "hours": p.hours,
        "submitted_month": p.submitted_month,
        "decision_month": p.decision_month,
        "attached": list(p.attached),
    }


def award_row(a: Award) -> dict[str, Any]:
    """An award (``grants.awards()``, table ``awards``): total and monthly income in USD."""
    return {
        "id": a.id,
        "agency": a.agency,
        "total": a.total,
        "monthly": round2(a.monthly),
        "start_month": a.start_month,
        "end_month": a.end_month,
    }


def event_row(e: Event) -> dict[str, Any]:
    """An event (``events.pending()``, table ``events``); ``details`` is its public payload."""
    return {
        "id": e.id,
        "kind": e.kind,
        "status": e.status,
        "arrived_month": e.month,
        "respond_by_month": e.respond_by,
        "details": dict(e.details),
    }


# ------------------------------------------------------------------------------ selections
def open_calls(w: World) -> list[GrantCall]:
    """Grant calls open this month, in creation order."""
    m = w.s.month
    return [c for c in w.s.calls.values() if c.open_month <= m <= c.close_month]


def calls_by_month(w: World) -> dict[int, list[GrantCall]]:
    """Every grant call of the career by the months it is open: month → :func:`open_calls`
    of that month (calls in creation order; a month with none is absent)."""
    by_month: dict[int, list[GrantCall]] = {}
    for c in w.s.calls.values():
        for m in range(c.open_month, c.close_month + 1):
            by_month.setdefault(m, []).append(c)
    return by_month


def pending_events(w: World) -> list[Event]:
    """Events awaiting an answer, in arrival order."""
    return [e for e in w.s.events.values() if e.status == "pending"]


def published(w: World) -> list[Publication]:
    """Publications out by this month (accepted papers appear in their publication month)."""
    m = w.s.month
    return [p for p in w.s.publications.values() if p.published_month <= m]


# ------------------------------------------------------------------------------ dashboard
def attention(w: World, parts: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """This month's PI hours (§3): base, oversight_tax, pool, mentoring_reserved, oneoff_used, left.

    ``parts``: ``(oversight, pool, mentoring reserved)`` if already computed for this state.
    """
    oversight, pool, mentoring = people_mod.attention_totals(w) if parts is None else parts
    return {
        "base": w.cfg.attention_unlimited_base if w.cfg.unlimited_attention else w.cfg.attention_base,
        "oversight_tax": round2(oversight),
        "pool": round2(pool),
        "mentoring_reserved": round2(mentoring),
        "oneoff_used": round2(w.s.oneoff_used),
        "left": round2(pool - mentoring - w.s.oneoff_used),
    }


def _last_reports(w: World) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    floor = w.s.month - 2
    for row in reversed(w.s.student_reports):
        if row[1] < floor:
            break
        out.setdefault(row[0], row)
    return out


def dashboard_notes(w: World, deadlines: list[str]) -> list[str]:
    """The dashboard's notes: recruiting season, offer deadline, venue deadlines, compute price, service duty."""
    s, cfg = w.s, w.cfg
    m = s.month
    notes = []
    if m % 12 == rules_mod.SEASON_OPEN_MONTH:
        notes.append(
            "Recruiting season is open: review applicants, interview, make offers "
            f"(months {rules_mod.month_span(rules_mod.OFFER_MONTHS)} of the year)."
        )
    if m % 12 in rules_mod.OFFER_MONTHS and m % 12 != rules_mod.SEASON_OPEN_MONTH:
        notes.append(
            f"Offer deadline: offers are possible until the end of month {m + (rules_mod.OFFER_MONTHS[-1] - m % 12)}."
        )
    for v in deadlines:
        notes.append(f"{v} deadline this month.")
    if s.compute_mult != 1.0:
        notes.append(f"Compute price multiplier this month: {s.compute_mult:g}.")
    if m % 12 == cfg.service_tax_month and not cfg.unlimited_attention:
        notes.append(f"Service duty this month: {cfg.service_tax_hours:g} h less attention.")
    return notes


def venue_deadlines(w: World) -> list[str]:
    """Conferences whose submission deadline falls in this month."""
    cfg, m = w.cfg, w.s.month
    return [v for v in VENUES if cfg.venues[v]["conference"] and (m % 12) in cfg.venues[v]["deadlines"]]


class MonthParts(NamedTuple):
    """The pieces of a dashboard that only the tick changes (see :func:`month_parts`).

    Attributes:
        label: ``Y1M1`` ...
        deadlines: the conferences whose deadline falls this month.
        notes: the dashboard's notes.
        calls: the grant calls open this month (:func:`open_calls`; ``grants.calls()``).
        open_calls: the rows of ``open_grant_calls`` (of ``calls``).
        reports: person id → their last monthly report row (of the last two months).
    """

    label: str
    deadlines: list[str]
    notes: list[str]
    calls: list[GrantCall]
    open_calls: list[dict[str, Any]]
    reports: dict[str, list[Any]]


def month_parts(w: World, calls: list[GrantCall] | None = None) -> MonthParts:
    """The month's :class:`MonthParts`, built afresh. They are a function of the month, the
    compute price, the grant calls and the monthly reports, which only the tick and the
    start change. ``calls``: :func:`open_calls` if the caller has them
    (the API, from :func:`calls_by_month`)."""
    cfg, m = w.cfg, w.s.month
    deadlines = venue_deadlines(w)
    if calls is None:
        calls = open_calls(w)
    return MonthParts(
        label=f"Y{(m - 1) // 12 + 1}M{(m - 1) % 12 + 1}",
        deadlines=deadlines,
        notes=dashboard_notes(w, deadlines),
        calls=calls,
        open_calls=[
            {
                "id": c.id,
                "agency": c.agency,
                "award": cfg.agencies[c.agency]["award"],
                "duration_months": cfg.agencies[c.agency]["duration"],
                "last_month_to_apply": c.close_month,
            }
            for c in calls  # the call_row fields a dashboard shows
        ],
        reports=_last_reports(w),
    )


def dashboard_money(w: World) -> tuple[int, int, float | None]:
    """The dashboard's ``budget``, ``est_monthly_burn`` (USD, rounded) and ``runway_months``
    (months to one decimal, None when the burn is ≤ 0) (§2)."""
    s = w.s
    burn = w.burn_rate()
    return round(s.budget), round(burn), round1(s.budget / burn) if burn > 0 else None


def dashboard_people(w: World, reports: dict[str, list[Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The dashboard's ``students`` (active PhD students and postdocs) and ``staff`` (active
    RAs and lab managers) rows; ``reports`` as in :attr:`MonthParts.reports`."""
    m = w.s.month
    students = []
    staff = []
    for p in w.s.people.values():
        if p.status != "active":
            continue
        if p.role in ("phd", "postdoc"):
            rep = reports.get(p.id)
            students.append(
                {
                    "id": p.id,
                    "name": p.name,
                    "role": p.role,
                    "months_in": m - p.arrived_month,
                    "stipend": p.stipend,
                    "mentoring_hours": p.mentoring,
                    "papers_accepted": p.papers_accepted,
                    "last_report_quality": rep[2] if rep else None,
                    "last_meeting_sentiment": rep[3] if rep else None,
                    "contract_end": p.contract_end,
                }
            )
        else:
            staff.append(
                {
                    "id": p.id,
                    "name": p.name,
                    "role": p.role,
                    "monthly_cost": p.stipend,
                    "leaving_at_month_end": p.dismiss_at_tick,
                }
            )
    return students, staff


def dashboard_projects(w: World, active: list[Project] | None = None) -> list[dict[str, Any]]:
    """The dashboard's ``active_projects`` rows (``active``: the active projects in creation
    order, if the caller keeps them)."""
    if active is None:
        active = [pj for pj in w.s.projects.values() if pj.status == "active"]
    return [
        {
            "id": pj.id,
            "topic": pj.topic,
            "tier": pj.tier,
            "progress_pct": progress_pct(pj),
            "members": list(pj.members),
            "monthly_compute": pj.compute,
        }
        for pj in active
    ]


def dashboard_drafts(w: World) -> list[dict[str, Any]]:
    """The dashboard's ``available_drafts`` rows."""
    return [
        {
            "id": d.id,
            "topic": d.topic,
            "tier": d.tier,
            "created": d.created_month,
            "salvage": d.salvage,
            "collab": d.collab,
            "polish_hours": d.polish_hours,
            "revisions": d.revisions,
        }
        for d in w.s.drafts.values()
        if d.status == "available"
    ]


def dashboard_submissions(w: World, under_review: list[Submission] | None = None) -> list[dict[str, Any]]:
    """The dashboard's ``submissions_under_review`` rows (``under_review``: those submissions
    in creation order, if the caller keeps them)."""
    if under_review is None:
        under_review = [sub for sub in w.s.submissions.values() if sub.status == "under_review"]
    return [
        {"id": sub.id, "draft_id": sub.draft_id, "venue": sub.venue, "decision_expected_month": sub.decision_month}
        for sub in under_review
    ]


def dashboard_proposals(w: World, pending: list[Proposal] | None = None) -> list[dict[str, Any]]:
    """The dashboard's ``proposals_pending`` rows (``pending``: those proposals in creation
    order, if the caller keeps them)."""
    if pending is None:
        pending = [p for p in w.s.proposals.values() if p.status == "pending"]
    return [
        {"id": p.id, "agency": p.agency, "topic": p.topic, "decision_expected_month": p.decision_month} for p in pending
    ]


def dashboard_awards(w: World) -> list[dict[str, Any]]:
    """The dashboard's ``active_awards`` rows (awards not ended before this month)."""
    m = w.s.month
    return [
        {"id": a.id, "agency": a.agency, "monthly_income": round2(a.monthly), "ends_month": a.end_month}
        for a in w.s.awards.values()
        if a.end_month >= m
    ]


def dashboard_events(w: World, pending: list[Event] | None = None) -> list[dict[str, Any]]:
    """The dashboard's ``pending_events`` rows (``pending``: :func:`pending_events` if the caller keeps them)."""
    return [
        {"id": e.id, "kind": e.kind, "respond_by_month": e.respond_by, "details": dict(e.details)}
        for e in (pending if pending is not None else pending_events(w))
    ]


def assemble_dashboard(
    w: World,
    parts: MonthParts,
    money: tuple[int, int, float | None],
    attention_row: dict[str, Any],
    people: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    projects: list[dict[str, Any]],
    drafts: list[dict[str, Any]],
    submissions: list[dict[str, Any]],
    proposals: list[dict[str, Any]],
    awards: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> dict[str, Any]:
    """The dashboard dict from its pieces (the ``dashboard_*`` builders, :func:`attention` and
    the month's :class:`MonthParts`), keys in their fixed order; it shares the pieces' lists."""
    s = w.s
    budget, burn, runway = money
    students, staff = people
    return {
        "month": s.month,
        "label": parts.label,
        "months_total": w.cfg.months,
        "finished": s.finished,
        "collapsed": s.collapsed,
        "budget": budget,
        "est_monthly_burn": burn,
        "runway_months": runway,
        "attention": attention_row,
        "staff": staff,
        "lab_standing": w.standing(),
        "students": students,
        "active_projects": projects,
        "available_drafts": drafts,
        "submissions_under_review": submissions,
        "proposals_pending": proposals,
        "active_awards": awards,
        "pending_events": events,
        "venue_deadlines_this_month": parts.deadlines,
        "open_grant_calls": parts.open_calls,
        "notes": parts.notes,
    }


def dashboard(
    w: World, attention_parts: tuple[float, float, float] | None = None, parts: MonthParts | None = None
) -> dict[str, Any]:
    """Everything on the PI's desk this month (``lab.dashboard()``, §15): a fresh dict the caller
    may keep (unless ``parts`` is given: then it shares their lists and rows).

    ``attention_parts``: ``(oversight, pool, mentoring reserved)`` hours if already computed
    for this state (see :func:`attention`); ``parts``: this month's :class:`MonthParts` of
    ``w`` if already built."""
    if parts is None:
        parts = month_parts(w)
    return assemble_dashboard(
        w,
        parts,
        dashboard_money(w),
        attention(w, attention_parts),
        dashboard_people(w, parts.reports),
        dashboard_projects(w),
        dashboard_drafts(w),
        dashboard_submissions(w),
        dashboard_proposals(w),
        dashboard_awards(w),
        dashboard_events(w),
    )
