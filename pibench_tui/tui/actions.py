"""Every API action the player can take from the keyboard, as data.

Each :class:`ActionSpec` names its key, the panel it belongs to, the API call it makes,
the form fields (built from what the API returns right now) and a check that says why
the action is impossible before any form opens. The App turns these into bindings,
command-palette entries, help text and :class:`~pibench_tui.tui.screens.form.ActionForm`
dialogs. Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pibench_tui.tui.alerts import (
    call_refusal,
    call_to_propose,
    idle_people,
    in_lab_order,
    proposal_late_note,
    publishes_too_late,
    season_months,
)
from pibench_tui.tui.game import Game, rule
from pibench_tui.tui.record import (
    after_the_end,
    agency_record,
    compute_price,
    event_answers,
    pool_record,
    postdoc_record,
    venue_record,
)
from world import explain
from world.config import TOPICS
from world.events import ACTIONS as EVENT_ACTIONS
from world.kinds import ApplicantStatus, Role
from world.papers import decision_month, publication_month

Options = list[tuple[str, Any]]


FieldKind: TypeAlias = Literal["choice", "multi", "number"]
"""How a form field is entered (:attr:`Field.kind`; the form screen renders each kind)."""


@dataclass
class Field:
    """One input of a form.

    Attributes:
        name: the key in the values dict.
        label: what the player reads.
        kind: ``"choice"`` (one of ``options``), ``"multi"`` (several), ``"number"``.
        options: ``[(label, value)]`` or a function of the form's current values giving them
            (for a choice that depends on another, e.g. an event's answers).
        default: the starting value (a number's is moved into ``lo``..``hi``: a suggestion the
            scenario's bounds would refuse is never offered), or for a number a function of the
            form's current values giving it (set again when a choice changes, unless edited).
        lo, hi: bounds of a number (inclusive).
        required: a choice/multi must be set, a number must be filled in.
        hint: shown under the field, or a function of the form's current values giving it
            (set again when a choice changes: the polish hours' note follows the draft).
        tick_highlighted: a multi field starts with the row highlighted in the panel ticked
            when it is one of the options (the interview form's applicant), as a choice starts
            on it; the player can untick it.
    """

    name: str
    label: str
    kind: FieldKind = "choice"
    options: Options | Callable[[dict], Options] = field(default_factory=list)
    default: Any | Callable[[dict], float] = None
    lo: float | None = None
    hi: float | None = None
    required: bool = True
    hint: str | Callable[[dict], str] = ""
    tick_highlighted: bool = False

    def __post_init__(self) -> None:
        if self.kind == "number" and isinstance(self.default, (int, float)):
            self.default = self.bounded(self.default)

    def bounded(self, value: float) -> float:
        """``value`` moved into ``lo``..``hi``."""
        if self.hi is not None:
            value = min(value, self.hi)
        if self.lo is not None:
            value = max(value, self.lo)
        return value

    def filled(self, value: Any) -> bool:
        """``value`` (as the form holds it: a number's text, a list, a choice or ``None``) is
        entered: a number's text not blank, a list with something ticked, a choice made. A
        required field not filled is refused by :func:`validate`."""
        if self.kind == "number":
            return value is not None and bool(str(value).strip())
        if self.kind == "multi":
            return bool(value)
        return value is not None

    def hint_for(self, values: dict) -> str:
        """The hint given the form's current ``values`` (a callable hint called)."""
        return self.hint(values) if callable(self.hint) else self.hint

    def default_for(self, values: dict) -> Any:
        """The starting value given the form's current ``values`` (a callable default called
        and, for a number, bounded)."""
        if not callable(self.default):
            return self.default
        value = self.default(values)
        return self.bounded(value) if isinstance(value, (int, float)) else value


@dataclass
class ActionSpec:
    """One keyboard action.

    Attributes:
        id: stable id (binding id, palette entry).
        key: the key that opens it.
        title: a short imperative ("Polish a draft").
        tab: the panel it belongs to (its footer shows the key).
        api: ``"namespace.method"`` it calls.
        fields: builds the form's fields from the game (empty: a plain confirmation).
        run: makes the API call from the validated values; returns the API's result.
        unavailable: a reason the action cannot be taken now, or ``None``.
        done: turns the result into the notification text.
        summary: live line under the form (e.g. hours left while setting mentoring).
        confirm: for an irreversible action, the question naming its target in full that
            the form asks (yes/no) before making the call; ``""`` for these values: sent
            without asking (a submission or a proposal asks only when it can never be decided,
            a new project only when it can no longer add to Impact).
        target: what the form acts on, for the line above OK (``None``: the form names each
            choice field's chosen option, :meth:`~pibench_tui.tui.screens.form.ActionForm.target`).
    """

    id: str
    key: str
    title: str
    tab: str
    api: str
    fields: Callable[[Game], list[Field]]
    run: Callable[[Game, dict], Any]
    unavailable: Callable[[Game], str | None] = lambda g: None
    done: Callable[[Any], str] = lambda r: "done"
    summary: Callable[[Game, dict], str] | None = None
    description: str | Callable[[Game], str] = ""
    confirm: Callable[[Game, dict], str] | None = None
    target: Callable[[Game, dict], str] | None = None

    def describe(self, game: Game | None) -> str:
        """The description, with this scenario's costs formatted from its rules (``""``: none)."""
        if callable(self.description):
            return self.description(game) if game is not None else ""
        return self.description


# ---------------------------------------------------------------------------- helpers
def _money(x: float) -> str:
    return f"${x:,.0f}"


def _cfg(g: Game) -> Any:
    """This scenario's ``WorldConfig``, for the few UI defaults that are not rules (a suggested
    proposal length); every rule comes from :func:`rule` (``lab.rules()``)."""
    return g.world.cfg


def plural(n: float, word: str) -> str:
    """``"1 month"``, ``"2 months"``: a count with its noun in the right number."""
    return f"{n:g} {word}" if n == 1 else f"{n:g} {word}s"


def _hours_left(g: Game) -> float:
    return float(g.call("lab.attention")["left"])


def _left_hint(g: Game, note: str = "") -> str:
    """``"6.5 h left this month (pool 76 h)"``, then ``note`` (:func:`hours_within_left`) if any."""
    a = g.call("lab.attention")
    return f"{a['left']:g} h left this month (pool {a['pool']:g} h)" + (f"; {note}" if note else "")


def hours_within_left(g: Game, usual: float, lo: float = 0.0) -> tuple[float, str]:
    """The starting hours of a form that spends the PI's attention this month (a proposal, a
    polish, a revision): ``usual`` lowered to the hours left when fewer are left, and the note
    saying so (``""`` when not lowered). When fewer than ``lo`` (the rule's minimum) are left the
    number is the hours left all the same and the field moves it up to ``lo`` (:meth:`Field.bounded`):
    no note, the form's summary or the API's refusal says why it cannot be sent. With no hours
    left at all it is ``usual``, no note: a form never starts on 0 h (a revision of 0 h is
    accepted and uses up the month's revision for nothing); the refusal says none are left.

    Returns:
        ``(hours, note)``, e.g. ``(22.5, "the usual 25 h lowered to the 22.5 h left")``.
    """
    left = _hours_left(g)
    if left <= 0:
        return usual, ""
    note = f"the usual {usual:g} h lowered to the {left:g} h left" if lo <= left < usual else ""
    return min(usual, left), note


def _applicants(g: Game, status: tuple[ApplicantStatus, ...] = ("pending",)) -> Options:
    out = []
    for a in g.call("recruit.applicants"):
        if a["status"] in status:
            iv = "—" if a["interview"] is None else f"{a['interview']:.2f}"
            out.append(
                (f"{a['id']} {a['name']} ({a['pool']}) T {a['transcript']:.2f} L {a['letter']:.2f} I {iv}", a["id"])
            )
    return out


def _active_people(g: Game) -> list[dict]:
    """``students.list()``'s active people, in the Lab table's order (:func:`~pibench_tui.tui.alerts.lab_order`)."""
    return in_lab_order(g.dashboard(), [r for r in g.call("students.list") if r["status"] == "active"])


def _people(g: Game, roles: tuple[Role, ...] | None = None) -> Options:
    rows = [r for r in _active_people(g) if roles is None or r["role"] in roles]
    return [(f"{r['id']} {r['name']} ({r['role']})", r["id"]) for r in rows]


def _members(g: Game, on: bool) -> Callable[[dict], Options]:
    """People of the chosen project (``on``) or everyone not on it, as the project choice
    changes; those not on it start with the idle people (the first is the default), and the
    others say which projects they are on (as in the start form). For a project with no member
    who can author (none left, or only RAs: an orphaned project; draft authors are its PhD
    students and postdocs, MECHANICS §6) those not on it start with the researchers (idle
    first), so the default can author."""
    people = _people(g)
    staff = {r["id"] for r in _active_people(g) if r["role"] in ("ra", "manager")}
    members = {p["id"]: set(p["members"]) for p in g.call("projects.list") if p["status"] == "active"}
    idle = set(idle_people(g.dashboard()))
    projects_of: dict[str, list[str]] = {}
    for project, ids in members.items():
        for pid in ids:
            projects_of.setdefault(pid, []).append(project)

    def opts(values: dict) -> Options:
        mine = members.get(values.get("project"), set())
        out = [(label, pid) for label, pid in people if (pid in mine) == on]
        if not on:
            out = [(f"{label} · idle", pid) for label, pid in out if pid in idle] + [
                (f"{label} · on {', '.join(projects_of[pid])}" if pid in projects_of else label, pid)
                for label, pid in out
                if pid not in idle
            ]
            if mine <= staff:  # nobody on it can author: researchers first (a stable sort)
                out.sort(key=lambda o: o[1] in staff)
        return out

    return opts


def _projects(g: Game) -> Options:
    return [
        (
            f"{p['id']} {p['topic']} tier {p['tier']} · {p['progress_pct']:g}% · {p['monthly_compute']:,.0f} units",
            p["id"],
        )
        for p in g.call("projects.list")
        if p["status"] == "active"
    ]


def _drafts(g: Game, rejected_only: bool = False) -> Options:
    rejected = {s["draft_id"] for s in g.call("papers.submissions") if s["status"] == "reject"}
    out = []
    for d in g.call("papers.drafts"):
        if d["status"] != "available" or (rejected_only and d["id"] not in rejected):
            continue
        tag = " salvage" if d["salvage"] else " collab" if d["collab"] else ""
        out.append(
            (
                f"{d['id']} {d['topic']} tier {d['tier']}{tag} · polish {d['polish_hours']:g} h · rev {d['revisions']}",
                d["id"],
            )
        )
    return out


def open_venues(g: Game) -> Options:
    """Venues taking submissions this month, each with its decision month and the month an
    acceptance would be published (§7, :func:`world.papers.publication_month`), and "after
    the horizon" on a decision month after the career's last (a decision then is never made),
    "after 60" on a publication month after it (a paper published then earns no citations; its
    decision month, when the acceptance still moves reputation, is named too). Short enough for an 80-column form;
    :func:`_submit_summary` says the same in full."""
    dash = g.dashboard()
    deadlines = set(dash["venue_deadlines_this_month"])
    cfg = g.world.cfg
    last = int(rule(g, "horizon_months"))
    out = []
    for v in g.query("select name, kind from venues"):
        if v["kind"] in ("workshop", "journal") or v["name"] in deadlines:
            decided = decision_month(cfg, v["name"], g.world.month)
            published = publication_month(cfg, v["name"], decided)
            if decided > last:
                when = f"decision {decided}, after the horizon"
            elif published > last:  # decided in time (reputation), published too late (no citations)
                when = f"decision {decided}, published {published}, after {last}"  # one line at 80 columns
            else:
                when = f"decision {decided}, published {published}"
            out.append((f"{v['name']} ({v['kind']}): {when}", v["name"]))
    return out


def venue_in_time(g: Game, options: Options) -> str | None:
    """The submit form's default venue: the first of ``options`` (:func:`open_venues`, in the
    venues table's order, the one the form defaulted to before) whose acceptance would be
    published by the last month (:func:`pibench_tui.tui.alerts.publishes_too_late`, §7, §12);
    ``None`` (the form's own default, the first option) when none would be."""
    return next((v for _, v in options if not publishes_too_late(g, v, g.world.month)), None)


def _topics() -> Options:
    return [(t, t) for t in TOPICS]


def _need(options: Options, what: str) -> str | None:
    return None if options else what


def _event_options(g: Game) -> Options:
    out = []
    for e in g.call("events.pending"):
        out.append(
            (
                f"{e['id']} {e['kind'].replace('_', ' ')} · {event_details(e)} · answer by month {e['respond_by_month']}",
                e["id"],
            )
        )
    return out


def soonest_event(g: Game) -> str | None:
    """The answer form's default event: the pending one whose last month to answer comes
    first (ties: a student crisis, whose lapse costs morale, then by id); ``None``: none."""
    pending = g.call("events.pending")
    if not pending:
        return None
    first = min(pending, key=lambda e: (e["respond_by_month"], e["kind"] != "student_crisis", e["id"]))
    return str(first["id"])


def event_details(e: dict) -> str:
    """An event's details as a sentence for the player (its text, then what it asks of you)."""
    d = e.get("details") or {}
    text = str(d.get("text") or "").strip()
    asks = []
    if isinstance(d.get("hours_per_month"), (int, float)):
        months = d.get("months")
        asks.append(
            f"{d['hours_per_month']:g} h a month"
            + (f" for {plural(months, 'month')}" if isinstance(months, (int, float)) else "")
        )
    elif isinstance(d.get("hours"), (int, float)):
        asks.append(f"{d['hours']:g} h")
    if isinstance(d.get("cost_usd"), (int, float)):
        asks.append(_money(d["cost_usd"]))
    shown = {"text", "hours", "hours_per_month", "months", "cost_usd", "student_id", "name", "topic"}
    for k, v in d.items():  # anything else the API adds, as "key value"
        if k not in shown and not k.startswith("_") and isinstance(v, (str, int, float)):
            asks.append(f"{k.replace('_', ' ')} {v:g}" if isinstance(v, float) else f"{k.replace('_', ' ')} {v}")
    out = text + (f" ({', '.join(asks)})" if asks else "")
    return out or "—"


def _who(g: Game, pid: Any) -> str:
    """``"APP004 Wen Kaur (pool A)"`` / ``"RA001 Ana Li (ra)"`` / ``"P003 reasoning tier 2"``."""
    for a in g.call("recruit.applicants"):
        if a["id"] == pid:
            return f"{a['id']} {a['name']} (pool {a['pool']})"
    for r in g.call("students.list"):
        if r["id"] == pid:
            return f"{r['id']} {r['name']} ({r['role']})"
    for p in g.call("projects.list"):
        if p["id"] == pid:
            return f"{p['id']} {p['topic']} tier {p['tier']} ({p['progress_pct']:g}% done)"
    return str(pid)


# ---------------------------------------------------------------------------- actions
def _mentoring_fields(g: Game) -> list[Field]:
    """One hours field per active person, in the Lab table's order."""
    return [
        Field(
            f"h:{r['id']}",
            f"{r['id']} {r['name']} ({r['role']})",
            "number",
            default=r["mentoring_hours"],
            lo=0,
            hi=rule(g, "caps.mentoring_hours"),
            hint="",
        )
        for r in _active_people(g)
    ]


def _mentoring_summary(g: Game, values: dict) -> str:
    a = g.call("lab.attention")
    total = 0.0
    for k, v in values.items():
        if k.startswith("h:"):
            try:
                total += float(v or 0)
            except (TypeError, ValueError):
                pass
    left = a["pool"] - a["oneoff_used"] - total
    return (
        f"mentoring total {total:g} h · pool {a['pool']:g} h · used this month {a['oneoff_used']:g} h · "
        f"left after this: {left:g} h"
    )


def _offer_summary(g: Game, values: dict) -> str:
    """PhD pay and this pool's record, before the offer is made."""
    pools = {a["id"]: a["pool"] for a in g.call("recruit.applicants")}
    pool = pools.get(values.get("applicant"))
    arrive = season_months(g.rules, g.world.month).arrival
    out = f"If accepted: {_money(rule(g, 'pay.phd'))}/month from arrival (month {arrive}) until graduation or quitting."
    return out + (f" {pool_record(g, pool).capitalize()}." if pool else "")


def _interview_summary(g: Game, values: dict) -> str:
    """Hours the ticked interviews cost (only candidates not interviewed yet), against hours left."""
    done = {a["id"] for a in g.call("recruit.applicants") if a["interview"] is not None}
    new = [i for i in values.get("ids") or [] if i not in done]
    cost = len(new) * rule(g, "hours.interview")
    left = _hours_left(g)
    return f"{len(new)} new interview(s) × {rule(g, 'hours.interview'):g} h = {cost:g} h of {left:g} h left" + (
        " — more than is left!" if cost > left else f" → {left - cost:g} h left after"
    )


def _submit_summary(g: Game, values: dict) -> str:
    """The chosen venue's bar and worth (world.explain), its decision month, when an
    acceptance is published and what the horizon does to it (:func:`explain.publication_note`),
    and the lab's record there."""
    venue = values.get("venue")
    if not venue:
        return ""
    cfg = g.world.cfg
    when = ""
    if venue in cfg.venues:
        decided = decision_month(cfg, venue, g.world.month)
        when = f"decision at the end of month {decided}"
        note = explain.publication_note(cfg, venue, decided)
        if note:
            when += "; " + ("" if explain.never_decided(cfg, decided) else "if accepted, ") + note
    worth = explain.venue_worth(cfg, venue) if venue in cfg.venues else ""
    return " · ".join(x for x in (worth, when, venue_record(g, venue)) if x)


def _submit_question(g: Game, values: dict) -> str:
    """The question asked before a submission that can never be decided (its decision month
    is after the horizon: :func:`world.explain.never_decided`); ``""`` (sent without asking)
    when it is decided within the career."""
    cfg, venue = g.world.cfg, values.get("venue")
    never = explain.never_decided(cfg, decision_month(cfg, venue, g.world.month)) if venue in cfg.venues else ""
    if not never:
        return ""
    return f"Submit {values['draft']} to {venue}? It would be {never}: it can never count in this career."


def _submit_done(r: dict) -> str:
    """The notification after a submission: its id, and what the horizon does to it (the API's
    ``note``: never decided, or published after the last month) or else when it is decided."""
    return f"submitted as {r['submission_id']}; " + (
        r["note"] if r.get("note") else f"decision expected in month {r['decision_expected_month']}"
    )


def _propose_summary(g: Game, values: dict) -> str:
    """The fee, the hours against hours left, the awards running now (each lowers a new
    proposal's quality, §9 overcommit: world.explain.running_awards) and the lab's record with that agency and topic;
    first, when the world would refuse a proposal to the chosen call this month
    (:func:`~pibench_tui.tui.alerts.call_refusal`), why, and when it would be decided after the
    horizon, that (:func:`world.explain.proposal_horizon_note`)."""
    calls = {c["id"]: c for c in g.call("grants.calls")}
    call = calls.get(values.get("call"))
    try:
        hours = float(values.get("hours") or 0)
    except (TypeError, ValueError):
        hours = 0.0
    out = f"costs {_money(rule(g, 'costs.proposal'))} and {hours:g} h of {_hours_left(g):g} h left"
    running = explain.running_awards(g.query, g.world.month)  # the words a rejection's explanation uses
    if running:
        out += f" · {running}"
    if call:
        refused = call_refusal(g, call["id"])  # the world's own check, before ctrl+o is refused
        out = f"{call['id']} would be refused now: {refused} · " + out if refused else out
        if late := proposal_late_note(g, call["agency"], g.world.month):
            out = f"{late} · {out}"
        out += f" · {agency_record(g, call['agency'], values.get('topic'))}"
    return out


def _propose_question(g: Game, values: dict) -> str:
    """The question asked before a proposal that can never be decided (its decision month is
    after the horizon: :func:`world.explain.proposal_horizon_note`); ``""`` (sent without
    asking) when it is decided within the career, or when the world would refuse it anyway
    (:func:`~pibench_tui.tui.alerts.call_refusal`: nothing is spent, the refusal says why)."""
    call = {c["id"]: c for c in g.call("grants.calls")}.get(values.get("call"))
    if call is None or call_refusal(g, call["id"]):
        return ""
    late = proposal_late_note(g, call["agency"], g.world.month)
    if not late:
        return ""
    return f"Send a proposal to {call['id']} ({_money(rule(g, 'costs.proposal'))} fee)? It would be {late}."


def _start_note(g: Game) -> str:
    """What the horizon does to a project started this month, in the world's words
    (:func:`world.explain.project_start_note`, the API's ``note`` on ``projects.start``):
    ``""`` while a project started now can still make a draft decided in the career."""
    return explain.project_start_note(g.world.cfg, g.world.month)


def _start_question(g: Game, values: dict) -> str:
    """The question asked before starting a project that cannot add to Impact any more
    (:func:`_start_note`); ``""`` (started without asking) before."""
    note = _start_note(g)
    if not note:
        return ""
    return f"Start a tier {values['tier']} {values['topic']} project in month {g.world.month}? {note[:1].upper()}{note[1:]}."


def _units(g: Game, values: dict) -> float | None:
    """The form's compute units per month, or ``None`` when they are not a number from 0 to the
    scenario's cap per project (a bill is previewed only for units the API would take): an
    empty field is no number (the form refuses it, "enter a number"), not 0 units."""
    text = str(values.get("compute") or "").strip()
    try:
        units = float(text) if text else None
    except ValueError:
        return None
    return units if units is not None and 0 <= units <= rule(g, "caps.compute_per_project") else None


def _units_needed(g: Game, values: dict) -> str:
    """What the compute field takes, said where a bill cannot be previewed (:func:`_units`):
    that it is empty when it is."""
    empty = "the field is empty; " if not str(values.get("compute") or "").strip() else ""
    return f"{empty}enter 0 to {rule(g, 'caps.compute_per_project'):,.0f} units a month to see the bill"


def _start_summary(g: Game, values: dict) -> str:
    """The compute bill per month at this month's price, and the team; first, when a project
    started now cannot add to Impact any more, that (:func:`_start_note`); last, when no member
    ticked can author, what that means (:func:`world.explain.authorless_team_note`, the note
    ``projects.start`` replies with)."""
    dash = g.dashboard()
    roles = {p["id"]: p["role"] for p in dash["students"] + dash["staff"]}
    notes = [
        _start_note(g),
        _start_bill(g, values),
        explain.authorless_team_note(roles, list(values.get("members") or [])),
    ]
    return " · ".join(n for n in notes if n)


def _start_bill(g: Game, values: dict) -> str:
    """The compute bill per month at this month's price, and the team."""
    units = _units(g, values)
    price = compute_price(g)
    members = list(values.get("members") or [])
    team = (
        f"{plural(len(members), 'member')} ({', '.join(members)})"
        if members
        else "no member yet: tick at least one (space)"
    )
    if units is None:
        return f"compute: {_units_needed(g, values)} · {team}"
    bill = units * rule(g, "costs.compute_unit") * price
    return (
        f"compute {units:,.0f} units × {_money(rule(g, 'costs.compute_unit'))} × price {price:g} = {_money(bill)}/month "
        f"(billed at each month's end, at that month's price) · {team}"
    )


COMPUTE_BUYS = (
    "Compute speeds a staffed project's monthly progress and raises its finished draft's quality "
    "(the project's average units over its life count), with diminishing returns; it does nothing "
    "in a month the project has no member."
)
"""What compute buys (MECHANICS §6), in words: the rule's numbers stay in the rules."""


def _compute_summary(g: Game, values: dict) -> str:
    """The chosen project's bill per month now and with the new units, at this month's price."""
    units = _units(g, values)
    unit, price = rule(g, "costs.compute_unit"), compute_price(g)
    now = {p["id"]: float(p["monthly_compute"]) for p in g.call("projects.list")}.get(values.get("project"))
    if units is None:
        out = f"new bill: {_units_needed(g, values)}"
    else:
        out = f"new bill {units:,.0f} units × {_money(unit)} × price {price:g} = {_money(units * unit * price)}/month"
    if now is not None:
        out += f" (now {now:,.0f} units = {_money(now * unit * price)}/month)"
    return out + " · billed at each month's end, at that month's price"


def _polish_done(g: Game, draft: Any) -> float | None:
    """The polish hours ``draft`` already has (``None``: no such draft)."""
    return {d["id"]: float(d["polish_hours"]) for d in g.call("papers.drafts")}.get(draft)


def polish_hours_default(g: Game, values: dict) -> float:
    """The polish form's starting hours for the chosen draft: those that still add something
    before the saturation (§7, ``hours.polish_saturation``), 0 when it has them all."""
    done = _polish_done(g, values.get("draft")) or 0.0
    return max(0.0, rule(g, "hours.polish_saturation") - done)


REVISE_HOURS = 8.0
"""The revise form's suggested hours (a UI default, not a rule), never past the saturation."""


def revise_hours_usual(g: Game) -> float:
    """The revise form's usual hours: :data:`REVISE_HOURS`, at most ``hours.revise_saturation`` (§7)."""
    return min(REVISE_HOURS, rule(g, "hours.revise_saturation"))


def _polish_summary(g: Game, values: dict) -> str:
    """The chosen draft's polish so far and how many of the typed hours would still add
    something before the saturation (hours past it cost attention and add nothing)."""
    sat = rule(g, "hours.polish_saturation")
    done = _polish_done(g, values.get("draft"))
    if done is None:
        return ""
    out = f"{values['draft']} has {done:g} h of polish; gains stop at {sat:g} h in total"
    if done >= sat:
        out += " · more polish adds nothing to it (submit it, or revise it after a review)"
    try:
        hours = float(values.get("hours") or 0)
    except (TypeError, ValueError):
        return out
    wasted = min(hours, max(0.0, done + hours - sat))
    if wasted > 0:
        out += f" · {wasted:g} of these {hours:g} h would add nothing (polish {max(0.0, sat - done):g} h at most)"
    return out


def _respond_summary(g: Game, values: dict) -> str:
    """What each answer to the chosen event costs and does."""
    pending = {e["id"]: e for e in g.call("events.pending")}
    e = pending.get(values.get("event"))
    if e is None:
        return ""
    late = after_the_end(g, e["kind"], e["respond_by_month"], g.world.month)
    answers = event_answers(g, e["kind"])
    return f"{late[:1].upper()}{late[1:]}. Answers: {answers}" if late else answers


def _respond_actions(g: Game) -> Callable[[dict], Options]:
    kinds = {e["id"]: e["kind"] for e in g.call("events.pending")}

    def opts(values: dict) -> Options:
        kind = kinds.get(values.get("event"))
        if kind is None:
            return []
        acts = EVENT_ACTIONS.get(kind, ())
        if kind == "student_crisis":
            acts = ("support", "ignore")
        return [(f"{a}", a) for a in acts]

    return opts


def _propose_unavailable(g: Game) -> str | None:
    """Why no proposal can be sent now: no call open, or every open call refused by the
    world's own check (alerts.call_refusal, in its words); ``None`` when one can."""
    calls = g.call("grants.calls")
    if not calls:
        return "no grant call is open this month"
    refused = [(c["id"], call_refusal(g, c["id"])) for c in calls]
    if all(why for _, why in refused):
        return "no open call takes a proposal from the lab now: " + "; ".join(f"{cid}: {why}" for cid, why in refused)
    return None


def _propose_fields(g: Game) -> list[Field]:
    calls = g.call("grants.calls")
    attach = [
        (f"{p['id']} {p['venue']} {p['topic']} ({p['citations']} cit.)", p["id"]) for p in g.call("papers.publications")
    ]
    pubs_drafts = {p.get("draft_id") for p in g.call("papers.publications")}
    attach += [
        (f"{d['id']} draft {d['topic']} tier {d['tier']} ({d['status'].replace('_', ' ')})", d["id"])
        for d in g.call("papers.drafts")
        if d["id"] not in pubs_drafts
    ]
    usual = float(_cfg(g).grant_hours_ref)  # a suggested length, not a rule
    lo = rule(g, "hours.proposal_min")
    hours, lowered = hours_within_left(g, usual, lo)
    return [
        Field(
            "call",
            "Call",
            options=[
                (
                    f"{c['id']} {c['agency']} {_money(c['award'])} over {plural(c['duration_months'], 'month')} · "
                    f"apply by month {c['last_month_to_apply']} · decision after {plural(c['decision_delay_months'], 'month')}",
                    c["id"],
                )
                for c in calls
            ],
            default=call_to_propose(g),  # the call the header's warning names (issue 27)
        ),
        Field("topic", "Topic", options=_topics(), default="reasoning"),
        Field(
            "hours",
            f"Hours of writing (≥ {rule(g, 'hours.proposal_min'):g}; {_money(rule(g, 'costs.proposal'))} admin fee)",
            "number",
            default=hours,
            lo=lo,
            hint=_left_hint(g, lowered),
        ),
        Field("attach", "Evidence to attach (space to toggle)", "multi", options=attach, required=False),
    ]


STARTING_TEAM = 2
"""How many idle people the start-project form ticks for the player: a pair, the team the
tutorial suggests (a UI default, not a rule: any number of members may start a project)."""


def _member_options(g: Game, dash: dict) -> Options:
    """Everyone who may join a project, each saying whether they are idle or on which projects."""
    on: dict[str, list[str]] = {}
    for p in dash["active_projects"]:
        for x in p["members"]:
            on.setdefault(x, []).append(p["id"])
    return [(f"{label} · " + (f"on {', '.join(on[pid])}" if pid in on else "idle"), pid) for label, pid in _people(g)]


def _members_hint(idle: list[str], chosen: list[str], anyone: bool) -> str:
    """What the members field starts with, and why."""
    if chosen:
        rest = [x for x in idle if x not in chosen]
        return (
            f"Ticked as the form opened: {', '.join(chosen)}, on no project (idle people are paid and produce nothing)"
            + (f"; also idle: {', '.join(rest)}" if rest else "")
            + ". Someone already on a project splits their effort equally between their projects."
        )
    if anyone:
        return (
            "Nobody is idle: everyone is on a project already, so nobody is ticked. Tick someone with space: "
            "their effort is then split equally between their projects."
        )
    return ""


def _start_fields(g: Game) -> list[Field]:
    dash = g.dashboard()
    idle = idle_people(dash)
    chosen = idle[:STARTING_TEAM]
    members = _member_options(g, dash)
    return [
        Field("topic", "Topic", options=_topics(), default="reasoning"),
        Field(
            "tier",
            "Tier (1 small, 2 solid, 3 ambitious)",
            options=[("1 — small", 1), ("2 — solid", 2), ("3 — ambitious", 3)],
            default=2,
        ),
        Field(
            "members",
            "Members (space to toggle)",
            "multi",
            options=members,
            default=chosen,
            hint=_members_hint(idle, chosen, bool(members)),
        ),
        Field(
            "compute",
            f"Compute units per month ({_money(rule(g, 'costs.compute_unit'))} each × this month's price "
            f"{compute_price(g):g})",
            "number",
            default=1500,
            lo=0,
            hi=rule(g, "caps.compute_per_project"),
        ),
    ]


ACTIONS: list[ActionSpec] = [
    # ---------------------------------------------------------------- people
    ActionSpec(
        "mentoring",
        "m",
        "Set mentoring hours",
        "people",
        "students.set_mentoring",
        _mentoring_fields,
        lambda g, v: g.call("students.set_mentoring", {k[2:]: float(x) for k, x in v.items() if k.startswith("h:")}),
        lambda g: _need(_people(g), "nobody is in the lab yet: hire students, a postdoc or staff first"),
        lambda r: f"mentoring set: {r['mentoring_total']:g} h a month in total",
        _mentoring_summary,
        lambda g: f"Standing monthly hours for every active person (0-{rule(g, 'caps.mentoring_hours'):g} h each).",
    ),
    ActionSpec(
        "post_postdoc",
        "P",
        "Post a postdoc search",
        "people",
        "recruit.post_postdoc",
        lambda g: [],
        lambda g, v: g.call("recruit.post_postdoc"),
        done=lambda r: r.get("note", "search posted"),
        description=lambda g: (
            f"{_money(rule(g, 'costs.postdoc_search'))} now; the search resolves "
            f"{plural(rule(g, 'postdoc.search_months'), 'month')} later "
            f"({_money(rule(g, 'pay.postdoc'))}/month if filled, a {rule(g, 'postdoc.contract_months')}-month contract) · "
            f"{postdoc_record(g)}."
        ),
    ),
    ActionSpec(
        "renew_postdoc",
        "r",
        "Renew a postdoc",
        "people",
        "recruit.renew_postdoc",
        lambda g: [Field("postdoc", "Postdoc", options=_people(g, ("postdoc",)))],
        lambda g, v: g.call("recruit.renew_postdoc", v["postdoc"]),
        lambda g: _need(_people(g, ("postdoc",)), "the lab has no active postdoc"),
        lambda r: f"contract extended to month {r['new_contract_end']}",
        description=lambda g: (
            f"Adds {rule(g, 'postdoc.renewal_months')} months at {_money(rule(g, 'pay.postdoc'))}/month; "
            f"possible within {rule(g, 'postdoc.renewal_window_months')} months of the contract's end."
        ),
    ),
    ActionSpec(
        "hire_ra",
        "R",
        "Hire a research assistant",
        "people",
        "recruit.hire_ra",
        lambda g: [],
        lambda g, v: g.call("recruit.hire_ra"),
        done=lambda r: r.get("note", "hired"),
        description=lambda g: (
            f"{_money(rule(g, 'pay.ra'))}/month from now; adds effort, never an author; "
            f"{rule(g, 'attention.oversight_per_ra'):g} h oversight a month."
        ),
    ),
    ActionSpec(
        "hire_manager",
        "M",
        "Hire a lab manager",
        "people",
        "recruit.hire_manager",
        lambda g: [],
        lambda g, v: g.call("recruit.hire_manager"),
        done=lambda r: r.get("note", "hired"),
        description=lambda g: (
            f"{_money(rule(g, 'pay.manager'))}/month; {rule(g, 'attention.oversight_manager_relief'):g} h less oversight "
            f"per researcher each; at most {rule(g, 'caps.managers')}."
        ),
    ),
    ActionSpec(
        "dismiss",
        "X",
        "Dismiss an RA or manager",
        "people",
        "recruit.dismiss",
        lambda g: [Field("staff", "Staff member", options=_people(g, ("ra", "manager")))],
        lambda g, v: g.call("recruit.dismiss", v["staff"]),
        lambda g: _need(_people(g, ("ra", "manager")), "the lab has no RA or lab manager"),
        lambda r: r.get("note", "dismissed"),
        description="They leave at the end of this month (still paid for it).",
        confirm=lambda g, v: f"Dismiss {_who(g, v['staff'])}? They leave at this month's end; this cannot be undone.",
    ),
    # ---------------------------------------------------------------- recruiting
    ActionSpec(
        "interview",
        "i",
        "Interview applicants",
        "applicants",
        "recruit.interview",
        lambda g: [
            Field(
                "ids",
                f"Applicants (space to toggle; {rule(g, 'hours.interview'):g} h per new candidate)",
                "multi",
                options=_applicants(g, ("pending", "offered")),
                hint=_left_hint(g),
                tick_highlighted=True,  # the applicant the panel's cursor is on (QA: other forms start there)
            )
        ],
        lambda g, v: g.call("recruit.interview", list(v["ids"])),
        lambda g: (
            None
            if g.call("recruit.applicants")
            else "no applicants: the recruiting season runs in months 1-3 of each year"
        ),
        lambda r: "interview scores: " + ", ".join(f"{k} {v:.2f}" for k, v in r["interview_scores"].items()),
        summary=_interview_summary,
    ),
    ActionSpec(
        "offer",
        "o",
        "Make a PhD offer",
        "applicants",
        "recruit.offer",
        lambda g: [Field("applicant", "Applicant", options=_applicants(g))],
        lambda g, v: g.call("recruit.offer", v["applicant"]),
        lambda g: None if _applicants(g) else "no pending applicants: offers are possible in months 1-3 of each year",
        lambda r: r.get("note", "offer sent"),
        summary=_offer_summary,
        confirm=lambda g, v: f"Send a PhD offer to {_who(g, v['applicant'])}? An offer cannot be taken back.",
        target=lambda g, v: _who(g, v["applicant"]) if v.get("applicant") else "Applicant: none chosen",
    ),
    # ---------------------------------------------------------------- projects
    ActionSpec(
        "start_project",
        "s",
        "Start a project",
        "projects",
        "projects.start",
        _start_fields,
        lambda g, v: g.call("projects.start", v["topic"], int(v["tier"]), list(v["members"]), float(v["compute"])),
        lambda g: _need(_people(g), "nobody is in the lab to staff a project"),
        lambda r: f"started {r['project_id']}: {r['est_months_note']}" + (f"; {r['note']}" if r.get("note") else ""),
        summary=_start_summary,
        confirm=_start_question,
    ),
    ActionSpec(
        "set_compute",
        "c",
        "Set a project's compute",
        "projects",
        "projects.set_compute",
        lambda g: [
            Field("project", "Project", options=_projects(g)),
            Field(
                "compute",
                "Compute units per month",
                "number",
                default=1500,
                lo=0,
                hi=rule(g, "caps.compute_per_project"),
            ),
        ],
        lambda g, v: g.call("projects.set_compute", v["project"], float(v["compute"])),
        lambda g: _need(_projects(g), "no active project"),
        lambda r: f"compute set to {r['monthly_compute']:,.0f} units/month",
        summary=_compute_summary,
        description=COMPUTE_BUYS,
    ),
    ActionSpec(
        "assign",
        "a",
        "Assign someone to a project",
        "projects",
        "projects.assign",
        lambda g: [
            Field("project", "Project", options=_projects(g)),
            Field("person", "Person", options=_members(g, on=False)),
        ],
        lambda g, v: g.call("projects.assign", v["project"], v["person"]),
        lambda g: _need(_projects(g), "no active project"),
        lambda r: "members now " + ", ".join(r["members"]),
    ),
    ActionSpec(
        "unassign",
        "u",
        "Take someone off a project",
        "projects",
        "projects.unassign",
        lambda g: [
            Field("project", "Project", options=_projects(g)),
            Field("person", "Person", options=_members(g, on=True)),
        ],
        lambda g, v: g.call("projects.unassign", v["project"], v["person"]),
        lambda g: _need(_projects(g), "no active project"),
        lambda r: "members now " + (", ".join(r["members"]) or "nobody"),
    ),
    ActionSpec(
        "kill_project",
        "k",
        "Kill a project",
        "projects",
        "projects.kill",
        lambda g: [Field("project", "Project", options=_projects(g))],
        lambda g, v: g.call("projects.kill", v["project"]),
        lambda g: _need(_projects(g), "no active project"),
        lambda r: "project stopped",
        description="No draft; its members' morale suffers.",
        confirm=lambda g, v: f"Kill {_who(g, v['project'])}? Its work is lost (no draft); this cannot be undone.",
    ),
    # ---------------------------------------------------------------- papers
    ActionSpec(
        "polish",
        "p",
        "Polish a draft",
        "papers",
        "papers.polish",
        lambda g: [
            Field("draft", "Draft", options=_drafts(g)),
            Field(
                "hours",
                f"Hours (gains stop at {rule(g, 'hours.polish_saturation'):g} h in total)",
                "number",
                default=lambda v: hours_within_left(g, polish_hours_default(g, v))[0],
                lo=0,
                hint=lambda v: _left_hint(g, hours_within_left(g, polish_hours_default(g, v))[1]),
            ),
        ],
        lambda g, v: g.call("papers.polish", v["draft"], float(v["hours"])),
        lambda g: _need(_drafts(g), "no available draft to polish"),
        lambda r: f"{r['note']}: {r['total_polish_hours']:g} h of polish in total",
        summary=_polish_summary,
    ),
    ActionSpec(
        "submit",
        "b",
        "Submit a draft",
        "papers",
        "papers.submit",
        lambda g: [
            Field("draft", "Draft", options=_drafts(g)),
            Field(
                "venue", "Venue (open this month)", options=(venues := open_venues(g)), default=venue_in_time(g, venues)
            ),
        ],
        lambda g, v: g.call("papers.submit", v["draft"], v["venue"]),
        lambda g: _need(_drafts(g), "no available draft to submit"),
        _submit_done,
        summary=_submit_summary,
        confirm=_submit_question,
    ),
    ActionSpec(
        "revise",
        "v",
        "Revise a rejected draft",
        "papers",
        "papers.revise",
        lambda g: [
            Field("draft", "Rejected draft", options=_drafts(g, rejected_only=True)),
            Field(
                "hours",
                f"Hours (gains stop at {rule(g, 'hours.revise_saturation'):g} h)",
                "number",
                default=hours_within_left(g, revise_hours_usual(g))[0],
                lo=0,
                hint=_left_hint(g, hours_within_left(g, revise_hours_usual(g))[1]),
            ),
        ],
        lambda g, v: g.call("papers.revise", v["draft"], float(v["hours"])),
        lambda g: _need(_drafts(g, rejected_only=True), "no available draft has been rejected yet"),
        lambda r: f"revision {r['revisions']}: {r['note']}",
    ),
    ActionSpec(
        "withdraw",
        "w",
        "Withdraw a submission",
        "papers",
        "papers.withdraw",
        lambda g: [
            Field(
                "submission",
                "Submission",
                options=[
                    (
                        f"{s['id']} {s['draft_id']} at {s['venue']} · decision month {s['decision_expected_month']}",
                        s["id"],
                    )
                    for s in g.call("papers.submissions")
                    if s["status"] == "under_review"
                ],
            )
        ],
        lambda g, v: g.call("papers.withdraw", v["submission"]),
        lambda g: (
            None
            if any(s["status"] == "under_review" for s in g.call("papers.submissions"))
            else "nothing is under review"
        ),
        lambda r: "withdrawn; the draft is available again",
    ),
    # ---------------------------------------------------------------- grants, field, events
    ActionSpec(
        "propose",
        "g",
        "Write a grant proposal",
        "grants",
        "grants.propose",
        _propose_fields,
        lambda g, v: g.call("grants.propose", v["call"], v["topic"], float(v["hours"]), list(v.get("attach") or [])),
        _propose_unavailable,
        lambda r: (
            f"proposal {r['proposal_id']} sent; "
            + (r["note"] if r.get("note") else f"decision expected in month {r['decision_expected_month']}")
        ),
        summary=_propose_summary,
        confirm=_propose_question,
    ),
    ActionSpec(
        "conference",
        "f",
        "Attend a conference",
        "field",
        "field.attend_conference",
        lambda g: [],
        lambda g, v: g.call("field.attend_conference"),
        done=lambda r: "hallway talk: " + ", ".join(f"{k} {v}" for k, v in r["hallway_intel"].items()),
        description=lambda g: (
            f"{rule(g, 'hours.conference'):g} h and {_money(rule(g, 'costs.conference'))}; "
            "you hear which topics are hot."
        ),
    ),
    ActionSpec(
        "respond",
        "e",
        "Answer an event",
        "events",
        "events.respond",
        lambda g: [
            Field("event", "Event", options=_event_options(g), default=soonest_event(g)),
            Field("action", "Answer", options=_respond_actions(g)),
        ],
        lambda g, v: g.call("events.respond", v["event"], v["action"]),
        lambda g: None if g.call("events.pending") else "no event is waiting for an answer",
        lambda r: f"{r['event']}: {r['action']}",
        summary=_respond_summary,
    ),
]

ACTIONS_BY_ID: dict[str, ActionSpec] = {a.id: a for a in ACTIONS}
"""action id → spec."""

SHORT: dict[str, str] = {
    "mentoring": "Mentoring",
    "post_postdoc": "Postdoc",
    "renew_postdoc": "Renew",
    "hire_ra": "Hire RA",
    "hire_manager": "Manager",
    "dismiss": "Dismiss",
    "interview": "Interview",
    "offer": "Offer",
    "start_project": "Start",
    "set_compute": "Compute",
    "assign": "Assign",
    "unassign": "Unassign",
    "kill_project": "Kill",
    "polish": "Polish",
    "submit": "Submit",
    "revise": "Revise",
    "withdraw": "Withdraw",
    "propose": "Propose",
    "conference": "Conference",
    "respond": "Answer",
}
"""Footer labels of the actions."""


def validate(fields: list[Field], values: dict) -> tuple[dict, list[str]]:
    """Check a form's raw values against its fields.

    Returns:
        ``(clean values, problems)``: numbers as floats, choices as chosen; one message per
        problem (empty when the form may be sent).
    """
    clean: dict = {}
    problems: list[str] = []
    for f in fields:
        v = values.get(f.name)
        if f.kind == "number":
            if not f.filled(v):
                if f.required:
                    problems.append(f"{f.label}: enter a number")
                continue
            text = str(v).strip()
            try:
                x = float(text)
            except ValueError:
                problems.append(f"{f.label}: {text!r} is not a number")
                continue
            if x != x or x in (float("inf"), float("-inf")):
                problems.append(f"{f.label}: enter a finite number")
            elif f.lo is not None and x < f.lo:
                problems.append(f"{f.label}: at least {f.lo:g}")
            elif f.hi is not None and x > f.hi:
                problems.append(f"{f.label}: at most {f.hi:g}")
            else:
                clean[f.name] = x
        elif f.kind == "multi":
            chosen = list(v or [])
            if f.required and not f.filled(chosen):
                problems.append(f"{f.label.split(' (')[0]}: choose at least one")
            clean[f.name] = chosen
        else:
            if not f.filled(v):
                if f.required:
                    problems.append(f"{f.label.split(' (')[0]}: choose one")
                continue
            clean[f.name] = v
    return clean, problems
