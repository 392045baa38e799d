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


async def test_a_month_close_freezes_the_panels_and_dialogs_composed_since_once_each(monkeypatch):
    """At the end of a month close (the digest closed), what is alive is frozen again if a panel
    or a kept dialog was composed since the last freeze (the first close composes the
    confirmation and the digest; a panel is composed when first shown), never twice for the same
    widgets: a close with nothing new composed freezes nothing."""
    from .conftest import close_month, press, screen_ready, wait_for

    freezes: list[int] = []
    real = gc.freeze

    def counted() -> None:
        freezes.append(1)
        real()

    monkeypatch.setattr(gc, "freeze", counted)
    app = build()
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert len(freezes) == 1, "frozen once drawn"

        async def close() -> None:
            await close_month(pilot, app)
            await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
            await press(pilot, "enter", to="LabScreen")

        await close()
        assert len(freezes) == 2, "the confirmation and the digest, composed by the first close"
        await close()
        assert len(freezes) == 2, "nothing new composed: nothing frozen"
        await press(pilot, "3", panel="projects")
        await press(pilot, "1", panel="people")
        await close()
        assert len(freezes) == 3, "the Projects panel, composed when first shown"
        await press(pilot, "3", panel="projects")
        await press(pilot, "1", panel="people")
        await close()
        assert len(freezes) == 3, "shown again, not composed again: nothing frozen"
