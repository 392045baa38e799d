"""Panel 6, Field: news, preprint counts per topic, conference reports and hallway intel."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings
from pibench_tui.tui.widgets.plots import LinePlot


class FieldPanel(Panel):
    """News feed, preprint counts per topic over time, conference reports, hallway intel."""

    TAB = "field"
    BINDINGS = panel_bindings("field")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield new_table("news-table", "Month", "Kind", "Topic", "News")
            yield LinePlot(id="preprint-plot", classes="plot")
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
        rows = game.call("field.preprints", 100_000)
        series: dict[str, tuple[list, list]] = {}
        for r in rows:
            xs, ys = series.setdefault(r["topic"], ([], []))
            xs.append(r["month"])
            ys.append(r["preprint_count"])
        self.query_one("#preprint-plot", LinePlot).show("Preprints per topic per month", series)
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


def _without_topic(text: str, topic: str | None) -> str:
    """A headline without its topic, which the Topic column shows ("2 items on reasoning this
    month; the area is surging." → "2 items this month; the area is surging."): at 80 columns
    the News column then keeps its last, decisive word."""
    return text.replace(f" on {topic}", "", 1) if topic else text
