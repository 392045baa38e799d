"""QA (seed 2718): a warning's key opened its form on the panel's highlighted row, not on what
the warning names. The header said "PJ001 no author … [a]" and ``a`` opened the assign form on
PJ002 with an RA (who can never author) as the person; ``!`` said "press e · E029 student
crisis: this is the last month to answer" and ``e`` opened the answer form on E028, so sending
it let the crisis lapse. A warning's key now starts its form on the warning's target
(:func:`pibench_tui.tui.alerts.form_start`) unless the player put the cursor on a row."""

from __future__ import annotations

import pytest

from pibench_tui.tui.alerts import form_start
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.rows_table import RowsTable
from tests.careers import play_to

from .conftest import build, new_world, press

pytestmark = pytest.mark.asyncio


def _world(month: int, ra: bool = False):
    """Seed 2718's baseline career at the opening of ``month`` (month 41: PJ001 and PJ003 with
    no member, S005 and S006 idle; month 43: also E029, a student crisis due this month, and
    E028, a review request due in 45, with everyone on a project), with an RA hired (idle) when
    ``ra``."""
    w = new_world(seed=2718)
    play_to(w, month, "baseline")
    if ra:
        Game(w).call("recruit.hire_ra")
    return w


def _table(app) -> RowsTable:
    table = app.focused
    assert isinstance(table, RowsTable)
    return table


def _row(table: RowsTable, row_id: str) -> int:
    return next(i for i in range(table.row_count) if str(table.get_row_at(i)[0]) == row_id)


async def _choose(pilot, table: RowsTable, row_id: str) -> None:
    """Move the cursor to ``row_id`` with the arrow keys, as a player does (their choice)."""
    await press(pilot, "down", "up", until=lambda: table.player_row() is not None)
    while table.player_row() != row_id:
        await press(pilot, "down" if table.cursor_row < _row(table, row_id) else "up")


async def test_the_header_warnings_key_assigns_to_the_orphaned_project_and_an_author(tmp_path):
    """Month 43, an idle RA and no idle researcher: the header warns "PJ001 no member [a]". The
    Projects panel's cursor placed on PJ004 by the table (not by the player): ``a`` opens the
    assign form on PJ001, the warning's project, and offers a researcher first (an RA never
    authors); with the cursor moved to PJ004 by the player, ``a`` acts on PJ004."""
    w = _world(43, ra=True)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        table = _table(app)
        table.move_cursor(row=_row(table, "PJ004"))
        await press(pilot, "a", to="ActionForm")
        values = app.screen.values
        assert values["project"] == "PJ001", values
        roles = {r["id"]: r["role"] for r in app.game.call("students.list")}
        assert roles[values["person"]] in ("phd", "postdoc"), values
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "up", "down", until=lambda: table.cursor_row == _row(table, "PJ004"))
        await press(pilot, "a", to="ActionForm")
        assert app.screen.values["project"] == "PJ004"


async def test_the_second_warnings_key_acts_on_the_second_orphan(tmp_path):
    """Month 41, two orphaned projects: ``!`` twice shows PJ003's warning (its row highlighted in
    the Projects panel) and ``a`` then assigns to PJ003, not to the first row."""
    w = _world(41)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "exclamation_mark", panel="projects")
        toasts = app.toasts  # type: ignore[attr-defined]
        await press(pilot, "exclamation_mark", until=lambda: len(toasts) == 2, what="the second warning")
        assert "PJ003" in toasts[1][0] and str(_table(app).get_row_at(_table(app).cursor_row)[0]) == "PJ003"
        await press(pilot, "a", to="ActionForm")
        assert app.screen.values["project"] == "PJ003"
        assert app.screen.values["person"] in ("S005", "S006")


async def test_the_event_warnings_key_answers_the_crisis_due_now(tmp_path):
    """Month 43: E028 (due 45) is the Events panel's first row, E029 (a crisis due now) is
    warned about: ``e`` opens the answer form on E029, from the panel and after ``!``; the
    player's own row (E028, moved to with the keys) still wins."""
    w = _world(43)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7", panel="events")
        table = _table(app)
        assert str(table.get_row_at(table.cursor_row)[0]) == "E028"
        await press(pilot, "e", to="ActionForm")
        assert app.screen.values["event"] == "E029"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "exclamation_mark", panel="events")
        await press(pilot, "e", to="ActionForm")
        assert app.screen.values["event"] == "E029"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "down", "up", until=lambda: table.player_row() == "E028")
        await press(pilot, "e", to="ActionForm")
        assert app.screen.values["event"] == "E028"


