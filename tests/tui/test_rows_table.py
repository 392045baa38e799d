"""Panel tables remember their rows (RowsTable): new rows change only the cells and rows that
differ, and a month close updates the panels in place with the new values."""

from __future__ import annotations

import pytest
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from pibench_tui.tui.widgets.rows_table import RowsTable, plain_cell, row_keys
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_text


class _One(App[None]):
    def compose(self) -> ComposeResult:
        yield RowsTable("ID", "Name", "Months", id="t")


def _cells(table: RowsTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


@pytest.mark.asyncio
async def test_a_changed_cell_is_updated_in_place_and_unchanged_rows_are_not_rebuilt():
    """After the first fill, a changed cell is one update_cell (no rebuild, the other rows keep
    their keys and values), a new row is added at the end, a gone row removed, the cursor stays
    on its row; new rows on top, or kept rows in a new order, are put in that order (added and
    moved, not rebuilt), the cursor staying at its row number."""
    app = _One()
    async with app.run_test():
        t = app.query_one(RowsTable)
        rows = [["S001", "Ada", 3], ["S002", "Bo", 5], ["S003", "Cy", 1]]
        t.show_rows(rows)
        assert t.rebuilds == 1 and _cells(t) == [["S001", "Ada", "3"], ["S002", "Bo", "5"], ["S003", "Cy", "1"]]
        t.move_cursor(row=2)
        t.show_rows([["S001", "Ada", 3], ["S002", "Bo", 6], ["S003", "Cy", 1]])
        assert (t.rebuilds, t.cells_updated) == (1, 1), "one cell changed: one update, no rebuild"
        assert _cells(t)[1] == ["S002", "Bo", "6"] and _cells(t)[0] == ["S001", "Ada", "3"]
        assert t.cursor_row == 2
        t.show_rows([["S001", "Ada", 3], ["S002", "Bo", 6], ["S003", "Cy", 1]])
        assert (t.rebuilds, t.cells_updated) == (1, 1), "the same rows: nothing changes"
        t.show_rows([["S001", "Ada", 3], ["S003", "Cy", 1], ["S004", "Di", 0]])
        assert (t.rebuilds, t.rows_removed, t.rows_added) == (1, 1, 1)
        assert _cells(t) == [["S001", "Ada", "3"], ["S003", "Cy", "1"], ["S004", "Di", "0"]]
        t.show_rows([["S003", "Cy", 1], ["S001", "Ada", 3], ["S004", "Di", 0]])
        assert (t.rebuilds, t.reorders) == (1, 1), "a new order moves the rows"
        assert _cells(t) == [["S003", "Cy", "1"], ["S001", "Ada", "3"], ["S004", "Di", "0"]]
        t.move_cursor(row=1)
        t.show_rows([["S006", "Fe", 2], ["S005", "Ed", 4], ["S003", "Cy", 1], ["S001", "Ada", 3]])
        assert (t.rebuilds, t.reorders, t.rows_added, t.rows_removed) == (1, 2, 3, 2), "new rows on top"
        assert _cells(t) == [["S006", "Fe", "2"], ["S005", "Ed", "4"], ["S003", "Cy", "1"], ["S001", "Ada", "3"]]
        assert t.cursor_row == 1 and t.get_row_at(t.cursor_row)[0] == Text("S005")
        t.show_rows([])
        assert t.row_count == 0 and t.shown_rows == []


def test_row_keys_are_unique_and_stable_when_rows_are_added_after():
    """Rows whose first cell repeats (a ledger's month) get numbered keys; adding rows after
    them keeps the earlier rows' keys."""
    assert row_keys([[5, "a"], [5, "b"], [6, "c"]]) == ["5", "5#1", "6"]
    assert row_keys([[5, "a"], [5, "b"], [6, "c"], [6, "d"]])[:3] == ["5", "5#1", "6"]


@pytest.mark.asyncio
async def test_a_month_close_updates_the_header_and_the_lab_table_in_place():
    """On a lab with people, closing a month shows the new month and budget in the header and
    the new values in the Lab table (each person's months in the lab, from the API after the
    close), by updating cells of the rows kept: the table is not rebuilt; refreshing again with
    nothing changed does not redraw the header."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1", panel="people")
        table = app.query_one("#people-table", RowsTable)
        assert table.row_count > 0
        rebuilds, updated = table.rebuilds, table.cells_updated
        month = app.game.world.month
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")
        dash = app.game.dashboard()
        header = screen_text(app).splitlines()[0]
        assert dash["month"] == month + 1 and f"Month {month + 1}/" in header
        assert f"${dash['budget']:,.0f}" in header
        shown = {str(row[0]): row for row in (table.get_row_at(i) for i in range(table.row_count))}
        for s in dash["students"]:
            assert str(shown[s["id"]][7]) == str(s["months_in"]), "the Lab table shows the new months in lab"
        assert table.rebuilds == rebuilds and table.cells_updated > updated, "updated in place, not rebuilt"
        drawn = app.header.renders
        app.refresh_view()
        await drain(pilot)
        assert app.header.renders == drawn, "nothing changed: the header (data-bound view) is not redrawn"


@pytest.mark.asyncio
async def test_a_table_whose_cells_changed_while_hidden_shows_the_new_values():
    """A table whose cells changed while it was hidden (a month closed on another panel) shows
    the new values when its panel is shown again: every active project's progress after the
    close is on the screen."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "1", panel="people")
        before = {p["id"]: p["progress_pct"] for p in app.game.call("projects.list") if p["status"] == "active"}
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "3", panel="projects")
        after = {p["id"]: p["progress_pct"] for p in app.game.call("projects.list") if p["status"] == "active"}
        assert after and after != before, "the close moved the projects on"
        lines = {line.split()[0]: line for line in screen_text(app).splitlines() if line.split()}
        for pid, pct in after.items():
            assert f"{pct:g}%" in lines[pid], f"{pid} shows its progress after the close"


