"""QA at 80x24 (months 57-60): a submission that can never be decided was sent with no
question and its toast promised a decision "in month 61"; the month-end confirmation of month
60 listed drafts to submit and idle people, which can no longer count. A submission decided
after the horizon now asks first ("Are you sure?", the forms' confirmation) and its toast says
it can never count in this career (the API's note, ``world.explain.submission_horizon_note``); the
month-end confirmation leaves out what the header's late-career warnings leave out
(``world.papers.last_useful_draft_month``, ``record.after_the_end``)."""

from __future__ import annotations

import pytest

from pibench_tui.tui.screens.confirm import ConfirmNextMonth
from world.api import Api

from .conftest import build, press, screen_text
from .test_published_after_the_horizon import _choose, _late_world, _open_submit_form, _shown

NEVER = "never decided: month 61 is after the horizon (month 60)"


def _toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.asyncio
async def test_a_submission_that_can_never_be_decided_asks_first_and_says_so(tmp_path):
    """Month 54 at 80x24: D003 to JMR (decision 61, after the horizon) asks "Are you sure?"
    with the reason; no sends nothing; yes sends it and the toast says it will not be decided
    within the career."""
    w = _late_world(54)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_submit_form(pilot)
        await _choose(pilot, app, "JMR")
        await press(pilot, "ctrl+o", to="ConfirmAction")
        assert "Are you sure?" in screen_text(app)
        shown = _shown(app, "#confirm-question")  # whole at 80x24
        assert shown == f"Submit D003 to JMR? It would be {NEVER}: it can never count in this career.", shown
        await press(pilot, "n", to="ActionForm")
        assert not [s for s in Api(w).papers.submissions() if s["status"] == "under_review"]  # no: nothing sent
        await press(pilot, "ctrl+o", to="ConfirmAction")
        await press(pilot, "y", to="LabScreen")
        sub = [s for s in Api(w).papers.submissions() if s["draft_id"] == "D003" and s["status"] == "under_review"]
        assert [s["venue"] for s in sub] == ["JMR"], sub
        toast = next(t for t in _toasts(app) if t.startswith("submitted as"))
        assert toast == f"submitted as {sub[0]['id']}; {NEVER}: it can never count in this career", toast


@pytest.mark.asyncio
async def test_a_submission_decided_within_the_career_is_sent_without_a_question(tmp_path):
    """Month 54: D003 to W-SHOP (decision 55) is sent at once, its toast names the month."""
    w = _late_world(54)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_submit_form(pilot)
        await _choose(pilot, app, "W-SHOP")
        await press(pilot, "ctrl+o", to="LabScreen")
        toast = next(t for t in _toasts(app) if t.startswith("submitted as"))
        assert toast.endswith("; decision expected in month 55"), toast


async def _month_end_reminders(app, pilot) -> str:
    await press(pilot, "n", to="ConfirmNextMonth")
    assert isinstance(app.screen, ConfirmNextMonth)
    text = " ".join(str(app.screen.query_one("#confirm-warnings").render()).split())
    await press(pilot, "escape", to="LabScreen")
    return text


@pytest.mark.asyncio
async def test_the_month_end_confirmation_leaves_out_what_can_no_longer_count(tmp_path):
    """Seed 1001, the baseline to 40 then idle: in month 59 the confirmation still lists D003
    (a workshop decides it in 60); in month 60 no submission can be decided, so neither D003
    nor the idle S004 and S005 are listed; E043 (answer by month 61) says it never lapses
    instead of "answer by month 61"; the unused attention stays."""
    for month, drafts in ((59, True), (60, False)):
        app = build(_late_world(month), tmp_path=tmp_path / str(month), show_digest=False)
        async with app.run_test(size=(80, 24)) as pilot:
            text = await _month_end_reminders(app, pilot)
        assert ("draft(s) available and not submitted: D003" in text) is drafts, text
        assert "On no project" not in text, text
        assert "E043 review request: unanswered; its answer-by month 61 is after the career's last month" in text
        assert "answer by month 61" not in text and "h of attention unused" in text, text


@pytest.mark.asyncio
async def test_closing_the_last_month_says_it_ends_the_career(tmp_path):
    """QA: month 60's question read only "End month 60 (Y5M12)?". The last month (the config's
    ``months``) says closing it ends the career, whole at 80x24; month 59's does not."""
    for month in (59, 60):
        w = _late_world(month)
        app = build(w, tmp_path=tmp_path / str(month), show_digest=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await press(pilot, "n", to="ConfirmNextMonth")
            title = _shown(app, "#confirm-title")
            ends = "closing it ends the career" in title
            assert ends == (month == w.cfg.months), title
            assert title.startswith(f"End month {month} ("), title
            await press(pilot, "escape", to="LabScreen")
