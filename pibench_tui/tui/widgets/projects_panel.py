"""Panel 3, Projects: topic, tier, status, progress, draft, scoops, members, compute, months."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings


class ProjectsPanel(Panel):
    """Projects: topic, tier, status, progress, draft, scoops, members, compute, months.

    The columns that judge a project (status, progress, its draft, times scooped) come first,
    so they show whole at 80 columns; the rest are reached by scrolling sideways. Scooped is the
    API's ``scooped_times``: the scoops the news has told of (a scoop is known from its news
    month, §6)."""

    TAB = "projects"
    BINDINGS = panel_bindings("projects")

    def compose_body(self) -> ComposeResult:
        yield new_table(
            "projects-table",
            "ID",
            "Topic",
            "Tier",
            "Status",
            "Progress",
            "Draft",
            "Scooped",
            "Members",
            "Compute",
            "Started",
            "Ended",
        )
        yield Static("", id="projects-note", classes="panel-note")

    def show(self, game: Game) -> None:
        rows = game.call("projects.list")
        rows.sort(key=lambda p: (p["status"] != "active", -p["started_month"]))
        fill_table(
            self.query_one("#projects-table", DataTable),
            [
                [
                    p["id"],
                    p["topic"],
                    p["tier"],
                    p["status"],
                    f"{p['progress_pct']:g}%",
                    p["draft_id"] or "—",
                    p["scooped_times"],
                    ", ".join(p["members"]) or "nobody",
                    f"{p['monthly_compute']:,.0f}",
                    p["started_month"],
                    p.get("ended_month") or "—",
                ]
                for p in rows
            ],
        )
        active = sum(1 for p in rows if p["status"] == "active")
        self.query_one("#projects-note", Static).update(
            Text(
                f"{active} active of at most {game.rules['caps']['active_projects']}. Tier 1/2/3 ≈ "
                f"{'/'.join(f'{w:g}' for _, w in sorted(game.rules['projects']['tier_work'].items()))} units of work; compute costs "
                f"${game.rules['costs']['compute_unit']:g} a unit × the price multiplier."
                if rows
                else self.empty_hint(
                    "No projects yet: start one with s (topic, tier, members, compute).", "No projects yet"
                )
            )
        )
