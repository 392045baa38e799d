"""Issue 27 §4 (a fast key burst): keys typed right after a key that opens a form, before the
form is mounted and focused, reach the form once it is ready, in the order typed; in a list,
space ticks the row it was pressed on even in a burst; the form sends what its fields show."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import DataTable, Input, SelectionList

from pibench_tui.tui.widgets.choice import Choice
from world.api import Api

from .conftest import _key_event, build, drain, new_world, press, screen_ready, screen_text, settle, wait_for

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
    had no focus yet and were lost. Now ``2 i down space enter`` (the form opens with APP001,
    the highlighted applicant, ticked) ticks APP002 too and sends: both interviewed, 3 h
    each, and the lab shows again."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        burst(app, "i", "down", "space", "enter")
        await drain(pilot)
        assert interviewed(w) == ["APP001", "APP002"]
        assert Api(w).lab.attention()["oneoff_used"] == 2 * w.cfg.interview_hours
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab again")


async def test_space_in_a_burst_ticks_the_row_it_was_pressed_on_and_enter_sends_what_shows():
    """In a ready form, ``space down space`` typed at once toggled APP002 twice (Textual's list
    toggles the row highlighted when the toggle is handled, by then the next); and ``space
    enter`` sent the form before the tick was counted ("choose at least one"). The form opens
    with APP001 (the highlighted applicant) ticked: ``space down space`` unticks it and ticks
    APP002 (the bug left APP001 ticked and APP002 not), ``down space enter`` adds APP003."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        form = app.screen
        assert form.values["ids"] == ["APP001"]
        burst(app, "space", "down", "space")
        await drain(pilot)
        assert form.query_one(SelectionList).selected == ["APP002"]
        assert form.values["ids"] == ["APP002"]
        burst(app, "down", "space", "enter")
        await drain(pilot)
        assert interviewed(w) == ["APP002", "APP003"]


async def test_keys_typed_ahead_never_act_on_the_panel_underneath():
    """Keys typed after ``i`` go to the form, never to the panel's table underneath (its cursor
    stays; escape closes the form, nothing is interviewed)."""
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


async def test_an_enter_typed_with_n_in_a_burst_never_closes_the_month():
    """Closing a month cannot be undone: ``n enter`` (or ``n y``) typed at once, the enter meant
    for something else, left the month closed. Now the confirmation ignores a key typed before
    it was drawn, says so, and stays up; an enter typed once it shows closes the month. Checked
    the first time the confirmation is shown (not mounted yet: the enter is typed again once it
    is, with the time it was first typed) and a later month (it is kept, mounted, and shown again)."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        for month, confirm_key in ((1, "enter"), (2, "y")):
            before = app.months_advanced
            burst(app, "n", confirm_key)
            await drain(pilot)
            assert screen_ready(app, "ConfirmNextMonth"), type(app.screen).__name__
            assert app.months_advanced == before and w.month == month and not app.busy
            assert "typed before this showed was ignored" in screen_text(app)
            await press(pilot, confirm_key, until=lambda b=before: app.months_advanced > b, what="the month closed")
            await settle(pilot, app)
            assert w.month == month + 1
            await press(pilot, "enter", to="LabScreen")  # the digest


async def test_a_key_typed_again_keeps_the_time_it_was_typed_and_an_old_enter_never_confirms():
    """A key kept for a screen not ready yet is typed again with the time it was first typed
    (``Key.time``), so the confirmation can tell it from a key typed once it showed; an enter
    timed before the confirmation was drawn is ignored whenever it arrives."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        typed_again: list[tuple[str, float]] = []  # keys the app posts to itself: bubbled up or typed again
        post = app.post_message

        def record(message):
            if isinstance(message, events.Key) and message._sender is app:
                typed_again.append((message.key, message.time))
            return post(message)

        app.post_message = record  # type: ignore[method-assign]
        keys = [_key_event(k) for k in ("i", "space")]
        for event in keys:
            event.set_sender(app)
            post(event)
        await drain(pilot)
        app.post_message = post  # type: ignore[method-assign]
        # the space comes back up to the app (bubbling), is kept, then typed again for the form
        assert len([k for k, _ in typed_again if k == "space"]) >= 2
        assert {t for k, t in typed_again if k == "space"} == {keys[1].time}
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "n", to="ConfirmNextMonth")
        old_enter = _key_event("enter")
        old_enter.time = app.screen.shown_at - 0.001
        old_enter.set_sender(app)
        app.post_message(old_enter)
        await drain(pilot)
        assert screen_ready(app, "ConfirmNextMonth") and app.months_advanced == 0 and w.month == 1


