"""Panel 7, Events: pending events with what each answer costs, and earlier ones."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import DataTable, Label

from ..actions import event_details
from ..record import event_answers
from ..tui_game import Game
from .panel import Panel, fill_table, new_table, panel_bindings


class EventsPanel(Panel):
    """Pending events with what each answer costs; recently answered ones below."""

    TAB = "events"
    BINDINGS = panel_bindings("events")

    def compose(self) -> ComposeResult:
        yield new_table("events-table", "ID", "Kind", "Arrived", "Answer by", "Details", "Answers")
        yield Label("Earlier events", classes="section")
        yield new_table("past-events-table", "ID", "Kind", "Month", "Status")

    def show(self, game: Game) -> None:
        pend = game.call("events.pending")
        fill_table(
            self.query_one("#events-table", DataTable),
            [
                [
                    e["id"],
                    e["kind"].replace("_", " "),
                    e["arrived_month"],
                    e["respond_by_month"],
                    event_details(e),
                    event_answers(game, e["kind"]),
                ]
                for e in pend
            ],
        )
        past = game.query(
            "select id, kind, arrived_month, status from events where status != 'pending' order by arrived_month desc, id desc limit 40"
        )
        fill_table(
            self.query_one("#past-events-table", DataTable),
            [[r["id"], r["kind"].replace("_", " "), r["arrived_month"], r["status"]] for r in past],
        )
