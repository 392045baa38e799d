"""Issue 27 §4, a QA play at 80x24: what a player needs of a panel shows without scrolling
(every pending event; a project's progress, draft and scoops), and a table's cursor moved
below the panel's fold brings its row into view."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable

from world.api import Api

from .conftest import build, drain, new_world, press, screen_text


@pytest.mark.asyncio
async def test_every_pending_event_shows_at_80x24_and_the_earlier_ones_scroll_below():
    """Month 32 of a career that answered nothing: four events pending. At 80x24 the Events
    panel shows each of their rows (before, its table had room for two), and the earlier
    events below are reached by scrolling the panel down."""
    w = new_world()
    api = Api(w)
    while w.month < 32:
        api.time.next_month()
    pending = [e["id"] for e in api.events.pending()]
    assert len(pending) == 4, pending
    app = build(w, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "7", panel="events")
        shown = screen_text(app).splitlines()
        assert all(any(line.startswith(f" {e} ") for line in shown) for e in pending), "\n".join(shown)
        body = app.screen.query_one("#events").query_one(VerticalScroll)
        assert body.max_scroll_y > 0  # the earlier events continue below the fold
        body.scroll_end(animate=False, immediate=True)
        await drain(pilot)
        oldest = app.game.query(
            "select id from events where status != 'pending' order by arrived_month desc, id desc limit 40"
        )[-1]["id"]
        past = app.screen.query_one("#past-events-table", DataTable)
        past.scroll_end(animate=False, immediate=True)
        await drain(pilot)
        assert any(line.startswith(f" {oldest} ") for line in screen_text(app).splitlines()), screen_text(app)
