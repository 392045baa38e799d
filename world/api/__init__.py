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

from typing import TYPE_CHECKING, Any

from .. import rules as rules_mod
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

if TYPE_CHECKING:  # pragma: no cover
    from ..observe import Observer

__all__ = [
    "API_CALLS",
    "NAMESPACES",
    "REQUIRED",
    "ActionError",
    "Api",
    "CallSpec",
    "SimulationOver",
    "call_docs",
    "check_call",
    "replay",
    "replay_calls",
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


class Mirror:
    """The observable SQL mirror (MECHANICS §14) of one :class:`Api`, built at its first query.

    The Api and its ``lab`` namespace (``lab.explain`` queries it) share it; it refers to the
    world alone, never back to the Api, so an Api and its namespaces hold no reference cycle
    (dropped, they are freed at once, with nothing left for the cyclic collector).

    Args:
        world: the world it mirrors.
    """

    __slots__ = ("built", "world")

    def __init__(self, world: World) -> None:
        self.world = world
        self.built: Observer | None = None

    @property
    def observer(self) -> Observer:
        """The mirror, built at first use."""
        obs = self.built
        if obs is None:
            from ..observe import Observer

            obs = self.built = Observer(self.world)
        return obs

    def query(self, sql: Any) -> list[Any]:
        """:meth:`Api.query`."""
        return self.observer.query(sql)


class Api:
    """The agent API over one :class:`World` (MECHANICS §15): each call binds its arguments,
    checks them, logs a change and delegates to the world; every result is built afresh (the
    caller may keep or alter it). :class:`world.api.cached.CachedApi` keeps read results
    around an ``Api`` for callers that read the same things many times.

    The namespaces refer to the world and the :class:`Mirror`, not to the Api: no reference
    cycle, so a dropped Api (a pivot rollout's, a finder's) is freed with its world at once.

    Args:
        world: the world to act on.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self._mirror = Mirror(world)  # the SQL mirror, built at the first query
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

    def next_month_unread(self) -> dict[str, Any]:
        """``time.next_month()`` for an in-process caller that does not read the new dashboard
        (the runner advancing the clock for a policy): the same tick and the same action-log
        entry, but the result is only ``{"month"}`` (``{"simulation_over": True}`` at the end):
        no report dict (``time.last_report()`` builds it on demand) and no dashboard."""
        self.time._result_read = False
        try:
            result: dict[str, Any] = self.time.next_month()
        finally:
            self.time._result_read = True
        return result

    def query(self, sql: Any) -> list[Any]:
        """Run one read-only SELECT/WITH over the observable database (§14).

        Returns:
            A list of ``{column: value}`` rows, at most ``query_max_rows``; when cut, a last
            row ``{"_truncated": "..."}`` says how many rows there were.

        Raises:
            ActionError: ``sql_error`` for anything but one SELECT/WITH statement.
        """
        return self._mirror.query(sql)

    @property
    def observer(self) -> Observer:
        """The observable mirror (MECHANICS §14) :meth:`query` reads, built at first use: one
        per API (a :class:`~world.career.Career` holds one API per world)."""
        return self._mirror.observer

    def close(self) -> None:
        """Stop the mirror's query worker, if one was started (:meth:`Observer.isolate`)."""
        if self._mirror.built is not None:
            self._mirror.built.close()

    def call(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        """Dispatch ``namespace.method(*args, **kwargs)`` (also ``query`` and ``memory.*``).

        Raises:
            ActionError: ``unknown_call`` for an unknown namespace or method, otherwise the
                call's own errors.
        """
        kwargs = kwargs or {}
        check_call(namespace, method, args, kwargs)
        if namespace == "query" and method in ("", "query"):
            if len(args) + len(kwargs) != 1 or (kwargs and "sql" not in kwargs):
                raise ActionError("bad_argument", "query takes exactly one argument: query(sql)")
            return self.query(*args, **kwargs)
        if namespace == "memory" and method in ("read", "write"):
            try:
                return getattr(self.memory, method)(*args, **kwargs)
            except TypeError as exc:
                raise ActionError("bad_argument", f"memory.{method}: {exc}") from None
        return getattr(getattr(self, namespace), method)(*args, **kwargs)


def check_call(namespace: Any, method: Any, args: Any, kwargs: Any) -> None:
    """Refuse a call :meth:`Api.call` cannot dispatch: names that are not strings or too
    long, arguments that are not a list and a dict with string keys, an unknown namespace
    or method (``query`` and ``memory.read``/``write`` are known).

    Raises:
        ActionError: ``unknown_call`` or ``bad_argument``, naming what is valid.
    """
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
    if (namespace == "query" and method in ("", "query")) or (namespace == "memory" and method in ("read", "write")):
        return
    calls = API_CALLS.get(namespace)
    if calls is None:
        raise ActionError(
            "unknown_call", f"no API namespace {namespace!r}; namespaces: {', '.join(API_CALLS)}, query, memory"
        )
    if method not in calls:
        raise ActionError("unknown_call", f"{namespace} has no call {method!r}; calls: {', '.join(calls)}")


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
