"""The monthly digest shown after each ``next month``, built from the month report
(``time.next_month()["report"]``, MECHANICS Decisions 8): what the month's close brought,
each outcome next to the PI's own record (:mod:`pibench_tui.tui.record`), and the warnings for
the month now open (:mod:`pibench_tui.tui.alerts`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from pibench_tui.tui.alerts import Alert, alerts, standing_resolved
from pibench_tui.tui.record import (
    after_the_end,
    agency_record,
    event_answers,
    fmt_scores,
    offers_waiting,
    pool_counts,
    pool_record,
    postdoc_record,
    proposal_facts,
    standing_at,
    standing_note,
    venue_record,
)
from pibench_tui.tui.screens.toasts import keep_toasts_under
from pibench_tui.tui.widgets.digest_text import DigestText
from pibench_tui.tui.widgets.text_update import update_text
from world import explain
from world.kinds import DecisionOutcome, OfferOutcome, ProposalOutcome, SearchOutcome
from world.papers import publication_month

TAB_KEYS = {
    "people": "1",
    "applicants": "2",
    "projects": "3",
    "papers": "4",
    "grants": "5",
    "field": "6",
    "events": "7",
    "ledger": "8",
    "console": "9",
}
"""The key of each panel (warnings name where to act)."""

NEWS_SHOWN = 14
"""Headlines shown (the Field panel and ``query('select * from news')`` have them all)."""


def _ctx(text: str) -> str:
    return f"    [dim]↳ {escape(text)}[/]"


def _why(text: str) -> str:
    """The explanation line under an outcome (:mod:`world.explain`)."""
    return f"    [dim]↳ why: {escape(text)}[/]"


def _over(game: Any) -> bool:
    """The career has ended (the last month closed, or a collapse): the explanations give no
    advice to act (``explain.CAREER_OVER``), nothing can be done any more (§12)."""
    return bool(getattr(game, "finished", False))


def _late(game: Any, e: dict) -> str:
    """What the career's end does to a new event's choice (``""``: nothing, or no game)."""
    if game is None:
        return ""
    try:
        return after_the_end(game, e.get("kind"), e.get("respond_by_month"), int(e.get("month") or 0))
    except (KeyError, TypeError, ValueError):  # a report or rules without these facts
        return ""


def digest_lines(
    report: dict, game: Any = None, warn: bool = True, warnings: Sequence[Alert] | None = None
) -> list[str]:
    """The digest of one month report as lines of Rich markup.

    Args:
        report: the month report dict (every key of the contract; missing ones read as empty).
        game: the career (``None``: no context, no warnings); context is the lab's record
            before the closed month, from the observable database.
        warn: list the warnings for the month now open (off in the replay viewer, which shows
            the month as it was before its close).
        warnings: those warnings if the caller has them (the header's, :func:`alerts` of the
            career as it is now); ``None``: computed here.
    """
    r = report
    month = int(r.get("month", 0))
    out = _money_lines(r)
    sections: list[tuple[str, list[str]]] = []
    if game is not None and warn and not r.get("finished"):
        sections.append((f"Warnings for month {month + 1}", _warning_rows(game, warnings)))
    if game is not None:
        resolved = standing_resolved(game.query, month)
        sections.append(("Standing", [f"[green]{escape(resolved)}[/]"] if resolved else []))
    sections += [
        ("Decisions", _decision_rows(r, game, month)),
        ("Published", _published_rows(r)),
        ("Grants", _grant_rows(r, game, month)),
        _offer_section(r, game, month),
    ]
    if game is not None and not r.get("finished"):
        sections.append(("Offers waiting for an answer", _waiting_rows(game, month)))
    sections += [
        ("Postdoc searches", _search_rows(r, game, month)),
        ("Arrivals", _arrival_rows(r, month)),
        ("Departures", _departure_rows(r, game, month)),
        ("Projects", _project_rows(r, game)),
        ("Events", _event_rows(r, game)),
        ("Citations", _citation_rows(r)),
        ("News", [escape(h) for h in (r.get("headlines") or [])[-NEWS_SHOWN:]]),
    ]
    for title, rows in sections:
        if rows:
            out.append("")
            out.append(f"[b]{title}[/]")
            out.extend(f"  {x}" for x in rows)
    return out


def _money_lines(r: dict) -> list[str]:
    """The budget's move and the month's citations, money by category, a collapse."""
    money = r.get("money") or {}
    budget, net = float(money.get("budget", 0.0)), float(money.get("net", 0.0))
    cit = r.get("citations") or {}
    out = [
        f"Budget ${budget - net:,.0f} → ${budget:,.0f} ({net:+,.0f}) · citations this month "
        f"{cit.get('earned', 0)} (total {cit.get('total', 0)})"
    ]
    cats = money.get("by_category") or {}
    if cats:
        out.append(
            "[dim]Money: "
            + escape(", ".join(f"{k} {v:+,.0f}" for k, v in sorted(cats.items(), key=lambda kv: kv[1])))
            + "[/]"
        )
    if r.get("collapsed"):
        out.append("[b red]The budget ended the month below zero: the lab collapsed.[/]")
    return out


def _warning_rows(game: Any, warnings: Sequence[Alert] | None = None) -> list[str]:
    """The warnings for the month now open (``warnings``, else :func:`alerts`), with their panel and key."""
    return [
        f"[{'b red' if a.severity == 'error' else 'yellow'}]{escape(a.digest or a.text)}[/] [dim](panel {TAB_KEYS.get(a.tab, '')}{', key ' + escape(a.key) if a.key else ''})[/]"
        for a in (alerts(game) if warnings is None else warnings)
    ]


def _decision_rows(r: dict, game: Any, month: int) -> list[str]:
    """Review decisions with their scores, the lab's record at the venue and why."""
    rows = []
    for d in r.get("decisions", []):
        decision: DecisionOutcome | None = d.get("outcome")
        verdict = "[green]accepted[/]" if decision == "accept" else "[red]rejected[/]"
        rows.append(
            f"{verdict} {d.get('draft_id')} at {d.get('venue')} ({d.get('submission_id')}) · reviewer scores "
            f"{fmt_scores([float(x) for x in (d.get('reviewer_scores') or [])])}"
            + (_publishes(game, d.get("venue"), month) if decision == "accept" else "")
        )
        if game is not None:
            rows.append(_ctx(venue_record(game, d.get("venue"), before=month)))
            rows.append(_why(explain.explain_decision(game.query, game.world.cfg, d.get("submission_id"), _over(game))))
    return rows


