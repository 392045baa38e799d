"""Line plots (textual-plotext) fed with series from the API."""

from __future__ import annotations

from textual_plotext import PlotextPlot


class LinePlot(PlotextPlot):
    """A titled line plot of one or more series over months."""

    def show(self, title: str, series: dict[str, tuple[list, list]], *, ylabel: str = "", marker: str = "braille") -> None:
        """Replace the plot's data: ``series`` maps a label to ``(months, values)``."""
        plt = self.plt
        plt.clear_figure()
        plt.title(title)
        if ylabel:
            plt.ylabel(ylabel)
        drawn = False
        for label, (xs, ys) in series.items():
            if xs:
                plt.plot(xs, ys, label=label if len(series) > 1 else None, marker=marker)
                drawn = True
        if not drawn:
            plt.plot([0], [0], marker=" ")
        self.refresh()
