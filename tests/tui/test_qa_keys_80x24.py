"""QA at 80x24 (seed 1001, issue 27 §4): the quit dialog's ``s`` saves once and quits; a
form's single choice never goes back to blank by the arrow keys; Home/End move a panel
table's cursor (the row actions target); the ``!`` warning toast stays compact."""

from __future__ import annotations

import pytest

from saves import SaveStore

from .conftest import build, drain, new_world, press, wait_for

pytestmark = pytest.mark.asyncio


def _screens(app) -> list[str]:
    return [type(s).__name__ for s in app.screen_stack]


@pytest.mark.parametrize("save", [None, "qa"])
async def test_quit_dialog_s_saves_once_and_quits(tmp_path, save):
    """q, then s, with unsaved play (an RA hired this month): the career is saved once, under
    the name the dialog shows (the --save name, else the default), and the app ends; no save
    name is asked for."""
    app = build(new_world(seed=1001), tmp_path=tmp_path, save=save)
    seen: list[list[str]] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await press(pilot, "R", to="ActionForm")
        await press(pilot, "enter", to="LabScreen")
        assert app.game.unsaved
        digest = app.game.world.digest()
        await press(pilot, "q", to="QuitDialog")
        name = save or "standard-1001"
        assert f"s save as {name!r} and quit" in str(app.screen.query_one(".form-hint").render())
        await press(pilot, "s")
        seen.append(_screens(app))
        await wait_for(pilot, lambda: not app.is_running, "the app to end after s")
    assert app.return_code == 0
    assert all("SaveDialog" not in s for s in seen), seen
    saved = [t for t, _ in app.toasts if t.startswith("saved as")]
    assert saved == [f"saved as {name!r} (month 1)"], app.toasts
    store = SaveStore(tmp_path / "saves", on_warning=None)
    world, _ = store.load_world(name, exact=True)
    assert world.digest() == digest, "the save holds the world as it was at the quit"


async def test_quit_dialog_s_asks_a_name_when_the_default_is_another_careers(tmp_path):
    """When the default name belongs to another career, s asks for a name (saving there would
    overwrite it); enter on a free name saves and quits."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("standard-1001", new_world("short-12"), scenario="short-12")
    app = build(new_world(seed=1001), tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await press(pilot, "R", to="ActionForm")
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "q", to="QuitDialog")
        assert "s save (name it) and quit" in str(app.screen.query_one(".form-hint").render())
        await press(pilot, "s", to="SaveDialog")
        app.screen.query_one("#save-name").value = "mine"
        await press(pilot, "enter")
        await wait_for(pilot, lambda: not app.is_running, "the app to end after the save")
    assert {i.name for i in store.list()} == {"standard-1001", "mine"}


async def test_form_choice_arrows_never_reach_the_blank(tmp_path):
    """The grant form (5, g) starts on the open call; space, ↓ (past the last call), enter, and
    space, ↑, enter keep it: the blank 'choose (N options)' is not an option to move to, and the
    arrows do not wrap. Enter then goes on (no 'Call: choose one')."""
    app = build(new_world(seed=1001), tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        choice = app.screen.query_one("#field-0")
        call = choice.value
        assert call == "TIF-rolling", call
        for arrows in (["down"], ["down", "down"], ["up"], ["up", "up"]):
            await press(pilot, "space", until=lambda: choice.expanded, what="the call list to open")
            await press(pilot, *arrows)
            await press(pilot, "enter", until=lambda: not choice.expanded, what="the list to close")
            assert choice.value == call, (arrows, choice.value)
        await press(pilot, "tab")
        assert "choose one" not in str(app.screen.query_one("#form-problems").render())


async def test_a_blank_choice_once_chosen_cannot_go_back_to_blank():
    """A choice with no value yet (its prompt shows): enter opens the list on the first option,
    not on the blank; once one is picked, ↑ and Home stay on an option."""
    from textual.app import App

    from pibench_tui.tui.widgets.choice import Choice

    class One(App[None]):
        def compose(self):
            yield Choice([("a", "a"), ("b", "b")], prompt="choose (2 options)", id="c")

    app = One()
    async with app.run_test(size=(40, 12)) as pilot:
        choice = app.query_one(Choice)
        choice.focus()
        await drain(pilot)
        assert choice.is_blank()
        await press(pilot, "enter", until=lambda: choice.expanded, what="the list to open")
        await press(pilot, "enter", until=lambda: not choice.expanded, what="the list to close")
        assert choice.value == "a"
        for keys in (["up"], ["home"], ["down", "down", "down"], ["end", "down"]):
            await press(pilot, "space", until=lambda: choice.expanded, what="the list to open")
            await press(pilot, *keys)
            await press(pilot, "enter", until=lambda: not choice.expanded, what="the list to close")
            assert not choice.is_blank(), keys
        assert choice.value == "b"


async def test_home_and_end_move_the_panel_tables_cursor(tmp_path):
    """Applicants panel at 80x24: ↓↓↓ then Home highlights the first row, ↓ the second, and o
    opens the offer form on that applicant (APP002; main: Home did nothing, APP005); End
    highlights the last row and o offers to it."""
    app = build(new_world(seed=1001), tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await press(pilot, "2", panel="applicants")
        table = app.query_one("#applicants-table")
        ids = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        await press(pilot, "down", "down", "down")
        assert app.highlighted_id() == ids[3]
        await press(pilot, "home", "down")
        assert app.highlighted_id() == ids[1] == "APP002"
        await press(pilot, "o", to="ActionForm")
        assert app.screen.values["applicant"] == "APP002"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "end")
        assert app.highlighted_id() == ids[-1]
        await press(pilot, "o", to="ActionForm")
        assert app.screen.values["applicant"] == ids[-1]


async def test_the_warning_toast_is_compact_and_whole_at_80x24(tmp_path):
    """! at 80x24 in month 2 (seed 1001: the PhD offers warning): the toast is its title and its
    message's lines, no blank rows around them, at most 60 columns wide (main: 40 x 6, the text
    in 3 lines between two blank rows); every word of the warning is in it."""
    from textual.widgets._toast import Toast

    from pibench_tui.tui.alerts import alerts
    from world.api import Api

    w = new_world(seed=1001)
    Api(w).time.next_month()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await drain(pilot)
        warning = alerts(app.game)[0]
        await press(pilot, "exclamation_mark", until=lambda: bool(app.screen.query(Toast)), what="the warning toast")
        toast = app.screen.query_one(Toast)
        lines = [strip.text.strip(" ▌") for strip in toast.render_lines(toast.region.reset_offset)]
        assert all(line for line in lines), lines  # no blank row
        assert lines[0] == f"press {warning.key}"
        assert " ".join(lines[1:]).split() == warning.text.split(), lines
        assert toast.outer_size.width <= 60
        assert toast.outer_size.height == len(lines) <= 3, lines