def _publishes(game: Any, venue: Any, month: int) -> str:
    """``" · publishes month 61, after the horizon …"``: when a paper accepted at ``venue`` in
    ``month`` is published, if not that month, and what the horizon does to it
    (:func:`explain.publication_note`); ``""`` without a game or for a venue the rules lack."""
    cfg = game.world.cfg if game is not None else None
    if cfg is None or venue not in cfg.venues:
        return ""
    note = explain.publication_note(cfg, venue, month)
    if not note:
        return ""
    late = publication_month(cfg, venue, month) > cfg.months
    return f" · [{'yellow' if late else 'dim'}]{escape(note)}[/]"


def _published_rows(r: dict) -> list[str]:
    return [
        f"{p.get('publication_id')} {p.get('topic')} tier {p.get('tier')} at {p.get('venue')} (draft {p.get('draft_id')})"
        for p in r.get("publications", [])
    ]


def _grant_rows(r: dict, game: Any, month: int) -> list[str]:
    """Proposals decided: funded with the award, rejected with the agency's record and why."""
    rows = []
    for p in r.get("proposals", []):
        funding: ProposalOutcome | None = p.get("outcome")
        if funding == "funded":
            rows.append(
                f"[green]funded[/] {p.get('proposal_id')} {p.get('agency')} on {p.get('topic')}: award "
                f"{p.get('award_id')} ${float(p.get('total') or 0):,.0f}"
            )
        else:
            rows.append(f"[red]rejected[/] {p.get('proposal_id')} {p.get('agency')} on {p.get('topic')}")
        if game is not None:
            facts = proposal_facts(game, p.get("proposal_id"))
            rows.append(
                _ctx(
                    agency_record(game, p.get("agency"), p.get("topic"), before=month) + (f"; {facts}" if facts else "")
                )
            )
            if funding != "funded":
                rows.append(_why(explain.explain_proposal(game.query, game.world.cfg, p.get("proposal_id"))))
    if game is not None:
        rows += _ended_award_rows(game, month)
    return rows


