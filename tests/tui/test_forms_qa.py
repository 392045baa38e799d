"""Issue 27, a fresh QA player's forms at 80x24: after a refused send tab leads back to the field
the refusal is about; keys typed in a burst in a number field apply in the order typed; polish
and revise start at the hours left; the mentoring form lists people in the Lab table's order."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from world.api import ActionError, Api

from .conftest import build, drain, new_world, press, screen_ready, wait_for
from .test_actions import _world_with_draft
from .test_typeahead import burst

pytestmark = pytest.mark.asyncio


def world_with_a_rejected_draft(left: float):
    """D001 rejected at NAIC (month 13), with ``left`` hours of attention left this month (the
    rest spent polishing it past its saturation)."""
    w, api = _world_with_draft()
    api.time.next_month()  # month 9: NAIC's deadline
    api.papers.submit("D001", "NAIC")
    for _ in range(4):  # decided at the tick of month 12
        api.time.next_month()
    assert api.papers.submissions()[-1]["status"] == "reject"
    api.papers.polish("D001", api.lab.attention()["left"] - left)
    assert api.lab.attention()["left"] == left
    return w, api


async def grant_hours_field(pilot) -> Input:
    """Open the Grants panel's proposal form and tab to its hours (call, topic, then hours),
    which then has the focus; return it."""
    await press(pilot, "5", panel="grants")
    await press(pilot, "g", to="ActionForm")
    await press(pilot, "tab", "tab", focus="field-2")
    return pilot.app.screen.query_one("#field-2", Input)


async def papers_hours_form(pilot, key: str) -> Input:
    """Open the Papers panel's form on ``key`` (``v`` revise, ``p`` polish: a draft list, then
    the hours) and return its hours field."""
    await press(pilot, "4", panel="papers")
    await press(pilot, key, to="ActionForm")
    return pilot.app.screen.query_one("#field-1", Input)


async def test_after_a_refused_revision_tab_leads_to_the_hours_and_typing_edits_them(tmp_path):
    """QA (month 31, 80x24): v on a rejected draft, ctrl+o refused ('revising D001 needs 9 h but
    only 6.5 h are left'); then tab, backspace, 6 left the hours at 9 (tab focused the form's
    scroll box). Now tab after the refusal focuses the hours the refusal is about, the same keys
    make them 6, and the revision is sent. A hotkey typed before tab still edits nothing."""
    w, api = world_with_a_rejected_draft(6.5)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        hours = await papers_hours_form(pilot, "v")
        form = app.screen
        hours.value = "9"  # more than the 6.5 h left
        problems = form.query_one("#form-problems")
        await press(pilot, "ctrl+o", until=lambda: problems.display, what="the refusal")
        assert "refused" in str(problems.render()) and "tab" in str(problems.render())
        assert app.focused is None
        await press(pilot, "n")
        assert hours.value == "9" and app.screen is form
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "end", "backspace", "6")
        assert hours.value == "6"
        await press(pilot, "ctrl+o", to="LabScreen")
        assert api.papers.drafts()[0]["revisions"] == 1 and api.lab.attention()["left"] == 0.5


async def test_editing_keys_typed_in_a_burst_apply_in_the_order_typed(tmp_path):
    """QA (grant form, 80x24): ``end backspace backspace backspace 4 5`` sent at once left the
    hours empty (the digits went in first, the erasing keys ran after them), then
    ``backspace backspace 3 0`` left them empty again. Now each key acts in its turn: 45, then
    30, and enter in the same burst sends what the keys before it typed."""
    w = new_world()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        hours = await grant_hours_field(pilot)
        assert hours.value == "25"
        burst(app, "end", "backspace", "backspace", "backspace", "4", "5")
        await drain(pilot)
        assert hours.value == "45"
        burst(app, "backspace", "backspace", "3", "0")
        await drain(pilot)
        assert hours.value == "30"
        burst(app, "left", "backspace", "2", "end", "backspace", "0", "enter")
        await drain(pilot)
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        assert [p["hours"] for p in Api(w).grants.proposals()] == [20]


async def test_ctrl_o_typed_in_a_burst_sends_what_the_keys_before_it_typed(tmp_path):
    """ctrl+o (a priority key, handled as the app receives it) sent the hours the field showed
    before the keys typed just ahead of it: ``end backspace backspace 1 5 ctrl+o`` sent 25 h.
    Now it waits for them: 15 h."""
    w = new_world()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await grant_hours_field(pilot)
        burst(app, "end", "backspace", "backspace", "1", "5", "ctrl+o")
        await drain(pilot)
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        assert [p["hours"] for p in Api(w).grants.proposals()] == [15]


async def test_revise_and_polish_start_at_the_hours_left_and_say_so(tmp_path):
    """QA: revise started at 8 h with 6.5 h left, polish at 12 h with 7.5 h left, so the form
    opened on a value the API refuses. Now both start at the hours left and say so as the grant
    form does ('the usual 8 h lowered to the 6.5 h left'); ctrl+o then sends them."""
    w, api = world_with_a_rejected_draft(6.5)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert (await papers_hours_form(pilot, "v")).value == "6.5"
        assert "the usual 8 h lowered to the 6.5 h left" in str(app.screen.query_one("#hint-1").render())
        await press(pilot, "ctrl+o", to="LabScreen")
        assert api.papers.drafts()[0]["revisions"] == 1 and api.lab.attention()["left"] == 0

    w, api = _world_with_draft()  # D001 with no polish yet: 12 h would still add something
    call = api.grants.calls()[0]["id"]
    api.grants.propose(call, "reasoning", api.lab.attention()["left"] - 7.5, [])
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert (await papers_hours_form(pilot, "p")).value == "7.5"
        assert "the usual 12 h lowered to the 7.5 h left" in str(app.screen.query_one("#hint-1").render())
        await press(pilot, "ctrl+o", to="LabScreen")
        assert api.papers.drafts()[0]["polish_hours"] == 7.5


async def test_polish_and_revise_keep_their_usual_hours_when_enough_are_left(tmp_path):
    """With more hours left than the usual, nothing is lowered and no note is shown."""
    w, api = _world_with_draft()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert (await papers_hours_form(pilot, "p")).value == "12"
        assert "lowered" not in str(app.screen.query_one("#hint-1").render())


def lab_with_postdocs_after_ras():
    """RA001-RA003 hired in month 1, then postdocs PD001 and PD002 (month 6, seed 1001):
    the Lab table lists the researchers first (PD001, PD002, RA001, RA002, RA003)."""
    w = new_world()
    api = Api(w)
    for _ in range(3):
        api.recruit.hire_ra()
    while len(api.lab.dashboard()["students"]) < 2:  # a search each month it is allowed
        assert w.month < 12
        try:
            api.recruit.post_postdoc()
        except ActionError:
            pass  # one search at a time
        api.time.next_month()
    return w, api


async def test_the_mentoring_form_lists_people_in_the_lab_tables_order_with_each_label_in_view(tmp_path):
    """QA: the Lab table read S002, PD001, PD002, RA001 and the mentoring form S002, RA001, PD001,
    PD002. Now the form's fields follow the table's rows; and at 80x24, as tab moves down and
    back up the form (it scrolls), the focused field's label is always in view."""
    w, api = lab_with_postdocs_after_ras()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        table = app.screen.query_one("#people-table", DataTable)
        rows = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert rows == ["PD001", "PD002", "RA001", "RA002", "RA003"]
        await press(pilot, "m", to="ActionForm")
        form = app.screen
        assert [f.name.partition(":")[2] for f in form.fields] == rows
        box = form.query_one("#form-box")
        labels = list(form.query(".form-label"))
        order = [*range(len(rows)), *reversed(range(len(rows) - 1))]
        for n, i in enumerate(order):
            if n:
                await press(pilot, "tab" if i > order[n - 1] else "shift+tab", focus=f"field-{i}")
            label = labels[i]
            assert str(label.render()).startswith(rows[i])
            shown = box.content_region  # inside the box's border: what of its content is drawn
            assert shown.contains_region(label.region), (rows[i], label.region, shown)
            assert shown.contains_region(form.query_one(f"#field-{i}").region)


