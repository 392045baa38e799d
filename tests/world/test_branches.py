"""Branches: futures of a fork (MECHANICS Decisions 12; PIVOTS.md "Terms").

A fork is the world at the start of a month; in branch b ≥ 1 every later draw depends on b,
everything drawn before is shared; branch 0 is the world as it is.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ProcessPoolExecutor

import pytest

from world.api import Api
from world.career import Career
from world.engine import World
from world.errors import SimulationOver
from world.policies import make_policy
from world.rng import Rng
from world.runner import AgentView


def _played(seed: int, month: int, policy: str = "baseline") -> World:
    """A career played by ``policy`` to the start of ``month``."""
    world = World(seed=seed)
    api = Api(world)
    view = AgentView(api)
    pol = make_policy(policy)
    while world.s.month < month:
        m = world.s.month
        pol.act(view)
        if world.s.month == m:
            api.call("time", "next_month", [], {})
    return world


def _continue(world: World, months: int, policy: str = "baseline") -> World:
    api = Api(world)
    view = AgentView(api)
    pol = make_policy(policy)
    end = world.s.month + months
    while world.s.month < end and not world.s.finished:
        m = world.s.month
        pol.act(view)
        if world.s.month == m and not world.s.finished:
            api.call("time", "next_month", [], {})
    return world


def _future_digest(args: tuple[int, int, int, int]) -> str:
    seed, month, branch, months = args
    return _continue(_played(seed, month).fork(branch), months).digest()


def test_branch_zero_draws_as_before_and_saves_no_branch() -> None:
    """Branch 0 keys draws by "seed|k…" exactly as §13 (so no existing outcome changes) and
    its state holds no branch field; branch b keys them by "seed|branch-b|k…"."""
    r0 = Rng(7)
    want = hashlib.sha256(b"7|review|D001|NAIC|3").digest()
    gen = r0.keyed("review", "D001", "NAIC", 3)
    ref = Rng(7)._keyed_digest(want)
    assert gen.bit_generator.state == ref.bit_generator.state
    assert "branch" not in r0.to_state()
    r2 = Rng(7, 2)
    got = r2.keyed("review", "D001", "NAIC", 3).bit_generator.state
    assert got == Rng(7)._keyed_digest(hashlib.sha256(b"7|branch-2|review|D001|NAIC|3").digest()).bit_generator.state
    assert Rng.from_state(r2.to_state()).branch == 2


def test_same_fork_branch_and_actions_give_the_same_world_everywhere(tmp_path) -> None:  # noqa: ANN001
    """(fork month, branch, later actions) determine the future: twice in-process, in a
    worker process, and after the fork is saved and loaded before it plays on."""
    here = _future_digest((101, 10, 3, 8))
    assert _future_digest((101, 10, 3, 8)) == here
    with ProcessPoolExecutor(max_workers=1) as pool:
        assert pool.submit(_future_digest, (101, 10, 3, 8)).result() == here
    fork = _played(101, 10).fork(3)
    loaded = World.from_state(fork.to_state())
    assert loaded.digest() == fork.digest()
    assert _continue(loaded, 8).digest() == here


def test_branches_share_the_past_and_differ_after_the_fork() -> None:
    """Two branches of one fork hold every hidden quantity drawn before it (the hotness
    trajectory, agencies' preferences, the climate phase, the people and their abilities,
    the projects) unchanged, and their futures differ; the original world is untouched."""
    world = _played(202, 14)
    before = world.digest()
    a, b = world.fork(1), world.fork(2)
    assert world.digest() == before
    for w in (a, b):
        assert w.s.trajectory == world.s.trajectory
        assert w.s.agency_prefs == world.s.agency_prefs
        assert w.s.phi == world.s.phi
        assert w.s.to_dict()["people"] == world.s.to_dict()["people"]
        assert w.s.to_dict()["projects"] == world.s.to_dict()["projects"]
    _continue(a, 12)
    _continue(b, 12)
    assert a.digest() != b.digest()


def test_two_plans_under_one_branch_meet_the_same_draws() -> None:
    """Common random numbers: under one branch, a world where the PI did nothing and one where
    the PI hired an RA (the worlds differ: the budgets do) meet the same agent-independent draws
    (the climate stream, the month's event roll); another branch meets other ones."""
    world = _played(303, 6)
    plan_a = world.fork(5)
    plan_b = world.fork(5)
    other = world.fork(6)
    Api(plan_b).call("recruit", "hire_ra", [], {})
    for w in (plan_a, plan_b, other):
        for _ in range(4):
            Api(w).call("time", "next_month", [], {})
    assert plan_a.s.budget != plan_b.s.budget
    assert plan_a.s.climate == plan_b.s.climate
    assert plan_a.rng.keyed_text("events|9").random() == plan_b.rng.keyed_text("events|9").random()
    assert other.rng.keyed_text("events|9").random() != plan_a.rng.keyed_text("events|9").random()


def test_a_fork_is_the_world_before_the_months_first_action() -> None:
    """A fork after the PI acted in the month, of an ended career, or to branch 0 is refused
    with a message saying why; Career.fork gives a career of its own around the forked world."""
    world = _played(101, 3)
    career = Career(world)
    forked = career.fork(4)
    assert forked.world is not world and forked.world.rng.branch == 4 and forked.saves is None
    api = Api(world)
    api.call("recruit", "hire_ra", [], {})
    with pytest.raises(ValueError, match="before the PI acts.*recruit.hire_ra"):
        world.fork(1)
    with pytest.raises(ValueError, match="branch is 1 or more"):
        _played(101, 2).fork(0)
    ended = _played(101, 1)
    ended.s.finished = True
    with pytest.raises(SimulationOver):
        ended.fork(1)


def test_a_fork_equals_a_round_trip_through_the_saved_state() -> None:
    """The fork's quick copy gives the same world as copying through to_state/from_state and
    forking the randomness: same digest now and after months of play."""
    world = _played(404, 20)
    quick = world.fork(7)
    slow = World.from_state(world.to_state())
    slow.rng = world.rng.fork(7, world.s.month)
    assert quick.digest() == slow.digest()
    assert _continue(quick, 6).digest() == _continue(slow, 6).digest()


def test_a_fork_point_gives_the_worlds_fork_gives_and_keeps_the_month_it_was_taken() -> None:
    """World.fork_point serialises the fork once: each branch it makes is World.fork's world
    (same digest now and after months of play, the point reused), a change to the world after
    the point does not reach it, and it refuses what World.fork refuses."""
    world = _played(404, 20)
    point = world.fork_point()
    for branch in (3, 7, 3):
        assert point.fork(branch).digest() == world.fork(branch).digest()
        assert _continue(point.fork(branch), 4).digest() == _continue(world.fork(branch), 4).digest()
    before = point.fork(5).digest()
    Api(world).call("recruit", "hire_ra", [], {})
    assert world.s.action_log[-1][1] == "recruit.hire_ra" and point.fork(5).digest() == before
    with pytest.raises(ValueError, match="before the PI acts.*recruit.hire_ra"):
        world.fork_point()
    with pytest.raises(ValueError, match="branch is 1 or more"):
        point.fork(0)
