"""The panels (tab panes) of the main screen. Each renders API results only."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Label, Static, TabPane

from ..actions import ACTIONS, SHORT, event_details
from ..record import event_answers
from ..tui_game import Game, parse_json_list
from .plots import LinePlot


def panel_bindings(tab: str) -> list[Binding]:
    """Footer bindings of a panel: the fixed keys, then its actions' keys (they call the App's
    dispatcher). Each action keeps ONE binding id everywhere (the App's id: ``next_month``,
    ``help``, ``console``, ``save``, ``quit``, and the action's id), so ``App.set_keymap`` rebinds
    it on every panel at once."""
    fixed = [
        Binding("n", "app.next_month", "Next month", id="next_month"),
        Binding("question_mark", "app.help", "Help", id="help", key_display="?"),
        Binding("colon", "app.console", "Console", id="console", key_display=":"),
        Binding("ctrl+s", "app.save", "Save", id="save"),
        Binding("q", "app.quit_game", "Quit", id="quit"),
    ]
    return fixed + [Binding(a.key, f"app.act('{a.id}')", SHORT.get(a.id, a.title), id=a.id, tooltip=a.title)
                    for a in ACTIONS if a.tab == tab]


def _t(x: object) -> Text:
    return Text("" if x is None else str(x))


def _num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if x is None else fmt.format(x)


def _fill(table: DataTable, rows: list[list]) -> None:
    """Replace a table's rows, keeping the cursor row where it was (no-op when nothing changed:
    refilling a DataTable costs a full re-measure of every row)."""
    if getattr(table, "_shown_rows", None) == rows:
        return
    table._shown_rows = rows  # type: ignore[attr-defined]
    row = table.cursor_row
    table.clear()
    for r in rows:
        table.add_row(*[c if isinstance(c, Text) else _t(c) for c in r])
    if rows:
        table.move_cursor(row=min(row, len(rows) - 1), animate=False)


def _table(id: str, *columns: str) -> DataTable:
    t = DataTable(id=id, cursor_type="row", zebra_stripes=True)
    t.add_columns(*columns)
    return t


class Panel(TabPane):
    """A tab of the main screen; ``show(game)`` redraws it from the API."""

    TAB = ""

    def __init__(self, title: str) -> None:
        super().__init__(title, id=self.TAB)
        self.shown_version = -1  # the app's career version this panel last drew

    def show(self, game: Game) -> None:  # pragma: no cover - overridden
        """Redraw from the API."""

    def redraw(self, game: Game) -> None:
        """Redraw from the API now, then re-check which columns do not fit."""
        self.show(game)
        self.shown_version = getattr(self.app, "version", 0)
        self.call_after_refresh(self.update_scroll_hint)

    @property
    def stale(self) -> bool:
        """The career changed since this panel was drawn (it redraws when shown)."""
        return self.shown_version != getattr(self.app, "version", 0)

    def on_mount(self) -> None:
        self.mount(Static("", classes="scroll-hint"))

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_scroll_hint)

    def update_scroll_hint(self) -> None:
        """Under the panel, name the columns of its tables that do not fit (and how to reach them)."""
        cut: list[str] = []
        for table in self.query(DataTable):
            if not table.display or not table.columns:
                continue
            room = table.scrollable_content_region.width
            if room <= 0:
                continue
            used, hidden = -table.scroll_x, []
            for col in table.columns.values():
                used += col.get_render_width(table)
                if used > room:
                    hidden.append(str(col.label))
            if hidden:
                cut.append(f"{', '.join(hidden)}")
        try:
            hint = self.query_one(".scroll-hint", Static)
        except Exception:  # noqa: BLE001 - not mounted yet
            return
        hint.update(Text("→ more columns (← → or shift+wheel scroll): " + " | ".join(cut), style="italic") if cut else "")
        hint.display = bool(cut)

    def focus_main(self) -> None:
        """Focus the panel's first table (so its keys show in the footer)."""
        tables = self.query(DataTable)
        if tables:
            tables.first().focus()


PEOPLE_COLUMNS = ("Report: quality of the latest monthly report (grows with skill, ability and morale; noisy). "
                  "Mood: sentiment of your latest meeting (0-1, your noisy read of morale; only with mentoring). "
                  "Falling reports or low moods come before quitting (the header warns). More in help (?).")
