"""The Grants panel's note on the agencies' limits, formatted from the scenario's rules."""

from __future__ import annotations

import dataclasses

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.grants_panel import grants_note
from world.engine import World

from .conftest import new_world


def test_the_rolling_call_note_names_the_cool_down_of_this_scenario():
    """TIF is a rolling call open every month with a cool-down between two proposals (§9):
    the note says so with the scenario's own cool-down, without contradicting itself."""
    note = grants_note(Game(new_world()))
    assert "TIF: a rolling call, open every month; at least 3 months between two TIF proposals." in note
    w = new_world()
    other = World(dataclasses.replace(w.cfg, tif_cooldown=5), w.seed)
    assert "at least 5 months between two TIF proposals" in grants_note(Game(other))
