"""MECHANICS §13 (RNG discipline) and §18 invariant 2: keyed draws are independent of
unrelated actions; stream states round-trip."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from world.api import Api
from world.engine import World
from world.rng import STREAMS, Rng, key_digest


def _policy(api: Api, extra: bool) -> None:
    """A fixed career for 30 months; ``extra`` adds unrelated actions (query + dashboard in
    month 2, an interview of an applicant the policy never considers, an RA's extra project)."""
    w = api.world
    while w.s.month <= 30 and not w.s.finished:
        m = w.s.month
        if m == 1:
            apps = sorted(api.recruit.applicants(), key=lambda a: -(a["transcript"] + a["letter"]))
            for a in apps[:4]:
                api.recruit.offer(a["id"])
            if extra and len(apps) > 4:
                api.recruit.interview(apps[-1]["id"])
        if m == 2:
            api.recruit.hire_ra()
            if extra:
                api.query("select * from news")
                api.lab.dashboard()
        if m == 5:
            phds = [p["id"] for p in api.students.list() if p["role"] == "phd" and p["status"] == "active"]
            api.students.set_mentoring({p: 5 for p in phds})
            for i in range(0, len(phds), 2):
                api.projects.start("reasoning", 1, phds[i : i + 2], 800)
        if m == 6 and extra:
            ra = next(p["id"] for p in api.students.list() if p["role"] == "ra")
            api.projects.start("theory", 3, [ra], 0)
        for d in api.lab.dashboard()["available_drafts"]:
            api.papers.submit(d["id"], "W-SHOP")
        api.time.next_month()


def test_s13_unrelated_actions_change_no_keyed_draw():
    """§13/§18 inv. 2: an extra query, an extra interview and an extra project leave the hotness
    trajectory, every applicant pool and the other submissions' ids/status/reviewer scores unchanged."""
    runs = []
    for extra in (False, True):
        w = World(seed=2024)
        _policy(Api(w), extra)
        runs.append(w)
    a, b = runs
    assert a.s.trajectory == b.s.trajectory
    pools = [
        {k: (x.name, x.pool, x.transcript, x.letter, x.interview_score, x.ability) for k, x in w.s.applicants.items()}
        for w in runs
    ]
    assert pools[0] == pools[1] and len(pools[0]) > 10
    subs = [
        [(x.id, x.draft_id, x.venue, x.submitted_month, x.status, x.reviewer_scores) for x in w.s.submissions.values()]
        for w in runs
    ]
    assert subs[0] == subs[1] and len(subs[0]) >= 2
    assert len(b.s.projects) == len(a.s.projects) + 1


def test_s13_keyed_generator_is_sha256_of_seed_and_key():
    """§13/Decisions §5: keys derived by SHA-256 of "seed|k1|k2|…"; equal keys → equal draws,
    whatever was drawn before; different keys or seeds → different draws."""
    assert key_digest(7, "review", "D001", "NAIC", 3) == hashlib.sha256(b"7|review|D001|NAIC|3").digest()
    r = Rng(7)
    x1 = r.keyed("a", 1).random(3).tolist()
    r.keyed("b", 2).random(50)
    r.stream("field").random(10)
    assert r.keyed("a", 1).random(3).tolist() == x1
    assert Rng(7).keyed("a", 1).random(3).tolist() == x1
    assert Rng(8).keyed("a", 1).random(3).tolist() != x1
    assert r.keyed("a", 2).random(3).tolist() != x1


def test_s13_stream_state_round_trip():
    """§13: persistent streams continue exactly after to_state → JSON → from_state, and are
    independent of each other."""
    r = Rng(99)
    for name in STREAMS:
        r.stream(name).normal(size=7)
    r.stream("field").integers(0, 10, size=3)  # leaves a cached uint32 in PCG64
    saved = json.loads(json.dumps(r.to_state()))
    tail = {n: r.stream(n).random(5).tolist() for n in STREAMS}
    r2 = Rng.from_state(saved)
    assert {n: r2.stream(n).random(5).tolist() for n in STREAMS} == tail
    fresh = Rng(99)
    fresh.stream("crowd").random(1000)  # one stream's use never shifts another
    assert fresh.stream("climate").random(3).tolist() == Rng(99).stream("climate").random(3).tolist()


def test_s13_world_round_trip_mid_career_continues_identically():
    """§13: World.to_state → JSON → from_state at month 9 continues exactly like the original."""

    def drive(api, upto):
        while api.world.s.month < upto:
            if api.world.s.month == 1:
                for a in api.recruit.applicants()[:3]:
                    api.recruit.offer(a["id"])
            api.time.next_month()

    w = World(seed=31)
    api = Api(w)
    drive(api, 9)
    clone = World.from_state(json.loads(json.dumps(w.to_state())))
    assert clone.digest() == w.digest()
    drive(api, 25)
    drive(Api(clone), 25)
    assert clone.digest() == w.digest()
    assert np.isfinite(w.s.budget)


def test_s13_ids_are_sequential_per_prefix_zero_padded():
    """§13: ids are the prefix and a per-prefix counter from 1, zero-padded to the width (3 by
    default), never cut short past it ("PJ001" ... "PJ999", "PJ1000"); other prefixes count apart."""
    from world.state import State

    s = State()
    ids = [s.next_id("PJ") for _ in range(1200)]
    assert ids[:3] == ["PJ001", "PJ002", "PJ003"] and ids[998:1001] == ["PJ999", "PJ1000", "PJ1001"]
    assert ids == [f"PJ{n:03d}" for n in range(1, 1201)]
    assert s.next_id("APP") == "APP001" and s.next_id("D", width=4) == "D0001" and s.next_id("PJ") == "PJ1201"
