"""Panel 5, Grants: open calls, the call schedule, the limits, proposals and awards."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.alerts import call_refusal, call_to_propose
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings


def call_schedule(game: Game, month: int) -> list[list]:
    """Rows of the grant call schedule: the calls open now (``grants.calls()``), then the
    upcoming ones of the scenario's published call months (the rules, MECHANICS §9)."""
    rules = game.rules
    horizon = rules["horizon_months"]
    rows = [
        [
            c["agency"],
            c["open_month"],
            c["last_month_to_apply"],
            f"${c['award']:,.0f}",
            c["duration_months"],
            f"open now ({c['id']})",
        ]
        for c in game.call("grants.calls")
    ]
    upcoming = []
    for agency, a in rules["agencies"].items():
        if a.get("rolling"):
            continue
        for om in a["call_months"]:
            if month < om <= horizon:
                upcoming.append(
                    [agency, om, min(horizon, om + 1), f"${a['award']:,.0f}", a["duration_months"], "upcoming"]
                )
    upcoming.sort(key=lambda r: (r[1], r[0]))
    return rows + upcoming


def refusals_note(refused: dict[str, str | None]) -> Text:
    """Why the lab may not apply to each open call it may not (``{call id: the world's reason
    or None}``, :func:`pibench_tui.tui.alerts.call_refusal`), one line each (empty: none)."""
    return Text("\n".join(f"You may not apply to {cid}: {why}." for cid, why in refused.items() if why), style="yellow")


def grants_note(game: Game) -> str:
    """The per-agency limits: running awards plus pending proposals, TIF's cooldown, FEL once."""
    rules = game.rules
    agencies = rules["agencies"]
    caps = ", ".join(f"{name} {a['max_concurrent']}" for name, a in agencies.items())
    rolling = [name for name, a in agencies.items() if a.get("rolling")]
    once = [name for name, a in agencies.items() if a.get("once")]
    note = (
        f"Limit per agency of running awards plus pending proposals at once: {caps}. "
        f"A proposal costs ${rules['costs']['proposal']:,.0f} and at least {rules['hours']['proposal_min']:g} h (g)."
    )
    if rolling:
        gaps = "; ".join(
            f"at least {agencies[name]['cooldown_months']} months between two {name} proposals" for name in rolling
        )
        note += f" {', '.join(rolling)}: a rolling call, open every month; {gaps}."
    if once:
        note += f" {', '.join(once)} funds a lab only once."
    return note


class GrantsPanel(Panel):
    """Open calls with deadlines, proposals pending, awards with months left."""

    TAB = "grants"
    BINDINGS = panel_bindings("grants")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Open calls", classes="section")
            yield new_table("calls-table", "Call", "Agency", "Award", "Months", "Apply by", "Decided in", "May apply")
            yield Static("", id="calls-refused", classes="panel-note")
            yield Static("", id="grants-note", classes="panel-note")
            yield Label("Call schedule (open now and upcoming)", classes="section")
            yield new_table("schedule-table", "Agency", "Opens", "Apply by", "Award", "Months", "Status")
            yield Label("Proposals", classes="section")
            yield new_table("proposals-table", "ID", "Call", "Agency", "Topic", "Hours", "Status", "Sent", "Decision")
            yield Label("Awards", classes="section")
            yield new_table("awards-table", "ID", "Agency", "Total", "Monthly", "Start", "End", "Months left")

    _cursor_month: int | None = None
    """The month whose calls the Open calls cursor was last placed on (:meth:`show`)."""

    def show(self, game: Game) -> None:
        dash = game.dashboard()
        m = dash["month"]
        calls = game.call("grants.calls")
        refused = {c["id"]: call_refusal(game, c["id"]) for c in calls}  # the world's check (§9)
        table = self.query_one("#calls-table", DataTable)
        fill_table(
            table,
            [
                [
                    c["id"],
                    c["agency"],
                    f"${c['award']:,.0f}",
                    c["duration_months"],
                    c["last_month_to_apply"],
                    f"{c['decision_delay_months']} mo",
                    "yes" if refused[c["id"]] is None else Text("no, see below", style="yellow"),
                ]
                for c in calls
            ],
        )
        if self._cursor_month != m:  # a new month: the cursor (the form's call, g) on the call to propose
            self._cursor_month = m
            ids = [c["id"] for c in calls]
            target = call_to_propose(game, dash)
            if target in ids:
                table.move_cursor(row=ids.index(target), animate=False)
        note = refusals_note(refused)
        self.query_one("#calls-refused", Static).update(note)
        self.query_one("#calls-refused", Static).display = bool(note.plain)
        fill_table(self.query_one("#schedule-table", DataTable), call_schedule(game, m))
        self.query_one("#grants-note", Static).update(Text(grants_note(game)))
        props = game.call("grants.proposals")
        props.sort(key=lambda p: (p["status"] != "pending", -p["submitted_month"]))
        fill_table(
            self.query_one("#proposals-table", DataTable),
            [
                [
                    p["id"],
                    p["call_id"],
                    p["agency"],
                    p["topic"],
                    f"{p['hours']:g}",
                    p["status"],
                    p["submitted_month"],
                    p["decision_month"],
                ]
                for p in props
            ],
        )
        fill_table(
            self.query_one("#awards-table", DataTable),
            [
                [
                    a["id"],
                    a["agency"],
                    f"${a['total']:,.0f}",
                    f"${a['monthly']:,.0f}",
                    a["start_month"],
                    a["end_month"],
                    max(0, a["end_month"] - max(m, a["start_month"]) + 1),
                ]
                for a in game.call("grants.awards")
            ],
        )