@pytest.mark.asyncio
async def test_a_cell_is_drawn_exactly_as_datatable_draws_it():
    """RowsTable draws plain one-line cells itself instead of through Rich: every cell (header
    and rows; plain, empty, wide, dash and CJK text, styled Text, tabs, line breaks, a number),
    with and without the cursor, focused or not, at its column's width and at widths too narrow
    for it, gives the very segments DataTable's own renderer gives."""
    from textual.widgets import DataTable

    class _Mixed(App[None]):
        def compose(self) -> ComposeResult:
            yield RowsTable("ID", "Name", "A long header", "x", id="t")

    app = _Mixed()
    async with app.run_test(size=(80, 20)) as pilot:
        t = app.query_one(RowsTable)
        t.show_rows(
            [
                ["S001", "Ada—é", 3, None],
                ["S002", "名字", "", "a\tb"],
                ["S003", Text("g", style="green"), 1.5, "x\ny"],
            ]
        )
        await drain(pilot)
        compared = 0
        for focused in (False, True):
            if focused:
                t.focus()
                await drain(pilot)
            for row in range(-1, t.row_count):
                for col, column in enumerate(t.ordered_columns):
                    for cursor in (False, True):
                        for width in (column.get_render_width(t), 3, 2, 1):
                            t._cell_render_cache.clear()
                            mine = t._render_cell(row, col, t.rich_style, width, cursor, False)
                            t._cell_render_cache.clear()
                            theirs = DataTable._render_cell(t, row, col, t.rich_style, width, cursor, False)
                            assert mine == theirs, (focused, row, col, cursor, width)
                            compared += 1
        assert compared == 2 * 4 * 4 * 2 * 4
    assert plain_cell(Text("S001"), 6, 1, Style(), Style()) is not None, "plain text takes the direct path"


def _lines(table: RowsTable) -> list:
    """The table's lines as drawn now (through its caches)."""
    table._styles_cache.clear()
    return [table.render_line(y) for y in range(table.size.height)]


def _fresh_lines(table: RowsTable) -> list:
    """The table's lines drawn afresh (every DataTable cache emptied first)."""
    table._clear_caches()
    return _lines(table)


