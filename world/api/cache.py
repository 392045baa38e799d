"""What the API keeps between changes: read results by the areas of the state they read.

Every API call declares its **areas** (:func:`world.api.registry.api_call`): a reading call
the areas its result depends on, a changing call the areas it may change. Between two
changes made through the same :class:`~world.api.Api`, a kept result stays exact; a
change drops only the results of the areas it touched (a proposal does not rebuild the
dashboard's people rows), and anything else that moves the world — the tick, another
``Api`` on the same world, a replaced state — drops everything (the world's ``version``
moves with every logged change and every tick).

Areas (the PI-visible state each one covers):

* ``people``: lab members (who is active, roles, pay, mentoring hours, contracts, leaving);
* ``hours``: this month's one-off PI hours used;
* ``money``: the budget and the ledger;
* ``projects``, ``drafts``, ``submissions``, ``proposals``, ``events``, ``applicants``,
  ``postings``: those entities and their visible fields.

What only the tick changes (the month, awards, publications, news, reports, reputation,
grant calls) has no area: a read of it is kept until the world moves by other means than
this API's own changes. ``tests/world/test_read_cache.py`` compares every kept read with one
built afresh after random calls and along the reference policies' careers.
"""

from __future__ import annotations

from typing import Any

AREAS = (
    "people",
    "hours",
    "money",
    "projects",
    "drafts",
    "submissions",
    "proposals",
    "events",
    "applicants",
    "postings",
)
"""The areas of the PI-visible state a call may read or change (see the module doc)."""

DASHBOARD_AREAS = ("people", "hours", "money", "projects", "drafts", "submissions", "proposals", "events")
"""The areas ``lab.dashboard()`` reads."""

SECTIONS = (
    "dashboard",
    "money",
    "attention",
    "people",
    "projects",
    "drafts",
    "submissions",
    "proposals",
    "awards",
    "events",
    "attention_parts",
    "mentoring_roster",
    "month_parts",
)
"""The dashboard and its pieces, kept in :attr:`ReadCache.sections` (in this order): the
assembled dict, then what :mod:`world.views` builds it from (``views.dashboard_money``,
``views.attention``, ``views.dashboard_people`` ...), the attention parts
``(oversight, pool, mentoring reserved)`` hours, the mentoring roster of
``students.set_mentoring`` (:meth:`world.api.Api.mentoring_roster`), and the month's
:class:`world.views.MonthParts` (label, notes, open grant calls, last reports: what only the
tick changes; ``grants.calls()`` reads its calls)."""

SECTION_AREAS: dict[str, tuple[str, ...]] = {
    "dashboard": DASHBOARD_AREAS,
    "money": ("money", "people", "projects"),  # budget, and the burn: pay of active people, compute of projects
    "attention": ("people", "hours"),
    "people": ("people",),
    "projects": ("projects",),
    "drafts": ("drafts",),
    "submissions": ("submissions",),
    "proposals": ("proposals",),
    "awards": (),
    "events": ("events",),
    "attention_parts": ("people",),
    "mentoring_roster": ("people",),
    "month_parts": (),
}
"""What each kept section reads."""

_SECTIONS_OF: dict[str, tuple[int, ...]] = {
    area: tuple(i for i, name in enumerate(SECTIONS) if area in SECTION_AREAS[name]) for area in AREAS
}

_READERS_OF: dict[str, list[Any]] = {area: [] for area in AREAS}
"""area → the reading calls (their functions) whose results depend on it (:func:`reader_reads`)."""


def reader_reads(fn: Any, areas: tuple[str, ...]) -> None:
    """Declare that the results of the reading call ``fn`` depend on ``areas`` (done once per
    call by :func:`world.api.registry.api_call`)."""
    for a in areas:
        _READERS_OF[a].append(fn)
    _PLANS.clear()


