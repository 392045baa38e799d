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


def test_mentoring_step_says_what_mentoring_does_from_the_scenarios_numbers():
    """QA10 play: the step said mentoring "lifts skill and morale", but §5 has mentoring of at
    least the neglect threshold only spare morale a penalty, and lift skill growth up to its
    hours. The step now says so, in the scenario's numbers (a changed config changes it)."""
    import dataclasses

    from pibench_tui.tui.tutorial import SHORT_CHARS, mentor_step
    from scenarios import load_scenario

    cfg = load_scenario("tutorial").config
    step = mentor_step(cfg, False, True)
    for text in (step.text, step.short):
        assert "lifts" not in text and "lift skill and morale" not in text
        assert f"{cfg.neglect_hours:g} h spares" in text and f"{cfg.skill_mentor_hours:g} h" in text
    assert f"{cfg.sentiment_min_hours:g} h a month shows their Mood" in step.text
    assert f"({1 + cfg.skill_mentor_gain:g}x)" in step.text and len(step.short) <= SHORT_CHARS
    other = dataclasses.replace(cfg, neglect_hours=3.5, skill_mentor_hours=6.0)
    assert "3.5 h spares" in mentor_step(other, False, True).short
    assert "6 h speeds skill" in mentor_step(other, False, True).short