@pytest.mark.asyncio
async def test_a_table_shown_again_unchanged_keeps_its_lines_and_a_new_theme_draws_afresh():
    """Switching to the Projects panel and back to the Lab, then to Projects again, draws no
    project row again (the table lost and regained the focus and was sent a Resize at its own
    size: its drawn lines still hold), and what it shows is what it would draw afresh. A new
    theme restyles its parts: the rows are drawn again, in the new theme's colours, exactly as
    afresh."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(2):  # the first show may settle the table's size once more after it drew
            await press(pilot, "3", panel="projects")
            await press(pilot, "1", panel="people")
        table = app.query_one("#projects-table", RowsTable)
        assert table.row_count, "a lab with projects"
        drawn = []
        original = table._render_line_in_row

        def counted(*args, **kwargs):
            drawn.append(args[0])
            return original(*args, **kwargs)

        table._render_line_in_row = counted  # type: ignore[method-assign]
        await press(pilot, "3", panel="projects")
        await drain(pilot)
        assert table.has_focus
        assert drawn == [], "no row of the unchanged table drawn again"
        shown = _lines(table)
        assert shown == _fresh_lines(table), "the kept lines are the lines drawn afresh"
        await drain(pilot)
        before = _lines(table)
        drawn.clear()
        app.theme = "textual-light"
        await drain(pilot)
        after = _lines(table)
        assert drawn, "a new theme draws the rows again"
        assert after != before and after == _fresh_lines(table), "in the new theme's colours"


@pytest.mark.asyncio
async def test_after_a_month_close_the_ledger_and_the_news_show_the_new_month_on_top():
    """The Ledger and Field panels, drawn before a month close and shown after it, list the new
    month's ledger entries and news on top of the older ones, exactly the rows the API gives
    (newest first, the ledger cut to its latest entries): the new rows are added and the rows
    put in order, the tables are not filled again; the Field panel's preprint table (one row
    a topic) updates its cells in place."""
    from pibench_tui.tui.widgets.ledger_panel import LEDGER_ROWS

    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        for key, panel in (("8", "ledger"), ("6", "field")):
            await press(pilot, key, panel=panel)
        await press(pilot, "1", panel="people")
        ledger = app.query_one("#ledger-table", RowsTable)
        news = app.query_one("#news-table", RowsTable)
        preprints = app.query_one("#preprint-table", RowsTable)
        before = {t.id: (t.rebuilds, t.reorders, t.rows_added) for t in (ledger, news)}
        preprint_counts = (preprints.rebuilds, preprints.cells_updated, preprints.row_count)
        month = app.game.world.month
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "8", panel="ledger")
        entries = list(reversed(app.game.call("lab.ledger", LEDGER_ROWS)))
        assert entries[0]["month"] == month, "the closed month's entries are the newest"
        assert [str(c[0]) for c in _cells(ledger)] == [str(e["month"]) for e in entries]
        assert [c[3] for c in _cells(ledger)] == [str(e["note"]) for e in entries]
        await press(pilot, "6", panel="field")
        items = list(reversed(app.game.call("field.news", 60)))
        assert [(c[0], c[1]) for c in _cells(news)] == [(str(n["month"]), n["kind"]) for n in items]
        assert items[0]["month"] == month + 1, "the news of the month the close opened are the newest"
        for t in (ledger, news):
            rebuilds, reorders, added = before[t.id]
            assert t.rebuilds == rebuilds and t.reorders > reorders and t.rows_added > added, t.id
        rebuilds, updated, topics = preprint_counts
        assert preprints.rebuilds == rebuilds and preprints.cells_updated > updated, "updated in place"
        assert preprints.row_count == topics == len({r["topic"] for r in app.game.call("field.preprints", 1)})
        assert f"–{month + 1} (█ = " in screen_text(app), "the preprint table's title names the new month"


def _screen_lines(app) -> list:
    """Every line of the screen as the compositor draws it now (segments and styles)."""
    return app.screen._compositor.render_strips()


@pytest.mark.asyncio
async def test_switching_between_panels_restyles_no_table_and_each_shows_in_the_styles_of_its_focus():
    """Once the Lab and Projects panels have each been shown, switching between them restyles
    neither table (the table left behind loses the focus while its panel is hidden; the one
    shown gets the focus back in the styles it kept), and the screen is the one an app that
    showed Projects once draws. A table that loses the focus where it shows (tab to the next
    table of the Papers panel) is restyled at once, not when it is next drawn."""
    w = new_world()
    play_to(w, 14)
    once = build(w)
    async with once.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await drain(pilot)
        expected = _screen_lines(once)
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "1", panel="people")
        restyled: list[tuple[object, bool]] = []  # (node, while a table was being drawn)
        drawing: list[RowsTable] = []
        apply, render_lines = app.stylesheet.apply, RowsTable.render_lines

        def recorded(node, **kwargs):
            restyled.append((node, bool(drawing)))
            return apply(node, **kwargs)

        def drawn(table, crop):
            drawing.append(table)
            try:
                return render_lines(table, crop)
            finally:
                drawing.pop()

        app.stylesheet.apply = recorded  # type: ignore[method-assign]
        people = app.query_one("#people-table", RowsTable)
        projects = app.query_one("#projects-table", RowsTable)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(RowsTable, "render_lines", drawn)
            for _ in range(2):
                await press(pilot, "3", panel="projects")
                await press(pilot, "1", panel="people")
            await press(pilot, "3", panel="projects")
            await drain(pilot)
            assert projects.has_focus and not people.has_focus
            assert not [node for node, _ in restyled if node in (people, projects)], "no table restyled"
            assert _screen_lines(app) == expected, "the screen an app that showed Projects once draws"
            await press(pilot, "4", panel="papers")
            drafts = app.query_one("#drafts-table", RowsTable)
            assert drafts.has_focus
            restyled.clear()
            await press(pilot, "tab", focus="subs-table")
            await drain(pilot)
        assert (drafts, False) in restyled, "a shown table that loses the focus is restyled at once, not when drawn"


@pytest.mark.asyncio
async def test_a_table_that_lost_the_focus_while_hidden_shows_unfocused_when_shown_again():
    """The Papers panel is left while its second table has the focus: that table loses the focus
    while its panel is hidden, and is not restyled then. Shown again, the panel focuses its
    first table; the second one is drawn as unfocused, the screen exactly as in an app where it
    never had the focus."""

    async def papers_again(tab_first: bool) -> list:
        w = new_world()
        play_to(w, 14)
        app = build(w)
        async with app.run_test(size=(120, 40)) as pilot:
            await press(pilot, "4", panel="papers")
            if tab_first:
                await press(pilot, "tab", focus="subs-table")
            await press(pilot, "1", panel="people")
            await press(pilot, "4", panel="papers")
            await drain(pilot)
            subs = app.query_one("#subs-table", RowsTable)
            assert app.focused is app.query_one("#drafts-table", RowsTable) and not subs.has_focus
            return _screen_lines(app)

    assert await papers_again(tab_first=True) == await papers_again(tab_first=False)


@pytest.mark.asyncio
async def test_a_switch_to_an_unchanged_panel_whose_table_scrolls_paints_the_screen_once():
    """Switching again to the Ledger panel, whose table scrolls (more rows than it shows), paints
    the screen once: a layout that finds the table as the last one did (same size, same rows and
    columns) does not repaint its scrollbars (Textual repainted those of every table that
    scrolls at each layout, a second paint after the switch)."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(2):
            await press(pilot, "8", panel="ledger")
            await press(pilot, "1", panel="people")
        ledger = app.query_one("#ledger-table", RowsTable)
        screen = app.screen
        paints: list[int] = []
        paint = screen._compositor_refresh

        def counted() -> None:
            paints.append(1)
            paint()

        screen._compositor_refresh = counted  # type: ignore[method-assign]
        await press(pilot, "8", panel="ledger")
        await drain(pilot)
        assert ledger.show_vertical_scrollbar, "the ledger table scrolls"
        assert len(paints) == 1


class _Fixed(App[None]):
    CSS = "RowsTable { height: 6; }"

    def compose(self) -> ComposeResult:
        yield RowsTable("ID", "Name", "Months", id="t")


@pytest.mark.asyncio
async def test_a_table_given_more_rows_than_it_shows_gets_its_scrollbar():
    """A table of a fixed height given more rows than it shows gets its vertical scrollbar, as
    long as the rows (its virtual size) and no longer when they fit again: its size is the same
    at each layout, its rows are not."""
    app = _Fixed()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(RowsTable)
        table.show_rows([["S1", "Ann", 3], ["S2", "Bob", 4]])
        await pilot.pause()
        await pilot.pause()
        assert not table.show_vertical_scrollbar and table.size.height == 6
        table.show_rows([[f"S{i}", "x", i] for i in range(20)])
        await pilot.pause()
        await pilot.pause()
        assert table.size.height == 6 and table.show_vertical_scrollbar
        assert table.vertical_scrollbar.window_virtual_size == table.virtual_size.height == 21
        table.show_rows([["S1", "Ann", 3]])
        await pilot.pause()
        await pilot.pause()
        assert not table.show_vertical_scrollbar
