"""Issue 27 §4 (QA at 80x24): a form names its target next to OK, whatever field has focus. In
the Grants panel g opened the proposal form on AMP while the player thought BSF highlighted;
once tab reached Hours the Call field had scrolled off the top and the proposal went to AMP."""

from __future__ import annotations

import pytest
from textual.widgets import Button

from world.api import Api

from .conftest import build, new_world, press, screen_text, wait_for

pytestmark = pytest.mark.asyncio


def _near_ok(app) -> str:
    """The screen's lines from three above the OK button's row to its row."""
    ok = app.screen.query_one("#form-ok", Button).region
    lines = screen_text(app).splitlines()
    assert ok.height and 0 <= ok.y < len(lines), "the OK button is on screen"
    return "\n".join(lines[max(0, ok.y - 3) : ok.y + ok.height])


async def test_the_proposal_form_names_its_call_by_ok_with_focus_on_the_last_field(tmp_path):
    """80x24, month 5 (AMP-m05 and BSF-m05 open): g opens the proposal form; with the focus
    moved down to the last field the call chosen is named right above OK (the Call field itself
    has scrolled away), and it follows a change of call."""
    w = new_world(seed=1001)
    api = Api(w)
    while w.month < 5:
        api.time.next_month()
    calls = [c["id"] for c in api.grants.calls()]
    assert len(calls) >= 2
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        form = app.screen
        first = form.values["call"]
        last = f"field-{len(form.fields) - 1}"
        while form.focused is None or form.focused.id != last:
            await press(pilot, "tab")
        await wait_for(pilot, lambda: first in _near_ok(app), "the call named by OK")
        assert "apply by month" not in screen_text(app), "the Call field (its option's text) scrolled away"
        other = next(c for c in calls if c != first)
        form.query_one("#field-0").value = other
        await wait_for(pilot, lambda: other in _near_ok(app) and first not in _near_ok(app), "the new call")


async def test_the_offer_form_names_the_applicant_without_their_scores(tmp_path):
    """The offer's target is the applicant by id, name and pool (the words of its "Are you
    sure?" question), not the option's whole label with the transcript, letter and interview
    scores (the generic line cut a label only at " · " or ":")."""
    w = new_world()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        await press(pilot, "o", to="ActionForm")
        first = Api(w).recruit.applicants()[0]
        line = " ".join(str(app.screen.query_one("#form-target").render()).split())
        assert line == f"Acts on: {first['id']} {first['name']} (pool {first['pool']})", line


async def test_the_proposal_form_names_the_evidence_ticked_by_ok(tmp_path):
    """QA: the proposal form's "Acts on" line named the call and topic but not the evidence
    attached (an optional list, left out). Nothing ticked: the line does not name evidence;
    one item ticked with space: the line names it after the call and topic."""
    from pibench_tui.tui.widgets.checklist import CheckList

    from .test_published_after_the_horizon import _late_world

    w = _late_world(50)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        form = app.screen
        evidence = form.query_one(CheckList)
        assert evidence.option_count and evidence.selected == []
        assert "vidence" not in form.target()
        evidence.focus()
        await press(pilot, "home", "space", until=lambda: bool(evidence.selected), what="a tick")
        (item,) = evidence.selected
        name = next(f.label.split(" (")[0] for f in form.fields if f.kind == "multi")  # "Evidence to attach"
        assert form.target().endswith(f" · {name} {item}"), form.target()
        assert f"{name} {item}" in screen_text(app)