async def test_form_start_prefers_the_players_row_then_the_shown_warning_then_the_header():
    """The one rule, on its own."""
    from pibench_tui.tui.alerts import Alert

    a1 = Alert("orphan", "PJ001", "…", "projects", "a", target="PJ001")
    a3 = Alert("orphan", "PJ003", "…", "projects", "a", target="PJ003")
    ev = Alert("event", "E029", "…", "events", "e", target="E029")
    assert form_start("a", "PJ004", a3, [a1, a3]) == "PJ004"
    assert form_start("a", None, a3, [a1, a3]) == "PJ003"
    assert form_start("a", None, ev, [ev, a1, a3]) == "PJ001"
    assert form_start("s", None, None, [ev, a1]) is None
    stop = Alert("orphan", "PJ001", "…", "projects", "a", target="PJ001", also=("k",))
    assert form_start("k", None, None, [ev, stop]) == "PJ001" and form_start("k", None, stop, []) == "PJ001"
    assert form_start("k", None, None, [a1]) is None  # a warning whose text names no k


async def test_the_answer_forms_own_default_is_the_event_due_first():
    """With no warning and no row chosen, the answer form starts on the event whose last month
    to answer comes first (a crisis first on a tie), not on the Events panel's first row."""
    from pibench_tui.tui.actions import soonest_event

    class Fake:
        def __init__(self, pending):
            self.pending = pending

        def call(self, name):
            assert name == "events.pending"
            return self.pending

    rows = [
        {"id": "E028", "kind": "review_request", "respond_by_month": 45},
        {"id": "E030", "kind": "invited_talk", "respond_by_month": 44},
        {"id": "E031", "kind": "student_crisis", "respond_by_month": 44},
    ]
    assert soonest_event(Fake(rows)) == "E031"
    assert soonest_event(Fake(rows[:2])) == "E030"
    assert soonest_event(Fake([])) is None


async def test_the_orphans_stop_key_named_in_its_text_acts_on_it_too(tmp_path):
    """QA round 2 (seed 105): the warning "PJ006 … assign someone (a) or stop it (k)" started
    ``a``'s form on PJ006 but ``k``'s on the row the table had highlighted, so following the
    warning's advice stopped another project. Month 43 of seed 2718, the cursor placed on PJ004
    by the table: ``k`` opens the kill form on PJ001, the first orphan's ``also`` key."""
    w = _world(43)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        table = _table(app)
        table.move_cursor(row=_row(table, "PJ004"))
        await press(pilot, "k", to="ActionForm")
        assert app.screen.values["project"] == "PJ001", app.screen.values


async def test_a_warning_shown_with_bang_beats_the_row_the_player_chose_before(tmp_path):
    """QA round 2: the player put the Projects cursor on PJ004, then ``!`` ``!`` showed "press a
    · PJ001 … has no member left" (the first ``!`` showed E029 in the Events panel), and ``a``
    opened on PJ004. Showing a warning is the player's latest choice: its row is pointed at in
    the panel it opens (not in the table that still had the focus), and ``a`` acts on PJ001;
    moving the cursor after that is again the player's choice (PJ004 again)."""
    w = _world(43)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        table = _table(app)
        await _choose(pilot, table, "PJ004")
        await press(pilot, "exclamation_mark", panel="events")
        toasts = app.toasts  # type: ignore[attr-defined]
        await press(pilot, "exclamation_mark", until=lambda: len(toasts) == 2, what="the second warning")
        await press(pilot, "a", to="ActionForm")
        assert app.screen.values["project"] == "PJ001", app.screen.values
        await press(pilot, "escape", to="LabScreen")
        await _choose(pilot, table, "PJ004")
        await press(pilot, "k", to="ActionForm")
        assert app.screen.values["project"] == "PJ004"
