"""The header's grant-call warning and the proposal form agree with the world's own check
(issue 27, QA at 80x24 on seed 1001): no warning urges a call the lab may not apply to, ``g``
opens the form on the call the warning names, the form says before sending what a rejection
says after (awards running count against a proposal), and its hours fit what is left."""

from __future__ import annotations

import dataclasses

import pytest

from pibench_tui.tui.alerts import alerts
from pibench_tui.tui.game import Game
from tests.careers import play_to
from world import explain
from world import grants as world_grants
from world.api import Api
from world.engine import World

from .conftest import build, new_world, press

pytestmark = pytest.mark.asyncio


def _advance(w: World, month: int) -> Api:
    """Close months with no action until ``month`` opens."""
    api = Api(w)
    while w.month < month:
        api.time.next_month()
    return api


def _refusal(w: World, call_id: str) -> tuple[str, str] | None:
    """The world's own check of a proposal to ``call_id`` now (what ``grants.propose`` refuses)."""
    return world_grants.refusal(w, w.s.calls[call_id])


def _header(app) -> str:
    return str(app.query_one("#header").render())


async def test_the_header_does_not_urge_a_call_the_lab_may_not_apply_to(tmp_path):
    """With AMP deciding after 12 months, a proposal to AMP-m05 (month 5) is still pending in
    month 15, when AMP-m14 closes: AMP's limit of one award or proposal at once refuses
    AMP-m14, so the header warns of BSF-m14 (closing too, open to the lab) and not of AMP; g
    opens the form on BSF-m14, and AMP-m14 sent from it is refused by the same rule."""
    base = new_world(seed=1001)
    agencies = {k: dict(v) for k, v in base.cfg.agencies.items()}
    agencies["AMP"]["delay"] = 12
    w = World(dataclasses.replace(base.cfg, agencies=agencies), base.seed)
    api = _advance(w, 5)
    api.grants.propose("AMP-m05", "reasoning", 25)
    _advance(w, 15)
    game = Game(w)
    assert "AMP allows one running award or pending proposal at a time; the lab has 1" in str(_refusal(w, "AMP-m14"))
    assert _refusal(w, "BSF-m14") is None
    shorts = [a.short for a in alerts(game) if a.kind == "call"]
    assert shorts == ["BSF call closes"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        header = _header(app)
        assert "BSF call closes" in header and "AMP call closes" not in header
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        assert app.screen.values["call"] == "BSF-m14"


async def test_no_call_warning_when_every_closing_call_is_refused(tmp_path):
    """Month 15 with AMP-m05 pending (AMP deciding after 12 months) and two BSF proposals
    pending (BSF's limit is 2): both calls closing are refused by the world, no call warning."""
    base = new_world(seed=1001)
    agencies = {k: dict(v) for k, v in base.cfg.agencies.items()}
    agencies["AMP"]["delay"] = 12
    agencies["BSF"]["delay"] = 12
    w = World(dataclasses.replace(base.cfg, agencies=agencies), base.seed)
    api = _advance(w, 5)
    api.grants.propose("AMP-m05", "reasoning", 25)
    _advance(w, 8)
    api.grants.propose("BSF-m08", "reasoning", 25)
    api.grants.propose("BSF-m08", "theory", 25)
    _advance(w, 15)
    game = Game(w)
    assert _refusal(w, "AMP-m14") and _refusal(w, "BSF-m14")
    assert not [a for a in alerts(game) if a.kind == "call"]
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)):
        assert "call closes" not in _header(app)


async def test_g_opens_the_form_on_the_call_the_warning_names(tmp_path):
    """Seed 1001, month 10, no proposal yet: the header warns 'FEL call closes [g]'; g opens the
    form on FEL-m09 (before: on the first open call, TIF-rolling), from the first panel and
    (5, g) and after ! showed the warning on the Grants panel."""
    w = new_world(seed=1001)
    _advance(w, 10)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert "FEL call closes [g]" in _header(app)
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        assert app.screen.values["call"] == "FEL-m09"
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "1", panel="people")
        order = [a.kind for a in alerts(app.game)]  # ! shows the warnings one by one, most urgent first
        await press(pilot, *["!"] * (order.index("call") + 1), panel="grants")
        await press(pilot, "g", to="ActionForm")
        assert app.screen.values["call"] == "FEL-m09"


async def test_the_form_says_how_running_awards_weigh_on_a_proposal(tmp_path):
    """Seed 1001's baseline career has award A001 running in month 37: the proposal form's
    summary says, before sending, what a rejection's explanation says after
    (world.explain.running_awards)."""
    w = new_world(seed=1001)
    play_to(w, 37, "baseline")
    assert any(a.start_month <= 37 <= a.end_month for a in w.s.awards.values())
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        summary = str(app.screen.query_one("#form-summary").render())
        said = "1 award already running (overcommit: each running award lowers a new proposal's quality, so its chance"
        assert said in " ".join(summary.split())  # QA: "counts against a proposal" did not say how it weighs
        assert explain.running_awards(app.game.query, 37) in " ".join(summary.split())