def _ended_award_rows(game: Any, month: int) -> list[str]:
    """The awards that paid their last installment in ``month`` (the ``awards`` table's
    ``end_month``, MECHANICS §9) and what that does to the burn from the next month: their
    installment stops, and so does their overhead (``costs.award_overhead`` a month, §2)."""
    overhead = float(game.rules["costs"]["award_overhead"])
    rows = []
    for a in game.query(f"select id, agency, monthly from awards where end_month = {int(month)} order by id"):
        monthly = float(a["monthly"])
        rows.append(
            f"award {escape(str(a['id']))} ({escape(str(a['agency']))}) paid its last installment: from month "
            f"{month + 1} the burn rises by ${monthly - overhead:,.0f} a month (its ${monthly:,.0f} installment "
            f"less its ${overhead:,.0f} overhead)"
        )
    return rows


def _offer_section(r: dict, game: Any, month: int) -> tuple[str, list[str]]:
    """Offers answered (with the pool's record and why a decline), the lapsed applications;
    titled "Recruiting season closed" when only lapses are left to say."""
    rows: list[str] = []
    answered = [o for o in r.get("offers", []) if o.get("outcome") != "expired"]
    expired = len(r.get("offers", [])) - len(answered)
    if game is not None and answered:  # the same for every offer of the month: read once
        standing, when = standing_at(game, month)
        note = standing_note(game, month)
        declined = {o.get("pool") for o in answered if o.get("outcome") == "declined"}
        taken = {o.get("pool") for o in answered if o.get("outcome") != "declined"}
        counts = {p: pool_counts(game, p, month) for p in declined}
        records = {p: pool_record(game, p, month) for p in taken}
    for o in answered:
        answer: OfferOutcome | None = o.get("outcome")
        colour = "green" if answer == "accepted" else "red"
        rows.append(
            f"{o.get('name')} ({o.get('applicant_id')}): [{colour}]{o.get('outcome')}[/] · pool {o.get('pool')}"
        )
        if game is not None and answer == "declined":  # the why holds the pool's record and the standing
            accepted, n_answered, _ = counts[o.get("pool")]
            rows.append(
                _why(
                    explain.explain_offer(
                        game.query, game.world.cfg, o.get("pool"), standing, when, (accepted, n_answered), _over(game)
                    )
                )
            )
        elif game is not None:
            rows.append(_ctx(f"{records[o.get('pool')]}; {note}"))
    pool = r.get("applicant_pool")  # time.last_report()'s count (world.report.pi_view); older records list them
    expired += int(pool.get("never_offered") or 0) if isinstance(pool, dict) else 0
    if expired:
        rows.append(f"[dim]{expired} applicant(s) never offered a place: their applications lapsed.[/]")
    return ("Offers answered" if len(rows) > (1 if expired else 0) else "Recruiting season closed", rows)


def _waiting_rows(game: Any, month: int) -> list[str]:
    """Offers waiting for an answer when ``month`` closed (:func:`offers_waiting`: that month's,
    also when its report is read later), with the month their answers come."""
    return [
        f"{name} ({aid}) · answers come at the end of month {answers}"
        for aid, name, answers in offers_waiting(game, month)
    ]


