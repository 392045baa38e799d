"""Issue 27 §4 (a fast key burst): keys typed right after a key that opens a form, before the
form is mounted and focused, reach the form once it is ready, in the order typed; in a list,
space ticks the row it was pressed on even in a burst; the form sends what its fields show."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, SelectionList

from world.api import Api

from .conftest import _key_event, build, drain, new_world, press, screen_ready, wait_for

pytestmark = pytest.mark.asyncio


def burst(app, *keys: str) -> None:
    """Post ``keys`` to the app in one go, as a terminal delivers keys typed faster than the app
    handles them (tmux ``send-keys 2 i space down space enter``): no key waits for the one before."""
    for key in keys:
        event = _key_event(key)
        event.set_sender(app)
        app.post_message(event)


def interviewed(w) -> list[str]:
    return [a["id"] for a in Api(w).recruit.applicants() if a.get("interview") is not None]


async def test_a_burst_typed_after_i_reaches_the_interview_form():
    """QA in tmux (seed 5, 80x24): ``2 i space down space enter`` in one burst left the interview
    form open with nothing ticked: the keys after ``i`` came back up to the app while the form
    had no focus yet and were lost. Now they tick APP001 and APP002 and send: both interviewed,
    3 h each, and the lab shows again."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        burst(app, "i", "space", "down", "space", "enter")
        await drain(pilot)
        assert interviewed(w) == ["APP001", "APP002"]
        assert Api(w).lab.attention()["oneoff_used"] == 2 * w.cfg.interview_hours
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab again")


async def test_space_in_a_burst_ticks_the_row_it_was_pressed_on_and_enter_sends_what_shows():
    """In a ready form, ``space down space`` typed at once ticked APP001 and then unticked it
    (Textual's list toggles the row highlighted when the toggle is handled, by then the next);
    and ``space enter`` sent the form before the tick was counted ("choose at least one")."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        burst(app, "space", "down", "space")
        await drain(pilot)
        form = app.screen
        assert form.query_one(SelectionList).selected == ["APP001", "APP002"]
        assert form.values["ids"] == ["APP001", "APP002"]
        burst(app, "down", "space", "enter")
        await drain(pilot)
        assert interviewed(w) == ["APP001", "APP002", "APP003"]


async def test_keys_typed_ahead_never_act_on_the_panel_underneath_and_n_enter_still_closes():
    """Keys typed after ``i`` go to the form, never to the panel's table underneath (its cursor
    stays; escape closes the form, nothing is interviewed); ``n enter`` typed at once still
    closes the month (the confirmation gets the enter)."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        table = app.screen.query_one("#applicants-table", DataTable)
        row = table.cursor_row
        burst(app, "i", "down", "down", "space", "escape")
        await drain(pilot)
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab again")
        assert table.cursor_row == row and interviewed(w) == []
        before = app.months_advanced
        burst(app, "n", "enter")
        await wait_for(pilot, lambda: app.months_advanced > before, "the month closed")
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        assert w.month == 2