async def test_a_field_focused_at_the_top_edge_of_a_scrolled_form_brings_its_label_into_view(tmp_path):
    """At 80x24 the mentoring form scrolls. With PD002's hours just at the top of the view (its
    label above it, out of view: the form scrolled by the wheel or by an earlier field), tab to
    them showed the hours without the name (Textual scrolls only a field not entirely in view).
    Now the focused field's label comes into view with it."""
    w, api = lab_with_postdocs_after_ras()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        await press(pilot, "m", to="ActionForm")
        form = app.screen
        box = form.query_one("#form-box")
        assert app.focused is form.query_one("#field-0")
        hours, label = form.query_one("#field-1"), list(form.query(".form-label"))[1]
        assert str(label.render()).startswith("PD002")
        box.scroll_to(y=box.scroll_y + hours.region.y - box.content_region.y, animate=False)  # hours at the top
        await drain(pilot)
        shown = box.content_region
        assert shown.contains_region(hours.region) and not shown.contains_region(label.region)
        await press(pilot, "tab", focus="field-1")
        assert shown.contains_region(hours.region) and shown.contains_region(label.region)


async def test_with_no_hours_left_revise_starts_at_its_usual_hours_and_is_refused(tmp_path):
    """With 0 h left the revise form started at 0 h, which the API accepts: sending it used up
    the month's revision for nothing. It starts at the usual 8 h, and sending is refused saying
    no hours are left; the draft keeps its revision for a later month."""
    w, api = world_with_a_rejected_draft(0)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert (await papers_hours_form(pilot, "v")).value == "8"
        await press(pilot, "ctrl+o", until=lambda: app.screen.query_one("#form-problems").display, what="the refusal")
        assert type(app.screen).__name__ == "ActionForm"  # kept open (its focus let go: keys edit nothing)
        assert "only 0.00 h are left" in " ".join(str(app.screen.query_one("#form-problems").render()).split())
        assert api.papers.drafts()[0]["revisions"] == 0


