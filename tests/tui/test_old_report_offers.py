"""QA (seed 2718, month 13, offers to three applicants): pressing d and going back to month 1's
or month 8's report showed today's offers under "Offers waiting for an answer", with month 3
as their answer month. A month's report read later shows the offers waiting when that month
closed (from the PI's action log), each with its own answer month, and the pool's record as
that month left it."""

from __future__ import annotations

import pytest

from pibench_tui.tui.game import Game
from pibench_tui.tui.record import offers_waiting, pool_record
from pibench_tui.tui.screens.digest import digest_lines
from world.api import Api

from .conftest import build, new_world, press

FIRST = {"APP001": "Goran Okafor", "APP003": "Tomas Yilmaz"}
"""Seed 2718's applicants offered a place in month 1 (answered at the end of month 3)."""
SECOND = ("APP007", "APP011", "APP012")
"""Offered in month 13 (answered at the end of month 15)."""


def _two_seasons(upto: int = 13) -> tuple[Api, Game]:
    """Seed 2718 with offers in months 1 and 13, played to month ``upto`` (≥ 13)."""
    w = new_world(seed=2718)
    api = Api(w)
    for aid in FIRST:
        api.recruit.offer(aid)
    while w.month < 13:
        api.time.next_month()
    for aid in SECOND:
        api.recruit.offer(aid)
    while w.month < upto:
        api.time.next_month()
    return api, Game(w)


def _report(game: Game, month: int) -> str:
    report = next(r for r in game.earlier_reports(game.world.month) if r["month"] == month)
    return "\n".join(digest_lines(report, game, warn=False))


def test_an_old_report_lists_the_offers_waiting_in_its_month():
    """Month 1's report lists its own two offers (answers at the end of month 3), not month 13's;
    month 8's lists none; month 14's lists month 13's three (answers at the end of month 15)."""
    _, game = _two_seasons(15)
    assert [(a, n) for a, n, _ in offers_waiting(game, 1)] == list(FIRST.items())
    assert {m for _, _, m in offers_waiting(game, 1)} == {3}
    one = _report(game, 1)
    assert "Offers waiting for an answer" in one
    for aid, name in FIRST.items():
        assert f"{name} ({aid}) · answers come at the end of month 3" in one, one
    assert not any(aid in one for aid in SECOND), one
    eight = _report(game, 8)
    assert "Offers waiting for an answer" not in eight and "answers come" not in eight, eight
    fourteen = _report(game, 14)
    assert [a for a, _, m in offers_waiting(game, 14) if m == 15] == list(SECOND)
    assert all(f"({aid}) · answers come at the end of month 15" in fourteen for aid in SECOND), fourteen
    assert not any(f"({aid})" in fourteen for aid in FIRST), fourteen


def test_an_old_reports_pool_record_is_that_months():
    """Month 3's answers are read next to the pools' record as month 3 left it: month 15's
    answers (and month 13's offers) are not counted in it."""
    api, game = _two_seasons(15)
    pools = {r["id"]: r["pool"] for r in api.query("select id, pool from applicants")}
    for aid in FIRST:
        then = pool_record(game, pools[aid], 3)
        assert then.startswith(f"offers to {pools[aid]} so far: ") and " of 1 accepted" in then, then
        assert "waiting" not in then, then


@pytest.mark.asyncio
async def test_d_then_back_to_month_1_shows_month_1s_offers(tmp_path):
    """In play: d at month 13 (after three offers), ← back to month 1's report: its waiting
    offers are month 1's, answered at the end of month 3; month 8's has none."""
    api, game = _two_seasons(13)
    app = build(game.world, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "d", to="DigestScreen")

        def shown() -> str:
            return str(app.screen.query_one("#digest-body").text)

        def title() -> str:
            return str(app.screen.query_one("#digest-title").render())

        while "Month 8 closed" not in title():
            await press(pilot, "left")
        assert "answers come" not in shown(), shown()
        while "Month 1 closed" not in title():
            await press(pilot, "left")
        text = shown()
        for aid, name in FIRST.items():
            assert f"{name} ({aid}) · answers come at the end of month 3" in text, text
        assert not any(aid in text for aid in SECOND), text


def test_an_old_reports_departures_do_not_list_todays_orphans():
    """Seed 1001: a project left with no member in month 4 (its RA unassigned) is "left behind"
    in the report of the month just closed (what to do now), not in month 1's report read
    again, whose departures happened before it was orphaned."""
    w = new_world(seed=1001)
    api = Api(w)
    api.recruit.hire_ra()
    topic = api.query("select name from topics")[0]["name"]
    project = api.projects.start(topic=topic, tier=1, members=["RA001"])["project_id"]
    for _ in range(3):
        api.time.next_month()
    api.projects.unassign(project, "RA001")
    game = Game(w)
    gone = {"graduations": [{"id": "PHD999", "name": "A Graduate"}]}
    newest = "\n".join(digest_lines({"month": w.month - 1, **gone}, game, warn=False))
    assert f"left behind: project {project}" in newest, newest
    old = "\n".join(digest_lines({"month": 1, **gone}, game, warn=False))
    assert "A Graduate (PHD999) graduated" in old and "left behind" not in old, old
