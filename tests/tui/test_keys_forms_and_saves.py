"""A resumed career keeps saving; the 80×24 screen keeps its facts; forms start on the
highlighted row; enter sends a checklist; quit names what is unsaved; no action after the end;
ctrl+c quits safely; one binding id per action."""

from __future__ import annotations

import pytest

from pibench_tui.tui.app import make_app
from saves import SaveError, SaveStore
from world.api import Api

from .conftest import (
    build,
    close_month,
    drain,
    new_world,
    press,
    run_console_line,
    screen_ready,
    screen_text,
    settle,
    wait_for,
)
from .test_snapshots import busy_world

pytestmark = pytest.mark.asyncio


async def test_load_keeps_autosaving_under_the_careers_name(tmp_path):
    """``play --save c1`` refused for a taken name advises ``--load c1``; following that advice
    resumes c1 and the next month is autosaved as c1@m03, under c1's career."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    Api(w).time.next_month()
    store.save("c1", w, scenario="short-12")
    with pytest.raises(SaveError, match="--load c1"):
        make_app(scenario="short-12", save="c1", saves_dir=str(store.path), test_mode=True)
    app = make_app(load="c1", saves_dir=str(store.path), test_mode=True, run_baseline=False, show_digest=False)
    assert app.career == "c1"
    async with app.run_test(size=(120, 40)) as pilot:
        await close_month(pilot, app)
    infos = {i.name: i for i in SaveStore(store.path, on_warning=None).list()}
    assert "c1@m03" in infos and infos["c1@m03"].career == "c1"


async def test_load_dialog_keeps_autosaving_the_loaded_career(tmp_path):
    """A career picked in the load dialog (l) autosaves under its own career afterwards."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("c2", new_world("short-12"), scenario="short-12")
    app = build(tmp_path=tmp_path, show_digest=False)
    app.store = store
    async with app.run_test(size=(120, 40)) as pilot:
        app._load_named("c2")
        await settle(pilot, app)
        assert app.career == "c2"
        await close_month(pilot, app)
    assert "c2@m02" in {i.name for i in store.list()}


async def test_80x24_header_keeps_month_budget_runway_attention_and_numbered_tabs():
    """At 80×24 in month 15 (recruiting, a deadline and two calls) the first line holds month,
    budget, runway and attention, nothing wraps, the tabs keep their numbers, the footer is
    not overlapped by the palette hint, and the cut-off table columns are named."""
    app = build(busy_world(months=14))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await drain(pilot)
        rows = screen_text(app).splitlines()
        assert rows[0].lstrip().startswith("M15/60 · $")
        assert "run " in rows[0] and "attn " in rows[0]
        assert "Y2M3" in rows[1] and "NAIC" in rows[1]
        tabs = next(r for r in rows if "Lab" in r and "Console" in r)
        for i, name in enumerate(
            ["Lab", "Apps", "Projects", "Papers", "Grants", "Field", "Events", "Ledger", "Console"]
        ):
            assert f"{i + 1} {name}" in tabs
        assert "palette" not in rows[-1]
        assert any("more columns" in r and "Contract" in r for r in rows)


