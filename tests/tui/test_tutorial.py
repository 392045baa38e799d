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


def test_each_steps_keys_name_its_panel_and_the_keys_of_actions_there():
    """QA: the checklist's keys read "2: i, o", like step numbers. Each step now reads "panel N:
    keys", N the number (key) of the panel as the tab bar orders it, and each key that of an
    action of that panel; none is longer than the keys column."""
    from pibench_tui.tui.actions import ACTIONS
    from pibench_tui.tui.game import Game
    from pibench_tui.tui.lab_app import TABS
    from pibench_tui.tui.tutorial import KEYS_CHARS, steps

    from .conftest import new_world

    game = Game(new_world("tutorial"))
    for step in steps(game):
        panel, _, keys = step.keys.partition(": ")
        assert panel.startswith("panel ") and len(step.keys) <= KEYS_CHARS, step.keys
        tab = TABS[int(panel.removeprefix("panel ")) - 1][0]
        on_panel = {a.key for a in ACTIONS if a.tab == tab}
        assert keys and set(keys.split(", ")) <= on_panel, (step.keys, tab, on_panel)


def test_the_grants_step_fits_80_columns_with_every_agency_open():
    """Four calls open at once: the short form of the grants step drops "the only income"
    rather than run past the 80-column checklist; with one call open it keeps it."""
    from pibench_tui.tui import tutorial
    from pibench_tui.tui.game import Game

    from .conftest import new_world

    game = Game(new_world("tutorial"))
    dash = game.dashboard()
    for agencies, whole in ((["TIF"], True), (["AMP", "BSF", "FEL", "TIF"], False)):
        calls = [{"agency": a} for a in agencies]
        game.dashboard = lambda dash=dash, calls=calls: {**dash, "open_grant_calls": calls}  # type: ignore[method-assign]
        short = tutorial.steps(game)[-1].short
        assert len(short) <= tutorial.SHORT_CHARS and f"(open now: {', '.join(agencies)})" in short, short
        assert ("the only income" in short) == whole, short
