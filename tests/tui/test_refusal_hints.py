"""QA: a refused form suggested a fix that could not work. The conference trip form (no
fields) said "Change the values and send again"; the answer form for a crisis in its last
month relayed "… or wait for next month" (the world's words, now "lapses unanswered at this
month's end", tests/world/test_attention_refusal_lapse.py)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.world.test_attention_refusal_lapse import _short_of_hours

from .conftest import build, press, wait_for

pytestmark = pytest.mark.asyncio


def _problems(app) -> str:
    return str(app.screen.query_one("#form-problems", Static).render())


async def test_a_refused_conference_trip_only_says_escape_cancels(tmp_path):
    """With 1 h left, a refused conference trip (a form with no values) ends its refusal with "Press escape to cancel." and never asks to change the values."""
    api = _short_of_hours(1.0)
    app = build(api.world, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", panel="field")
        await press(pilot, "f", to="ActionForm")
        await press(pilot, "enter", until=lambda: "refused" in _problems(app), what="the refusal")
        text = " ".join(_problems(app).split())
        assert "a conference trip needs" in text
        assert text.endswith("Press escape to cancel.") and "Change the values" not in text, text


async def test_a_refused_crisis_answer_in_its_last_month_does_not_say_wait(tmp_path):
    """With 1 h left, answering the crisis E029 in its last month is refused saying it lapses at this month's end, not "wait for next month"."""
    api = _short_of_hours(1.0)
    app = build(api.world, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7", panel="events")
        await press(pilot, "e", to="ActionForm")
        assert app.screen.values["event"] == "E029"
        app.screen.query_one("#field-1").value = "support"
        await wait_for(pilot, lambda: app.screen.values["action"] == "support", "support chosen")
        await press(pilot, "ctrl+o", until=lambda: "refused" in _problems(app), what="the refusal")
        text = " ".join(_problems(app).split())
        assert "E029 lapses unanswered at this month's end" in text and "wait for next month" not in text, text
