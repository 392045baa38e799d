"""QA at 80x24 on seed 1001 (issue 27): the Grants panel and the calendar listed calls the lab
may not apply to with no mark; the runway warning urged a proposal when every open call
refused the lab; the standing warning was a 500-character toast; an orphaned project in
months 59-60 still said "assign someone". Each is checked against the world's own rules:
``world.grants.call_refusal``, the published call months, ``last_useful_draft_month``."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static
from textual.widgets._toast import Toast

from pibench_tui.tui.alerts import Alert, alerts, late_agencies, runway_alerts
from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.digest import _warning_rows
from pibench_tui.tui.widgets.header import calendar_label
from pibench_tui.tui.widgets.panel import hidden_columns
from world import explain
from world import grants as world_grants
from world.api import Api
from world.engine import World

from .conftest import build, close_month, drain, new_world, press, screen_ready, screen_text, wait_for
from .test_at_80x24 import shown_lines
from .test_late_career_warnings import _warnings
from .test_published_after_the_horizon import _late_world


def _refused_world() -> World:
    """Seed 1001, month 6: proposals to AMP-m05 (AMP allows one at once) and to TIF (one every
    few months) sent in month 5, so both calls open in month 6 refuse the lab."""
    w = new_world(seed=1001)
    api = Api(w)
    while w.month < 5:
        api.time.next_month()
    api.grants.propose("AMP-m05", "reasoning", 25)
    api.grants.propose("TIF-rolling", "reasoning", 25)
    api.time.next_month()
    assert world_grants.call_refusal(w, "AMP-m05") and world_grants.call_refusal(w, "TIF-rolling")
    return w


def _cells(table: DataTable) -> list[list[str]]:
    return [[str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(i)] for i in range(table.row_count)]


@pytest.mark.asyncio
async def test_calls_the_lab_may_not_apply_to_are_marked_with_the_worlds_reason(tmp_path):
    """Month 6 at 80x24: the Open calls table says "no" for AMP-m05 and TIF-rolling and the
    note under it gives the world's reason for each; the calendar says the lab can't apply to
    AMP's call (TIF is rolling: never in the calendar)."""
    w = _refused_world()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        calendar = str(app.query_one("#header").render()).split("\n")[1]
        assert "calls AMP (can't apply)" in calendar, calendar
        await press(pilot, "5", panel="grants")
        rows = {r[0]: r for r in _cells(app.query_one("#calls-table", DataTable))}
        assert rows["AMP-m05"][-1] == rows["TIF-rolling"][-1] == "no, see below", rows
        table = app.query_one("#calls-table", DataTable)  # QA: "no: below" read as a cut word at 80 columns
        assert hidden_columns(table) == []
        for cid in ("AMP-m05", "TIF-rolling"):
            line = next(ln for ln in shown_lines(table) if ln.lstrip().startswith(cid))
            assert line.rstrip().endswith(" no, see below"), line
        note = str(app.query_one("#calls-refused", Static).render())
        for cid in ("AMP-m05", "TIF-rolling"):
            assert f"You may not apply to {cid}: {world_grants.call_refusal(w, cid)}." in note, note


def test_the_calendar_names_apart_an_agency_the_lab_may_not_apply_to():
    """BSF open to the lab, AMP not: ``calls AMP (BSF...)`` never, ``calls BSF (AMP: can't apply)``."""
    dash = {
        "label": "February",
        "notes": [],
        "venue_deadlines_this_month": [],
        "open_grant_calls": [{"agency": "AMP", "id": "AMP-m14"}, {"agency": "BSF", "id": "BSF-m14"}],
    }
    assert calendar_label(dash, set(), short=True) == "February · calls AMP/BSF"
    assert calendar_label(dash, set(), short=True, refused={"AMP"}) == "February · calls BSF (AMP: can't apply)"
    assert calendar_label(dash, set(), refused={"AMP"}) == "February · calls: BSF (AMP: you may not apply)"


