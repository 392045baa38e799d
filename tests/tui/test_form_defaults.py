"""The action forms' suggested numbers stay inside the scenario's bounds, so a form sent as it
opens is never refused for its own suggestion (issue 9 §2: the rules come from the scenario)."""

from __future__ import annotations

import dataclasses

from pibench_tui.tui.actions import ACTIONS_BY_ID, Field, validate
from pibench_tui.tui.game import Game
from world.api import Api
from world.engine import World

from .conftest import new_world


def _number_defaults(game: Game, action: str) -> dict[str, float]:
    fields = ACTIONS_BY_ID[action].fields(game)
    numbers = [f for f in fields if f.kind == "number"]
    values: dict = {}
    for f in fields:  # in order, as the form starts them: a choice at its first option
        opts = f.options(values) if callable(f.options) else f.options
        values[f.name] = f.default_for(values) if f.kind == "number" else opts[0][1] if opts else None
    clean, problems = validate(numbers, {f.name: values[f.name] for f in numbers})
    assert not problems, (action, problems)
    return clean


def test_number_defaults_follow_the_scenarios_bounds():
    """Under a scenario with a lower compute cap (1,000 units/month), a longer minimum proposal
    (30 h) and lower polish and revision saturations (5 h, 4 h), the start-project and
    set-compute forms suggest the cap, the proposal form the minimum, and polish and revise
    the saturation (polish: the hours left before it, all of them on a draft not polished yet);
    in the default world they suggest 1,500 units, 25 h, 12 h and 8 h."""
    w = new_world()
    cfg = dataclasses.replace(
        w.cfg, max_compute=1000.0, proposal_min_hours=30.0, polish_cap_hours=5.0, revise_cap_hours=4.0
    )
    for world, want in ((new_world(), (1500, 25, 12, 8)), (World(cfg, w.seed), (1000, 30, 5, 4))):
        Api(world).projects.start("reasoning", 1, [Api(world).recruit.hire_ra()["staff_id"]], 100)
        game = Game(world)
        assert _number_defaults(game, "start_project")["compute"] == want[0]
        assert _number_defaults(game, "set_compute")["compute"] == want[0]
        assert _number_defaults(game, "propose")["hours"] == want[1]
        assert _number_defaults(game, "polish")["hours"] == want[2]
        assert _number_defaults(game, "revise")["hours"] == want[3]


def test_a_number_default_is_moved_into_its_bounds():
    """A number field's default outside ``lo``..``hi`` becomes the nearer bound; one inside,
    a choice's default and a missing default are kept."""
    assert Field("x", "X", "number", default=9, lo=0, hi=5).default == 5
    assert Field("x", "X", "number", default=1, lo=2).default == 2
    assert Field("x", "X", "number", default=3, lo=0, hi=5).default == 3
    assert Field("x", "X", "number").default is None
    assert Field("x", "X", options=[("a", 9)], default=9, hi=5).default == 9
