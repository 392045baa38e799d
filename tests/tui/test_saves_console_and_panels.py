"""In-game saves never overwrite another career, the save-and-quit name is
the career's, console blocks wait for a blank line, panel keys stay on their panel, typing on
the console panel goes to its line, publication labels, the grant call schedule, the empty
Events panel's hint."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import DataTable, Input, Static

from saves import SaveStore
from scenarios import load_scenario
from tests.tui.conftest import build, new_world, press, run_console_line, settle
from world.api import Api
from world.engine import World


@pytest.mark.asyncio
async def test_ctrl_s_refuses_a_name_of_another_career(tmp_path):
    """Ctrl+S keeps the save dialog open with an error for a name that belongs to another career,
    and saves under a free name without touching the other career's save."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("t1b", new_world("tutorial"), scenario="tutorial")
    app = build(new_world("short-12"), tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+s")
        inp = app.screen.query_one("#save-name", Input)
        inp.value = "t1b"
        await press(pilot, "enter")
        assert app.screen.__class__.__name__ == "SaveDialog"  # kept open
        assert "another career" in str(app.screen.query_one("#save-error", Static).render())
        inp.value = "e1"
        await press(pilot, "enter")
        await settle(pilot, app)
        assert app.screen.__class__.__name__ != "SaveDialog"
    infos = {i.name: i for i in SaveStore(tmp_path / "saves", on_warning=None).list()}
    assert infos["t1b"].scenario == "tutorial" and "e1" in infos
    # saving again under its own name is fine
    assert app._save_conflict("e1") is None


def test_save_and_quit_offers_the_career_name_not_the_autosave(tmp_path):
    """After loading an autosave, save-and-quit offers the career's name, not the ``@m`` autosave
    name, and saving under it is not a conflict."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.autosave("t1", new_world("short-12"), scenario="short-12")
    from pibench_tui.tui.app import make_app

    app = make_app(load="t1", saves_dir=str(store.path), test_mode=True, run_baseline=False)
    assert app.game.save_name.startswith("t1@m")
    assert app._default_save_name() == "t1"
    assert app._save_conflict("t1") is None


async def _console_run(pilot, app, *lines: str) -> str:
    """Enter ``lines`` on the console's line (each set as the line's text, then enter: typing
    itself has its own test below) and return the log once any block they ran has finished."""
    inp = app.console_panel.input
    for line in lines:
        inp.value = line
        inp.cursor_position = len(line)
        await run_console_line(pilot, app)
    return "\n".join(str(x.text) for x in app.console_panel.query_one("#console-log").lines)


@pytest.mark.asyncio
async def test_panel_keys_console_typing_and_blocks(tmp_path):
    """In a new career:

    - a panel's action key works only on its panel;
    - after the console is opened and left, typed characters go to the console line rather
      than firing key bindings;
    - the console runs an indented block only after an empty line, then runs it whole,
      without a SyntaxError."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", panel="field")
        await press(pilot, "R")  # R = hire an RA: a Lab panel key (its form takes only enter)
        assert type(app.screen).__name__ == "LabScreen", "R does nothing on the Field panel"
        await press(pilot, "1", panel="people")
        await press(pilot, "R", to="ActionForm")
        assert type(app.screen).__name__ == "ActionForm", "R opens its form on the Lab panel"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "colon", focus="console-input")
        await press(pilot, "escape", until=lambda: app.focused is not app.console_panel.input, what="the console left")
        inp = app.console_panel.input
        assert app.focused is not inp
        await press(pilot, *"[(a['id'], e)")
        assert type(app.screen).__name__ == "LabScreen"
        assert inp.value == "[(a['id'], e)" and app.focused is inp, "typing went to the console line"

        # a block waits for an empty line
        log = await _console_run(pilot, app, "for i in range(2):", "    print('a', i)", "    print('b', i)")
        assert "a 0" not in log  # not run yet
        log = await _console_run(pilot, app, "")
        assert "a 0\nb 0\na 1\nb 1" in log and "SyntaxError" not in log


@pytest.mark.asyncio
async def test_publications_label_collab_only_when_it_is_one(tmp_path):
    """The publications table labels a collaboration paper "collab" and an own paper "—"."""
    from textual.widgets import DataTable

    from world.state import Publication

    w = new_world()
    for pid, collab in (("P001", False), ("P002", True)):
        w.s.publications[pid] = Publication(
            id=pid,
            draft_id="D00" + pid[-1],
            venue="W-SHOP",
            topic="reasoning",
            tier=1,
            q=0.5,
            authors=[],
            collab=collab,
            accepted_month=1,
            published_month=1,
        )
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4")
        table = app.query_one("#pubs-table", DataTable)
        labels = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[-1]) for i in range(table.row_count)}
        assert labels == {"P001": "—", "P002": "collab"}


