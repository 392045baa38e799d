"""The tutorial checklist: suggested next steps derived from the state of the career.

Each step says what to do, where and with which key, and is ticked once the career shows it
done (from the API and the observable database only). Shown at the start of
``--scenario tutorial``; dismissable, and reopened from the help (``t``). Nothing here
imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pibench_tui.tui.actions import ACTIONS_BY_ID
from pibench_tui.tui.alerts import idle_people, month_of_year
from world.config import WorldConfig


@dataclass(frozen=True)
class Step:
    """One suggested step.

    Attributes:
        text: what to do and why.
        keys: where and how, :func:`panel_keys` (``"panel 2: i, o"``).
        done: the career shows it done.
        now: it is the moment for it (e.g. the recruiting season is open).
        short: the same in at most :data:`SHORT_CHARS` characters, for a narrow terminal
            (80 columns), keeping the action and its decisive facts; ``""``: ``text``.
    """

    text: str
    keys: str
    done: bool
    now: bool = True
    short: str = ""


KEYS_CHARS = 13
"""The longest :attr:`Step.keys` (``"panel 2: i, o"``): the checklist's keys column."""

BOX_AND_KEYS = len("[ ] ") + KEYS_CHARS + 2
"""Columns of a checklist line before the step's text: the box ``[ ] ``, the keys column and
two spaces (one would run the last key into the sentence: "i, o Recruit")."""

SHORT_CHARS = 80 - 1 - BOX_AND_KEYS
"""The longest :attr:`Step.short`: what fits in 80 columns after the checklist's left
padding (one column; it has none on the right) and :data:`BOX_AND_KEYS`."""


def panel_keys(panel: int, *actions: str) -> str:
    """Where and how, as the checklist shows it: ``"panel 2: i, o"``, the panel's number (the
    key that shows it) and the keys of ``actions`` (ids of :data:`~pibench_tui.tui.actions.ACTIONS`),
    the way the digest's warnings say "(panel 2, key o)". A bare ``"2: i, o"`` read like step
    numbers."""
    return f"panel {panel}: " + ", ".join(ACTIONS_BY_ID[a].key for a in actions)


def mentor_step(cfg: WorldConfig, done: bool, now: bool) -> Step:
    """The mentoring step, from the scenario's §5 numbers: the hours that give a meeting mood
    (Mood), those that spare morale the neglect penalty (more do not lift morale) and those
    up to which mentoring speeds skill growth on a project."""
    mood, neglect, full = cfg.sentiment_min_hours, cfg.neglect_hours, cfg.skill_mentor_hours
    return Step(
        f"Mentor your people: {mood:g} h a month shows their Mood, {neglect:g} h spares morale the neglect "
        f"penalty, up to {full:g} h speeds skill growth on a project ({1 + cfg.skill_mentor_gain:g}x)",
        panel_keys(1, "mentoring"),
        done,
        now,
        f"Mentor: {mood:g} h shows Mood, {neglect:g} h spares morale, {full:g} h speeds skill",
    )


def steps(game: Any) -> list[Step]:
    """The five steps of a first career, in order, ticked from the state."""
    dash = game.dashboard()
    m = dash["month"]
    recruited = bool(
        game.query("select id from applicants where status in ('offered', 'accepted', 'joined', 'declined') limit 1")
    )
    offer = game.rules["season"]["offer_months"]
    season = month_of_year(m) in offer
    people = dash["students"] + [s for s in dash["staff"] if s["role"] == "ra"]
    idle = idle_people(dash)
    projects = bool(game.query("select id from projects limit 1"))
    mentoring = any(r["mentoring_hours"] > 0 for r in game.call("students.list") if r["status"] == "active")
    submitted = bool(game.query("select id from submissions limit 1"))
    proposed = bool(game.query("select id from proposals limit 1"))
    deadlines = ", ".join(dash["venue_deadlines_this_month"])
    calls = [c for c in dash["open_grant_calls"]]
    agencies = ", ".join(sorted({c["agency"] for c in calls}))
    return [
        Step(
            f"Recruit PhD students while the season is open (months {min(offer)}-{max(offer)}): interview, then offer",
            panel_keys(2, "interview", "offer"),
            recruited,
            season,
            f"Recruit PhD students (months {min(offer)}-{max(offer)}): interview, then offer",
        ),
        Step(
            "Start a project with an idle pair"
            + (f" ({', '.join(idle[:2])})" if len(idle) >= 2 else " (nobody idle yet: hire an RA, R on panel 1)"),
            panel_keys(3, "start_project"),
            projects,
            len(idle) >= 2 or not people,
            "Start a project with an idle pair"
            + (f" ({', '.join(idle[:2])})" if len(idle) >= 2 else " (none idle: hire an RA, R)"),
        ),
        mentor_step(game.world.cfg, mentoring, bool(people)),
        Step(
            "Polish a draft, submit it before a deadline"
            + (f" ({deadlines} this month)" if deadlines else " (W-SHOP and JMR take drafts any month)"),
            panel_keys(4, "polish", "submit"),
            submitted,
            bool(dash["available_drafts"]),
            "Polish, then submit a draft"
            + (f" ({deadlines} due this month)" if deadlines else " (W-SHOP and JMR: any month)"),
        ),
        Step(
            "Propose to an open call: grants are the only income" + (f" (open now: {agencies})" if calls else ""),
            panel_keys(5, "propose"),
            proposed,
            bool(calls),
            _short(
                "Propose to a call, the only income" + (f" (open now: {agencies})" if calls else ""),
                f"Propose to a call (open now: {agencies})",
            ),
        ),
    ]


def _short(text: str, shorter: str) -> str:
    """``text``, or ``shorter`` when ``text`` is longer than :data:`SHORT_CHARS` (four calls
    open at once)."""
    return text if len(text) <= SHORT_CHARS else shorter