def test_the_runway_warning_does_not_urge_a_proposal_no_call_accepts():
    """Month 6 with every open call refusing the lab and a runway shorter than the months left:
    the warning says no open call takes a proposal, points at cutting costs (X, once an RA is
    hired and a project is billed compute) and names the next call month of the rules (BSF in
    month 8); with a call the lab may apply to (month 8) it urges a proposal (g)."""
    w = _refused_world()
    game = Game(w)
    api = Api(w)
    ra = api.recruit.hire_ra()["staff_id"]
    api.projects.start("reasoning", 1, [ra], 1000)
    dash = {**game.dashboard(), "runway_months": 10.0}
    (alert,) = runway_alerts(game, dash)
    assert "Write a proposal" not in alert.text and alert.key == "X", alert
    assert "No open call takes a proposal from the lab this month" in alert.text
    assert "cut costs (dismiss staff X, lower compute c); the next call opens in month 8 (BSF)." in alert.text
    while w.month < 8:
        api.time.next_month()
    (alert,) = runway_alerts(game, {**game.dashboard(), "runway_months": 10.0})
    assert "Write a proposal (5 Grants, g) or cut costs (dismiss staff X, lower compute c)." in alert.text
    assert alert.key == "g"


@pytest.mark.asyncio
async def test_the_runway_warning_names_dismissing_staff_only_with_staff_to_dismiss(tmp_path):
    """QA (issue 27): with no RA or lab manager the header said "runway … [X]" and the digest
    "cut costs (dismiss staff X…)", but X answers "the lab has no RA or lab manager". Month 6,
    no staff, no compute, no call taking a proposal: the warning names no cut and no key (the
    header shows no [X]); with a project billed compute and only an RA already leaving it names
    only lowering compute (c); in month 8 (a call open to the lab) the proposal (g) and that."""
    w = _refused_world()
    game = Game(w)
    assert not game.dashboard()["staff"]
    (alert,) = runway_alerts(game, {**game.dashboard(), "runway_months": 10.0})
    assert "dismiss staff" not in alert.text and "cut costs" not in alert.text and alert.key == "", alert
    assert "the lab has no RA or manager to dismiss and no compute billed" in alert.text
    assert _warning_rows(game, [alert])[0].endswith("(panel 5)[/]")  # the digest names no key either
    app = build(w, tmp_path=tmp_path, show_digest=False)
    app.game.dashboard = lambda d=app.game.dashboard: {**d(), "runway_months": 10.0}  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        line = next(x for x in str(screen_text(app)).splitlines() if "runway 10 <" in x)
        assert "runway 10 < 55 mo left" in line and "[X]" not in line, line
    api = Api(w)
    ra = api.recruit.hire_ra()["staff_id"]
    api.projects.start("reasoning", 1, [ra], 1000)
    api.recruit.dismiss(ra)  # leaving at the month's end: X can no longer act on them
    (alert,) = runway_alerts(game, {**game.dashboard(), "runway_months": 10.0})
    assert "cut costs (lower compute c);" in alert.text and "dismiss staff" not in alert.text and alert.key == "c"
    while w.month < 8:
        api.time.next_month()
    (alert,) = runway_alerts(game, {**game.dashboard(), "runway_months": 10.0})
    assert "Write a proposal (5 Grants, g) or cut costs (lower compute c)." in alert.text, alert.text
    assert "dismiss staff" not in alert.text and alert.key == "g"


def _standing(game: Game) -> Alert:
    return next(a for a in alerts(game) if a.kind == "standing")


@pytest.mark.asyncio
async def test_the_standing_warning_is_short_and_its_full_text_stays_in_the_digest(tmp_path):
    """After STANDING_STUCK_MONTHS at "unknown": the warning (header, toast) says what the level
    means, the largest steps and where to read more, in at most 4 rows of a 60-column toast;
    the first month's digest and lab.explain keep the full text (the lab's record). At 80x24,
    ``!`` shows it whole in a toast."""
    w = new_world()
    api = Api(w)
    game = Game(w)
    for _ in range(explain.STANDING_STUCK_MONTHS):
        api.time.next_month()
    alert = _standing(game)
    naic = w.cfg.venues["NAIC"]["reputation"]
    assert alert.text.startswith("Standing unknown (the lowest) for 24 months")
    assert f"a NAIC acceptance (+{naic:.2f})" in alert.text
    assert "more: the digest (d) or lab.explain('standing')" in alert.text
    full = api.lab.explain("standing")
    assert alert.digest == full[0].upper() + full[1:] + "." and "0 papers accepted" in alert.digest
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await drain(pilot)
        index = [a.kind for a in alerts(app.game)].index("standing")

        def shown() -> list[str]:
            for toast in app.screen.query(Toast):
                lines = [strip.text.strip(" ▌") for strip in toast.render_lines(toast.region.reset_offset)]
                if " ".join(lines[1:]).split() == alert.text.split():
                    return lines
            return []

        for _ in range(index + 1):
            await press(pilot, "exclamation_mark")
        await wait_for(pilot, lambda: bool(shown()), "the standing toast")
        assert len(shown()) <= 6, shown()  # its title and at most 5 lines (main: 11 rows)