"""Tooltip of the Lab table: what its less obvious columns mean."""


class PeoplePanel(Panel):
    """Students & staff: role, pool, months in lab, projects, mentoring, reports, pay."""

    TAB = "people"
    BINDINGS = panel_bindings("people")

    def compose(self) -> ComposeResult:
        table = _table("people-table", "ID", "Name", "Role", "Pool", "Months", "Projects", "Mentor h", "Report", "Mood",
                       "Pay/mo", "Papers", "Contract")
        table.tooltip = PEOPLE_COLUMNS
        yield table
        yield Static("", id="people-summary", classes="panel-note")

    def show(self, game: Game) -> None:
        dash = game.dashboard()
        pools = {r["id"]: r["pool"] for r in game.query(
            "select s.id as id, a.pool as pool from students s join applicants a on a.name = s.name where s.role = 'phd'")}
        on = {}
        for p in dash["active_projects"]:
            for m in p["members"]:
                on.setdefault(m, []).append(p["id"])
        rows = []
        for s in dash["students"]:
            rows.append([s["id"], s["name"], s["role"], pools.get(s["id"], "—"), s["months_in"], ", ".join(on.get(s["id"], [])) or "idle",
                         f"{s['mentoring_hours']:g}", _num(s["last_report_quality"]), _num(s["last_meeting_sentiment"]),
                         f"${s['stipend']:,.0f}", s["papers_accepted"], s["contract_end"] or "—"])
        everyone = {r["id"]: r for r in game.call("students.list")}
        for s in dash["staff"]:
            r = everyone.get(s["id"], {})
            role = s["role"] + (" (leaving)" if s.get("leaving_at_month_end") else "")
            rows.append([s["id"], s["name"], role, "—", r.get("months_in", "—"), ", ".join(on.get(s["id"], [])) or "—",
                         f"{r.get('mentoring_hours', 0):g}", "—", "—", f"${s['monthly_cost']:,.0f}", "—", "—"])
        _fill(self.query_one("#people-table", DataTable), rows)
        gone = [r for r in everyone.values() if r["status"] != "active"]
        att = dash["attention"]
        note = (f"Attention: pool {att['pool']:g} h = {att['base']:g} base − {att['oversight_tax']:g} oversight"
                f"{' − service duty' if any(n.startswith('Service') for n in dash['notes']) else ''}; mentoring {att['mentoring_reserved']:g} h, "
                f"one-off used {att['oneoff_used']:g} h, left {att['left']:g} h.")
        if not rows:
            offer = game.rules["season"]["offer_months"]
            note = (f"Nobody in the lab yet. Recruit PhD students in months {min(offer)}-{max(offer)} (panel 2), post a postdoc "
                    "search (P), or hire an RA (R).\n" + note)
        if gone:
            note += "\nFormer members: " + ", ".join(f"{r['name']} ({r['role']}, {r['status'].replace('_', ' ')})" for r in gone[-8:])
        self.query_one("#people-summary", Static).update(Text(note))


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


class ApplicantsPanel(Panel):
    """This season's applicants: pool, transcript, letter, interview score if interviewed."""

    TAB = "applicants"
    BINDINGS = panel_bindings("applicants")

    def compose(self) -> ComposeResult:
        yield Static("", id="applicants-note", classes="panel-note")
        yield _table("applicants-table", "ID", "Name", "Pool", "Transcript", "Letter", "Interview", "Status")

    def show(self, game: Game) -> None:
        dash = game.dashboard()
        apps = game.call("recruit.applicants")
        rows = [[a["id"], a["name"], a["pool"], f"{a['transcript']:.2f}", f"{a['letter']:.2f}", _num(a["interview"]), a["status"]]
                for a in apps]
        _fill(self.query_one("#applicants-table", DataTable), rows)
        m = dash["month"]
        if apps:
            note = (f"Recruiting season: offers until the end of month {m + (3 - m % 12) % 12}; answers then, arrivals in month "
                    f"{m + (3 - m % 12) % 12 + 2}. Interview (i, {game.rules['hours']['interview']:g} h each), offer (o, "
                    f"${game.rules['pay']['phd']:,.0f}/month from arrival). Signals are noisy; letters from some pools run high.")
        else:
            nxt = m + ((1 - m) % 12)
            past = {r["status"]: r["n"] for r in game.query(
                "select status, count(*) as n from applicants where status in ('accepted','declined','joined','expired') group by status")}
            note = f"No applicants now: the next recruiting season opens in month {nxt}."
            note += past_offers_note(past)
        self.query_one("#applicants-note", Static).update(Text(note))


