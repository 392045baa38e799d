"""The tutorial checklist's visibility is the player's choice and is saved with the career
(the save's `ui` field, outside the world): a resumed career shows it or not as it was left;
saves without the field load with the default; digests do not change."""

from __future__ import annotations

import pytest

from pibench_tui.tui.app import make_app
from saves import SaveStore
from world.api import Api

from .conftest import drain, new_world, press, screen_text, settle

pytestmark = pytest.mark.asyncio


def _app(tmp_path, **kw):
    return make_app(saves_dir=str(tmp_path / "saves"), test_mode=True, show_digest=False, run_baseline=False, **kw)


async def test_a_dismissed_tutorial_stays_dismissed_in_the_resumed_career(tmp_path):
    """t hides the checklist in a tutorial career saved as t1; the month's autosave records
    the choice; `--load t1` resumes with the checklist hidden; ? then t shows it again, and
    the next autosave records that. The world digest is the one of the same world without
    any UI state."""
    app = _app(tmp_path, scenario="tutorial", save="t1")
    async with app.run_test(size=(100, 30)) as pilot:
        await drain(pilot)
        assert app.tutorial.display
        await press(pilot, "t")
        assert not app.tutorial.display
        await press(pilot, "n", "enter")
        await settle(pilot, app)
        digest = app.game.world.digest()
    store = SaveStore(tmp_path / "saves", on_warning=None)
    record = store.load("t1")
    assert record.info.name == "t1@m02" and record.meta["ui"] == {"tutorial": "hidden"}
    assert record.info.digest == digest and "ui" not in record.state

    resumed = _app(tmp_path, load="t1")
    async with resumed.run_test(size=(100, 30)) as pilot:
        await drain(pilot)
        assert resumed.game.world.digest() == digest
        assert not resumed.tutorial.display and "Tutorial —" not in screen_text(resumed)
        await press(pilot, "question_mark", "t")
        assert resumed.tutorial.display
        await press(pilot, "n", "enter")
        await settle(pilot, resumed)
    assert store.load("t1").meta["ui"] == {"tutorial": "shown"}


async def test_a_save_without_the_ui_field_loads_with_the_default(tmp_path):
    """A tutorial save written without UI state (older saves, headless ones) shows the
    checklist, as a new tutorial career does."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("tutorial")
    Api(w).time.next_month()
    store.save("old", w, scenario="tutorial")
    assert "ui" not in store.load("old").meta
    app = _app(tmp_path, load="old")
    async with app.run_test(size=(100, 30)) as pilot:
        await drain(pilot)
        assert app.tutorial.display


async def test_hiding_the_tutorial_after_loading_counts_as_unsaved(tmp_path):
    """Loaded, then t and q: the quit dialog says the checklist's visibility is not saved
    (instead of quitting and forgetting the choice)."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("tutorial")
    Api(w).time.next_month()
    store.save("t2", w, scenario="tutorial")
    app = _app(tmp_path, load="t2")
    async with app.run_test(size=(100, 30)) as pilot:
        await drain(pilot)
        assert not app.game.unsaved
        await press(pilot, "t", "q")
        assert type(app.screen).__name__ == "QuitDialog"
        assert "tutorial checklist's visibility is not saved" in screen_text(app)
