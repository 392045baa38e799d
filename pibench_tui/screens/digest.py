"""The monthly digest shown after each ``next month``."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..alerts import alerts
from ..record import agency_record, event_answers, fmt_scores, pool_record, postdoc_record, venue_record
from ..tui_game import Digest

TAB_KEYS = {"people": "1", "applicants": "2", "projects": "3", "papers": "4", "grants": "5", "field": "6",
            "events": "7", "ledger": "8", "console": "9"}
"""The key of each panel (warnings name where to act)."""


def offers_answered_month(month: int) -> int:
    """The month at whose end this season's offers are answered (month 3 of the year, §5)."""
    return month + (3 - month % 12) % 12


def digest_lines(d: Digest, game: Any = None, warn: bool = True) -> list[str]:
    """The digest as lines of Rich markup (everything comes from API results); with ``game``
    each outcome carries its context from the PI's own record (:mod:`pibench_tui.record`)
    and the warnings for the month now open (:mod:`pibench_tui.alerts`) come first."""
    out: list[str] = []
    delta = d.budget_after - d.budget_before
    out.append(f"Budget ${d.budget_before:,.0f} → ${d.budget_after:,.0f} ({delta:+,.0f}) · citations this month {d.citations}")
    if d.collapsed:
        out.append("[b red]The budget ended the month below zero: the lab collapsed.[/]")

    def section(title: str, rows: list[str]) -> None:
        if rows:
            out.append("")
            out.append(f"[b]{title}[/]")
            out.extend(f"  {r}" for r in rows)

    if game is not None and warn and not d.finished:
        section(f"Warnings for month {d.new_month}", [
            f"[{'b red' if a.severity == 'error' else 'yellow'}]{escape(a.text)}[/] [dim](panel {TAB_KEYS.get(a.tab, '')}, key {escape(a.key)})[/]"
            for a in alerts(game)])
    decisions = []
    for r in d.decisions:
        verdict = "[green]accepted[/]" if r["status"] == "accept" else "[red]rejected[/]"
        decisions.append(f"{verdict} {r['draft']} at {r['venue']} ({r['id']}) · reviewer scores "
                         f"{fmt_scores([float(x) for x in (r['reviewer_scores'] or [])])}")
        if game is not None:
            decisions.append(f"  [dim]↳ {escape(venue_record(game, r['venue'], before=d.month))}[/]")
    section("Decisions", decisions)
    grants = []
    for r in d.grants:
        grants.append(f"{'[green]funded[/]' if r['status'] == 'funded' else '[red]' + escape(r['status']) + '[/]'} "
                      f"{r['id']} {r['agency']} on {r['topic']}")
        if game is not None:
            grants.append(f"  [dim]↳ {escape(agency_record(game, r['agency'], r['topic'], before=d.month))}[/]")
    grants += [f"award {a['id']} {a['agency']}: ${a['total']:,.0f}, ${a['monthly']:,.0f}/month, months {a['start_month']}-{a['end_month']}"
               for a in d.awards]
    section("Grants", grants)
    answered = [r for r in d.offers if r["status"] != "offered"]
    waiting = [r for r in d.offers if r["status"] == "offered"]
    offers = []
    for r in answered:
        offers.append(f"{r['name']} ({r['id']}): {r['status']}" + (f" · pool {r['pool']}" if r.get("pool") else ""))
        if game is not None and r.get("pool"):
            offers.append(f"  [dim]↳ {escape(pool_record(game, r['pool']))}[/]")
    section("Offers answered", offers)
    section("Offers waiting for an answer", [
        f"{r['name']} ({r['id']}) · answers come at the end of month {offers_answered_month(d.new_month)}" for r in waiting])
    searches = [r for r in d.news if r.get("kind") == "lab" and str(r.get("text", "")).startswith("Postdoc search")]
    section("Postdoc searches", [escape(r["text"]) + (f"\n    [dim]↳ {escape(postdoc_record(game, before=d.month))}[/]" if game else "")
                                 for r in searches])
    section("Arrivals", [f"{r['name']} ({r['id']}, {r['role']})" for r in d.arrivals])
    section("Departures", [f"{r['name']} ({r['id']}, {r['role']}): {r['status'].replace('_', ' ')}" for r in d.departures])
    section("Projects", [f"{r['id']} {r['topic']} tier {r['tier']}: {r['status']}" + (f" → draft {r['draft']}" if r.get('draft') else "")
                         for r in d.projects])
    section("New drafts", [f"{r['id']} {r['topic']} tier {r['tier']}" + (" (collaboration)" if r["collab"] else "")
                           + (" (salvage)" if r["salvage"] else "") for r in d.drafts])
    section("Events", [f"new {r['id']} {r['kind'].replace('_', ' ')} · answer by month {r['respond_by']}"
                       + (f" · {escape(event_answers(game, r['kind']))}" if game is not None else "") for r in d.events]
            + [f"{r['id']} {r['kind'].replace('_', ' ')}: {r['status']}" for r in d.expired])
    section("News", [escape(f"m{r['month']} [{r['kind']}] {r['text']}") for r in d.news[-14:]])
    return out


class DigestScreen(ModalScreen[None]):
    """What the tick of a month brought; enter or escape closes it."""

    BINDINGS = [Binding("escape,enter,space", "close", "Close", id="digest-close")]

    def __init__(self, digest: Digest, game: Any = None, *, warn: bool = True, title: str | None = None) -> None:
        super().__init__()
        self.digest = digest
        self.game = game
        self.warn = warn
        self.title = title

    def compose(self) -> ComposeResult:
        d = self.digest
        with Vertical(id="digest-box", classes="dialog"):
            head = f"Month {d.month} closed" + (f" — month {d.new_month} opens" if not d.finished else " — the career is over")
            yield Label(self.title or head, classes="dialog-title")
            with VerticalScroll(id="digest-body"):
                yield Static("\n".join(digest_lines(d, self.game, self.warn)), id="digest-text")
            yield Static("[b]enter[/] continue · ↑↓ pgup pgdn scroll", classes="form-hint")

    def on_mount(self) -> None:
        body = self.query_one("#digest-body", VerticalScroll)
        body.styles.max_height = max(6, self.app.size.height - 9)  # the title and the hint stay visible
        body.focus()

    def action_close(self) -> None:
        """Back to the lab."""
        self.dismiss(None)