class ProjectsPanel(Panel):
    """Projects: topic, tier, members, progress, compute, status."""

    TAB = "projects"
    BINDINGS = panel_bindings("projects")

    def compose(self) -> ComposeResult:
        yield _table("projects-table", "ID", "Topic", "Tier", "Status", "Progress", "Members", "Compute", "Started", "Ended", "Draft", "Scooped")
        yield Static("", id="projects-note", classes="panel-note")

    def show(self, game: Game) -> None:
        rows = game.call("projects.list")
        rows.sort(key=lambda p: (p["status"] != "active", -p["started_month"]))
        _fill(self.query_one("#projects-table", DataTable), [
            [p["id"], p["topic"], p["tier"], p["status"], f"{p['progress_pct']:g}%", ", ".join(p["members"]) or "nobody",
             f"{p['monthly_compute']:,.0f}", p["started_month"], p.get("ended_month") or "—", p["draft_id"] or "—", p.get("scooped_times", 0)]
            for p in rows])
        active = sum(1 for p in rows if p["status"] == "active")
        self.query_one("#projects-note", Static).update(Text(
            f"{active} active of at most {game.rules['caps']['active_projects']}. Tier 1/2/3 ≈ "
            f"{'/'.join(f'{w:g}' for _, w in sorted(game.rules['projects']['tier_work'].items()))} units of work; compute costs "
            f"${game.rules['costs']['compute_unit']:g} a unit × the price multiplier."
            if rows else "No projects yet: start one with s (topic, tier, members, compute)."))


class PapersPanel(Panel):
    """Drafts & submissions & publications (draft quality stays hidden)."""

    TAB = "papers"
    BINDINGS = panel_bindings("papers")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Drafts", classes="section")
            yield _table("drafts-table", "ID", "Topic", "Tier", "Status", "Polish h", "Revisions", "Created", "Authors", "Kind")
            yield Label("Submissions", classes="section")
            yield _table("subs-table", "ID", "Draft", "Venue", "Status", "Submitted", "Decision", "Reviewer scores")
            yield Label("Publications", classes="section")
            yield _table("pubs-table", "ID", "Venue", "Topic", "Tier", "Published", "Citations", "Authors")

    def show(self, game: Game) -> None:
        drafts = game.call("papers.drafts")
        drafts.sort(key=lambda d: (d["status"] != "available", d["status"] != "under_review", -d["created_month"]))
        _fill(self.query_one("#drafts-table", DataTable), [
            [d["id"], d["topic"], d["tier"], d["status"].replace("_", " "), f"{d['polish_hours']:g}", d["revisions"], d["created_month"],
             ", ".join(d["authors"]) or "—", "salvage" if d["salvage"] else "collab" if d["collab"] else ""] for d in drafts])
        subs = game.call("papers.submissions")
        subs.sort(key=lambda s: (s["status"] != "under_review", -s["submitted_month"]))
        _fill(self.query_one("#subs-table", DataTable), [
            [s["id"], s["draft_id"], s["venue"], s["status"].replace("_", " "), s["submitted_month"],
             s["decision_month"] or f"~{s['decision_expected_month']}",
             ", ".join(f"{x:.1f}" for x in (s["reviewer_scores"] or [])) or "—"] for s in subs])
        pubs = game.call("papers.publications")
        pubs.sort(key=lambda p: -p["citations"])
        _fill(self.query_one("#pubs-table", DataTable), [
            [p["id"], p["venue"], p["topic"], p["tier"], p["published_month"], p["citations"],
             ", ".join(p["authors"]) or ("collab" if p.get("collab") else "—")]
            for p in pubs])


