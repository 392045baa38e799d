"""The whole world as plain dataclasses that round-trip through JSON-able data.

Every entity holds only str/int/float/bool/None and lists/dicts of those, so
``to_dict``/``from_dict`` are shallow copies and a saved world is bit-identical after a
load. Hidden values (ability, quality, feasibility, ...) live here next to visible ones;
only :mod:`world.observe` and :mod:`world.api` decide what the PI may see.
"""

from __future__ import annotations

import dataclasses
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from .kinds import (
    ApplicantStatus,
    DraftStatus,
    EventKind,
    EventStatus,
    PersonStatus,
    PostingStatus,
    ProjectStatus,
    ProposalStatus,
    Role,
    SubmissionStatus,
)

T = TypeVar("T", bound="Entity")


class Entity:
    """Mixin: shallow, JSON-able conversion of a flat dataclass."""

    table: ClassVar[str] = ""
    _names: ClassVar[tuple[str, ...]] = ()  # field names in order, filled per class below
    _name_set: ClassVar[frozenset[str]] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        """All fields as JSON-able data (lists and dicts deep-copied)."""
        return {name: deepcopy(getattr(self, name)) for name in type(self)._names}

    def view(self) -> dict[str, Any]:
        """All fields by name, NOT copied: read it at once (for serialising), never keep it."""
        own = self.__dict__
        if own.keys() == type(self)._name_set:  # exactly the fields: the instance dict itself
            return own
        return {name: getattr(self, name) for name in type(self)._names}

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any], *, copy: bool = True) -> T:
        """Inverse of :meth:`to_dict`; unknown keys raise ``TypeError``.

        ``copy=False`` takes ``data``'s lists and dicts over instead of copying them (for
        data nobody else holds, e.g. just parsed from a file); ``data`` itself then becomes
        the entity's attribute dict when it holds exactly the fields in their order (what
        :meth:`to_dict` and :meth:`view` give), so :meth:`view` returns that very dict.
        """
        if not copy and type(data) is dict and tuple(data) == cls._names:
            entity = cls.__new__(cls)
            entity.__dict__ = data  # what __init__ would build, field by field
            return entity
        return cls(**(deepcopy(data) if copy else data))


@dataclass
class Person(Entity):
    """A lab member: PhD student, postdoc, research assistant or lab manager (MECHANICS §5).

    Hidden traits: ability, speed, resilience, independence, growth, skill, morale (0..1
    scales except speed and growth, which are multipliers around 1).
    """

    table: ClassVar[str] = "students"
    id: str
    name: str
    role: Role
    arrived_month: int
    ability: float
    speed: float
    resilience: float
    independence: float
    growth: float
    skill: float
    morale: float
    stipend: float  # USD/month
    status: PersonStatus = "active"
    left_month: int | None = None
    pool: str | None = None
    applicant_id: str | None = None
    mentoring: float = 0.0  # standing hours/month
    papers_accepted: int = 0
    first_author_accepted: int = 0
    contract_end: int | None = None
    impulse: float = 0.0  # queued morale impulses for this month's researcher step
    dismiss_at_tick: bool = False  # Decisions §1: dismissal takes effect at the next tick


@dataclass
class Applicant(Entity):
    """A PhD applicant of one season (MECHANICS §5)."""

    table: ClassVar[str] = "applicants"
    id: str
    season_year: int
    pool: str
    name: str
    ability: float
    speed: float
    resilience: float
    independence: float
    growth: float
    transcript: float
    letter: float
    interview_score: float  # hidden until interviewed
    interviewed: bool = False
    status: ApplicantStatus = "pending"


@dataclass
class Project(Entity):
    """A research project (MECHANICS §6). ``progress`` and ``work`` are in work units."""

    table: ClassVar[str] = "projects"
    id: str
    topic: str
    tier: int
    members: list[Any]
    compute: float  # units/month
    started_month: int
    work: float
    feasible: bool
    novelty: float
    status: ProjectStatus = "active"
    ended_month: int | None = None
    progress: float = 0.0
    ticks: int = 0
    compute_sum: float = 0.0
    ka_sum: float = 0.0  # effort-weighted sum of mean skill×ability
    ka_weight: float = 0.0
    scoops: int = 0
    draft_id: str | None = None


