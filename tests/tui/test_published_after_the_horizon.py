"""QA at 80x24 (seed 1001): papers accepted near the end counted for nothing with no warning.
A conference paper is published four months after its decision (MECHANICS §7 Accept), and one
published after the horizon earns no citations and no projection (§7, §8, §12): only the
reputation impulse. The submit form says, for each venue, when an acceptance would be
published and whether that is after the horizon; the month digest says it beside an
acceptance. One rule: :func:`world.papers.publication_month`, used by the world's acceptance."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import Select

from world import explain
from world.api import Api
from world.api.cached import CachedApi
from world.config import WorldConfig
from world.papers import publication_month
from world.policies import make_policy
from world.runner import AgentView

from .conftest import build, close_month, new_world, press, screen_ready, screen_text, wait_for

LATE = "publishes month 61, after the horizon (month 60): no citations, no Impact; reputation only"


@pytest.mark.parametrize(
    "venue,decision,published",
    [
        ("NAIC", 6, 10),  # submitted month 3: next NAIC deadline 9 (3 months on) + 1
        ("NAIC", 54, 58),  # submitted month 51, within the horizon
        ("NAIC", 60, 64),  # submitted month 57: after the horizon
        ("CLAR", 57, 61),  # submitted month 54: next CLAR deadline 60 (3 on) + 1, after the horizon
        ("CLAR", 51, 55),
        ("W-SHOP", 55, 55),  # workshop and journal: the decision month
        ("JMR", 60, 60),
    ],
)
def test_publication_month_against_hand_worked_values(venue, decision, published):
    """§7: conference = decision + months to the venue's next deadline (12 if 0) + 1; workshop
    and journal = the decision month."""
    assert publication_month(WorldConfig(), venue, decision) == published


def test_publication_month_waits_a_whole_year_when_the_decision_falls_on_a_deadline():
    """A conference whose decision month is itself a deadline month (a gap of 0 counts as 12):
    CLAR with deadlines 0 and 6 and a decision in month 60 (60 mod 12 = 0) publishes 60 + 12 + 1."""
    assert publication_month(WorldConfig(), "CLAR", 60) == 73


def test_publication_note_names_the_month_and_the_horizon():
    """The words the form and the digest use: nothing for a workshop within the horizon, the
    month for a later conference publication, the consequence after the horizon, and a
    decision after the horizon as never made."""
    cfg = WorldConfig()
    assert explain.publication_note(cfg, "W-SHOP", 55) == ""
    assert explain.publication_note(cfg, "NAIC", 54) == "publishes month 58"
    assert explain.publication_note(cfg, "CLAR", 57) == LATE
    assert explain.publication_note(cfg, "JMR", 61) == "never decided: month 61 is after the horizon (month 60)"


def _late_world(month: int):
    """Seed 1001, the baseline policy until month 40, then months closed with no action until
    ``month``: draft D003 is available (CLAR open in months 48 and 54)."""
    w = new_world()
    api = CachedApi(Api(w))
    view, policy = AgentView(api), make_policy("baseline")
    while w.s.month < month:
        m = w.s.month
        if m < 40:
            policy.act(view)
        if w.s.month == m:
            api.next_month_unread()
    assert [d["id"] for d in Api(w).lab.dashboard()["available_drafts"]] == ["D003"]
    return w


async def _open_submit_form(pilot) -> None:
    """In a running app: the Papers panel (``4``), the submit form (``b``), its venue field focused."""
    await press(pilot, "4", panel="papers")
    await press(pilot, "b", to="ActionForm")
    await press(pilot, "tab", focus="field-1")


async def _choose(pilot, app, venue: str) -> str:
    """Pick ``venue`` in the submit form's venue list as a player does (space opens the list,
    down, enter picks), then the form's summary as plain text."""
    choice = app.screen.query_one("#field-1", Select)
    order = [v for _, v in choice._options]
    for _ in range(len(order)):
        if choice.value == venue:
            break
        step = "down" if order.index(venue) > order.index(choice.value) else "up"  # the default may be any of them
        await press(pilot, "space", until=lambda: choice.expanded, what="the venue list open")
        await press(pilot, step, "enter", until=lambda: not choice.expanded, what="the venue list closed")
    assert choice.value == venue
    return " ".join(str(app.screen.query_one("#form-summary").render()).split())