def call_schedule(game: Game, month: int) -> list[list]:
    """Rows of the grant call schedule: the calls open now (``grants.calls()``), then the
    upcoming ones of the scenario's published call months (the rules, MECHANICS §9)."""
    rules = game.rules
    horizon = rules["horizon_months"]
    rows = [[c["agency"], c["open_month"], c["last_month_to_apply"], f"${c['award']:,.0f}", c["duration_months"],
             f"open now ({c['id']})"] for c in game.call("grants.calls")]
    upcoming = []
    for agency, a in rules["agencies"].items():
        if a.get("rolling"):
            continue
        for om in a["call_months"]:
            if month < om <= horizon:
                upcoming.append([agency, om, min(horizon, om + 1), f"${a['award']:,.0f}", a["duration_months"], "upcoming"])
    upcoming.sort(key=lambda r: (r[1], r[0]))
    return rows + upcoming


def grants_note(game: Game) -> str:
    """The per-agency limits: running awards plus pending proposals, TIF's cooldown, FEL once."""
    rules = game.rules
    agencies = rules["agencies"]
    caps = ", ".join(f"{name} {a['max_concurrent']}" for name, a in agencies.items())
    rolling = [name for name, a in agencies.items() if a.get("rolling")]
    once = [name for name, a in agencies.items() if a.get("once")]
    note = (f"Limit per agency of running awards plus pending proposals at once: {caps}. "
            f"A proposal costs ${rules['costs']['proposal']:,.0f} and at least {rules['hours']['proposal_min']:g} h (g).")
    if rolling:
        gaps = ", ".join(f"{name} every {agencies[name]['cooldown_months']} months" for name in rolling)
        note += f" {', '.join(rolling)}: open every month, one proposal at a time ({gaps})."
    if once:
        note += f" {', '.join(once)} funds a lab only once."
    return note


class GrantsPanel(Panel):
    """Open calls with deadlines, proposals pending, awards with months left."""

    TAB = "grants"
    BINDINGS = panel_bindings("grants")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Open calls", classes="section")
            yield _table("calls-table", "Call", "Agency", "Award", "Months", "Apply by", "Decision after")
            yield Static("", id="grants-note", classes="panel-note")
            yield Label("Call schedule (open now and upcoming)", classes="section")
            yield _table("schedule-table", "Agency", "Opens", "Last month to apply", "Award", "Months", "Status")
            yield Label("Proposals", classes="section")
            yield _table("proposals-table", "ID", "Call", "Agency", "Topic", "Hours", "Status", "Sent", "Decision")
            yield Label("Awards", classes="section")
            yield _table("awards-table", "ID", "Agency", "Total", "Monthly", "Start", "End", "Months left")

    def show(self, game: Game) -> None:
        m = game.dashboard()["month"]
        _fill(self.query_one("#calls-table", DataTable), [
            [c["id"], c["agency"], f"${c['award']:,.0f}", c["duration_months"], c["last_month_to_apply"], f"{c['decision_delay_months']} mo"]
            for c in game.call("grants.calls")])
        _fill(self.query_one("#schedule-table", DataTable), call_schedule(game, m))
        self.query_one("#grants-note", Static).update(Text(grants_note(game)))
        props = game.call("grants.proposals")
        props.sort(key=lambda p: (p["status"] != "pending", -p["submitted_month"]))
        _fill(self.query_one("#proposals-table", DataTable), [
            [p["id"], p["call_id"], p["agency"], p["topic"], f"{p['hours']:g}", p["status"], p["submitted_month"], p["decision_month"]]
            for p in props])
        _fill(self.query_one("#awards-table", DataTable), [
            [a["id"], a["agency"], f"${a['total']:,.0f}", f"${a['monthly']:,.0f}", a["start_month"], a["end_month"],
             max(0, a["end_month"] - max(m, a["start_month"]) + 1)] for a in game.call("grants.awards")])


