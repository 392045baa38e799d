"""Panels compose their widgets the first time they are shown: at start only the Lab panel has
its table; each other panel gets its widgets, its rows and the focus when the player first
switches to it, and a panel shown before redraws after the career changes."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tests.tui.conftest import build, press, settle


@pytest.mark.asyncio
async def test_hidden_panels_compose_on_first_show():
    """Before it is shown a panel holds no widget at all (not even its scroll hint); after its
    key it has its tables, the applicants' rows, its scroll hint last, and the focus is on its
    first table (its keys work)."""
    app = build()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        panels = {p.id: p for p in app.panels()}
        assert panels["people"].query(DataTable)
        hidden = [pid for pid in panels if pid != "people"]
        assert all(not panels[pid].composed and not panels[pid].children for pid in hidden)
        await press(pilot, "2")
        applicants = panels["applicants"]
        assert applicants.composed
        assert applicants.children[-1].has_class("scroll-hint") and len(applicants.query(".scroll-hint")) == 1
        table = applicants.query_one("#applicants-table", DataTable)
        assert table.row_count > 0
        assert app.focused is table
        assert not panels["ledger"].composed  # still never shown
        await press(pilot, "i")
        assert type(app.screen).__name__ == "ActionForm"  # the applicants panel's key works


@pytest.mark.asyncio
async def test_a_panel_shown_before_redraws_after_a_month():
    """A panel composed earlier shows the new month's rows when shown again (the Field panel
    gains the month's news)."""
    app = build(show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6")
        news = app.query_one("#news-table", DataTable)
        before = news.row_count
        await press(pilot, "1")
        assert app.start_month()
        await settle(pilot, app)
        await press(pilot, "6")
        assert app.query_one("#news-table", DataTable) is news  # composed once, not again
        assert news.row_count > before


@pytest.mark.asyncio
async def test_focusing_a_laid_out_panel_keeps_it_at_its_top():
    """Focus landing in a panel that is already laid out (shown again after the Lab) does not
    scroll it to its table: the Ledger's plots above its table stay in view. Before, the Ledger
    focused its table with ``focus()``, which scrolled the panel once the table had been laid out
    (a snapshot differed in a loaded CI run, where the layout came first)."""
    from textual.containers import ScrollableContainer

    from tests.tui.test_snapshots import busy_world

    app = build(busy_world(months=14), show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for key, panel in (("6", "field"), ("8", "ledger")):
            await press(pilot, key, panel=panel)
            await press(pilot, "1", panel="people")
            shown = {p.id: p for p in app.panels()}[panel]
            shown.display = True  # laid out (as the tab switch will), then focused
            await settle(pilot, app)
            shown.focus_main()
            await settle(pilot, app)
            scrolled = {w.id or type(w).__name__: w.scroll_y for w in shown.query(ScrollableContainer) if w.scroll_y}
            assert not scrolled, f"the {panel} panel scrolled on focus: {scrolled}"
