"""Panel 8, Ledger: budget and citation curves, and the ledger."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Label

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings
from pibench_tui.tui.widgets.plots import LinePlot

LEDGER_ROWS = 150
"""Ledger entries shown (the latest); ``query("select * from ledger")`` in the console has them all.
Each DataTable row costs re-measuring on every refresh, so the month's close stays quick."""


class LedgerPanel(Panel):
    """Budget and citation curves, and the ledger."""

    TAB = "ledger"
    BINDINGS = panel_bindings("ledger")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            with Horizontal(id="ledger-plots"):
                yield LinePlot(id="budget-plot", classes="plot")
                yield LinePlot(id="citations-plot", classes="plot")
            yield Label(
                f"Ledger: the latest {LEDGER_ROWS} entries (query('select * from ledger') has all)",
                classes="section",
            )
            yield new_table("ledger-table", "Month", "Category", "Amount", "Note")

    def show(self, game: Game) -> None:
        months = game.query("select month, budget, citations_total from lab_monthly order by month")
        xs = [r["month"] for r in months]
        self.query_one("#budget-plot", LinePlot).show(
            "Budget ($k) at month end", {"budget": (xs, [r["budget"] / 1000 for r in months])}
        )
        per, prev = [], 0
        for r in months:
            per.append(r["citations_total"] - prev)
            prev = r["citations_total"]
        self.query_one("#citations-plot", LinePlot).show("Citations per month", {"citations": (xs, per)})
        rows = game.call("lab.ledger", LEDGER_ROWS)
        fill_table(
            self.query_one("#ledger-table", DataTable),
            [
                [
                    r["month"],
                    r["category"],
                    Text(f"{r['amount']:+,.0f}", style="green" if r["amount"] > 0 else "red"),
                    r["note"],
                ]
                for r in reversed(rows)
            ],
        )
