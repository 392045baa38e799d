"""The call registry and argument binding of the agent API (MECHANICS §15).

``ActionError`` lives in :mod:`world.errors` and is re-exported here. A namespace method
becomes an API call with :func:`api_call`: its arguments are bound by name and checked
against the limits, a mutating call is refused after the end of the career, and an accepted
mutating call is appended to the world's action log as ``[month, "namespace.method",
kwargs]``. :func:`build_registry` turns the namespace classes
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


def api_call(mutating: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a namespace method as an API call: bind its arguments, check their sizes, refuse a
    mutating call after the end of the career or past the month's cap, delegate, and log.

    The decorated method's first parameter is the namespace (``self``); the namespace has
    ``_name`` (its API name) and ``_w`` (the world of its :class:`~world.api.Api`, acted on).
    Every argument is checked against :mod:`world.api.limits` first. An accepted mutating call
    is appended to the world's action log and moves ``world.version``; one that raises
    :class:`ActionError`, or returns :class:`Unchanged`, is not logged and moves nothing. A
    mutating call failing otherwise (a bug) moves the version too: it may have changed part
    of the world (:class:`world.api.cached.CachedApi` keys on the version).
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn)
        params = sig.replace(parameters=list(sig.parameters.values())[1:])  # without self
        names = list(params.parameters)
        in_order = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params.parameters.values())
        method = fn.__name__

        def bind(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
            """The arguments by parameter name, each checked against the limits (numpy
            scalars as the Python numbers they hold)."""
            for k in kwargs:  # before binding: a huge keyword name never reaches a message
                if len(k) > MAX_STRING_CHARS:
                    raise ActionError(
                        "bad_argument",
                        f"{self._name}.{method}: a keyword argument name of {len(k):,} characters; "
                        f"parameters: {', '.join(names) or 'none'}",
                    )
            if in_order and not kwargs and len(args) == len(names):  # what bind() gives, ~8 % of a policy's month
                bound = dict(zip(names, args, strict=True))
            else:
                try:
                    arguments = params.bind(*args, **kwargs)
                except TypeError as exc:
                    call = f"{self._name}.{method}"
                    raise ActionError("bad_argument", f"{call}: {exc}; usage: {call}{_usage(sig)}") from None
                arguments.apply_defaults()
                bound = dict(arguments.arguments)
            for k, v in bound.items():
                t = type(v)
                if v is None or t is bool or t is float or (t is int and -_INT_LIMIT < v < _INT_LIMIT):
                    continue
                if t is str and len(v) <= MAX_STRING_CHARS:
                    continue
                bounded(f"{self._name}.{method}: {k}", v)
                bound[k] = plain(v)
            return bound

        if not mutating:

            @functools.wraps(fn)
            def read(self: Any, *args: Any, **kwargs: Any) -> Any:
                if not args and not kwargs and not names:
                    return fn(self)
                return fn(self, **bind(self, args, kwargs))

            wrapper = read
        else:

            @functools.wraps(fn)
            def change(self: Any, *args: Any, **kwargs: Any) -> Any:
                bound = bind(self, args, kwargs)
                w = self._w
                if w.s.finished:
                    raise ActionError("career_over", over_message(w))
                call = f"{self._name}.{method}"
                month = w.s.month
                log = w.s.action_log
                if call != "time.next_month" and _changes_this_month(log, month) >= MAX_CHANGES_PER_MONTH:
                    raise ActionError(
                        "cap_reached",
                        f"{call}: this month already has {MAX_CHANGES_PER_MONTH} "
                        f"logged changes (the limit per month); close the month with time.next_month()",
                    )
                call_args = jsonable(bound)
                try:
                    result = fn(self, **bound)
                except ActionError:
                    raise  # refused before anything changed
                except BaseException:
                    w.version += 1  # a failure part way may have changed something
                    raise
                if type(result) is Unchanged:  # accepted, but nothing changed: no log entry, no new version
                    return dict(result)
                log.append([month, call, call_args])
                w.version += 1
                return result

            wrapper = change
        wrapper._api_mutating = mutating  # type: ignore[attr-defined]
        wrapper._api_signature = sig  # type: ignore[attr-defined]
        return wrapper

    return deco


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
        return _jsonable_dict(x)
    return _jsonable_other(x)


def _jsonable_dict(x: dict[Any, Any]) -> dict[str, Any]:
    """:func:`jsonable` of a plain dict: keys as text, a plain value kept as it is (without the call)."""
    out = {}
    for k, v in x.items():
        tv = type(v)
        plain = tv is str or tv is int or tv is bool or (tv is float and math.isfinite(v))
        out[k if type(k) is str else str(k)] = v if plain else jsonable(v)
    return out


def _jsonable_other(x: Any) -> Any:
    """:func:`jsonable` of what is not exactly a str, int, bool, None, float or dict: subclasses
    and other mappings, lists and tuples, anything else as its repr."""
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
