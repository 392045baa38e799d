"""An opt-in read cache around the agent API (Gymnasium's wrapper layering: the concern sits
around the :class:`~world.api.Api`, not inside it).

:class:`CachedApi` answers a reading call made again with the same arguments from the result
it kept, for as long as the world's ``version`` is the one the result was read at (the world
moves it with every logged change and every tick, :func:`world.api.registry.api_call`) and
the world's state is the same object (a restored or replaced state). Changing calls, ``query``
and ``memory`` pass through. Nothing else decides validity: no call declares what it reads.

``lab.attention()`` is answered from a dashboard kept at the same version (its named section,
:data:`SECTIONS`). Two reads are built from what the wrapper keeps of the state itself
(:class:`StateKept`, for as long as the state object is the world's): the dashboard takes the
month's pieces that only the tick changes (:class:`world.views.MonthParts`, kept while the
month and the end flag stay), and ``students.reports`` takes a person's rows from an index of
the append-only monthly reports, extended as they grow (a walk over every report per call
made a lab of 2,000 people cost the square of its size).

The results are the kept objects themselves, shared between callers: only for callers that
never alter what they read (the runner's reference policies, checked by
``tests/policies/test_cached_reads.py``). Not for agent code: it chooses its arguments, so
what is kept would grow with them (``field.preprints(n_months=k)`` for k = 40, 41, 42 ...),
and headless mode gains nothing from it (the agent process keeps its own cache of results,
bounded by bytes: :mod:`pibench_tui.sandbox.reads`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import views
from . import API_CALLS, NAMESPACES, check_call
from .namespaces import Lab, Students

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import World
    from ..observe import Observer
    from . import Api

__all__ = ["NOT_KEPT", "CachedApi"]

NOT_KEPT: Any = object()
"""What :meth:`CachedApi.kept_result` returns for a call whose result is not kept (never equal to,
nor the same object as, any result)."""

_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Argument types a kept read is looked up by (with the values: ``1`` and ``True`` differ)."""