async def test_a_y_typed_with_the_send_in_a_burst_never_answers_an_irreversible_question():
    """Dismissing someone cannot be undone: ``ctrl+o y`` typed at once (the y meant for
    something else) dismissed RA001. Now the question ignores a ``y`` typed before it was
    drawn, says so, and stays up; a ``y`` typed once it shows dismisses."""
    w = new_world(seed=5)
    api = Api(w)
    api.recruit.hire_ra()
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "X", to="ActionForm")
        burst(app, "ctrl+o", "y")
        await drain(pilot)
        assert screen_ready(app, "ConfirmAction"), type(app.screen).__name__
        assert not api.lab.dashboard()["staff"][0]["leaving_at_month_end"]
        assert "typed before this showed was ignored" in screen_text(app)
        await press(pilot, "y", to="LabScreen")
        assert api.lab.dashboard()["staff"][0]["leaving_at_month_end"]


async def test_space_then_ctrl_o_in_a_burst_sends_the_ticks_the_space_left():
    """QA (interview form, three times in three): with APP001 and APP002 ticked and the cursor
    on APP002, ``space ctrl+o`` typed at once interviewed both: ctrl+o sent before the space's
    untick (a list's space is a binding, run after the keys queued behind it, and it toggles
    through a message). Now the list runs its keys as it handles them and the send waits for
    what they posted: only APP001 is interviewed."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        await press(pilot, "down", "space")
        assert app.screen.query_one(SelectionList).selected == ["APP001", "APP002"]
        burst(app, "space", "ctrl+o")
        await drain(pilot)
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab again")
        assert interviewed(w) == ["APP001"]


async def test_a_burst_that_opens_a_choice_picks_from_its_list_and_never_sends_the_form():
    """QA (proposal form, on two seeds): ``tab space home enter tab end backspace backspace 4 5``
    typed at once sent the proposal, with its topic unchanged and 45 h: space opens the topic's
    list (the list takes the focus a moment later), so home and enter went to the closed choice,
    whose enter goes on with the form. Now the keys after a key that opens or closes a list wait
    for the focus to move: home and enter pick the first topic in the list, the hours become 45,
    nothing is sent until ctrl+o, which sends those values."""
    w = new_world(seed=5)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        form = app.screen
        topic, hours = form.query_one("#field-1", Choice), form.query_one("#field-2", Input)
        first = topic._options[0][1]  # the value of the list's first option (no blank: it has a value)
        assert app.focused is form.query_one("#field-0") and topic.value != first
        burst(app, "tab", "space", "home", "enter", "tab", "end", "backspace", "backspace", "4", "5")
        await drain(pilot)
        assert app.screen is form and Api(w).grants.proposals() == []
        assert topic.value == first and hours.value == "45" and app.focused is hours
        await press(pilot, "ctrl+o", to="LabScreen")
        assert [(p["topic"], p["hours"]) for p in Api(w).grants.proposals()] == [(first, 45)]


async def test_a_burst_through_the_start_form_sets_each_field_it_passes():
    """QA (start-project form, intermittent): ``space home enter`` then ``tab tab tab end``,
    four backspaces and ``5 0 0 0`` typed at once left the compute empty or sent the form. Now
    the topic is the first in its list, the compute 5000, the form stays open, three times in a
    row (shift+tab back to the topic between them)."""
    from tests.world.mechanics_helpers import add_person

    w = new_world(seed=5)
    add_person(w)
    add_person(w)
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        form = app.screen
        topic, compute = form.query_one("#field-0", Choice), form.query_one("#field-3", Input)
        first = topic._options[0][1]  # the value of the list's first option (no blank: it has a value)
        for _ in range(3):
            burst(app, "space", "home", "enter", "tab", "tab", "tab", "end", *["backspace"] * 4, "5", "0", "0", "0")
            await drain(pilot)
            assert app.screen is form and topic.value == first and compute.value == "5000"
            burst(app, "shift+tab", "shift+tab", "shift+tab", "end", *["backspace"] * 4)
            await drain(pilot)
            assert app.focused is topic
