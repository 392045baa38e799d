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
            yield new_table("conf-table", "Month", "Venue", "Topic", "Accepted")

    def show(self, game: Game) -> None:
        news = game.call("field.news", 60)
        fill_table(
            self.query_one("#news-table", DataTable),
            [[n["month"], n["kind"], n["topic"] or "", n["text"]] for n in reversed(news)],
        )
        rows = game.call("field.preprints", 100_000)
        series: dict[str, tuple[list, list]] = {}
        for r in rows:
            xs, ys = series.setdefault(r["topic"], ([], []))
            xs.append(r["month"])
            ys.append(r["preprint_count"])
        self.query_one("#preprint-plot", LinePlot).show("Preprints per topic per month", series)
        intel = game.intel[-1] if game.intel else None
        self.query_one("#intel", Static).update(
            Text(
                f"Hallway talk at the conference in month {intel['month']}: "
                + ", ".join(f"{k} {v}" for k, v in intel["intel"].items())
                if intel
                else (
                    f"Attend a conference (f: {game.rules['hours']['conference']:g} h, ${game.rules['costs']['conference']:,.0f}, "
                    f"once every {game.rules['events']['conference_gap_months']} months) to hear which topics are hot."
                )
            )
        )
        fill_table(
            self.query_one("#conf-table", DataTable),
            [
                [r["month"], r["venue"], r["topic"], r["accepted_papers"]]
                for r in reversed(game.call("field.conference_report"))
            ],
        )
