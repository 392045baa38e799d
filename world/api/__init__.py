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

from typing import Any

from .. import people as people_mod
from .. import rules as rules_mod
from .. import views
from ..config import WorldConfig
from ..engine import World
from ..errors import ActionError, SimulationOver
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
from .registry import REQUIRED, CallSpec, build_registry

__all__ = [
    "API_CALLS",
    "NAMESPACES",
    "REQUIRED",
    "ActionError",
    "Api",
    "CallSpec",
    "SimulationOver",
    "call_docs",
    "replay",
]

API_CALLS: dict[str, dict[str, CallSpec]] = build_registry(NAMESPACES)
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
        self._dashboard_cache: tuple[tuple[Any, ...], dict[str, Any]] | None = (
            None  # (world key, dashboard) — reads between changes
        )
        self._attention_cache: tuple[tuple[Any, ...], tuple[float, float, float]] | None = None
        self._month_parts_cache: views.MonthParts | None = None
        self._reports_index: dict[str, list[int]] = {}  # person id -> positions in student_reports
        self._reports_seen = 0

    # ------------------------------------------------------------------ caches between changes
    def _key(self) -> tuple[Any, ...]:
        """What identifies the world's public state between two API changes (the version moves
        with every logged call; the rest guards against direct edits of the state)."""
        w = self.world
        return (w.version, w.s.month, w.s.budget, w.s.oneoff_used, len(w.s.action_log))

    def _dashboard(self) -> dict[str, Any]:
        """The dashboard of the world as it is, built once per change (callers copy it)."""
        key = self._key()
        cached = self._dashboard_cache
        if cached is None or cached[0] != key:
            cached = self._dashboard_cache = (
                key,
                views.dashboard(self.world, self._attention_parts(), self._month_parts()),
            )
        return cached[1]

    def _month_parts(self) -> views.MonthParts:
        """The dashboard's pieces that only the tick changes, built once a month (views.MonthParts)."""
        parts = self._month_parts_cache
        if parts is None or parts.key != views.month_parts_key(self.world):
            parts = self._month_parts_cache = views.month_parts(self.world)
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

    def _keep_dashboard_after_call(self, d: dict[str, Any]) -> None:
        """Cache ``d`` as the dashboard of the state a mutating call leaves: the call wrapper
        appends exactly one log entry and moves the version by one once the call returns."""
        v, month, budget, oneoff, n_log = self._key()
        self._dashboard_cache = ((v + 1, month, budget, oneoff, n_log + 1), d)

    def _attention_parts(self) -> tuple[float, float, float]:
        """``(oversight, pool, mentoring reserved)`` hours of this month (§3), computed once per change."""
        key = self._key()
        cached = self._attention_cache
        if cached is None or cached[0] != key:
            w = self.world
            oversight = people_mod.oversight_tax(w)
            cached = self._attention_cache = (
                key,
                (oversight, people_mod.attention_pool(w, oversight), people_mod.mentoring_reserved(w)),
            )
        return cached[1]

    def _reports_of(self, person_id: str) -> list[int]:
        """Positions of ``person_id``'s rows in the (append-only) monthly reports, kept incrementally."""
        rows = self.world.s.student_reports
        if len(rows) < self._reports_seen:  # the state was replaced: start again
            self._reports_index, self._reports_seen = {}, 0
        for i in range(self._reports_seen, len(rows)):
            self._reports_index.setdefault(rows[i][0], []).append(i)
        self._reports_seen = len(rows)
        return self._reports_index.get(person_id, [])

    def query(self, sql: Any) -> list[Any]:
        """Run one read-only SELECT/WITH over the observable database (§14).

        Returns:
            A list of ``{column: value}`` rows, at most ``query_max_rows``; when cut, a last
            row ``{"_truncated": "..."}`` says how many rows there were.

        Raises:
            ActionError: ``sql_error`` for anything but one SELECT/WITH statement.
        """
        from ..observe import observer_for

        return observer_for(self.world).query(sql)

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
    """Rebuild a career from its action log (``[month, "ns.method", kwargs]`` rows).

    Raises:
        ActionError: a logged call is refused on replay (the log does not fit this world).
    """
    w = World(config, seed)
    api = Api(w)
    for month, name, kwargs in action_log:
        if w.s.month != month:
            raise ActionError(
                "bad_argument", f"action log out of step: {name} logged in month {month}, world is in month {w.s.month}"
            )
        ns, method = name.split(".", 1)
        api.call(ns, method, [], kwargs)
    return w
