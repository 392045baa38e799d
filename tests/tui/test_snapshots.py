"""Snapshot tests (pytest-textual-snapshot) at 80x24 and 160x50; cursor blink and animations off.

Each picture is taken once the app has settled (``run_before``: the screen awaited by name,
then :func:`~tests.tui.conftest.drain`), not after Textual's CPU-idle guess alone.

Update with ``pytest tests/tui/test_snapshots.py --snapshot-update`` after checking the pictures.
"""

from __future__ import annotations

import pytest

from world.api import Api

from .conftest import build, close_month, drain, new_world, press, screen_ready, wait_for

SIZES = [(80, 24), (160, 50)]


def busy_world(scenario: str = "standard", months: int = 8):
    """Two RAs on a project, mentoring set, advanced ``months`` months through the API."""
    w = new_world(scenario)
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.projects.start("reasoning", 1, ["RA001", "RA002"], 1500)
    api.students.set_mentoring({"RA001": 3, "RA002": 3})
    for _ in range(months):
        api.time.next_month()
        d = api.lab.dashboard()
        if d["available_drafts"] and not d["venue_deadlines_this_month"]:
            api.papers.submit(d["available_drafts"][0]["id"], "W-SHOP")
        if not d["active_projects"] and not api.lab.dashboard()["finished"]:
            api.projects.start("ai4science", 1, ["RA001", "RA002"], 1500)
    return w


@pytest.mark.parametrize("size", SIZES)
def test_main_screen(snap_compare, size):
    """The Lab panel at month 9: header with month/calendar/budget/runway/attention/standing/citations,
    the people table with two RAs, tabs and the footer with the fixed keys."""
    assert snap_compare(build(busy_world()), run_before=drain, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_form(snap_compare, size):
    """The start-project form: topic, tier, member checklist, compute, OK/Cancel."""

    async def run_before(pilot):
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")

    assert snap_compare(build(busy_world()), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_digest(snap_compare, size):
    """The digest after closing month 9: budget change, decisions with reviewer scores, news."""
    app = build(busy_world())

    async def run_before(pilot):
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")

    assert snap_compare(app, run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_end_screen(snap_compare, size):
    """The end screen of a 12-month career: Impact split, baseline result, papers, curves, reveal."""
    app = build(busy_world("short-12", 11), run_baseline=True, show_digest=False)

    async def run_before(pilot):
        await close_month(pilot, app)
        await wait_for(
            pilot,
            lambda: screen_ready(app, "EndScreen") and getattr(app.screen, "baseline", None) is not None,
            "the end screen with the baseline's result",
        )

    assert snap_compare(app, run_before=run_before, terminal_size=size)


def test_header_80x24_month_15(snap_compare):
    """80×24 at month 15 (recruiting, NAIC deadline, two calls closing): the first line keeps month,
    budget, runway and attention; the calendar on the second; the warnings in colour on the third;
    numbered tabs; the cut-off columns named."""
    assert snap_compare(build(busy_world(months=14)), run_before=drain, terminal_size=(80, 24))


def test_digest_with_a_rejection_and_its_context(snap_compare):
    """The digest of a month with a rejection: reviewer scores with their mean, the lab's record
    at that venue underneath, and the warnings for the new month."""
    app = build(busy_world(months=14))  # month 15 closes with SUB003 rejected at W-SHOP

    async def run_before(pilot):
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")

    assert snap_compare(app, run_before=run_before, terminal_size=(100, 34))


def test_replay_viewer(snap_compare, tmp_path):
    """The replay viewer on a run directory at month 5: the REPLAY banner with the month, the
    panels as the PI saw them, the viewer's keys in the footer."""
    from pibench_tui.tui.replay_app import make_replay_app

    from .rundir import write_run_dir

    app = make_replay_app(str(write_run_dir(tmp_path, months=8)), test_mode=True)

    async def run_before(pilot):
        await press(pilot, "right", "right", "right", "right", until=lambda: app.replayer.month == 5, what="month 5")
        await press(pilot, "3", panel="projects")

    assert snap_compare(app, run_before=run_before, terminal_size=(100, 30))


@pytest.mark.parametrize(("key", "panel"), [("6", "field"), ("8", "ledger")])
def test_plot_panel_after_a_month(snap_compare, key, panel):
    """The Field and Ledger panels drawn once, then shown again after a month closed: the news
    and the ledger's new entries on top of the older ones, the Field's preprint table (one row a
    topic, its sparkline's last block the new month's count, the months and scale in its title)
    and the Ledger's plots with the new month (the panels update their tables and redraw their
    plots from what they drew before)."""
    app = build(busy_world(months=14))

    async def run_before(pilot):
        await press(pilot, key, panel=panel)
        await press(pilot, "1", panel="people")
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, key, panel=panel)

    assert snap_compare(app, run_before=run_before, terminal_size=(120, 40))
