"""The tutorial checklist (scenario tutorial): steps ticked from the state, t hides it."""

from __future__ import annotations

import pytest


@pytest.mark.asyncio
async def test_tutorial_checklist_folds_to_one_line_once_every_step_is_done(monkeypatch):
    """With every step ticked the checklist is one line ("all 5 steps done") instead of six
    rows of struck-out steps kept for the rest of the career at 80×24."""
    from pibench_tui.tui import tutorial
    from pibench_tui.tui.widgets import tutorial as checklist

    from .conftest import build, drain, new_world

    app = build(new_world("tutorial"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_tutorial()
        await drain(pilot)
        real = tutorial.steps(app.game)
        assert app.tutorial.display and app.tutorial.size.height > 2
        monkeypatch.setattr(checklist, "steps", lambda game: [tutorial.Step(s.text, s.keys, True, False) for s in real])
        app.refresh_header()
        await drain(pilot)
        text = str(app.tutorial.render())
        assert f"all {len(real)} steps done" in text and "[x]" not in text
        assert app.tutorial.size.height <= 2
