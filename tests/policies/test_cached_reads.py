"""The runner plays policies through the read cache (:class:`world.api.cached.CachedApi`): a
policy's repeated reads are answered with the kept results until the world changes, and
careers are exactly those of the plain API."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from world.api import API_CALLS, ActionError, Api
from world.api.cached import CachedApi
from world.config import WorldConfig
from world.engine import World
from world.policies import ALL_NAMES
from world.runner import AgentView, build_policy, play


def _plain_career(name: str, cfg: WorldConfig, seed: int) -> tuple[World, Any]:
    """A career through the plain API: every read asks the world."""
    w = World(cfg, seed)
    api = Api(w)
    pol = build_policy(name, w)
    view: Any = api if name == "oracle" else AgentView(api)
    pol.errors = []  # type: ignore[attr-defined]
    while not w.s.finished:
        m = w.s.month
        try:
            pol.act(view)
        except ActionError as exc:
            pol.errors.append([m, exc.code, exc.message])  # type: ignore[attr-defined]
        if not w.s.finished and w.s.month == m:
            api.time.next_month()
    return w, pol


@pytest.mark.parametrize("name", ALL_NAMES)
def test_cached_reads_play_the_same_careers_as_the_plain_view(name):
    """Every policy, through ``play()`` (the read cache), leaves the same world digest, action log,
    refusals and errors as through the plain view, on a short and a standard horizon."""
    for cfg, seed in ((WorldConfig(months=24), 3), (WorldConfig(), 102)):
        plain, plain_pol = _plain_career(name, cfg, seed)
        w = World(cfg, seed)
        pol = build_policy(name, w)
        play(w, pol)
        assert w.s.action_log == plain.s.action_log, (name, seed)
        assert w.digest() == plain.digest(), (name, seed)
        assert pol.refused == plain_pol.refused and pol.errors == plain_pol.errors  # type: ignore[attr-defined]


class _Recording:
    """A view whose calls keep every result with a deep copy taken when it was returned."""

    class _Ns:
        def __init__(self, ns: Any, name: str, seen: list[tuple[str, Any, Any]]) -> None:
            for method in API_CALLS[name]:
                setattr(self, method, self._wrap(getattr(ns, method), f"{name}.{method}", seen))

        @staticmethod
        def _wrap(fn: Any, call: str, seen: list[tuple[str, Any, Any]]) -> Any:
            def recorded(*args: Any, **kwargs: Any) -> Any:
                out = fn(*args, **kwargs)
                seen.append((call, out, copy.deepcopy(out)))
                return out

            return recorded

    def __init__(self, view: Any) -> None:
        self.seen: list[tuple[str, Any, Any]] = []
        for name in API_CALLS:
            setattr(self, name, self._Ns(getattr(view, name), name, self.seen))
        self.query = view.query
        self.memory = view.memory


@pytest.mark.parametrize("name", ALL_NAMES)
def test_reference_policies_never_change_what_they_read(name):
    """The read cache hands a policy the same object for a repeated read, so the reference
    policies must treat results as read-only: after every month of two careers, every result
    a call returned still equals the deep copy taken when it was returned."""
    for seed in (101, 5):
        w = World(WorldConfig(months=36), seed)
        api = CachedApi(Api(w))
        pol = build_policy(name, w)
        rec = _Recording(api if name == "oracle" else AgentView(api))
        while not w.s.finished:
            m = w.s.month
            pol.act(rec)
            for call, out, snapshot in rec.seen:
                assert out == snapshot, (name, seed, m, call)
            rec.seen.clear()
            if not w.s.finished and w.s.month == m:
                api.next_month_unread()
