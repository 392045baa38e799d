"""QA (seed 2718, month 43): answering a student crisis due that month with too few hours
left was refused with "… lower mentoring or wait for next month", but waiting lets the crisis
lapse (counted as ignored). In an event's last month the refusal says it lapses at this
month's end instead; otherwise it still suggests waiting. The world's outcomes do not change,
only the words (world.api.namespaces.base.Namespace._check_hours)."""

from __future__ import annotations

import pytest

from tests.careers import play_to
from world.api import ActionError, Api

from ..tui.conftest import new_world


def _short_of_hours(left: float) -> Api:
    """Seed 2718's baseline at month 43 (E029, a student crisis due this month, 10 h; E028, a
    review due in 45, 6 h) with mentoring raised until ``left`` hours are left."""
    w = new_world(seed=2718)
    api, _ = play_to(w, 43, "baseline")
    extra = api.lab.attention()["left"] - left
    hours = {}
    for s in api.students.list():
        if s["status"] == "active" and extra > 0:
            add = min(extra, w.cfg.mentoring_max - s["mentoring_hours"])
            hours[s["id"]] = s["mentoring_hours"] + add
            extra -= add
    assert extra <= 1e-9, "the students' mentoring can take the hours"
    api.students.set_mentoring(hours)
    assert api.lab.attention()["left"] == pytest.approx(left)
    return api


def test_a_crisis_in_its_last_month_is_not_told_to_wait():
    """events.respond refuses a crisis answer in its last month for want of hours, naming need and hours left, and says lowering mentoring answers now while waiting lets it lapse as ignored."""
    api = _short_of_hours(1.0)
    with pytest.raises(ActionError) as err:
        api.events.respond("E029", "support")
    msg = err.value.message
    assert "needs 10 h but only 1.00 h are left" in msg
    assert "wait for next month" not in msg
    assert msg.endswith(
        "lower mentoring to answer now: E029 lapses unanswered at this month's end and counts as ignored"
    )


def test_an_event_answerable_later_still_suggests_waiting():
    """An event that can still be answered next month keeps the refusal's advice to lower mentoring or wait for next month."""
    api = _short_of_hours(1.0)
    with pytest.raises(ActionError) as err:
        api.events.respond("E028", "accept")
    assert err.value.message.endswith("lower mentoring or wait for next month")
