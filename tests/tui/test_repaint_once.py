"""A month close does each thing once and waits for nothing it does not show: the shown panel
is updated under the month's digest (closing the digest only repaints the lab), and the
autosave runs in its own worker group, one at a time, while the digest shows."""

from __future__ import annotations

import pytest

from pibench_tui.tui.widgets.rows_table import RowsTable
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_ready, screen_text, wait_for


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
        await press(pilot, "enter", to="LabScreen")
        await drain(pilot)
        assert (app.header.renders, table.cells_updated, table.rebuilds) == (drawn, cells, rebuilds)
        assert not app.query_one("#people").stale


@pytest.mark.asyncio
async def test_the_confirmation_and_the_digest_are_kept_and_show_each_month_afresh():
    """The month-end confirmation and the digest are one screen each, kept by the app (closing
    them removes nothing); asked again, the confirmation names the new month and offers enter
    again (not the last close's "closing the month…"), and the digest shows the new month's
    report from its top, with no failed-autosave note left from the month before."""
    from pibench_tui.tui.screens.confirm import ConfirmNextMonth
    from pibench_tui.tui.screens.digest import DigestScreen

    app = build(new_world())
    async with app.run_test(size=(80, 24)) as pilot:
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the first digest")
        digest = app.screen
        assert isinstance(digest, DigestScreen)
        digest.add_note("autosave failed: a test note")
        digest.query_one("#digest-body").scroll_end(animate=False)
        await drain(pilot)
        await press(pilot, "enter", to="LabScreen")
        month = app.game.world.month
        await press(pilot, "n", to="ConfirmNextMonth")
        confirm = app.screen
        assert isinstance(confirm, ConfirmNextMonth)
        shown = screen_text(app)
        assert f"End month {month} " in shown and "enter/y advance" in shown
        await press(pilot, "escape", to="LabScreen")
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the second digest")
        assert app.screen is digest, "the same digest screen, shown again"
        assert digest.query_one("#digest-body").scroll_y == 0
        shown = screen_text(app)
        assert f"Month {month} closed" in shown and "a test note" not in shown
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "n", to="ConfirmNextMonth")
        assert app.screen is confirm, "the same confirmation, asked again"
        shown = screen_text(app)
        assert f"End month {month + 1} " in shown and "closing the month" not in shown


@pytest.mark.asyncio
async def test_the_autosave_runs_in_its_own_worker_group_after_the_digest_shows(tmp_path):
    """With --save, a month's close shows its digest while its autosave is still being written
    (held back here until the digest shows): the autosave is a worker of the ``autosave`` group,
    not of the month's ``sim`` group, and its save c@m03 is in the store once it ends."""
    import threading

    from saves import SaveStore

    app = build(new_world("short-12"), tmp_path=tmp_path, save="c")
    game = app.game
    release, entered = threading.Event(), threading.Event()
    write = game.autosave

    def held_autosave(career, store):
        entered.set()
        release.wait(30)  # a bound for a hung test, not a timing
        return write(career, store)

    game.autosave = held_autosave  # type: ignore[method-assign]

    def saving() -> list:
        return [w for w in app.workers if w.group == "autosave" and not w.is_finished]

    async with app.run_test(size=(120, 40)) as pilot:
        release.set()
        await close_month(pilot, app)  # month 2 (the store's first autosave is whole)
        await wait_for(pilot, lambda: not app.game.unsaved, "month 2's autosave")
        await press(pilot, "enter", to="LabScreen")
        release.clear()
        entered.clear()
        await press(pilot, "n", to="ConfirmNextMonth")
        await press(pilot, "enter", to="DigestScreen")  # (close_month would wait for every worker)
        await wait_for(pilot, lambda: entered.is_set() and bool(saving()), "the autosave to start")
        assert not [w for w in app.workers if w.group == "sim" and not w.is_finished]
        assert screen_ready(app, "DigestScreen") and app.game.unsaved
        assert "c@m03" not in {i.name for i in SaveStore(tmp_path / "saves", on_warning=None).list()}
        release.set()
        await wait_for(pilot, lambda: not app.game.unsaved and not saving(), "the autosave to be written")
    assert "c@m03" in {i.name for i in SaveStore(tmp_path / "saves", on_warning=None).list()}


@pytest.mark.asyncio
async def test_two_autosaves_never_write_at_once(tmp_path):
    """A second autosave started while the first is writing (a newer one cancels the first's
    worker, exclusive, but a thread already writing goes on) waits for it: the writes follow
    each other, never overlap; quitting then finds the career saved."""
    import threading

    app = build(new_world("short-12"), tmp_path=tmp_path, save="c")
    game = app.game
    release = threading.Event()
    log: list[str] = []
    write = game.autosave

    def logged_autosave(career, store):
        n = sum(1 for x in log if x.startswith("in"))
        log.append(f"in{n}")
        if n == 0:
            release.wait(30)  # a bound for a hung test, not a timing
        out = write(career, store)
        log.append(f"out{n}")
        return out

    game.autosave = logged_autosave  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", to="ConfirmNextMonth")
        await press(pilot, "enter", to="DigestScreen")
        await wait_for(pilot, lambda: log == ["in0"], "the first autosave to start")
        app._autosave_due = True
        second = app._autosave_worker(game)
        await drain(pilot)
        assert log == ["in0"], "the second autosave waits while the first writes"
        release.set()
        await second.wait()
        assert log == ["in0", "out0", "in1", "out1"]
        assert not app.game.unsaved


@pytest.mark.asyncio
async def test_a_tab_switch_moves_the_focus_without_repainting_the_whole_screen():
    """The main screen is a LabScreen: moving the focus to another panel's table marks only the
    widgets it changes for a repaint, not the whole screen (Textual's Screen repaints everything
    on a focus change, a second full paint per tab switch); the table shown has the focus."""
    from pibench_tui.tui.screens.lab import LabScreen

    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "1", panel="people")
        await drain(pilot)
        screen = app.screen
        assert isinstance(screen, LabScreen) and app.screen_stack[0] is screen
        app.query_one("#people").display = False
        app.query_one("#projects").display = True
        projects = app.query_one("#projects-table", RowsTable)
        screen.set_focus(projects)
        assert screen.focused is projects
        assert not screen._repaint_required, "a focus change does not repaint the whole screen"
        await drain(pilot)
        assert app.focused is projects and projects.has_focus
