"""Panel 1, the Lab: students and staff with role, reports and mood first (they fit at 80 columns), mentoring, projects, months, pool, pay."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from pibench_tui.tui.alerts import arrivals, lab_order
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, fmt_num, new_table, panel_bindings
from pibench_tui.tui.widgets.text_update import update_text

PEOPLE_COLUMNS = (
    "Report: quality of the latest monthly report (grows with skill, ability and morale; noisy). "
    "Mood: sentiment of your latest meeting (0-1, your noisy read of morale; only with mentoring). "
    "Falling reports, low moods or a recent blow (a rejection, dead end, stop, scoop, unanswered crisis) "
    "come before quitting (the header warns). More in help (?)."
)
"""Tooltip of the Lab table: what its less obvious columns mean."""


class PeoplePanel(Panel):
    """Students & staff: role, pool, months in lab, projects, mentoring, reports, pay."""

    TAB = "people"
    BINDINGS = panel_bindings("people")

    def compose_body(self) -> ComposeResult:
        table = new_table(
            "people-table",
            "ID",
            "Name",
            "Role",
            "Report",
            "Mood",
            "Mentor h",
            "Projects",
            "Months",
            "Pool",
            "Pay/mo",
            "Papers",
            "Contract",
        )
        table.tooltip = PEOPLE_COLUMNS
        yield table
        yield Static("", id="people-summary", classes="panel-note")

    def show(self, game: Game) -> None:
        dash = game.dashboard()
        pools = {
            r["id"]: r["pool"]
            for r in game.query(
                "select s.id as id, a.pool as pool from students s join applicants a on a.name = s.name where s.role = 'phd'"
            )
        }
        on: dict[str, list[str]] = {}
        for p in dash["active_projects"]:
            for m in p["members"]:
                on.setdefault(m, []).append(p["id"])
        rows = []
        for s in dash["students"]:
            rows.append(
                [
                    s["id"],
                    s["name"],
                    s["role"],
                    fmt_num(s["last_report_quality"]),
                    fmt_num(s["last_meeting_sentiment"]),
                    f"{s['mentoring_hours']:g}",
                    ", ".join(on.get(s["id"], [])) or "idle",
                    s["months_in"],
                    pools.get(s["id"], "—"),
                    f"${s['stipend']:,.0f}",
                    s["papers_accepted"],
                    s["contract_end"] or "—",
                ]
            )
        everyone = {r["id"]: r for r in game.call("students.list")}
        for s in dash["staff"]:
            r = everyone.get(s["id"], {})
            role = s["role"] + (" (leaving)" if s.get("leaving_at_month_end") else "")
            rows.append(
                [
                    s["id"],
                    s["name"],
                    role,
                    "—",
                    "—",
                    f"{r.get('mentoring_hours', 0):g}",
                    ", ".join(on.get(s["id"], [])) or ("idle" if s["role"] == "ra" else "—"),  # a manager is on none
                    r.get("months_in", "—"),
                    "—",
                    f"${s['monthly_cost']:,.0f}",
                    "—",
                    "—",
                ]
            )
        rank = {pid: n for n, pid in enumerate(lab_order(dash))}  # the one order of people (forms too)
        rows.sort(key=lambda row: rank.get(row[0], len(rank)))
        fill_table(self.query_one("#people-table", DataTable), rows)
        gone = [r for r in everyone.values() if r["status"] != "active"]
        att = dash["attention"]
        note = (
            f"Attention: pool {att['pool']:g} h = {att['base']:g} base − {att['oversight_tax']:g} oversight"
            f"{' − service duty' if any(n.startswith('Service') for n in dash['notes']) else ''}; mentoring {att['mentoring_reserved']:g} h, "
            f"one-off used {att['oneoff_used']:g} h, left {att['left']:g} h."
        )
        if not rows and not (dash.get("finished") or dash.get("collapsed")):
            offer = game.rules["season"]["offer_months"]
            coming = arrivals(game, dash["month"])
            if coming:  # offers accepted, not arrived yet (§5): who arrives when, not an invitation to recruit
                arrive, many = coming.month, len(coming.names) > 1
                who = f"{', '.join(coming.names)} accepted PhD offer{'s' if many else ''}"
                hint = self.empty_hint(
                    f"Nobody in the lab yet: {who} and arrive{'' if many else 's'} in month {arrive}. "
                    "Meanwhile post a postdoc search (P) or hire an RA (R).",
                    f"Nobody in the lab yet: {who}, arriving in month {arrive}",
                )
            else:
                hint = self.empty_hint(
                    f"Nobody in the lab yet. Recruit PhD students in months {min(offer)}-{max(offer)} (panel 2), post a "
                    "postdoc search (P), or hire an RA (R).",
                    "Nobody in the lab yet",
                )
            note = hint + "\n" + note
        if gone:
            note += "\nFormer members: " + ", ".join(
                f"{r['name']} ({r['role']}, {r['status'].replace('_', ' ')})" for r in gone[-8:]
            )
        update_text(self.query_one("#people-summary", Static), Text(note))