class FieldPanel(Panel):
    """News feed, preprint counts per topic over time, conference reports, hallway intel."""

    TAB = "field"
    BINDINGS = panel_bindings("field")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield _table("news-table", "Month", "Kind", "Topic", "News")
            yield LinePlot(id="preprint-plot", classes="plot")
            yield Static("", id="intel", classes="panel-note")
            yield Label("Conference reports (accepted papers per topic)", classes="section")
            yield _table("conf-table", "Month", "Venue", "Topic", "Accepted")

    def show(self, game: Game) -> None:
        news = game.call("field.news", 60)
        _fill(self.query_one("#news-table", DataTable), [[n["month"], n["kind"], n["topic"] or "", n["text"]] for n in reversed(news)])
        rows = game.call("field.preprints", 100_000)
        series: dict[str, tuple[list, list]] = {}
        for r in rows:
            xs, ys = series.setdefault(r["topic"], ([], []))
            xs.append(r["month"])
            ys.append(r["preprint_count"])
        self.query_one("#preprint-plot", LinePlot).show("Preprints per topic per month", series)
        intel = game.intel[-1] if game.intel else None
        self.query_one("#intel", Static).update(Text(
            f"Hallway talk at the conference in month {intel['month']}: " + ", ".join(f"{k} {v}" for k, v in intel["intel"].items())
            if intel else (f"Attend a conference (f: {game.rules['hours']['conference']:g} h, ${game.rules['costs']['conference']:,.0f}, "
                           f"once every {game.rules['events']['conference_gap_months']} months) to hear which topics are hot.")))
        _fill(self.query_one("#conf-table", DataTable), [[r["month"], r["venue"], r["topic"], r["accepted_papers"]]
                                                         for r in reversed(game.call("field.conference_report"))])


class EventsPanel(Panel):
    """Pending events with what each answer costs; recently answered ones below."""

    TAB = "events"
    BINDINGS = panel_bindings("events")

    def compose(self) -> ComposeResult:
        yield _table("events-table", "ID", "Kind", "Arrived", "Answer by", "Details", "Answers")
        yield Label("Earlier events", classes="section")
        yield _table("past-events-table", "ID", "Kind", "Month", "Status")

    def show(self, game: Game) -> None:
        pend = game.call("events.pending")
        _fill(self.query_one("#events-table", DataTable), [
            [e["id"], e["kind"].replace("_", " "), e["arrived_month"], e["respond_by_month"], event_details(e), event_answers(game, e["kind"])]
            for e in pend])
        past = game.query("select id, kind, arrived_month, status from events where status != 'pending' order by arrived_month desc, id desc limit 40")
        _fill(self.query_one("#past-events-table", DataTable), [[r["id"], r["kind"].replace("_", " "), r["arrived_month"], r["status"]] for r in past])


LEDGER_ROWS = 150
"""Ledger entries shown (the latest); ``query("select * from ledger")`` in the console has them all.
Each DataTable row costs re-measuring on every refresh, so the month's close stays quick."""


class LedgerPanel(Panel):
    """Budget and citation curves, and the ledger."""

    TAB = "ledger"
    BINDINGS = panel_bindings("ledger")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            with Horizontal(id="ledger-plots"):
                yield LinePlot(id="budget-plot", classes="plot")
                yield LinePlot(id="citations-plot", classes="plot")
            yield Label(f"Ledger: the latest {LEDGER_ROWS} entries (all of them: query('select * from ledger') in the console)",
                        classes="section")
            yield _table("ledger-table", "Month", "Category", "Amount", "Note")

    def show(self, game: Game) -> None:
        months = game.query("select month, budget, citations_total from lab_monthly order by month")
        xs = [r["month"] for r in months]
        self.query_one("#budget-plot", LinePlot).show("Budget ($k) at month end", {"budget": (xs, [r["budget"] / 1000 for r in months])})
        per, prev = [], 0
        for r in months:
            per.append(r["citations_total"] - prev)
            prev = r["citations_total"]
        self.query_one("#citations-plot", LinePlot).show("Citations per month", {"citations": (xs, per)})
        rows = game.call("lab.ledger", LEDGER_ROWS)
        _fill(self.query_one("#ledger-table", DataTable), [
            [r["month"], r["category"], Text(f"{r['amount']:+,.0f}", style="green" if r["amount"] > 0 else "red"), r["note"]]
            for r in reversed(rows)])

    def focus_main(self) -> None:
        self.query_one("#ledger-table", DataTable).focus()
