"""The month report: what the PI learned in the month the tick closed (MECHANICS Decisions 8).

:meth:`world.engine.World.next_month` opens a :class:`MonthReport` before the tick's first
step; the subsystem modules append each fact as it happens (through
:meth:`World.note_fact`), and the engine fills in the totals (citations, money, flags,
headlines) once the tick and the opening of the next month are done. Nothing is diffed
and nothing hidden is written: reviewer scores, outcomes, names, roles, topics, tiers,
ledger amounts and news texts are all things a real PI learns; ability, quality,
feasibility, novelty, hotness, morale, proposal quality and review scores are not.

The report covers the tick that closes ``month`` *and* the opening of the next month (the
events that arrived and the news written then), i.e. everything new on the PI's desk
between one ``time.next_month()`` and the next.
"""

from __future__ import annotations

import functools
from typing import Any, get_args

from .kinds import ReportList
from .numbers import round2

LIST_KINDS: tuple[ReportList, ...] = get_args(ReportList)
"""The report's list-valued keys, in order; :meth:`World.note_fact` appends to one of them."""


@functools.lru_cache(maxsize=1024)  # a career asks for the same few dozen labels (strings: shared safely)
def month_label(month: int) -> str:
    """``"Y<year>M<month of year>"`` for a 1-based month (month 13 → ``"Y2M1"``)."""
    return f"Y{(month - 1) // 12 + 1}M{(month - 1) % 12 + 1}"


def _plain(x: Any) -> Any:
    """A copy of plain JSON-like data (dicts, lists, scalars)."""
    t = type(x)
    if t is dict:
        return {k: _plain(v) for k, v in x.items()}
    if t is list:
        return [_plain(v) for v in x]
    return x


