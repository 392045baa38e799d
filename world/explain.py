"""Every outcome explained by what the PI could see: the one home of the explanations.

MECHANICS is public, so an outcome can be read from its *visible* inputs and the documented
direction of the rule that drew it, without a hidden value. Each function here takes the
observable database (``query``: SQL → rows, as ``api.query`` answers it), the scenario's
:class:`~world.config.WorldConfig` (public rule numbers, never a hidden draw) and ids, and
returns text: the visible signals, how this case stood on each, and what the PI can do. The
digest, the panels, the headless replies (``lab.explain``) and the month report's readers
all use these, so a rule is explained the same way everywhere.

Nothing here reads the world's state: only rows of the observable database and, for who was
on a project when someone left, the PI's own action log (:data:`Actions`), so no ability,
quality, novelty, feasibility, hotness, morale, preference or numeric reputation can reach
the text (the tests build worlds that differ only in hidden values and compare the text).

Rules explained (MECHANICS section): quits and the warnings before them (§5 morale and quit),
departures' leftovers (§5, §6, §7 revise), grant rejections (§9), venue decisions and each
venue's bar and worth as the lab's record shows them (§7, §8), dead ends (§6), declined
offers and unfilled postdoc searches (§5), standing (§10).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .config import STANDING_WORDS, WorldConfig
from .errors import ActionError
from .grants import proposal_decision_month
from .papers import decision_month, last_useful_draft_month, publication_month
from .people import SEARCH_NEWS
from .projects import AUTHOR_ROLES

Query = Callable[[str], list[dict[str, Any]]]
"""The observable database: SQL text → rows as dicts (``api.query``)."""

Actions = Sequence[Sequence[Any]]
"""The PI's own action log (MECHANICS §15): ``[month, "ns.method", kwargs]`` per accepted
mutating call, in order (``World.s.action_log``). The PI made these calls, so reading them
reveals nothing hidden."""

LOW_MOOD = 0.5
"""A meeting sentiment below this reads as low (a reading guide, not a rule of the world)."""

VERY_LOW_MOOD = 0.3
"""The latest meeting sentiment below this reads as very low on its own (a reading guide: with
§5's sentiment noise, such a reading is rare unless morale is already low, where the quit
draw is steep)."""

READ_SIGNS = ("meeting mood low", "last meeting mood very low", "reports falling")
"""How the signals read from the reports start (:func:`_report_signals`): any one of them
warns before a quit."""

REPORT_DROP = 0.15
"""The last two report qualities this much below the earlier mean read as falling."""

WINDOW = 3
"""Months before an outcome whose visible signals the explanation reads."""


def _q(text: Any) -> str:
    """``text`` quoted for an SQL literal."""
    return str(text).replace("'", "''")


def _list(value: Any) -> list[Any]:
    """A JSON list column (text or list) as a list."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value] if value else []
    return list(value) if isinstance(value, list) else []


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# ----------------------------------------------------------------------------- quits (§5)
def person(query: Query, pid: str) -> dict[str, Any] | None:
    """The ``students`` row of ``pid`` (any role or status), or ``None``."""
    rows = query(f"select * from students where id = '{_q(pid)}'")
    return rows[0] if rows else None


def _projects_of(query: Query, pid: str) -> list[dict[str, Any]]:
    rows = query("select id, topic, tier, status, started_month, ended_month, members, monthly_compute from projects")
    return [r for r in rows if pid in _list(r["members"])]


def morale_signals(query: Query, cfg: WorldConfig, pid: str, month: int) -> tuple[list[str], list[str]]:
    """The visible signals of ``pid``'s morale up to ``month``: ``(signals, remedies)``.

    Signals are what the morale rule responds to and the PI can see (§5): the last meeting
    sentiments (read only with at least ``sentiment_min_hours`` of mentoring), falling report quality, mentoring
    below the scenario's neglect threshold, more active projects than the overload threshold,
    a short runway, and in the last :data:`WINDOW` months rejections of their drafts, dead
    ends, stops and scoops of projects they are on, and crises left unanswered. Remedies are the PI's
    actions that move each signal the right way. Both lists may be empty.
    """
    signals: list[str] = []
    remedies: list[str] = []
    for read in (_report_signals, _mentoring_signal, _overload_signal, _recent_blows, _runway_signal):
        signal, remedy = read(query, cfg, pid, month)
        signals += signal
        remedies += remedy
    return signals, remedies


Signals = tuple[list[str], list[str]]
"""``(signals, remedies)`` of one kind of morale signal (:func:`morale_signals`)."""


