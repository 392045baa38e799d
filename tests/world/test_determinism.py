"""Determinism and the state round trip (MECHANICS §1, §13; issue 2 "Determinism").

Same seed + same actions ⇒ identical world; ``to_state → JSON → from_state`` at any month
continues exactly as the uninterrupted career; replaying the action log rebuilds it.
"""

from __future__ import annotations

import json

import pytest

from world.api import ActionError, Api, replay
from world.config import WorldConfig
from world.engine import World


def busy_month(api: Api) -> None:
    """A deterministic, busy PI: hires, mentors, starts projects, submits, proposes, answers."""
    d = api.lab.dashboard()
    m = d["month"]
    if m % 12 == 1:
        apps = sorted(api.recruit.applicants(), key=lambda a: -(a["transcript"] + a["letter"]))
        if apps:
            api.recruit.interview([a["id"] for a in apps[:3]])
        for a in apps[:3]:
            try:
                api.recruit.offer(a["id"])
            except ActionError:
                pass
    if m in (6, 30):
        api.recruit.post_postdoc()
    if m == 8:
        api.recruit.hire_ra()
    studs = [s["id"] for s in d["students"]]
    if studs:
        try:
            api.students.set_mentoring({s: 4.0 for s in studs})
        except ActionError:
            pass
    busy = {x for p in d["active_projects"] for x in p["members"]}
    idle = [s for s in studs if s not in busy]
    while len(idle) >= 2:
        try:
            api.projects.start("reasoning" if m < 30 else "ai4science", 2 + (m % 2), idle[:2], 1500)
        except ActionError:
            break
        idle = idle[2:]
    for dr in d["available_drafts"]:
        try:
            api.papers.polish(dr["id"], 4)
        except ActionError:
            pass
        for v in ("NAIC", "CLAR", "W-SHOP"):
            try:
                api.papers.submit(dr["id"], v)
                break
            except ActionError:
                pass
    for c in d["open_grant_calls"]:
        try:
            api.grants.propose(c["id"], "reasoning", 20, [])
        except ActionError:
            pass
    for e in d["pending_events"]:
        try:
            api.events.respond(e["id"], "support" if e["kind"] == "student_crisis" else "accept")
        except ActionError:
            pass
    if m % 7 == 0:
        try:
            api.field.attend_conference()
        except ActionError:
            pass


def play(seed: int, months: int | None = None, world: World | None = None) -> World:
    w = world if world is not None else World(WorldConfig(), seed)
    api = Api(w)
    while not w.finished and (months is None or w.month < months):
        busy_month(api)
        api.time.next_month()
    return w


def test_s13_same_seed_same_actions_identical_world():
    """Two careers of the same seed and actions end with identical digests; another seed differs."""
    a = play(11)
    b = play(11)
    c = play(12)
    assert a.digest() == b.digest()
    assert a.digest() != c.digest()
    assert a.summary() == b.summary()


@pytest.mark.parametrize("stop", [1, 17, 42])
def test_s13_round_trip_mid_career_continues_identically(stop):
    """to_state → JSON text → from_state at months 1, 17, 42 continues identically to month 60."""
    straight = play(21)
    w = play(21, months=stop)
    blob = json.dumps(w.to_state())
    restored = World.from_state(json.loads(blob))
    assert restored.digest() == w.digest()
    play(21, world=restored)
    assert restored.digest() == straight.digest()
    assert restored.summary() == straight.summary()


def test_s15_action_log_replays_the_career():
    """Replaying the action log from the same config and seed rebuilds the identical world."""
    w = play(31)
    again = replay(WorldConfig(), 31, w.s.action_log)
    assert again.digest() == w.digest()


def test_s18_extra_reads_do_not_change_the_world():
    """Extra dashboard reads and queries every month leave the career unchanged (§18 inv. 2)."""
    plain = play(41, months=30)
    w = World(WorldConfig(), 41)
    api = Api(w)
    while w.month < 30:
        api.lab.dashboard()
        api.query("select count(*) from news")
        api.students.list()
        busy_month(api)
        api.query("select * from submissions")
        api.time.next_month()
    assert w.digest() == plain.digest()


def test_s1_nothing_changes_after_the_horizon():
    """After the horizon every mutating call is refused and the world is frozen; reads still work."""
    w = play(51, world=World(WorldConfig(months=24), 51))
    assert w.finished and w.month == 24 and not w.collapsed
    api = Api(w)
    before = w.digest()
    for ns, method, args in [
        ("time", "next_month", []),
        ("recruit", "hire_ra", []),
        ("projects", "start", ["reasoning", 1, ["S001"]]),
        ("field", "attend_conference", []),
    ]:
        with pytest.raises(ActionError) as err:
            api.call(ns, method, args, {})
        assert err.value.code == "career_over"
    assert api.lab.dashboard()["month"] == 24
    assert isinstance(api.query("select count(*) as n from ledger")[0]["n"], int)
    assert w.digest() == before