@pytest.mark.asyncio
async def test_a_project_with_no_member_after_the_last_useful_month_asks_only_to_stop_it(tmp_path):
    """Seed 1001, the baseline until month 40 then idle: PJ002 has no member. Month 58's digest
    says assign someone (a) or stop it (k); months 59 and 60 say stop it (k) to save the bill,
    no longer assign (a draft could not count: world.papers.last_useful_draft_month)."""
    w = _late_world(57)
    app = build(w, tmp_path=tmp_path)
    seen = {}
    async with app.run_test(size=(80, 24)) as pilot:
        for month in (58, 59, 60):
            await close_month(pilot, app)
            await wait_for(pilot, lambda a=app: screen_ready(a, "DigestScreen"), "the digest")
            seen[month] = next(line for line in _warnings(app).splitlines() if "PJ002" in line)
            await press(pilot, "enter", to="LabScreen")
    assert "assign someone (a) or stop it (k)" in seen[58] and "key a)" in seen[58], seen[58]
    for month in (59, 60):
        text = seen[month]
        assert "assign" not in text and "stop it (k) to save the bill" in text and "key k)" in text, text


def test_the_calendar_names_calls_decided_after_the_horizon_too_late():
    """QA (months 56-57): header line 2 said "calls BSF" while a BSF proposal written then is
    decided after the last month (it can never fund the lab). An agency whose proposal would be
    decided too late is named apart, as a refused one is: with the lab's other calls, alone, and
    beside a refused agency."""
    dash = {
        "label": "Y5M8",
        "finished": False,
        "collapsed": False,
        "notes": [],
        "venue_deadlines_this_month": [],
        "open_grant_calls": [{"agency": "AMP"}, {"agency": "BSF"}, {"agency": "FEL"}],
    }
    assert calendar_label(dash, set(), short=True, late_calls={"BSF"}) == "Y5M8 · calls AMP/FEL (BSF: too late)"
    assert (
        calendar_label(dash, set(), late_calls={"BSF"})
        == "Y5M8 · calls: AMP/FEL (BSF: too late, decided after the horizon)"
    )
    only = {**dash, "open_grant_calls": [{"agency": "BSF"}]}
    assert calendar_label(only, set(), short=True, late_calls={"BSF"}) == "Y5M8 · calls BSF (too late)"
    assert (
        calendar_label(dash, set(), short=True, refused={"AMP"}, late_calls={"BSF"})
        == "Y5M8 · calls FEL (AMP: can't apply) (BSF: too late)"
    )
    assert calendar_label(dash, set(), short=True, refused={"AMP", "FEL"}, late_calls={"BSF"}) == (
        "Y5M8 · calls AMP/FEL (can't apply) (BSF: too late)"
    )


@pytest.mark.asyncio
async def test_in_month_56_the_header_marks_bsf_too_late():
    """Seed 1001, month 56: BSF-m56 is open but decided in month 61, after the last month 60
    (``world.grants.proposal_decision_month``); TIF is rolling (never in the calendar). The
    header's calendar said "calls: BSF"; it names BSF too late."""
    w = _late_world(56)
    dash = Api(w).lab.dashboard()
    assert {c["agency"] for c in dash["open_grant_calls"]} >= {"BSF", "TIF"}
    app = build(w)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_ready(app, "LabScreen"), "the lab")
        assert late_agencies(app.game, dash) == frozenset({"BSF"})
        calendar = str(app.query_one("#header").render()).split("\n")[1]
        assert "calls: BSF (too late, decided after the horizon)" in calendar, calendar