@dataclass
class Draft(Entity):
    """A paper draft (MECHANICS §6-7). ``q`` is the latent quality (hidden)."""

    table: ClassVar[str] = "drafts"
    id: str
    project_id: str | None
    topic: str
    tier: int
    q: float
    created_month: int
    authors: list[Any]
    salvage: bool = False
    collab: bool = False
    status: DraftStatus = "available"
    polish_hours: float = 0.0
    revisions: int = 0
    revised_month: int | None = None
    rejected_venues: list[Any] = field(default_factory=list)

    def q_eff(self, polish_gain: float, polish_cap: float) -> float:
        """Effective quality q + gain × min(polish, cap)/cap (MECHANICS §7)."""
        return self.q + polish_gain * min(self.polish_hours, polish_cap) / polish_cap


@dataclass
class Submission(Entity):
    """A draft under review at a venue (MECHANICS §7)."""

    table: ClassVar[str] = "submissions"
    id: str
    draft_id: str
    venue: str
    submitted_month: int
    decision_month: int
    status: SubmissionStatus = "under_review"
    reviewer_scores: list[Any] | None = None
    score: float | None = None  # hidden review score
    decided_month: int | None = None


@dataclass
class Publication(Entity):
    """An accepted paper; it earns citations from its publication month on (MECHANICS §7-8)."""

    table: ClassVar[str] = "publications"
    id: str
    draft_id: str
    venue: str
    topic: str
    tier: int
    q: float
    authors: list[Any]
    collab: bool
    accepted_month: int
    published_month: int
    citations: int = 0


@dataclass
class GrantCall(Entity):
    """A funding call (MECHANICS §9). TIF's rolling call is open every month."""

    table: ClassVar[str] = "grant_calls"
    id: str
    agency: str
    open_month: int
    close_month: int


@dataclass
class Proposal(Entity):
    """A grant proposal with its frozen (hidden) quality (MECHANICS §9)."""

    table: ClassVar[str] = "proposals"
    id: str
    call_id: str
    agency: str
    topic: str
    hours: float
    attached: list[Any]
    quality: float
    submitted_month: int
    decision_month: int
    status: ProposalStatus = "pending"


@dataclass
class Award(Entity):
    """A funded grant paying ``monthly`` USD from start to end month inclusive (MECHANICS §9)."""

    table: ClassVar[str] = "awards"
    id: str
    agency: str
    total: float
    monthly: float
    start_month: int
    end_month: int
    proposal_id: str


@dataclass
class Event(Entity):
    """An event the PI may answer (MECHANICS §11)."""

    table: ClassVar[str] = "events"
    id: str
    kind: EventKind
    month: int
    respond_by: int
    details: dict[str, Any]
    status: EventStatus = "pending"
    answered_month: int | None = None


@dataclass
class Posting(Entity):
    """A postdoc search (MECHANICS §5)."""

    table: ClassVar[str] = "postings"
    id: str
    month: int
    resolve_month: int
    status: PostingStatus = "open"
    person_id: str | None = None


ENTITY_TYPES: dict[str, type[Entity]] = {
    "people": Person,
    "applicants": Applicant,
    "projects": Project,
    "drafts": Draft,
    "submissions": Submission,
    "publications": Publication,
    "calls": GrantCall,
    "proposals": Proposal,
    "awards": Award,
    "events": Event,
    "postings": Posting,
}
"""Entity collections of :class:`State`, each a dict id → entity in creation order."""

for _etype in ENTITY_TYPES.values():
    assert dataclasses.is_dataclass(_etype)
    _etype._names = tuple(f.name for f in dataclasses.fields(_etype))
    _etype._name_set = frozenset(_etype._names)


