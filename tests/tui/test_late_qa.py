"""QA at 80x24, late in a career (issue 27): what the play screen suggests must be able to pay
off. The submit form's default venue is one whose acceptance is published by the last month
(a paper published after the horizon earns no citations, MECHANICS §7, §12), and the header's
calendar marks a deadline whose acceptance would publish after the horizon as too late, not due."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import Select

from pibench_tui.tui.widgets.header import calendar_label
from world.api import Api
from world.engine import World

from .conftest import build, close_month, new_world, press, screen_text, wait_for
from .test_published_after_the_horizon import _late_world, _open_submit_form, _shown


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "month,default,calendar",
    [
        (48, "CLAR", "CLAR due"),  # CLAR decided 51, published 55: in time, the first option as before
        (54, "W-SHOP", "CLAR too late"),  # QA: defaulted to CLAR, published 61
        (57, "W-SHOP", "NAIC too late"),  # QA: defaulted to NAIC, published 64
    ],
)
async def test_the_submit_form_defaults_to_a_venue_that_publishes_in_time(tmp_path, month, default, calendar):
    """QA: late in a career the submit form defaulted to a venue whose acceptance is published
    after the last month (CLAR in month 54, NAIC in 57) and the header called its deadline
    "due". The default is now the first open venue that publishes in time (CLAR still in month
    48), the late venue is still offered, and the header says "too late" instead of "due"."""
    w = _late_world(month)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        header = screen_text(app).splitlines()[1]
        assert calendar in header, header
        assert "due" not in header if "late" in calendar else "too late" not in header, header
        await _open_submit_form(pilot)
        choice = app.screen.query_one("#field-1", Select)
        assert choice.value == default
        options = [v for _, v in choice._options if isinstance(v, str)]
        assert calendar.split()[0] in options  # the late venue is still offered


def test_the_calendar_marks_a_late_deadline():
    """The calendar names a deadline whose acceptance would publish after the horizon "too late"
    (short at 80 columns, with the reason when wide); without late venues it says "due"."""
    dash = {"label": "Y5M9", "notes": [], "venue_deadlines_this_month": ["NAIC"], "open_grant_calls": []}
    assert calendar_label(dash, set(), short=True, late={"NAIC"}) == "Y5M9 · NAIC too late"
    assert calendar_label(dash, set(), late={"NAIC"}) == "Y5M9 · NAIC deadline (too late: publishes after the horizon)"
    assert calendar_label(dash, set(), short=True) == "Y5M9 · NAIC due"


@pytest.mark.asyncio
@pytest.mark.parametrize("budget,runway,left", [(1_234_567, 23.4, 45.0), (-1_234_567, 123.4, 45.5)])
async def test_the_header_keeps_the_citation_count_whole_at_80_columns(tmp_path, budget, runway, left):
    """QA: late in a career the first header line ended "stand. established · cit. 1…" at 80
    columns. With a 7-figure budget, the longest standing word and 4-digit citations, the
    count shows whole and the other words shorten first."""
    app = build(_late_world(57), tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.header_view
        dash = {**view.dash, "lab_standing": "established", "budget": budget, "runway_months": runway}
        dash["attention"] = {**dash["attention"], "left": left}
        app.header_view = replace(view, dash=dash, citations=1234)
        await pilot.pause()
        first = screen_text(app).splitlines()[0]
        assert first.rstrip().endswith("cit. 1234"), first
        assert f"${budget:,}" in first and "establ." in first, first


def accepted_offers_world() -> tuple[World, Api, list[str]]:
    """The standard world in month 4 after PhD offers to its first 3 applicants in month 1:
    ``(world, api, names of those who accepted)``, in applicant id order (they arrive in month 5)."""
    w = new_world()
    api = Api(w)
    for a in api.recruit.applicants()[:3]:
        api.recruit.offer(a["id"])
    while w.month < 4:
        api.time.next_month()
    return w, api, [r["name"] for r in api.query("select name from applicants where status = 'accepted' order by id")]


@pytest.mark.asyncio
async def test_the_lab_panel_says_who_arrives_when_offers_were_accepted(tmp_path):
    """QA: in month 4 the Lab panel said "Nobody in the lab yet. Recruit PhD students in months
    1-3 …" while 3 accepted students were to arrive in month 5. Now it names them and the month
    (the applicants table's accepted rows, §5), whole at 80x24; in month 5 they are in the table."""
    w, api, accepted = accepted_offers_world()
    assert accepted and not api.lab.dashboard()["students"]
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        note = " ".join(str(app.screen.query_one("#people-summary").render()).split())
        assert "Recruit PhD students" not in note, note
        said = f"{', '.join(accepted)} accepted PhD offer{'s' if len(accepted) > 1 else ''}"
        assert f"Nobody in the lab yet: {said} and arrive" in note and "in month 5." in note, note
        assert note == _shown(app, "#people-summary"), "cut at 80x24"
        await close_month(pilot, app)
        await wait_for(pilot, lambda: len(app.game.dashboard()["students"]) == len(accepted), "the arrivals")
        await press(pilot, "1", panel="people")
        assert "Nobody in the lab" not in " ".join(str(app.screen.query_one("#people-summary").render()).split())
