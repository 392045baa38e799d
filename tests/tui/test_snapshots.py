"""Snapshot tests (pytest-textual-snapshot) at 80x24 and 160x50; cursor blink and animations off.

Update with ``pytest tests/tui/test_snapshots.py --snapshot-update`` after checking the pictures.
"""

from __future__ import annotations

import pytest
from world.api import Api

from .conftest import build, new_world, settle

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
    assert snap_compare(build(busy_world()), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_form(snap_compare, size):
    """The start-project form: topic, tier, member checklist, compute, OK/Cancel."""
    assert snap_compare(build(busy_world()), press=["3", "s"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_digest(snap_compare, size):
    """The digest after closing month 9: budget change, decisions with reviewer scores, news."""
    app = build(busy_world())

    async def run_before(pilot):
        await pilot.press("n", "enter")
        await settle(pilot, app)

    assert snap_compare(app, run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_end_screen(snap_compare, size):
    """The end screen of a 12-month career: Impact split, baseline result, papers, curves, reveal."""
    app = build(busy_world("short-12", 11), run_baseline=True, show_digest=False)

    async def run_before(pilot):
        await pilot.press("n", "enter")
        await settle(pilot, app)
        for _ in range(200):
            await pilot.pause(0.02)
            if getattr(app.screen, "baseline", None) is not None:
                break
        await pilot.pause()

    assert snap_compare(app, run_before=run_before, terminal_size=size)
