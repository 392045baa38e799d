"""What changes is drawn once: the shown panel is updated under the month's digest (closing
the digest only repaints the lab), and a dialog hides the footer's keys instead of removing
them (closing it shows the same key widgets again)."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from pibench_tui.tui.widgets.footer import KeysFooter
from pibench_tui.tui.widgets.rows_table import RowsTable
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_ready, wait_for


def _keys(app) -> list[FooterKey]:
    footer = app.query_one(KeysFooter)
    return [k for k in footer.query_children(FooterKey) if not k.has_class("-command-palette")]


@pytest.mark.asyncio
async def test_the_shown_panel_is_updated_under_the_digest_and_closing_it_redraws_nothing():
    """While month 15's digest shows, the Lab table under it already holds the new month's
    values (each student's months in the lab, from the API after the close) and the header the
    new month; closing the digest then redraws neither the header nor a cell of the table, and
    the lab shows those values."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1", panel="people")
        table = app.query_one("#people-table", RowsTable)
        month = app.game.world.month
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        dash = app.game.dashboard()
        assert dash["month"] == month + 1
        shown = {str(row[0]): row for row in (table.get_row_at(i) for i in range(table.row_count))}
        assert dash["students"], "a lab with students"
        for s in dash["students"]:
            assert str(shown[s["id"]][7]) == str(s["months_in"]), "the Lab table under the digest is up to date"
        assert app.header.view is not None and app.header.view.dash["month"] == month + 1
        drawn, cells, rebuilds = app.header.renders, table.cells_updated, table.rebuilds
        await press(pilot, "enter", to="Screen")
        await drain(pilot)
        assert (app.header.renders, table.cells_updated, table.rebuilds) == (drawn, cells, rebuilds)
        assert not app.query_one("#people").stale


@pytest.mark.asyncio
async def test_a_dialog_hides_the_footer_keys_and_closing_it_shows_the_same_keys():
    """The month-end confirmation turns every lab key off: the footer hides its key widgets
    (only the palette key stays), and escape shows the very same widgets again, with no update
    of the footer's keys (nothing removed or mounted)."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.query_one(KeysFooter)
        before, updates = _keys(app), footer.updates
        assert before and all(k.display for k in before)
        await press(pilot, "n", to="ConfirmNextMonth")
        await drain(pilot)
        assert footer.has_class("-covered")
        assert _keys(app) == before and not any(k.display for k in before), "hidden, not removed"
        palette = footer.query_children(".-command-palette")
        assert all(k.display for k in palette)
        await press(pilot, "escape", to="Screen")
        await drain(pilot)
        assert not footer.has_class("-covered")
        assert _keys(app) == before and all(k.display for k in before)
        assert footer.updates == updates