_READS = frozenset((ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if not spec.mutating)
"""The reading calls of the registry: the ones :class:`CachedApi` keeps."""


SECTIONS = {("lab", "attention"): (("lab", "dashboard"), "attention")}
"""Reads that are a section of another read: ``lab.attention()`` is the dashboard's
``"attention"`` (both :func:`world.views.attention`), answered from a dashboard kept at the
same version instead of being built again."""


def read_key(namespace: str, method: str, args: Any, kwargs: Any) -> tuple[Any, ...] | None:
    """What the result of the reading call ``namespace.method(*args, **kwargs)`` is kept under:
    the call as given (values with their types), or None when it is never kept (not a reading
    call of the registry, an argument that is not a scalar)."""
    if (namespace, method) not in _READS:
        return None
    if not args and not kwargs:
        return (namespace, method)
    items = tuple(sorted(kwargs.items())) if kwargs else ()
    values = (*args, *(v for _, v in items)) if items else args
    types = tuple(map(type, values))
    if not _SCALARS.issuperset(types):
        return None
    return (namespace, method, tuple(args), items, types)


class StateKept:
    """What a :class:`CachedApi` keeps of one state object besides read results (see the
    module doc); built again when the world's state is replaced.

    Attributes:
        state: the state object all this was read from.
        month: ``(month, finished)`` the month's pieces are of (None: not built yet).
        month_parts: :func:`world.views.month_parts` of that month.
        reports_of: person id → their positions in ``state.student_reports``, for the first
            ``reports_seen`` rows.
    """

    __slots__ = ("month", "month_parts", "reports_of", "reports_seen", "state")

    def __init__(self, state: object) -> None:
        self.state = state
        self.month: tuple[int, bool] | None = None
        self.month_parts: views.MonthParts | None = None
        self.reports_of: dict[str, list[int]] = {}
        self.reports_seen = 0


class _Keeper:
    """The :class:`StateKept` of the world's state object now (a new one for a new state).
    Shared by a :class:`CachedApi` and its reads' builders; it refers to the world alone."""

    __slots__ = ("kept", "world")

    def __init__(self, world: World) -> None:
        self.world = world
        self.kept = StateKept(None)

    def state_kept(self) -> StateKept:
        """What is kept of the world's state object now (:class:`StateKept`; new for a new state)."""
        of_state = self.kept
        if of_state.state is not self.world.s:
            of_state = self.kept = StateKept(self.world.s)
        return of_state


class _KeptLab(Lab):
    """``lab`` with the month's pieces kept for the month (:class:`StateKept`)."""

    def __init__(self, api: Api, keeper: _Keeper) -> None:
        super().__init__(api)
        self._keeper = keeper

    def _month_parts(self) -> views.MonthParts:
        w = self._w
        of_state = self._keeper.state_kept()
        now = (w.s.month, w.s.finished)
        if of_state.month != now or of_state.month_parts is None:
            of_state.month_parts, of_state.month = views.month_parts(w), now
        return of_state.month_parts


class _KeptStudents(Students):
    """``students`` with the reports of each person found through an index (:class:`StateKept`)."""

    def __init__(self, api: Api, keeper: _Keeper) -> None:
        super().__init__(api)
        self._keeper = keeper

    def _report_rows(self, student_id: str, n: int) -> list[Any]:
        of_state = self._keeper.state_kept()
        rows = self._w.s.student_reports
        if len(rows) < of_state.reports_seen:  # the reports shrank (put straight into the state): start again
            of_state.reports_of, of_state.reports_seen = {}, 0
        index = of_state.reports_of
        for i in range(of_state.reports_seen, len(rows)):
            index.setdefault(rows[i][0], []).append(i)
        of_state.reports_seen = len(rows)
        return [rows[i] for i in index.get(student_id, [])[-n:]]


class _Reads:
    """The read results kept for the world as it is (its ``version`` and state object), and
    the namespaces that build them. Shared by a :class:`CachedApi` and its namespaces' reading
    calls; it refers to the world and the builders, never back to the CachedApi, so neither
    makes a reference cycle."""

    __slots__ = ("builders", "results", "state", "version", "world")

    def __init__(self, world: World, builders: dict[str, Any]) -> None:
        self.world = world
        self.builders = builders
        self.version = -1
        self.state: object = None
        self.results: dict[tuple[Any, ...], Any] = {}

    def now(self) -> dict[tuple[Any, ...], Any]:
        """The results kept for the world as it is now (all forgotten if it moved)."""
        w = self.world
        if w.version != self.version or w.s is not self.state:
            self.results = {}
            self.version = w.version
            self.state = w.s
        return self.results

    def read(self, namespace: str, method: str, args: Any = (), kwargs: Any = None) -> Any:
        """:meth:`CachedApi.read`."""
        kwargs = kwargs or {}
        results = self.now()
        key = read_key(namespace, method, args, kwargs)
        if key is not None:
            out = results.get(key, NOT_KEPT)
            if out is not NOT_KEPT:
                return out
            whole, section = SECTIONS.get(key, (None, None))
            if whole in results:
                out = results[key] = results[whole][section]
                return out
        out = getattr(self.builders[namespace], method)(*args, **kwargs)
        if key is not None:
            results[key] = out
        return out


class CachedApi:
    """The agent API with reads kept between changes (see the module doc); the same calls,
    attributes and results as the :class:`~world.api.Api` it wraps.

    Args:
        api: the API to wrap.

    Attributes:
        api: the wrapped :class:`~world.api.Api`.
        world: its world.
    """

    def __init__(self, api: Api) -> None:
        self.api = api
        self.world = api.world
        self._keeper = _Keeper(api.world)
        # the namespaces reads are built by: the API's own, but for two that use what is kept
        builders: dict[str, Any] = {name: getattr(api, name) for name in NAMESPACES}
        builders["lab"] = _KeptLab(api, self._keeper)
        builders["students"] = _KeptStudents(api, self._keeper)
        self._reads = _Reads(api.world, builders)
        for name in NAMESPACES:
            setattr(self, name, _Namespace(api, self._reads, name))
        self.memory = api.memory

    def __getattr__(self, name: str) -> Any:  # the namespaces are set in __init__ (for mypy)
        raise AttributeError(name)

    # ------------------------------------------------------------------ the cache
    def state_kept(self) -> StateKept:
        """What is kept of the world's state object now (:class:`StateKept`; new for a new state)."""
        return self._keeper.state_kept()

    def read(self, namespace: str, method: str, args: Any = (), kwargs: Any = None) -> Any:
        """The reading call ``namespace.method(*args, **kwargs)`` (a call of the registry),
        from the kept result when there is one, else made on the API and kept.

        Raises:
            ActionError: what the call raises (a refusal is not kept).
        """
        return self._reads.read(namespace, method, args, kwargs)

    def kept_result(self, namespace: str, method: str, args: Any = (), kwargs: Any = None) -> Any:
        """The result kept now for the reading call ``namespace.method(*args, **kwargs)``: the
        very object :meth:`call` would return, or :data:`NOT_KEPT` when it would build one.
        Builds nothing and changes nothing (what the contract tests look at)."""
        w, reads = self.world, self._reads
        if w.version != reads.version or w.s is not reads.state:
            return NOT_KEPT
        try:
            key = read_key(namespace, method, args, kwargs or {})
        except TypeError:  # kwargs not a dict of comparable keys
            return NOT_KEPT
        return NOT_KEPT if key is None else reads.results.get(key, NOT_KEPT)

    # ------------------------------------------------------------------ the API's face
    def call(
        self, namespace: str, method: str, args: list[Any] | tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        """:meth:`Api.call <world.api.Api.call>`, reads answered from what is kept."""
        kwargs = kwargs or {}
        if type(namespace) is not str or type(method) is not str or (namespace, method) not in _READS:
            return self.api.call(namespace, method, args, kwargs)  # changes, query, memory, errors
        check_call(namespace, method, args, kwargs)
        return self.read(namespace, method, args, kwargs)

    def next_month_unread(self) -> dict[str, Any]:
        """:meth:`Api.next_month_unread <world.api.Api.next_month_unread>`."""
        return self.api.next_month_unread()

    def query(self, sql: Any) -> list[Any]:
        """:meth:`Api.query <world.api.Api.query>` (never kept: the mirror answers)."""
        return self.api.query(sql)

    @property
    def observer(self) -> Observer:
        """The wrapped API's observable mirror."""
        return self.api.observer

    def close(self) -> None:
        """:meth:`Api.close <world.api.Api.close>`."""
        self.api.close()


class _Namespace:
    """One namespace of a :class:`CachedApi`: its reading calls go through the kept reads, its
    changing calls straight to the API's namespace (same names and docstrings)."""

    def __init__(self, api: Api, reads: _Reads, name: str) -> None:
        ns = getattr(api, name)
        for method, spec in API_CALLS[name].items():
            fn = getattr(ns, method)
            setattr(self, method, fn if spec.mutating else _reader(reads, name, method, fn))

    def __getattr__(self, name: str) -> Any:  # the calls are set in __init__ (for mypy)
        raise AttributeError(name)


def _reader(reads: _Reads, namespace: str, method: str, fn: Any) -> Any:
    """The reading call ``namespace.method`` (``fn`` on the API) through ``reads``."""
    key = (namespace, method)  # read_key() of a call without arguments
    build = getattr(reads.builders[namespace], method)
    whole, section = SECTIONS.get(key, (None, None))

    def read(*args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return reads.read(namespace, method, args, kwargs)
        results = reads.now()
        out = results.get(key, NOT_KEPT)
        if out is NOT_KEPT:
            found = results.get(whole, NOT_KEPT) if whole is not None else NOT_KEPT
            out = results[key] = build() if found is NOT_KEPT else found[section]
        return out

    read.__name__ = method
    read.__doc__ = fn.__doc__
    return read
