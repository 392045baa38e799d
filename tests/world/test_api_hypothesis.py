"""Property tests of the agent API (MECHANICS §15, issue 2 "Hypothesis").

Random sequences of ``Api.call(ns, method, args, kwargs)`` with valid ids mixed with hostile
arguments (wrong types, negative hours, NaN, inf, huge numbers, unknown ids, unicode, nested
junk) never raise anything but :class:`ActionError`; a refused call leaves ``digest()``
unchanged; afterwards budget = start + Σ ledger, attention used ≤ pool (except in a month an
RA was hired mid-month, §3), and nothing changes after the end.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from world import people as people_mod
from world.api import API_CALLS, ActionError, Api
from world.config import TOPICS, VENUES, WorldConfig
from world.engine import World

WORDS = [
    "accept",
    "decline",
    "support",
    "ignore",
    "NAIC",
    "CLAR",
    "W-SHOP",
    "JMR",
    "TIF-rolling",
    "BSF-m02",
    "AMP-m05",
    "FEL-m09",
    "S001",
    "RA001",
    "MGR001",
    "PD001",
    "APP001",
    "PJ001",
    "D001",
    "SUB001",
    "P001",
    "E001",
    "PR001",
    "A001",
    "",
    "S0\u00e9\u4e2d",
    "\U0001f600",
    "select 1",
    "DROP TABLE ledger",
]
JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.integers(-3, 60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([-1.0, 0.0, 5.0, 12.0, 25.0, 1e308, -0.0])
    | st.text(max_size=10)
    | st.sampled_from(WORDS),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4) | st.sampled_from(WORDS), inner, max_size=3)
    ),
    max_leaves=6,
)
METHODS = [(ns, m) for ns, calls in API_CALLS.items() for m in calls] + [
    ("query", "query"),
    ("memory", "read"),
    ("memory", "write"),
    ("nope", "x"),
    ("lab", "__init__"),
    ("lab", "_w"),
]


def _known_ids(w: World) -> list:
    s = w.s
    ids: list = []
    for coll in (
        s.people,
        s.applicants,
        s.projects,
        s.drafts,
        s.submissions,
        s.publications,
        s.calls,
        s.events,
        s.proposals,
    ):
        ids.extend(list(coll)[-6:])
    return ids + list(TOPICS) + list(VENUES)


def _arg(data, w: World):
    ids = _known_ids(w)
    return data.draw(
        st.one_of(
            st.sampled_from(ids),
            st.sampled_from(ids),
            JUNK,
            st.lists(st.sampled_from(ids), min_size=1, max_size=3),
            st.dictionaries(st.sampled_from(ids), st.floats(-5, 50) | JUNK, min_size=1, max_size=3),
            st.integers(1, 3),
            st.floats(0, 30),
        )
    )


def _invariants(w: World, start: float, ra_month: int | None) -> None:
    s = w.s
    total = start + sum(r[2] for r in s.ledger)
    assert math.isclose(s.budget, total, abs_tol=0.006 * len(s.ledger) + 1e-6)
    used = people_mod.mentoring_reserved(w) + s.oneoff_used
    if ra_month != s.month:
        assert used <= people_mod.attention_pool(w) + 1e-6
    assert all(p.mentoring >= 0 for p in s.people.values())


_HOSTILE = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=10, **_HOSTILE)
@given(data=st.data(), seed=st.integers(0, 40), months=st.integers(3, 9))
def test_random_hostile_api_calls(data, seed, months):
    """Only ActionError escapes; refusals change nothing; invariants hold; the end is final
    (10 random careers; the slow run tries 60)."""
    _hostile_career(data, seed, months)


@pytest.mark.slow
@settings(max_examples=60, **_HOSTILE)
@given(data=st.data(), seed=st.integers(0, 40), months=st.integers(3, 9))
def test_random_hostile_api_calls_at_length(data, seed, months):
    """As test_random_hostile_api_calls, over 60 random careers."""
    _hostile_career(data, seed, months)


def _hostile_career(data, seed, months):
    """Random calls with junk arguments over a short career, then to its end."""
    w = World(WorldConfig(months=months), seed)
    api = Api(w)
    start = w.s.budget
    ra_month = None
    for _ in range(data.draw(st.integers(5, 45))):
        if data.draw(st.integers(0, 9)) == 0:
            ns, m = "time", "next_month"
        else:
            ns, m = data.draw(st.sampled_from(METHODS))
        n_args = data.draw(st.integers(0, 4))
        args = [_arg(data, w) for _ in range(n_args)]
        kwargs = {}
        if data.draw(st.integers(0, 5)) == 0:
            kwargs = data.draw(
                st.dictionaries(st.sampled_from(["hours", "n", "ids", "attach", "topic", "x", "sql"]), JUNK, max_size=2)
            )
        finished = w.s.finished
        before = w.digest()
        try:
            api.call(ns, m, args, kwargs)
        except ActionError as e:
            assert isinstance(e.code, str) and e.message
            assert w.digest() == before, (ns, m, args, kwargs)
        else:
            if (ns, m) == ("recruit", "hire_ra"):
                ra_month = w.s.month
            if finished:
                assert w.digest() == before or (ns, m) == ("memory", "write")
        _invariants(w, start, ra_month)
    # drive to the end, then nothing (but the notes) may change
    while not w.s.finished:
        api.time.next_month()
    _invariants(w, start, ra_month)
    before = w.digest()
    for ns, calls in API_CALLS.items():
        for m, spec in calls.items():
            try:
                api.call(ns, m, [_arg(data, w) for _ in range(len([p for p in spec.params]))], {})
            except ActionError:
                pass
    assert w.digest() == before
