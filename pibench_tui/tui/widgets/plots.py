"""Line plots (textual-plotext) fed with series from the API."""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot


def month_ticks(lo: int, hi: int, most: int = 8) -> list[int]:
    """Whole-month ticks from ``lo`` to ``hi`` (at most ``most`` of them, on a round step).

    Args:
        lo, hi: first and last month shown.
        most: the largest number of ticks.

    Returns:
        Increasing integer months; ``[lo]`` when ``lo == hi``.
    """
    if hi <= lo:
        return [lo]
    span = hi - lo
    step = next((s for s in (1, 2, 3, 4, 6, 12, 24, 36, 60, 120) if span / s <= most - 1), math.ceil(span / (most - 1)))
    first = math.ceil(lo / step) * step
    return list(range(first, hi + 1, step))


class LinePlot(PlotextPlot):
    """A titled line plot of one or more series over months.

    Months sit on whole-number ticks; with no data it shows the title and "no data yet"
    instead of an empty set of axes. Shown the very data it shows, it keeps its drawing
    (plotext draws a busy plot in ~100 ms CPU: every action of a month made the Field and
    Ledger panels draw their unchanged plots again when next shown).
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = ""
        self.empty = True
        self.empty_note = "no data yet"
        self.shown: tuple | None = None  # what show() was last given

    def show(
        self,
        title: str,
        series: dict[str, tuple[list, list]],
        *,
        ylabel: str = "",
        marker: str = "braille",
        empty_note: str = "no data yet",
    ) -> None:
        """Replace the plot's data: ``series`` maps a label to ``(months, values)``. The very
        data it shows changes nothing (the plot is not drawn again)."""
        shown = (
            title,
            tuple((label, tuple(xs), tuple(ys)) for label, (xs, ys) in series.items()),
            ylabel,
            marker,
            empty_note,
        )
        if shown == self.shown:
            return
        self.shown = shown
        plt = self.plt
        plt.clear_figure()
        plt.title(title)
        self.title = title
        self.empty_note = empty_note
        if ylabel:
            plt.ylabel(ylabel)
        months: list[int] = []
        values: list[float] = []
        for label, (xs, ys) in series.items():
            if xs:
                plt.plot(xs, ys, label=label if len(series) > 1 else None, marker=marker)
                months.extend(int(x) for x in xs)
                values.extend(float(y) for y in ys)
        if values and min(values) == max(values):  # a flat line: not plotext's −1..1 around it
            y = values[0]
            plt.ylim(min(0.0, y), max(0.0, y) + 1.0)
        self.empty = not months
        if months:
            lo, hi = min(months), max(months)
            ticks = month_ticks(lo, hi)
            plt.xticks(list(ticks), [str(t) for t in ticks])  # a list[float] for plotext's stubs
            if lo == hi:
                plt.xlim(lo - 1, hi + 1)
        self.refresh()

    def render(self) -> RenderResult:
        if self.empty:
            return Text.assemble((self.title, "bold"), "\n\n", (self.empty_note, "dim"), justify="center")
        return super().render()
