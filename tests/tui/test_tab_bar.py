"""The tab bar and the panels under it: keys 1-9 and a click on a title show that panel and
only it, the bar marks the shown one, and a panel's action keys work on their panel only."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from pibench_tui.tui.lab_app import TABS
from pibench_tui.tui.widgets.panel import Panel

from .conftest import build, drain, new_world, press

pytestmark = pytest.mark.asyncio


def bar_text(app) -> tuple[str, str]:
    """The bar's line as drawn, and the text drawn with the active title's style."""
    bar = app.tabs
    (strip,) = bar.render_lines(Region(0, 0, bar.size.width, 1))
    active = bar.get_component_rich_style("tab-bar--active")
    marked = "".join(seg.text for seg in strip if seg.style is not None and seg.style.bgcolor == active.bgcolor)
    return strip.text, marked.strip()


async def test_each_number_key_shows_its_panel_and_only_it_and_the_bar_marks_it():
    """Keys 1-9 in turn: only that panel is displayed, the bar draws exactly its title in the
    active style, and the focus is inside that panel (its keys reach it)."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        for i, (tab, title) in enumerate(TABS):
            await press(pilot, str(i + 1), panel=tab)
            shown = [p.id for p in app.query(Panel) if p.display]
            assert shown == [tab], (tab, shown)
            assert app.tabs.active == tab
            line, marked = bar_text(app)
            assert marked == title, (line, marked)
            assert app.focused is not None and any(n.id == tab for n in app.focused.ancestors_with_self)


async def test_a_click_on_a_title_shows_that_panel():
    """A click on "4 Papers" in the drawn bar shows the Papers panel, only it, and marks its title."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        line, _ = bar_text(app)
        x = line.index("4 Papers")
        await pilot.click("#tabs", offset=(x + 2, 0))
        await drain(pilot)
        assert app.tabs.active == "papers"
        assert [p.id for p in app.query(Panel) if p.display] == ["papers"]
        assert bar_text(app)[1] == "4 Papers"


async def test_a_panels_action_key_does_nothing_on_another_panel():
    """R (hire an RA, the Lab panel's key) opens its form on the Lab panel, not on Grants."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")
        await pilot.press("R")
        await drain(pilot)
        assert type(app.screen).__name__ == "LabScreen" and app.tabs.active == "grants"
        await press(pilot, "1", panel="people")
        await pilot.press("R")
        await drain(pilot)
        assert type(app.screen).__name__ != "LabScreen"
