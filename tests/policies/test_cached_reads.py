"""The runner's ``CachedReads`` (world/runner.py): a policy's repeated reads are answered from
memory until it changes something, and careers are exactly those of the plain agent view."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from world.api import API_CALLS, ActionError, Api
from world.config import WorldConfig
from world.engine import World
from world.policies import ALL_NAMES
from world.runner import AgentView, CachedReads, build_policy, play


def _plain_career(name: str, cfg: WorldConfig, seed: int) -> tuple[World, Any]:
    """A career as the runner played it before CachedReads: every read asks the API."""
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
    """Every policy, through ``play()`` (CachedReads), leaves the same world digest, action log,
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
    """CachedReads hands a policy the same object for a repeated read, so the reference
    policies must treat results as read-only: after every month of two careers, every result
    a call returned still equals the deep copy taken when it was returned."""
    for seed in (101, 5):
        w = World(WorldConfig(months=36), seed)
        api = Api(w)
        pol = build_policy(name, w)
        rec = _Recording(api if name == "oracle" else AgentView(api))
        view = CachedReads(rec)
        while not w.s.finished:
            m = w.s.month
            view.forget()
            pol.act(view)
            for call, out, snapshot in rec.seen:
                assert out == snapshot, (name, seed, m, call)
            rec.seen.clear()
            if not w.s.finished and w.s.month == m:
                api.next_month_unread()


def test_a_repeated_read_is_remembered_until_a_change_accepted_or_refused():
    """The same read twice asks the API once and returns the same object; different
    arguments (or the same value of another type) ask again; a changing call forgets
    everything, also when it is refused; ``forget()`` forgets too."""
    w = World(WorldConfig(), 7)
    api = Api(w)
    asked: list[str] = []
    real_news, real_dash = api.field.news, api.lab.dashboard

    class CountingField:
        def __getattr__(self, item: str) -> Any:
            return getattr(api.field, item)

        def news(self, *args: Any, **kwargs: Any) -> Any:
            asked.append("news")
            return real_news(*args, **kwargs)

    class CountingLab:
        def __getattr__(self, item: str) -> Any:
            return getattr(api.lab, item)

        def dashboard(self) -> Any:
            asked.append("dashboard")
            return real_dash()

    class View:
        def __getattr__(self, item: str) -> Any:
            return {"field": CountingField(), "lab": CountingLab()}.get(item) or getattr(api, item)

    view = CachedReads(View())
    first = view.lab.dashboard()
    assert view.lab.dashboard() is first and asked == ["dashboard"]
    assert view.field.news(5) is view.field.news(5) and asked.count("news") == 1
    view.field.news(6)
    view.field.news(n=5)
    assert asked.count("news") == 3
    with pytest.raises(ActionError):
        view.students.set_mentoring({"nobody": 1.0})  # refused: still forgets
    assert view.lab.dashboard() is not first and asked.count("dashboard") == 2
    view.forget()
    view.lab.dashboard()
    assert asked.count("dashboard") == 3
    with pytest.raises(AttributeError):
        view.world  # noqa: B018 - the cached view exposes no world
    with pytest.raises(AttributeError):
        view.lab = None  # type: ignore[misc]