class StateIndexes:
    """What an :class:`~world.api.Api` keeps of one state object for as long as it is the world's
    state (a tick does not drop it; :meth:`ReadCache.reset` does when the state is replaced):
    indexes of what the state only ever appends to, each extended as the state grows (and
    built again if a collection ever shrank: someone put straight into the state).

    Attributes:
        calls_by_month: :func:`world.views.calls_by_month` (None: not built yet): every grant
            call is created with the state (``grants.schedule_calls`` at the start; a restored
            state brings its own) and none changes afterwards. The month parts take the
            month's open calls from it instead of walking the career's calls.
        live: collection name → ``(its length when last looked at, the entities still in their
            first status then)`` (:meth:`world.api.Api._live`).
        proposal_rows, pending_proposals: ``grants.proposals()`` rows, one a proposal in
            creation order, and the positions of those still pending (:meth:`world.api.Api._proposal_rows`).
        news_rows: ``field.news()`` rows of every news item so far (:meth:`world.api.Api._news_rows`).
        reports_of, reports_seen: person id → their positions in the monthly reports, and how
            many reports are indexed (:meth:`world.api.Api._reports_of`).
    """

    __slots__ = (
        "calls_by_month",
        "live",
        "news_rows",
        "pending_proposals",
        "proposal_rows",
        "reports_of",
        "reports_seen",
    )

    def __init__(self) -> None:
        self.calls_by_month: dict[int, list[Any]] | None = None
        self.live: dict[str, tuple[int, list[Any]]] = {}
        self.proposal_rows: list[dict[str, Any]] = []
        self.pending_proposals: list[int] = []
        self.news_rows: list[dict[str, Any]] = []
        self.reports_of: dict[str, list[int]] = {}
        self.reports_seen = 0


class ReadCache:
    """Read results of one :class:`~world.api.Api`, each kept until an area it reads changes.

    Attributes:
        values: a reading call's function → its kept result (a call without parameters), or
            → ``{(argument values, their types): result}``.
        sections: the dashboard, its pieces and the attention parts (:data:`SECTIONS`; None:
            not built yet).
        version: the world's ``version`` the results are valid for.
        state: the world's state object they were read from.
        guard: for an API that hands out copies, ``(month, budget, one-off hours, log
            length, number of people)`` of that state too: a direct edit of one of them (a
            test, a tool; someone put straight into the state) is noticed although the
            version moves only with logged changes and ticks.
        carried: sections a change puts back right after it drops its areas
            (:meth:`carry`): index → value.
        indexes: the :class:`StateIndexes` of :attr:`state`, kept for as long as the state
            object is the same (ticks included).
    """

    __slots__ = ("carried", "guard", "indexes", "sections", "state", "values", "version")

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}
        self.sections: list[Any] = [None] * len(SECTIONS)
        self.version = -1
        self.state: object = None
        self.guard: tuple[Any, ...] | None = None
        self.carried: dict[int, Any] = {}
        self.indexes = StateIndexes()

    def holds(self, world: Any) -> bool:
        """Whether what is kept was read from ``world`` as it is now: its ``version`` is the
        one the reads are valid for and its state is the same object (a tick, a change through
        another API or a replaced state makes this false). The one test of a kept read's
        validity; the guard of an API that hands out copies is checked on top (see
        :meth:`world.api.Api._reads`)."""
        return world.version == self.version and world.s is self.state

    def reset(self, version: int, state: object, guard: tuple[Any, ...] | None) -> None:
        """Forget everything read from the state as it was; what is kept from now on is valid
        for ``version`` of ``state``. The :attr:`indexes` of the same state object are kept
        (they follow its growth themselves)."""
        self.values = {}
        self.sections = [None] * len(SECTIONS)
        self.version = version
        if state is not self.state:
            self.indexes = StateIndexes()
        self.state = state
        self.guard = guard
        self.carried = {}

    def drop(self, areas: tuple[str, ...]) -> None:
        """Forget every result that depends on one of ``areas``."""
        plan = _PLANS.get(areas)
        if plan is None:
            plan = _PLANS[areas] = (
                tuple(sorted({i for a in areas for i in _SECTIONS_OF[a]})),
                tuple({fn: None for a in areas for fn in _READERS_OF[a]}),
            )
        sections, values = self.sections, self.values
        for i in plan[0]:
            sections[i] = None
        for fn in plan[1]:
            values.pop(fn, None)
        if self.carried:
            for i, value in self.carried.items():
                sections[i] = value
            self.carried = {}

    def carry(self, section: str, value: Any) -> None:
        """Keep ``value`` as section ``section`` of the state a change in progress leaves: put
        back right after that change drops its areas (:meth:`drop`); forgotten with
        everything if the world moved otherwise (:meth:`reset`). For a changing call that
        knows exactly what a section becomes (``students.set_mentoring``: the new hours)."""
        self.carried[SECTIONS.index(section)] = value


_PLANS: dict[tuple[str, ...], tuple[tuple[int, ...], tuple[Any, ...]]] = {}
"""areas → (the sections, the reading calls) a change of them forgets; built on first use,
once every reading call has declared its areas (they do as world.api is imported)."""
