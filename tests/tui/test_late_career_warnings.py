"""QA at 80x24: in month 60 the header still urged "renew a postdoc (contract ends month 63)"
and "start projects for idle people", which can no longer count. Near the horizon a warning
is left out when the action it urges provably cannot change Impact or the career's record
(README design notes, "Late-career warnings"): a renewal of a contract that ends after the
last month, a venue deadline or grant call whose decision would come after it, projects for
idle people (and a collaboration) whose draft could not be decided by it. Warnings whose
action still counts stay (runway, moods, billed projects, expiring review requests)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rich.text import Text

from pibench_tui.tui.alerts import alerts, contract_alerts
from pibench_tui.tui.game import Game
from pibench_tui.tui.record import after_the_end
from world.api import Api
from world.config import WorldConfig
from world.papers import last_useful_draft_month

from .conftest import build, close_month, new_world, press, screen_ready, wait_for
from .test_published_after_the_horizon import _late_world


def test_the_last_useful_draft_month():
    """A draft made at the tick of month 58 is submitted to W-SHOP in 59 and decided in 60;
    one made at 59 could only be decided in 61: 60 − 1 − 1 = 58; a 30-month career: 28."""
    assert last_useful_draft_month(WorldConfig()) == 58
    assert last_useful_draft_month(WorldConfig(months=30)) == 28


def test_a_contract_ending_after_the_last_month_asks_for_no_renewal():
    """Month 58: a postdoc whose contract ends in month 60 (the last tick) is warned about; one
    ending in month 61 outlasts the career, renewing it changes nothing: no warning."""
    game = Game(_late_world(58))
    dash = game.dashboard()
    postdoc = {"id": "PD001", "name": "Ana Li", "role": "postdoc"}
    for end, warned in ((60, True), (61, False)):
        dash = {**dash, "students": [{**postdoc, "contract_end": end}]}
        assert bool(contract_alerts(game, dash)) is warned, end


def test_a_collaboration_whose_draft_comes_too_late_to_be_decided_cannot_pay_off():
    """Accepted in month 56 its draft arrives at the tick of 59: available in 60, decided
    after the horizon at the earliest; accepted in 55 (draft at 58) it can still count."""
    game = SimpleNamespace(
        rules={"horizon_months": 60, "collaboration": {"months": 3}}, world=SimpleNamespace(cfg=WorldConfig())
    )
    assert "month 59, too late to be decided by the career's last month (60)" in after_the_end(
        game, "collaboration_offer", 57, 56
    )
    assert after_the_end(game, "collaboration_offer", 56, 55) == ""


def _warnings(app) -> str:
    """The digest's "Warnings for month N" section, as plain text."""
    text = Text.from_markup(app.screen._body()).plain
    section = text.split("Warnings for month", 1)[1] if "Warnings for month" in text else ""
    return section.split("\n\n", 1)[0]


@pytest.mark.asyncio
async def test_late_warnings_urge_nothing_that_can_no_longer_count(tmp_path):
    """Seed 1001, the baseline until month 40 then idle (S004 and S005 on no project): in month
    56 the NAIC deadline warning says an acceptance would publish after the horizon; the BSF
    call closing in month 57 (decided in 62) is not urged; the idle warning shows for month 58
    and not for 59 or 60, nor the CLAR deadline of month 60 (decided in 63); the billed
    projects with no member stay (stopping them still saves money)."""
    w = _late_world(56)
    game = Game(w)
    naic = [a.text for a in alerts(game) if a.kind == "deadline"]
    assert len(naic) == 1 and "publishes month 64, after the horizon (month 60)" in naic[0], naic
    app = build(w, tmp_path=tmp_path)
    seen = {}
    async with app.run_test(size=(120, 40)) as pilot:
        for month in (57, 58, 59, 60):
            await close_month(pilot, app)
            await wait_for(pilot, lambda a=app: screen_ready(a, "DigestScreen"), "the digest")
            seen[month] = _warnings(app)
            await press(pilot, "enter", to="LabScreen")
    assert "BSF call" not in seen[57] and "On no project" in seen[57], seen[57]
    assert "On no project (paid, producing nothing): S004, S005" in seen[58], seen[58]
    for month in (59, 60):
        assert "On no project" not in seen[month] and "deadline" not in seen[month], seen[month]
        assert "PJ002" in seen[month], seen[month]


def test_the_standing_warning_names_only_steps_that_can_still_be_decided_and_none_in_the_last_month():
    """QA play: in month 60 the header still said "standing unknown: largest steps up: a NAIC
    acceptance or a grant from FEL", which can no longer count. A lab that does nothing stays
    at "unknown"; in its last months the warning names the largest steps whose decision, for a
    submission or a proposal made in the month now open, comes by the last month (§7 the
    venue's delay, §9 the agency's): month 56 still NAIC and FEL (decided in 59 and 60), 57
    NAIC and TIF (FEL would decide in 61), 59 only a W-SHOP acceptance (decided in 60); in month
    60 nothing made now can be decided in the career: no standing warning."""
    w = new_world()
    api, game = Api(w), Game(w)
    while w.month < 56:
        api.time.next_month()
    cfg = w.cfg

    def standing() -> str:
        return next((a.text for a in alerts(game) if a.kind == "standing"), "")

    assert f"a NAIC acceptance (+{cfg.venues['NAIC']['reputation']:.2f})" in standing(), standing()
    assert f"a grant from FEL (+{cfg.agencies['FEL']['reputation']:.2f})" in standing(), standing()
    api.time.next_month()
    assert "a NAIC acceptance" in standing() and "a grant from TIF" in standing(), standing()
    api.time.next_month()
    api.time.next_month()
    assert w.month == 59
    text = standing()
    assert "a W-SHOP acceptance" in text and "grant" not in text.split("largest steps up")[1], text
    api.time.next_month()
    assert w.month == 60 and standing() == ""
    assert "standing" not in {a.kind for a in alerts(game)}
