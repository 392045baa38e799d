"""The agent API: everything a PI may see and do (MECHANICS §15).

Namespaces ``lab, recruit, students, projects, papers, grants, field, events, time`` plus
``query(sql)`` and ``memory``. Every call validates its arguments, money and attention
*before* changing anything; a refused call raises :class:`ActionError` (one type, with a
``code`` and a message that names the problem and the valid choices) and changes nothing.
Every accepted mutating call is appended to the world's action log as
``[month, "namespace.method", kwargs]``, enough to replay the career with :func:`replay`.
Results are JSON-able dicts and lists.

Layout: :mod:`world.api.registry` (the call registry, argument binding, ``ActionError``),
:mod:`world.api.checks` (argument checks), :mod:`world.api.namespaces` (one module per
namespace; they validate and delegate), and :mod:`world.views` (the rows the PI may see,
shared with the SQL mirror).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import people as people_mod
from .. import rules as rules_mod
from .. import views
from ..config import WorldConfig
from ..engine import World
from ..errors import ActionError, SimulationOver
from .cache import ReadCache
from .limits import MAX_STRING_CHARS
from .namespaces import (
    NAMESPACES,
    Events,
    Field,
    Grants,
    Lab,
    Memory,
    Papers,
    Projects,
    Recruit,
    Students,
    Time,
)
from .registry import NOT_KEPT, REQUIRED, CallSpec, build_registry

if TYPE_CHECKING:  # pragma: no cover
    from ..observe import Observer

__all__ = [
    "API_CALLS",
    "NAMESPACES",
    "NOT_KEPT",
    "REQUIRED",
    "ActionError",
    "Api",
    "CallSpec",
    "SimulationOver",
    "call_docs",
    "replay",
    "replay_calls",
]

API_CALLS: dict[str, dict[str, CallSpec]] = build_registry(NAMESPACES)

LIVE_STATUS = {"projects": "active", "submissions": "under_review", "proposals": "pending", "events": "pending"}
"""Collections whose entities start in a status they never return to once they leave it (a
project ends, a submission is decided or withdrawn, a proposal decided, an event answered or
expired), with that status: :meth:`Api._live` keeps them incrementally."""
"""namespace → method → :class:`CallSpec`; the registry every front end builds on."""


def call_docs(config: WorldConfig) -> dict[str, dict[str, str]]:
    """namespace → method → docstring with this scenario's rule numbers (``lab.rules()``)
    filled in, for help text and prompts (the registry's ``doc`` shows the defaults)."""
    r = rules_mod.rules(config)
    return {
        ns: {m: rules_mod.render(spec.template or spec.doc, r) for m, spec in calls.items()}
        for ns, calls in API_CALLS.items()
    }


class Api:
    """The agent API over one :class:`World` (MECHANICS §15).

    Reading calls are answered from what this API keeps between changes
    (:mod:`world.api.cache`): a result is built once per change of the areas it reads.

    Args:
        world: the world to act on.
        shared_results: hand out the kept results themselves instead of copies (or fresh
            builds), and keep every reading call's result between changes. Only for a caller
            that never alters what it reads — the runner's reference policies
            (``tests/policies/test_cached_reads.py`` checks they don't) or a front end that
            serialises each result before anyone sees it. Nothing returned is ever part of
            the world's state, so the world cannot be altered through a result either way;
            what a careless caller could alter is the kept result the next read returns (and
            the lists of the last month report, ``time.next_month()``'s ``"report"``: derived
            data, saved but outside the digest).
    """

    def __init__(self, world: World, *, shared_results: bool = False) -> None:
        self.world = world
        self.shared_results = shared_results
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
        self._cache = ReadCache()
        self._observer: Observer | None = None  # the SQL mirror, built at the first query
        self._kept_calls: dict[tuple[str, str], tuple[Any, Any]] = {}  # see kept()

    # ------------------------------------------------------------------ kept reads (world.api.cache)
    def _reads(self) -> ReadCache:
        """The kept reads, valid for the world as it is now (forgotten if it moved otherwise
        than through this API's own changes)."""
        w = self.world
        c = self._cache
        if not c.holds(w):
            self._forget()
        elif not self.shared_results:
            s = w.s
            if c.guard != (s.month, s.budget, s.oneoff_used, len(s.action_log), len(s.people)):
                self._forget()
        return c

    def _forget(self) -> None:
        """Forget every kept read (the world moved: a tick, another API, a replaced state)."""
        w = self.world
        s = w.s
        self._cache.reset(
            w.version,
            s,
            None if self.shared_results else (s.month, s.budget, s.oneoff_used, len(s.action_log), len(s.people)),
        )

    def _changed(self, areas: tuple[str, ...] | None, bumps: int) -> None:
        """After a changing call of this API (``bumps``: 1 if it was logged, else 0): forget
        the reads of ``areas`` (all of them for ``None``), or everything if the world moved
        otherwise than by that call."""
        w = self.world
        c = self._cache
        if areas is None or w.version != c.version + bumps or w.s is not c.state:
            self._forget()
            return
        c.drop(areas)
        c.version = w.version
        if not self.shared_results:
            s = w.s
            c.guard = (s.month, s.budget, s.oneoff_used, len(s.action_log), len(s.people))

    def _dashboard(self) -> dict[str, Any]:
        """The dashboard of the world as it is, assembled from pieces each kept until an area
        it reads changes (:data:`world.api.cache.SECTION_AREAS`; callers that hand it out copy
        it, unless ``shared_results``)."""
        c = self._reads()
        sec = c.sections
        d: dict[str, Any] | None = sec[0]
        if d is not None:
            return d
        live = c.indexes.live
        w = self.world
        parts = self._month_parts(c)
        # sections 1-9 in SECTION_AREAS' order; each rebuilt only when it was forgotten (tested
        # one by one: a tuple of builder lambdas was made on every call before)
        if sec[1] is None:
            sec[1] = views.dashboard_money(w)
        if sec[2] is None:
            self._attention(c)
        if sec[3] is None:
            sec[3] = views.dashboard_people(w, parts.reports)
        if sec[4] is None:
            sec[4] = views.dashboard_projects(w, self._live("projects", live))
        if sec[5] is None:
            sec[5] = views.dashboard_drafts(w)
        if sec[6] is None:
            sec[6] = views.dashboard_submissions(w, self._live("submissions", live))
        if sec[7] is None:
            sec[7] = views.dashboard_proposals(w, self._live("proposals", live))
        if sec[8] is None:
            sec[8] = views.dashboard_awards(w)
        if sec[9] is None:
            sec[9] = views.dashboard_events(w, self._live("events", live))
        d = sec[0] = views.assemble_dashboard(w, parts, *sec[1:10])
        return d

    def _attention(self, c: ReadCache | None = None) -> dict[str, Any]:
        """``lab.attention()``'s dict for the world as it is (kept; callers copy it unless
        ``shared_results``). ``c``: :meth:`_reads` if the caller has just called it."""
        if c is None:
            c = self._reads()
        sec = c.sections
        a: dict[str, Any] | None = sec[2]
        if a is None:
            a = sec[2] = views.attention(self.world, self._attention_parts(c))
        return a

    def _month_parts(self, c: ReadCache | None = None) -> views.MonthParts:
        """The dashboard's pieces that only the tick changes (:class:`views.MonthParts`; kept
        until the world moves otherwise than through this API's changes: once a month).
        ``c``: :meth:`_reads` if the caller has just called it."""
        if c is None:
            c = self._reads()
        parts: views.MonthParts | None = c.sections[12]
        if parts is None:
            w = self.world
            by_month = c.indexes.calls_by_month
            if by_month is None:
                by_month = c.indexes.calls_by_month = views.calls_by_month(w)
            parts = c.sections[12] = views.month_parts(w, by_month.get(w.s.month, []))
        return parts

    def next_month_unread(self) -> dict[str, Any]:
        """``time.next_month()`` for an in-process caller that does not read the new dashboard
        (the runner advancing the clock for a policy): the same tick and the same action-log
        entry, but the result is only ``{"month"}`` (``{"simulation_over": True}`` at the end):
        no report dict (``time.last_report()`` builds it on demand) and no dashboard is built
        until someone asks for one."""
        self.time._unread = True
        try:
            result: dict[str, Any] = self.time.next_month()
        finally:
            self.time._unread = False
        return result

    def _attention_parts(self, c: ReadCache | None = None) -> tuple[float, float, float]:
        """``(oversight, pool, mentoring reserved)`` hours of this month (§3), kept until the
        people change. ``c``: :meth:`_reads` if the caller has just called it."""
        sec = (self._reads() if c is None else c).sections
        parts: tuple[float, float, float] | None = sec[10]
        if parts is None:
            parts = sec[10] = people_mod.attention_totals(self.world)  # one pass over the people
        return parts

    def mentoring_roster(self) -> tuple[dict[str, int], list[float], float]:
        """``(position by person id, standing hours, attention pool)`` for ``students.set_mentoring``:
        the active people's mentoring hours in creation order (the list whose ``sum`` is the
        mentoring total, §3) and this month's attention pool (hours).

        A section of the read cache (kept until the people change), which ``set_mentoring``
        replaces after its own change (:meth:`keep_mentoring_roster`): a lab that sets its
        hours 100 people at a time (the API's dict limit) pays one pass over the people per
        change of anything else, not three passes per call. The caller may read the list
        but must not alter it."""
        c = self._reads()
        sec = c.sections
        roster: tuple[dict[str, int], list[float], float] | None = sec[11]
        if roster is None:
            index: dict[str, int] = {}
            hours: list[float] = []
            for p in self.world.s.people.values():  # people_mod.active_people(w), in its order
                if p.status == "active":
                    index[p.id] = len(hours)
                    hours.append(p.mentoring)
            roster = sec[11] = (index, hours, self._attention_parts(c)[1])
        return roster

    def keep_mentoring_roster(self, index: dict[str, int], hours: list[float], pool: float, total: float) -> None:
        """Carry the :meth:`mentoring_roster` and the attention parts of the world as
        ``students.set_mentoring`` leaves it over its own change (``hours``: the new standing
        hours, ``total``: their ``sum``; who is active, and so the oversight and the pool,
        unchanged): the read cache
        puts them back once the change has dropped the people's reads. Called by
        ``set_mentoring`` only, after its change."""
        c = self._cache
        oversight = self._attention_parts()[0]
        c.carry("mentoring_roster", (index, hours, pool))
        # attention_totals' mentoring reserved is the sum of the same list (active people's hours, in order)
        c.carry("attention_parts", (oversight, pool, total))

    def _live(self, name: str, kept_by_name: dict[str, tuple[int, list[Any]]] | None = None) -> list[Any]:
        """The entities of collection ``name`` (:data:`LIVE_STATUS`) still in their first status
        (active projects, submissions under review, pending proposals and events), in creation
        order, kept incrementally (:attr:`StateIndexes.live <world.api.cache.StateIndexes>`):
        an entity leaves that status for good, and collections only grow, so only those still
        live at the last look and the new ones are looked at. ``kept_by_name``: that index if
        the caller has just read it from :meth:`_reads`."""
        if kept_by_name is None:
            kept_by_name = self._reads().indexes.live
        coll = getattr(self.world.s, name)
        kept = kept_by_name.get(name)
        n = len(coll)
        if kept is None or kept[0] > n:  # first look (or the collection shrank: start again)
            cand = list(coll.values())
        elif kept[0] < n:
            cand = kept[1] + list(coll.values())[kept[0] :]
        else:
            cand = kept[1]
        status = LIVE_STATUS[name]
        live = [e for e in cand if e.status == status]
        kept_by_name[name] = (n, live)
        return live

    def _proposal_rows(self) -> list[dict[str, Any]]:
        """``grants.proposals()`` rows for ``shared_results``, kept incrementally
        (:class:`~world.api.cache.StateIndexes`): new proposals get a row; a pending
        proposal's row is built again when its status moves (pending → funded or rejected,
        §9: the one field of a proposal that changes after it is written); a decided
        proposal's row never changes. A new list of the kept rows each time."""
        ix = self._reads().indexes
        props = self.world.s.proposals
        n = len(props)
        rows, pending = ix.proposal_rows, ix.pending_proposals
        if len(rows) > n:  # the proposals shrank: start again
            rows, pending = ix.proposal_rows, ix.pending_proposals = [], []
        if pending:
            entities = list(props.values())
            still = []
            for i in pending:
                p = entities[i]
                if p.status != rows[i]["status"]:
                    rows[i] = views.proposal_row(p)
                if p.status == "pending":
                    still.append(i)
            pending[:] = still
        if len(rows) < n:
            for p in list(props.values())[len(rows) :]:
                if p.status == "pending":
                    pending.append(len(rows))
                rows.append(views.proposal_row(p))
        return list(rows)

    def _news_rows(self) -> list[dict[str, Any]]:
        """``field.news()`` rows of every news item so far, kept and extended as news arrive
        (news items are only ever appended; :class:`~world.api.cache.StateIndexes`); for
        ``shared_results`` only (the rows are shared)."""
        ix = self._reads().indexes
        news = self.world.s.news
        rows = ix.news_rows
        if len(rows) > len(news):  # the news shrank: start again
            rows = ix.news_rows = []
        if len(rows) < len(news):
            rows.extend({"month": r[0], "kind": r[1], "topic": r[2], "text": r[3]} for r in news[len(rows) :])
        return rows

    def _reports_of(self, person_id: str) -> list[int]:
        """Positions of ``person_id``'s rows in the (append-only) monthly reports, kept
        incrementally (:class:`~world.api.cache.StateIndexes`)."""
        ix = self._reads().indexes
        rows = self.world.s.student_reports
        if len(rows) < ix.reports_seen:  # the reports shrank: start again
            ix.reports_of, ix.reports_seen = {}, 0
        index = ix.reports_of
        for i in range(ix.reports_seen, len(rows)):
            index.setdefault(rows[i][0], []).append(i)
        ix.reports_seen = len(rows)
        return index.get(person_id, [])

    def query(self, sql: Any) -> list[Any]:
        """Run one read-only SELECT/WITH over the observable database (§14).

        Returns:
            A list of ``{column: value}`` rows, at most ``query_max_rows``; when cut, a last
            row ``{"_truncated": "..."}`` says how many rows there were.

        Raises:
            ActionError: ``sql_error`` for anything but one SELECT/WITH statement.
        """
        return self.observer.query(sql)

    @property
    def observer(self) -> Observer:
        """The observable mirror (MECHANICS §14) :meth:`query` reads, built at first use: one
        per API (a :class:`~world.career.Career` holds one API per world)."""
        obs = self._observer
        if obs is None:
            from ..observe import Observer

            obs = self._observer = Observer(self.world)
        return obs

    def close(self) -> None:
        """Stop the mirror's query worker, if one was started (:meth:`Observer.isolate`)."""
        if self._observer is not None:
            self._observer.close()

    def kept(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        """The result this API keeps for the reading call ``namespace.method(*args, **kwargs)``
        as the world is now: the very object :meth:`call` would return, or ``NOT_KEPT`` when
        it would build one (nothing kept yet, forgotten since, a changing or unknown call, an
        API without ``shared_results``). Builds nothing and changes nothing.

        A front end that sent a kept result elsewhere (headless mode's agent process) learns
        cheaply whether it still holds: ``api.kept(...) is sent`` means no change since then
        touched what it reads (a kept result is never altered; a change forgets it)."""
        if not self.shared_results:
            return NOT_KEPT
        found = self._kept_calls.get((namespace, method))
        if found is None:
            if not _is_read(namespace, method):
                return NOT_KEPT
            ns = getattr(self, namespace)
            found = self._kept_calls[namespace, method] = (getattr(type(ns), method)._api_kept, ns)
        return found[0](found[1], args, kwargs or {})

    def kept_probe(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Callable[[], Any] | None:
        """:meth:`kept` for this reading call as a function of no arguments, resolved once:
        each call of it answers what ``kept(namespace, method, args, kwargs)`` answers then
        (a front end checking the same reads after every change calls it instead); None when
        that answer is always ``NOT_KEPT`` (a changing or unknown call, arguments that are
        never kept, an API without ``shared_results``). Builds nothing and changes nothing."""
        if not self.shared_results:
            return None
        if not _is_read(namespace, method):
            return None
        ns = getattr(self, namespace)
        probe: Callable[[], Any] | None = getattr(type(ns), method)._api_probe(ns, args, kwargs or {})
        return probe

    def bound_read(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Callable[[], Any] | None:
        """The reading call ``namespace.method(*args, **kwargs)`` bound once: each call of the
        function returned answers (or raises) what :meth:`call` would then, without looking the
        call up again (a front end reading the same calls month after month); None for
        anything but a reading call of the API (a changing or unknown call, ``query``,
        ``memory``, arguments that are not a list and a dict with str keys)."""
        kwargs = {} if kwargs is None else kwargs
        if (
            not isinstance(args, (list, tuple))
            or not isinstance(kwargs, dict)
            or not all(type(k) is str for k in kwargs)
        ):
            return None
        if not _is_read(namespace, method):
            return None
        return functools.partial(getattr(getattr(self, namespace), method), *args, **kwargs)

    def call(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        """Dispatch ``namespace.method(*args, **kwargs)`` (also ``query`` and ``memory.*``).

        Raises:
            ActionError: ``unknown_call`` for an unknown namespace or method, otherwise the
                call's own errors.
        """
        kwargs = kwargs or {}
        for name in (namespace, method):
            if isinstance(name, str) and len(name) > MAX_STRING_CHARS:
                raise ActionError(
                    "unknown_call",
                    f"a call name of {len(name):,} characters; names are at most {MAX_STRING_CHARS}; "
                    f"namespaces: {', '.join(API_CALLS)}, query, memory",
                )
        if not isinstance(args, (list, tuple)) or not isinstance(kwargs, dict):
            raise ActionError("bad_argument", "args must be a list and kwargs a dict")
        if not all(isinstance(k, str) for k in kwargs):
            raise ActionError("bad_argument", "keyword argument names must be strings")
        if not isinstance(namespace, str) or not isinstance(method, str):
            raise ActionError(
                "unknown_call",
                f"namespace and method must be strings; namespaces: {', '.join(API_CALLS)}, query, memory",
            )
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
            raise ActionError(
                "unknown_call", f"no API namespace {namespace!r}; namespaces: {', '.join(API_CALLS)}, query, memory"
            )
        if method not in calls:
            raise ActionError("unknown_call", f"{namespace} has no call {method!r}; calls: {', '.join(calls)}")
        return getattr(getattr(self, namespace), method)(*args, **kwargs)


def replay(config: WorldConfig, seed: int, action_log: list[Any]) -> World:
    """Rebuild a career from its action log (``[month, "ns.method", kwargs]`` rows): a new
    ``World(config, seed)`` and :func:`replay_calls` of the whole log.

    Raises:
        ActionError: a logged call is refused on replay (the log does not fit this world).
    """
    return replay_calls(World(config, seed), action_log)


def replay_calls(world: World, action_log: list[Any]) -> World:
    """Make the logged calls ``action_log`` (``[month, "ns.method", kwargs]`` rows) on
    ``world`` through this API, each checked as when it was first made, and return the world.

    ``world`` is where the log starts: a new world (:func:`replay`), or a saved one whose
    calls logged since are replayed. A forged row is refused as it would be in play.

    Raises:
        ActionError: a logged call is refused on replay (the log does not fit this world),
            or a row is logged in another month than the world is in.
        ValueError: ``action_log`` is ``world``'s own log (it would grow as it is replayed).
    """
    if action_log is world.s.action_log:
        raise ValueError("replay_calls needs the calls to make, not the world's own action log")
    api = Api(world)
    for month, name, kwargs in action_log:
        if world.s.month != month:
            raise ActionError(
                "bad_argument",
                f"action log out of step: {name} logged in month {month}, world is in month {world.s.month}",
            )
        if name == "time.next_month" and type(kwargs) is dict and not kwargs:
            # the same tick and log entry as api.call("time", "next_month"), without building
            # the new month's dashboard and report dict that nobody here reads (exact)
            api.next_month_unread()
            continue
        ns, method = name.split(".", 1)
        api.call(ns, method, [], kwargs)
    return world


def _is_read(namespace: Any, method: Any) -> bool:
    """Whether ``namespace.method`` names a reading (not changing) call of the API's namespaces
    (:data:`API_CALLS`; ``query`` and ``memory`` are not among them): what :meth:`Api.kept`,
    :meth:`Api.kept_probe` and :meth:`Api.bound_read` answer for."""
    calls = API_CALLS.get(namespace) if isinstance(namespace, str) else None
    spec = calls.get(method) if calls is not None and isinstance(method, str) else None
    return spec is not None and not spec.mutating