def _search_rows(r: dict, game: Any, month: int) -> list[str]:
    """Postdoc searches resolved, with the lab's record and why one ended without a hire."""
    rows = []
    for s in r.get("postdoc_searches", []):
        search: dict[SearchOutcome, str] = {
            "filled": f"[green]filled[/] by {s.get('postdoc_id')}",
            "unfilled": "[red]ended without a hire[/]",
            "paused": "[red]paused: the lab is at its researcher cap (fee lost)[/]",
        }
        what = search.get(s.get("outcome"), s.get("outcome"))
        rows.append(f"{s.get('posting_id')}: {what}")
        if game is not None:
            rows.append(_ctx(f"{postdoc_record(game, before=month)}; {standing_note(game, month)}"))
            if s.get("outcome") != "filled":
                standing, when = standing_at(game, month)
                rows.append(_why(explain.explain_search(standing, s.get("outcome"), when, _over(game))))
    return rows


def _arrival_rows(r: dict, month: int) -> list[str]:
    return [
        f"{a.get('name')} ({a.get('id')}, {a.get('role')})"
        + (f", arrives in month {a['arrived_month']}" if a.get("arrived_month", month) > month else "")
        for a in r.get("arrivals", [])
    ]


def _departure_rows(r: dict, game: Any, month: int) -> list[str]:
    """Quits (with why), graduations, contracts ended, and what the departures leave behind:
    the lab's projects and drafts as they are now, with what to do, so only in the report of
    the month just closed (``month``) while the career runs; a report read later does not
    list today's orphans as its month's."""
    rows = []
    for q in r.get("quits", []):
        rows.append(f"[red]{q.get('name')} ({q.get('id')}, {q.get('role')}) quit[/]")
        if game is not None:
            rows.append(_why(explain.explain_quit(game.query, game.world.cfg, q.get("id"), game.action_log)))
    rows += [f"{g.get('name')} ({g.get('id')}) graduated" for g in r.get("graduations", [])]
    rows += [f"{c.get('name')} ({c.get('id')}): postdoc contract ended" for c in r.get("contracts_ended", [])]
    gone = [x.get("id") for k in ("quits", "graduations", "contracts_ended") for x in r.get(k, [])]
    if (
        game is not None and gone and not _over(game) and month >= game.world.month - 1
    ):  # what the departures leave behind (issue 27 §2): what to do
        left = explain.orphaned_projects(game.query, game.world.cfg, game.action_log, game.world.month)
        left += [t for pid in gone for t in explain.orphaned_drafts(game.query, pid)]
        rows += [f"[yellow]left behind: {escape(t)}[/]" for t in dict.fromkeys(left)]
    return rows


def _project_rows(r: dict, game: Any) -> list[str]:
    """Drafts completed, dead ends and scoops (each with why)."""
    return (
        [
            f"{d.get('project_id') or 'collaboration'} → draft {d.get('draft_id')} ({d.get('topic')} tier "
            f"{d.get('tier')}{', collaboration' if d.get('collab') else ''})"
            for d in r.get("drafts_completed", [])
        ]
        + [
            f"[red]{d.get('project_id')} {d.get('topic')} tier {d.get('tier')}: dead end[/]"
            + (f" (salvage draft {d['salvage_draft_id']})" if d.get("salvage_draft_id") else "")
            + (
                "\n" + _why(explain.explain_dead_end(game.query, game.world.cfg, d.get("project_id"), _over(game)))
                if game
                else ""
            )
            for d in r.get("dead_ends", [])
        ]
        + [
            f"[red]{s.get('project_id')} {s.get('topic')}: scooped[/] (another group published first)"
            + (
                "\n" + _why(explain.explain_scoop(game.query, game.world.cfg, s.get("project_id"), _over(game)))
                if game
                else ""
            )
            for s in r.get("scoops", [])
        ]
    )


def _event_rows(r: dict, game: Any) -> list[str]:
    """Events arrived (with the answers and what the career's end does to them) and expired."""
    events = r.get("events") or {}
    return [
        f"new {e.get('id')} {str(e.get('kind', '')).replace('_', ' ')} · answer by month {e.get('respond_by_month')}"
        + (f" · {escape(event_answers(game, e.get('kind')))}" if game is not None else "")
        + (f" · [yellow]{escape(late)}[/]" if (late := _late(game, e)) else "")
        for e in events.get("arrived", [])
    ] + [
        f"{e.get('id')} {str(e.get('kind', '')).replace('_', ' ')}: {e.get('status')}"
        for e in events.get("expired", [])
    ]