class MonthReport:
    """What happened in the month ``month`` closed (all public facts; MECHANICS Decisions 8).

    Attributes (each list holds plain dicts; money in USD):
        month: the closed month (1-based); label: its ``Y#M#`` label.
        decisions: ``{submission_id, draft_id, venue, outcome ("accept"/"reject"),
            reviewer_scores}`` for each review decided at the tick (§7).
        offers: ``{applicant_id, name, pool, outcome}``, outcome ``"accepted"``/``"declined"``
            for offered applicants and ``"expired"`` for this season's applicants never
            offered, at the tick of the month ≡ 3 (§5). The PI is told only the offers made
            and the pool's counts (:func:`pi_view`).
        postdoc_searches: ``{posting_id, outcome ("filled"/"unfilled"/"paused"), postdoc_id}``
            (``postdoc_id`` ``None`` unless filled) (§5).
        arrivals: ``{id, name, role, arrived_month}``: a filled postdoc search (arrives now)
            or an accepted PhD (created at the tick of month ≡ 4, arrives the next month).
        graduations: ``{id, name}``; quits: ``{id, name, role}``; contracts_ended:
            ``{id, name}`` (postdocs whose contract ran out) (§5).
        drafts_completed: ``{project_id, draft_id, topic, tier, collab}``: completed
            projects' drafts, and collaboration drafts (``project_id`` ``None``,
            ``collab`` true) (§6, §11).
        dead_ends: ``{project_id, topic, tier, salvage_draft_id}`` (the salvage draft's id,
            or ``None``) (§6).
        scoops: ``{project_id, topic}`` for each scoop *revealed* by this month's news (the
            scoop itself happened a month earlier) (§6).
        publications: ``{publication_id, draft_id, venue, topic, tier}`` for papers whose
            publication month is ``month`` (journals: the decision month; conferences
            later) (§7).
        proposals: ``{proposal_id, call_id, agency, topic, outcome ("funded"/"rejected"),
            award_id, total}`` (``award_id``/``total`` ``None`` when rejected) (§9).
        citations: ``{earned, total, by_publication {publication_id: n}}``: citations drawn
            this month, the lab's total after them, and the non-zero draws (§8).
        money: ``{by_category {category: signed USD}, inflow, outflow, net, budget}`` over
            every ledger row dated ``month`` (actions during the month and the tick);
            ``inflow``/``outflow`` are non-negative sums, ``net = inflow − outflow``,
            ``budget`` the cash after the tick (§2).
        events: ``{arrived: [{id, kind, month, respond_by_month, details}], expired:
            [{id, kind, status}]}``: events that opened with the next month, and events
            that lapsed unanswered at the tick (crises are then ``"ignored"``) (§11).
        headlines: news texts written during the tick and at the next month's opening
            (§4, §6, §5).
        collapsed: the budget ended the month below zero (the career is over); finished:
            the career is over (collapse or horizon) (§1, §2).
    """

    FIELDS: tuple[str, ...] = ("month", "label", *LIST_KINDS, "citations", "money", "events", "collapsed", "finished")
    """The report's keys, in order (:meth:`to_dict`)."""

    __slots__ = ("month", "label", *LIST_KINDS, "citations", "_money", "_money_of", "events", "collapsed", "finished")

    month: int
    label: str
    decisions: list[dict[str, Any]]
    offers: list[dict[str, Any]]
    postdoc_searches: list[dict[str, Any]]
    arrivals: list[dict[str, Any]]
    graduations: list[dict[str, Any]]
    quits: list[dict[str, Any]]
    contracts_ended: list[dict[str, Any]]
    drafts_completed: list[dict[str, Any]]
    dead_ends: list[dict[str, Any]]
    scoops: list[dict[str, Any]]
    publications: list[dict[str, Any]]
    proposals: list[dict[str, Any]]
    headlines: list[str]
    citations: dict[str, Any]
    _money: dict[str, Any] | None
    _money_of: tuple[list[list[Any]], int, float] | None
    events: dict[str, Any]
    collapsed: bool
    finished: bool

    def __init__(self, month: int, label: str = "", **values: Any) -> None:
        """An empty report of ``month`` (facts are appended during the tick); ``values``
        sets any other attribute (as :meth:`from_dict` does).

        Raises:
            TypeError: an unknown attribute name.
        """
        self.month = month
        self.label = label or month_label(month)
        self.decisions = []
        self.offers = []
        self.postdoc_searches = []
        self.arrivals = []
        self.graduations = []
        self.quits = []
        self.contracts_ended = []
        self.drafts_completed = []
        self.dead_ends = []
        self.scoops = []
        self.publications = []
        self.proposals = []
        self.headlines = []
        self.citations = {"earned": 0, "total": 0, "by_publication": {}}
        self._money = {"by_category": {}, "inflow": 0.0, "outflow": 0.0, "net": 0.0, "budget": 0.0}
        self._money_of = None
        self.events = {"arrived": [], "expired": []}
        self.collapsed = False
        self.finished = False
        for k, v in values.items():  # none when the tick opens a report
            if k not in self.FIELDS:
                raise TypeError(f"MonthReport has no field {k!r}; fields: {', '.join(self.FIELDS)}")
            setattr(self, k, v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MonthReport) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"MonthReport(month={self.month}, label={self.label!r})"

    def to_dict(self) -> dict[str, Any]:
        """The report as a fresh JSON-able dict with every key of the contract (lists may be empty)."""
        return {k: _plain(getattr(self, k)) for k in self.FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MonthReport:
        """Inverse of :meth:`to_dict` (unknown keys are ignored; missing ones take defaults).

        Raises:
            ValueError: ``data`` is not a dict with an integer ``month``.
        """
        if not isinstance(data, dict) or not isinstance(data.get("month"), int):
            raise ValueError("a month report needs a dict with an integer 'month'")
        return cls(**{k: _plain(v) for k, v in data.items() if k in cls.FIELDS})

    @property
    def money(self) -> dict[str, Any]:
        """The ``money`` block (see the class doc); built on first read when the tick deferred
        it (:meth:`money_from`)."""
        money = self._money
        if money is None:
            assert self._money_of is not None
            ledger, month, budget = self._money_of
            money = self._money = money_of_month(ledger, month, budget)
            self._money_of = None
        return money

    @money.setter
    def money(self, value: dict[str, Any]) -> None:
        self._money = value
        self._money_of = None

    def money_from(self, ledger: list[list[Any]], month: int, budget: float) -> None:
        """Make ``money`` :func:`money_of_month` ``(ledger, month, budget)``, built when first
        read: a sweep's runner never reads the reports, and nothing dated ``month`` is added to
        the append-only ledger once the tick that closes it is over (later rows are dated
        later; the sum skips them), so the block built later is the one built now."""
        self._money = None
        self._money_of = (ledger, month, budget)

    def has_news(self) -> bool:
        """True when anything but money and headlines happened."""
        return any(getattr(self, k) for k in LIST_KINDS if k != "headlines") or bool(
            self.citations["earned"] or self.events["arrived"] or self.events["expired"] or self.finished
        )


def pi_view(report: dict[str, Any]) -> dict[str, Any]:
    """A month report (:meth:`MonthReport.to_dict`) as the PI is told it: what
    ``time.next_month()["report"]`` and ``time.last_report()`` return and the harness's month
    message shows (the one home of this rule; MECHANICS Decisions 8).

    ``offers`` keeps the PhD offers the PI made and their answers; the season's applicants
    never offered a place (outcome ``"expired"``: their applications lapsed) are counted in
    ``applicant_pool`` ``{applicants, offered, never_offered}`` (after ``offers``), set in the
    month the season's offers are answered and ``None`` otherwise. Every other key is as
    :meth:`MonthReport.to_dict` has it. A report already in this form is returned as it is.
    The applicants themselves stay reachable through ``recruit.applicants()`` and
    ``query("select * from applicants")``.
    """
    if "applicant_pool" in report:
        return report
    out: dict[str, Any] = {}
    for key, value in report.items():
        if key != "offers":
            out[key] = value
            continue
        offers = list(value or [])
        made = [o for o in offers if not isinstance(o, dict) or o.get("outcome") != "expired"]
        out["offers"] = made
        out["applicant_pool"] = (
            {"applicants": len(offers), "offered": len(made), "never_offered": len(offers) - len(made)}
            if offers
            else None
        )
    return out


def money_of_month(ledger: list[list[Any]], month: int, budget: float) -> dict[str, Any]:
    """The ``money`` block over the ledger rows dated ``month`` (the ledger is append-only and
    dated in order, so only its tail is read).

    Args:
        ledger: ``[month, category, amount (signed USD), note]`` rows.
        month: the month to sum.
        budget: the cash after the tick (USD).
    """
    by_category: dict[str, float] = {}
    inflow = outflow = 0.0
    for i in range(len(ledger) - 1, -1, -1):
        row = ledger[i]
        if row[0] != month:
            if row[0] < month:
                break
            continue
        amount = row[2]
        by_category[row[1]] = by_category.get(row[1], 0.0) + amount
        if amount >= 0:
            inflow += amount
        else:
            outflow -= amount
    if not by_category:  # no row dated ``month`` (an idle lab): every sum is 0.0, as round gives it
        return {"by_category": {}, "inflow": 0.0, "outflow": 0.0, "net": 0.0, "budget": round2(budget)}
    ordered = {k: round2(by_category[k]) for k in sorted(by_category)}
    return {
        "by_category": ordered,
        "inflow": round2(inflow),
        "outflow": round2(outflow),
        "net": round2(inflow - outflow),
        "budget": round2(budget),
    }


__all__ = ["LIST_KINDS", "MonthReport", "money_of_month", "month_label", "pi_view"]
