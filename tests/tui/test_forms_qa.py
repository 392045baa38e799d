"""Issue 27, a fresh QA player's forms at 80x24: after a refused send tab leads back to the field
the refusal is about; keys typed in a burst in a number field apply in the order typed; polish
and revise start at the hours left; the mentoring form lists people in the Lab table's order."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from .conftest import build, press
from .test_actions import _world_with_draft

pytestmark = pytest.mark.asyncio


def world_with_a_rejected_draft(left: float):
    """D001 rejected at NAIC (month 13), with ``left`` hours of attention left this month (the
    rest spent polishing it past its saturation)."""
    w, api = _world_with_draft()
    api.time.next_month()  # month 9: NAIC's deadline
    api.papers.submit("D001", "NAIC")
    for _ in range(4):  # decided at the tick of month 12
        api.time.next_month()
    assert api.papers.submissions()[-1]["status"] == "reject"
    api.papers.polish("D001", api.lab.attention()["left"] - left)
    assert api.lab.attention()["left"] == left
    return w, api


async def test_after_a_refused_revision_tab_leads_to_the_hours_and_typing_edits_them(tmp_path):
    """QA (month 31, 80x24): v on a rejected draft, ctrl+o refused ('revising D001 needs 9 h but
    only 6.5 h are left'); then tab, backspace, 6 left the hours at 9 (tab focused the form's
    scroll box). Now tab after the refusal focuses the hours the refusal is about, the same keys
    make them 6, and the revision is sent. A hotkey typed before tab still edits nothing."""
    w, api = world_with_a_rejected_draft(6.5)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "4", panel="papers")
        await press(pilot, "v", to="ActionForm")
        form = app.screen
        hours = form.query_one("#field-1", Input)
        hours.value = "9"  # more than the 6.5 h left
        problems = form.query_one("#form-problems")
        await press(pilot, "ctrl+o", until=lambda: problems.display, what="the refusal")
        assert "refused" in str(problems.render()) and "tab" in str(problems.render())
        assert app.focused is None
        await press(pilot, "n")
        assert hours.value == "9" and app.screen is form
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "end", "backspace", "6")
        assert hours.value == "6"
        await press(pilot, "ctrl+o", to="LabScreen")
        assert api.papers.drafts()[0]["revisions"] == 1 and api.lab.attention()["left"] == 0.5
