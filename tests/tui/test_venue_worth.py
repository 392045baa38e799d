"""Each venue's bar and worth as a PI knows them (issue 27 §1), in the submit form and the
Papers panel, from world/explain.py (the text lab.explain("venue", name) gives)."""

from __future__ import annotations

import pytest

from world import explain

from .conftest import build, press
from .test_actions import _world_with_draft

pytestmark = pytest.mark.asyncio


async def test_submit_form_and_papers_panel_show_each_venues_bar_and_worth(tmp_path):
    """With a draft ready (month 8), the Papers panel lists every venue of the scenario with its
    bar and citation rank (NAIC the highest bar of 4; W-SHOP the lowest), the same text as
    ``lab.explain("venue", ...)`` without its stop; the submit form's summary names the chosen
    venue's bar and worth before its decision month and the lab's record."""
    w, api = _world_with_draft()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4", panel="papers")
        shown = str(app.screen.query_one("#venues-text").render())
        for venue in w.cfg.venues:
            assert explain.venue_profile(app.game.query, w.cfg, venue) in shown
            assert api.lab.explain("venue", venue).rstrip(".") in shown
        assert "NAIC (top conference): bar the highest of 4, citations the highest of 4" in shown
        assert "bar the lowest of 4" in shown
        await press(pilot, "b", to="ActionForm")
        summary = str(app.screen.query_one("#form-summary").render())
        venue = app.screen.values["venue"]
        assert summary.startswith(explain.venue_worth(w.cfg, venue) + " · decision at the end of month")
        assert "bar the lowest of 4" in summary  # W-SHOP is the only venue open in month 8