async def test_the_hours_default_to_what_is_left_below_the_usual_length(tmp_path):
    """Seed 1001, month 2, after a TIF proposal that leaves 17 h: g opens on BSF-m02 (TIF's
    cool-down refuses it now) and suggests the 17 h left (not the usual 25 h, which the API
    would refuse) and says so; sent as it opens, the proposal is accepted."""
    w = new_world(seed=1001)
    api = _advance(w, 2)
    usual = w.cfg.grant_hours_ref
    api.grants.propose("TIF-rolling", "reasoning", api.lab.attention()["left"] - usual + 8)
    left = api.lab.attention()["left"]
    assert left == usual - 8
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        form = app.screen
        assert form.values["call"] == "BSF-m02"
        assert float(form.values["hours"]) == left
        hints = " ".join(str(h.render()) for h in form.query(".form-hint"))
        assert f"the usual {usual:g} h lowered to the {left:g} h left" in hints
        before = len(api.grants.proposals())
        await press(pilot, "ctrl+o", to="LabScreen")
        assert len(api.grants.proposals()) == before + 1


async def test_g_says_why_when_every_open_call_refuses_the_lab(tmp_path):
    """Seed 1001, month 10, after proposals to FEL-m09 (FEL's limit is 1) and TIF-rolling (then
    its cool-down): g opens no form and says, in the world's words, why each open call refuses."""
    w = new_world(seed=1001)
    api = _advance(w, 10)
    api.grants.propose("FEL-m09", "reasoning", 25)
    api.grants.propose("TIF-rolling", "reasoning", 25)
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", until=lambda: bool(app.toasts), what="a toast")
        assert not any(type(s).__name__ == "ActionForm" for s in app.screen_stack)
        said = app.toasts[-1][0]
        assert said.startswith("no open call takes a proposal from the lab now: ")
        for cid in ("FEL-m09", "TIF-rolling"):
            assert f"{cid}: {_refusal(w, cid)[1]}" in said  # type: ignore[index]


async def test_the_proposal_form_says_before_sending_when_the_chosen_call_would_be_refused(tmp_path):
    """QA round 2 (seed 2024): month 2, after a TIF proposal in month 1, choosing TIF-rolling in
    the form said only 'costs $500 and 25 h ...'; ctrl+o was then refused ('TIF accepts one
    proposal every 3 months ...'). The summary leads with the world's own reason for a call it
    would refuse now, and says nothing of the kind for a call it would take."""
    from pibench_tui.tui.actions import _propose_summary

    w = new_world(seed=1001)
    api = _advance(w, 2)
    api.grants.propose("TIF-rolling", "reasoning", w.cfg.grant_hours_ref)
    game = Game(w)
    reason = _refusal(w, "TIF-rolling")
    assert reason is not None and reason[0] == "wrong_month"
    tif = _propose_summary(game, {"call": "TIF-rolling", "topic": "reasoning", "hours": "25"})
    assert tif.startswith(f"TIF-rolling would be refused now: {reason[1]} · costs ")
    bsf = _propose_summary(game, {"call": "BSF-m02", "topic": "reasoning", "hours": "25"})
    assert _refusal(w, "BSF-m02") is None and "would be refused" not in bsf


async def test_a_proposal_decided_after_the_horizon_says_so_in_the_form_the_reply_and_the_toast():
    """Month 56 of seed 1001 (idle): BSF decides 5 months after a proposal, in month 61, after
    the last month, so the proposal form leads with that, the API's reply has the note (agents
    get it too) and the toast says it instead of the month; TIF (2 months, month 58) has none."""
    from pibench_tui.tui.actions import ACTIONS, _propose_summary

    w = new_world(seed=1001)
    api = _advance(w, 56)
    cfg = w.cfg
    assert world_grants.proposal_decision_month(cfg, "BSF", 56) == 61 > cfg.months
    never = explain.proposal_horizon_note(cfg, 61)
    assert never == (
        f"never decided: month 61 is after the horizon (month {cfg.months}): it can never fund the lab in this career"
    )
    game = Game(w)
    assert _propose_summary(game, {"call": "BSF-m56", "topic": "reasoning", "hours": "25"}).startswith(never + " · ")
    assert "never decided" not in _propose_summary(game, {"call": "TIF-rolling", "topic": "reasoning", "hours": "25"})
    done = next(a for a in ACTIONS if a.api == "grants.propose").done
    tif = api.grants.propose("TIF-rolling", "reasoning", 25)
    assert tif["decision_expected_month"] == 58 and "note" not in tif
    assert done(tif) == f"proposal {tif['proposal_id']} sent; decision expected in month 58"
    bsf = api.grants.propose("BSF-m56", "reasoning", 25)
    assert bsf["decision_expected_month"] == 61 and bsf["note"] == never
    assert done(bsf) == f"proposal {bsf['proposal_id']} sent; {never}"
