"""Panel 4, Papers: drafts, submissions and publications (draft quality stays hidden)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, new_table, panel_bindings
from world import explain


class PapersPanel(Panel):
    """Drafts & submissions & publications (draft quality stays hidden)."""

    TAB = "papers"
    BINDINGS = panel_bindings("papers")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Drafts", classes="section")
            yield new_table(
                "drafts-table", "ID", "Topic", "Tier", "Status", "Polish h", "Revisions", "Created", "Authors", "Kind"
            )
            yield Label("Submissions", classes="section")
            yield new_table("subs-table", "ID", "Draft", "Venue", "Status", "Submitted", "Decision", "Reviewer scores")
            yield Label("Publications", classes="section")
            yield new_table("pubs-table", "ID", "Venue", "Topic", "Tier", "Published", "Citations", "Authors")
            yield Label("Venues: bar and worth", classes="section")
            yield Static(id="venues-text")

    def show(self, game: Game) -> None:
        drafts = game.call("papers.drafts")
        drafts.sort(key=lambda d: (d["status"] != "available", d["status"] != "under_review", -d["created_month"]))
        fill_table(
            self.query_one("#drafts-table", DataTable),
            [
                [
                    d["id"],
                    d["topic"],
                    d["tier"],
                    d["status"].replace("_", " "),
                    f"{d['polish_hours']:g}",
                    d["revisions"],
                    d["created_month"],
                    ", ".join(d["authors"]) or "—",
                    "salvage" if d["salvage"] else "collab" if d["collab"] else "",
                ]
                for d in drafts
            ],
        )
        subs = game.call("papers.submissions")
        subs.sort(key=lambda s: (s["status"] != "under_review", -s["submitted_month"]))
        fill_table(
            self.query_one("#subs-table", DataTable),
            [
                [
                    s["id"],
                    s["draft_id"],
                    s["venue"],
                    s["status"].replace("_", " "),
                    s["submitted_month"],
                    s["decision_month"] or f"~{s['decision_expected_month']}",
                    ", ".join(f"{x:.1f}" for x in (s["reviewer_scores"] or [])) or "—",
                ]
                for s in subs
            ],
        )
        pubs = game.call("papers.publications")
        pubs.sort(key=lambda p: -p["citations"])
        fill_table(
            self.query_one("#pubs-table", DataTable),
            [
                [
                    p["id"],
                    p["venue"],
                    p["topic"],
                    p["tier"],
                    p["published_month"],
                    p["citations"],
                    ", ".join(p["authors"]) or ("collab" if p.get("collab") else "—"),
                ]
                for p in pubs
            ],
        )
        self._show_venues(game)

    def _show_venues(self, game: Game) -> None:
        """One line per venue: its bar and citation rate as ranks among the scenario's venues
        (the public rules) and the lab's record there (world.explain.venue_profile)."""
        cfg = game.world.cfg
        text = "\n".join(f"• {explain.venue_profile(game.query, cfg, v)}" for v in cfg.venues)
        widget = self.query_one("#venues-text", Static)
        if getattr(widget, "_shown", None) != text:  # updating a Static re-measures it
            widget._shown = text  # type: ignore[attr-defined]
            widget.update(Text(text))