async def test_forms_preselect_the_highlighted_row(tmp_path):
    """o on APP004 offers to APP004; assign on a project offers someone not on it; unassign
    only its members."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001"], 1000)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2", panel="applicants")
        table = app.query_one("#applicants-table")
        ids = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=ids.index("APP004"))
        await wait_for(pilot, lambda: app.highlighted_id() == "APP004", "APP004 highlighted")
        await press(pilot, "o", to="ActionForm")
        assert app.screen.values["applicant"] == "APP004"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "3", panel="projects")
        await press(pilot, "a", to="ActionForm")
        assert app.screen.values["project"] == "PJ001"
        assert app.screen.values["person"] in ("RA002", "RA003")
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "u", to="ActionForm")
        assert app.screen.values["person"] == "RA001"


async def test_ctrl_c_in_a_form_or_a_confirmation_quits_the_safe_way(tmp_path):
    """ctrl+c over a dialog does what it does on the lab screen (before: nothing but a note):
    with unsaved play, the quit question opens on top of the form, whose escape returns to
    the form (still open, the same screen); over the month-end confirmation,
    ``q`` in that question quits. With nothing unsaved, ctrl+c in a form quits at once."""
    app = build(tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        app.game.call("recruit.hire_ra")  # unsaved play
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        form = app.screen
        await press(pilot, "ctrl+c", to="QuitDialog")
        assert app.screen_stack[-2] is form, "the question opens on top of the form"
        assert "This month's play (month 1) is not saved." in str(app.screen.query_one("#quit-note").render())
        await press(pilot, "escape", to="ActionForm")
        assert app.screen is form and app.return_code is None
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "n", to="ConfirmNextMonth")
        await press(pilot, "ctrl+c", to="QuitDialog")
        await press(pilot, "q", until=lambda: app.return_code is not None, what="the app to exit")
    assert app.return_code == 0

    app = build(tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        assert not app.game.unsaved
        await press(pilot, "ctrl+c", until=lambda: app.return_code is not None, what="the app to exit")
    assert app.return_code == 0


async def test_keys_of_a_new_career_checklist_quit_notes_ctrl_c_and_keymap(tmp_path):
    """One new career, key by key (each step's premise set by the steps before it):

    - in the interview form, space ticks and enter sends (as the help says);
    - q with one month unsaved reads 'This month's play (month 1)'; after a month's close,
      ctrl+c asks too (the safe way) and reads '2 months of play (months 1-2)', counted from
      the last save;
    - ctrl+c over a dialog (the help) asks the same question as on the lab screen;
    - ``set_keymap({"next_month": "N", "hire_ra": "H"})`` moves the keys on every panel: H
      hires an RA, N opens the month-end dialog from the Lab panel and from the Papers panel;
    - once nothing is unsaved, ctrl+c quits at once."""
    app = build(tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        # enter in a checklist sends the form
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        await press(pilot, "down", "space", "enter", to="LabScreen")  # APP001 came ticked, APP002 too
        await settle(pilot, app)
        assert type(app.screen).__name__ != "ActionForm", "enter in the checklist sent the form"
        assert any(a["interview"] is not None for a in app.game.call("recruit.applicants")), "the interview was made"

        # the quit dialog names what is unsaved
        app.game.call("recruit.hire_ra")
        await press(pilot, "q", to="QuitDialog")
        assert "This month's play (month 1) is not saved." in str(app.screen.query_one("#quit-note").render())
        await press(pilot, "escape", to="LabScreen")
        await close_month(pilot, app)
        await press(pilot, "ctrl+c", to="QuitDialog")  # ctrl+c quits the safe way: it asks too
        assert type(app.screen).__name__ == "QuitDialog"
        assert "2 months of play (months 1-2) are not saved." in str(app.screen.query_one("#quit-note").render())
        await press(pilot, "escape", to="LabScreen")

        # ctrl+c in a dialog asks too
        await press(pilot, "question_mark", to="HelpScreen")
        await press(pilot, "ctrl+c", to="QuitDialog")
        await press(pilot, "escape", to="HelpScreen")
        await press(pilot, "escape", to="LabScreen")

        # one binding id per action: set_keymap rebinds everywhere
        await press(pilot, "1", panel="people")
        roles = [r["role"] for r in app.game.call("students.list")]
        app.set_keymap({"next_month": "N", "hire_ra": "H"})
        await press(pilot, "H", to="ActionForm")
        await press(pilot, "enter", to="LabScreen")
        assert [r["role"] for r in app.game.call("students.list")] == [*roles, "ra"], "H hired an RA"
        await press(pilot, "N", to="ConfirmNextMonth")
        assert type(app.screen).__name__ == "ConfirmNextMonth", "N from the Lab panel"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "4", panel="papers")
        await press(pilot, "N", to="ConfirmNextMonth")
        assert type(app.screen).__name__ == "ConfirmNextMonth", "N from the Papers panel"
        await press(pilot, "escape", to="LabScreen")

        # saved: ctrl+c quits at once
        app.game.mark_saved()
        await press(pilot, "ctrl+c", until=lambda: app.return_code is not None, what="the app to exit")
    assert app.return_code == 0


async def test_no_actions_offered_after_the_career_ends(tmp_path):
    """Back from the end screen the footer offers no action key and no next month."""
    app = build(busy_world("short-12", 11), show_digest=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "EndScreen"), "the end screen")
        assert type(app.screen).__name__ == "EndScreen"
        await press(pilot, "escape", to="LabScreen")
        footer = screen_text(app).splitlines()[-1]
        assert "Next month" not in footer and "Mentoring" not in footer
        assert "Quit" in footer


async def test_a_month_closed_from_the_console_is_autosaved(tmp_path):
    """``time.next_month()`` typed in the console closes the month like ``n`` does, so a career
    played with ``--save`` autosaves it too (c3@m03), and the game no longer counts it unsaved."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    Api(w).time.next_month()
    store.save("c3", w, scenario="short-12")
    app = make_app(load="c3", saves_dir=str(store.path), test_mode=True, run_baseline=False, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "colon", focus="console-input")
        await press(pilot, *"time.next_month()")
        await run_console_line(pilot, app)
        assert app.game.world.month == 3
        await wait_for(pilot, lambda: not app.game.unsaved, "the console's month to be autosaved")
    infos = {i.name: i for i in SaveStore(store.path, on_warning=None).list()}
    assert "c3@m03" in infos and infos["c3@m03"].career == "c3" and infos["c3@m03"].month == 3
