"""Every API action driven through the keyboard changes the world exactly as the API says."""

from __future__ import annotations

import pytest

from world.api import Api

from .conftest import build, new_world, press, screen_ready


async def act(pilot, *keys: str, send: str = "ctrl+o") -> None:
    """Open an action's form with ``keys`` (the last one opens it), wait until it is up, then
    send it with ``send`` (answering yes when an irreversible action asks first) and wait until
    the main screen is back (the call is made by then)."""
    await press(pilot, *keys, to="ActionForm")
    app = pilot.app
    await press(pilot, send, until=lambda: screen_ready(app, "LabScreen") or screen_ready(app, "ConfirmAction"))
    if screen_ready(app, "ConfirmAction"):  # an irreversible action asks first: yes
        await press(pilot, "y", to="LabScreen")


pytestmark = pytest.mark.asyncio


async def test_staff_actions_hire_ra_manager_postdoc_and_dismiss(tmp_path):
    """R, M, P open confirmations that hire an RA, a manager and post a postdoc search; X dismisses."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("R", "M", "P"):
            await act(pilot, key, send="enter")
        people = {p["id"]: p for p in Api(app.game.world).students.list()}
        assert people["RA001"]["role"] == "ra" and people["MGR001"]["role"] == "manager"
        assert any(r["category"] == "recruiting" for r in app.game.call("lab.ledger", 50))
        await act(pilot, "X")
        dash = app.game.dashboard()
        staff = {s["id"]: s for s in dash["staff"]}
        assert staff["RA001"]["leaving_at_month_end"] is True
        assert app.game.world.s.action_log[-1][1] == "recruit.dismiss"
        told = len(app.toasts)
        await press(
            pilot, "r", until=lambda: len(app.toasts) > told, what="a note"
        )  # no postdoc yet: told why, no form
        assert "no active postdoc" in app.toasts[-1][0]
        assert app.screen is app.screen_stack[0]


async def test_interview_and_offer(tmp_path):
    """i interviews the highlighted applicant (ticked as the form opens) and one more ticked
    (3 h each); o offers the first pending one."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "i", to="ActionForm")
        await press(
            pilot,
            "down",
            "space",
            until=lambda: len(app.screen.values["ids"]) == 2,
            what="two applicants ticked",
        )
        await press(pilot, "ctrl+o", to="LabScreen")
        apps = {a["id"]: a for a in app.game.call("recruit.applicants")}
        interviewed = [a for a in apps.values() if a["interview"] is not None]
        assert len(interviewed) == 2
        assert app.game.call("lab.attention")["oneoff_used"] == 6
        await act(pilot, "o")
        assert sum(1 for a in app.game.call("recruit.applicants") if a["status"] == "offered") == 1


async def test_the_interview_form_starts_with_the_highlighted_applicant_ticked(tmp_path):
    """QA: the interview form (applicants panel, i) opened with nothing ticked, though the
    other forms start on the highlighted row. With the cursor on the third applicant, the form
    opens with that one ticked and its row highlighted; the player can still change it (space
    unticks it, down space ticks the next) and the interview is made for what shows."""
    from textual.widgets import DataTable, SelectionList

    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2", panel="applicants")
        table = app.screen.query_one("#applicants-table", DataTable)
        await press(pilot, "down", "down", until=lambda: table.cursor_row == 2, what="the third row")
        third = str(table.get_row_at(2)[0])
        await press(pilot, "i", to="ActionForm")
        form = app.screen
        checklist = form.query_one(SelectionList)
        assert form.values["ids"] == [third] and checklist.selected == [third]
        assert checklist.get_option_at_index(checklist.highlighted).value == third
        nxt = str(checklist.get_option_at_index(checklist.highlighted + 1).value)
        await press(pilot, "space", until=lambda: form.values["ids"] == [], what="the applicant unticked")
        await press(pilot, "down", "space", until=lambda: form.values["ids"] == [nxt], what="the next one ticked")
        await press(pilot, "ctrl+o", to="LabScreen")
        done = [a["id"] for a in app.game.call("recruit.applicants") if a["interview"] is not None]
        assert done == [nxt]


