"""Enter in a form (QA, issue 27 §4): enter on a closed choice sends the form as it does in a
number field or a list, with the confirmation of an irreversible action still asked first; a
required field still empty gets the focus instead; inside an opened list, enter picks."""

from __future__ import annotations

import pytest
from textual.widgets import Select

from world.api import Api

from .conftest import build, new_world, press

pytestmark = pytest.mark.asyncio


async def test_enter_on_a_closed_choice_sends_the_form_and_the_confirmation_still_comes(tmp_path):
    """With two RAs in the lab, X opens the dismiss form on its one choice: enter (the list
    closed) asks "Are you sure?" naming the RA shown, n goes back to the form with nobody
    dismissed; space opens the list, down and enter pick the second RA there (the form stays
    open, the list closes); enter then asks about that RA and y dismisses only them."""
    w = new_world()
    api = Api(w)
    first, second = api.recruit.hire_ra()["staff_id"], api.recruit.hire_ra()["staff_id"]
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        await press(pilot, "X", to="ActionForm")
        choice = app.screen.query_one("#field-0", Select)
        assert choice.value == first and app.focused is choice
        await press(pilot, "enter", to="ConfirmAction")
        question = str(app.screen.query_one("#confirm-question").render())
        assert first in question and second not in question, question
        await press(pilot, "n", to="ActionForm")
        assert not any(s["leaving_at_month_end"] for s in app.game.dashboard()["staff"]), "n dismissed nobody"

        choice = app.screen.query_one("#field-0", Select)
        await press(pilot, "space", until=lambda: choice.expanded, what="the list open")
        await press(pilot, "down", "enter", until=lambda: not choice.expanded, what="the list closed")
        assert type(app.screen).__name__ == "ActionForm", "enter in the open list picked, it did not send"
        assert choice.value == second and app.focused is choice
        await press(pilot, "enter", to="ConfirmAction")
        question = str(app.screen.query_one("#confirm-question").render())
        assert second in question and first not in question, question
        await press(pilot, "y", to="LabScreen")
    leaving = {s["id"]: s["leaving_at_month_end"] for s in Api(w).lab.dashboard()["staff"]}
    assert leaving == {first: False, second: True}, "only the second RA was dismissed"


async def test_enter_goes_to_a_required_field_still_empty_before_sending(tmp_path):
    """Everyone already on a project: the start form ticks nobody. Enter on its first field
    (the topic, a closed choice) moves to the members list, which must be filled, instead of
    sending; space ticks the first person and enter sends: the project starts."""
    w = new_world()
    api = Api(w)
    ras = [api.recruit.hire_ra()["staff_id"] for _ in range(2)]
    api.projects.start("reasoning", 1, ras, 100)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        assert app.focused is not None and app.focused.id == "field-0"
        assert app.screen.values["members"] == []
        await press(pilot, "enter", focus="field-2")
        assert type(app.screen).__name__ == "ActionForm" and not app.screen.query_one("#field-0", Select).expanded
        await press(pilot, "space", "enter", to="LabScreen")
    assert len(Api(w).projects.list()) == 2, "the second project started"