def _citation_rows(r: dict) -> list[str]:
    by_pub = (r.get("citations") or {}).get("by_publication") or {}
    return [", ".join(f"{k} +{v}" for k, v in sorted(by_pub.items(), key=lambda kv: -kv[1]))] if by_pub else []


def hallway_lines(game: Any, month: int) -> list[str]:
    """The hallway talk the PI heard at a conference in ``month`` (``Game.intel``), as lines."""
    if game is None:
        return []
    return [
        escape(", ".join(f"{k} {v}" for k, v in (i.get("intel") or {}).items()))
        for i in getattr(game, "intel", [])
        if int(i.get("month", 0)) == month
    ]


class DigestScreen(ModalScreen[None]):
    """What the close of a month brought; enter or escape closes it.

    With ``history`` (the month reports the player can re-read, oldest first), ← and → (or
    ``[`` and ``]``) move to the previous and next month's report; the warnings of the month
    now open show only on the newest one.

    Args:
        report: the month report dict.
        game: the career (context and warnings).
        warn: list the warnings for the month now open.
        title: replaces "Month N closed — month N+1 opens".
        history: the reports to browse (``report`` among them); ``None``: only ``report``.
        note: a line shown first (a failed autosave), so no toast has to draw over the digest.
        warnings: the warnings for the month now open, if the caller has them (the app's
            header's); ``None``: computed (:func:`digest_lines`).
    """

    game: Any = None
    _none_earlier = False  # the game found no report before the oldest held (a career begun mid-way)

    BINDINGS = [
        Binding("escape,enter,space", "close", "Close", id="digest-close"),
        Binding("left,left_square_bracket", "older", "Previous month", id="digest-older"),
        Binding("right,right_square_bracket", "newer", "Next month's report", id="digest-newer"),
    ]

    def __init__(
        self,
        report: dict,
        game: Any = None,
        *,
        warn: bool = True,
        title: str | None = None,
        history: list[dict] | None = None,
        note: str | None = None,
        warnings: Sequence[Alert] | None = None,
    ) -> None:
        super().__init__()
        self.warn = warn
        self.show_report(report, game, title=title, history=history, note=note, warnings=warnings)

    def show_report(
        self,
        report: dict,
        game: Any = None,
        *,
        title: str | None = None,
        history: list[dict] | None = None,
        note: str | None = None,
        warnings: Sequence[Alert] | None = None,
    ) -> None:
        """Show another month's report (the arguments as the class's): the game app keeps one
        digest screen and shows each close's report on it, so no month mounts a new one."""
        self.report = report
        if game is not self.game:  # another career (a load): its earlier months are not known yet
            self._none_earlier = False
        self.game = game
        self.title = title
        self.note = note
        self.warnings = warnings
        self.history = list(history) if history else [report]
        same = [i for i, h in enumerate(self.history) if h is report or h.get("month") == report.get("month")]
        if same:
            self.history[same[-1]] = report
        else:
            self.history.append(report)
        self.index = same[-1] if same else len(self.history) - 1
        if self.is_mounted:
            self._redraw()

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        """As any widget's; except that the regions of the lab under it that changed (Textual asks
        the top screen to repaint them, for a see-through dialog) repaint nothing: the digest is
        opaque (``DigestScreen { background: $background; }``), nothing of the lab shows through."""
        if regions and not (layout or recompose) and self.styles.background.a == 1:
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _head(self) -> str:
        r = self.report
        m = int(r.get("month", 0))
        head = f"Month {m} closed" + (" — the career is over" if r.get("finished") else f" — month {m + 1} opens")
        if self.title and self.index == len(self.history) - 1:
            head = self.title
        before = self._reachable_before()
        if len(self.history) + before > 1:
            head += f"  ({before + self.index + 1}/{before + len(self.history)})"
        return head

    def _reachable_before(self) -> int:
        """How many reports ← can still reach before the oldest one held: a resumed career's
        earlier months (one report a month closed, re-derived on the first ← past the oldest:
        :meth:`_prepend_earlier`), so the counter counts them from the start; 0 when the game
        cannot re-derive them or found none (a career that began mid-way)."""
        first = int(self.history[0].get("month", 0)) if self.history else 0
        if first <= 1 or self._none_earlier or not hasattr(self.game, "earlier_reports"):
            return 0
        return first - 1

    def _body(self) -> str:
        r = self.report
        newest = self.index == len(self.history) - 1
        lines = digest_lines(r, self.game, self.warn and newest, self.warnings)
        if not newest:
            today = "; the warnings above the newest one are for today" if self._newest_warns() else ""
            lines.insert(0, f"[dim]An earlier month's report{today}.[/]")
        talk = hallway_lines(self.game, int(r.get("month", 0)))
        if talk:
            lines += ["", "[b]Conference hallway talk[/]"] + [f"  {x}" for x in talk]
        if self.note and newest:
            lines.insert(0, f"[b yellow]{escape(self.note)}[/]")
        return "\n".join(lines)

    def _newest_warns(self) -> bool:
        """Whether the newest report shows warnings (for the month now open): none once the
        career is over, or when there are none today (QA: month 59's report of a finished
        career pointed at warnings that were not there)."""
        if not (self.warn and self.game is not None and self.history) or self.history[-1].get("finished"):
            return False
        return bool(self.warnings if self.warnings is not None else alerts(self.game))

    def _hint(self) -> str:
        keys = "[b]enter[/] continue · ↑↓ pgup pgdn scroll"
        first = int(self.history[0].get("month", 0)) if self.history else 0
        if len(self.history) > 1 or (first > 1 and hasattr(self.game, "earlier_reports")):
            keys += " · [b]← →[/] other months"
        return keys

    def compose(self) -> ComposeResult:
        with Vertical(id="digest-box", classes="dialog"):
            yield Label(self._head(), classes="dialog-title", id="digest-title")
            yield DigestText(self._body(), id="digest-body")
            yield Static(self._hint(), classes="form-hint", id="digest-hint")

    def on_mount(self) -> None:
        self.query_one("#digest-body", DigestText).focus()
        keep_toasts_under(self)

    def show_index(self, index: int) -> None:
        """Show the report at ``index`` of the history (clamped)."""
        index = max(0, min(index, len(self.history) - 1))
        if index == self.index:
            return
        self.index = index
        self.report = self.history[index]
        self._redraw()

    def _redraw(self) -> None:
        """Show :attr:`report` (title, body, keys), scrolled to its top: a repaint, no layout
        (the box's size is fixed, the title and the keys keep to one line)."""
        update_text(self.query_one("#digest-title", Label), self._head())
        body = self.query_one("#digest-body", DigestText)
        body.update(self._body())
        update_text(self.query_one("#digest-hint", Static), self._hint())
        body.scroll_home(animate=False)

    def add_note(self, note: str) -> None:
        """Show ``note`` first in the newest month's report (a failed autosave, known after the
        digest opened; kept for when the newest report shows again)."""
        self.note = note
        if self.index == len(self.history) - 1:
            self.query_one("#digest-body", DigestText).update(self._body())

    def action_older(self) -> None:
        """The previous month's report (before the oldest one held, the career's earlier months,
        re-derived by the game: a resumed career's reports are not kept in its save)."""
        if self.index == 0:
            self._prepend_earlier()
        self.show_index(self.index - 1)

    def _prepend_earlier(self) -> None:
        """Put the reports of the months before the oldest held one in front of the history."""
        if not self._reachable_before():
            return
        older = self.game.earlier_reports(int(self.history[0].get("month", 0)))
        self._none_earlier = not older
        if older:
            self.history[:0] = older
            self.index += len(older)

    def action_newer(self) -> None:
        """The next month's report."""
        self.show_index(self.index + 1)

    def action_close(self) -> None:
        """Back to the lab."""
        self.dismiss(None)
