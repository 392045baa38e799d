"""A plot is drawn again only when its data changed: plotext draws a busy plot in ~100 ms, and
every action of a month made the Field and Ledger panels draw their unchanged plots again."""

from __future__ import annotations

import pytest

from pibench_tui.tui.widgets.plots import LinePlot
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_text


@pytest.mark.asyncio
async def test_the_budget_plot_is_drawn_again_only_when_its_data_changed():
    """After a change of the career that leaves the lab's month-end budgets as they were, the
    Ledger panel shown again redraws its table but not its budget plot (no plotext drawing; the
    plot still shows); after a month close, which adds a month-end budget, the plot is drawn
    again with the new month."""
    w = new_world()
    play_to(w, 6)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8", panel="ledger")
        await press(pilot, "1", panel="people")
        plot = app.query_one("#budget-plot", LinePlot)
        drawn: list[int] = []
        original = plot.plot_lines

        def counted():
            drawn.append(app.game.world.month)
            return original()

        plot.plot_lines = counted  # type: ignore[method-assign]
        shown = getattr(plot, "shown", None)
        app.changed()
        await press(pilot, "8", panel="ledger")
        await drain(pilot)
        assert not app.query_one("#ledger").stale, "the panel redrew"
        assert drawn == [], "the unchanged plot is not drawn again"
        assert plot.shown == shown
        assert "Budget ($k) at month end" in screen_text(app)
        await press(pilot, "1", panel="people")
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "8", panel="ledger")
        await drain(pilot)
        assert plot.shown != shown and drawn, "a new month-end budget is drawn"
        months = {x for _label, xs, _ys in plot.shown[1] for x in xs}
        assert max(months) > max(x for _label, xs, _ys in shown[1] for x in xs)


@pytest.mark.asyncio
async def test_plot_lines_are_textuals_lines_of_plotexts_text():
    """Each plot's lines, made from plotext's matrices (LinePlot.plot_lines), are exactly the
    lines Textual makes of the plot as PlotextPlot renders it (``Text.from_ansi(plt.build())``):
    the same characters, runs, colours and selection offsets, for the Ledger's budget and
    citation plots, before and after a month close, at 120 and 80 columns."""
    from rich.text import Text
    from textual.visual import Visual, visualize

    w = new_world()
    play_to(w, 6)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        checked = []
        for size in [(120, 40), (80, 24)]:
            await pilot.resize_terminal(*size)
            for month_closed in (False, True):
                if month_closed:
                    await press(pilot, "1", panel="people")
                    await close_month(pilot, app)
                    await press(pilot, "enter", to="LabScreen")
                await press(pilot, "8", panel="ledger")
                await drain(pilot)
                for plot in app.query_one("#ledger").query(LinePlot):
                    width, height = plot.size
                    assert width and height and not plot.empty
                    text = Text.from_ansi(plot.plt.build())
                    expected = Visual.to_strips(plot, visualize(plot, text), width, height, plot.visual_style)
                    got = plot.plot_lines()
                    assert [list(s) for s in got] == [list(s) for s in expected], plot.id
                    assert [s.cell_length for s in got] == [s.cell_length for s in expected]
                    checked.append(plot.id)
        assert checked.count("budget-plot") == 4 and checked.count("citations-plot") == 4
