"""QA: the compute form with its field emptied previewed "new bill 0 units … $0/month", then
refused with "enter a number". An empty field is no number: the preview says so."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from tests.careers import play_to

from .conftest import build, new_world, press, wait_for

pytestmark = pytest.mark.asyncio


async def test_an_empty_compute_field_previews_no_bill(tmp_path):
    """Seed 2718, month 43: emptying the compute form's units previews no bill of 0 units but says the field is empty and what it takes (QA: "new bill 0 units … $0/month", then "enter a number")."""
    w = new_world(seed=2718)
    play_to(w, 43, "baseline")
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "c", to="ActionForm")
        form = app.screen

        def summary() -> str:
            return " ".join(str(form.query_one("#form-summary", Static).render()).split())

        assert "new bill 1,500 units" in summary()
        await press(pilot, "tab", focus="field-1")
        field = form.query_one("#field-1", Input)
        await press(pilot, *["backspace"] * 8, "delete", until=lambda: field.value == "", what="the field emptied")
        await wait_for(pilot, lambda: "empty" in summary(), "the preview of an empty field")
        text = summary()
        assert "new bill: the field is empty; enter 0 to" in text and "$0/month" not in text, text
        await press(pilot, "ctrl+o", until=lambda: "enter a number" in str(form.query_one("#form-problems").render()))
