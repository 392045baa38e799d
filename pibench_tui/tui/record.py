"""The PI's own record, as context for every outcome and every decision.

A rejection is read next to the lab's past accepts and rejects at that venue, an offer next
to this pool's past answers, a grant decision next to the lab's record with that agency and
topic, a postdoc search next to the past ones. Everything is computed from the observable
database (``api.query``), the API, and the scenario's public rules (``WorldConfig``) —
the same data an agent can read — never from hidden state. Nothing here imports Textual.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from world.papers import last_useful_draft_month


def _scores(value: Any) -> list[float]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return [float(x) for x in value] if isinstance(value, list) else []


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def fmt_scores(xs: list[float]) -> str:
    """``"5.2, 6.0, 4.9 (mean 5.37)"`` or ``"—"``."""
    if not xs:
        return "—"
    return ", ".join(f"{x:.1f}" for x in xs) + f" (mean {sum(xs) / len(xs):.2f})"


def month_of_year(month: int) -> int:
    """1..12 for a career month (month 1 is January of year 1)."""
    return (month - 1) % 12 + 1


class SeasonMonths(NamedTuple):
    """Career months of one year's recruiting season (§5; ``lab.rules()["season"]``).

    Attributes:
        last_offer: the last month in which PhD offers can be made.
        answers: the month at whose end offers are answered.
        arrival: the month accepted students arrive.
    """

    last_offer: int
    answers: int
    arrival: int


def season_months(rules: dict[str, Any], month: int) -> SeasonMonths:
    """The recruiting season of the year career ``month`` is in, from the scenario's
    ``lab.rules()`` (``rules``)."""
    season = rules["season"]
    year = month - month_of_year(month)  # the career month before this year's month 1
    return SeasonMonths(year + max(season["offer_months"]), year + season["offers_resolve"], year + season["arrival"])


def venue_record(game: Any, venue: str, before: int | None = None) -> str:
    """The lab's decisions at ``venue`` so far, with the mean reviewer scores of accepts and rejects.

    With no decision at ``venue`` yet, the lab's decisions at its other venues follow (their
    mean scores give the scale a first score at this venue is read against).

    Args:
        before: count only decisions made before this month (the ones being explained are not
            their own context).
    """
    rows = game.query(
        "select id, venue, status, decision_month, reviewer_scores from submissions "
        "where status in ('accept', 'reject')"
    )
    acc: list[float] = []
    rej: list[float] = []
    elsewhere: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if before is not None and (r["decision_month"] or 0) >= before:
            continue
        mean = _mean(_scores(r["reviewer_scores"]))
        if mean is None:
            continue
        if r["venue"] == venue:
            (acc if r["status"] == "accept" else rej).append(mean)
        else:
            elsewhere.setdefault(r["venue"], {}).setdefault(r["status"], []).append(mean)
    if not acc and not rej:  # the scale from the lab's other venues, so a first score is not read alone
        other = "; ".join(
            f"{v} "
            + ", ".join(
                f"{len(xs)} {'accepted' if st == 'accept' else 'rejected'} at mean "
                f"{min(xs):.2f}" + (f"-{max(xs):.2f}" if len(xs) > 1 else "")
                for st, xs in sorted(by.items())
            )
            for v, by in sorted(elsewhere.items())
        )
        return f"no earlier decision at {venue}" + (f" (elsewhere: {other})" if other else "")
    parts = []
    if acc:
        parts.append(
            f"{len(acc)} accepted (mean scores {min(acc):.2f}-{max(acc):.2f})"
            if len(acc) > 1
            else f"1 accepted (mean score {acc[0]:.2f})"
        )
    else:
        parts.append("none accepted")
    if rej:
        parts.append(
            f"{len(rej)} rejected (mean scores {min(rej):.2f}-{max(rej):.2f})"
            if len(rej) > 1
            else f"1 rejected (mean score {rej[0]:.2f})"
        )
    else:
        parts.append("none rejected")
    return f"{venue} before: " + ", ".join(parts)


def offers_made(game: Any, month: int | None = None) -> list[tuple[int, str, int]]:
    """The PhD offers the PI made (months up to ``month`` when given), from the PI's action log
    (``Game.action_log``, where only the calls that took effect are kept): ``[(month made,
    applicant id, month at whose end it is answered)]``, oldest first (§5, ``lab.rules()``'s
    season)."""
    out = []
    for row in game.action_log:
        made, name, kwargs = int(row[0]), row[1], row[2]
        if name != "recruit.offer" or (month is not None and made > month) or not isinstance(kwargs, dict):
            continue
        out.append((made, str(kwargs.get("applicant_id")), season_months(game.rules, made).answers))
    return out


def offers_waiting(game: Any, month: int) -> list[tuple[str, str, int]]:
    """The offers still waiting for an answer when ``month`` closed, as the report of ``month``
    found them (read later, not today's): ``[(applicant id, name, answer month)]``, made by
    ``month`` (:func:`offers_made`) and answered after it; names from the ``applicants`` table."""
    waiting = [(aid, answers) for _, aid, answers in offers_made(game, month) if answers > month]
    if not waiting:
        return []
    ids = ", ".join(f"'{_safe(aid)}'" for aid, _ in waiting)
    names = {r["id"]: r["name"] for r in game.query(f"select id, name from applicants where id in ({ids})")}
    return [(aid, str(names.get(aid, aid)), answers) for aid, answers in waiting]


def pool_counts(game: Any, pool: str, month: int | None = None) -> tuple[int, int, int]:
    """``(accepted, answered, waiting)``: the offers to ``pool`` accepted and answered so far, and
    those waiting for an answer; with ``month``, as the close of that month left them (answered
    by then; made by then and answered later) from the PI's action log (:func:`offers_made`)."""
    rows = game.query(
        f"select id, status from applicants where pool = '{_safe(pool)}' "
        "and status in ('offered', 'accepted', 'joined', 'declined')"
    )
    status = {r["id"]: r["status"] for r in rows}
    if month is None:
        answered_ids = [aid for aid, st in status.items() if st != "offered"]
        waiting = sum(1 for st in status.values() if st == "offered")
    else:
        made = [(aid, answers) for _, aid, answers in offers_made(game, month) if aid in status]
        answered_ids = [aid for aid, answers in made if answers <= month and status[aid] != "offered"]
        waiting = sum(1 for _, answers in made if answers > month)
    accepted = sum(1 for aid in answered_ids if status[aid] in ("accepted", "joined"))
    return accepted, len(answered_ids), waiting


def pool_record(game: Any, pool: str, month: int | None = None) -> str:
    """Offers made to ``pool`` so far and how they were answered (open offers counted apart);
    with ``month``, as the close of that month left them (offers answered by then, offers made
    by then and still waiting: a report read later speaks of its month)."""
    accepted, answered, waiting = pool_counts(game, pool, month)
    out = (
        f"offers to {pool} so far: {accepted} of {answered} accepted"
        if answered
        else f"no answered offer to {pool} yet"
    )
    if waiting:
        out += f" ({waiting} waiting for an answer)"
    return out


def agency_record(game: Any, agency: str, topic: str | None = None, before: int | None = None) -> str:
    """The lab's decided proposals to ``agency`` (and on ``topic``): funded / rejected counts
    (only decisions made before month ``before`` when given)."""
    rows = [
        r
        for r in game.query("select id, agency, topic, status, decision_month from proposals where status != 'pending'")
        if before is None or (r["decision_month"] or 0) < before
    ]
    mine = [r for r in rows if r["agency"] == agency]
    out = f"{agency} before: {_funded(mine)} of {len(mine)} funded" if mine else f"no earlier decision from {agency}"
    return out + _topic_record(rows, mine, topic) if topic else out


def _funded(rows: list[Any]) -> int:
    """How many of the decided proposals ``rows`` were funded."""
    return sum(1 for r in rows if r["status"] == "funded")


def _topic_record(rows: list[Any], mine: list[Any], topic: str) -> str:
    """:func:`agency_record`'s topic part: the agency's decisions on ``topic`` (``mine``), and
    every agency's when they are more (``rows``); empty when neither says anything."""
    out = ""
    on = [r for r in mine if r["topic"] == topic]
    if on:
        out += f"; on {topic}: {_funded(on)} of {len(on)}"
    any_topic = [r for r in rows if r["topic"] == topic]
    if any_topic and len(any_topic) != len(on):
        out += f"; {topic} at any agency: {_funded(any_topic)} of {len(any_topic)}"
    return out


_SEARCH = re.compile(r"Postdoc search (\S+) (filled|ended without a hire|paused)")


def postdoc_searches(game: Any) -> list[tuple[int, str, str]]:
    """Every resolved postdoc search the lab has heard of: ``[(month, id, "filled"|"unfilled"|"paused")]``
    (from the lab's news, the way the PI learnt of them)."""
    out = []
    for r in game.query(
        "select month, text from news where kind = 'lab' and text like 'Postdoc search %' order by month"
    ):
        m = _SEARCH.search(r["text"])
        if m:
            outcome = {"filled": "filled", "ended without a hire": "unfilled", "paused": "paused"}[m.group(2)]
            out.append((int(r["month"]), m.group(1).rstrip(":"), outcome))
    return out


def postdoc_record(game: Any, before: int | None = None) -> str:
    """Past postdoc searches (resolved before month ``before`` when given): how many filled."""
    past = [s for s in postdoc_searches(game) if before is None or s[0] < before]
    if not past:
        return "no earlier postdoc search"
    filled = sum(1 for s in past if s[2] == "filled")
    return f"earlier searches: {filled} of {len(past)} filled"


def proposal_facts(game: Any, proposal_id: str) -> str:
    """What went into a proposal: hours written and evidence attached (``proposals`` table)."""
    rows = game.query(f"select hours, attached from proposals where id = '{_safe(proposal_id)}'")
    if not rows:
        return ""
    attached = rows[0]["attached"]
    if isinstance(attached, str):
        try:
            attached = json.loads(attached)
        except ValueError:
            attached = [attached] if attached else []
    n = len(attached or [])
    return f"this proposal: {rows[0]['hours']:g} h of writing, {n} item(s) of evidence attached"


def standing_at(game: Any, month: int) -> tuple[str, str]:
    """The lab's standing as the report of ``month`` found it, and how to say when: the
    dashboard's (``"now"``) for the month just closed (or later), else the standing recorded at
    that month's end (``lab_monthly``, the dashboard's after its close) with ``"in month N"``:
    a report read again later speaks of its month, not of today."""
    dash = game.dashboard()
    if month < dash["month"] - 1:
        rows = game.query(f"select reputation_standing as s from lab_monthly where month = {int(month)}")
        if rows:
            return str(rows[0]["s"]), f"in month {month}"
    return str(dash["lab_standing"]), "now"


def standing_note(game: Any, month: int) -> str:
    """The lab's standing when the report of ``month`` came (:func:`standing_at`; offers and
    postdoc searches fill more often as it grows)."""
    standing, when = standing_at(game, month)
    return f"lab standing {when}: {standing}; acceptances grow with standing"


def _safe(text: str) -> str:
    return str(text).replace("'", "''")


def event_answers(game: Any, kind: str) -> str:
    """What each answer to an event of ``kind`` costs and does (this scenario's ``lab.rules()``, §11)."""
    r = game.rules
    hours, costs = r["hours"], r["costs"]
    return {
        "invited_talk": f"accept: {hours['talk']:g} h and ${costs['talk_travel']:,.0f}, standing up; decline: nothing",
        "review_request": f"accept: {hours['review']:g} h, standing up a little; decline or letting it lapse: standing down a little",
        "student_crisis": f"support: {hours['crisis']:g} h, morale up; ignore (or no answer): morale falls hard",
        "collaboration_offer": f"accept: {hours['collaboration']:g} h in each of the next {r['collaboration']['months']} months, "
        "then a co-authored draft; decline: nothing",
    }.get(kind, "")


def after_the_end(game: Any, kind: str | None, respond_by: Any, answered: int) -> str:
    """What the career's end does to an event's choice, or ``""`` when nothing (§11, §12).

    The world offers events whatever the month (MECHANICS §11 has no horizon exception), so
    near the end an event's window or its pay-off can lie after the last month: a talk or a
    review request unanswered by then never lapses (no standing lost for letting it go),
    and a collaboration accepted in month ``answered`` delivers its draft too late to count
    (after :func:`world.papers.last_useful_draft_month`: it could not be decided by the last
    month; its hours are spent for nothing).

    Args:
        game: the career (``lab.rules()``: the horizon and the collaboration length; its
            world's config for the last useful draft month).
        kind: the event's kind.
        respond_by: its last month to answer.
        answered: the month it would be answered in (now, or its arrival month).
    """
    r = game.rules
    last = int(r["horizon_months"])
    if kind == "collaboration_offer":
        arrives = int(answered) + int(r["collaboration"]["months"])
        if arrives > last_useful_draft_month(game.world.cfg):
            return (
                f"cannot pay off: the draft would arrive in month {arrives}, too late to be decided by the "
                f"career's last month ({last}); accepting would only cost hours"
            )
        return ""
    if kind in ("invited_talk", "review_request") and isinstance(respond_by, int) and respond_by > last:
        return (
            f"its answer-by month {respond_by} is after the career's last month ({last}): left unanswered it "
            "never lapses (no standing lost); an answer counts now"
        )
    return ""


def compute_price(game: Any, dash: dict | None = None) -> float:
    """This month's compute price multiplier (1 unless the dashboard notes a surge)."""
    dash = dash or game.dashboard()
    for note in dash.get("notes", []):
        if note.startswith("Compute price"):
            m = re.search(r"([0-9.]+)\s*×?\.?$", note.rstrip("."))
            if m:
                try:
                    return float(m.group(1))
                except ValueError:
                    pass
    return 1.0
