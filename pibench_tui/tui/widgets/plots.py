"""Line plots (textual-plotext) fed with series from the API."""

from __future__ import annotations

import math
from typing import Any

from plotext._utility import ansi_end, colors_to_ansi
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual.strip import Strip
from textual.visual import Visual, visualize
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

    Its lines are made from plotext's character and colour matrices (:meth:`plot_lines`), one
    segment per run of one colour, styled as Textual styles that colour in this widget: the
    lines Textual makes of ``Text.from_ansi(plt.build())`` (PlotextPlot's render), without
    writing the plot as ANSI text and parsing it back (about half of drawing the Field
    panel's plot after a month closed). While text is selected in it (or it is empty) it is
    drawn as a PlotextPlot.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = ""
        self.empty = True
        self.empty_note = "no data yet"
        self.shown: tuple | None = None  # what show() was last given
        self._lines: tuple[tuple, list[Strip]] | None = None  # (what they were drawn from, the lines)
        self._styles: dict[tuple, Style] = {}  # plotext colours -> segment style, for one visual style
        self._styled_for: object = None  # the visual style ``_styles`` holds for

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

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the plot (:meth:`plot_lines`, made again when its data, size, theme or
        style changed)."""
        if self.empty or self.text_selection is not None:
            return super().render_line(y)
        key = (self.shown, self.size, self.app.theme, self.visual_style)
        if self._lines is None or self._lines[0] != key:
            self._lines = (key, self.plot_lines())
        lines = self._lines[1]
        return lines[y] if 0 <= y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)

    def plot_lines(self) -> list[Strip]:
        """The plot at the widget's size as lines: plotext builds its matrices as in
        ``plt.build()`` (PlotextPlot's render) without writing them as ANSI text; each run of
        one colour in a row is one segment, in the style Textual gives that colour's ANSI code
        in this widget (:meth:`_run_style`)."""
        plt: Any = self.plt  # plotext's build steps are not in its stubs
        width, height = self.size
        plt.plotsize(width, height)
        plt._set_size(width, height)  # as PlotextPlot.render (textual-plotext issue 5)
        plt.theme(self._get_plotext_theme_name(self.app.theme))
        plt._set_sizes()
        plt._build_matrix()
        matrix = plt.monitor.matrix
        lines: list[Strip] = []
        cols = matrix.cols
        for y, row in enumerate(range(matrix.rows - 1, max(matrix.rows - height, 0) - 1, -1)):  # row 0: the bottom
            marker, fore, style, back = (
                matrix.marker[row],
                matrix.fullground[row],
                matrix.style[row],
                matrix.background[row],
            )
            segments = []
            start = 0
            for col in range(1, cols + 1):
                if col == cols or fore[col] != fore[start] or style[col] != style[start] or back[col] != back[start]:
                    at = Style.from_meta({"offset": (start, y)})  # as Textual's text: where a selection starts
                    segments.append(
                        Segment(
                            "".join(marker[start:col]), self._run_style(fore[start], style[start], back[start]) + at
                        )
                    )
                    start = col
            lines.append(Strip(segments).crop_extend(0, width, self.visual_style.rich_style))
        return lines

    def _run_style(self, fore: object, style: object, back: object) -> Style:
        """The style Textual draws a character of these plotext colours in, in this widget:
        that of ``Text.from_ansi`` of its ANSI code, made into lines as any text this widget
        renders (remembered per colours while the widget's visual style stays)."""
        if self._styled_for != self.visual_style:
            self._styles.clear()
            self._styled_for = self.visual_style
        key = (repr(fore), repr(style), repr(back))
        found = self._styles.get(key)
        if found is None:
            probe = Text.from_ansi(colors_to_ansi(fore, style, back) + "x" + ansi_end)
            strips = Visual.to_strips(self, visualize(self, probe), 1, 1, self.visual_style, apply_selection=False)
            found = self._styles[key] = next(iter(strips[0])).style or Style.null()
        return found
