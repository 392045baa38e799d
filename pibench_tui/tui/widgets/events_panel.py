"""Panel 7, Events: pending events with what each answer costs, and earlier ones."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import DataTable, Label

from pibench_tui.tui.actions import event_details
from pibench_tui.tui.game import Game
from pibench_tui.tui.record import after_the_end, event_answers
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings


class EventsPanel(Panel):
    """Pending events with what each answer costs; recently answered ones below."""

    TAB = "events"
    BINDINGS = panel_bindings("events")

    def compose_body(self) -> ComposeResult:
        yield new_table("events-table", "ID", "Kind", "Arrived", "Answer by", "Details", "Answers")
        yield Label("Earlier events", classes="section")
        yield new_table("past-events-table", "ID", "Kind", "Month", "Status")

    def show(self, game: Game) -> None:
        pend = game.call("events.pending")
        last = int(game.rules["horizon_months"])
        rows = []
        for e in pend:
            late = after_the_end(game, e["kind"], e["respond_by_month"], game.world.month)
            by = e["respond_by_month"]
            rows.append(
                [
                    e["id"],
                    e["kind"].replace("_", " "),
                    e["arrived_month"],
                    f"{by} (after the end)" if isinstance(by, int) and by > last else by,
                    event_details(e),
                    f"{late.upper()[:1]}{late[1:]}; {event_answers(game, e['kind'])}"
                    if late
                    else event_answers(game, e["kind"]),
                ]
            )
        fill_table(self.query_one("#events-table", DataTable), rows)
        past = game.query(
            "select id, kind, arrived_month, status from events where status != 'pending' order by arrived_month desc, id desc limit 40"
        )
        fill_table(
            self.query_one("#past-events-table", DataTable),
            [[r["id"], r["kind"].replace("_", " "), r["arrived_month"], r["status"]] for r in past],
        )
