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
