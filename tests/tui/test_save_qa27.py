"""QA of the saves a ``play`` session leaves (issue 27 §6): the save dialog's blank name."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from pibench_tui.tui.app import make_app
from tests.tui.conftest import build, close_month, new_world, press, send_keys, wait_for


@pytest.mark.asyncio
async def test_a_blank_name_in_the_save_dialog_replaces_the_old_error(tmp_path):
    """ctrl+s, '..' enter: refused as only dots; then the field cleared and a space typed,
    enter: the dialog stays open and says the name is blank (the dots error used to stay,
    and enter did nothing). A good name then saves."""
    app = build(new_world("short-12"), tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+s", to="SaveDialog")
        inp = app.screen.query_one("#save-name", Input)
        inp.value = ""
        await send_keys(pilot, "full_stop", "full_stop", "enter")
        error = app.screen.query_one("#save-error", Static)
        assert "only dots" in str(error.render())
        inp.value = ""
        await send_keys(pilot, "space", "enter")
        assert app.screen.__class__.__name__ == "SaveDialog"  # kept open
        text = str(error.render())
        assert "blank" in text and "only dots" not in text, text
        inp.value = ""
        await send_keys(pilot, "b", "enter")
        await press(pilot, to="LabScreen")
    assert "b" in {i.name for i in app.store.list()}


def _store(tmp_path):
    from saves import SaveStore

    return SaveStore(tmp_path / "saves", on_warning=None)


def _short12_at(month: int):
    from world.api import Api

    w = new_world("short-12")
    for _ in range(month - 1):
        Api(w).time.next_month()
    return w


async def _quit(pilot, app) -> None:
    """q as a player presses it (from the lab or the end screen), and the app ends."""
    await send_keys(pilot, "q")
    await wait_for(pilot, lambda: app.return_code is not None or app._exit, "the app to end")


@pytest.mark.asyncio
async def test_play_save_name_to_the_end_leaves_the_save_name(tmp_path):
    """QA (issue 27 §6): `play --save s12` played to the end of short-12 and quit left only
    s12@m11, s12@m12 and s12@m12-end: no s12, though `--save NAME` "saves the career under
    NAME". Quitting now writes s12 (the finished career), as headless --save does at its end,
    and `saves list`'s row s12 is the save `saves show s12` / `--load s12` use."""
    app = make_app(
        world=_short12_at(11), scenario="short-12", save="s12", saves_dir=str(tmp_path / "saves"),
        test_mode=True, run_baseline=False, show_digest=False,
    )  # fmt: skip
    async with app.run_test(size=(160, 50)) as pilot:
        await close_month(pilot, app)
        await close_month(pilot, app)  # month 12, the last: the career is over
        await wait_for(pilot, lambda: app.game.finished, "the career's end")
        await _quit(pilot, app)
    store = _store(tmp_path)
    infos = {i.name: i for i in store.list()}
    assert "s12" in infos, sorted(infos)
    assert infos["s12"].month == 12 and infos["s12"].status == "finished"
    assert store.resolve("s12").name == "s12"  # show and --load use the row the list shows
    assert app.saved_at_end is not None and "saved as 's12' (month 12)" in app.saved_at_end


@pytest.mark.asyncio
async def test_play_save_name_quit_mid_career_leaves_the_save_name(tmp_path):
    """A career quit mid-way with every month autosaved (no question asked) also leaves NAME,
    holding the month it was quit in; a second quit after loading it without a change writes
    nothing (a look)."""
    app = make_app(
        scenario="short-12", save="mid", saves_dir=str(tmp_path / "saves"), test_mode=True, run_baseline=False,
        show_digest=False,
    )  # fmt: skip
    async with app.run_test(size=(160, 50)) as pilot:
        await close_month(pilot, app)
        await close_month(pilot, app)
        await _quit(pilot, app)
    infos = {i.name: i for i in _store(tmp_path).list()}
    assert infos["mid"].month == 3 and infos["mid"].kind == "manual", sorted(infos)
    before = [(i.name, i.updated) for i in _store(tmp_path).list()]
    look = make_app(load="mid", saves_dir=str(tmp_path / "saves"), test_mode=True, run_baseline=False)
    async with look.run_test(size=(160, 50)) as pilot:
        await _quit(pilot, look)
    assert [(i.name, i.updated) for i in _store(tmp_path).list()] == before


def _career_of_three_months(tmp_path):
    """Career qa autosaved at months 1, 2 and 3 (short-12)."""
    from world.api import Api

    store = _store(tmp_path)
    w = new_world("short-12")
    for month in (1, 2, 3):
        store.autosave("qa", w, scenario="short-12")
        if month < 3:
            Api(w).time.next_month()
    return store


@pytest.mark.asyncio
async def test_play_on_from_an_older_save_is_a_new_career(tmp_path):
    """QA (issue 27 §6): `--load qa@m02` and playing on wrote qa's autosaves and (now, at quit)
    its save qa over the newer career. It is saved as the new career qa-from-m02, as the
    notice says; qa's saves stay as they were."""
    store = _career_of_three_months(tmp_path)
    before = {(i.name, i.updated) for i in store.list()}
    app = make_app(
        load="qa@m02", saves_dir=str(tmp_path / "saves"), test_mode=True, run_baseline=False, show_digest=False
    )
    assert app.career == "qa-from-m02"  # autosaves and the save at quit go there
    async with app.run_test(size=(160, 50)) as pilot:
        await close_month(pilot, app)
        await _quit(pilot, app)
    after = {(i.name, i.updated) for i in _store(tmp_path).list()}
    assert before <= after
    assert {n for n, _ in after - before} == {"qa-from-m02@m03", "qa-from-m02"}
    assert _store(tmp_path).resolve("qa").name == "qa@m03"


@pytest.mark.asyncio
async def test_a_row_picked_in_the_load_dialog_older_than_its_career_is_a_new_career(tmp_path):
    """The load dialog's first row, qa@m01, is older than qa@m03: playing on from it is saved
    as qa-from-m01 (the player is told), not over qa."""
    store = _career_of_three_months(tmp_path)
    before = {(i.name, i.updated) for i in store.list()}
    app = build(new_world("short-12"), tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await press(pilot, "l", to="LoadDialog")
        await press(pilot, "enter", to="LabScreen", until=lambda: app.career == "qa-from-m01", what="the branch")
        assert any("new career 'qa-from-m01'" in t for t, _ in app.toasts), app.toasts
        await close_month(pilot, app)
        await _quit(pilot, app)
    after = {(i.name, i.updated) for i in _store(tmp_path).list()}
    assert before <= after
    assert {n for n, _ in after - before} == {"qa-from-m01@m02", "qa-from-m01"}
