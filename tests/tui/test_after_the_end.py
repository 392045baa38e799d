"""Near the end of a career the game says when an event's choice lies after the last month:
a review request answerable after it never lapses (letting it go costs no standing), and a
collaboration whose draft would arrive after it cannot pay off; a submission decided after
the last month is marked. The world still offers them (MECHANICS §11 defines events with no
horizon exception); only what the player reads changes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pibench_tui.tui.actions import open_venues
from pibench_tui.tui.record import after_the_end
from world.api import Api

from .conftest import build, close_month, drain, new_world, press, screen_ready, screen_text, wait_for


def _last_month_world():
    """short-12 at month 12 (its last): review requests E007 (answer by 12), E008 (13), E009 (14)."""
    w = new_world("short-12")
    api = Api(w)
    for _ in range(11):
        api.time.next_month()
    return w


@pytest.mark.asyncio
async def test_review_requests_answerable_after_the_last_month_say_so(tmp_path):
    """The Events panel and the answer form say that E008/E009's answer-by months are after
    the last month and that leaving them unanswered costs nothing; E007 (due now) says nothing."""
    app = build(_last_month_world(), tmp_path=tmp_path)
    async with app.run_test(size=(400, 40)) as pilot:
        await press(pilot, "7", panel="events")
        rows = {ln.split()[0]: ln for ln in screen_text(app).splitlines() if ln.strip().startswith("E00")}
        assert "13 (after the end)" in rows["E008"] and "after the career's last month (12)" in rows["E008"]
        assert "answer-by month 14 is after" in rows["E009"]
        assert "after the career's last month" not in rows["E007"]
        await press(pilot, "e", to="ActionForm")
        app.screen.query_one("#field-0").value = "E009"
        await drain(pilot)
        summary = str(app.screen.query_one("#form-summary").render())
        assert "never lapses (no standing lost)" in summary


def test_a_collaboration_after_the_end_cannot_pay_off():
    """A collaboration offer answered when its draft would arrive too late to be decided by the
    last month is marked as unable to pay off; one answered early enough is not; other kinds
    are unaffected while their window ends by the last month."""
    from world.config import WorldConfig

    game = SimpleNamespace(
        rules={"horizon_months": 60, "collaboration": {"months": 3}}, world=SimpleNamespace(cfg=WorldConfig())
    )
    assert "month 61, too late to be decided by the career's last month (60)" in after_the_end(
        game, "collaboration_offer", 59, 58
    )
    assert after_the_end(game, "collaboration_offer", 56, 55) == ""
    assert after_the_end(game, "review_request", 60, 58) == ""
    assert after_the_end(game, "student_crisis", 61, 61) == ""


def test_venues_deciding_after_the_last_month_are_marked():
    """In the last month, the submit form's venues whose decision comes after it say so."""
    from pibench_tui.tui.game import Game

    labels = dict((v, label) for label, v in open_venues(Game(_last_month_world(), scenario="short-12")))
    assert labels["W-SHOP"] == "W-SHOP (workshop): decision 13, after the horizon"
    assert labels["JMR"] == "JMR (journal): decision 19, after the horizon"


@pytest.mark.asyncio
async def test_a_finished_career_shows_no_calendar_and_no_recruiting_hint(tmp_path):
    """Once the career is over the header's calendar line says so instead of naming deadlines
    and calls, and the empty Lab panel no longer tells the player to recruit."""
    from pibench_tui.tui.widgets.header import calendar_label

    w = _last_month_world()
    Api(w).time.next_month()  # closes month 12: the career is over
    dash = Api(w).lab.dashboard()
    assert dash["finished"] and dash["venue_deadlines_this_month"]  # the world still lists them
    assert calendar_label(dash, {"TIF"}) == calendar_label(dash, {"TIF"}, short=True) == dash["label"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        # the end screen opens once the app has mounted
        await wait_for(pilot, lambda: screen_ready(app, "EndScreen"), "the end screen")
        await press(pilot, "escape", to="LabScreen")  # from the end screen back to the lab
        await press(pilot, "1", panel="people")
        text = screen_text(app)
        assert f"{dash['label']} · career over" in text and text.count("career over") == 1
        assert " due" not in text and "deadline" not in text
        assert "Recruit PhD students" not in text and "hire an RA (R)" not in text


@pytest.mark.asyncio
async def test_end_screen_tables_name_their_cut_columns_at_80x24(tmp_path):
    """QA at 80x24: the end screen's tables were cut at the right edge with nothing said: the
    papers' 'True quality' read 'True qu', and the reveal of the people stopped before Ability,
    Skill, Morale (the true values the screen is for). Under each such table a line names the
    columns that do not fit and how to reach them (tab to the table, ← →); at 160 columns
    nothing is cut and no line shows. One publication is 'publication', not 'publications'."""
    from .test_snapshots import busy_world

    for size, cut in (((80, 24), True), ((200, 50), False)):
        app = build(busy_world("short-12", 11), show_digest=False)
        async with app.run_test(size=size) as pilot:
            await close_month(pilot, app)
            await wait_for(pilot, lambda a=app: screen_ready(a, "EndScreen"), "the end screen")
            people = app.screen.query_one("#end-people-hint")
            assert "1 publication (" in str(app.screen.query_one("#end-impact").render())  # not "1 publications"
            if cut:
                await wait_for(pilot, lambda p=people: p.display, "the people table's hint")
                text = str(people.render())
                assert text.startswith("→ more columns (tab to the table, then ← →): ") and "Ability" in text
                assert "…" not in text
            else:
                await drain(pilot)
                assert not people.display and not app.screen.query_one("#end-papers-hint").display
