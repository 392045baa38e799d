"""Issue 27 §4 and §6: forms name their target and ask before irreversible actions, defaults
that do not surprise, a refused form lets go of the focus, the Lab's Mood at 80x24, and the
mood warning that waits for two low moods in a row."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, Select

from world.api import Api

from .conftest import build, new_world, press, screen_ready, wait_for
from .test_month_reports import toasts_drawn

pytestmark = pytest.mark.asyncio


async def test_offer_dismiss_and_kill_ask_first_naming_the_target(tmp_path):
    """o, X and k open their form, then (on send) a yes/no question naming the target in full;
    n leaves the world untouched, y makes the call."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "X", to="ActionForm")
        await press(pilot, "ctrl+o", to="ConfirmAction")
        question = str(app.screen.query_one("#confirm-question").render())
        assert "Dismiss RA001" in question and "cannot be undone" in question
        await press(pilot, "n", to="ActionForm")
        assert not any(s.get("leaving_at_month_end") for s in api.lab.dashboard()["staff"])
        await press(pilot, "ctrl+o", to="ConfirmAction")
        await press(pilot, "y", to="LabScreen")
        assert api.lab.dashboard()["staff"][0]["leaving_at_month_end"]
        app_id = api.recruit.applicants()[0]["id"]
        await press(pilot, "2", panel="applicants")
        await press(pilot, "o", to="ActionForm")
        await press(pilot, "ctrl+o", to="ConfirmAction")
        assert f"PhD offer to {app_id}" in str(app.screen.query_one("#confirm-question").render())
        await press(pilot, "escape", to="ActionForm")
        await press(pilot, "escape", to="LabScreen")
        assert all(a["status"] == "pending" for a in api.recruit.applicants())


async def test_start_form_skips_a_leaving_ra_and_assign_defaults_to_an_idle_person(tmp_path):
    """With RA001 leaving and RA002, RA003 idle, the start form ticks RA002 and RA003 (not the
    leaving RA); with RA002 on a project, the assign form starts on an idle person."""
    w = new_world()
    api = Api(w)
    for _ in range(3):
        api.recruit.hire_ra()
    api.recruit.dismiss("RA001")
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        assert app.screen.values["members"] == ["RA002", "RA003"]
        await press(pilot, "escape", to="LabScreen")
        api.projects.start("reasoning", 1, ["RA002"], 100)
        app.refresh_view()
        await press(pilot, "a", to="ActionForm")
        assert app.screen.values["person"] == "RA003"


async def test_one_option_prompt_is_singular(tmp_path):
    """A choice of one says "choose (1 option)", not "1 options"."""
    w = new_world()
    Api(w).recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "X", to="ActionForm")
        assert app.screen.query_one("#field-0", Select).prompt == "choose (1 option)"


async def test_a_refused_form_lets_go_of_the_focus(tmp_path):
    """A proposal the API refuses (200 h in month 1) keeps the form open with the reason, and
    no field keeps the focus: a hotkey typed next does not land in the hours."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "tab", focus="field-2")
        hours = app.screen.query_one("#field-2", Input)
        problems = app.screen.query_one("#form-problems")
        await press(pilot, "end", "backspace", "backspace", "2", "0", "0", "enter", until=lambda: problems.display)
        assert "refused" in str(problems.render())
        assert type(app.screen).__name__ == "ActionForm" and not isinstance(app.focused, Input)
        await press(pilot, "n")
        assert hours.value == "200"


async def test_lab_panel_shows_mood_at_80x24(tmp_path):
    """At 80 columns the Lab table's Report and Mood columns are not cut off."""
    w = new_world()
    api = Api(w)
    for _ in range(3):
        api.recruit.hire_ra()
    api.recruit.hire_manager()
    for topic in ("reasoning", "ai4science", "theory"):
        api.projects.start(topic, 1, ["RA001", "RA002", "RA003"], 100)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        table = app.query_one("#people-table", DataTable)
        room = table.scrollable_content_region.width
        used = 0
        for col in table.columns.values():
            used += col.get_render_width(table)
            if str(col.label) == "Mood":
                break
        assert 0 < used <= room


