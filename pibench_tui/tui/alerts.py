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

LOW_MOOD = explain.LOW_MOOD
"""Each of the last two meeting sentiments below this: the researcher's reports have turned bad."""

REPORT_DROP = explain.REPORT_DROP
"""Mean of the last two report qualities this much below the earlier mean: reports have turned bad."""

CONTRACT_WARN_MONTHS = 3
"""Warn when a postdoc contract ends within this many months."""


@dataclass(frozen=True)
class Alert:
    """One warning.

    Attributes:
        kind: stable id (``runway``, ``mood``, ``contract``, ``offers``, ``deadline``,
            ``call``, ``idle``, ``event``).
        short: a few words for the header.
        text: the sentence for the digest and dialogs (what, when, what to do).
        tab: the panel that addresses it.
        key: the key of the action (or panel) that addresses it.
        severity: ``"error"`` (a loss this month or next) or ``"warning"``.
    """

    kind: str
    short: str
    text: str
    tab: str
    key: str
    severity: Literal["warning", "error"] = "warning"

    @property
    def style(self) -> str:
        """Rich style of the alert (red for errors, yellow for warnings)."""
        return "bold red" if self.severity == "error" else "yellow"


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


def venue_deadlines(game: Any) -> dict[str, list[int]]:
    """``{venue: [month of year 1..12]}`` of the venues with deadlines (``lab.rules()``)."""
    return {
        name: [int(m) for m in v["deadline_months"]] for name, v in game.rules["venues"].items() if v["deadline_months"]
    }


def bad_reports(game: Any, month: int) -> list[tuple[str, str]]:
    """Researchers whose recent reports turned bad: ``[(id, why)]`` from ``student_reports``.

    Bad means each of the last two meeting sentiments is below :data:`LOW_MOOD` (a recovering
    mood, low then fine, is not bad), or the last two report qualities average
    :data:`REPORT_DROP` below the earlier ones.
    """
    rows = game.query(
        "select r.student_id as id, r.month as month, r.report_quality as q, r.meeting_sentiment as s "
        "from student_reports r join students p on p.id = r.student_id where p.status = 'active' "
        "order by r.student_id, r.month"
    )
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["id"], []).append(r)
    out = []
    for sid, reps in by.items():
        if not reps or reps[-1]["month"] < month - 1:
            continue
        moods = [r["s"] for r in reps[-2:] if r["s"] is not None]
        quality = [r["q"] for r in reps if r["q"] is not None]
        if len(moods) == 2 and all(x < LOW_MOOD for x in moods):
            out.append((sid, f"mood {moods[0]:.2f}, {moods[1]:.2f}"))
        elif len(quality) >= 4:
            recent, earlier = quality[-2:], quality[:-2]
            if sum(earlier) / len(earlier) - sum(recent) / 2 >= REPORT_DROP:
                out.append((sid, f"reports {sum(earlier) / len(earlier):.2f} → {recent[0]:.2f}, {recent[1]:.2f}"))
    return out


def idle_people(dash: dict) -> list[str]:
    """Ids of the people on no active project, researchers (PhD students and postdocs, the
    future authors) first, then RAs (not one leaving at this month's end), in roster order;
    managers do not work on projects.

    Args:
        dash: ``lab.dashboard()``.
    """
    busy = {x for p in dash["active_projects"] for x in p["members"]}
    people = [s["id"] for s in dash["students"]] + [
        s["id"] for s in dash["staff"] if s["role"] == "ra" and not s.get("leaving_at_month_end")
    ]
    return [pid for pid in people if pid not in busy]


