"""A whole 60-month career played with scripted key presses reaches the end screen, and its
Impact (indeed the whole world) equals the same decisions made directly through the API."""

from __future__ import annotations

import pytest

from world.api import Api
from world.scoring import impact

from .conftest import build, close_month, new_world, press, screen_ready, wait_for

pytestmark = pytest.mark.asyncio

DEADLINE_MONTHS = {0, 3, 6, 9}  # NAIC / CLAR months: the submit form would offer them first


def plan(dash: dict) -> list[str]:
    """This month's decisions, read from the dashboard (the same for both players)."""
    steps = []
    m = dash["month"]
    if m == 1:
        steps += ["hire_ra", "hire_ra"]
    if dash["pending_events"] and dash["pending_events"][0]["kind"] == "invited_talk":
        steps.append("respond")  # talks are rare; review requests are left to lapse (keeps the run short)
    if dash["available_drafts"] and m % 12 not in DEADLINE_MONTHS:
        steps.append("submit")
    if (m == 1 or not dash["active_projects"]) and m < 50:
        steps.append("start")
    return steps


KEYS = {
    "hire_ra": ["1", "R", "enter"],  # a panel's action keys work on that panel only
    "respond": ["7", "e", "ctrl+o"],
    "submit": ["4", "b", "ctrl+o"],
    "start": ["3", "s", "ctrl+o"],  # the form comes with the idle pair RA001, RA002 ticked
}


def api_step(api: Api, step: str) -> None:
    """The API call a step's keys make (the forms' defaults: first option of each choice)."""
    if step == "hire_ra":
        api.recruit.hire_ra()
    elif step == "respond":
        ev = api.events.pending()[0]
        first = {"student_crisis": "support"}.get(ev["kind"], "accept")
        api.events.respond(ev["id"], first)
    elif step == "submit":
        api.papers.submit(api.lab.dashboard()["available_drafts"][0]["id"], "W-SHOP")
    elif step == "start":
        api.projects.start("reasoning", 2, ["RA001", "RA002"], 1500.0)


async def _career_through_the_keyboard(tmp_path, scenario: str, *, publishes: bool) -> None:
    """Play ``scenario`` to its end by key presses and by the API; both end identically
    (with ``publishes``, with a positive Impact)."""
    twin = new_world(scenario)
    twin_api = Api(twin)
    while not twin.finished:
        for step in plan(twin_api.lab.dashboard()):
            api_step(twin_api, step)
        twin_api.time.next_month()

    # the digest has its own tests; this keeps the run short
    app = build(new_world(scenario), tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.game.finished:
            for step in plan(app.game.dashboard()):
                await press(pilot, *KEYS[step])
                assert type(app.screen).__name__ == "LabScreen", step
            await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "EndScreen"), "the end screen")
        imp = impact(app.game.world)
        assert imp == impact(twin)
        assert app.game.world.digest() == twin.digest()
        assert f"Impact {imp['total']:,.1f}" in str(app.screen.query_one("#end-title").render())
        assert imp["total"] > 0 or not publishes


async def test_a_12_month_career_through_the_keyboard_matches_the_api(tmp_path):
    """A 12-month career (scenario short-12) of key presses (hires, a project, events,
    submissions, month ends) ends on the end screen with the world and Impact of the same
    decisions made through the API."""
    await _career_through_the_keyboard(tmp_path, "short-12", publishes=False)


@pytest.mark.slow
async def test_full_career_through_the_keyboard_matches_the_api(tmp_path):
    """60 months of key presses end on the end screen with the API-played Impact."""
    await _career_through_the_keyboard(tmp_path, "standard", publishes=True)
