"""Panel 7, Events: pending events with what each answer costs, and earlier ones."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.actions import event_details
from pibench_tui.tui.game import Game
from pibench_tui.tui.record import after_the_end, event_answers
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings
from pibench_tui.words import count
from world.events import ACTIONS

_KIND_NAMES = {"student_crisis": "student crises"}
"""Plural names of event kinds that do not take a plain ``s``."""

_WINDOW_RULES = {
    "invited_talk": "talk_respond_months",
    "review_request": "review_respond_months",
    "collaboration_offer": "collaboration_respond_months",
}
"""The ``lab.rules()["events"]`` entry of each kind's months to answer (§11); a kind without
one is answered the month it arrives (a student crisis, ``world.events.generate_events``)."""


def waiting_hint(game: Game) -> str:
    """What the empty Events panel says will appear there: every kind of event
    (``world.events.ACTIONS``) with its months to answer (this scenario's rules, §11), kinds
    of the same window named together."""
    rules = game.rules["events"]
    windows: dict[str, list[str]] = {}
    for kind in ACTIONS:
        key = _WINDOW_RULES.get(kind)
        window = count(rules[key], "month") if key else "the same month"
        windows.setdefault(window, []).append(_KIND_NAMES.get(kind, kind.replace("_", " ") + "s"))
    parts = [f"{' and '.join(names)} ({window})" for window, names in windows.items()]
    parts[0] = parts[0].replace(")", " to answer)", 1)
    return f"No events waiting. They arrive here: {', '.join(parts)}."


class EventsPanel(Panel):
    """Pending events with what each answer costs; recently answered ones below."""

    TAB = "events"
    BINDINGS = panel_bindings("events")
    _waiting = ""  # the hint's text while nothing is pending

    def compose_body(self) -> ComposeResult:
        # one scroll for the panel: the pending table is as tall as its rows (each pending
        # event shows, QA at 80x24 saw 2 of 4), the earlier events below it scroll into view
        with VerticalScroll():
            yield new_table("events-table", "ID", "Kind", "Arrived", "Answer by", "Details", "Answers")
            yield Static("", id="events-hint", classes="panel-note")
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
        hint = self.query_one("#events-hint", Static)
        hint.display = not rows
        if not rows:
            text = self.empty_hint(waiting_hint(game), "No events waiting")
            if text != self._waiting:  # an update lays the screen out again, even to the same text
                self._waiting = text
                hint.update(Text(text))
        past = game.query(
            "select id, kind, arrived_month, status from events where status != 'pending' order by arrived_month desc, id desc limit 40"
        )
        fill_table(
            self.query_one("#past-events-table", DataTable),
            [[r["id"], r["kind"].replace("_", " "), r["arrived_month"], r["status"]] for r in past],
        )