def alerts(game: Any, dash: dict | None = None) -> list[Alert]:
    """Every warning for the month now open, most urgent first (empty once the career is over)."""
    dash = dash or game.dashboard()
    if dash.get("finished"):
        return []
    m, total = dash["month"], dash["months_total"]
    left = total - m + 1
    out: list[Alert] = []
    runway = dash["runway_months"]
    if runway is not None and runway < left:
        sev: Literal["warning", "error"] = "error" if runway < 6 else "warning"
        out.append(
            Alert(
                "runway",
                f"runway {runway:.0f} < {left} mo left",
                f"Runway {runway:.1f} months is shorter than the {left} months left: without new grants the "
                f"budget goes below zero around month {m + int(runway)} and the lab collapses. "
                "Write a proposal (5 Grants, g) or cut costs (dismiss staff X, lower compute c).",
                "grants",
                "g",
                sev,
            )
        )
    for e in dash["pending_events"]:
        if e["kind"] == "student_crisis" or e["respond_by_month"] <= m:
            out.append(
                Alert(
                    "event",
                    f"{e['id']} expires",
                    f"{e['id']} {e['kind'].replace('_', ' ')}: this is the last month "
                    "to answer; unanswered it lapses at the month's end"
                    + (" and counts as ignored (morale falls hard)." if e["kind"] == "student_crisis" else "."),
                    "events",
                    "e",
                    "error" if e["kind"] == "student_crisis" else "warning",
                )
            )
    window = int(game.rules["postdoc"]["renewal_window_months"])  # the scenario's public rule (§5)
    cfg = game.world.cfg
    for s in dash["students"]:  # the visible signals the quit rule responds to (world.explain)
        warning = explain.quit_warning(game.query, cfg, s["id"], m)
        if warning:
            out.append(Alert("mood", f"{s['id']} may quit", f"{s['name']} ({s['id']}): {warning}", "people", "m"))
    for text in explain.orphaned_projects(game.query, cfg):
        out.append(
            Alert("orphan", f"{text.split(' ', 2)[1]} has no member", text[0].upper() + text[1:] + ".", "projects", "a")
        )
    for s in dash["students"]:
        end = s.get("contract_end")
        if s["role"] == "postdoc" and end and 0 <= end - m <= CONTRACT_WARN_MONTHS:
            out.append(
                Alert(
                    "contract",
                    f"{s['id']} contract ends m{end}",
                    f"{s['name']} ({s['id']}): the postdoc contract ends in month {end}; renewal (r) is open "
                    f"from month {max(1, end - window)}" + (" (now)" if end - m <= window else "") + ".",
                    "people",
                    "r",
                    "error" if end - m <= 1 else "warning",
                )
            )
    last_offer = season_months(game.rules, m).last_offer
    if m == last_offer - 1:
        out.append(
            Alert(
                "offers",
                "offers close next month",
                f"PhD offers close at the end of month {m + 1}: "
                "interview (i) and offer (o) before then, or wait a year.",
                "applicants",
                "o",
            )
        )
    elif m == last_offer and any(a["status"] == "pending" for a in game.call("recruit.applicants")):
        out.append(
            Alert(
                "offers",
                "last month for offers",
                f"Month {m} is the last for PhD offers this season: pending applicants expire at the month's end.",
                "applicants",
                "o",
                "error",
            )
        )
    nxt = month_of_year(m + 1)
    drafts = dash["available_drafts"]
    for venue, months in sorted(venue_deadlines(game).items()):
        if nxt in months and m + 1 <= total and drafts:
            ready = f" ({len(drafts)} draft(s) available)" if drafts else ""
            out.append(
                Alert(
                    "deadline",
                    f"{venue} deadline next month",
                    f"{venue}'s deadline is next month (month {m + 1}){ready}: polish (p) now, submit (b) then.",
                    "papers",
                    "p",
                )
            )
    pending_calls = {p["call_id"] for p in game.call("grants.proposals") if p["status"] == "pending"}
    rolling = game.rolling_agencies  # their call never closes (it ends with the career)
    for c in dash["open_grant_calls"]:  # a call the lab already has a proposal in is not a loss
        if c["last_month_to_apply"] == m and c["agency"] not in rolling and c["id"] not in pending_calls:
            out.append(
                Alert(
                    "call",
                    f"{c['agency']} call closes",
                    f"The {c['agency']} call {c['id']} "
                    f"(${c['award']:,.0f}) closes at the end of this month: propose now (g).",
                    "grants",
                    "g",
                )
            )
    idle = idle_people(dash)
    if idle:
        out.append(
            Alert(
                "idle",
                f"idle {','.join(idle[:3])}" + ("…" if len(idle) > 3 else ""),
                f"On no project (paid, producing nothing): {', '.join(idle)}. Start a project (s) or assign (a).",
                "projects",
                "s",
            )
        )
    out.sort(key=lambda a: a.severity != "error")
    return out