async def test_compute_form_says_what_compute_buys_and_previews_the_bill(tmp_path):
    """c on the Projects panel says what compute buys and shows the new monthly bill next to
    the current one, at this month's price, as the units change."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001"], 100)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "c", to="ActionForm")
        assert "speeds a staffed project" in str(app.screen.query_one("#form-desc").render())
        summary = app.screen.query_one("#form-summary")
        assert "new bill 1,500 units" in str(summary.render()) and "(now 100 units" in str(summary.render())


async def test_mentoring_form_starts_in_the_highlighted_persons_hours(tmp_path):
    """QA: m on the Lab panel with the third person's row highlighted started in the first
    field of the form (another person's hours, in another order than the table's), so a number
    typed at once changed the wrong person's mentoring. It starts in that person's field."""
    w = new_world()
    api = Api(w)
    for _ in range(3):
        api.recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        table = app.query_one("#people-table", DataTable)
        await press(pilot, "down", "down", until=lambda: table.cursor_row == 2)
        target = app.highlighted_id()
        assert target is not None and target != app.game.call("students.list")[0]["id"]
        await press(pilot, "m", to="ActionForm")
        focused = app.focused
        assert isinstance(focused, Input)
        assert app.screen._field_of(focused.id).name == f"h:{target}"


async def test_compute_bill_preview_never_shows_a_bill_for_units_the_api_refuses(tmp_path):
    """QA: typing -5 in the compute form previewed 'new bill -5 units × $1 × price 1 =
    $-5/month' (and the start form a bill for units over the cap). Units outside 0..the cap
    preview no bill but say what the field takes; valid units preview the bill again."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001"], 100)
    cap = api.lab.rules()["caps"]["compute_per_project"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        for key, field in (("c", "#field-1"), ("s", "#field-3")):
            await press(pilot, key, to="ActionForm")
            summary = app.screen.query_one("#form-summary")
            units = app.screen.query_one(field, Input)
            for typed in ("-5", str(int(cap) + 1)):
                units.value = typed
                await wait_for(pilot, lambda s=summary: f"enter 0 to {cap:,.0f} units" in str(s.render()), typed)
                text = str(summary.render())
                assert "$-" not in text and f"{typed} units" not in text
            units.value = "200"
            await wait_for(pilot, lambda s=summary: "200 units × $1" in str(s.render()), "a valid bill")
            await press(pilot, "escape", to="LabScreen")


async def test_no_toast_draws_over_a_form_or_its_confirmation(tmp_path):
    """QA at 80x24: the toasts of the last actions ('Post a postdoc search', 'Hire a research
    assistant') drew over the next form's fields and buttons for their 5 s. They wait under
    a form and its yes/no question, and show again on the lab when the form closes."""
    w = new_world()
    Api(w).recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    app.NOTIFICATION_TIMEOUT = 3600  # the toast must still be up when looked at (loaded machine)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        app.notify("the last action's result")
        await wait_for(pilot, lambda: toasts_drawn(app), "the toast on the lab")
        await press(pilot, "X", to="ActionForm")
        assert app._notifications and not toasts_drawn(app)
        await press(pilot, "ctrl+o", to="ConfirmAction")
        assert not toasts_drawn(app)
        await press(pilot, "n", to="ActionForm")
        await press(pilot, "escape", to="LabScreen")
        await wait_for(pilot, lambda: toasts_drawn(app), "the toast back on the lab")


async def test_polish_form_says_which_hours_would_add_nothing(tmp_path):
    """QA: polishing a draft 50 h was taken (50 h of attention gone) with only a note after
    ('polish beyond 12 h adds nothing'); the form said 'gains stop at 12 h in total' but not
    how much the chosen draft already had. It now says the draft's polish so far and, before
    the call, how many of the typed hours would add nothing."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001"], 100)
    while not api.papers.drafts():
        api.time.next_month()
    draft = api.papers.drafts()[0]["id"]
    api.papers.polish(draft, 5)
    sat = api.lab.rules()["hours"]["polish_saturation"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "4", panel="papers")
        await press(pilot, "p", to="ActionForm")
        summary = app.screen.query_one("#form-summary")
        assert f"{draft} has 5 h of polish; gains stop at {sat:g} h in total" in str(summary.render())
        app.screen.query_one("#field-1", Input).value = "50"
        want = f"{50 - (sat - 5):g} of these 50 h would add nothing (polish {sat - 5:g} h at most)"
        await wait_for(pilot, lambda: want in str(summary.render()), "the wasted hours")


async def test_polish_form_starts_with_the_hours_that_still_add_something(tmp_path):
    """QA10 play: the polish form started at 8 h whatever the draft had. It starts with the
    hours left before the saturation (``hours.polish_saturation`` less the draft's polish),
    0 for a draft that has them all (and the summary says more adds nothing), and follows
    the chosen draft unless the player typed hours of their own."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001"], 100)
    api.projects.start("theory", 1, ["RA002"], 100)
    while len(api.papers.drafts()) < 2:
        api.time.next_month()
    sat = api.lab.rules()["hours"]["polish_saturation"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "4", panel="papers")
        await press(pilot, "p", to="ActionForm")
        first = app.screen.values["draft"]
        second = next(d["id"] for d in api.papers.drafts()[:2] if d["id"] != first)
        await press(pilot, "escape", to="LabScreen")
        api.papers.polish(first, 5)
        api.papers.polish(second, sat)
        await press(pilot, "p", to="ActionForm")
        form = app.screen
        hours = form.query_one("#field-1", Input)
        assert form.values["draft"] == first and hours.value == f"{sat - 5:g}"
        form.query_one("#field-0", Select).value = second
        await wait_for(pilot, lambda: hours.value == "0", "the second draft's hours")
        summary = form.query_one("#form-summary")
        await wait_for(pilot, lambda: "more polish adds nothing to it" in str(summary.render()), "the note")
        hours.value = "3"
        form.query_one("#field-0", Select).value = first
        await wait_for(pilot, lambda: form.values["draft"] == first, "the first draft again")
        assert hours.value == "3"  # typed by the player: kept


async def test_an_idle_ra_reads_idle_in_the_lab_table_as_an_idle_student_does(tmp_path):
    """QA: an idle PhD student's Projects cell read 'idle' but an idle RA's '—' (as a manager's,
    who is never on a project), though both are paid and produce nothing (the header names
    both). An idle RA reads 'idle'; an RA on a project names it; a manager stays '—'."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.recruit.hire_manager()
    api.projects.start("reasoning", 1, ["RA002"], 100)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        table = app.query_one("#people-table", DataTable)
        cells = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[6]) for i in range(table.row_count)}
        manager = next(k for k in cells if k.startswith("MG") or k not in ("RA001", "RA002"))
        assert cells["RA001"] == "idle" and cells["RA002"] == "PJ001" and cells[manager] == "—"