def _report_signals(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """Two low meeting moods in a row, a very low last one, or no meeting notes lately (then
    mentoring was under ``sentiment_min_hours``, so under the neglect threshold too when that
    is no lower: its remedy); falling report quality."""
    signals: list[str] = []
    remedies: list[str] = []
    reps = query(
        "select month, report_quality as q, meeting_sentiment as s from student_reports "
        f"where student_id = '{_q(pid)}' and month <= {int(month)} order by month"
    )
    moods = [r["s"] for r in reps[-2:] if r["s"] is not None]
    if len(moods) == 2 and all(x < LOW_MOOD for x in moods):
        signals.append(f"meeting mood low two months running ({moods[0]:.2f}, {moods[1]:.2f})")
    elif reps and reps[-1]["s"] is not None and reps[-1]["s"] < VERY_LOW_MOOD:
        signals.append(f"last meeting mood very low ({reps[-1]['s']:.2f}, under {VERY_LOW_MOOD:g})")
    elif reps and all(r["s"] is None for r in reps[-2:]):
        signals.append(
            f"no meeting notes lately (with under {cfg.sentiment_min_hours:g} h of mentoring there is no read "
            "on their mood)"
        )
        if cfg.sentiment_min_hours <= cfg.neglect_hours:
            remedies.append(f"give at least {cfg.neglect_hours:g} h of mentoring a month (m)")
    quality = [r["q"] for r in reps if r["q"] is not None]
    if len(quality) >= 4:
        earlier, recent = _mean(quality[:-2]), _mean(quality[-2:])
        if earlier is not None and recent is not None and earlier - recent >= REPORT_DROP:
            signals.append(f"reports falling ({earlier:.2f} before, {quality[-2]:.2f} and {quality[-1]:.2f} lately)")
    return signals, remedies


def _mentoring_signal(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """Mentoring under the neglect threshold (an active person's; a leaver's hours read 0)."""
    row = person(query, pid)
    hours = float(row["mentoring_hours"] or 0) if row else 0.0
    if row is None or row["status"] != "active" or hours >= cfg.neglect_hours:
        return [], []
    return (
        [f"mentoring {hours:g} h a month (under {cfg.neglect_hours:g} h weighs on morale)"],
        [f"give at least {cfg.neglect_hours:g} h of mentoring a month (m)"],
    )


def _overload_signal(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """More active projects than the overload threshold."""
    return _overload(cfg, len([p for p in _projects_of(query, pid) if p["status"] == "active"]))


def _overload(cfg: WorldConfig, n: int) -> Signals:
    """The signal and remedy of being on ``n`` active projects, when ``n`` is over the threshold."""
    if n <= cfg.overload_projects:
        return [], []
    return (
        [f"on {n} active projects (more than {cfg.overload_projects} weighs on morale)"],
        [f"keep them on at most {_plural(cfg.overload_projects, 'project')} (unassign, u)"],
    )


BLOWS: tuple[tuple[str, str], ...] = (
    ("impulse_reject", "a rejection of their draft"),
    ("impulse_killed", "a dead end or a stop of a project they are on"),
    (
        "impulse_scooped",
        "a scoop of a project they are on, told by the news a month after it (its scoop count shows it at once)",
    ),
    ("impulse_crisis_ignored", "a crisis of theirs left unanswered"),
)
"""§5's queued morale impulses that can be blows: the :class:`~world.config.WorldConfig`
field of each and what the PI sees of it. A kind is a blow in a scenario whose impulse is
negative (:func:`blow_kinds`)."""

BLOW_MONTHS = 2
"""A blow warns (:func:`quit_warning`) when it came after month ``month - BLOW_MONTHS``: at the
last close or since (a scoop: its news at the last close or since)."""


def blow_kinds(cfg: WorldConfig) -> list[str]:
    """What the PI sees of each of §5's queued morale blows in this scenario (negative impulses
    only), the largest first (read from ``cfg``, never typed; equal ones keep :data:`BLOWS`'s
    order). No impulse value is in the text."""
    negative = [(float(getattr(cfg, field)), i, text) for i, (field, text) in enumerate(BLOWS)]
    return [text for value, _, text in sorted(negative) if value < 0]


def _recent_blows(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """In the last :data:`WINDOW` months: their projects' dead ends, stops and scoops, their
    drafts' rejections and their crises left unanswered (one signal listing them all)."""
    hits, remedies = _blows(query, cfg, pid, int(month) - WINDOW, int(month))
    return (["; ".join(hits)] if hits else []), remedies


def _blows(query: Query, cfg: WorldConfig, pid: str, since: int, month: int) -> Signals:
    """``pid``'s blows (:data:`BLOWS`, those whose impulse is negative in ``cfg``) after month
    ``since`` up to ``month``, one text each, and the remedies for them: dead ends and stops of
    projects they are on (by the month the project ended), scoops of them (by the month of the
    news), rejections of their drafts (by the decision month), their crises left unanswered (by
    the month the crisis came: it must be answered that month)."""
    hits: list[str] = []
    projects = _projects_of(query, pid)
    if cfg.impulse_killed < 0:
        hits += [
            f"project {p['id']} {'dead-ended' if p['status'] == 'deadend' else 'was stopped'} in month {p['ended_month']}"
            for p in projects
            if p["status"] in ("deadend", "killed") and since < (p["ended_month"] or 0) <= month
        ]
    if cfg.impulse_scooped < 0:
        hits += _scoops_of(query, {p["id"] for p in projects}, since, month)
    rejections = _rejections_of(query, pid, since, month) if cfg.impulse_reject < 0 else []
    hits += rejections
    crises = _ignored_crises(query, pid, since, month) if cfg.impulse_crisis_ignored < 0 else []
    hits += crises
    remedies = ["answer a student crisis with support (e)"] * len(crises)
    if any("was scooped" in h for h in hits):
        remedies.append(scoop_remedy(cfg))
    if rejections:
        remedies.append("polish their drafts and send them where the venue's bar fits (Papers panel: bar and worth)")
    return hits, remedies


def _scoop_news(query: Query, projects: set[str], since: int, month: int) -> list[tuple[int, str]]:
    """``(news month, project id)`` of each scoop of ``projects`` the news told of after month
    ``since`` up to ``month``, in order (§6: the scoop news names "project PJ003 (topic)")."""
    if not projects:
        return []
    return [
        (int(n["month"]), pj)
        for n in query(
            f"select month, text from news where kind = 'scoop' and month > {since} and month <= {month} order by month"
        )
        for pj in sorted(projects)
        if f"project {pj} (" in str(n["text"])
    ]


_EVERY_MONTH = 10**9
"""A month bound past any career's last month (every news row so far)."""


def _scoops_of(query: Query, projects: set[str], since: int, month: int) -> list[str]:
    """The scoops of ``projects`` the news told of after month ``since`` up to ``month`` (§6:
    a scoop weighs on every member's morale; its news comes a month later)."""
    return [f"project {pj} was scooped (news of month {n})" for n, pj in _scoop_news(query, projects, since, month)]


def _rejections_of(query: Query, pid: str, since: int, month: int) -> list[str]:
    """Rejections of ``pid``'s drafts decided after month ``since`` up to ``month``."""
    drafts = {d["id"] for d in query("select id, authors from drafts") if pid in _list(d["authors"])}
    if not drafts:
        return []
    return [
        f"their draft {s['draft_id']} was rejected at {s['venue']} in month {s['decision_month']}"
        for s in query(
            "select draft_id, venue, decision_month from submissions where status = 'reject' "
            f"and decision_month > {since} and decision_month <= {month} order by decision_month"
        )
        if s["draft_id"] in drafts
    ]


def _ignored_crises(query: Query, pid: str, since: int, month: int) -> list[str]:
    """``pid``'s crises that arrived after month ``since`` up to ``month`` and went unanswered (a
    crisis is answered, ignored or auto-ignored in the month it arrives, §11)."""
    out = []
    for e in query(
        "select id, status, arrived_month, details from events where kind = 'student_crisis' "
        f"and status = 'ignored' and arrived_month > {int(since)} and arrived_month <= {int(month)}"
    ):
        details = e["details"]
        if isinstance(details, str):
            try:
                details = json.loads(details)
            except ValueError:
                details = {}
        if isinstance(details, dict) and details.get("student_id") == pid:
            out.append(f"their crisis {e['id']} went unanswered")
    return out


def _runway_signal(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """The runway at the last close under the scenario's stress threshold (it weighs on everyone)."""
    lab = query(f"select month, budget from lab_monthly where month = {int(month) - 1}")
    spent = query(f"select sum(amount) as out from ledger where month = {int(month) - 1} and amount < 0")
    burn = -float(spent[0]["out"] or 0) if spent else 0.0
    if not (lab and burn > 0 and 0 < float(lab[0]["budget"]) < cfg.runway_stress_months * burn):
        return [], []
    return (
        [f"the runway was under {cfg.runway_stress_months:g} months (a short runway weighs on everyone)"],
        ["win a grant or cut costs before the runway falls that low"],
    )


def scoop_remedy(cfg: WorldConfig) -> str:
    """What lowers the risk of a scoop (§6: a project can be scooped each month once its progress
    reaches ``scoop_progress`` of its work, with a chance growing with its topic's crowding, which
    the preprint feed's monthly count reflects). No crowding value is in the text."""
    return (
        f"a project can be scooped each month once it is {cfg.scoop_progress:.0%} done, more often on a "
        "crowded topic (more preprints a month, Field panel): a quieter topic, or more hands and compute "
        "to finish sooner, lowers the risk"
    )


def _todo(cfg: WorldConfig, remedies: list[str]) -> list[str]:
    """The remedies to show: ``remedies`` (each once), with :func:`general_remedy` first when none of them
    lifts morale itself (none at all, or only the scoop's, which lowers the next scoop's risk)."""
    remedies = list(dict.fromkeys(remedies))
    lifts = [r for r in remedies if r != scoop_remedy(cfg)]
    return remedies if lifts else [general_remedy(cfg), *remedies]


def general_remedy(cfg: WorldConfig) -> str:
    """What lifts a researcher's morale when no signal has a remedy of its own (§5): an
    accepted paper lifts it the most, and mentoring under the neglect threshold or more projects
    than the overload threshold push it down (more mentoring above the threshold does not lift
    it; it lifts their skill). It is shown only when no visible signal has a remedy of its own,
    so their mentoring and projects were not visibly short of the thresholds: it states the rule
    rather than urging what the PI may already have done (QA: "keep their mentoring at 2 h or
    more" read as a fault after a quit at 10 h)."""
    return (
        "an accepted paper lifts morale the most: a project of theirs that can finish soon and a venue "
        f"whose bar fits; mentoring of {cfg.neglect_hours:g} h or more a month and at most "
        f"{_plural(cfg.overload_projects, 'project')} only keep it from falling (more mentoring lifts "
        "skill, not morale)"
    )


def quit_warning(query: Query, cfg: WorldConfig, pid: str, month: int) -> str | None:
    """The warning before a researcher may quit, or ``None`` when their visible signals are quiet.

    One rule (§5: the quit draw grows steeply as morale falls): it fires on what the reports read
    (two low meeting moods in a row, a very low last one, falling reports), on no meeting notes
    together with another pressure on morale, and on any blow of §5's queued morale impulses
    decided at the last close or since (:data:`BLOW_MONTHS`), however their moods read so far: a
    rejection of their draft (``impulse_reject``/ρ on each author), a dead end or stop of a
    project they are on (``impulse_killed``/ρ on each active member), a scoop of it
    (``impulse_scooped``/ρ; told by the news at the close after the scoop, so it warns then), a
    crisis of theirs left unanswered (``impulse_crisis_ignored``/ρ, the largest). A kind whose
    impulse the scenario sets to zero or above is no blow (:func:`blow_kinds`). The text names
    the visible signals and what helps; no morale value and no resilience ρ (both hidden).
    """
    signals, remedies = morale_signals(query, cfg, pid, month)
    if not signals:
        return None
    read = any(s.startswith(READ_SIGNS) for s in signals)
    blind = any(s.startswith("no meeting notes") for s in signals)
    struck = bool(_blows(query, cfg, pid, int(month) - BLOW_MONTHS, int(month))[0])
    if not read and not struck and not (blind and len(signals) > 1):
        return None
    todo = _todo(cfg, remedies)
    return "Low morale comes before quitting: " + "; ".join(signals) + ". What helps: " + "; ".join(todo) + "."


def explain_quit(query: Query, cfg: WorldConfig, pid: str, actions: Actions = ()) -> str:
    """Why ``pid`` quit, in what the PI could see in the months before, and what could have helped.

    §5: the monthly quit draw grows steeply as morale falls; morale falls with neglect
    (little mentoring), overload, a short runway, rejections, dead ends, stops, scoops and ignored crises,
    and rises with accepted papers and support. Raises nothing; an unknown id says so.

    "Visible before" is what the PI could see while acting in the quit's month: the reports,
    news and decisions up to the month-end before it (the warnings of that month read the
    same); when nothing shows in the last :data:`WINDOW` months, the blows of the
    :data:`WINDOW` months before those (§5: morale drifts back only slowly). The quit's own month-end also wrote their last report and may have decided a blow
    (§5: the report is written before the quit draw; a rejection's impulse bites that tick):
    those are named apart, as news that came with the quit, never as a missed warning.

    A leaver's row reads 0 mentoring hours (reset when they left), so the hours they had come
    from ``actions`` too (:func:`_mentoring_when_left`): between the meeting-notes and the
    neglect thresholds nothing else shows them.

    A leaver is taken off the active projects they were on (§5) and ``projects.members`` is the
    current list, so the projects they were on when they left come from the PI's own record,
    ``actions`` (:func:`projects_at_departure`): a scoop of one of them, or their number over
    the overload threshold, is among the signs. Without ``actions`` only the projects that
    still list them count (finished ones keep their last members).
    """
    row = person(query, pid)
    if row is None:
        return f"no lab member {pid}"
    left = int(row["left_month"] or 0)
    seen = left - 1  # acting in month `left`, the PI's latest reports and news are of this month-end
    before, remedies = _signals_before_leaving(query, cfg, pid, seen)
    low, cure = _mentoring_when_left(cfg, pid, left, actions)
    before, remedies = before + low, remedies + cure
    gone, busy = _departure_projects(query, pid, left, actions)
    load, cures = _overload(cfg, busy)
    if cfg.impulse_scooped >= 0:  # a scenario where a scoop does not weigh on morale
        gone = set()
    before += load + _scoops_of(query, gone, seen - WINDOW, seen)
    remedies += cures
    if not before:  # nothing lately: a blow of the months before that (its weight fades only slowly, §5)
        older, cures = _blows(query, cfg, pid, seen - 2 * WINDOW, seen - WINDOW)
        before += [f"{h} (months before, but a blow to morale fades only slowly)" for h in older]
        remedies += cures
    with_quit, more = _month_end_signals(query, cfg, pid, left, gone)
    remedies += more
    if any("was scooped" in x for x in before + with_quit):
        remedies.append(scoop_remedy(cfg))
    name = f"{row['name']} ({pid}, {row['role']})"
    parts = [f"{name} quit in month {left}."]
    if before:
        parts.append("Visible before: " + "; ".join(before) + ".")
    else:
        parts.append(_no_warning(query, cfg, pid, seen))
    if with_quit:
        parts.append(f"The end of month {left} brought, with the quit: " + "; ".join(with_quit) + ".")
    parts.append("Could have helped: " + "; ".join(_todo(cfg, remedies)) + ".")
    return " ".join(parts)


def _no_warning(query: Query, cfg: WorldConfig, pid: str, seen: int) -> str:
    """The sentence for a quit no visible sign came before (up to month ``seen``): with meeting
    notes, their last moods and that they showed no sign; without, that there was nothing to
    read their mood by (under ``sentiment_min_hours`` of mentoring)."""
    reps = query(
        "select meeting_sentiment as s from student_reports "
        f"where student_id = '{_q(pid)}' and month <= {int(seen)} order by month"
    )
    moods = [r["s"] for r in reps[-2:] if r["s"] is not None]
    if moods:
        return (
            "No visible warning sign came before: their last meeting moods ("
            + ", ".join(f"{x:.2f}" for x in moods)
            + ") were neither two low ones in a row nor a very low one, and nothing else weighed visibly; "
            "the quit draw is small but never zero while morale is only middling."
        )
    return (
        "No visible warning sign came before, and no meeting notes to read their mood by: with under "
        f"{cfg.sentiment_min_hours:g} h of mentoring a month there are none."
    )


def _month_end_signals(query: Query, cfg: WorldConfig, pid: str, left: int, gone: set[str]) -> Signals:
    """What the quit's own month-end (the tick of ``left``) told with the quit: a low mood in its
    report, or no meeting notes in it after months with them (:func:`_mentoring_cut`); a blow
    decided then (:func:`_blows` after ``left - 1``); a scoop of a project they were taken off
    (``gone``) told then."""
    out: list[str] = []
    rep_row = query(
        f"select meeting_sentiment as s from student_reports where student_id = '{_q(pid)}' and month = {int(left)}"
    )
    mood = rep_row[0]["s"] if rep_row else None
    if mood is not None and mood < LOW_MOOD:
        out.append(f"their report of that month read mood {mood:.2f}")
    cut, remedies = _mentoring_cut(query, cfg, pid, left)
    hits, cures = _blows(query, cfg, pid, left - 1, left)
    out += cut + hits + _scoops_of(query, gone, left - 1, left)
    return out, remedies + cures


def _signals_before_leaving(query: Query, cfg: WorldConfig, pid: str, seen: int) -> Signals:
    """The visible signals of a leaver up to month ``seen`` (the month-end before they quit):
    :func:`morale_signals` at ``seen``, the low moods or falling reports the warnings showed in
    the :data:`WINDOW` months before when the last reports no longer show them (a month without
    meeting notes hides a low pair), and a mentoring cut the reports show
    (:func:`_mentoring_cut`). A leaver's row shows 0 mentoring hours (reset when they left), so
    their row's hours are never read."""
    signals, remedies = morale_signals(query, cfg, pid, seen)
    read = READ_SIGNS
    if not any(s.startswith(read) for s in signals):
        for m in range(seen - 1, seen - WINDOW, -1):
            earlier = [s for s in _report_signals(query, cfg, pid, m)[0] if s.startswith(read)]
            if earlier:
                signals = [f"{s} up to month {m}" for s in earlier] + signals
                break
    cut, cure = _mentoring_cut(query, cfg, pid, seen)
    return signals + cut, remedies + cure


def _mentoring_when_left(cfg: WorldConfig, pid: str, left: int, actions: Actions) -> Signals:
    """Mentoring the PI had set for a leaver under ``neglect_hours`` (it weighs on morale every
    month, §5) but at least ``sentiment_min_hours`` (so their reports kept meeting notes and
    no other sign shows it): the last ``students.set_mentoring`` naming ``pid`` in the PI's
    own log ``actions`` up to their leaving month ``left``. A rescale at a month's opening
    (§3) only lowers hours, so hours logged under the threshold were under it; ``[], []``
    without such a call, or when the hours were outside that range."""
    hours: tuple[int, float] | None = None
    for month, call, args in actions:
        if int(month) > left:
            break
        if call == "students.set_mentoring" and pid in (args.get("hours") or {}):
            hours = (int(month), float(args["hours"][pid]))
    if hours is None or not cfg.sentiment_min_hours <= hours[1] < cfg.neglect_hours:
        return [], []
    return (
        [
            f"mentoring set to {hours[1]:g} h a month in month {hours[0]} "
            f"(under {cfg.neglect_hours:g} h weighs on morale)"
        ],
        [f"give at least {cfg.neglect_hours:g} h of mentoring a month (m)"],
    )


def _mentoring_cut(query: Query, cfg: WorldConfig, pid: str, month: int) -> Signals:
    """A mentoring cut the reports show: no meeting notes in the report of ``month`` after a
    report with them (under ``sentiment_min_hours`` of mentoring that month)."""
    reps = query(
        "select month, meeting_sentiment as s from student_reports "
        f"where student_id = '{_q(pid)}' and month <= {int(month)} order by month"
    )
    if len(reps) >= 2 and reps[-1]["month"] == month and reps[-1]["s"] is None and reps[-2]["s"] is not None:
        return (
            [
                f"no meeting notes in month {month} after months with them (mentoring cut under "
                f"{cfg.sentiment_min_hours:g} h; under {cfg.neglect_hours:g} h weighs on morale)"
            ],
            [f"give at least {cfg.neglect_hours:g} h of mentoring a month (m)"],
        )
    return [], []


def _logged_projects(query: Query, actions: Actions) -> list[tuple[int, str, dict[str, Any], str]] | None:
    """The PI's project membership calls in ``actions``, in order, as ``(month, call, args,
    project id)``: ``projects.start`` (the n-th logged start made the n-th project, §13
    sequential ids), ``projects.assign`` and ``projects.unassign``. ``None`` when the log's
    starts do not match the projects table one to one."""
    ids = sorted((str(r["id"]) for r in query("select id from projects")), key=lambda i: (len(i), i))
    if sum(1 for a in actions if a[1] == "projects.start") != len(ids):
        return None
    made = iter(ids)
    out = []
    for month, call, args in actions:
        if call == "projects.start":
            out.append((int(month), str(call), dict(args), next(made)))
        elif call in ("projects.assign", "projects.unassign"):
            out.append((int(month), str(call), dict(args), str(args.get("project_id"))))
    return out


def projects_at_departure(query: Query, pid: str, actions: Actions) -> list[str]:
    """Ids of the projects ``pid`` was on when they left the lab, in id order, read from the PI's
    action log (:func:`_logged_projects`) up to their leaving month (actions of a month come
    before its tick). ``[]`` for a person still in the lab, or when the log's starts do not
    match the projects table one to one."""
    row = person(query, pid)
    left = int(row["left_month"] or 0) if row else 0
    logged = _logged_projects(query, actions) if left else None
    if not logged:
        return []
    on: set[str] = set()
    for month, call, args, project in logged:
        if month > left:
            break
        if call == "projects.start":
            if pid in args.get("members", ()):
                on.add(project)
        elif args.get("student_id") == pid:
            (on.add if call == "projects.assign" else on.discard)(project)
    return sorted(on, key=lambda i: (len(i), i))


def _departure_projects(query: Query, pid: str, left: int, actions: Actions) -> tuple[set[str], int]:
    """``(gone, busy)`` for a leaver (:func:`projects_at_departure`): the projects they were on
    that no longer list them, and how many projects they were on were active in their last
    month (active still, or ended after it)."""
    was_on = set(projects_at_departure(query, pid, actions))
    gone = was_on - {p["id"] for p in _projects_of(query, pid)}
    if not gone:
        return set(), 0
    rows = query("select id, status, ended_month from projects")
    busy = [r for r in rows if r["id"] in was_on and (r["status"] == "active" or (r["ended_month"] or 0) > left)]
    return gone, len(busy)


# ---------------------------------------------------------------------- departures (§2 of the issue)
def orphaned_project_rows(query: Query, actions: Actions) -> list[dict[str, Any]]:
    """The ``projects`` rows (id, topic, members, monthly_compute, progress_pct) of the active
    projects with no member left in the lab, or left with no member who can author (§5, §6):
    only RAs and managers now, though a PhD or postdoc was on it once (the PI's action log
    ``actions``, :func:`_logged_projects`; a project staffed with RAs from the start is the
    PI's choice and not listed). Each row gets ``staff``: the ids of its active members, in
    member-list order (``[]`` when no member is left; otherwise only RAs and managers)."""
    roles = {r["id"]: r["role"] for r in query("select id, role from students")}
    active = {r["id"] for r in query("select id from students where status = 'active'")}
    authored: set[str] = set()  # projects an author-role person was ever put on
    for _, call, args, project in _logged_projects(query, actions) or ():
        on = args.get("members", ()) if call == "projects.start" else [args.get("student_id")]
        if call != "projects.unassign" and any(roles.get(str(m)) in AUTHOR_ROLES for m in on):
            authored.add(project)
    out = []
    for p in query("select id, topic, members, monthly_compute, progress_pct from projects where status = 'active'"):
        staff = list(dict.fromkeys(m for m in _list(p["members"]) if m in active))
        if not staff or (p["id"] in authored and not any(roles[m] in AUTHOR_ROLES for m in staff)):
            out.append({**p, "staff": staff})
    return out


def _no_author_left(query: Query, staff: list[str]) -> str:
    """What a project whose active members are only ``staff`` (RAs and managers) still does and
    what its draft would be (§5 Staff, §6 effort and draft authors, §7 collaboration-like drafts
    with no authors)."""
    roles = {r["id"]: r["role"] for r in query("select id, role from students where status = 'active'")}
    why, then = _staff_only(roles, staff)
    return f"has no member who can author left ({why}): {then}"


def _staff_only(roles: Mapping[str, str], staff: list[str]) -> tuple[str, str]:
    """Why a project staffed only with ``staff`` (RAs and managers; ``roles``: id → role) has
    no author, and what it does then (§5 Staff, §6, §7): ``("only RA001: an RA adds effort,
    never an author", "it still progresses on RA effort …")``."""
    has_ra = any(roles.get(m) == "ra" for m in staff)
    why = "an RA adds effort, never an author" if has_ra else "a manager adds no effort and never authors"
    if has_ra and any(roles.get(m) == "manager" for m in staff):
        why += "; a manager adds no effort"
    then = (
        "it still progresses on RA effort (lowering its quality), but its draft would have no author: "
        "reputation if accepted, no one's paper count or morale"
        if has_ra
        else "no progress"
    )
    return f"only {', '.join(staff)}: {why}", then


def authorless_team_note(roles: Mapping[str, str], members: list[str]) -> str:
    """What a project started with ``members`` (person ids; ``roles``: id → role of at least
    them, as the ``students`` table and the dashboard give it) does when none of them can author
    (§5 Staff: RAs and managers never author; §6 draft authors), for the reply to
    ``projects.start`` and the start form: ``"no member can author (only RA001: an RA adds
    effort, never an author): it still progresses on RA effort …"``; ``""`` when one of them is
    a PhD student or postdoc, or none is given. Assigning an author later (``projects.assign``)
    makes them the draft's author."""
    if not members or any(roles.get(m) in AUTHOR_ROLES for m in members):
        return ""
    why, then = _staff_only(roles, list(members))
    return f"no member can author ({why}): {then}; assign a PhD student or postdoc to give it one"


def orphaned_projects(query: Query, cfg: WorldConfig, actions: Actions, month: int | None = None) -> list[str]:
    """Active projects with no member left who can author (:func:`orphaned_project_rows`, read
    with the PI's action log ``actions``): with no
    member at all, still billed its compute every month and making no progress; with only RAs
    (and managers), still progressing on RA effort towards a draft with no author, or with only
    managers, no progress (§2, §5, §6). One sentence per project, without a final stop.

    What to do: assign someone (an author, when RAs or managers are left) (a) or stop it (k);
    after the last month whose draft can still count
    (:func:`world.papers.last_useful_draft_month`, when ``month``, the month now open, is given
    and later), only stopping it matters: it saves the bill (nothing, when none)."""
    late = month is not None and month > last_useful_draft_month(cfg)
    out: list[str] = []
    for p in orphaned_project_rows(query, actions):
        units = float(p["monthly_compute"] or 0)
        bill = (
            f"still billed {units:,.0f} compute units (${units * cfg.compute_unit_cost:,.0f} at the base price) a month"
            if units
            else "no compute billed"
        )
        if not late:
            todo = f"assign {'an author' if p['staff'] else 'someone'} (a) or stop it (k)"
        else:
            useless = "a member now could not finish a draft that counts by the end"
            todo = f"stop it (k) to save the bill; {useless}" if units else f"nothing left to do; {useless}"
        head = f"project {p['id']} ({p['topic']}, {float(p['progress_pct'] or 0):.1f}%)"
        if p["staff"]:
            out.append(f"{head} {_no_author_left(query, p['staff'])}; {bill}; {todo}")
        else:
            out.append(f"{head} has no member left: {bill}, no progress; {todo}")
    return out


def orphaned_draft_ids(query: Query, pid: str | None = None) -> list[str]:
    """Ids of the available or under-review drafts (of ``pid`` when given) none of whose
    authors is still in the lab (collaboration drafts have no authors and are never listed)."""
    active_ids = {r["id"] for r in query("select id from students where status = 'active'")}
    out = []
    for d in query("select id, authors from drafts where status in ('available', 'under_review')"):
        authors = _list(d["authors"])
        if authors and (pid is None or pid in authors) and not any(a in active_ids for a in authors):
            out.append(str(d["id"]))
    return out


def orphaned_drafts(query: Query, pid: str | None = None) -> list[str]:
    """Drafts (of ``pid`` when given) none of whose authors is still in the lab: they stay the
    lab's and can still be polished, revised and submitted (the rule this project decided,
    README design notes); each sentence names only what its draft allows (one under review:
    none of these; one never rejected: no revision, §7). Collaboration drafts have no authors
    and are never listed."""
    status = {r["id"]: r["status"] for r in query("select id, status from drafts")}
    rejected = {r["draft_id"] for r in query("select draft_id from submissions where status = 'reject'")}
    can = {
        "under_review": "it is under review and stays the lab's",
        "available": "you can still polish and submit it",
    }
    return [
        f"draft {d} has no author left in the lab: "
        + (
            "you can still polish, revise and submit it"
            if status.get(d) == "available" and d in rejected
            else can.get(str(status.get(d)), "it stays the lab's")
        )
        for d in orphaned_draft_ids(query, pid)
    ]


def leftovers(query: Query, cfg: WorldConfig, pid: str, actions: Actions, month: int | None = None) -> list[str]:
    """What ``pid``'s departure leaves behind: the lab's projects with no member left (still
    billed, no progress) or no member who can author (read from the PI's action log
    ``actions``; what to do in ``month``, :func:`orphaned_projects`) and ``pid``'s
    drafts with no author left (§2 of issue 27)."""
    return orphaned_projects(query, cfg, actions, month) + orphaned_drafts(query, pid)


# ------------------------------------------------------------------------------- grants (§9)
def explain_proposal(query: Query, cfg: WorldConfig, proposal_id: str) -> str:
    """What the panel weighed in ``proposal_id`` (§9) and how this proposal stood on each
    visible factor: evidence (publications count fully, drafts at a fraction, off-topic items
    at a fraction), hours against the reference, the lab's standing then, running awards,
    the funding outlook then, the topic against the agency's record with the lab."""
    rows = query(f"select * from proposals where id = '{_q(proposal_id)}'")
    if not rows:
        return f"no proposal {proposal_id}"
    p = rows[0]
    agency, topic, month = p["agency"], p["topic"], int(p["submitted_month"] or 0)
    attached = _list(p["attached"])
    pubs = {r["id"]: r for r in query("select id, topic, tier from publications")}
    drafts = {r["id"]: r for r in query("select id, topic, tier from drafts")}
    n_pub = n_draft = off = tier3 = 0
    for a in attached:
        item = pubs.get(a) or drafts.get(a)
        if item is None:
            continue
        if a in pubs:
            n_pub += 1
        else:
            n_draft += 1
        off += item["topic"] != topic
        tier3 += int(item["tier"] or 0) == 3
    parts = []
    if attached:
        ev = f"evidence: {_plural(n_pub, 'publication')} (full weight) and {_plural(n_draft, 'draft')} (weight {cfg.grant_evidence_draft_weight:g})"
        if off:
            ev += f", {off} off {topic} (weight ×{cfg.grant_evidence_offtopic:g})"
        parts.append(ev + "; better papers count for more, and evidence saturates")
    else:
        parts.append("evidence: none attached (attach publications on the topic: each counts fully, a draft partly)")
    hours = float(p["hours"] or 0)
    parts.append(
        f"hours: {hours:g} h of writing (the reference is {cfg.grant_hours_ref:g} h; more helps, with diminishing returns)"
    )
    standing = query(f"select reputation_standing from lab_monthly where month <= {month} order by month desc limit 1")
    if standing:
        parts.append(f"standing: {standing[0]['reputation_standing']} then (a higher standing scores higher)")
    running = running_awards(query, month)
    if running:
        parts.append(running)
    outlook = query(
        f"select month, text from news where kind = 'funding' and month <= {month} order by month desc limit 1"
    )
    if outlook:
        parts.append(f"funding climate then: {str(outlook[0]['text']).rstrip('.')}")
    if agency == "AMP":
        parts.append(
            f"{agency} favours topics that will be hot in {cfg.amp_hot_lead} months (watch the field news) and "
            + ("this proposal had" if tier3 else "this proposal had no")
            + " tier-3 work attached (which it rewards)"
        )
    elif cfg.agencies.get(agency, {}).get("rolling"):
        parts.append(f"{agency} also favours topics hot now (the field news)")
    earlier = agency_topics(query, agency, before=p["decision_month"] if p["status"] != "pending" else None)
    parts.append(f"{agency} has its own taste in topics, shown only by its decisions: {earlier}")
    return "; ".join(parts) + "."


def running_awards(query: Query, month: int) -> str:
    """How the lab's awards running in ``month`` weigh on a proposal sent that month (§9, the
    overcommit term: each award of any agency active that month lowers the proposal's
    quality): ``"1 award already running (overcommit: each running award lowers a new
    proposal's quality, so its chance of funding)"``, or ``""`` with none. Said by :func:`explain_proposal` after a decision and by the proposal form before."""
    running = query(f"select id from awards where start_month <= {int(month)} and end_month >= {int(month)}")
    if not running:
        return ""
    return f"{_plural(len(running), 'award')} already running (overcommit: each running award lowers a new proposal's quality, so its chance of funding)"


def agency_topics(query: Query, agency: str, before: int | None = None) -> str:
    """The lab's decided proposals to ``agency`` by topic: ``"reasoning 1 of 3 funded, vision 0 of 1"``."""
    by: dict[str, list[int]] = {}
    for r in query(
        f"select topic, status, decision_month from proposals where agency = '{_q(agency)}' and status != 'pending'"
    ):
        if before is not None and (r["decision_month"] or 0) >= before:
            continue
        n = by.setdefault(r["topic"], [0, 0])
        n[0] += r["status"] == "funded"
        n[1] += 1
    if not by:
        return "no decision yet"
    return ", ".join(f"{t} {f} of {n} funded" for t, (f, n) in sorted(by.items()))


# ------------------------------------------------------------------------------ venues (§7, §8)
def _rank(cfg: WorldConfig, venue: str, key: str) -> str:
    """``"the highest of 4"``, ``"2nd of 4"`` … for ``venue`` among the scenario's venues by ``key``."""
    order = sorted(cfg.venues, key=lambda v: -float(cfg.venues[v][key]))
    i, n = order.index(venue) + 1, len(order)
    return {1: f"the highest of {n}", n: f"the lowest of {n}"}.get(
        i, f"{i}{'nd' if i == 2 else 'rd' if i == 3 else 'th'} of {n}"
    )


def venue_worth(cfg: WorldConfig, venue: str) -> str:
    """A venue's bar and worth from the public rules alone (§7, §8), as ranks among the
    scenario's venues: ``"NAIC (top conference): bar the highest of 4, citations the highest
    of 4"``. ``venue`` must be one of ``cfg.venues``."""
    kind = cfg.venues[venue]["kind"]
    return f"{venue} ({kind}): bar {_rank(cfg, venue, 'bar')}, citations {_rank(cfg, venue, 'visibility')}"


def never_decided(cfg: WorldConfig, decision_month: int) -> str:
    """``"never decided: month 61 is after the horizon (month 60)"`` when ``decision_month``
    comes after the career's last month ``cfg.months`` (no decision is made after the horizon,
    §7, §12: the submission can never count); ``""`` when it is decided within the career."""
    last = cfg.months
    if decision_month > last:
        return f"never decided: month {decision_month} is after the horizon (month {last})"
    return ""


def publication_note(cfg: WorldConfig, venue: str, decision_month: int) -> str:
    """When a paper accepted at ``venue`` in ``decision_month`` is published and what the
    horizon does to it (§7 Accept, with :func:`world.papers.publication_month`):
    ``"publishes month 61, after the horizon (month 60): no citations, no Impact; reputation
    only"`` when published after ``cfg.months``; ``"publishes month 58"`` when later than the
    decision (a conference); ``""`` when published at the decision within the horizon (a
    workshop or journal). A decision after the horizon is never made:
    ``"never decided: month 63 is after the horizon (month 60)"``.

    Raises:
        KeyError: ``venue`` is not one of ``cfg.venues``.
    """
    last = cfg.months
    if never := never_decided(cfg, decision_month):
        return never
    published = publication_month(cfg, venue, decision_month)
    if published > last:
        return (
            f"publishes month {published}, after the horizon (month {last}): no citations, no Impact; reputation only"
        )
    return f"publishes month {published}" if published != decision_month else ""


def submission_horizon_note(cfg: WorldConfig, venue: str, decision_month: int) -> str:
    """What the horizon does to a submission to ``venue`` decided in ``decision_month`` (§7,
    §12), for a reply to the submission: ``"never decided: month 61 is after the horizon
    (month 60): it can never count in this career"`` (:func:`never_decided`); ``"if accepted,
    publishes month 62, after the horizon (month 60): no citations, no Impact; reputation
    only"`` (:func:`publication_note`); ``""`` when an acceptance is published by the horizon.

    Raises:
        KeyError: ``venue`` is not one of ``cfg.venues``.
    """
    if never := never_decided(cfg, decision_month):
        return f"{never}: it can never count in this career"
    if publication_month(cfg, venue, decision_month) > cfg.months:
        return "if accepted, " + publication_note(cfg, venue, decision_month)
    return ""


def proposal_horizon_note(cfg: WorldConfig, decision_month: int) -> str:
    """What the horizon does to a proposal decided in ``decision_month`` (§9, §12), for a reply
    to the proposal and the proposal form: ``"never decided: month 61 is after the horizon
    (month 60): it can never fund the lab in this career"`` (:func:`never_decided`); ``""``
    when it is decided within the career."""
    if never := never_decided(cfg, decision_month):
        return f"{never}: it can never fund the lab in this career"
    return ""


def project_start_note(cfg: WorldConfig, month: int) -> str:
    """What the horizon does to a project started in ``month`` (§6, §7, §12): after
    :func:`world.papers.last_useful_draft_month` it completes too late for its draft to be
    decided by the last month, so it adds nothing to Impact; ``""`` before."""
    last = last_useful_draft_month(cfg)
    if month <= last:
        return ""
    return (
        f"started after month {last}, it cannot make a draft that is decided by the last month "
        f"({cfg.months}): it adds nothing to Impact in this career"
    )


def venue_profile(query: Query, cfg: WorldConfig, venue: str, before: int | None = None) -> str:
    """A venue's bar and worth as the PI knows them: where its acceptance bar and its papers'
    citation rate rank among the scenario's venues (the public tables of §7 and §8, as ranks),
    the reviewer-score means the lab has seen accepted and rejected there (decisions made
    before month ``before`` when given), and its papers' citations so far."""
    if venue not in cfg.venues:
        return f"no venue {venue}"
    acc: list[float] = []
    rej: list[float] = []
    for r in query(
        f"select status, decision_month, reviewer_scores from submissions where venue = '{_q(venue)}' and status in ('accept', 'reject')"
    ):
        if before is not None and (r["decision_month"] or 0) >= before:
            continue
        mean = _mean([float(x) for x in _list(r["reviewer_scores"])])
        if mean is not None:
            (acc if r["status"] == "accept" else rej).append(mean)
    seen = []
    if acc:
        seen.append(f"accepted at means {min(acc):.1f}" + (f"-{max(acc):.1f}" if len(acc) > 1 else ""))
    if rej:
        seen.append(f"rejected at means {min(rej):.1f}" + (f"-{max(rej):.1f}" if len(rej) > 1 else ""))
    pubs = query(f"select count(*) as n, sum(citations) as c from publications where venue = '{_q(venue)}'")
    n = int(pubs[0]["n"] or 0) if pubs else 0
    out = venue_worth(cfg, venue)
    if seen:
        out += "; the lab's record: " + ", ".join(seen)
    if n:
        out += f"; {_plural(n, 'paper')} of the lab there, {int(pubs[0]['c'] or 0)} citations"
    return out


CAREER_OVER = "the career is over: nothing is left to do about it"
"""What an explanation says instead of its advice once the career has ended (§12: no call
changes the world after the last month or a collapse)."""


def explain_decision(query: Query, cfg: WorldConfig, submission_id: str, over: bool = False) -> str:
    """A review decision in visible terms (§7): the reviewers' mean against the venue's record;
    a score rises with the draft's quality, polish (up to the saturation hours) and revisions,
    the topic's heat and the lab's standing. A rejection says what to do next (polish, revise,
    a venue with a lower bar unless none has one) and whether the draft is a salvage draft
    (§6: made from a dead end, it starts weak).

    The text may be read long after the decision (a month's digest re-read, ``lab.explain``),
    and the draft's polish can grow after a rejection, so the advice says what holds *now*: the
    polish the draft has now, and, once the draft has gone to review again, those later
    submissions and how each stands instead of advice already acted on. With ``over`` (the
    career has ended: nothing can be sent any more, §12) a rejection gives no advice to act."""
    rows = query(f"select * from submissions where id = '{_q(submission_id)}'")
    if not rows:
        return f"no submission {submission_id}"
    s = rows[0]
    profile = venue_profile(query, cfg, s["venue"], before=s["decision_month"])
    if s["status"] == "accept":
        return profile + "."
    d = query(f"select polish_hours, revisions, salvage from drafts where id = '{_q(s['draft_id'])}'")
    salvage = " It is a salvage draft (made from a dead end): those start weak." if d and d[0]["salvage"] else ""
    later = query(  # sent after this decision (the draft was under review until it)
        f"select id, venue, status from submissions where draft_id = '{_q(s['draft_id'])}' "
        f"and submitted_month >= {int(s['decision_month'])} order by submitted_month, id"
    )
    if later:
        went = ", ".join(
            f"{x['id']} at {x['venue']} ({_SUBMISSION_WORDS.get(x['status'], x['status'])})" for x in later
        )
        return f"{profile}; since then the draft went to review again: {went}.{salvage}"
    if over:
        return f"{profile}; {CAREER_OVER}.{salvage}"
    polish = float(d[0]["polish_hours"] or 0) if d else 0.0
    tips = []
    if polish < cfg.polish_cap_hours:
        tips.append(f"polish it to {cfg.polish_cap_hours:g} h (it has {polish:g} h now)")
    tips.append("revise it (each revision helps less)")
    lowest = min(float(v["bar"]) for v in cfg.venues.values())
    if s["venue"] in cfg.venues and float(cfg.venues[s["venue"]]["bar"]) > lowest:
        tips.append("or send it to a venue with a lower bar")
    else:
        tips[-1] += f"; no venue has a lower bar than {s['venue']}"
    return profile + "; next: " + ", ".join(tips) + "." + salvage


_SUBMISSION_WORDS = {"under_review": "under review", "accept": "accepted", "reject": "rejected"}
"""A submission's status (§14 ``submissions.status``) in words; ``withdrawn`` reads as itself."""


# ------------------------------------------------------------------- scoops, dead ends, people, standing
def explain_scoop(query: Query, cfg: WorldConfig, project_id: str, over: bool = False) -> str:
    """A scoop (§6) in visible terms: another group published overlapping work; the project's
    idea is less novel, so the draft it makes comes out weaker (novelty enters a draft's
    quality), each active member's morale takes a blow, and the project goes on. The news
    comes a month after the scoop, so it can name a project finished since (scooped in its
    last month, before its draft was made). What lowers the risk: :func:`scoop_remedy` (not said
    when the career is ``over``)."""
    rows = query(f"select id, topic, status, ended_month, progress_pct from projects where id = '{_q(project_id)}'")
    if not rows:
        return f"no project {project_id}"
    p = rows[0]
    told = [n for n, _ in _scoop_news(query, {str(p["id"])}, 0, _EVERY_MONTH)]  # every scoop news of it
    times = len(told)  # the scoops the PI knows of (as scooped_times counts them)
    if p["status"] == "active":
        state = f"it goes on at {float(p['progress_pct'] or 0):.0f}%"
    elif p["status"] == "completed" and told and told[-1] - 1 == p["ended_month"]:
        state = "the news comes a month after a scoop, so this one fell in its last month, before its draft was made"
    elif p["status"] == "completed":
        state = f"it went on to finish in month {p['ended_month']}, its draft made after the scoop"
    else:
        state = f"it is {'dead-ended' if p['status'] == 'deadend' else 'stopped'} now"
    again = f", {times} times so far" if times > 1 else ""
    remedy = CAREER_OVER if over else scoop_remedy(cfg)
    return (
        f"another group published work overlapping {p['id']} ({p['topic']}){again}: its idea is less novel now, "
        f"so the draft it makes comes out weaker, and each member's morale takes a blow; {state}. "
        f"{remedy[0].upper()}{remedy[1:]}."
    )


def explain_dead_end(query: Query, cfg: WorldConfig, project_id: str, over: bool = False) -> str:
    """A dead end (§6): a project that cannot work out shows it only at a share of its work;
    the chance of that rises with the tier. Nothing the team did drew it. With ``over`` (the
    career has ended) no advice to act."""
    rows = query(f"select tier, topic from projects where id = '{_q(project_id)}'")
    tier = int(rows[0]["tier"]) if rows else 0
    odds = sorted(cfg.tiers, key=lambda t: cfg.tiers[t]["p_infeasible"])
    return (
        f"tier {tier} ideas fail more often than tier {odds[0]} ones and a project shows it only part-way: "
        "no visible signal comes before; " + (CAREER_OVER if over else "spread risk over tiers and keep drafts flowing")
    )


def explain_offer(
    query: Query,
    cfg: WorldConfig,
    pool: str,
    standing: str,
    when: str = "now",
    counts: tuple[int, int] | None = None,
    over: bool = False,
) -> str:
    """A declined offer (§5): acceptance depends on the applicant pool and grows with standing.
    ``standing`` is the lab's standing ``when`` (``"now"``, or ``"in month 35"`` for a report
    read later); at the highest standing nothing is left to raise. ``counts``: the pool's
    ``(accepted, answered)`` offers as that report's month left them (:func:`pool_answers`).
    With ``over`` (the career has ended) no advice to act."""
    todo = CAREER_OVER if over else "offer to more applicants"
    record = f"pools differ in how often they accept (the lab's record: {pool_answers(query, pool, counts)}), and every pool "
    return record + f"accepts more often at a higher standing ({lab_standing(standing, when)}); {todo}"


def pool_answers(query: Query, pool: str, counts: tuple[int, int] | None = None) -> str:
    """``"2 of 5 accepted"`` for the answered offers to ``pool``: ``counts`` (``(accepted,
    answered)``, e.g. as an earlier month left them) when given, else read now."""
    if counts is not None:
        return f"{counts[0]} of {counts[1]} accepted" if counts[1] else "no answer yet"
    rows = query(
        f"select status from applicants where pool = '{_q(pool)}' and status in ('accepted', 'joined', 'declined')"
    )
    ok = sum(1 for r in rows if r["status"] != "declined")
    return f"{ok} of {len(rows)} accepted" if rows else "no answer yet"


def explain_search(standing: str, outcome: str, when: str = "now", over: bool = False) -> str:
    """An unfilled or paused postdoc search (§5): fills grow with standing; a search is paused
    when the lab is at its researcher cap at the resolution. ``standing`` is the lab's standing
    ``when`` (``"now"``, or ``"in month 35"`` for a report read later); at the highest standing
    nothing is left to raise. With ``over`` (the career has ended) no advice to act."""
    if outcome == "paused":
        return "the lab was at its researcher cap when the search resolved" + (
            f"; {CAREER_OVER}" if over else ": post only with a free place"
        )
    if standing == STANDING_WORDS[-1]:
        return f"a search can end without a hire even at the highest standing ({lab_standing(standing, when)}): " + (
            CAREER_OVER if over else "post again"
        )
    return f"searches fill more often at a higher standing ({lab_standing(standing, when)})" + (
        f"; {CAREER_OVER}" if over else ": publish, win grants, give talks"
    )


def lab_standing(standing: str, when: str = "now") -> str:
    """The lab's standing ``when`` and where it is on the ladder of :data:`STANDING_WORDS` (§10),
    for a sentence on what grows with standing: ``"the lab's: rising now, the next one up
    established"``, ``"the lab's: renowned in month 35, the highest"``; a word not on the
    ladder is said alone. The standing words are read as names (no "rising … rises")."""
    head = f"the lab's: {standing} {when}"
    if standing == STANDING_WORDS[-1]:
        return f"{head}, the highest"
    if standing in STANDING_WORDS:
        return f"{head}, the next one up {STANDING_WORDS[STANDING_WORDS.index(standing) + 1]}"
    return head


def standing_months(query: Query, month: int) -> tuple[str, int] | None:
    """``(standing, months)``: the standing of the last closed month up to ``month`` and for how
    many closed months in a row the lab has had it (``lab_monthly``); ``None`` before any."""
    rows = query(f"select month, reputation_standing as s from lab_monthly where month <= {int(month)} order by month")
    if not rows:
        return None
    now = rows[-1]["s"]
    since = rows[-1]["month"]
    for r in reversed(rows):
        if r["s"] != now:
            break
        since = r["month"]
    return str(now), int(rows[-1]["month"]) - int(since) + 1


def explain_standing(query: Query, cfg: WorldConfig, month: int) -> str:
    """Standing (§10): months at the current standing and what moves it (acceptances by venue
    rank, funded grants, talks, reviews, citations; it slowly drifts back without them); after
    :data:`STANDING_STUCK_MONTHS` at "unknown", the lab's record and the largest steps
    (:func:`standing_moves`)."""
    held = standing_months(query, month)
    if held is None:
        return "no month closed yet"
    now, months = held
    out = (
        f"standing {now} for {_plural(months, 'month')}"
        + (f" ({now} is the lowest of the standings {', '.join(STANDING_WORDS)})" if now == STANDING_WORDS[0] else "")
        + "; it rises with accepted papers (most at the top conference "
        "and the journal), funded grants, invited talks, reviews and citations, and drifts back slowly without them"
    )
    if now == "unknown" and months >= STANDING_STUCK_MONTHS:
        out += "; " + standing_moves(query, cfg)
    return out


STANDING_STUCK_MONTHS = 24
"""Months at "unknown" after which the standing explanation lists the lab's record against the
public impulses of §10 (a reading guide, not a rule of the world)."""


def standing_record(query: Query) -> str:
    """The lab's record of what moves standing (§10), from the observable database:
    ``"the lab's record: 0 papers accepted, 0 grants funded, 1 invited talk given"``."""
    accepted = query("select count(*) as n from submissions where status = 'accept'")
    funded = query("select count(*) as n from proposals where status = 'funded'")
    talks = query("select count(*) as n from events where kind = 'invited_talk' and status = 'accepted'")
    n_acc, n_fund, n_talk = (int(r[0]["n"] or 0) if r else 0 for r in (accepted, funded, talks))
    return (
        f"the lab's record: {_plural(n_acc, 'paper')} accepted, {_plural(n_fund, 'grant')} funded, "
        f"{_plural(n_talk, 'invited talk')} given"
    )


def largest_standing_steps(cfg: WorldConfig) -> tuple[tuple[str, float], tuple[str, float]]:
    """The largest steps of standing in the public impulse table (§10), from the config:
    ``(("NAIC", 0.5), ("FEL", 0.5))``, the venue whose acceptance and the agency whose grant
    move it most, with their impulses."""
    venue = max(cfg.venues, key=lambda v: float(cfg.venues[v]["reputation"]))
    agency = max(cfg.agencies, key=lambda a: float(cfg.agencies[a]["reputation"]))
    return (venue, float(cfg.venues[venue]["reputation"])), (agency, float(cfg.agencies[agency]["reputation"]))


def standing_steps_in_time(cfg: WorldConfig, month: int) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
    """The largest steps of standing in the public impulse table (§10) that an action taken in
    ``month`` can still win within the career: ``(("NAIC", 0.5), ("FEL", 0.5))`` as
    :func:`largest_standing_steps` until the last months, then only a venue whose decision on a
    submission made in ``month`` (:func:`world.papers.decision_month`, §7) and an agency whose
    decision on a proposal made in it (:func:`world.grants.proposal_decision_month`, §9) come by the last month
    (``cfg.months``); ``None`` for a side none of whose steps can. An impulse decided later
    cannot move the final reputation (§10, §12)."""
    venues = [v for v in cfg.venues if decision_month(cfg, v, month) <= cfg.months]
    agencies = [a for a in cfg.agencies if proposal_decision_month(cfg, a, month) <= cfg.months]
    venue = max(venues, key=lambda v: float(cfg.venues[v]["reputation"]), default=None)
    agency = max(agencies, key=lambda a: float(cfg.agencies[a]["reputation"]), default=None)
    return (
        (venue, float(cfg.venues[venue]["reputation"])) if venue is not None else None,
        (agency, float(cfg.agencies[agency]["reputation"])) if agency is not None else None,
    )


def standing_moves(query: Query, cfg: WorldConfig) -> str:
    """What the lab's record holds of what moves standing (§10, the public impulse table) and
    the largest steps: ``"the lab's record: 0 papers accepted, 0 grants funded, 1 talk given;
    one NAIC acceptance (+0.50 in the public table) or a funded FEL grant (+0.50) are the largest
    steps"``. Counts come from the observable database; the steps from the config
    (:func:`largest_standing_steps`)."""
    (venue, v_step), (agency, a_step) = largest_standing_steps(cfg)
    return (
        f"{standing_record(query)}; the largest steps are an acceptance at {venue} "
        f"(+{v_step:.2f} in the public table) and a grant from {agency} (+{a_step:.2f}); "
        f"a talk gives +{cfg.rep_talk:.2f}, a conference trip +{cfg.rep_conference:.2f}"
    )


STANDING_EFFECTS = "applicants, offers, postdoc searches and grants favour a higher one"
"""What the standing drives, in a player's words (§10: "Reputation drives: ...")."""


def standing_warning(query: Query, cfg: WorldConfig, month: int) -> str:
    """The short form of :func:`explain_standing` for a warning (a toast at 80x24 is a few
    rows): the standing, for how long, what the level means, the largest steps that move it
    and that a submission or a proposal made in ``month`` (the month now open) can still win
    within the career (:func:`standing_steps_in_time`) and where the full explanation is (the
    digest, ``d``, and ``lab.explain('standing')``). No final stop. ``""`` before any month
    closed, and once no step can be decided by the last month (month 60 of the standard career:
    its remedies could no longer count)."""
    held = standing_months(query, month)
    venue, agency = standing_steps_in_time(cfg, month)
    if held is None or (venue is None and agency is None):
        return ""
    now, months = held
    low = " (the lowest)" if now == STANDING_WORDS[0] else ""
    steps = ([f"a {venue[0]} acceptance (+{venue[1]:.2f})"] if venue else []) + (
        [f"a grant from {agency[0]} (+{agency[1]:.2f})"] if agency else []
    )
    return (
        f"standing {now}{low} for {_plural(months, 'month')}: {STANDING_EFFECTS}; largest steps up: "
        f"{' or '.join(steps)}; more: the digest (d) or lab.explain('standing')"
    )


# ------------------------------------------------------------------------ one call: lab.explain
EXPLAIN_KINDS: dict[str, str] = {
    "quit": "a person who quit (their id): what was visible before and what could have helped (§5)",
    "warning": "a person (their id): the visible signals of their morale now and what helps (§5)",
    "left_behind": "a person (their id): projects with no member (or only RAs and managers, no author) left and their drafts with no author left (§6, §7)",
    "proposal": "a proposal (its id): what the panel weighs and how this one stood on each (§9)",
    "decision": "a decided submission (its id): the reviewers' mean against the venue's record (§7)",
    "venue": "a venue (its name): its bar and worth as the lab knows them (§7, §8)",
    "dead_end": "a project (its id): why a project dead-ends and what can be done (§6)",
    "scoop": "a project (its id): what a scoop does to it and what lowers the risk (§6)",
    "offer": "an applicant (their id): how often their pool accepts and what raises it (§5)",
    "search": "'unfilled' or 'paused': why a postdoc search ends without a hire (§5)",
    "standing": "no id: months at the current standing and what moves it (§10)",
}
"""The kinds :func:`explain` answers, each with what its id is (the text of ``lab.explain``'s help)."""


def _known(query: Query, table: str, ident: str, noun: str) -> dict[str, Any]:
    """The row of ``ident`` in ``table``, or an ``unknown_id`` ActionError listing the ids."""
    rows = query(f"select * from {table} where id = '{_q(ident)}'")
    if rows:
        return rows[0]
    ids = [r["id"] for r in query(f"select id from {table} order by id")]
    shown = ", ".join(ids[-15:]) + (f" (last 15 of {len(ids)})" if len(ids) > 15 else "") if ids else "none yet"
    raise ActionError("unknown_id", f"no {noun} {ident!r}; {noun}s: {shown}")


def explain(
    query: Query,
    cfg: WorldConfig,
    kind: str,
    ident: str,
    month: int,
    standing: str,
    actions: Actions = (),
    over: bool = False,
) -> str:
    """The explanation of one outcome, the text the digest's "why:" lines show (``lab.explain``).

    Args:
        query: the observable database.
        cfg: the scenario's config (public rule numbers).
        kind: one of :data:`EXPLAIN_KINDS`.
        ident: the id the kind names (``""`` for ``standing``).
        month: the month now open (the warning and standing read up to it).
        standing: the lab's standing now (``lab.dashboard()["lab_standing"]``).
        actions: the PI's action log (:data:`Actions`; kinds ``quit`` and ``left_behind`` read who was
            on what).
        over: the career has ended (§12): the explanations of a decision, a dead end, a scoop,
            an offer and a search give no advice to act (:data:`CAREER_OVER` instead).

    Raises:
        ActionError: ``bad_argument`` for an unknown kind, a person who has not left (kind
            ``quit``) or a search outcome other than ``unfilled``/``paused``; ``unknown_id``
            for an id that names nothing of that kind.
    """
    if kind not in EXPLAIN_KINDS:
        raise ActionError("bad_argument", f"unknown kind {kind!r}; kinds: {', '.join(EXPLAIN_KINDS)}")
    if kind in ("quit", "warning", "left_behind"):
        row = _known(query, "students", ident, "person")
        if kind == "quit":
            if not row["left_month"]:
                raise ActionError(
                    "bad_argument", f"{ident} has not left the lab; kind 'warning' reads their morale now"
                )
            if row["status"] != "quit":
                raise ActionError("bad_argument", f"{ident} did not quit (they left as {row['status']})")
            return explain_quit(query, cfg, ident, actions)
        if kind == "warning":
            return quit_warning(query, cfg, ident, month) or (
                f"no warning for {ident}: none of the signals before quitting shows (two low meeting moods in a "
                "row, falling reports, or no meeting notes with a pressure on morale)"
            )
        return "; ".join(leftovers(query, cfg, ident, actions, month)) or f"nothing left behind by {ident}"
    if kind == "proposal":
        if _known(query, "proposals", ident, "proposal")["status"] == "pending":
            raise ActionError("bad_argument", f"{ident} is still pending: only a decided proposal is explained")
        return explain_proposal(query, cfg, ident)
    if kind == "decision":
        sub = _known(query, "submissions", ident, "submission")
        if sub["status"] not in ("accept", "reject"):
            raise ActionError(
                "bad_argument",
                f"{ident} is {str(sub['status']).replace('_', ' ')}: only a decided submission is explained",
            )
        return explain_decision(query, cfg, ident, over)
    if kind == "venue":
        if ident not in cfg.venues:
            raise ActionError("bad_argument", f"unknown venue {ident!r}; venues: {', '.join(cfg.venues)}")
        return venue_profile(query, cfg, ident) + "."
    if kind == "dead_end":
        if _known(query, "projects", ident, "project")["status"] != "deadend":
            raise ActionError("bad_argument", f"{ident} did not dead-end")
        return explain_dead_end(query, cfg, ident, over)
    if kind == "scoop":
        if not _known(query, "projects", ident, "project")["scooped_times"]:
            raise ActionError("bad_argument", f"{ident} was not scooped (no scoop news names it)")
        return explain_scoop(query, cfg, ident, over)
    if kind == "offer":
        applicant = _known(query, "applicants", ident, "applicant")
        if applicant["status"] != "declined":
            raise ActionError("bad_argument", f"{ident} did not decline an offer (their status: {applicant['status']})")
        return explain_offer(query, cfg, applicant["pool"], standing, over=over)
    if kind == "search":
        if ident not in SEARCH_NEWS:
            raise ActionError("bad_argument", f"a search's id is its outcome: 'unfilled' or 'paused', got {ident!r}")
        if not query(f"select month from news where kind = 'lab' and text like '%{SEARCH_NEWS[ident]}%'"):
            raise ActionError("bad_argument", f"no postdoc search of the lab has ended {ident}")
        return explain_search(standing, ident, over=over)
    return explain_standing(query, cfg, month)


__all__ = [
    "CAREER_OVER",
    "EXPLAIN_KINDS",
    "LOW_MOOD",
    "VERY_LOW_MOOD",
    "Actions",
    "Query",
    "REPORT_DROP",
    "STANDING_STUCK_MONTHS",
    "WINDOW",
    "agency_topics",
    "explain",
    "explain_dead_end",
    "explain_decision",
    "explain_offer",
    "explain_proposal",
    "explain_quit",
    "explain_scoop",
    "explain_search",
    "lab_standing",
    "explain_standing",
    "largest_standing_steps",
    "standing_steps_in_time",
    "standing_warning",
    "leftovers",
    "orphaned_draft_ids",
    "orphaned_drafts",
    "orphaned_project_rows",
    "orphaned_projects",
    "morale_signals",
    "person",
    "pool_answers",
    "projects_at_departure",
    "quit_warning",
    "scoop_remedy",
    "standing_months",
    "standing_moves",
    "standing_record",
    "venue_profile",
    "venue_worth",
]
