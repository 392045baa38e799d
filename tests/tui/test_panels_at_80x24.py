"""Issue 27 §4, a QA play at 80x24: what a player needs of a panel shows without scrolling
(every pending event; a project's progress, draft and scoops), and a table's cursor moved
below the panel's fold brings its row into view."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widget import Widget
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


@pytest.mark.asyncio
async def test_projects_progress_draft_and_scoops_show_at_80x24_and_every_column_is_reachable():
    """Month 20 of a baseline career (a completed project with a draft, one on the longest
    topic name): at 80x24 the Projects table shows its Progress, Draft and Scooped columns
    whole (before, Draft and Scooped were off-screen, named by "→ more columns"); the columns
    that do not fit are still there, reached by scrolling sideways, and the hint names them."""
    from pibench_tui.tui.widgets.panel import hidden_columns
    from tests.careers import play_to

    w = new_world()
    play_to(w, 20, "baseline")
    projects = Api(w).projects.list()
    assert any(p["draft_id"] for p in projects) and any(p["topic"] == "sparse_models" for p in projects)
    app = build(w, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        await drain(pilot)
        table = app.screen.query_one("#projects-table", DataTable)
        hidden = hidden_columns(table)
        assert not {"Status", "Progress", "Draft", "Scooped"} & set(hidden), hidden
        header = screen_text(app).splitlines()[4]
        assert all(f" {name} " in header for name in ("Progress", "Draft", "Scooped")), header
        labels = [str(c.label) for c in table.columns.values()]
        assert {"Members", "Compute", "Started", "Ended"} <= set(labels), labels
        assert hidden and all(name in screen_text(app) for name in hidden), screen_text(app)
        await press(pilot, *["right"] * 40)  # the keys the hint names: scrolled to the last column
        assert labels[-1] not in hidden_columns(table), hidden_columns(table)


def cursor_row_on_screen(table: DataTable) -> Region:
    """Where ``table``'s cursor row is drawn on the screen, clipped to what its table and the
    containers it sits in show (empty: the row is out of sight)."""
    _, y, _, height = table._get_row_region(table.cursor_row)
    content = table.content_region
    row = Region(content.x, content.y + y - int(table.scroll_y), content.width, height)
    shown = row.intersection(table.scrollable_content_region)
    node = table.parent
    while isinstance(node, Widget):
        shown = shown.intersection(node.scrollable_content_region if node.is_scrollable else node.region)
        node = node.parent
    return shown.intersection(table.screen.region)


@pytest.mark.asyncio
async def test_the_cursor_row_stays_in_sight_when_it_moves_below_the_panels_fold():
    """Month 20 of a baseline career at 80x24: the Ledger opens at its top (the plots in view,
    the panel not scrolled); down, page down and end move the cursor below the fold and the
    panel scrolls just enough that the highlighted row shows; up, page up and home bring it
    (and the panel) back. Before, the panel stayed put and the cursor row was off-screen."""
    from tests.careers import play_to

    w = new_world()
    play_to(w, 20, "baseline")
    app = build(w, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "8", panel="ledger")
        body = app.screen.query_one("#ledger").query_one(VerticalScroll)
        table = app.screen.query_one("#ledger-table", DataTable)
        assert body.scroll_y == 0 and table.cursor_row == 0 and table.row_count > 40
        for key in ("down", "down", "down", "down", "down", "pagedown", "down", "end", "up", "pageup", "home"):
            await press(pilot, key)
            assert cursor_row_on_screen(table).height == 1, (key, table.cursor_row, body.scroll_y, table.scroll_y)
            if key == "pagedown":
                assert body.scroll_y > 0  # the panel followed the cursor
        assert table.cursor_row == 0
