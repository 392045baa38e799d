"""Pivot cases from the world alone: decision points, plans, and their truth by branches
(PIVOTS.md; MECHANICS Decisions 12).

Pure: no files, no executors. A **decision** is a question the PI faces at the start of a
month of a career and two plans for it, each a short list of API calls valid at that moment
plus a description written only from what the PI can see (the calls and the observable
record). A **rollout** forks the world into branch ``b``, makes the plan's calls, and lets the
continuation policy play the rest of the career — except that in the fork month it leaves
the decision's kind alone (its calls of that kind are skipped), so "do not propose" is not
undone by the policy proposing anyway. The **truth** of a pair is the paired difference of
Impact over shared branches, with a bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import scoring
from .api import API_CALLS, ActionError, Api
from .api.cached import CachedApi
from .engine import ForkPoint, World
from .policies import ORACLE, make_policy
from .policies.base import can_propose
from .runner import AgentView

__all__ = [
    "CAPABILITIES",
    "KIND_CALLS",
    "KINDS",
    "FINDER_GENERATIONS",
    "Decision",
    "Plan",
    "Truth",
    "find_decisions",
    "keep",
    "play_out",
    "rollout",
    "rollout_calls",
    "truth",
]

KINDS: tuple[str, ...] = ("hiring", "venue", "grants", "topics", "staffing", "spending")
"""Decision kinds (PIVOTS.md "Terms")."""

CAPABILITIES: dict[str, str] = {
    "hiring": "infer ability from biased signals",
    "venue": "infer paper quality",
    "grants": "which call, when, with what",
    "topics": "explore a drifting field",
    "staffing": "keep or dismiss, postdoc or RA",
    "spending": "compute and conferences under runway pressure",
}
"""The capability each kind tests (PIVOTS.md, after PI-Bench's list)."""

KIND_CALLS: dict[str, frozenset[str]] = {
    "hiring": frozenset({"recruit.offer"}),
    "venue": frozenset({"papers.submit", "papers.withdraw"}),
    "grants": frozenset({"grants.propose"}),
    "topics": frozenset({"projects.start"}),
    "staffing": frozenset({"recruit.hire_ra", "recruit.hire_manager", "recruit.dismiss", "recruit.post_postdoc"}),
    "spending": frozenset({"field.attend_conference", "projects.set_compute"}),
}
"""The calls of each kind: a plan makes them; the continuation policy skips them in the fork month."""

#: The API's reading calls (``(namespace, method)``): the skipping view reads them directly.
READING_CALLS = frozenset((ns, m) for ns, calls in API_CALLS.items() for m, spec in calls.items() if not spec.mutating)

BOOTSTRAP_SAMPLES = 2_000
"""Resamples of the paired bootstrap interval of Δ."""


@dataclass(frozen=True)
class Plan:
    """What the PI does on the question this month.

    Attributes:
        text: The plan in the field's words, from the calls and the observable record.
        calls: ``[(namespace, method, kwargs), ...]`` made at the fork, in order.
    """

    text: str
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = ()

    @property
    def code(self) -> str:
        """The calls as agent code (one call a line; ``pass`` for no call)."""
        if not self.calls:
            return "pass\n"
        lines = []
        for ns, method, kwargs in self.calls:
            args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            lines.append(f"{ns}.{method}({args})")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Decision:
    """A decision point: kind, the question, and two plans (A, B).

    ``variant`` tells apart two pairs of one kind at one fork (``""`` for the first; a case
    id ends with it, e.g. ``...-hiring-none``).
    """

    kind: str
    question: str
    a: Plan
    b: Plan
    variant: str = ""

    @property
    def capability(self) -> str:
        """The capability the kind tests."""
        return CAPABILITIES[self.kind]


@dataclass
class Truth:
    """The futures of a pair of plans over shared branches.

    Attributes:
        branches: The branch numbers, in order.
        impact: ``{"A": [...], "B": [...]}`` Impact per branch (citations).
        collapsed: ``{"A": [...], "B": [...]}`` whether each branch collapsed.
    """

    branches: list[int]
    impact: dict[str, list[float]] = field(default_factory=dict)
    collapsed: dict[str, list[bool]] = field(default_factory=dict)

    @property
    def delta(self) -> float:
        """Mean over branches of Impact(A) − Impact(B) (citations)."""
        a, b = np.array(self.impact["A"]), np.array(self.impact["B"])
        return float((a - b).mean())

    def standard_error(self) -> float:
        """The standard error of :attr:`delta`: the paired differences' sample standard
        deviation over √branches (``inf`` with fewer than two branches)."""
        d = np.array(self.impact["A"]) - np.array(self.impact["B"])
        return float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("inf")

    def interval(self, seed: int = 0) -> tuple[float, float]:
        """The paired 95 % percentile bootstrap interval of :attr:`delta`
        (:data:`BOOTSTRAP_SAMPLES` resamples from a generator seeded with ``seed``)."""
        d = np.array(self.impact["A"]) - np.array(self.impact["B"])
        rng = np.random.Generator(np.random.PCG64(seed))
        idx = rng.integers(0, len(d), size=(BOOTSTRAP_SAMPLES, len(d)))
        lo, hi = np.percentile(d[idx].mean(axis=1), [2.5, 97.5])
        return float(lo), float(hi)

    def key(self, seed: int = 0) -> dict[str, Any]:
        """The answer-key fields (``docs/pivots.md``): better, delta, ci, impact, collapse, p_a_beats_b."""
        lo, hi = self.interval(seed)
        delta = self.delta
        a, b = self.impact["A"], self.impact["B"]
        return {
            "better": "A" if delta > 0 else "B",
            "delta": delta,
            "ci": [min(lo, delta), max(hi, delta)],
            "branches": list(self.branches),
            "impact": {"A": list(a), "B": list(b)},
            "collapse": {k: sum(v) / len(v) for k, v in self.collapsed.items()},
            "p_a_beats_b": sum(x > y for x, y in zip(a, b, strict=True)) / len(a),
        }


def keep(t: Truth, *, min_share: float = 0.05, min_citations: float = 5.0, min_se: float = 0.0, seed: int = 0) -> bool:
    """The keep rule (issue 24): the 95 % interval of Δ excludes 0 and |Δ| is at least
    ``min_share`` of the two plans' mean Impact and at least ``min_citations``; with
    ``min_se``, |Δ| is also at least that many standard errors of the paired differences
    (their sample standard deviation over √branches). Over few branches of heavy-tailed
    Impacts the percentile bootstrap interval is narrower than Student's t interval (``min_se``
    2.04 is that interval's rule at 32 branches)."""
    lo, hi = t.interval(seed)
    if lo <= 0.0 <= hi:
        return False
    if min_se > 0.0 and abs(t.delta) < min_se * t.standard_error():
        return False
    mean = (float(np.mean(t.impact["A"])) + float(np.mean(t.impact["B"]))) / 2.0
    return abs(t.delta) >= max(min_citations, min_share * mean)


class _SkipKind:
    """The API as the continuation policy sees it in the fork month: calls of the decision's
    kind are skipped (answered ``{"skipped": ...}``); every other call goes through."""

    def __init__(self, api: Api | CachedApi, skipped: frozenset[str], month: int) -> None:
        self._api = api
        self._skipped = skipped
        self._month = month
        self.query = api.query
        self.attempted: set[str] = set()  # the calls the policy made or tried in the fork month
        # a reading call of _View's names, arguments a list and keywords (names always
        # strings): what CachedApi.call would check cannot fail, so it is read directly
        self._read = api.read if isinstance(api, CachedApi) else None

    def call(self, ns: str, method: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self._api.world.s.month == self._month:
            name = f"{ns}.{method}"
            self.attempted.add(name)
            if name in self._skipped:
                return {"skipped": f"{name}: the pivot plan decides this month"}
        if self._read is not None and (ns, method) in READING_CALLS:
            return self._read(ns, method, args, kwargs)
        return self._api.call(ns, method, args, kwargs)


class _Namespace:
    def __init__(self, api: Any, ns: str) -> None:
        self._api, self._ns = api, ns

    def __getattr__(self, method: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._api.call(self._ns, method, list(args), kwargs)

        return call


class _View:
    """An API-only policy's view over :class:`_SkipKind` (the names an agent script sees)."""

    def __init__(self, api: Any) -> None:
        for ns in ("lab", "recruit", "students", "projects", "papers", "grants", "field", "events", "time"):
            setattr(self, ns, _Namespace(api, ns))
        self.query = api.query
        self.memory = _Namespace(api, "memory")


def rollout(world: World, plan: Plan, kind: str, branch: int, policy: str = "baseline") -> tuple[float, bool]:
    """Play ``plan`` at the fork of ``world`` in ``branch``, then the continuation policy to
    the end (skipping the kind's calls in the fork month).

    Returns:
        ``(Impact, collapsed)``.

    Raises:
        ActionError: A call of the plan is refused at the fork (the plan is not valid here).
    """
    impact, collapsed, _ = rollout_calls(world, plan, kind, branch, policy)
    return impact, collapsed


def rollout_calls(
    world: World | ForkPoint, plan: Plan, kind: str, branch: int, policy: str = "baseline"
) -> tuple[float, bool, frozenset[str]]:
    """:func:`rollout`, and the calls (``ns.method``) the continuation policy made or tried in
    the fork month through its view (those of the kind were skipped; empty for the oracle,
    which acts on the API itself and skips nothing). ``world`` may be given as its
    :meth:`~world.engine.World.fork_point` (for many rollouts of one fork: the same results).

    Raises:
        ActionError: As :func:`rollout`.
    """
    w, attempted = _play(world if isinstance(world, ForkPoint) else world.fork_point(), plan, kind, branch, policy)
    return float(scoring.impact(w)["total"]), bool(w.s.collapsed), attempted


#: The cache key of the continuation alone (an empty plan whose fork month skipped nothing).
_ALONE = "(the continuation alone)"


def play_out(world: World, plan: Plan, kind: str, branch: int, policy: str = "baseline") -> World:
    """:func:`rollout`'s world at the end of the career (for inspection)."""
    return _play(world.fork_point(), plan, kind, branch, policy)[0]


def _play(point: ForkPoint, plan: Plan, kind: str, branch: int, policy: str) -> tuple[World, frozenset[str]]:
    """:func:`play_out`, and the calls the continuation policy made or tried in the fork
    month through the skipping view (``ns.method`` names; empty for the oracle, which acts on
    the API itself and skips nothing). Only the fork month is played through that view: the
    later months skip nothing, so the policy plays them as :func:`world.runner.play` does
    (an :class:`~world.runner.AgentView` over the same cached API; the same calls, results
    and world)."""
    w = point.fork(branch)
    api = CachedApi(Api(w))
    for ns, method, kwargs in plan.calls:
        api.call(ns, method, [], dict(kwargs))
    month = w.s.month
    pol = make_policy(policy)
    first = _SkipKind(api, KIND_CALLS[kind], month)
    # the fork month through the skipping view; the later months as world.runner.play plays them
    view: Any = api if policy == ORACLE else _View(first)
    later: Any = api if policy == ORACLE else AgentView(api)
    while not w.s.finished:
        m = w.s.month
        try:
            pol.act(view if m == month else later)
        except ActionError:
            pass  # a refusal the policy did not expect ends its month, as in world.runner.play
        if not w.s.finished and w.s.month == m:
            api.next_month_unread()  # time.next_month without the report and dashboard nobody reads
    return w, frozenset(first.attempted)


def truth(
    world: World | ForkPoint,
    decision: Decision,
    branches: Sequence[int],
    policy: str = "baseline",
    cache: dict[Any, Any] | None = None,
) -> Truth:
    """Both plans of ``decision`` played on each branch (common random numbers).

    ``cache`` (one dict per fork ``world``, shared by its decisions): a rollout is a function
    of the fork, the plan's calls, the kind, the branch and the policy, so two pairs of one
    kind that share a plan (hiring's and grants' variants) play it once per branch. An empty
    plan ("hire nobody", "keep compute as it is", "make no offer") is the continuation alone
    wherever the policy makes no call of the decision's kind in the fork month (nothing is
    skipped), so it is played once per branch for every kind whose calls the continuation
    did not make there: the same rollout, not a new one. The fork is serialised once per call
    (:meth:`~world.engine.World.fork_point`), at its first rollout; ``world`` may be given as
    its fork point instead (many calls on one fork: the same results, serialised once)."""
    t = Truth(list(branches), {"A": [], "B": []}, {"A": [], "B": []})
    calls = KIND_CALLS[decision.kind]
    point: Any = None  # the fork serialised once, at the first rollout played
    for b in branches:
        for label, plan in (("A", decision.a), ("B", decision.b)):
            key = (plan.code, decision.kind, b, policy)
            alone = cache.get((_ALONE, b, policy)) if cache is not None and not plan.calls else None
            if cache is not None and key in cache:
                impact, collapsed = cache[key]
            elif alone is not None and not alone[2] & calls:
                impact, collapsed = alone[0], alone[1]
            else:
                if point is None:
                    point = world.fork_point() if isinstance(world, World) else world
                impact, collapsed, attempted = rollout_calls(point, plan, decision.kind, b, policy)
                if cache is not None:
                    cache[key] = (impact, collapsed)
                    if not plan.calls and not attempted & calls:
                        cache[(_ALONE, b, policy)] = (impact, collapsed, attempted)
            t.impact[label].append(impact)
            t.collapsed[label].append(collapsed)
    return t


# ---------------------------------------------------------------------------- decision finders
def _applicant_text(a: dict[str, Any]) -> str:
    bits = [f"{a['pool']} pool", f"transcript {a['transcript']}", f"letter {a['letter']}"]
    if a.get("interview") is not None:
        bits.append(f"interview {a['interview']}")
    return f"{a['id']} ({', '.join(bits)})"


def _signal(a: dict[str, Any]) -> float:
    """An applicant's observable signal: the interview where there is one, else transcript and
    letter (the weights the baseline's ranking gives them)."""
    if a.get("interview") is not None:
        return 0.6 * float(a["interview"]) + 0.25 * float(a["transcript"]) + 0.15 * float(a["letter"])
    return 0.6 * float(a["transcript"]) + 0.4 * float(a["letter"])


def _names(apps: Sequence[dict[str, Any]]) -> str:
    return " and ".join(_applicant_text(a) for a in apps)


def _hiring(api: Api) -> list[Decision]:
    """Two offers each (acceptances are uncertain, so a PI offers more places than they need):
    to the two applicants with the best signals against the two with the weakest (reading the
    signals), and against making no offer this month (growing the lab against its runway)."""
    everyone = api.call("recruit", "applicants", [], {})
    apps = [a for a in everyone if a.get("status") == "pending"]
    if len(apps) < 4:
        return []
    ranked = sorted(apps, key=lambda a: (-_signal(a), a["id"]))
    best, worst = ranked[:2], ranked[-2:][::-1]
    offered = sum(1 for a in everyone if a.get("status") == "offered")
    lab = api.call("lab", "dashboard", [], {})
    situation = (
        f"{len(lab['students'])} researcher(s) in the lab, {len(apps)} applicants pending, "
        f"{offered} offer(s) already out; {_runway_text(api)}"
    )

    def offer(chosen: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]], how: str) -> Plan:
        calls = tuple(("recruit", "offer", {"applicant_id": a["id"]}) for a in chosen)
        rest = f"; not to {_names(other)}" if other else ""
        return Plan(f"Offer places to {_names(chosen)}, the two with the {how} signals{rest}.", calls)

    return [
        Decision(
            "hiring",
            f"Which applicants should the lab offer two PhD places to this month ({situation})?",
            offer(best, worst, "best"),
            offer(worst, best, "weakest"),
        ),
        Decision(
            "hiring",
            f"Should the lab offer two more PhD places this month ({situation})?",
            offer(best, [], "best"),
            Plan(f"Make no offer this month: a PhD student is paid for years ({_runway_text(api)}).", ()),
            variant="none",
        ),
    ]


def _runway_text(api: Api) -> str:
    dash = api.call("lab", "dashboard", [], {})
    runway = dash.get("runway_months")
    text = f"budget ${dash.get('budget', 0):,.0f}"
    return text + (f", about {float(runway):.0f} months of runway at the current burn" if runway is not None else "")


def _ra_texts(api: Api) -> tuple[str, str]:
    """The two staffing plans in the field's words, from the rules and the dashboard: what an
    RA costs a month in pay and in the PI's oversight hours, what an RA does, who the lab
    has, the budget and runway (PIVOTS.md "Plan")."""
    rules = api.call("lab", "rules", [], {})
    dash = api.call("lab", "dashboard", [], {})
    pay = float(rules["pay"]["ra"])
    hours = float(rules["attention"]["oversight_per_ra"])
    ras = sum(1 for p in dash.get("staff") or [] if p.get("role") == "ra")
    lab = (
        f"the lab has {len(dash.get('students') or [])} researcher(s), {ras} RA(s) and "
        f"{len(dash.get('active_projects') or [])} active project(s); {_runway_text(api)}"
    )
    hire = (
        f"Hire a research assistant now: ${pay:,.0f} a month in pay and {hours:g} h a month of your oversight; "
        f"an RA adds effort to projects but never authors a paper ({lab})."
    )
    wait = f"Hire nobody this month: no new ${pay:,.0f} a month of pay nor {hours:g} h of oversight ({lab})."
    return hire, wait


def _staffing(api: Api) -> list[Decision]:
    q = "Should the lab hire a research assistant this month?"
    hire, wait = _ra_texts(api)
    return [
        Decision(
            "staffing",
            q,
            Plan(hire, (("recruit", "hire_ra", {}),)),
            Plan(wait, ()),
        )
    ]


#: Compute a spending decision raises every active project to (units a month; the baseline starts projects at 1,500).
COMPUTE_HIGH = 6000.0
#: Runway (months) below which the spending question is whether to cut compute, not raise it.
COMPUTE_CUT_RUNWAY = 24.0


def _spending(api: Api) -> list[Decision]:
    """Compute for the lab's active projects: raise it (a long runway) or cut it (a short one),
    against leaving it as it is; without an active project, a conference trip or not."""
    dash = api.call("lab", "dashboard", [], {})
    money = _runway_text(api)
    projects = dash.get("active_projects") or []
    if not projects:
        q = "Should the PI attend a conference this month?"
        return [
            Decision(
                "spending",
                q,
                Plan(f"Attend a conference this month ({money}).", (("field", "attend_conference", {}),)),
                Plan(f"Stay home this month ({money}).", ()),
            )
        ]
    runway = dash.get("runway_months")
    now = sum(float(p["monthly_compute"]) for p in projects)
    ids = ", ".join(f"{p['id']} ({p['topic']}, {p['progress_pct']:.0f} % done)" for p in projects)
    keep_text = f"Keep compute as it is ({now:,.0f} units a month over {len(projects)} project(s))."
    if runway is not None and float(runway) < COMPUTE_CUT_RUNWAY:
        target = 0.0
        verb = "Cut compute to 0 on every active project"
    else:
        target = COMPUTE_HIGH
        verb = f"Raise compute to {COMPUTE_HIGH:,.0f} units a month on every active project"
    calls = tuple(
        ("projects", "set_compute", {"project_id": p["id"], "monthly_compute": target})
        for p in projects
        if float(p["monthly_compute"]) != target
    )
    if not calls:
        return []
    change = target * len(projects) - now
    q = f"How much compute should the lab's projects get from now on ({money}; projects: {ids})?"
    text = f"{verb} ({'+' if change >= 0 else '-'}{abs(change):,.0f} units a month in all, at $1 a unit before price swings)."
    return [Decision("spending", q, Plan(text, calls), Plan(keep_text, ()))]


#: Hours of a careful proposal, and of a quick one (the rules' minimum is 5).
PROPOSAL_HOURS = (40.0, 5.0)
#: A grants decision is looked for only when the award would pay for at least this many months
#: before the horizon (a later award changes the career too little to be a case) ...
GRANT_MONTHS_LEFT = 12
#: ... or, when the dashboard's runway ends before the horizon, this many (an award that pays
#: for the last months can keep a lab from running out of money).
GRANT_MONTHS_LEFT_SHORT = 3


def _grants(api: Api) -> list[Decision]:
    """The open call with the largest award the lab may apply to: a careful proposal (40 h, the
    lab's papers on its topic attached) against a quick one (5 h, nothing attached), and against
    letting the call pass this month (when this is its last month, only the latter). Only calls
    whose award would pay for :data:`GRANT_MONTHS_LEFT` months before the horizon, or
    :data:`GRANT_MONTHS_LEFT_SHORT` when the runway ends before it."""
    dash = api.call("lab", "dashboard", [], {})
    month = int(dash["month"])
    rules = api.call("lab", "rules", [], {})
    left = float(api.call("lab", "attention", [], {})["left"])
    careful, quick = PROPOSAL_HOURS
    hours = min(careful, float(int(left)))
    if hours < 20:
        return []
    c = _largest_open_call(api, dash, rules)
    if c is None:
        return []
    last = int(c["last_month_to_apply"])
    topic, why, attach = _proposal_topic(api)
    when = "this month is the last to apply" if last == month else f"open until month {last}"
    q = (
        f"How should the lab answer {c['agency']}'s call {c['id']} (award ${float(c['award']):,.0f} over "
        f"{c['duration_months']} months, decision {c['decision_delay_months']} months after applying; {when}; "
        f"{left:.0f} h of attention left this month; {_runway_text(api)})?"
    )
    kwargs: dict[str, Any] = {"call_id": c["id"], "topic": topic, "hours": hours}
    if attach:
        kwargs["attach"] = attach
    evidence = f"attaching the lab's {len(attach)} publication(s) on it" if attach else "with nothing to attach"
    a = Plan(
        f"Write a careful {hours:.0f}-hour proposal to {c['id']} on {topic} ({why}), {evidence}.",
        (("grants", "propose", kwargs),),
    )
    skip = Plan(f"Let {c['id']} pass this month: write no proposal and keep the hours for the lab's other work.", ())
    out = [Decision("grants", q, a, skip, variant="none")]
    if last != month:
        b = Plan(
            f"Write a quick {quick:.0f}-hour proposal to {c['id']} on {topic} with nothing attached, "
            "and keep the other hours for the lab's other work.",
            (("grants", "propose", {"call_id": c["id"], "topic": topic, "hours": quick}),),
        )
        out.insert(0, Decision("grants", q, a, b))
    return out


def _largest_open_call(api: Api, dash: dict[str, Any], rules: dict[str, Any]) -> dict[str, Any] | None:
    """The call with the largest award (then the earliest last month, then the id) the lab may
    apply to this month whose award would pay for :data:`GRANT_MONTHS_LEFT` months before the
    horizon (:data:`GRANT_MONTHS_LEFT_SHORT` when the dashboard's runway ends before it);
    ``None`` when there is none."""
    month = int(dash["month"])
    horizon = int(rules["horizon_months"])
    runway = dash.get("runway_months")
    short = runway is not None and month + float(runway) < horizon
    months_left = GRANT_MONTHS_LEFT_SHORT if short else GRANT_MONTHS_LEFT
    view = _View(api)
    calls = [
        c
        for c in api.call("grants", "calls", [], {})
        if month + int(c["decision_delay_months"]) + 1 + months_left <= horizon and can_propose(view, c, month, rules)
    ]
    if not calls:
        return None
    best: dict[str, Any] = max(calls, key=lambda x: (float(x["award"]), -int(x["last_month_to_apply"]), x["id"]))
    return best


def _proposal_topic(api: Api) -> tuple[str, str, list[str]]:
    """The topic a proposal is on, why, and the publications to attach (at most 4): the topic
    of most of the lab's publications, else the one the recent field news names most."""
    pubs = api.call("papers", "publications", [], {})
    topics = api.call("field", "topics", [], {})
    if pubs:
        by_topic = {t: sum(1 for p in pubs if p["topic"] == t) for t in topics}
        topic = max(topics, key=lambda t: (by_topic[t], -topics.index(t)))
        why = f"the topic of {by_topic[topic]} of the lab's {len(pubs)} publication(s)"
    else:
        news = [n for n in api.call("field", "news", [NEWS_WINDOW], {}) if n["kind"] == "field" and n["topic"]]
        count = {t: sum(1 for n in news if n["topic"] == t) for t in topics}
        topic = max(topics, key=lambda t: (count[t], -topics.index(t)))
        why = f"{count[topic]} of the last {NEWS_WINDOW} news items were field news on it"
    return topic, why, [p["id"] for p in pubs if p["topic"] == topic][:4]


def _venue(api: Api) -> list[Decision]:
    drafts = [d for d in api.call("papers", "drafts", [], {}) if d.get("status") == "available"]
    venues = api.call("lab", "rules", [], {}).get("venues") or {}
    names = sorted(venues) if isinstance(venues, dict) else []
    if not drafts or len(names) < 2:
        return []
    d = drafts[0]
    out = []
    for hi, lo in ((names[0], names[-1]),):
        q = f"Where should draft {d['id']} ({d['topic']}, tier {d['tier']}, {d.get('polish_hours', 0)} h of polish) go?"
        out.append(
            Decision(
                "venue",
                q,
                Plan(f"Submit {d['id']} to {hi}.", (("papers", "submit", {"draft_id": d["id"], "venue": hi}),)),
                Plan(f"Submit {d['id']} to {lo}.", (("papers", "submit", {"draft_id": d["id"], "venue": lo}),)),
            )
        )
    return out


#: News items a topics decision counts hotness over (the window world.policies.base.news_counts uses).
NEWS_WINDOW = 40


def _topics(api: Api) -> list[Decision]:
    people = [p for p in api.call("students", "list", [], {}) if not p.get("projects")]
    if not people:
        return []
    topics = api.call("field", "topics", [], {})
    if len(topics) < 2:
        return []
    news = [n for n in api.call("field", "news", [NEWS_WINDOW], {}) if n["kind"] == "field" and n["topic"]]
    count = {t: sum(1 for n in news if n["topic"] == t) for t in topics}
    ranked = sorted(topics, key=lambda t: (-count[t], topics.index(t)))  # ties: the fixed topic order
    who = people[0]["id"]
    t1, t2 = ranked[0], ranked[-1]

    def said(t: str) -> str:
        return f"{count[t]} of the last {NEWS_WINDOW} news items were field news on {t}"

    q = f"{who} has no project: on which topic should a new tier-2 project start?"
    return [
        Decision(
            "topics",
            q,
            Plan(
                f"Start a tier-2 project on {t1} with {who} ({said(t1)}).",
                (("projects", "start", {"topic": t1, "tier": 2, "members": [who]}),),
            ),
            Plan(
                f"Start a tier-2 project on {t2} with {who} ({said(t2)}).",
                (("projects", "start", {"topic": t2, "tier": 2, "members": [who]}),),
            ),
        )
    ]


_FINDERS: dict[str, Callable[[Api], list[Decision]]] = {
    "hiring": _hiring,
    "venue": _venue,
    "grants": _grants,
    "topics": _topics,
    "staffing": _staffing,
    "spending": _spending,
}


# ------------------------------------------------- generation 1 (the shipped dev set's pairs)
def _applicant_text_v1(a: dict[str, Any]) -> str:
    bits = [f"{a['pool']} pool", f"transcript {a['transcript']}", f"letter '{a['letter']}'"]
    if a.get("interview") is not None:
        bits.append(f"interview '{a['interview']}'")
    return f"{a['id']} — " + ", ".join(bits)


def _hiring_v1(api: Api) -> list[Decision]:
    """Generation 1: one offer, to the applicant with the best transcript or the worst."""
    apps = [a for a in api.call("recruit", "applicants", [], {}) if a.get("status") == "pending"]
    if len(apps) < 2:
        return []
    ranked = sorted(apps, key=lambda a: (-float(a["transcript"]), a["id"]))
    best, worst = ranked[0], ranked[-1]
    q = "Whom should the lab offer its next PhD place to this month?"
    a = Plan(
        f"Offer a PhD place to {_applicant_text_v1(best)}; not to {_applicant_text_v1(worst)}.",
        (("recruit", "offer", {"applicant_id": best["id"]}),),
    )
    b = Plan(
        f"Offer a PhD place to {_applicant_text_v1(worst)}; not to {_applicant_text_v1(best)}.",
        (("recruit", "offer", {"applicant_id": worst["id"]}),),
    )
    return [Decision("hiring", q, a, b)]


def _spending_v1(api: Api) -> list[Decision]:
    """Generation 1: attend a conference or not."""
    q = "Should the PI attend a conference this month?"
    money = _runway_text(api)
    return [
        Decision(
            "spending",
            q,
            Plan(f"Attend a conference this month ({money}).", (("field", "attend_conference", {}),)),
            Plan(f"Stay home this month ({money}).", ()),
        )
    ]


def _grants_v1(api: Api) -> list[Decision]:
    """Generation 1: a 20 h proposal to the call closing soonest, or none."""
    calls = api.call("grants", "calls", [], {})
    if not calls:
        return []
    month = int(api.call("lab", "dashboard", [], {})["month"])
    # the call closing soonest (the largest among those): skipping it may mean missing it
    c = min(calls, key=lambda x: (int(x["last_month_to_apply"]), -float(x["award"]), x["id"]))
    last = int(c["last_month_to_apply"])
    when = "this month is the last to apply" if last == month else f"open until month {last}"
    topic = api.call("field", "topics", [], {})[0]
    pubs = [p["id"] for p in api.call("papers", "publications", [], {})][:3]
    q = (
        f"Should the lab write a proposal to {c['agency']}'s call {c['id']} this month (award "
        f"${float(c['award']):,.0f} over {c['duration_months']} months, decision {c['decision_delay_months']} "
        f"months after applying; {when}; {_runway_text(api)})?"
    )
    text = f"Write a 20-hour proposal on {topic} to {c['id']}" + (
        f" with {len(pubs)} publication(s) as evidence." if pubs else " without evidence."
    )
    kwargs: dict[str, Any] = {"call_id": c["id"], "topic": topic, "hours": 20}
    if pubs:
        kwargs["attach"] = pubs
    return [
        Decision("grants", q, Plan(text, (("grants", "propose", kwargs),)), Plan("Write no proposal this month.", ()))
    ]


#: Finder generations (:func:`find_decisions`): 2 is the current one; 1 holds the pairs of the
#: first dev set (hiring one offer, grants 20 h or none, spending a conference), kept so a set
#: built with them stays rebuildable bit for bit until it is rebuilt.
FINDER_GENERATIONS: dict[int, dict[str, Callable[[Api], list[Decision]]]] = {
    2: _FINDERS,
    1: {**_FINDERS, "hiring": _hiring_v1, "grants": _grants_v1, "spending": _spending_v1},
}


def _valid(point: ForkPoint, plan: Plan) -> bool:
    """Whether every call of ``plan`` is accepted at the fork (tried on a throw-away fork)."""
    w = point.fork(1)
    api = Api(w)
    try:
        for ns, method, kwargs in plan.calls:
            api.call(ns, method, [], dict(kwargs))
    except ActionError:
        return False
    return True


def find_decisions(
    world: World, kinds: Sequence[str] = KINDS, generation: int = 2, *, first_of_kind: bool = False
) -> list[Decision]:
    """The decisions of ``kinds`` open at the start of ``world``'s month whose two plans are
    both valid there (PIVOTS.md "Plan"), read through the API only (never hidden state), as
    the finders of ``generation`` (:data:`FINDER_GENERATIONS`) pair them. With
    ``first_of_kind`` only the first such decision of each kind (the others' plans are not
    tried): which kinds are open, as a build's survey asks.

    Raises:
        ValueError: An unknown kind or generation (the message lists the valid ones).
    """
    if generation not in FINDER_GENERATIONS:
        raise ValueError(
            f"unknown finder generation {generation}; valid: {', '.join(map(str, sorted(FINDER_GENERATIONS)))}"
        )
    finders = FINDER_GENERATIONS[generation]
    bad = [k for k in kinds if k not in finders]
    if bad:
        raise ValueError(f"unknown decision kind(s) {', '.join(bad)}; valid: {', '.join(KINDS)}")
    point = world.fork_point()
    api = Api(point.fork(1))  # read on a copy: the caller's world keeps its read caches and version
    valid: dict[str, bool] = {}  # a plan's code -> accepted at the fork (two pairs of a kind may share a plan)

    def accepted(plan: Plan) -> bool:
        if not plan.calls:  # no call to refuse: no throw-away fork needed
            return True
        if plan.code not in valid:
            valid[plan.code] = _valid(point, plan)
        return valid[plan.code]

    out = []
    for kind in kinds:
        for d in finders[kind](api):
            if accepted(d.a) and accepted(d.b):
                out.append(d)
                if first_of_kind:
                    break
    return out
