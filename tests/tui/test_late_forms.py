"""QA late in a career (issue 27): the proposal and start-project forms did not say what the
horizon does before OK. In month 56 the proposal form opened on BSF-m56 (decided in month 61,
after the last month: it can never fund the lab) although TIF (decided in 58) was open, and
ctrl+o sent it with no question; in month 59 the start form said nothing of the API's note
("started after month 58, it cannot make a draft …") until the toast after the project had
started. The proposal form now defaults to a call decided within the career that the lab may
apply to, and asks before a proposal that can never be decided; the start form shows the
world's note (``world.explain.project_start_note``) above its fields and asks before starting."""

from __future__ import annotations

import pytest
from textual.widgets import Select

from pibench_tui.tui.alerts import call_to_propose
from pibench_tui.tui.game import Game, rule
from world import explain
from world import grants as world_grants
from world.api import Api

from .conftest import build, press, screen_text
from .test_published_after_the_horizon import _late_world, _shown

NEVER_FUNDS = "never decided: month 61 is after the horizon (month 60): it can never fund the lab in this career"


async def _pick(pilot, app, field: str, value: str) -> None:
    """Pick ``value`` in the form's choice field ``#field`` as a player does (space opens the
    list, up or down, enter picks)."""
    choice = app.screen.query_one(f"#{field}", Select)
    order = [v for _, v in choice._options]
    for _ in range(len(order)):
        if choice.value == value:
            break
        step = "down" if order.index(value) > order.index(choice.value) else "up"
        await press(pilot, "space", until=lambda: choice.expanded, what="the list open")
        await press(pilot, step, "enter", until=lambda: not choice.expanded, what="the list closed")
    assert choice.value == value


def _summary(app) -> str:
    return " ".join(str(app.screen.query_one("#form-summary").render()).split())


async def _open_proposal_form(pilot) -> None:
    await press(pilot, "5", panel="grants")
    await press(pilot, "g", to="ActionForm")


def _proposals(w) -> list[str]:
    """The calls of the proposals sent this month."""
    return [p["call_id"] for p in Api(w).grants.proposals() if p["submitted_month"] == w.month]


@pytest.mark.asyncio
async def test_the_proposal_form_defaults_to_a_call_decided_in_time_and_asks_before_a_late_one(tmp_path):
    """Month 56, seed 1001: BSF-m56 (decision 61) and TIF-rolling (decision 58) are open and
    allowed. The form opens on TIF-rolling (QA: on BSF-m56). BSF-m56 chosen: the summary leads
    with the horizon note, ctrl+o asks "Are you sure?" naming month 61 and the last month 60;
    no sends nothing, yes sends it."""
    w = _late_world(56)
    cfg = w.cfg
    assert world_grants.proposal_decision_month(cfg, "BSF", 56) == 61 > cfg.months
    assert world_grants.proposal_decision_month(cfg, "TIF", 56) == 58 <= cfg.months
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_proposal_form(pilot)
        assert app.screen.values["call"] == "TIF-rolling"
        assert "horizon" not in _summary(app)
        await _pick(pilot, app, "field-0", "BSF-m56")
        assert _summary(app).startswith(NEVER_FUNDS), _summary(app)
        await press(pilot, "ctrl+o", to="ConfirmAction")
        assert "Are you sure?" in screen_text(app)
        question = _shown(app, "#confirm-question")  # whole at 80x24
        fee = f"${rule(Game(w), 'costs.proposal'):,.0f} fee"
        assert question == f"Send a proposal to BSF-m56 ({fee})? It would be {NEVER_FUNDS}.", question
        await press(pilot, "n", to="ActionForm")
        assert _proposals(w) == []  # no: nothing sent
        await press(pilot, "ctrl+o", to="ConfirmAction")
        await press(pilot, "y", to="LabScreen")
        assert _proposals(w) == ["BSF-m56"]


@pytest.mark.asyncio
async def test_a_proposal_decided_within_the_career_is_sent_without_a_question(tmp_path):
    """Month 56: the default TIF-rolling (decision 58) is sent at once by ctrl+o."""
    w = _late_world(56)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_proposal_form(pilot)
        await press(pilot, "ctrl+o", to="LabScreen")
        assert _proposals(w) == ["TIF-rolling"]


def test_the_default_call_is_one_the_lab_may_apply_to_before_one_decided_in_time():
    """Month 56 after a TIF proposal in month 55: TIF's cool-down refuses TIF-rolling (decided in
    time), so the default is BSF-m56 (allowed, decided after the horizon: the form asks before
    sending it), not a call the world would refuse."""
    w = _late_world(55)
    api = Api(w)
    api.grants.propose("TIF-rolling", "reasoning", 25)
    api.time.next_month()
    assert w.month == 56
    assert world_grants.call_refusal(w, "TIF-rolling") is not None
    assert world_grants.call_refusal(w, "BSF-m56") is None
    assert call_to_propose(Game(w)) == "BSF-m56"


@pytest.mark.asyncio
async def test_the_start_form_says_a_late_project_adds_nothing_and_asks_first(tmp_path):
    """Month 59: the start form's summary leads with the API's note (the world's words, before
    OK; QA: only in the toast after), ctrl+o asks "Are you sure?" with it; no starts nothing,
    yes starts the project."""
    w = _late_world(59)
    note = explain.project_start_note(w.cfg, 59)
    assert note.startswith("started after month 58")
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        before = {p["id"] for p in Api(w).projects.list()}
        await press(pilot, "s", to="ActionForm")
        assert _summary(app).startswith(note), _summary(app)
        assert note in _shown(app, "#form-summary"), "the note is cut at 80x24"
        await press(pilot, "ctrl+o", to="ConfirmAction")
        question = _shown(app, "#confirm-question")
        assert question == f"Start a tier 2 reasoning project in month 59? S{note[1:]}.", question
        await press(pilot, "n", to="ActionForm")
        assert {p["id"] for p in Api(w).projects.list()} == before  # no: nothing started
        await press(pilot, "ctrl+o", to="ConfirmAction")
        await press(pilot, "y", to="LabScreen")
        assert len({p["id"] for p in Api(w).projects.list()} - before) == 1


@pytest.mark.asyncio
async def test_a_project_that_can_still_count_starts_without_a_question(tmp_path):
    """Month 58 (the last month a project can still make a draft decided in the career): no
    note in the form, ctrl+o starts the project at once."""
    w = _late_world(58)
    assert explain.project_start_note(w.cfg, 58) == ""
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        before = {p["id"] for p in Api(w).projects.list()}
        await press(pilot, "s", to="ActionForm")
        assert "started after" not in _summary(app)
        await press(pilot, "ctrl+o", to="LabScreen")
        assert len({p["id"] for p in Api(w).projects.list()} - before) == 1
