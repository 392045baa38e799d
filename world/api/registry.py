"""The call registry and argument binding of the agent API (MECHANICS §15).

``ActionError`` lives in :mod:`world.errors` and is re-exported here. A namespace method becomes an API call with :func:`api_call`: its arguments are bound by
name (a fast ``Signature.bind``), a mutating call is refused after the end of the career,
and an accepted mutating call is appended to the world's action log as
``[month, "namespace.method", kwargs]``. :func:`build_registry` turns the namespace classes
into the registry (:class:`CallSpec` per call) every front end builds on.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import rules as rules_mod
from ..config import WorldConfig
from ..errors import ActionError
from .cache import AREAS, reader_reads
from .checks import bounded, plain
from .limits import MAX_CHANGES_PER_MONTH, MAX_INT_BITS, MAX_STRING_CHARS

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import World

__all__ = ["REQUIRED", "ActionError", "CallSpec", "Unchanged", "api_call", "build_registry", "jsonable", "over_message"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()
"""Sentinel for a parameter without a default in :class:`CallSpec`."""


@dataclass(frozen=True)
class CallSpec:
    """One API call: its name, parameters ``((name, default or REQUIRED), ...)``, doc, kind.

    ``doc`` is the docstring with its rule numbers filled in from the default
    :class:`~world.config.WorldConfig`; ``template`` keeps the ``{rules.KEY}`` placeholders so
    a front end can show a scenario's numbers instead (:func:`world.api.call_docs`).
    """

    name: str
    params: tuple[tuple[str, Any], ...]
    doc: str
    mutating: bool
    template: str = ""


class Unchanged(dict):  # type: ignore[type-arg]
    """The result of a mutating call that changed nothing (e.g. interviewing only applicants
    interviewed before): returned to the caller as a plain dict, never logged (issue 10 §1)."""


def api_call(
    mutating: bool, areas: tuple[str, ...] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a namespace method as an API call; mutating calls are refused after the end and logged.

    The decorated method's first parameter is the namespace (``self``); the namespace has
    ``_name`` (its API name) and ``_api`` (the :class:`~world.api.Api`, whose ``world`` is
    acted on). Every argument is checked against :mod:`world.api.limits` first. A mutating
    call that raises :class:`ActionError`, or returns :class:`Unchanged`, is not logged.

    ``areas`` (:data:`world.api.cache.AREAS`): for a reading call, the areas of the state its
    result depends on (``()``: only the tick changes it; ``None``: anything may); for a
    changing call, the areas it may change (``None``: anything). They decide which kept
    reads a change forgets (:mod:`world.api.cache`). An API with ``shared_results`` keeps
    the result of every reading call whose arguments are plain scalars.
    """
    if areas is not None:
        unknown = [a for a in areas if a not in AREAS]
        if unknown:
            raise ValueError(f"unknown areas {unknown}; areas: {', '.join(AREAS)}")
    read_areas: tuple[str, ...] = AREAS if areas is None else areas

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn)
        if not mutating:
            reader_reads(fn, read_areas)

        names = [p.name for p in sig.parameters.values()][1:]
        defaults = {p.name: p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty}

        def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
            """Map call arguments to parameter names (a fast ``Signature.bind``)."""
            if len(args) > len(names):
                raise TypeError(f"takes {len(names)} argument(s) but {len(args)} were given")
            out = dict(zip(names, args, strict=False))
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

        # a call without arguments of a method whose parameters all have defaults binds to the
        # defaults; they pass the size limits if one such call ever did (checked on first use)
        all_default = all(k in defaults for k in names)
        defaults_ok: list[dict[str, Any]] = []  # the bound defaults, once they passed the limits

        n_names = len(names)
        call_names: dict[str, str] = {}  # namespace name -> "namespace.method" (see wrapper)

        def kept_read(self: Any, bound: dict[str, Any]) -> Any:
            """A reading call through an API with ``shared_results``: the kept result for these
            argument values (and types), built once per change of ``areas``."""
            vals = tuple(bound.values())
            types = tuple(map(type, vals))
            if not _SCALARS.issuperset(types):
                return fn(self, **bound)
            kept = self._api._reads().values
            by_args = kept.get(fn)
            if by_args is None:
                by_args = kept[fn] = {}
            key = (vals, types)
            out = by_args.get(key, _MISSING)
            if out is _MISSING:
                out = by_args[key] = fn(self, **bound)
            return out

        def kept_key(
            args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]
        ) -> tuple[tuple[Any, ...], tuple[type, ...]] | None:
            """What a result of this reading call with these arguments is kept under (their
            values and types, bound as :func:`wrapper` binds them), or None when no result of
            it is ever kept (arguments that do not bind, a value that is not a scalar: see
            :func:`kept_read`)."""
            if not args and not kwargs and defaults_ok:
                bound = defaults_ok[0]
            elif not kwargs and len(args) == n_names:
                bound = dict(zip(names, args, strict=True))
            else:
                try:
                    bound = bind(tuple(args), kwargs)
                except TypeError:
                    return None
            vals = tuple(bound.values())
            types = tuple(map(type, vals))
            return (vals, types) if _SCALARS.issuperset(types) else None

        def kept_only(self: Any, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> Any:
            """The result an API with ``shared_results`` keeps for this reading call with these
            arguments, or ``NOT_KEPT`` (never builds one; see :meth:`world.api.Api.kept`)."""
            api = self._api
            if not api.shared_results:
                return NOT_KEPT
            key = kept_key(args, kwargs)
            if key is None:
                return NOT_KEPT
            by_args = api._reads().values.get(fn)
            return NOT_KEPT if by_args is None else by_args.get(key, NOT_KEPT)

        def probe_only(self: Any, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> Any:
            """:func:`kept_only` for these arguments as a function of no arguments (bound once,
            answering at each call what ``kept_only`` would answer then), or None when that is
            always ``NOT_KEPT`` (see :meth:`world.api.Api.kept_probe`)."""
            if not self._api.shared_results:
                return None
            key = kept_key(args, kwargs)
            return None if key is None else functools.partial(kept_now, self._api, fn, key)

        @functools.wraps(fn)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not args and not kwargs and defaults_ok:
                bound = dict(defaults_ok[0])  # fast path: the checks below already passed for these
                positional = not names
            else:
                for k in kwargs:  # before binding: a huge keyword name never reaches a message
                    if len(k) > MAX_STRING_CHARS:
                        call = f"{self._name}.{fn.__name__}"
                        raise ActionError(
                            "bad_argument",
                            f"{call}: a keyword argument name of {len(k):,} characters; "
                            f"parameters: {', '.join(names) or 'none'}",
                        )
                if not kwargs and len(args) == n_names:
                    # every parameter given in order; no strict= (the lengths are equal, and the
                    # keyword makes zip() take its slow path)
                    bound = dict(zip(names, args))  # noqa: B905
                    positional = True
                else:
                    positional = False
                    try:
                        bound = bind(args, kwargs)
                    except TypeError as exc:
                        call = f"{self._name}.{fn.__name__}"
                        raise ActionError("bad_argument", f"{call}: {exc}; usage: {call}{_usage(sig)}") from None
                for k, v in bound.items():
                    t = type(v)
                    if v is None or t is bool or t is float:
                        continue
                    if t is str and len(v) <= MAX_STRING_CHARS:
                        continue  # within the limits: bounded() would accept it
                    if t is int and -_INT_LIMIT < v < _INT_LIMIT:
                        continue
                    if not isinstance(v, (bool, float)):
                        bounded(f"{self._name}.{fn.__name__}: {k}", v)
                    p = plain(v)  # numpy scalars as the Python numbers they hold, before logging
                    if p is not v:
                        bound[k] = p
                        positional = False
                if not args and not kwargs and all_default:
                    defaults_ok.append(dict(bound))
            api = self._api
            w = api.world
            if not mutating:
                if api.shared_results:
                    return kept_read(self, bound)
                return fn(self, **bound)
            if w.s.finished:
                raise ActionError("career_over", over_message(w))
            month = w.s.month
            known = call_names.get(self._name)  # "namespace.method", formatted once per namespace
            if known is None:
                known = call_names[self._name] = f"{self._name}.{fn.__name__}"
            call = known
            log = w.s.action_log
            # a log shorter than the limit cannot hold that many changes of this month: the count
            # (a walk back through the log) is needed only from there on (the same refusals)
            if (
                len(log) >= MAX_CHANGES_PER_MONTH
                and call != "time.next_month"
                and _changes_this_month(log, month) >= MAX_CHANGES_PER_MONTH
            ):
                raise ActionError(
                    "cap_reached",
                    f"{call}: this month already has {MAX_CHANGES_PER_MONTH} "
                    f"logged changes (the limit per month); close the month with time.next_month()",
                )
            call_args = jsonable(bound)
            api._reads()  # notice any change made outside this API before this one
            try:
                # the arguments as given when they were every parameter in order (bound is
                # that mapping), else by name: the same binding either way
                result = fn(self, *args) if positional else fn(self, **bound)
            except ActionError:
                api._changed(areas, 0)  # refused: nothing changed, but forget its areas all the same
                raise
            except BaseException:
                api._forget()
                raise
            if type(result) is Unchanged:  # accepted, but nothing changed: no log entry, no new version
                return dict(result)
            w.s.action_log.append([month, call, call_args])
            w.version += 1
            api._changed(areas, 1)
            return result

        if not names and not mutating:  # a reading call without parameters: nothing to bind or check
            key = fn

            @functools.wraps(fn)
            def reader(self: Any, *args: Any, **kwargs: Any) -> Any:
                if args or kwargs:
                    return wrapper(self, *args, **kwargs)  # the full path names the bad arguments
                api = self._api
                if not api.shared_results:
                    return fn(self)
                c = api._cache
                w = api.world
                # ReadCache.holds(w) written out: this is the hot path of the in-process policies
                # (~12 reads a month; the method call costs ~370 instructions, callgrind)
                if w.version != c.version or w.s is not c.state:
                    api._forget()
                out = c.values.get(key, _MISSING)
                if out is _MISSING:
                    out = c.values[key] = fn(self)
                return out

            def kept_bare(self: Any, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> Any:
                """The kept result of this reading call, or ``NOT_KEPT`` (never builds one)."""
                api = self._api
                if args or kwargs or not api.shared_results:
                    return NOT_KEPT
                return api._reads().values.get(key, NOT_KEPT)

            def probe_bare(self: Any, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> Any:
                """:func:`kept_bare` as a function of no arguments, or None (see :func:`probe_only`)."""
                if args or kwargs or not self._api.shared_results:
                    return None
                return functools.partial(kept_now, self._api, key, None)

            reader._api_mutating = mutating  # type: ignore[attr-defined]
            reader._api_signature = sig  # type: ignore[attr-defined]
            reader._api_areas = areas  # type: ignore[attr-defined]
            reader._api_kept = kept_bare  # type: ignore[attr-defined]
            reader._api_probe = probe_bare  # type: ignore[attr-defined]
            return reader

        wrapper._api_mutating = mutating  # type: ignore[attr-defined]
        wrapper._api_signature = sig  # type: ignore[attr-defined]
        wrapper._api_areas = areas  # type: ignore[attr-defined]
        if not mutating:
            wrapper._api_kept = kept_only  # type: ignore[attr-defined]
            wrapper._api_probe = probe_only  # type: ignore[attr-defined]
        return wrapper

    return deco


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Argument types a kept read is looked up by (with the values: ``1`` and ``True`` differ)."""

_MISSING = object()
"""Marks a read not kept yet."""

NOT_KEPT: Any = object()
"""What :meth:`world.api.Api.kept` returns for a reading call whose result is not kept (never
equal to, nor the same object as, any result)."""


def kept_now(api: Any, fn: Any, args_key: Any) -> Any:
    """The result ``api`` keeps now for the reading call ``fn`` (``args_key``: its arguments'
    values and types; None for a call without parameters), or ``NOT_KEPT``: what ``kept_bare``
    or ``kept_only`` answer, in one call (the probes of :meth:`world.api.Api.kept_probe`).
    Changes nothing: a world that moved since is noticed (and its kept reads forgotten) by the
    next read, as ``kept`` would have forgotten them first."""
    c = api._cache
    if not c.holds(api.world):
        return NOT_KEPT
    found = c.values.get(fn, NOT_KEPT)
    if args_key is None or found is NOT_KEPT:
        return found
    return found.get(args_key, NOT_KEPT)


_INT_LIMIT = 1 << MAX_INT_BITS
"""Integers strictly between ``-_INT_LIMIT`` and ``_INT_LIMIT`` have at most ``MAX_INT_BITS`` bits."""


def _changes_this_month(log: list[Any], month: int) -> int:
    """Logged calls of ``month`` at the end of ``log``, counted up to ``MAX_CHANGES_PER_MONTH`` (O(limit))."""
    n = 0
    for entry in reversed(log):
        if entry[0] != month or n >= MAX_CHANGES_PER_MONTH:
            break
        n += 1
    return n


def _usage(sig: inspect.Signature) -> str:
    params = [p for p in sig.parameters.values() if p.name != "self"]
    parts = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params]
    return "(" + ", ".join(parts) + ")"


def over_message(w: World) -> str:
    """The ``career_over`` message: why the career ended and what still works."""
    if w.s.collapsed:
        return (
            f"simulation is over: the lab collapsed in month {w.s.collapse_month}; only reading calls and query() work"
        )
    return f"simulation is over: month {w.s.month} was the horizon; only reading calls and query() work"


def jsonable(x: Any) -> Any:
    """``x`` as JSON-able plain data (tuples become lists, non-finite floats and other objects strings)."""
    t = type(x)
    if t is str or t is int or t is bool or x is None:  # the common cases first (same results)
        return x
    if t is float:
        return x if math.isfinite(x) else str(x)
    if t is dict:
        out = {}
        for k, v in x.items():
            tv = type(v)
            # a finite float is kept as it is, as jsonable(v) would keep it (without the call)
            plain = tv is str or tv is int or tv is bool or (tv is float and math.isfinite(v))
            out[k if type(k) is str else str(k)] = v if plain else jsonable(v)
        return out
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return repr(x)


def build_registry(namespaces: dict[str, type[Any]]) -> dict[str, dict[str, CallSpec]]:
    """namespace → method → :class:`CallSpec` for every :func:`api_call` method of the given classes."""
    default_rules = rules_mod.rules(WorldConfig())
    reg: dict[str, dict[str, CallSpec]] = {}
    for ns, cls in namespaces.items():
        calls = {}
        for name, fn in vars(cls).items():
            if name.startswith("_") or not hasattr(fn, "_api_mutating"):
                continue
            params = tuple(
                (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
                for p in fn._api_signature.parameters.values()
                if p.name != "self"
            )
            raw = inspect.getdoc(fn) or ""
            calls[name] = CallSpec(
                name=name,
                params=params,
                doc=rules_mod.render(raw, default_rules),
                mutating=fn._api_mutating,
                template=raw,
            )
        reg[ns] = calls
    return reg
