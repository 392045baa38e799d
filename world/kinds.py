"""The closed sets of words the world writes: roles, statuses, event kinds, report outcomes.

One home for each set, as a :data:`typing.Literal` alias: the entity fields of
:mod:`world.state` are annotated with them, and every module that produces or compares one
of these words imports the alias, so a misspelt status (``p.status == "actve"``) is a type
error (mypy's ``strict_equality`` / ``comparison-overlap``) instead of a branch that never
runs. Types only: the values are the plain strings saved in JSON, mirrored to SQL and shown
through the API, unchanged.

Report outcome aliases name the ``outcome`` values of the month report's lists (MECHANICS
Decisions 8; :class:`world.report.MonthReport`).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

Role: TypeAlias = Literal["phd", "postdoc", "ra", "manager"]
"""A lab member's role (MECHANICS §5): PhD student, postdoc, research assistant, lab manager."""

StaffRole: TypeAlias = Literal["ra", "manager"]
"""The roles hired directly as staff (``recruit.hire_staff``, MECHANICS §5)."""

PersonStatus: TypeAlias = Literal["active", "quit", "graduated", "contract_ended", "dismissed"]
"""A lab member's status; everything but ``"active"`` means they have left (§5)."""

ApplicantStatus: TypeAlias = Literal["pending", "offered", "accepted", "declined", "expired", "joined"]
"""A PhD applicant's status over a season (§5)."""

ProjectStatus: TypeAlias = Literal["active", "completed", "deadend", "killed"]
"""A research project's status (§6)."""

ProjectEnd: TypeAlias = Literal["completed", "deadend", "killed"]
"""How a project ended: every :data:`ProjectStatus` but ``"active"`` (§6)."""

DraftStatus: TypeAlias = Literal["available", "under_review", "accepted"]
"""A paper draft's status (§7)."""

SubmissionStatus: TypeAlias = Literal["under_review", "accept", "reject", "withdrawn"]
"""A submission's status: under review, decided (accept/reject) or withdrawn (§7)."""

ProposalStatus: TypeAlias = Literal["pending", "funded", "rejected"]
"""A grant proposal's status (§9)."""

EventKind: TypeAlias = Literal["invited_talk", "review_request", "student_crisis", "collaboration_offer"]
"""The kinds of event the PI may answer (§11)."""

EventAnswer: TypeAlias = Literal["accept", "decline", "support", "ignore"]
"""The answers ``events.respond`` takes; which ones an event accepts depends on its kind (§11)."""

EventStatus: TypeAlias = Literal["pending", "accepted", "declined", "supported", "ignored", "expired"]
"""An event's status: pending until answered or lapsed (§11)."""

PostingStatus: TypeAlias = Literal["open", "filled", "unfilled", "paused"]
"""A postdoc search's status (§5)."""

EntityStatus: TypeAlias = Literal[
    PersonStatus,
    ApplicantStatus,
    ProjectStatus,
    DraftStatus,
    SubmissionStatus,
    ProposalStatus,
    EventStatus,
    PostingStatus,
]
"""Any entity's status (for code that handles several kinds of entity alike)."""

DecisionOutcome: TypeAlias = Literal["accept", "reject"]
"""The ``outcome`` of a review decision in the month report (§7)."""

OfferOutcome: TypeAlias = Literal["accepted", "declined", "expired"]
"""The ``outcome`` of a PhD offer (or an applicant never offered) in the month report (§5)."""

SearchOutcome: TypeAlias = Literal["filled", "unfilled", "paused"]
"""The ``outcome`` of a postdoc search in the month report (§5)."""

ProposalOutcome: TypeAlias = Literal["funded", "rejected"]
"""The ``outcome`` of a grant proposal in the month report (§9)."""

ReportList: TypeAlias = Literal[
    "decisions",
    "offers",
    "postdoc_searches",
    "arrivals",
    "graduations",
    "quits",
    "contracts_ended",
    "drafts_completed",
    "dead_ends",
    "scoops",
    "publications",
    "proposals",
    "headlines",
]
"""The month report's list-valued keys, in report order (``World.note_fact`` appends to one;
:data:`world.report.LIST_KINDS` is this tuple) (MECHANICS Decisions 8)."""

LedgerCategory: TypeAlias = Literal[
    "stipend", "compute", "grant_income", "overhead", "travel", "proposal", "recruiting"
]
"""The category of a ledger row (``World.spend``); the month report's money is summed by it (§2)."""

NewsKind: TypeAlias = Literal["field", "funding", "lab", "scoop"]
"""The kind of a news item (``World.add_news``): field activity, funding outlook, the lab's own
news, a scoop (§4, §5, §6)."""

EvalEventKind: TypeAlias = Literal["hire", "quit"]
"""What ``World.eval_event`` records in the hidden evaluation log (§17)."""