@pytest.mark.asyncio
async def test_the_submit_form_says_a_conference_paper_would_be_published_after_the_horizon(tmp_path):
    """Month 54 at 80x24: CLAR (decision 57) would publish in month 61, after the horizon: its
    option says both months and that 61 is after the last month, on one line (QA: it said
    "published 61, after the horizon" and dropped the decision month), and the summary says
    what that costs, and so does the toast once it is sent (the API's note); W-SHOP (decision
    and publication 55) says neither; JMR (decision 61) is never decided."""
    w = _late_world(54)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_submit_form(pilot)
        labels = {v: label for label, v in app.screen.query_one("#field-1", Select)._options if isinstance(v, str)}
        assert labels == {
            "CLAR": "CLAR (mid conference): decision 57, published 61, after 60",
            "W-SHOP": "W-SHOP (workshop): decision 55, published 55",
            "JMR": "JMR (journal): decision 61, after the horizon",
        }
        for venue in ("CLAR", "W-SHOP", "JMR"):
            summary = await _choose(pilot, app, venue)
            assert labels[venue] in screen_text(app), f"the {venue} option is cut at 80 columns"
            if venue == "CLAR":
                assert f"decision at the end of month 57; if accepted, {LATE}" in summary, summary
            elif venue == "W-SHOP":
                assert "decision at the end of month 55" in summary and "horizon" not in summary, summary
            else:
                assert "never decided: month 61 is after the horizon (month 60)" in summary, summary
            assert summary in _shown(app, "#form-summary"), f"the {venue} summary is cut at 80x24"
        await press(pilot, "escape", to="LabScreen")
        await _open_submit_form(pilot)
        await _choose(pilot, app, "CLAR")
        await press(pilot, "ctrl+o", to="LabScreen")  # sent: the toast says what the horizon does
        toast = next(str(n.message) for n in app._notifications if str(n.message).startswith("submitted as"))
        assert toast.endswith(f"; if accepted, {LATE}"), toast


def _shown(app, selector: str) -> str:
    """What the screen shows in the region of the widget ``selector``, its lines joined by spaces."""
    r = app.screen.query_one(selector).region
    rows = screen_text(app).splitlines()[r.y : r.bottom]
    return " ".join(" ".join(row[r.x : r.right] for row in rows).split())


def _digest(app) -> str:
    return Text.from_markup(app.screen._body()).plain


@pytest.mark.asyncio
async def test_the_digest_says_when_an_accepted_paper_is_published(tmp_path):
    """D003 sent to CLAR in month 48 is accepted in month 51 and publishes in month 55 (the
    digest says the month); sent in month 54 it is accepted in month 57 and publishes in month
    61, after the horizon (the digest says it earns nothing)."""
    for month, decided, words in (
        (48, 51, "publishes month 55"),
        (54, 57, "publishes month 61, after the horizon (month 60): no citations"),
    ):
        w = _late_world(month)
        Api(w).papers.submit("D003", "CLAR")
        app = build(w, tmp_path=tmp_path / str(month))
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(decided - month + 1):  # the decision is made at the tick closing month `decided`
                await close_month(pilot, app)
                await wait_for(pilot, lambda a=app: screen_ready(a, "DigestScreen"), "the digest")
                if w.s.month <= decided:
                    await press(pilot, "enter", to="LabScreen")
            text = _digest(app)
            line = next(ln for ln in text.splitlines() if "D003 at CLAR" in ln)
            assert line.strip().startswith("accepted") and words in line, line
            assert "after the horizon" in line if decided == 57 else "horizon" not in line


@pytest.mark.asyncio
async def test_the_end_screen_names_the_papers_published_after_the_horizon(tmp_path):
    """QA: the end screen counted '15 publications' and left five accepted papers out with no
    word. D003 sent to CLAR in month 54 (accepted in 57, published in 61): at the end, at
    80x24, the summary says it publishes after the end and earns nothing, whole on screen."""
    w = _late_world(54)
    Api(w).papers.submit("D003", "CLAR")
    api = Api(w)
    for _ in range(5):  # months 54-58 closed; the app closes 59 and 60
        api.time.next_month()
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2):
            await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "EndScreen"), "the end screen")
        said = (
            "1 accepted paper publishes after the end (month 60): D003 at CLAR in month 61 — no citations, "
            "no Impact; its acceptance raised reputation only."
        )
        assert said in " ".join(str(app.screen.query_one("#end-impact").render()).split())
        assert said in _shown(app, "#end-impact"), "cut at 80x24"
