"""Panel 6, Field: news, preprint counts per topic, conference reports and hallway intel."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings

BLOCKS = "▁▂▃▄▅▆▇█"
"""The sparkline's blocks, lowest first (:func:`spark`)."""

MIN_MONTHS = 12
"""The fewest months a preprint sparkline shows (when the feed has them), however narrow the panel."""

MEAN_MONTHS = 12
"""The preprint table's mean is over the last this many months (fewer at the start of a career)."""

PREPRINT_COLUMNS = ("Topic", "Per month", "This month", "Mean")
"""The preprint table's column labels (the sparkline's months and scale, and the months of the
mean, are in its title: early in a career the mean has fewer than :data:`MEAN_MONTHS`)."""


def spark(counts: Sequence[int | None], top: int) -> str:
    """One block a count, on the scale ``top``: a count ``v`` shows ``BLOCKS[7 * v // top]``
    (rounded down), so ``▁`` is 0 up to a seventh of ``top`` and ``█`` is ``top`` alone;
    ``None`` (no count that month) shows as a space. ``spark([0, 7, 14], 14) == "▁▄█"``.

    Args:
        counts: whole counts (preprints a month, MECHANICS.md §4), oldest first.
        top: the count ``█`` stands for, ≥ 1 and ≥ every count (one scale for every row
            that is compared).

    Raises:
        ValueError: ``top`` below 1, or a count below 0 or above ``top``.
    """
    if top < 1:
        raise ValueError(f"the scale's top must be at least 1, not {top}")
    steps = len(BLOCKS) - 1
    out = []
    for v in counts:
        if v is None:
            out.append(" ")
        elif 0 <= v <= top:
            out.append(BLOCKS[steps * v // top])
        else:
            raise ValueError(f"a count must be between 0 and the scale's top {top}, not {v}")
    return "".join(out)


def preprint_table(feed: Sequence[dict], months: int) -> tuple[str, list[list[str]]]:
    """The preprint table's title and rows from ``field.preprints`` rows (MECHANICS.md §4:
    a topic's count a month is Poisson(6 C_k), the player's read of its crowding).

    One row per topic, in the order the feed first names them: the topic, its sparkline of the
    last ``months`` months of the feed (:func:`spark`, one scale for every topic: the largest
    count shown, at least 1), the latest month's count and the mean of the last :data:`MEAN_MONTHS`
    months (fewer if the feed has fewer; one decimal). A month without a row for the topic is
    a space in its sparkline, ``—`` as its latest count, and left out of its mean. The title
    names the months, the scale and the months of the mean (as many as the feed has, up to
    :data:`MEAN_MONTHS`): ``"Preprints per topic per month, months 1–16 (█ = 14); mean of
    months 5–16"``, in month 2 ``"…, months 1–2 (█ = 4); mean of months 1–2"``.

    Args:
        feed: rows ``{"month", "topic", "preprint_count"}`` as ``field.preprints`` gives them.
        months: how many of the latest months the sparklines show (at least 1).

    Raises:
        ValueError: ``months`` below 1.
    """
    if months < 1:
        raise ValueError(f"the sparklines need at least 1 month, not {months}")
    if not feed:
        return "Preprints per topic per month: none yet", []
    counts: dict[str, dict[int, int]] = {}
    for r in feed:
        counts.setdefault(r["topic"], {})[r["month"]] = r["preprint_count"]
    last = max(r["month"] for r in feed)
    first = max(min(r["month"] for r in feed), last - months + 1)
    shown = range(first, last + 1)
    top = max(1, max(c.get(m, 0) for c in counts.values() for m in shown))
    meaned = range(last - MEAN_MONTHS + 1, last + 1)
    rows = []
    for topic, by_month in counts.items():
        recent = [by_month[m] for m in meaned if m in by_month]
        rows.append(
            [
                topic,
                spark([by_month.get(m) for m in shown], top),
                str(by_month[last]) if last in by_month else "—",
                f"{sum(recent) / len(recent):.1f}" if recent else "—",
            ]
        )
    oldest = max(min(r["month"] for r in feed), meaned.start)
    return f"Preprints per topic per month, {_months(first, last)} (█ = {top}); mean of {_months(oldest, last)}", rows


def _months(first: int, last: int) -> str:
    """``"month 3"`` or ``"months 3–14"``."""
    return f"month {last}" if first == last else f"months {first}–{last}"


class FieldPanel(Panel):
    """News feed, a table of preprint counts per topic (a sparkline of the recent months each),
    conference reports, hallway intel."""

    TAB = "field"
    BINDINGS = panel_bindings("field")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._feed: list[dict] = []  # the preprint feed last shown
        self._months = 0  # the months its sparklines show

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("", id="preprint-title", classes="section")
            yield new_table("preprint-table", *PREPRINT_COLUMNS)
            yield new_table("news-table", "Month", "Kind", "Topic", "News")
            yield Static("", id="intel", classes="panel-note")
            yield Label("Conference reports (accepted papers per topic)", classes="section")
            yield Static("", id="conf-note", classes="panel-note")
            yield new_table("conf-table", "Month", "Venue", "Topic", "Accepted")

    def show(self, game: Game) -> None:
        news = game.call("field.news", 60)
        fill_table(
            self.query_one("#news-table", DataTable),
            [[n["month"], n["kind"], n["topic"] or "", _without_topic(n["text"], n["topic"])] for n in reversed(news)],
        )
        self._feed = game.call("field.preprints", 100_000)
        self._show_preprints()
        trips = list(reversed(game.intel))
        rules = game.rules
        self.query_one("#intel", Static).update(
            Text(
                "Hallway talk at your conference trips (newest first; key d shows it in that month's report):\n"
                + "\n".join(
                    f"  month {i['month']}: " + ", ".join(f"{k} {v}" for k, v in i["intel"].items()) for i in trips
                )
                if trips
                else (
                    f"Attend a conference (f: {rules['hours']['conference']:g} h, ${rules['costs']['conference']:,.0f}, "
                    f"once every {rules['events']['conference_gap_months']} months) to hear which topics are hot."
                )
            )
        )
        reports = game.call("field.conference_report")
        fill_table(
            self.query_one("#conf-table", DataTable),
            [[r["month"], r["venue"], r["topic"], r["accepted_papers"]] for r in reversed(reports)],
        )
        note = self.query_one("#conf-note", Static)
        note.display = not reports
        if not reports:
            note.update(
                Text(
                    "No conference report yet: the big conferences publish how many papers they accepted per "
                    "topic in their deadline months (the public record; your own trips' hallway talk is above)."
                )
            )

    def on_resize(self) -> None:
        super().on_resize()
        if self.composed and not self.mounting and self._months != self._months_that_fit():
            self._show_preprints()

    def _months_that_fit(self) -> int:
        """How many months the sparkline column holds beside the other columns at the panel's
        width, the room of the panel's scroll bar kept (at least :data:`MIN_MONTHS`). Each
        column is as wide as its label or its widest cell, and one cell of padding each side;
        the counts and means are narrower than their labels."""
        topic, _, now, mean = PREPRINT_COLUMNS
        widths = [max([len(topic)] + [len(r["topic"]) for r in self._feed]), len(now), len(mean)]
        padding = 2 * (len(widths) + 1)
        scrollbar = self.query_one(VerticalScroll).styles.scrollbar_size_vertical
        return max(MIN_MONTHS, self.shown_width - scrollbar - sum(widths) - padding)

    def _show_preprints(self) -> None:
        """The preprint table and its title from the feed last read, as many months as fit."""
        self._months = self._months_that_fit()
        title, rows = preprint_table(self._feed, self._months)
        self.query_one("#preprint-title", Label).update(title)
        fill_table(self.query_one("#preprint-table", DataTable), rows)


def _without_topic(text: str, topic: str | None) -> str:
    """A headline without its topic, which the Topic column shows ("2 items on reasoning this
    month; the area is surging." → "2 items this month; the area is surging."): at 80 columns
    the News column then keeps its last, decisive word."""
    return text.replace(f" on {topic}", "", 1) if topic else text