async def test_keys_typed_after_tab_in_a_burst_edit_the_field_tab_moves_to(tmp_path):
    """Review of issue 27: ``tab end backspace backspace backspace 4`` typed at once in the polish
    form, from its draft list, went to the draft list (every key was routed to the field focused
    when it arrived, before tab had moved the focus) and the hours stayed as they were. Now the
    keys after tab wait for it: the hours become 4; ``shift+tab tab backspace 3`` in one burst
    comes back to them and makes them 3, and ctrl+o polishes 3 h."""
    w, api = world_with_a_rejected_draft(6.5)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        hours = await papers_hours_form(pilot, "p")
        form = app.screen
        assert app.focused is form.query_one("#field-0") and hours.value != "4"
        burst(app, "tab", "end", "backspace", "backspace", "backspace", "4")
        await drain(pilot)
        assert hours.value == "4" and app.focused is hours
        burst(app, "shift+tab", "tab", "backspace", "3")
        await drain(pilot)
        assert hours.value == "3" and app.focused is hours
        await press(pilot, "ctrl+o", to="LabScreen")
        assert api.lab.attention()["left"] == 3.5


async def test_the_assign_form_says_which_projects_the_people_listed_are_on(tmp_path):
    """QA: the assign form's person list marked the idle people but said nothing of the others,
    so the player could not tell who was on which project. Assigning to PJ002: the person on
    PJ001 reads "· on PJ001" (as in the start form), the idle one "· idle" and comes first."""
    from tests.world.mechanics_helpers import add_person, make_world

    w = make_world(seed=3)
    api = Api(w)
    a, b, c, idle = (add_person(w).id for _ in range(4))
    api.projects.start("theory", 1, [a, b], 0)
    api.projects.start("reasoning", 1, [c], 0)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "a", to="ActionForm")
        form = app.screen
        project = form.query_one("#field-0")
        if project.value != "PJ002":
            project.value = "PJ002"
            await drain(pilot)
        labels = {value: label for label, value in form.query_one("#field-1")._options}
        assert labels[idle].endswith("· idle") and labels[a].endswith("· on PJ001")
        assert c not in labels  # already on PJ002
        assert next(iter(labels)) == idle
