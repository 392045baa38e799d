"""One Career (issue 23 §3): the world, its API, the SQL mirror and the digest cache held
together, built by one factory, and held by every front end instead of module-level
dictionaries keyed by the world."""

from __future__ import annotations

import pytest

import world.observe as observe
from world.api import Api
from world.career import Career
from world.config import WorldConfig
from world.engine import World
from world.runner import build_policy, play


def _baseline_months(career: Career, months: int) -> None:
    pol = build_policy("baseline", career.world)
    from world.runner import AgentView

    view = AgentView(career.api)
    for _ in range(months):
        m = career.world.month
        pol.act(view)
        if career.world.month == m:
            career.api.time.next_month()


def test_career_new_is_the_world_of_the_config_and_seed():
    """Career.new(config, seed) holds exactly World(config, seed) (same digest), an Api over
    that very world, and no save writer."""
    cfg = WorldConfig()
    career = Career.new(cfg, 7)
    assert career.world.digest() == World(cfg, 7).digest()
    assert isinstance(career.api, Api) and career.api.world is career.world
    assert career.saves is None


def test_career_restore_continues_exactly_as_the_original():
    """Career.restore(world.to_state()) plays on to the same digest as the career it was
    taken from (a resumed run)."""
    a = Career.new(WorldConfig(), 11)
    _baseline_months(a, 5)
    b = Career.restore(a.world.to_state())
    assert b.world.digest() == a.world.digest()
    _baseline_months(a, 4)
    _baseline_months(b, 4)
    assert b.world.digest() == a.world.digest()


def test_career_digest_equals_the_one_shot_digest_month_after_month():
    """Career.digest (kept text, re-encoded where the state changed) equals World.digest
    (the whole state encoded) at every month of a baseline career, and after a hand edit."""
    career = Career.new(WorldConfig(), 3)
    for _ in range(14):
        assert career.digest() == career.world.digest()
        _baseline_months(career, 1)
    career.world.s.budget += 1.0
    assert career.digest() == career.world.digest()


def test_the_mirror_belongs_to_the_career_not_to_a_module_dictionary():
    """The observable mirror is the career's (built at the first query, one per career),
    queried through its API; no module-level dictionary keyed by worlds holds it; close()
    stops its query worker."""
    assert not hasattr(observe, "_observers") and not hasattr(observe, "observer_for")
    career = Career.new(WorldConfig(), 5)
    assert career.api._mirror.built is None  # nothing built before a query
    assert career.api.query("select count(*) as n from topics")[0]["n"] > 0
    obs = career.observer
    assert obs is career.observer is career.api.observer
    other = Career(career.world)
    assert other.observer is not obs  # each career its own mirror
    obs.isolate()
    assert obs.worker is not None
    assert career.api.query("select 1 as one") == [{"one": 1}]
    career.close()
    assert obs.worker is None


def test_the_digest_cache_belongs_to_the_career_not_to_the_world():
    """World.digest keeps nothing on the world (the cache lives on the Career)."""
    w = World(WorldConfig(), 2)
    w.digest()
    w.digest()
    assert "_digest_text" not in vars(w)


def test_saving_a_career_without_a_writer_says_so():
    """A career built without a save writer refuses save/autosave with a message naming it."""
    career = Career.new(WorldConfig(), 1)
    with pytest.raises(RuntimeError, match="no save writer"):
        career.save("x")
    with pytest.raises(RuntimeError, match="no save writer"):
        career.autosave("x")


def test_the_runner_plays_a_career_like_play_on_a_bare_world():
    """run_career (which builds a Career) gives the same row as play() on a bare world."""
    from world.runner import result_row, run_career

    w = World(WorldConfig(), 9)
    pol = build_policy("baseline", w)
    play(w, pol, Api(w))
    assert run_career("baseline", 9)["impact"] == result_row(w, pol)["impact"]


def test_every_front_end_holds_a_career(tmp_path):
    """The TUI's Game, headless mode's session, the harness's LabCore and the replayer each
    hold one Career, and their world and API are that career's."""
    from pibench_tui.harness.core import LabCore
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
    from pibench_tui.tui.game import Game
    from pibench_tui.tui.replay import Replayer, ReplaySource

    game = Game(World(WorldConfig(), 4))
    session = HeadlessSession(HeadlessOptions(scenario="short-12"))
    core = LabCore(WorldConfig(), seed=4)
    core.reset()
    replayer = Replayer(ReplaySource(kind="save", label="t", scenario="standard", config=WorldConfig(), seed=4, log=[]))
    try:
        for name, held in (
            ("game", game.held),
            ("headless", session.career),
            ("agent", core.career),
            ("replay", replayer.career),
        ):
            assert isinstance(held, Career), name
        assert (game.world, game.api) == (game.held.world, game.held.api)
        assert (session.world, session.api) == (session.career.world, session.career.api)
        assert (core.world, core.api) == (core.career.world, core.career.api)
        assert replayer.world is replayer.career.world and replayer.game.held is replayer.career
    finally:
        session.close()
        core.close()