@pytest.mark.asyncio
async def test_grants_panel_shows_the_call_schedule_and_the_limits(tmp_path):
    """The grants panel shows each agency's call months (TIF open now) and a note with the per-
    agency limits on running awards plus pending proposals."""
    from textual.widgets import DataTable

    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5")
        table = app.query_one("#schedule-table", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["BSF", "2", "3"] == rows[0][:3] or any(r[:3] == ["BSF", "2", "3"] for r in rows)
        assert any(r[:3] == ["FEL", "33", "34"] for r in rows) and any(r[:3] == ["AMP", "38", "39"] for r in rows)
        assert any(r[0] == "TIF" and r[-1].startswith("open now") for r in rows)
        note = str(app.query_one("#grants-note").render())
        assert "running awards plus pending proposals" in note and "BSF 2" in note and "AMP 1" in note


def test_api_docs_name_the_real_project_keys_and_attachment_errors_list_publications():
    """``projects.list``'s docstring names the keys it really returns, and attaching an unknown
    publication to a proposal is refused listing the lab's publications."""
    from world.api import ActionError, Api
    from world.state import Publication

    w = new_world()
    api = Api(w)
    doc = type(api.projects).list.__doc__
    assert "monthly_compute" in doc and "started_month" in doc and " compute," not in doc
    w.s.publications["P001"] = Publication(
        id="P001",
        draft_id="D001",
        venue="W-SHOP",
        topic="reasoning",
        tier=1,
        q=0.5,
        authors=[],
        collab=False,
        accepted_month=1,
        published_month=1,
    )
    call = api.grants.calls()[0]["id"]
    with pytest.raises(ActionError) as exc:
        api.grants.propose(call, "reasoning", 5, attach=["P008"])
    assert "publications: P001" in str(exc.value)


@pytest.mark.asyncio
async def test_the_empty_events_panel_says_what_will_arrive_from_this_scenarios_rules(tmp_path):
    """With nothing pending, the Events panel says which events arrive there and how long each
    waits for an answer, read from this world's rules (talks here wait 3 months, not the
    standard 2: before, the panel showed nothing but empty tables); once an event is pending
    the hint goes and the event's row shows."""
    sc = load_scenario("standard")
    world = World(replace(sc.config, talk_expiry=3), sc.seed)
    app = build(world, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert not app.game.call("events.pending")
        await press(pilot, "7", panel="events")
        hint = app.query_one("#events-hint", Static)
        text = str(hint.render())
        assert hint.display and text.startswith("No events waiting.")
        assert "invited talks (3 months to answer)" in text and "review requests (2 months)" in text
        assert "collaboration offers (1 month)" in text and "student crises (the same month)" in text
    world = new_world()
    api = Api(world)
    while not api.events.pending():
        api.time.next_month()
    app = build(world, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7", panel="events")
        assert not app.query_one("#events-hint", Static).display
        assert app.query_one("#events-table", DataTable).row_count == len(api.events.pending())


def test_a_name_of_another_career_names_all_its_saves_and_how_to_free_it(tmp_path):
    """QA round 2: ctrl+s with 'c1', a career with saves c1, c1@m02 and c1@m03, named only
    'c1@m02' and "pibench saves delete c1@m02"; once deleted it refused again naming c1@m03.
    The refusal names the career's saves, all of them, and the commands freeing the name, a
    name with a space shell-quoted (as headless's refusal, ``saves.store.describe_taken``)."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    api = Api(w)
    store.save("c1", w, scenario="short-12")
    for _ in range(2):
        api.time.next_month()
        store.autosave("c1", w, scenario="short-12")
    store.save("a b", new_world("tutorial"), scenario="tutorial")
    app = build(new_world("short-12"), tmp_path=tmp_path)
    said = app._save_conflict("c1")
    assert said is not None and said.startswith("'c1' already names another career (scenario short-12"), said
    assert "saves: c1, c1@m02, c1@m03)" in said, said
    assert "`pibench saves delete c1` (and the same for c1@m02, c1@m03)" in said, said
    spaced = app._save_conflict("a b")
    assert spaced is not None and "`pibench saves delete 'a b'`" in spaced, spaced
