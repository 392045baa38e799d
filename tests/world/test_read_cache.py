"""The read cache around the API (world/api/cached.py, :class:`CachedApi`): its contract.
A read answered from what the wrapper kept equals the same read made afresh, after random calls
and along every reference policy's career; a kept result is the very object handed out before
while the world's version has not moved."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from world.api import API_CALLS, ActionError, Api
from world.api.cached import NOT_KEPT, CachedApi
from world.config import TOPICS, VENUES, WorldConfig
from world.engine import World
from world.policies import ALL_NAMES
from world.runner import AgentView, build_policy

READS = [(ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if not spec.mutating]
WRITES = [(ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if spec.mutating]
ARGS = {("field", "news"): [(), (40,), (3,)], ("lab", "ledger"): [(), (5,)], ("field", "preprints"): [(), (1,)]}
"""Argument lists tried for reading calls with parameters (``students.reports`` takes each person)."""


def _read_all(api: Api | CachedApi) -> dict[tuple[str, str, tuple[Any, ...]], Any]:
    """Every reading call's result (or its refusal code) for ``api``'s world as it is now."""
    out: dict[tuple[str, str, tuple[Any, ...]], Any] = {}
    calls = [(ns, m, args) for ns, m in READS if (ns, m) != ("students", "reports") for args in ARGS.get((ns, m), [()])]
    calls += [("students", "reports", (pid, n)) for pid in api.world.s.people for n in (1, 6)]
    for ns, m, args in calls:
        try:
            out[ns, m, args] = getattr(getattr(api, ns), m)(*args)
        except ActionError as exc:
            out[ns, m, args] = ("refused", exc.code)
    return out


def _same_as_fresh(api: CachedApi) -> None:
    """Every read of ``api`` equals the read of a plain API over the same world, and what it
    keeps for a read is the object the read returns."""
    kept, fresh = _read_all(api), _read_all(Api(api.world))
    for key, value in fresh.items():
        assert kept[key] == value, key
        ns, m, args = key
        held = api.kept_result(ns, m, list(args))
        assert held is NOT_KEPT or held is kept[key], key


def _ids(w: World) -> list[Any]:
    s = w.s
    ids: list[Any] = []
    for coll in (s.people, s.applicants, s.projects, s.drafts, s.submissions, s.publications, s.calls, s.events):
        ids.extend(list(coll)[-4:])
    return ids


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 30))
def test_kept_reads_equal_fresh_reads_after_random_calls(data, seed):
    """After each of a random sequence of changing calls (valid and refused, ticks included),
    every reading call through the wrapper equals the same read made by a plain API over the
    same world."""
    w = World(WorldConfig(months=14), seed)
    api = CachedApi(Api(w))
    _read_all(api)  # keep everything once
    for _ in range(data.draw(st.integers(10, 40))):
        if w.s.finished:
            break
        ns, m = data.draw(st.sampled_from([*WRITES, ("time", "next_month")]))
        params = [name for name, _ in API_CALLS[ns][m].params]
        ids = _ids(w) + list(TOPICS) + list(VENUES) + ["accept", "support", "decline"]
        args: list[Any] = []
        for name in params:
            if name in ("hours", "monthly_compute"):
                if ns == "students":
                    people = [p for p in w.s.people if w.s.people[p].status == "active"]
                    args.append({p: data.draw(st.sampled_from([0.0, 2.0, 5.0])) for p in people[:3]} or {"S001": 1.0})
                else:
                    args.append(data.draw(st.sampled_from([0, 3.0, 8.0, 25.0, 500.0])))
            elif name in ("members", "ids", "attach"):
                args.append(data.draw(st.lists(st.sampled_from(ids or ["x"]), min_size=1, max_size=2)))
            elif name == "tier":
                args.append(data.draw(st.sampled_from([1, 2, 3])))
            else:
                args.append(data.draw(st.sampled_from(ids or ["x"])))
        try:
            getattr(getattr(api, ns), m)(*args)
        except ActionError:
            pass
        _same_as_fresh(api)


class _CheckedView:
    """An agent view whose every reading call is compared with the same read made afresh."""

    class _Ns:
        def __init__(self, api: CachedApi, name: str) -> None:
            for method, spec in API_CALLS[name].items():
                fn = getattr(getattr(api, name), method)
                setattr(self, method, fn if spec.mutating else self._checked(api, name, method, fn))

        @staticmethod
        def _checked(api: CachedApi, name: str, method: str, fn: Any) -> Any:
            def read(*args: Any, **kwargs: Any) -> Any:
                out = fn(*args, **kwargs)
                assert out == getattr(getattr(Api(api.world), name), method)(*args, **kwargs), (name, method)
                _CheckedView.checked += 1
                return out

            return read

    checked = 0

    def __init__(self, api: CachedApi) -> None:
        for name in API_CALLS:
            setattr(self, name, self._Ns(api, name))
        self.query = api.query
        self.memory = api.memory


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_kept_read_of_a_policy_career_equals_a_fresh_read(name):
    """Along careers of every reference policy through the wrapper (as the runner plays them),
    every read the policy makes equals the read made afresh, and the careers (digest, action
    log) are those of a plain API."""
    for seed in (3, 101):
        cfg = WorldConfig(months=30)
        w = World(cfg, seed)
        api = CachedApi(Api(w))
        pol = build_policy(name, w)
        view: Any = _CheckedView(api)
        if name != "oracle":
            view = AgentView(view)  # type: ignore[arg-type]
        before = _CheckedView.checked
        while not w.s.finished:
            m = w.s.month
            try:
                pol.act(view)
            except ActionError:
                pass
            if not w.s.finished and w.s.month == m:
                api.next_month_unread()
        assert _CheckedView.checked > before or name == "do-nothing"  # the one policy that reads nothing
        plain = World(cfg, seed)
        pol2 = build_policy(name, plain)
        api2 = Api(plain)
        while not plain.s.finished:
            m = plain.s.month
            try:
                pol2.act(api2 if name == "oracle" else AgentView(api2))
            except ActionError:
                pass
            if not plain.s.finished and plain.s.month == m:
                api2.time.next_month()
        assert w.s.action_log == plain.s.action_log and w.digest() == plain.digest(), (name, seed)


def test_a_kept_read_is_handed_out_until_the_world_version_moves():
    """A repeated read returns the same object; a refused change and an accepted change that
    changes nothing keep it (the version did not move); an accepted change and a tick forget
    every kept read; a plain API hands out a new object for every read."""
    w = World(WorldConfig(), 101)
    api = CachedApi(Api(w))
    dash, news = api.lab.dashboard(), api.field.news(5)
    assert api.lab.dashboard() is dash and api.field.news(5) is news and api.call("field", "news", [5]) is news
    with pytest.raises(ActionError):
        api.grants.propose("no-such-call", TOPICS[0], 25.0)
    assert api.lab.dashboard() is dash
    call = dash["open_grant_calls"][0]["id"]
    version = w.version
    api.grants.propose(call, TOPICS[0], 25.0)
    assert w.version == version + 1
    assert api.field.news(5) is not news and api.lab.dashboard() is not dash
    assert api.lab.dashboard()["proposals_pending"]
    kept = api.papers.drafts()
    api.time.next_month()
    assert api.papers.drafts() is not kept
    plain = Api(w)
    assert plain.lab.dashboard() is not plain.lab.dashboard()
    assert plain.grants.proposals() is not plain.grants.proposals()


def test_kept_answers_the_kept_object_without_building_one():
    """``CachedApi.kept_result`` answers the very object a read returned while the version has not
    moved (arguments as given, their types too), ``NOT_KEPT`` before the first read, after a
    change, for changing and unknown calls and for ``query``; it never builds a result."""
    w = World(WorldConfig(), 4)
    api = CachedApi(Api(w))
    assert api.kept_result("lab", "dashboard") is NOT_KEPT and api.kept_result("field", "news", [5]) is NOT_KEPT
    assert api.kept_result("lab", "dashboard") is NOT_KEPT  # asking built nothing
    dash, news = api.lab.dashboard(), api.field.news(5)
    assert api.kept_result("lab", "dashboard") is dash and api.kept_result("field", "news", [5]) is news
    assert api.kept_result("field", "news", [6]) is NOT_KEPT and api.kept_result("field", "news", ["5"]) is NOT_KEPT
    assert api.kept_result("field", "news", [5.0]) is NOT_KEPT and api.kept_result("field", "news", [True]) is NOT_KEPT
    assert api.kept_result("grants", "propose", [1]) is NOT_KEPT and api.kept_result("nope", "x") is NOT_KEPT
    assert (
        api.kept_result("lab", "no_such_call") is NOT_KEPT
        and api.kept_result("query", "query", ["select 1"]) is NOT_KEPT
    )
    api.recruit.hire_ra()
    assert api.kept_result("lab", "dashboard") is NOT_KEPT and api.kept_result("field", "news", [5]) is NOT_KEPT


def test_kept_reads_hold_only_for_the_world_as_read():
    """A kept read holds only for the world's version and state it was read at: a tick, a
    change through another API on the same world and a replaced state each end it."""
    w = World(WorldConfig(), 3)
    api = CachedApi(Api(w))
    for move in (
        lambda: w.next_month(),
        lambda: Api(w).recruit.hire_ra(),
        lambda: setattr(w, "s", World(WorldConfig(), 4).s),
    ):
        d = api.lab.dashboard()
        assert api.kept_result("lab", "dashboard") is d
        move()
        assert api.kept_result("lab", "dashboard") is NOT_KEPT
        assert api.lab.dashboard() is not d and api.lab.dashboard() == Api(w).lab.dashboard()


def test_a_failing_change_moves_the_version():
    """A changing call that fails with anything but a refusal (a bug part way through) moves
    the world's version: the wrapper forgets what it kept, since part of the world may have
    changed."""
    w = World(WorldConfig(), 3)
    api = CachedApi(Api(w))
    d = api.lab.dashboard()
    version = w.version

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("half way")

    from world import people as people_mod

    real = people_mod.hire_staff
    people_mod.hire_staff = broken  # type: ignore[assignment]
    try:
        with pytest.raises(RuntimeError):
            api.recruit.hire_ra()
    finally:
        people_mod.hire_staff = real  # type: ignore[assignment]
    assert w.version == version + 1 and api.kept_result("lab", "dashboard") is NOT_KEPT and api.lab.dashboard() == d


def test_set_mentoring_of_a_big_lab_answers_as_a_new_api_would():
    """``students.set_mentoring`` through one long-lived wrapper and through a new plain API
    per call: a lab of 250 researchers whose hours are set 100 people a call (the dict
    limit), with hires and ticks in between, gets the same answers, refusals and world."""
    import random

    from tests.world.mechanics_helpers import add_person, make_world

    worlds = [make_world(seed=5, start_budget=1e9) for _ in range(2)]
    for w in worlds:
        for i in range(250):
            add_person(w, "phd" if i % 5 else "postdoc")
    kept_api = CachedApi(Api(worlds[0]))
    rnd = random.Random(3)
    answers: list[list[Any]] = [[], []]
    refused = 0
    for _month in range(4):
        for step in range(12):
            ids = [p.id for p in worlds[0].s.people.values() if p.status == "active" and p.role in ("phd", "postdoc")]
            start = rnd.randrange(0, len(ids), 50)
            hours = {pid: rnd.choice([0.0, 0.01, 0.05, 0.1, 0.12, 0.3]) for pid in ids[start : start + 100]}
            if step == 5:
                hours = {ids[0]: 40.0}  # over the pool: refused
            for k, w in enumerate(worlds):
                api: Any = kept_api if k == 0 else Api(w)
                try:
                    answers[k].append(api.students.set_mentoring(dict(hours)))
                    answers[k].append(api.lab.attention())
                except ActionError as exc:
                    answers[k].append([exc.code, str(exc)])
                    refused += k == 0
            if step == 7:
                for k, w in enumerate(worlds):
                    (kept_api if k == 0 else Api(w)).recruit.hire_ra()
        for w in worlds:
            w.next_month()
    assert answers[0] == answers[1]
    assert worlds[0].digest() == worlds[1].digest()
    assert 4 <= refused < len(answers[0]) - 8  # both kinds of answer were compared


def _baseline_months(w: World, months: int) -> None:
    """Play ``months`` months of the baseline policy on ``w`` (through a plain API)."""
    api = Api(w)
    pol = build_policy("baseline", w)
    for _ in range(months):
        pol.act(AgentView(api))
        api.time.next_month()


def test_a_replaced_state_is_read_afresh():
    """A wrapper that has read everything of a career in month 7 and then finds the world
    holding another career's state of month 10 answers every read as a plain API does."""
    w = World(WorldConfig(), 8)
    _baseline_months(w, 6)
    api = CachedApi(Api(w))
    _same_as_fresh(api)
    other = World(WorldConfig(), 5)
    _baseline_months(other, 9)
    w.s = other.s
    _same_as_fresh(api)


def test_attention_is_the_kept_dashboards_section():
    """``lab.attention()`` read while a dashboard is kept at the same version is that
    dashboard's ``"attention"`` (one build for both, by the wrapper's namespace and by
    ``call``), equal to the plain API's; after a change it is built again."""
    w = World(WorldConfig(), 12)
    api = CachedApi(Api(w))
    dash = api.lab.dashboard()
    assert api.lab.attention() is dash["attention"] and api.call("lab", "attention") is dash["attention"]
    assert api.lab.attention() == Api(w).lab.attention()
    api.recruit.hire_ra()
    alone = api.call("lab", "attention")
    assert alone is not dash["attention"] and alone == Api(w).lab.attention()
    assert api.lab.dashboard()["attention"] == alone