async def test_mentoring_and_project_actions(tmp_path):
    """With two RAs hired (R, R):

    - m shows one field per person; the value typed becomes their standing hours;
    - s starts a project (the idle pair comes ticked); a/u change members; c sets compute; k kills it."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await act(pilot, "R", send="enter")
        await act(pilot, "R", send="enter")
        # mentoring: one field per person
        await press(pilot, "1", panel="people")
        await press(pilot, "m", to="ActionForm")
        assert "left after this" in str(app.screen.query_one("#form-summary").render())
        await press(
            pilot, "backspace", "4", until=lambda: app.screen.values["h:RA001"] == "4", what="RA001's hours typed"
        )
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "backspace", "6", "enter", to="LabScreen")
        people = {p["id"]: p["mentoring_hours"] for p in app.game.call("students.list")}
        assert people == {"RA001": 4.0, "RA002": 6.0}, "the typed hours are the standing ones"
        # projects: the idle pair RA001, RA002 comes ticked: down, space unticks RA002
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "tab", focus="field-2")
        await press(
            pilot, "down", "space", until=lambda: app.screen.values["members"] == ["RA001"], what="RA002 unticked"
        )
        await press(pilot, "tab", focus="field-3")
        await press(pilot, "enter", to="LabScreen")
        pj = app.game.call("projects.list")[0]
        assert (
            pj["members"] == ["RA001"]
            and pj["tier"] == 2
            and pj["topic"] == "reasoning"
            and pj["monthly_compute"] == 1500
        )
        await act(pilot, "a")  # the form offers someone not on the project already
        assert app.game.call("projects.list")[0]["members"] == ["RA001", "RA002"]
        await act(pilot, "u")
        assert app.game.call("projects.list")[0]["members"] == ["RA002"]
        await press(pilot, "c", to="ActionForm")
        await press(pilot, "tab", focus="field-1")
        await press(pilot, *["backspace"] * 4, "9", "0", "0", "enter", to="LabScreen")
        assert app.game.call("projects.list")[0]["monthly_compute"] == 900
        await act(pilot, "k")
        assert app.game.call("projects.list")[0]["status"] == "killed"


def _world_with_draft():
    """Two RAs on a tier-1 project until its draft appears (month 8 on the standard seed)."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001", "RA002"], 1500)
    api.students.set_mentoring({"RA001": 3, "RA002": 3})
    while not api.lab.dashboard()["available_drafts"]:
        api.time.next_month()
    return w, api


async def test_paper_actions_polish_submit_withdraw_revise(tmp_path):
    """p polishes, b submits (only venues open this month), w withdraws, v revises a rejected draft."""
    w, api = _world_with_draft()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4", panel="papers")
        await act(pilot, "p")
        assert api.papers.drafts()[0]["polish_hours"] == api.lab.rules()["hours"]["polish_saturation"]
        await act(pilot, "b")
        sub = api.papers.submissions()[0]
        assert sub["status"] == "under_review" and sub["venue"] == "W-SHOP"
        await act(pilot, "w")
        assert api.papers.submissions()[0]["status"] == "withdrawn"
        told = len(app.toasts)
        await press(pilot, "v", until=lambda: len(app.toasts) > told, what="a note")
        assert "rejected" in app.toasts[-1][0]
    # month 9 is a NAIC deadline: the first venue offered is NAIC; a tier-1 RA paper is rejected.
    api.time.next_month()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4", panel="papers")
        await act(pilot, "b")
        assert api.papers.submissions()[-1]["venue"] == "NAIC"
    for _ in range(4):  # decided at the tick of month 12
        api.time.next_month()
    assert api.papers.submissions()[-1]["status"] == "reject"
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "4", panel="papers")
        await act(pilot, "v")
        assert api.papers.drafts()[0]["revisions"] == 1


async def test_grant_conference_and_event_actions(tmp_path):
    """g proposes to an open call ($500), f attends a conference ($2,500, intel), e answers an event."""
    w = new_world()
    api = Api(w)
    api.time.next_month()  # month 2: a review request is waiting
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        budget = api.lab.dashboard()["budget"]
        await press(pilot, "5", panel="grants")
        await act(pilot, "g")
        props = api.grants.proposals()
        assert len(props) == 1 and props[0]["topic"] == "reasoning" and props[0]["hours"] == 25
        assert api.lab.dashboard()["budget"] == budget - 500
        await press(pilot, "6", panel="field")
        await act(pilot, "f", send="enter")
        assert app.game.intel and api.lab.dashboard()["budget"] == budget - 3000
        ev = api.events.pending()[0]
        await press(pilot, "7", panel="events")
        await act(pilot, "e")
        assert ev["id"] not in {e["id"] for e in api.events.pending()}
        assert w.s.events[ev["id"]].status == "accepted"


async def test_refused_and_invalid_values_leave_the_world_untouched(tmp_path):
    """In the proposal form (g on the Grants panel):

    - a value out of range (3 h) keeps the form open with the problem named; the world is
      untouched; escape closes the form;
    - a call the API refuses (a 200 h proposal in month 1, invariant 5) shows its message
      verbatim, as an error; no proposal is made."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        # the form validates before calling
        log_len = len(app.game.world.s.action_log)
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "tab", focus="field-2")
        problems = app.screen.query_one("#form-problems")
        await press(
            pilot,
            "end",
            "backspace",
            "backspace",
            "3",
            "enter",
            until=lambda: problems.display,
            what="the problem shown",
        )
        assert type(app.screen).__name__ == "ActionForm", "an invalid value keeps the form open"
        assert "at least 5" in str(app.screen.query_one("#form-problems").render())
        assert len(app.game.world.s.action_log) == log_len, "no call was made"
        await press(pilot, "escape", to="LabScreen")
        assert type(app.screen).__name__ == "LabScreen"

        # a refused call shows the API's message
        await press(pilot, "g", to="ActionForm")
        await press(pilot, "tab", focus="field-1")
        await press(pilot, "tab", focus="field-2")
        told = len(app.toasts)
        await press(
            pilot,
            "end",
            "backspace",
            "backspace",
            "2",
            "0",
            "0",
            "enter",
            until=lambda: len(app.toasts) > told,
            what="a note",
        )
        msg, severity = app.toasts[-1]
        assert severity == "error" and "needs 200 h" in msg, "the API's refusal, verbatim"
        assert app.game.call("grants.proposals") == []
