"""The rule-based baseline PI (MECHANICS §17), its 16-config grid, and the all-in policy.

API only: everything here reads and acts through the agent API, exactly as the agent
script ``examples/agents/baseline.py`` does (a test checks both give the same Impact).

Where §17 leaves a detail open, the choice made here (and in the script):

* "active members" are the active PhD students and postdocs on the dashboard; a missing
  runway (burn ≤ 0) counts as 99 months.
* Interviews cost 3 h each; if fewer hours are left than the 2·want + 2 interviews need,
  only as many as fit are interviewed (never a refused call).
* Mentoring min(5, 60/n) h each is scaled down to the hours that fit this month.
* Idle researchers are paired in dashboard order; an odd one out starts a project alone.
  The "hottest" topic breaks ties in the fixed topic order.
* Polish (8 h, once, not salvage drafts) and the one 8 h revision happen only when the hours
  are left; NAIC is tried only for tier ≥ 2 drafts that were never rejected anywhere.
* A crisis is supported when its hours (``lab.rules()``) are left, else left to the
  auto-ignore at the tick.
* Rule numbers (researcher cap, project cap, interview and crisis hours, grant caps and
  cool-downs, the season) are read from ``lab.rules()``, so the policy plays any scenario.
* Hiring: want = 0 (enough researchers, or runway < 18) means no interviews and no offers
  ("no hiring at runway < 18"); the "top want + 1" offers apply when want > 0.
* Proposals stop for the month once fewer than 25 h are left.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any

from .base import (
    Policy,
    can_propose,
    hottest_topic,
    ladder_choice,
    rejecting_venues,
    set_even_mentoring,
    start_idle_pairs,
)


@dataclass(frozen=True)
class BaselineConfig:
    """The baseline's knobs (MECHANICS §17 defaults).

    Attributes:
        target: researchers the PI wants in the lab.
        max_hires: at most this many hires wanted per season.
        interview: interview the short list before offering.
        tier: project tier (1-3).
        compute: compute units/month per project.
        mentoring: standing mentoring hours per researcher (capped at 60/n).
        mentoring_total: the 60 h of the min(5, 60/n) rule.
        proposal_hours: hours per grant proposal.
        polish_hours: hours of the one polish of a draft.
        revise_hours: hours of the one revision after the first rejection.
        topic_rule: "news" (most field items in the last 40 news items), "fixed" (always
            ``fallback_topic``) or "news12" (most field items over the last 12 months; all-in).
        fallback_topic: the topic when the news names none (and the "fixed" topic).
        min_hire_runway: no hiring below this runway (months).
        tif_runway: TIF proposals only at runway ≤ this (months).
        event_hours: accept talks/reviews only with more than this many hours left.
    """

    target: int = 4
    max_hires: int = 2
    interview: bool = True
    tier: int = 2
    compute: float = 1500.0
    mentoring: float = 5.0
    mentoring_total: float = 60.0
    proposal_hours: float = 25.0
    polish_hours: float = 8.0
    revise_hours: float = 8.0
    topic_rule: str = "news"
    fallback_topic: str = "reasoning"
    min_hire_runway: float = 18.0
    tif_runway: float = 24.0
    event_hours: float = 20.0

    def label(self) -> str:
        """Short text for tables: ``target=4 interview=on tier=2 topic=news``."""
        return f"target={self.target} interview={'on' if self.interview else 'off'} tier={self.tier} topic={self.topic_rule}"


DEFAULT_CONFIG = BaselineConfig()
"""The reference configuration of MECHANICS §17 (n = 4); every published baseline number uses it."""


def grid() -> list[BaselineConfig]:
    """The 16 configs of §17: target {4, 6} × interview {on, off} × tier {2, 3} × topic {news, fixed}."""
    return [
        dataclasses.replace(DEFAULT_CONFIG, target=t, interview=i, tier=tier, topic_rule=rule)
        for t, i, tier, rule in itertools.product((4, 6), (True, False), (2, 3), ("news", "fixed"))
    ]


TUNED_CONFIG = BaselineConfig(target=4, interview=True, tier=2, topic_rule="fixed")
"""Best mean Impact of :func:`grid` on the tuning seeds 1001, 1002 (``pibench tune``).

