"""The tab bar and the key line keep the lines they drew for each panel (KeptLines): a panel
shown again draws them from those lines, exactly as drawn afresh, and a new theme, the mouse
over a key or a new width draws them afresh."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from pibench_tui.tui.widgets.footer import KeyLine
from pibench_tui.tui.widgets.kept_lines import KeptLines
from pibench_tui.tui.widgets.tab_bar import TabBar
from tests.careers import play_to

from .conftest import build, drain, new_world, press

pytestmark = pytest.mark.asyncio


def _drawn(bar: KeptLines) -> list:
    """The bar's lines as it draws them now (from kept lines if it has them)."""
    return bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))


def _afresh(bar: KeptLines) -> list:
    """The bar's lines drawn afresh (no kept line, every cache of the widget emptied)."""
    bar._kept.clear()
    bar._set_dirty()
    return _drawn(bar)


async def _grants_again(app, pilot) -> tuple[list, list]:
    """Show the Grants panel, the Lab, the Grants panel again; the bars' lines then."""
    await press(pilot, "5", panel="grants")
    await press(pilot, "1", panel="people")
    await press(pilot, "5", panel="grants")
    await drain(pilot)
    return _drawn(app.query_one(TabBar)), _drawn(app.query_one(KeyLine))


async def test_a_panel_shown_again_draws_both_bars_from_kept_lines_exactly_as_afresh():
    """Shown again (after the Projects panel, shown for the first time), the Grants panel's tab
    bar and key line are not drawn afresh (neither bar's render runs) but the key line counts
    as drawn once; the lines are those drawn afresh, and the keys the key line places (where a
    click lands) are the Grants panel's again."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await _grants_again(app, pilot)
        await press(pilot, "3", panel="projects")  # its keys drawn afresh: the last placed
        await drain(pilot)
        tabs, footer = app.query_one(TabBar), app.query_one(KeyLine)
        assert "g" not in [k.key for k in footer.keys]
        rendered: list[str] = []
        with pytest.MonkeyPatch.context() as patch:
            for cls in (TabBar, KeyLine):
                render = cls.render
                patch.setattr(
                    cls, "render", lambda self, render=render: (rendered.append(type(self).__name__), render(self))[1]
                )
            before = footer.renders
            await press(pilot, "5", panel="grants")
            await drain(pilot)
            assert rendered == [], "both bars drawn from the lines kept for the Grants panel"
            assert footer.renders == before + 1
            assert "g" in [k.key for k in footer.keys], "the keys placed are the Grants panel's"
            kept_tabs, kept_footer = _drawn(tabs), _drawn(footer)
            placed = footer.keys
            assert kept_tabs == _afresh(tabs) and kept_footer == _afresh(footer), "exactly the lines drawn afresh"
            assert footer.keys == placed


async def test_a_new_theme_the_mouse_over_a_key_and_a_new_width_draw_the_bars_afresh():
    """After the switches, a new theme draws both bars afresh in its colours (the kept lines are
    forgotten at the restyle); the mouse over a key draws the key line with that key
    highlighted, and off it as before; a narrower terminal draws both bars for their width."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        tabs_before, footer_before = await _grants_again(app, pilot)
        tabs, footer = app.query_one(TabBar), app.query_one(KeyLine)
        app.theme = "textual-light"
        await drain(pilot)
        tabs_light, footer_light = _drawn(tabs), _drawn(footer)
        assert tabs_light != tabs_before and footer_light != footer_before, "the new theme's colours"
        assert tabs_light == _afresh(tabs) and footer_light == _afresh(footer)
        await pilot.hover(KeyLine, offset=(1, 0))
        await drain(pilot)
        hovered = _drawn(footer)
        assert footer._hover is not None and hovered != footer_light, "the key under the mouse highlighted"
        assert hovered == _afresh(footer)
        await pilot.hover(TabBar, offset=(1, 0))
        await drain(pilot)
        assert footer._hover is None and _drawn(footer) == footer_light
        await pilot.resize_terminal(100, 40)
        await drain(pilot)
        assert tabs.size.width == footer.size.width == 100
        narrow_tabs, narrow_footer = _drawn(tabs), _drawn(footer)
        assert narrow_tabs == _afresh(tabs) and narrow_footer == _afresh(footer), "drawn for the new width"
        assert narrow_tabs[0].cell_length == narrow_footer[0].cell_length == 100


async def test_text_selected_in_the_tab_bar_is_drawn_highlighted_and_unselected_as_before():
    """Text the player selects in the tab bar (a mouse drag over it) is drawn highlighted, as
    afresh, though the panel shown did not change; cleared, the line is drawn as before."""
    from textual.geometry import Offset
    from textual.selection import Selection

    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        before, _ = await _grants_again(app, pilot)
        tabs = app.query_one(TabBar)
        app.screen.selections = {tabs: Selection(Offset(0, 0), Offset(8, 0))}
        await drain(pilot)
        selected = _drawn(tabs)
        assert selected != before, "the selected text highlighted"
        assert selected == _afresh(tabs)
        app.screen.selections = {}
        await drain(pilot)
        assert _drawn(tabs) == before


async def test_a_change_of_colour_filters_draws_the_bars_afresh():
    """The app's colour filters (ANSI colours to true colour, on or off with ``ansi_color``) are
    applied to the lines drawn: when they change, the next draw of a bar is afresh (its render
    runs), not the lines kept through the other filters."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await _grants_again(app, pilot)
        tabs = app.query_one(TabBar)
        rendered: list[str] = []
        with pytest.MonkeyPatch.context() as patch:
            render = TabBar.render
            patch.setattr(TabBar, "render", lambda self: (rendered.append("tabs"), render(self))[1])
            before = [type(f).__name__ for f in app.get_line_filters()]
            app.ansi_color = not app.ansi_color
            tabs.refresh()
            await drain(pilot)
            assert [type(f).__name__ for f in app.get_line_filters()] != before, "the filters changed"
            assert rendered, "drawn afresh through the new filters"
