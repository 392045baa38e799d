"""Plan descriptions read in the field's words and name what a PI would weigh (PIVOTS.md
"Plan"), formatted from the rules and the record, never typed in."""

from __future__ import annotations

from world.api import Api
from world.engine import World
from world.pivots import find_decisions
from world.policies import make_policy
from world.runner import AgentView


def _world_at(seed: int, month: int) -> World:
    world = World(seed=seed)
    api = Api(world)
    view = AgentView(api)
    policy = make_policy("baseline")
    while world.s.month < month:
        before = world.s.month
        policy.act(view)
        if world.s.month == before:
            api.call("time", "next_month", [], {})
    return world


def test_staffing_plans_name_the_ras_pay_and_oversight_and_the_runway() -> None:
    """Both staffing plans say what an RA costs a month (the rules' RA pay) and in the PI's
    oversight hours, who the lab has, the budget and the runway (before: only the budget and
    runway, no pay); no value is quoted as a string."""
    world = _world_at(1, 18)
    api = Api(world.fork(1))
    rules = api.call("lab", "rules", [], {})
    dash = api.call("lab", "dashboard", [], {})
    (decision,) = find_decisions(world, ["staffing"])
    pay = f"${rules['pay']['ra']:,.0f} a month"
    hours = f"{rules['attention']['oversight_per_ra']:g} h"
    for plan in (decision.a, decision.b):
        assert pay in plan.text and hours in plan.text, plan.text
        assert f"budget ${dash['budget']:,.0f}" in plan.text and "months of runway" in plan.text, plan.text
        assert f"{len(dash['students'])} researcher(s)" in plan.text, plan.text
        assert "'" not in plan.text, plan.text
    assert decision.a.text.startswith("Hire a research assistant now") and "never authors a paper" in decision.a.text
