"""Panel 2, Applicants: this season's applicants and what became of past offers."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from pibench_tui.tui.alerts import season_months
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panel import Panel, fill_table, fmt_num, new_table, panel_bindings


def past_offers_note(counts: dict[str, int]) -> str:
    """What became of past seasons' applicants, from ``{status: count}`` of the applicants table.

    ``expired`` applicants were never offered a place (their application lapsed at the end
    of month 3); ``joined`` ones accepted and arrived.
    """
    accepted = counts.get("accepted", 0) + counts.get("joined", 0)
    declined = counts.get("declined", 0)
    made = accepted + declined
    out = ""
    if made:
        out += f" Past offers: {made} made, {accepted} accepted, {declined} declined."
    elif counts:
        out += " No offers made in past seasons."
    if counts.get("expired"):
        n = counts["expired"]
        out += f" {n} other applicant{'s' if n != 1 else ''} never received an offer."
    return out


def season_note(rules: dict[str, Any], month: int) -> str:
    """The Applicants panel's note during a recruiting season (career ``month``), from the
    scenario's ``lab.rules()``: the season's last offer month, when offers are answered and
    when students arrive (career months of this year, §5), the interview hours and the pay."""
    season = season_months(rules, month)
    when = "then" if season.answers == season.last_offer else f"at the end of month {season.answers}"
    return (
        f"Recruiting season: offers until the end of month {season.last_offer}; answers {when}, arrivals in month "
        f"{season.arrival}. Interview (i, {rules['hours']['interview']:g} h each), offer (o, "
        f"${rules['pay']['phd']:,.0f}/month from arrival). Signals are noisy; letters from some pools run high."
    )


class ApplicantsPanel(Panel):
    """This season's applicants: pool, transcript, letter, interview score if interviewed."""

    TAB = "applicants"
    BINDINGS = panel_bindings("applicants")

    def compose_body(self) -> ComposeResult:
        yield Static("", id="applicants-note", classes="panel-note")
        # "Transcr" and "Interv": the full words made the table 6 columns wider than 80
        # columns hold with the longest name and pool, which cut the Status cell ("pendin").
        yield new_table("applicants-table", "ID", "Name", "Pool", "Transcr", "Letter", "Interv", "Status")

    def show(self, game: Game) -> None:
        dash = game.dashboard()
        apps = game.call("recruit.applicants")
        rows = [
            [
                a["id"],
                a["name"],
                a["pool"],
                f"{a['transcript']:.2f}",
                f"{a['letter']:.2f}",
                fmt_num(a["interview"]),
                a["status"],
            ]
            for a in apps
        ]
        fill_table(self.query_one("#applicants-table", DataTable), rows)
        m = dash["month"]
        if apps:
            note = season_note(game.rules, m)
        else:
            nxt = m + (game.rules["season"]["pool_opens"] - m) % 12
            past = {
                r["status"]: r["n"]
                for r in game.query(
                    "select status, count(*) as n from applicants where status in ('accepted','declined','joined','expired') group by status"
                )
            }
            note = f"No applicants now: the next recruiting season opens in month {nxt}."
            note += past_offers_note(past)
        self.query_one("#applicants-note", Static).update(Text(note))