@dataclass
class State:
    """Everything that changes over a career, hidden values included.

    Money in USD, time in months (1-based), attention in hours.
    """

    month: int = 1
    finished: bool = False
    collapsed: bool = False
    collapse_month: int | None = None
    budget: float = 0.0
    reputation: float = 2.0
    alumni: int = 0
    oneoff_used: float = 0.0  # hours spent on one-off actions this month
    # field (§4)
    trajectory: list[Any] = field(default_factory=list)  # [index][topic] hotness, index 0 = initial
    crowding: list[Any] = field(default_factory=list)  # per topic
    climate: float = 1.0
    phi: float = 0.0
    agency_prefs: dict[str, Any] = field(default_factory=dict)  # agency -> [per topic]
    compute_mult: float = 1.0
    shock_until: int = 0  # last month of the running compute price shock (0 = none)
    # entities
    people: dict[str, Person] = field(default_factory=dict)
    applicants: dict[str, Applicant] = field(default_factory=dict)
    projects: dict[str, Project] = field(default_factory=dict)
    drafts: dict[str, Draft] = field(default_factory=dict)
    submissions: dict[str, Submission] = field(default_factory=dict)
    publications: dict[str, Publication] = field(default_factory=dict)
    calls: dict[str, GrantCall] = field(default_factory=dict)
    proposals: dict[str, Proposal] = field(default_factory=dict)
    awards: dict[str, Award] = field(default_factory=dict)
    events: dict[str, Event] = field(default_factory=dict)
    postings: dict[str, Posting] = field(default_factory=dict)
    counters: dict[str, Any] = field(default_factory=dict)  # id prefix -> last number used
    # logs visible to the PI (append-only)
    ledger: list[Any] = field(default_factory=list)  # [month, category, amount, note]
    news: list[Any] = field(default_factory=list)  # [month, kind, topic, text]
    preprints: list[Any] = field(default_factory=list)  # [month, topic, count]
    conference_reports: list[Any] = field(default_factory=list)  # [month, venue, topic, count]
    citations_monthly: list[Any] = field(default_factory=list)  # [pub_id, month, count]
    lab_monthly: list[Any] = field(default_factory=list)  # rows, see engine.record_month
    # bookkeeping
    rep_impulses: list[Any] = field(default_factory=list)  # [source, value] collected this month
    pending_scoop_news: list[Any] = field(default_factory=list)  # [month_due, project_id, topic]
    collab_reservations: list[Any] = field(default_factory=list)  # [month, event_id]
    collab_deliveries: list[Any] = field(default_factory=list)  # [tick_month, event_id, topic]
    boosted_years: list[Any] = field(default_factory=list)  # season years with a 1.15 pool boost
    last_conference_month: int | None = None
    last_tif_month: int | None = None
    fel_funded: bool = False
    hire_counter: int = 0
    attention_used_month: float = 0.0  # hours used this month (for stats)
    action_log: list[Any] = field(default_factory=list)  # [month, "ns.method", args, kwargs]
    memory: str = ""  # the agent's notes (harness, §16)
    eval_log: dict[str, Any] = field(default_factory=dict)  # hidden evaluation log (§17)
    student_reports: list[Any] = field(default_factory=list)  # [person_id, month, report_quality, sentiment]

    def next_id(self, prefix: str, width: int = 3) -> str:
        """The next sequential id for ``prefix`` (``"PJ"`` → ``"PJ001"``) (MECHANICS §13)."""
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return prefix + str(n).zfill(width)  # f"{prefix}{n:0{width}d}" for n >= 1, at a third of the cost

    def to_dict(self) -> dict[str, Any]:
        """JSON-able copy of the whole state."""
        out: dict[str, Any] = {}
        for name in _STATE_NAMES:
            value = getattr(self, name)
            if name in ENTITY_TYPES:
                out[name] = [e.to_dict() for e in value.values()]
            else:
                out[name] = deepcopy(value)
        return out

    def view(self) -> dict[str, Any]:
        """The same data as :meth:`to_dict` but NOT copied (lists and dicts are the live
        ones): serialise or compare it at once and never modify or keep it."""
        out: dict[str, Any] = {}
        for name in _STATE_NAMES:
            value = getattr(self, name)
            out[name] = [e.view() for e in value.values()] if name in ENTITY_TYPES else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, copy: bool = True) -> State:
        """Inverse of :meth:`to_dict`.

        ``copy=False`` takes ``data``'s lists and dicts over instead of copying them (for
        data nobody else holds, e.g. just parsed from a file).
        """
        kwargs: dict[str, Any] = {}
        for name in _STATE_NAMES:
            if name not in data:
                continue
            value = data[name]
            if name in ENTITY_TYPES:
                etype = ENTITY_TYPES[name]
                kwargs[name] = {d["id"]: etype.from_dict(d, copy=copy) for d in value}
            else:
                kwargs[name] = deepcopy(value) if copy else value
        return cls(**kwargs)


_STATE_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(State))
