"""The API's kept reads (world/api/cache.py): a read answered from what the API kept since the
last change equals the same read made afresh, after random calls and along every reference
policy's career; a change forgets only what it may have changed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from world.api import API_CALLS, NOT_KEPT, ActionError, Api
from world.config import TOPICS, VENUES, WorldConfig
from world.engine import World
from world.policies import ALL_NAMES
from world.runner import AgentView, build_policy

READS = [(ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if not spec.mutating]
WRITES = [(ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if spec.mutating]
ARGS = {("field", "news"): [(), (40,), (3,)], ("lab", "ledger"): [(), (5,)], ("field", "preprints"): [(), (1,)]}
"""Argument lists tried for reading calls with parameters (``students.reports`` takes each person)."""


def _read_all(api: Api) -> dict[tuple[str, str, tuple[Any, ...]], Any]:
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


def _same_as_fresh(api: Api) -> None:
    """Every read of ``api`` equals the read of a new API over the same world (which keeps nothing yet)."""
    kept, fresh = _read_all(api), _read_all(Api(api.world))
    for key, value in fresh.items():
        assert kept[key] == value, key


def _kept_holds(api: Api, probes: dict[tuple[str, str, tuple[Any, ...]], Any] | None = None) -> None:
    """Whatever ``api.kept`` answers for a reading call is the very object the call returns,
    and equals the read made afresh; an API without ``shared_results`` keeps nothing. Each
    of ``probes`` (``Api.kept_probe`` of a read, resolved earlier) answers what ``kept`` does."""
    fresh = _read_all(Api(api.world))
    for (ns, m, args), value in fresh.items():
        probe = (probes or {}).get((ns, m, args), _NO_PROBE)
        probed = NOT_KEPT if probe is None else probe() if probe is not _NO_PROBE else _NO_PROBE
        kept = api.kept(ns, m, list(args))
        assert probed is _NO_PROBE or probed is kept, (ns, m, args)
        if kept is NOT_KEPT:
            continue
        assert api.shared_results, (ns, m)
        assert kept == value, (ns, m, args)
        assert getattr(getattr(api, ns), m)(*args) is kept, (ns, m, args)


_NO_PROBE: Any = object()


def _ids(w: World) -> list[Any]:
    s = w.s
    ids: list[Any] = []
    for coll in (s.people, s.applicants, s.projects, s.drafts, s.submissions, s.publications, s.calls, s.events):
        ids.extend(list(coll)[-4:])
    return ids


@pytest.mark.parametrize("shared", [True, False])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 30))
def test_kept_reads_equal_fresh_reads_after_random_calls(shared, data, seed):
    """After each of a random sequence of changing calls (valid and refused, ticks included),
    every reading call of an API that keeps its reads between changes equals the same read
    made by a new API over the same world."""
    w = World(WorldConfig(months=14), seed)
    api = Api(w, shared_results=shared)
    # keep everything once, and resolve each read's probe (Api.kept_probe) now, for all the calls below
    probes = {(ns, m, args): api.kept_probe(ns, m, list(args)) for ns, m, args in _read_all(api)}
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
        _kept_holds(api, probes)
        _same_as_fresh(api)


class _CheckedView:
    """An agent view whose every reading call is compared with the same read made afresh."""

    class _Ns:
        def __init__(self, api: Api, name: str) -> None:
            for method, spec in API_CALLS[name].items():
                fn = getattr(getattr(api, name), method)
                setattr(self, method, fn if spec.mutating else self._checked(api, name, method, fn))

        @staticmethod
        def _checked(api: Api, name: str, method: str, fn: Any) -> Any:
            def read(*args: Any, **kwargs: Any) -> Any:
                out = fn(*args, **kwargs)
                assert out == getattr(getattr(Api(api.world), name), method)(*args, **kwargs), (name, method)
                _CheckedView.checked += 1
                return out

            return read

    checked = 0

    def __init__(self, api: Api) -> None:
        for name in API_CALLS:
            setattr(self, name, self._Ns(api, name))
        self.query = api.query
        self.memory = api.memory


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_kept_read_of_a_policy_career_equals_a_fresh_read(name):
    """Along careers of every reference policy through an API with ``shared_results`` (as the
    runner plays them), every read the policy makes equals the read made afresh, and the
    careers (digest, action log) are those of a plain API."""
    for seed in (3, 101):
        cfg = WorldConfig(months=30)
        w = World(cfg, seed)
        api = Api(w, shared_results=True)
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


def test_shared_results_are_kept_and_a_change_forgets_only_its_areas():
    """With ``shared_results`` a repeated read returns the same object; a proposal forgets the
    proposals and the dashboard but keeps the drafts and the news; a tick forgets everything;
    a plain API hands out a new object for every read."""
    w = World(WorldConfig(), 101)
    api = Api(w, shared_results=True)
    dash, drafts, news = api.lab.dashboard(), api.papers.drafts(), api.field.news(5)
    props = api.grants.proposals()
    assert api.lab.dashboard() is dash and api.field.news(5) is news and api.grants.proposals() is props
    call = dash["open_grant_calls"][0]["id"]
    api.grants.propose(call, TOPICS[0], 25.0)
    assert api.papers.drafts() is drafts and api.field.news(5) is news
    assert api.grants.proposals() is not props and len(api.grants.proposals()) == len(props) + 1
    assert api.lab.dashboard() is not dash and api.lab.dashboard()["proposals_pending"]
    kept = api.papers.drafts()
    api.time.next_month()
    assert api.papers.drafts() is not kept
    plain = Api(w)
    assert plain.lab.dashboard() is not plain.lab.dashboard()
    assert plain.grants.proposals() is not plain.grants.proposals()


def test_a_kept_probe_answers_what_kept_answers_whenever_it_is_called():
    """``Api.kept_probe`` resolves a reading call once: the function it returns answers, at
    each later call, what ``Api.kept`` answers then (the kept object, ``NOT_KEPT`` after a
    change that touches it or a tick, the new kept object once read again); it is None for
    changing and unknown calls, arguments never kept, and an API without ``shared_results``."""
    w = World(WorldConfig(), 101)
    api = Api(w, shared_results=True)
    dash_probe, news_probe = api.kept_probe("lab", "dashboard"), api.kept_probe("field", "news", [], {"n": 5})
    assert dash_probe is not None and news_probe is not None
    assert dash_probe() is NOT_KEPT and news_probe() is NOT_KEPT  # nothing kept yet, nothing built
    dash, news = api.lab.dashboard(), api.field.news(5)
    assert dash_probe() is dash and news_probe() is news
    api.grants.propose(dash["open_grant_calls"][0]["id"], TOPICS[0], 25.0)
    assert dash_probe() is NOT_KEPT and api.kept("lab", "dashboard") is NOT_KEPT and news_probe() is news
    dash = api.lab.dashboard()
    assert dash_probe() is dash
    api.time.next_month()
    assert dash_probe() is NOT_KEPT and news_probe() is NOT_KEPT
    never = [("grants", "propose", [1]), ("nope", "x", []), ("lab", "no_such_call", []), ("query", "query", ["q"])]
    never += [("field", "news", [[5]]), ("field", "news", [1, 2, 3])]
    for ns, m, args in never:
        assert api.kept_probe(ns, m, args) is None, (ns, m, args)
    assert Api(w).kept_probe("lab", "dashboard") is None


def test_a_bound_read_answers_what_the_call_answers_whenever_it_is_called():
    """``Api.bound_read`` binds a reading call once: each call of it answers what
    ``Api.call`` answers then (the same kept object, a new one after a change or a tick,
    the same refusal for bad arguments); None for changing and unknown calls, query and
    memory, and arguments that are not a list and a str-keyed dict."""
    w = World(WorldConfig(), 101)
    api = Api(w, shared_results=True)
    dash, news, bad = api.bound_read("lab", "dashboard"), api.bound_read("field", "news", [], {"n": 5}), None
    assert dash is not None and news is not None
    assert dash() is api.call("lab", "dashboard") and news() is api.call("field", "news", [5])
    before = dash()
    api.grants.propose(before["open_grant_calls"][0]["id"], TOPICS[0], 25.0)
    assert dash() is not before and dash() is api.call("lab", "dashboard") and dash() == Api(w).lab.dashboard()
    api.time.next_month()
    assert news() == Api(w).field.news(5) and news() is api.call("field", "news", [], {"n": 5})
    bad = api.bound_read("field", "news", ["x"])
    assert bad is not None
    with pytest.raises(ActionError) as refused:
        bad()
    with pytest.raises(ActionError) as asked:
        api.call("field", "news", ["x"])
    assert refused.value.code == asked.value.code and refused.value.message == asked.value.message
    never = [("grants", "propose", [1]), ("nope", "x", []), ("lab", "no_such_call", []), ("query", "query", ["q"])]
    never += [("memory", "read", []), ("lab", "dashboard", "x"), ("field", "news", [], {1: 2})]
    for ns, m, *rest in never:
        assert api.bound_read(ns, m, *rest) is None, (ns, m, rest)


def test_kept_answers_the_kept_object_without_building_one():
    """``Api.kept`` answers the object a reading call returned while nothing it reads has
    changed (arguments bound as the call binds them), ``NOT_KEPT`` before the first read,
    after a change that touches it, after a tick, for changing and unknown calls, and for an
    API without ``shared_results``; it never builds a result."""
    w = World(WorldConfig(), 101)
    api = Api(w, shared_results=True)
    assert api.kept("lab", "dashboard") is NOT_KEPT and api.kept("field", "news", [5]) is NOT_KEPT
    assert api.kept("lab", "dashboard") is NOT_KEPT  # asking built nothing
    dash, news = api.lab.dashboard(), api.field.news(5)
    assert api.kept("lab", "dashboard") is dash
    assert api.kept("field", "news", [5]) is news and api.kept("field", "news", [], {"n": 5}) is news
    assert api.kept("field", "news", [6]) is NOT_KEPT and api.kept("field", "news", ["5"]) is NOT_KEPT
    assert api.kept("grants", "propose", [1]) is NOT_KEPT and api.kept("nope", "x") is NOT_KEPT
    assert api.kept("lab", "no_such_call") is NOT_KEPT and api.kept("query", "query", ["select 1"]) is NOT_KEPT
    api.grants.propose(dash["open_grant_calls"][0]["id"], TOPICS[0], 25.0)
    assert api.kept("lab", "dashboard") is NOT_KEPT and api.kept("field", "news", [5]) is news
    api.time.next_month()
    assert api.kept("field", "news", [5]) is NOT_KEPT
    plain = Api(w)
    plain.lab.dashboard()
    assert plain.kept("lab", "dashboard") is NOT_KEPT


@pytest.mark.parametrize("shared", [False, True])
def test_set_mentoring_of_a_big_lab_answers_as_a_new_api_would(shared):
    """``students.set_mentoring`` keeps the people's hours and the pool between its calls
    (``Api.mentoring_roster``): a lab of 250 researchers whose hours are set 100 people a call
    (the dict limit), with hires and ticks in between, gets from one long-lived API the same
    answers, refusals and world as a twin world whose every call goes through a new API."""
    import random

    from tests.world.mechanics_helpers import add_person, make_world

    worlds = [make_world(seed=5, start_budget=1e9) for _ in range(2)]
    for w in worlds:
        for i in range(250):
            add_person(w, "phd" if i % 5 else "postdoc")
    kept_api = Api(worlds[0], shared_results=shared)
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
                api = kept_api if k == 0 else Api(w, shared_results=shared)
                try:
                    answers[k].append(api.students.set_mentoring(dict(hours)))
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


@pytest.mark.parametrize("shared", [False, True])
def test_set_mentoring_carries_the_roster_and_attention_parts_it_leaves(shared):
    """After an accepted ``students.set_mentoring``, the read cache holds the mentoring roster
    and the attention parts of the world as the change left it (carried over the change, not
    rebuilt): equal to what a new API builds, and the next call builds neither again."""
    from tests.world.mechanics_helpers import add_person, make_world
    from world import people as people_mod
    from world.api.cache import SECTIONS

    w = make_world(seed=5, start_budget=1e9)
    ids = [add_person(w, "phd").id for _ in range(6)]
    api = Api(w, shared_results=shared)
    api.students.set_mentoring({ids[1]: 3.25, ids[4]: 1.5})
    sections = api._cache.sections
    roster = sections[SECTIONS.index("mentoring_roster")]
    parts = sections[SECTIONS.index("attention_parts")]
    assert roster is not None and parts is not None  # carried, not dropped
    assert roster == Api(w).mentoring_roster()
    assert parts == people_mod.attention_totals(w)
    assert roster[1] == [p.mentoring for p in w.s.people.values() if p.status == "active"]
    assert api.mentoring_roster() is roster  # kept: the next set_mentoring builds nothing
    api.recruit.hire_ra()  # changes the people: both forgotten
    assert api._cache.sections[SECTIONS.index("mentoring_roster")] is None
    assert api.mentoring_roster() == Api(w).mentoring_roster()


@pytest.mark.parametrize("shared", [False, True])
def test_open_calls_come_from_an_index_kept_per_state(shared):
    """The month's grant calls (``grants.calls()`` and the dashboard's ``open_grant_calls``)
    come from the read cache's index of the calls by month: built once for a state and kept
    over the ticks, it gives a walk over the career's calls in every month; when the world's
    state is replaced by one with other calls (another scenario's call months), the index is
    built again for it."""
    from world import views

    w = World(WorldConfig(), 7)
    api = Api(w, shared_results=shared)
    index = None
    while not w.s.finished:
        rows = [views.call_row(w, c) for c in views.open_calls(w)]
        assert api.grants.calls() == rows
        assert [r["id"] for r in api.lab.dashboard()["open_grant_calls"]] == [r["id"] for r in rows]
        assert index is None or api._cache.indexes.calls_by_month is index  # built once for the career
        index = api._cache.indexes.calls_by_month
        w.next_month()
    agencies = WorldConfig().agencies
    agencies["BSF"]["call_months"] = [1, 3]
    other = World(WorldConfig(agencies=agencies), 7)
    assert [c.id for c in views.open_calls(other)] != [c.id for c in views.open_calls(World(WorldConfig(), 7))]
    w.s = other.s
    assert api.grants.calls() == [views.call_row(other, c) for c in views.open_calls(other)]
    assert api._cache.indexes.calls_by_month is not index


def _baseline_months(w: World, months: int) -> None:
    """Play ``months`` months of the baseline policy on ``w`` (through a plain API)."""
    api = Api(w)
    pol = build_policy("baseline", w)
    for _ in range(months):
        pol.act(AgentView(api))
        api.time.next_month()


@pytest.mark.parametrize("shared", [False, True])
def test_indexes_of_a_replaced_state_are_built_again(shared):
    """The API's incremental indexes (live entities, proposal rows, news rows, the positions
    of each person's reports, the calls by month) belong to one state object: an API that
    has read everything of a career in month 7 and then finds the world holding another
    career's state of month 10 (longer collections, not shorter) answers every read as a new
    API does, instead of extending the first career's indexes (a person's last 6 reports
    reach back before the first career's length)."""
    w = World(WorldConfig(), 8)
    _baseline_months(w, 6)
    api = Api(w, shared_results=shared)
    _same_as_fresh(api)
    other = World(WorldConfig(), 5)
    _baseline_months(other, 9)
    assert len(other.s.news) > len(w.s.news) and len(other.s.student_reports) > len(w.s.student_reports) > 0
    assert len(other.s.proposals) > len(w.s.proposals) > 0
    w.s = other.s
    _same_as_fresh(api)


def test_kept_reads_and_probes_hold_only_for_the_world_as_read():
    """ReadCache.holds is the one test of validity that reads (which then forget) and probes
    (which change nothing) share: a new cache holds nothing; after a read it holds; a tick,
    a change through another API and a replaced state each end it, and the probe of a kept
    read answers NOT_KEPT from then on while the cache itself is left as it was."""
    w = World(WorldConfig(), 3)
    api = Api(w, shared_results=True)
    assert not api._cache.holds(w)
    probe = api.kept_probe("lab", "dashboard")
    assert probe is not None and probe() is NOT_KEPT
    for move in (
        lambda: w.next_month(),
        lambda: Api(w).recruit.hire_ra(),
        lambda: setattr(w, "s", World(WorldConfig(), 4).s),
    ):
        d = api.lab.dashboard()
        assert api._cache.holds(w) and probe() is d
        version, state = api._cache.version, api._cache.state
        move()
        assert not api._cache.holds(w) and probe() is NOT_KEPT
        assert (api._cache.version, api._cache.state) == (version, state)  # the probe forgot nothing
        assert api.lab.dashboard() is not d and api._cache.holds(w)
