"""Replaying an action log (MECHANICS §15): onto a new world or a saved one, every logged
call checked as in play."""

from __future__ import annotations

import pytest

from tests.careers import play_to
from world.api import ActionError, replay, replay_calls
from world.engine import World


def _career(months: int, seed: int = 7) -> World:
    """A world played by the ambitious policy to the opening of ``months``."""
    w = World(seed=seed)
    play_to(w, months)
    return w


def test_replay_calls_continues_a_saved_world_to_the_same_career():
    """A world rebuilt from a month-6 state, given the calls logged after it, becomes the
    career the whole log replays to: same digest, same log, same last report."""
    w = _career(6)
    cut = len(w.s.action_log)
    saved = w.to_state()
    play_to(w, 11)
    resumed = replay_calls(World.from_state(saved), w.s.action_log[cut:])
    assert resumed.digest() == w.digest() == replay(w.cfg, w.seed, w.s.action_log).digest()
    assert resumed.s.action_log == w.s.action_log
    assert resumed.last_report is not None and resumed.last_report.to_dict() == w.last_report.to_dict()


@pytest.mark.parametrize(
    "row,code",
    [
        ([1, "time.next_month", {"months": 2}], "bad_argument"),
        ([2, "time.next_month", {}], "bad_argument"),  # logged in another month
        ([1, "lab.nope", {}], "unknown_call"),
    ],
)
def test_replay_refuses_a_row_play_would_refuse(row, code):
    """A forged row is refused on replay with the code play gives (or as out of step)."""
    with pytest.raises(ActionError) as err:
        replay(World(seed=3).cfg, 3, [row])
    assert err.value.code == code


def test_replay_calls_refuses_the_worlds_own_log():
    """Replaying a world's own action log onto it would never end (each call grows it): refused."""
    w = _career(3)
    with pytest.raises(ValueError, match="own action log"):
        replay_calls(w, w.s.action_log)
