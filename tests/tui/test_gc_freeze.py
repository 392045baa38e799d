"""The app sets the objects of its start and of the career drawn aside from the garbage
collector (``gc.freeze``) once drawn, lets them be collected again when a load replaces the
career (so the career left is freed), and on exit (so no app's objects outlive it)."""

from __future__ import annotations

import gc
import weakref

import pytest

from .conftest import build, drain

pytestmark = pytest.mark.asyncio


async def test_freeze_once_drawn_unfreeze_on_load_and_on_exit(tmp_path):
    """Objects are frozen once the app is drawn; a load unfreezes, so the career it replaces is
    collected, and freezes again once the loaded career is drawn; nothing stays frozen after exit."""
    app = build(tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert gc.get_freeze_count() > 0, "the objects alive once the app is drawn are frozen"
        app.game.save("gc-freeze", app._store())
        left = weakref.ref(app.game.world)
        app._load_named("gc-freeze")
        await drain(pilot)
        assert app.game.world is not left()
        gc.collect()
        assert left() is None, "the career a load replaced is collected, not kept frozen"
        assert gc.get_freeze_count() > 0, "the loaded career is frozen once drawn"
    assert gc.get_freeze_count() == 0, "nothing stays frozen after the app ends"
