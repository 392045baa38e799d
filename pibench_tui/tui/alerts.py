"""Warnings before losses, computed from what the PI observes (the dashboard, the API and
the observable database), never from hidden state.

Each :class:`Alert` names the panel and the key that addresses it; the header shows the
short forms, the digest and the month-end confirmation the long ones. Nothing here
imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from world import explain
from world import grants as world_grants
from world import papers as world_papers
from world.papers import decision_month, last_useful_draft_month, publication_month

from .record import after_the_end, month_of_year, season_months

CONTRACT_WARN_MONTHS = 3
"""Warn when a postdoc contract ends within this many months."""


@dataclass(frozen=True)
class Alert:
    """One warning.

    Attributes:
        kind: stable id (``runway``, ``mood``, ``departure``, ``orphan``, ``contract``,
            ``offers``, ``deadline``, ``call``, ``idle``, ``event``, ``standing``).
        short: a few words for the header.
        text: the sentence for the digest and dialogs (what, when, what to do).
        tab: the panel that addresses it.
        key: the key of the action (or panel) that addresses it; ``""`` when no key can act
            on it now (the header and digest then name none).
        severity: ``"error"`` (a loss this month or next) or ``"warning"``.
        digest: what a month's digest shows instead of ``text`` (``""``: ``text``), for a
            warning the digest has already explained in full in an earlier month.
        target: the id of the one thing the warning is about (a project, an event, a person,
            a draft, a call) that ``key``'s form starts on (:func:`form_start`); ``""`` when it
            names none or several alike.
        also: other keys the text names for the same target (an orphaned project's "or stop
            it (k)"): their forms start on ``target`` too.
    """

    kind: str
    short: str
    text: str
    tab: str
    key: str
    severity: Literal["warning", "error"] = "warning"
    digest: str = ""
    target: str = ""
    also: tuple[str, ...] = ()

    @property
    def style(self) -> str:
        """Rich style of the alert (red for errors, yellow for warnings)."""
        return "bold red" if self.severity == "error" else "yellow"


def form_start(key: str, chosen: str | None, shown: Alert | None, warnings: list[Alert]) -> str | None:
    """The row a form opened with ``key`` starts on (the one rule; README design notes, "A
    warning's key acts on its target"): the row the player put the panel's cursor on
    (``chosen``, a key or a click: their choice wins), else the target of the warning ``!`` showed last (``shown``) when
    ``key`` is its key (or one of its :attr:`Alert.also`), else the target of the first (most
    urgent) of ``warnings`` (the header's) whose key that is, else ``None`` (the form's own default, then the cursor's
    row). A warning's key thus acts on what the warning names: ``a`` on "PJ001 no author"
    assigns to PJ001 whatever row the cursor was left on."""
    if chosen is not None:
        return chosen
    if shown is not None and key in (shown.key, *shown.also) and shown.target:
        return shown.target
    return next((w.target for w in warnings if key in (w.key, *w.also) and w.target), None)


def venue_deadlines(game: Any) -> dict[str, list[int]]:
    """``{venue: [month of year 1..12]}`` of the venues with deadlines (``lab.rules()``)."""
    return {
        name: [int(m) for m in v["deadline_months"]] for name, v in game.rules["venues"].items() if v["deadline_months"]
    }


def lab_order(dash: dict) -> list[str]:
    """Ids of everyone in the lab in the Lab panel's order: researchers (PhD students and
    postdocs, ``dash["students"]``) first, then staff (RAs, managers), each in roster order.
    The one order of people on screen: the Lab table's rows and every form listing people.

    Args:
        dash: ``lab.dashboard()``.
    """
    return [s["id"] for s in dash["students"]] + [s["id"] for s in dash["staff"]]


def in_lab_order(dash: dict, rows: list[dict]) -> list[dict]:
    """``rows`` (dicts with an ``"id"``) in :func:`lab_order`; ids it does not list keep their
    order, after the others."""
    rank = {pid: n for n, pid in enumerate(lab_order(dash))}
    return sorted(rows, key=lambda r: rank.get(r["id"], len(rank)))


def idle_people(dash: dict) -> list[str]:
    """Ids of the people on no active project, researchers (PhD students and postdocs, the
    future authors) first, then RAs (not one leaving at this month's end), in roster order;
    managers do not work on projects.

    Args:
        dash: ``lab.dashboard()``.
    """
    busy = {x for p in dash["active_projects"] for x in p["members"]}
    staff = {s["id"]: s for s in dash["staff"]}
    return [
        pid
        for pid in lab_order(dash)
        if pid not in busy
        and (pid not in staff or (staff[pid]["role"] == "ra" and not staff[pid].get("leaving_at_month_end")))
    ]


def alerts(game: Any, dash: dict | None = None) -> list[Alert]:
    """Every warning for the month now open, most urgent first (empty once the career is over).
    ``dash``: the current ``lab.dashboard()`` if the caller has it.

    Near the horizon a warning that urges an action which provably can no longer count is
    left out (README design notes, "Late-career warnings"): a renewal of a contract ending
    after the last month, a deadline or a grant call whose decision comes after it, projects
    for idle people (or a collaboration) whose draft could not be decided by then."""
    dash = dash or game.dashboard()
    if dash.get("finished"):
        return []
    out = runway_alerts(game, dash) + event_alerts(game, dash) + mood_alerts(game, dash)
    out += departure_alerts(game, dash) + contract_alerts(game, dash) + offer_alerts(game, dash)
    out += deadline_alerts(game, dash) + call_alerts(game, dash)
    out += idle_alerts(dash, last_useful_draft_month(game.world.cfg)) + standing_alerts(game, dash)
    out.sort(key=lambda a: a.severity != "error")
    return out


def cost_cuts(dash: dict) -> list[tuple[str, str, str]]:
    """The ways to cut costs that can act now, as ``(words, tab, key)``: dismissing staff (X)
    when the lab has an RA or manager not already leaving (``recruit.dismiss`` refuses the lab
    without one), lowering compute (c) when an active project is billed compute. Empty: nothing
    to cut. ``dash``: ``lab.dashboard()``."""
    out = []
    if any(s["role"] in ("ra", "manager") and not s.get("leaving_at_month_end") for s in dash["staff"]):
        out.append(("dismiss staff X", "people", "X"))
    if any(float(p.get("monthly_compute") or 0) > 0 for p in dash["active_projects"]):
        out.append(("lower compute c", "projects", "c"))
    return out


class Arrivals(NamedTuple):
    """PhD students who accepted an offer and have not arrived yet (MECHANICS §5).

    Attributes:
        names: their names, in applicant id order.
        month: the career month they arrive (the season's arrival month).
        pay: what they add to the burn, USD a month (``lab.rules()["pay"]["phd"]`` each).
    """

    names: list[str]
    month: int
    pay: float


def arrivals(game: Any, month: int) -> Arrivals | None:
    """The accepted PhD offers not arrived yet in career ``month`` (observable: the applicants
    whose status is ``accepted``), or ``None`` when there are none. The dashboard's runway
    counts only the pay of the people in the lab (§2), so it does not see them coming."""
    names = [r["name"] for r in game.query("select name from applicants where status = 'accepted' order by id")]
    if not names:
        return None
    pay = float(game.rules["pay"]["phd"]) * len(names)
    return Arrivals(names, season_months(game.rules, month).arrival, pay)


def runway_after_arrivals(dash: dict, coming: Arrivals) -> float | None:
    """Months of budget at the burn the lab will have once ``coming`` arrive (the runway's
    rule, MECHANICS §2, with their pay added to ``est_monthly_burn``); ``None`` when that burn
    is ≤ 0."""
    burn = dash["est_monthly_burn"] + coming.pay
    return dash["budget"] / burn if burn > 0 else None


def runway_alerts(game: Any, dash: dict) -> list[Alert]:
    """The runway is shorter than the months left, now or once the accepted PhD students
    arrive (:func:`arrivals`, whose pay the dashboard's runway does not count yet): when the
    budget goes below zero (an error under 6 months), and what can still be done: a proposal
    (g) when an open call takes one from the lab (:func:`call_refusal`), else cutting costs
    (only the cuts that can act now, :func:`cost_cuts`) and when the next call opens
    (:func:`next_call_opening`); with nothing to cut and no call to propose to, no key."""
    m, total = dash["month"], dash["months_total"]
    left = total - m + 1
    runway = dash["runway_months"]
    coming = arrivals(game, m)
    later = runway_after_arrivals(dash, coming) if coming else None
    short_now = runway is not None and runway < left
    if not short_now and (later is None or later >= left):
        return []
    if short_now:
        ends = runway if later is None else min(runway, later)
        head = (
            f"Runway {runway:.1f} months is shorter than the {left} months left: without new grants the "
            f"budget goes below zero around month {m + int(ends)} and the lab collapses. "
        )
        if coming and later is not None:
            head += f"{_arriving(coming)} cuts it to about {later:.1f} months. "
        short = f"runway {runway:.0f} < {left} mo left"
    else:
        assert coming is not None and later is not None
        ends = later
        now = f"Runway {runway:.1f} months now" if runway is not None else "The budget does not shrink now"
        head = (
            f"{now}, but {_arriving(coming)} cuts it to about {later:.1f} months, shorter than the {left} "
            f"months left: without new grants the budget goes below zero around month {m + int(later)} "
            "and the lab collapses. "
        )
        short = f"runway {later:.0f} < {left} mo left after arrivals"
    sev: Literal["warning", "error"] = "error" if ends < 6 else "warning"
    cuts = cost_cuts(dash)
    cut = f"cut costs ({', '.join(words for words, _, _ in cuts)})" if cuts else ""
    if any(call_refusal(game, c["id"]) is None for c in dash["open_grant_calls"]):
        todo, tab, key = "Write a proposal (5 Grants, g)" + (f" or {cut}." if cut else "."), "grants", "g"
    else:
        nxt = next_call_opening(game, m)
        todo = (
            (
                "No open call takes a proposal from the lab this month (why: 5 Grants)"
                if dash["open_grant_calls"]
                else "No grant call is open this month"
            )
            + (f": {cut}" if cut else "; the lab has no RA or manager to dismiss and no compute billed")
            + (f"; the next call opens in month {nxt[0]} ({nxt[1]})." if nxt else "; no call opens before the end.")
        )
        tab, key = (cuts[0][1], cuts[0][2]) if cuts else ("grants", "")
    return [Alert("runway", short, head + todo, tab, key, sev)]


def _arriving(coming: Arrivals) -> str:
    """``"the pay of Ana Li, Bo Wu, arriving in month 5 ($6,400 a month),"``."""
    return f"the pay of {', '.join(coming.names)}, arriving in month {coming.month} (${coming.pay:,.0f} a month),"


def next_call_opening(game: Any, month: int) -> tuple[int, str] | None:
    """``(month, "BSF")``: the first call month after ``month`` in the scenario's published call
    months (``lab.rules()["agencies"]``, MECHANICS §9; agencies opening then joined by ``/``),
    up to the last month; ``None`` when none is left. Rolling agencies have no call months."""
    horizon = int(game.rules["horizon_months"])
    opens: dict[int, list[str]] = {}
    for name, a in game.rules["agencies"].items():
        for om in a.get("call_months") or ():
            if month < int(om) <= horizon:
                opens.setdefault(int(om), []).append(name)
    if not opens:
        return None
    first = min(opens)
    return first, "/".join(sorted(opens[first]))


def event_alerts(game: Any, dash: dict) -> list[Alert]:
    """Events in their last month to answer, and every student crisis (an error: ignored, it
    costs morale); not a collaboration offer whose draft would come too late to count
    (:func:`~pibench_tui.tui.record.after_the_end`)."""
    m = dash["month"]
    return [
        Alert(
            "event",
            f"{e['id']} expires",
            f"{e['id']} {e['kind'].replace('_', ' ')}: this is the last month "
            "to answer; unanswered it lapses at the month's end"
            + (" and counts as ignored (morale falls hard)." if e["kind"] == "student_crisis" else "."),
            "events",
            "e",
            "error" if e["kind"] == "student_crisis" else "warning",
            target=e["id"],
        )
        for e in dash["pending_events"]
        if (e["kind"] == "student_crisis" or e["respond_by_month"] <= m)
        and not (e["kind"] == "collaboration_offer" and after_the_end(game, e["kind"], e["respond_by_month"], m))
    ]


def mood_alerts(game: Any, dash: dict) -> list[Alert]:
    """Researchers whose visible signals come before quitting (world.explain.quit_warning)."""
    out = []
    for s in dash["students"]:
        warning = explain.quit_warning(game.query, game.world.cfg, s["id"], dash["month"])
        if warning:
            out.append(
                Alert(
                    "mood", f"{s['id']} may quit", f"{s['name']} ({s['id']}): {warning}", "people", "m", target=s["id"]
                )
            )
    return out


def drafts_key(game: Any, dash: dict, ids: list[str]) -> str:
    """The key for the drafts ``ids`` a departure leaves with no author: revise (v) when one of
    them can be revised now (:func:`world.papers.revise_refusal`, the check ``papers.revise``
    makes), else submit (b) when one is available, else ``""`` (all under review: no key acts
    on them now). ``dash``: ``lab.dashboard()``."""
    if any(world_papers.revise_refusal(game.world, d) is None for d in ids):
        return "v"
    available = {d["id"] for d in dash["available_drafts"]}
    return "b" if any(d in available for d in ids) else ""


def departure_alerts(game: Any, dash: dict) -> list[Alert]:
    """What departures leave behind (issue 27 §2): in the month after people left, one alert
    naming the projects with no member left (still billed, no progress) or with only RAs and
    managers (no member who can author, :func:`world.explain.orphaned_project_rows`) and their
    drafts with no author left (as the digest's "left behind" lines); in other months, one
    alert per such project. Their key is assign (a), after
    :func:`world.papers.last_useful_draft_month` stop (k): a member could no longer make a
    draft that counts, stopping still saves the bill; with drafts alone, :func:`drafts_key`."""
    query, cfg, m = game.query, game.world.cfg, dash["month"]
    fix = "k" if m > last_useful_draft_month(cfg) else "a"  # late, only stopping a project still saves money
    stop = ("k",) if fix == "a" else ()  # the text's "or stop it (k)" acts on the same project
    log = game.action_log  # which projects once had an author
    rows = {p["id"]: p for p in explain.orphaned_project_rows(query, log)}
    said = dict(zip(rows, explain.orphaned_projects(query, cfg, log, m), strict=True))  # the same rows, in order
    gone = query(f"select id, name from students where left_month = {int(m) - 1} order by id")
    drafts: dict[str, str] = {}  # draft id -> its sentence
    for p in gone:
        ids, texts = explain.orphaned_draft_ids(query, p["id"]), explain.orphaned_drafts(query, p["id"])
        drafts.update(zip(ids, texts, strict=True))
    if gone and (rows or drafts):
        who = ", ".join(p["id"] for p in gone)
        names = ", ".join(f"{p['name']} ({p['id']})" for p in gone)
        short = ", ".join(
            [f"{p} no author" if r["staff"] else f"{p} billed" for p, r in rows.items()]
            + [f"{d} no author" for d in drafts]
        )
        return [
            Alert(
                "departure",
                f"{who} left: {short}",
                f"{names} left in month {m - 1}, leaving behind: "
                + "; ".join([*said.values(), *drafts.values()])
                + ".",
                "projects" if rows else "papers",
                fix if rows else drafts_key(game, dash, list(drafts)),
                target=next(iter(rows or drafts)),  # the first named: what the key's form starts on
                also=stop if rows else (),
            )
        ]
    out = []
    for pid, text in said.items():
        units = float(rows[pid]["monthly_compute"] or 0)
        short = f"{pid} {'no author' if rows[pid]['staff'] else 'no member'}" + (
            f", billed ${units * cfg.compute_unit_cost:,.0f}/mo" if units else ""
        )
        out.append(Alert("orphan", short, text[0].upper() + text[1:] + ".", "projects", fix, target=pid, also=stop))
    return out


def contract_alerts(game: Any, dash: dict) -> list[Alert]:
    """Postdoc contracts ending within :data:`CONTRACT_WARN_MONTHS`, with when renewal opens;
    not one ending after the last month (the contract outlasts the career: renewing changes
    nothing, §5)."""
    m, last = dash["month"], dash["months_total"]
    window = int(game.rules["postdoc"]["renewal_window_months"])  # the scenario's public rule (§5)
    out = []
    for s in dash["students"]:
        end = s.get("contract_end")
        if s["role"] == "postdoc" and end and 0 <= end - m <= CONTRACT_WARN_MONTHS and end <= last:
            out.append(
                Alert(
                    "contract",
                    f"{s['id']} contract ends m{end}",
                    f"{s['name']} ({s['id']}): the postdoc contract ends in month {end}; renewal (r) is open "
                    f"from month {max(1, end - window)}" + (" (now)" if end - m <= window else "") + ".",
                    "people",
                    "r",
                    "error" if end - m <= 1 else "warning",
                    target=s["id"],
                )
            )
    return out


def offer_alerts(game: Any, dash: dict) -> list[Alert]:
    """PhD offers closing next month, or this month with applicants still pending (an error)."""
    m = dash["month"]
    last_offer = season_months(game.rules, m).last_offer
    if m == last_offer - 1:
        return [
            Alert(
                "offers",
                "offers close next month",
                f"PhD offers close at the end of month {m + 1}: "
                "interview (i) and offer (o) before then, or wait a year.",
                "applicants",
                "o",
            )
        ]
    if m == last_offer and any(a["status"] == "pending" for a in game.call("recruit.applicants")):
        return [
            Alert(
                "offers",
                "last month for offers",
                f"Month {m} is the last for PhD offers this season: pending applicants expire at the month's end.",
                "applicants",
                "o",
                "error",
            )
        ]
    return []


def deadline_alerts(game: Any, dash: dict) -> list[Alert]:
    """Venue deadlines next month while the lab has a draft available, unless a submission
    then is decided after the last month (it would never count); one whose acceptance would be
    published after it says so (reputation only: :func:`world.explain.publication_note`)."""
    m, total = dash["month"], dash["months_total"]
    cfg = game.world.cfg
    nxt = month_of_year(m + 1)
    drafts = dash["available_drafts"]
    out = []
    for venue, months in sorted(venue_deadlines(game).items()):
        decided = decision_month(cfg, venue, m + 1) if venue in cfg.venues else m + 1
        if nxt in months and decided <= total and drafts:
            ready = f" ({len(drafts)} draft(s) available)" if drafts else ""
            late = (
                f"; an acceptance {explain.publication_note(cfg, venue, decided)}"
                if venue in cfg.venues and publication_month(cfg, venue, decided) > total
                else ""
            )
            out.append(
                Alert(
                    "deadline",
                    f"{venue} deadline next month",
                    f"{venue}'s deadline is next month (month {m + 1}){ready}: polish (p) now, submit (b) then{late}.",
                    "papers",
                    "p",
                )
            )
    return out


def call_refusal(game: Any, call_id: str) -> str | None:
    """Why the lab may not propose to the open call ``call_id`` this month, in the world's own
    words (:func:`world.grants.refusal`, the check ``grants.propose`` makes: an agency's limit
    of running awards plus pending proposals, FEL once, TIF's cool-down; MECHANICS §9), or
    ``None`` when it may (or no call has that id)."""
    return world_grants.call_refusal(game.world, call_id)


def refused_agencies(game: Any, dash: dict) -> frozenset[str]:
    """The agencies with open calls (``dash["open_grant_calls"]``) none of which the lab may
    apply to this month (:func:`call_refusal`): the calendar names them apart."""
    calls = dash["open_grant_calls"]
    return frozenset({c["agency"] for c in calls} - {c["agency"] for c in calls if call_refusal(game, c["id"]) is None})


def proposal_late_note(game: Any, agency: str, month: int) -> str:
    """What the horizon does to a proposal to ``agency`` written in ``month``, in the world's
    words (:func:`world.explain.proposal_horizon_note` of
    :func:`world.grants.proposal_decision_month`, §9, §12): ``"never decided: month 61 is after
    the horizon …"``; ``""`` when it is decided within the career."""
    cfg = game.world.cfg
    return explain.proposal_horizon_note(cfg, world_grants.proposal_decision_month(cfg, agency, month))


def late_agencies(game: Any, dash: dict) -> frozenset[str]:
    """The agencies with open calls (``dash["open_grant_calls"]``) whose proposal written this
    month would be decided after the career's last month (:func:`proposal_late_note`): it could
    neither fund the lab nor lift its standing, and the calendar marks them too late rather than
    open; the proposal form does not start on them."""
    return frozenset(
        c["agency"] for c in dash["open_grant_calls"] if proposal_late_note(game, c["agency"], dash["month"])
    )


def publishes_too_late(game: Any, venue: str, month: int) -> bool:
    """Whether an acceptance of a paper submitted to ``venue`` in ``month`` would be published
    after the career's last month (:func:`world.papers.decision_month`,
    :func:`world.papers.publication_month`; MECHANICS §7 Accept, §12): such a paper earns no
    citations and no Impact, only an acceptance's reputation (a decision after the horizon is
    never made: the world's note says either, :func:`world.explain.submission_horizon_note`).
    ``venue`` must be one of the scenario's venues."""
    cfg = game.world.cfg
    return bool(explain.submission_horizon_note(cfg, venue, decision_month(cfg, venue, month)))


def late_venues(game: Any, dash: dict) -> frozenset[str]:
    """The venues whose deadline is this month (``dash["venue_deadlines_this_month"]``) whose
    acceptance would be published after the horizon (:func:`publishes_too_late`): the calendar
    marks them too late rather than due, as the submit form does not default to them."""
    return frozenset(v for v in dash["venue_deadlines_this_month"] if publishes_too_late(game, v, dash["month"]))


def closing_calls(game: Any, dash: dict) -> list[dict]:
    """The open calls (``dash["open_grant_calls"]`` rows) closing at this month's end that the
    lab has no proposal in and may still propose to (:func:`call_refusal`); rolling agencies'
    calls never close. A call the lab cannot apply to is no loss it could avoid: not listed;
    nor one whose decision (:func:`world.grants.proposal_decision_month`, §9) would come after the last month (it
    could neither fund the lab nor lift its standing within the career)."""
    m = dash["month"]
    pending_calls = {p["call_id"] for p in game.call("grants.proposals") if p["status"] == "pending"}
    rolling = game.rolling_agencies  # their call never closes (it ends with the career)
    return [
        c
        for c in dash["open_grant_calls"]  # a call the lab already has a proposal in is not a loss
        if c["last_month_to_apply"] == m
        and c["agency"] not in rolling
        and c["id"] not in pending_calls
        and not proposal_late_note(game, c["agency"], m)
        and call_refusal(game, c["id"]) is None
    ]


def call_to_propose(game: Any, dash: dict | None = None) -> str | None:
    """The call the proposal form (``g``) starts on: the first one the header's call warning
    names (:func:`closing_calls`), else, of the open calls the lab may propose to
    (:func:`call_refusal`), the one that closes soonest (ties by id) among those whose proposal
    would be decided by the career's last month (:func:`world.grants.proposal_decision_month`,
    §9, §12), else among them all (late in a career none may be: the form then asks before
    sending, :func:`world.explain.proposal_horizon_note`), else ``None`` (the form's first call:
    the lab may propose to none)."""
    dash = dash or game.dashboard()
    warned = closing_calls(game, dash)
    if warned:
        return str(warned[0]["id"])
    may = [c for c in dash["open_grant_calls"] if call_refusal(game, c["id"]) is None]
    late = late_agencies(game, dash)
    pick = [c for c in may if c["agency"] not in late] or may
    return str(min(pick, key=lambda c: (c["last_month_to_apply"], c["id"]))["id"]) if pick else None


def call_alerts(game: Any, dash: dict) -> list[Alert]:
    """Grant calls closing at this month's end that the lab has no proposal in and may still
    propose to (:func:`closing_calls`)."""
    return [
        Alert(
            "call",
            f"{c['agency']} call closes",
            f"The {c['agency']} call {c['id']} (${c['award']:,.0f}) closes at the end of this month: propose now (g).",
            "grants",
            "g",
            target=c["id"],
        )
        for c in closing_calls(game, dash)
    ]


def idle_alerts(dash: dict, last_draft: int) -> list[Alert]:
    """People on no project (:func:`idle_people`), while a project could still make a draft
    that counts: not after ``last_draft`` (:func:`world.papers.last_useful_draft_month`), when
    a project started or joined now completes too late for any decision by the last month."""
    idle = idle_people(dash)
    if not idle or dash["month"] > last_draft:
        return []
    return [
        Alert(
            "idle",
            f"idle {','.join(idle[:3])}" + ("…" if len(idle) > 3 else ""),
            f"On no project (paid, producing nothing): {', '.join(idle)}. Start a project (s) or assign (a).",
            "projects",
            "s",
        )
    ]


def standing_alerts(game: Any, dash: dict) -> list[Alert]:
    """Standing "unknown" for :data:`world.explain.STANDING_STUCK_MONTHS` months or more: the
    header's (and the toast's) text is the short form (world.explain.standing_warning); the
    first month's digest shows the full explanation (the lab's record and what moves it,
    world.explain.explain_standing), later digests one line with the record instead. In the
    last months it names only steps a submission or proposal made now can still win within the
    career, and none is left in the last month (world.explain.standing_steps_in_time)."""
    held = explain.standing_months(game.query, dash["month"])
    if held is None or held[0] != "unknown" or held[1] < explain.STANDING_STUCK_MONTHS:
        return []
    query, cfg = game.query, game.world.cfg
    first = dash["month"] - 1 - (held[1] - explain.STANDING_STUCK_MONTHS)  # the close it first applied at
    if first == dash["month"] - 1:
        full = explain.explain_standing(query, cfg, dash["month"])
        digest = full[0].upper() + full[1:] + "."
    else:
        digest = (
            f"Standing still unknown ({held[1]} months); {explain.standing_record(query)} "
            f"(what moves it: month {first}'s digest, or lab.explain('standing'))."
        )
    text = explain.standing_warning(query, cfg, dash["month"])
    if not text:  # the last month: nothing made now can be decided by it (README, late-career warnings)
        return []
    return [
        Alert(
            "standing",
            f"standing unknown {held[1]} mo",
            text[0].upper() + text[1:] + ".",
            "papers",
            "b",
            digest=digest,
        )
    ]


def standing_resolved(query: Any, month: int) -> str:
    """``"Standing now low, after 27 months at unknown."`` when the close of ``month`` ended a run
    of at least :data:`world.explain.STANDING_STUCK_MONTHS` months at "unknown" (the month the
    standing warning of :func:`standing_alerts` goes away, said once in that month's digest);
    ``""`` otherwise. ``query`` reads the observable database (``lab_monthly``)."""
    rows = query(f"select month, reputation_standing as s from lab_monthly where month <= {int(month)} order by month")
    if len(rows) < 2 or int(rows[-1]["month"]) != int(month) or rows[-1]["s"] == "unknown":
        return ""
    run = 0
    for r in reversed(rows[:-1]):
        if r["s"] != "unknown":
            break
        run += 1
    if run < explain.STANDING_STUCK_MONTHS:
        return ""
    return f"Standing now {rows[-1]['s']}, after {run} months at unknown."
