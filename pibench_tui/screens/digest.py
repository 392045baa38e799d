"""The monthly digest shown after each ``next month``."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..tui_game import Digest


def offers_answered_month(month: int) -> int:
    """The month at whose end this season's offers are answered (month 3 of the year, §5)."""
    return month + (3 - month % 12) % 12


def digest_lines(d: Digest) -> list[str]:
    """The digest as lines of Rich markup (everything comes from API results)."""
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
    section("Decisions", [
        f"{'[green]accepted[/]' if r['status'] == 'accept' else '[red]rejected[/]'} {r['draft_id']} at {r['venue']} "
        f"({r['id']}) · reviewer scores {', '.join(f'{x:.1f}' for x in (r['reviewer_scores'] or [])) or '—'}"
        for r in d.decisions])
    section("Grants", [
        f"{'[green]funded[/]' if r['status'] == 'funded' else '[red]' + escape(r['status']) + '[/]'} {r['id']} {r['agency']} on {r['topic']}"
        for r in d.grants] + [
        f"award {a['id']} {a['agency']}: ${a['total']:,.0f}, ${a['monthly']:,.0f}/month, months {a['start_month']}-{a['end_month']}"
        for a in d.awards])
    answered = [r for r in d.offers if r["status"] != "offered"]
    waiting = [r for r in d.offers if r["status"] == "offered"]
    section("Offers answered", [f"{r['name']} ({r['id']}): {r['status']}" for r in answered])
    section("Offers waiting for an answer", [
        f"{r['name']} ({r['id']}) · answers come at the end of month {offers_answered_month(d.new_month)}" for r in waiting])
    section("Arrivals", [f"{r['name']} ({r['id']}, {r['role']})" for r in d.arrivals])
    section("Departures", [f"{r['name']} ({r['id']}, {r['role']}): {r['status'].replace('_', ' ')}" for r in d.departures])
    section("Projects", [f"{r['id']} {r['topic']} tier {r['tier']}: {r['status']}" + (f" → draft {r['draft_id']}" if r.get('draft_id') else "")
                         for r in d.projects])
    section("New drafts", [f"{r['id']} {r['topic']} tier {r['tier']}" + (" (collaboration)" if r["collab"] else "")
                           + (" (salvage)" if r["salvage"] else "") for r in d.drafts])
    section("Events", [f"new {r['id']} {r['kind'].replace('_', ' ')} · answer by month {r['respond_by_month']}" for r in d.events]
            + [f"{r['id']} {r['kind'].replace('_', ' ')}: {r['status']}" for r in d.expired])
    section("News", [escape(f"m{r['month']} [{r['kind']}] {r['text']}") for r in d.news[-14:]])
    return out


class DigestScreen(ModalScreen[None]):
    """What the tick of a month brought; enter or escape closes it."""

    BINDINGS = [Binding("escape,enter,space", "close", "Close", id="digest-close")]

    def __init__(self, digest: Digest) -> None:
        super().__init__()
        self.digest = digest

    def compose(self) -> ComposeResult:
        d = self.digest
        with Vertical(id="digest-box", classes="dialog"):
            head = f"Month {d.month} closed" + (f" — month {d.new_month} opens" if not d.finished else " — the career is over")
            yield Label(head, classes="dialog-title")
            with VerticalScroll(id="digest-body"):
                yield Static("\n".join(digest_lines(d)), id="digest-text")
            yield Static("[b]enter[/] continue", classes="form-hint")

    def action_close(self) -> None:
        """Back to the lab."""
        self.dismiss(None)