Kept beside the default for reference only; the default stays the reference baseline.
"""


def _runway(dash: dict[str, Any]) -> float:
    r = dash["runway_months"]
    return 99.0 if r is None else float(r)


class Baseline(Policy):
    """The rule-based PI of MECHANICS §17: hire to a target, mentor evenly, pair idle
    researchers on the news-hottest topic, polish and climb the venue ladder, propose to
    every open call, support crises and accept what the hours allow."""

    name = "baseline"

    def __init__(self, config: BaselineConfig = DEFAULT_CONFIG) -> None:
        super().__init__()
        self.config = config
        self._month_topic: str | None = None  # this act's topic, once it was needed (see month_topic)

    # -------------------------------------------------------------- the month
    def act(self, api: Any) -> None:
        """One month of §17's six rules, in order."""
        cfg = self.config
        dash = api.lab.dashboard()
        m = dash["month"]
        if m % 12 == self.rules(api)["season"]["pool_opens"]:
            self.hire(api, dash)
        set_even_mentoring(api, min(cfg.mentoring, cfg.mentoring_total / max(1, len(dash["students"]))))
        self._month_topic = None  # the topic is read from the news when first needed this month
        self.start_projects(api, None)
        self.handle_drafts(api, dash)
        self.propose(api, None, dash)
        self.answer_events(api)

    def month_topic(self, api: Any) -> str:
        """This month's :meth:`topic`, worked out on its first use in :meth:`act` and kept for
        the rest of it (the news move only with the tick). A month that starts no project and
        writes no proposal never reads the news: the same decisions, fewer reads."""
        if self._month_topic is None:
            self._month_topic = self.topic(api, api.lab.dashboard()["month"])
        return self._month_topic

    def topic(self, api: Any, month: int) -> str:
        """The topic of new projects and proposals under the configured rule."""
        cfg = self.config
        if cfg.topic_rule == "fixed":
            return cfg.fallback_topic
        if cfg.topic_rule == "news12":
            return hottest_topic(api, cfg.fallback_topic, n=1000, since_month=month - 11)
        return hottest_topic(api, cfg.fallback_topic, n=40)

    def hire(self, api: Any, dash: dict[str, Any]) -> None:
        """Rule 1 (month ≡ 1): rank, interview the short list, offer the top want + 1."""
        cfg = self.config
        n = len(dash["students"])
        want = min(cfg.max_hires, max(0, cfg.target - n))
        if _runway(dash) < cfg.min_hire_runway or want == 0:
            return
        apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
        apps.sort(key=lambda a: -(a["transcript"] + a["letter"]))
        if cfg.interview:
            short = apps[: 2 * want + 2]
            left = api.lab.attention()["left"]
            fits = int((left + 1e-9) // self.rules(api)["hours"]["interview"])
            new = [a for a in short if a["interview"] is None]
            if len(new) > fits:
                short = [a for a in short if a["interview"] is not None] + new[:fits]
            if not short:
                return
            scores = api.recruit.interview([a["id"] for a in short])["interview_scores"]
            short.sort(key=lambda a: -(0.6 * scores[a["id"]] + 0.25 * a["transcript"] + 0.15 * a["letter"]))
            ranked = short
        else:
            ranked = apps
        committed = n + sum(1 for a in api.recruit.applicants() if a["status"] == "offered")
        for a in ranked[: want + 1]:
            if committed >= self.rules(api)["caps"]["researchers"]:
                break
            api.recruit.offer(a["id"])
            committed += 1

    def start_projects(self, api: Any, topic: str | None = None) -> None:
        """Rule 3: idle researchers, in pairs, start projects on the topic (default: :meth:`month_topic`)."""
        start_idle_pairs(
            api,
            topic if topic is not None else lambda: self.month_topic(api),
            self.config.tier,
            self.config.compute,
            self.rules(api)["caps"]["active_projects"],
        )

    def handle_drafts(self, api: Any, dash: dict[str, Any] | None = None) -> None:
        """Rule 4: polish once, revise once after the first rejection, climb the venue ladder
        (W-SHOP again once every venue of the ladder has rejected the draft).

        ``dash``: a dashboard read this month before any draft was polished, revised or
        submitted and before anyone joined (``act``'s), so that none is built again for what it
        already says: the available drafts (only this rule and the tick change them), the
        conference deadlines (the month's) and the lab's researchers (the tick and a hire
        change them; rules 1-3 hire no one: offers are answered at the tick)."""
        cfg = self.config
        if dash is None:
            dash = api.lab.dashboard()
        if not dash["available_drafts"]:
            return  # nothing to polish, revise or submit (the submissions need not be read)
        open_confs = dash["venue_deadlines_this_month"]
        rejected = rejecting_venues(api)
        people = {p["id"] for p in dash["students"]}
        for d in dash["available_drafts"]:
            rej = rejected.get(d["id"], [])
            if not d["salvage"] and d["polish_hours"] == 0 and api.lab.attention()["left"] >= cfg.polish_hours:
                api.papers.polish(d["id"], cfg.polish_hours)
            if rej and d["revisions"] == 0 and api.lab.attention()["left"] >= cfg.revise_hours:
                authors = self._authors(api, d["id"])
                # revising a departed author's draft has been allowed since issue 27; the baseline
                # keeps its old check so reference careers stay as they were (README design notes)
                if not authors or any(a in people for a in authors):
                    api.papers.revise(d["id"], cfg.revise_hours)
            if d["salvage"]:
                ladder = ["W-SHOP"]
            else:
                ladder = (["NAIC"] if d["tier"] >= 2 and not rej else []) + ["CLAR", "W-SHOP"]
            for venue in ladder_choice(ladder, rej):
                if venue == "W-SHOP" or venue in open_confs:
                    api.papers.submit(d["id"], venue)
                    break

    @staticmethod
    def _authors(api: Any, draft_id: str) -> list[str]:
        for d in api.papers.drafts():
            if d["id"] == draft_id:
                return list(d["authors"])
        return []

    def propose(self, api: Any, topic: str | None = None, dash: dict[str, Any] | None = None) -> None:
        """Rule 5: every open call (TIF only at runway ≤ 24), 25 h, on the topic (default:
        :meth:`month_topic`), with evidence.

        Every month, including calls the lab already applied to: only the §9 rules (caps,
        TIF cool-down, FEL once) and the hours left stop a proposal.

        ``dash``: a dashboard read this month before any proposal (``act``'s), so that none
        is built again for what it already says: the month and the open calls (only the tick
        changes them) and the pending proposals (only a proposal adds one: this loop counts
        its own)."""
        cfg = self.config
        if dash is None:
            dash = api.lab.dashboard()
        m = dash["month"]
        pending = [p["agency"] for p in dash["proposals_pending"]]
        for call in dash["open_grant_calls"]:
            # the runway of the lab as it is now (after any proposal of this loop); reads are
            # cheap to repeat (the runner's CachedApi), so only a TIF call asks again
            if call["agency"] == "TIF" and _runway(api.lab.dashboard()) > cfg.tif_runway:
                continue
            if not can_propose(api, call, m, self.rules(api), pending):
                continue
            if api.lab.attention()["left"] < cfg.proposal_hours:
                break
            if topic is None:
                topic = self.month_topic(api)
            pubs = api.papers.publications()
            same = [p["id"] for p in pubs if p["topic"] == topic]
            if same:
                attach = same[:4]
            elif pubs:
                attach = [p["id"] for p in pubs[:4]]
            else:  # the dashboard's first two available drafts, without building a dashboard
                attach = [d["id"] for d in api.papers.drafts() if d["status"] == "available"][:2]
            api.grants.propose(call["id"], topic, cfg.proposal_hours, attach)
            pending.append(call["agency"])

    def answer_events(self, api: Any) -> None:
        """Rule 6: support crises, talks/reviews only with > 20 h left, accept collaborations."""
        cfg = self.config
        for ev in api.events.pending():
            left = api.lab.attention()["left"]
            kind = ev["kind"]
            if kind == "student_crisis":
                if left >= self.rules(api)["hours"]["crisis"]:
                    api.events.respond(ev["id"], "support")
            elif kind in ("invited_talk", "review_request"):
                api.events.respond(ev["id"], "accept" if left > cfg.event_hours else "decline")
            elif kind == "collaboration_offer":
                dash = api.lab.dashboard()
                if dash["students"] or dash["staff"]:
                    api.events.respond(ev["id"], "accept")


class AllIn(Baseline):
    """All-in (ours; MECHANICS §17 notes the original never built it): every project and
    proposal on the topic with the most field news items over the last 12 months, tier 3
    only; otherwise the baseline's rules."""

    name = "all-in"

    def __init__(self, config: BaselineConfig | None = None) -> None:
        base = config if config is not None else DEFAULT_CONFIG
        super().__init__(dataclasses.replace(base, tier=3, topic_rule="news12"))


class TunedBaseline(Baseline):
    """The baseline with the config ``pibench tune`` picked on seeds 1001-1002 (for reference)."""

    name = "baseline-tuned"

    def __init__(self) -> None:
        super().__init__(TUNED_CONFIG)
