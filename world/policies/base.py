"""What every scripted policy shares: the :class:`Policy` shape and API-only helpers.

A policy is a small class with a ``name``, a docstring and one method, :meth:`Policy.act`,
called once a month with the agent API (MECHANICS §17). The runner advances the clock after
``act`` returns (unless the policy already did). API-only policies see nothing but the
namespaces an agent script sees (``lab, recruit, students, projects, papers, grants, field,
events, time, query, memory``); they never touch ``api.world`` and never read a private
attribute. Only :mod:`world.policies.oracle` is allowed past the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..api import ActionError

VENUE_LADDER = ("NAIC", "CLAR", "W-SHOP")
"""The conference-first ladder of the baseline and the ambitious policy (§17)."""


class Policy:
    """Base class of the scripted policies.

    Attributes:
        name: the policy's name on the command line (``baseline``, ``hire-max`` ...).
        refused: ``[month, call, code]`` for every refused call the policy expected and
            caught (see :meth:`attempt`); an unexpected refusal propagates to the runner.
    """

    name = "policy"

    def __init__(self) -> None:
        self.refused: list[list[Any]] = []
        self._rules: dict[str, Any] | None = None

    def rules(self, api: Any) -> dict[str, Any]:
        """This scenario's rules (``lab.rules()``: caps, hours, calendars), read once per career."""
        if self._rules is None:
            self._rules = api.lab.rules()
        return self._rules

    def act(self, api: Any) -> None:
        """Take this month's decisions through ``api`` (the clock is advanced by the runner)."""

    def attempt(self, api: Any, what: str, call: Any, *args: Any, expect: tuple[str, ...] = (), **kwargs: Any) -> Any:
        """Make one API call whose refusal (an ``ActionError`` with a code in ``expect``) is
        part of the policy ("accept every event", "propose to every call"); record it.

        Returns:
            The call's result, or ``None`` when it was refused as expected.

        Raises:
            ActionError: a refusal whose code is not in ``expect``.
        """
        try:
            return call(*args, **kwargs)
        except ActionError as exc:
            if exc.code not in expect:
                raise
            self.refused.append([api.lab.dashboard()["month"], what, exc.code])
            return None


# ------------------------------------------------------------------ API-only helpers
def news_counts(api: Any, n: int = 40, since_month: int | None = None) -> dict[str, int]:
    """Field news items per topic among the last ``n`` news items (or since a month).

    Counts items, not the mention counts inside them (§17).
    """
    counts: dict[str, int] = {}
    # the kind is tested first (most items are not field items); the same items are counted
    for item in api.field.news(n):
        if item["kind"] != "field":
            continue
        topic = item["topic"]
        if topic is None or (since_month is not None and item["month"] < since_month):
            continue
        counts[topic] = counts.get(topic, 0) + 1
    return counts


def hottest_topic(api: Any, fallback: str = "reasoning", n: int = 40, since_month: int | None = None) -> str:
    """The topic with most ``field`` news items (ties: the fixed topic order), else ``fallback``."""
    counts = news_counts(api, n, since_month)
    if not counts:
        return fallback
    best = fallback
    best_n = 0
    for topic in api.field.topics():
        c = counts.get(topic, 0)
        if c > best_n:
            best, best_n = topic, c
    return best


def idle_researchers(dash: dict[str, Any]) -> list[str]:
    """Active PhD students and postdocs on no active project, in dashboard order."""
    busy = set()
    for pj in dash["active_projects"]:
        busy.update(pj["members"])
    return [p["id"] for p in dash["students"] if p["id"] not in busy]


def start_idle_pairs(api: Any, topic: str | Callable[[], str], tier: int, compute: float, max_projects: int) -> None:
    """Idle researchers, in pairs (an odd one alone), start projects on ``topic`` until the lab
    runs ``max_projects`` (the rules' cap; MECHANICS §17, baseline rule 3; also the ambitious
    policy). ``topic`` may be a function giving it: asked only when a project is started."""
    dash = api.lab.dashboard()
    idle = idle_researchers(dash)
    active = len(dash["active_projects"])
    for i in range(0, len(idle), 2):
        if active >= max_projects:
            break
        if not isinstance(topic, str):
            topic = topic()
        api.projects.start(topic, tier, idle[i : i + 2], compute)
        active += 1


def set_even_mentoring(api: Any, hours_each: float) -> None:
    """Give every active researcher ``hours_each`` standing hours, scaled down to what fits.

    Only calls ``students.set_mentoring`` when something changes, and never asks for more
    than the pool minus this month's one-off hours (so the call is never refused).
    """
    dash = api.lab.dashboard()
    people = dash["students"]
    if not people:
        return
    att = dash["attention"]
    room = att["pool"] - att["oneoff_used"] - 0.02  # the dashboard rounds to 2 dp
    h = hours_each
    if h * len(people) > room:
        h = max(0.0, int(100 * room / len(people)) / 100.0)
    want = {p["id"]: h for p in people if abs(p["mentoring_hours"] - h) > 1e-9}
    if want:
        api.students.set_mentoring(want)


def ladder_choice(ladder: list[str] | tuple[str, ...], rejected: list[str]) -> list[str]:
    """The venues of ``ladder`` that have not rejected the draft, in order; when every one
    of them has, ``["W-SHOP"]`` (MECHANICS §17: the ladder is never empty)."""
    left = [v for v in ladder if v not in rejected]
    return left or ["W-SHOP"]


def rejecting_venues(api: Any) -> dict[str, list[str]]:
    """Draft id → venues that rejected it."""
    out: dict[str, list[str]] = {}
    for sub in api.papers.submissions():
        if sub["status"] == "reject":
            out.setdefault(sub["draft_id"], []).append(sub["venue"])
    return out


def can_propose(
    api: Any, call: dict[str, Any], month: int, rules: dict[str, Any], pending: list[str] | None = None
) -> bool:
    """True if a proposal to ``call`` passes the caps, the once-only rule and the cool-down
    of its agency (§9), as ``rules`` (``lab.rules()``) states them. ``pending``: the agency of
    each of the lab's pending proposals, if the caller keeps them (else they are read from
    the dashboard).

    Only these §9 rules refuse (MECHANICS §17, baseline rule 5): a call the lab already
    applied to gets another proposal whenever they allow (a two-month call in each of its
    months, the rolling TIF call whenever its cool-down has passed). Attention is checked by
    the caller.
    """
    agency = call["agency"]
    terms = rules["agencies"][agency]
    # the pending proposals from the dashboard (its rows are exactly those of grants.proposals()
    # with status "pending"); the whole list is walked only for the once-only rule and the
    # cool-down, which two agencies have: the same answer, most calls without the walk
    if pending is None:
        pending = [p["agency"] for p in api.lab.dashboard()["proposals_pending"]]
    live = pending.count(agency)
    live += sum(1 for a in api.grants.awards() if a["agency"] == agency and a["end_month"] >= month)
    if live >= terms["max_concurrent"]:
        return False
    if terms["once"] or terms["cooldown_months"]:
        props = api.grants.proposals()
        if terms["once"] and any(p["agency"] == agency and p["status"] == "funded" for p in props):
            return False
        if terms["cooldown_months"]:
            # proposals are listed in the order they were written: the agency's last is its latest
            for p in reversed(props):
                if p["agency"] == agency:
                    return bool(month - p["submitted_month"] >= terms["cooldown_months"])
    return True
