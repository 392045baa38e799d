"""The oracle (MECHANICS §17): a fixed heuristic that READS HIDDEN STATE.

This is the one policy allowed past the agent API. It is kept apart on purpose: it is not in
:data:`world.policies.POLICIES`, it needs the :class:`~world.engine.World` itself (true
ability and independence, the future hotness trajectory, latent draft quality, reputation,
exact proposal quality), and it can never run through headless mode, whose agents only ever
see the API. It still *acts* only through the API, so every action is validated and logged
like anyone else's. It is an upper reference line, not a fair player.
"""

from __future__ import annotations

from typing import Any

from .. import grants as grants_mod
from .. import papers as papers_mod
from ..config import TOPICS
from ..engine import World
from ..state import Person
from .base import Policy, can_propose, idle_researchers


class Oracle(Policy):
    """Oracle (§17): hires by true ability, mentors the least independent, works on the
    topic with the best true mean hotness over the next 18 months, picks venues by the
    expected review score and proposes only where the exact proposal quality clears the bar.

    Args:
        world: the World the policy may read (hidden state included).

    Open details: the expected score uses the draft topic's hotness of the current month; an
    odd idle researcher works alone; "drop if < 2.3 after a rejection" skips the draft in any
    month its expected score is below 2.3 (the score moves with hotness and reputation);
    offers stop at the researcher cap (active researchers + outstanding offers); a talk or
    review is accepted in a month with more than 15 h left and otherwise left pending (it
    may still be accepted in a later month before it expires).
    """

    name = "oracle"

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world

    # -------------------------------------------------------------- hidden reads
    def _person(self, pid: str) -> Person:
        person: Person = self.world.s.people[pid]
        return person

    def _hot(self, month: int) -> list[float]:
        traj = self.world.s.trajectory
        return list(traj[max(0, min(month, len(traj) - 1))])

    def best_topic(self, m: int) -> str:
        """The topic with the best mean true hotness over months m..m+18."""
        rows = [self._hot(t) for t in range(m, m + 19)]
        means = [sum(r[k] for r in rows) / len(rows) for k in range(len(TOPICS))]
        return TOPICS[max(range(len(TOPICS)), key=lambda k: (means[k], -k))]

    def expected_score(self, draft_id: str, topic: str, m: int) -> float:
        """q_eff + 0.35 (H − 1) + 0.15 (R − 2), the review score without its noise."""
        w = self.world
        d = w.s.drafts[draft_id]
        h = self._hot(m)[TOPICS.index(topic)]
        return papers_mod.q_eff(w, d) + 0.35 * (h - 1.0) + 0.15 * (w.s.reputation - 2.0)

    # -------------------------------------------------------------- the month
    def act(self, api: Any) -> None:
        """One month of the oracle's heuristic."""
        dash = api.lab.dashboard()
        m = dash["month"]
        runway = 99.0 if dash["runway_months"] is None else float(dash["runway_months"])
        self.staff(api, dash, runway)
        self.mentor(api)
        topic = self.best_topic(m)
        compute = 500.0 if runway < 12 else 2000.0
        dash = api.lab.dashboard()
        for pj in dash["active_projects"]:
            if pj["monthly_compute"] != compute:
                api.projects.set_compute(pj["id"], compute)
        self.start_projects(api, dash, m, runway, topic, compute)
        self.submit(api, m)
        self.propose(api, m, runway)
        self.answer_events(api)

    def staff(self, api: Any, dash: dict[str, Any], runway: float) -> None:
        """Hire in the season (:meth:`hire`); a lab manager once there are 5 researchers and runway > 15."""
        n = len(dash["students"])
        if dash["month"] % 12 == self.rules(api)["season"]["pool_opens"]:
            self.hire(api, n, runway)
        managers = [p for p in dash["staff"] if p["role"] == "manager"]
        if not managers and n >= 5 and runway > 15:
            api.recruit.hire_manager()

    def start_projects(self, api: Any, dash: dict[str, Any], m: int, runway: float, topic: str, compute: float) -> None:
        """Idle researchers in pairs, the ablest first, on ``topic``: tier 3 for an able lead
        with two publications, runway and time left, else tier 2."""
        w = self.world
        idle = sorted(idle_researchers(dash), key=lambda pid: -(self._person(pid).ability * self._person(pid).skill))
        n_pubs = len(api.papers.publications())
        active = len(dash["active_projects"])
        for i in range(0, len(idle), 2):
            if active >= w.cfg.max_active_projects:
                break
            lead = self._person(idle[i])
            tier = 3 if (lead.ability > 0.7 and n_pubs >= 2 and m < w.cfg.months - 24 and runway > 18) else 2
            api.projects.start(topic, tier, idle[i : i + 2], compute)
            active += 1

    def answer_events(self, api: Any) -> None:
        """Support crises with the hours, accept collaborations with a lab, other events with > 15 h left."""
        w = self.world
        for ev in api.events.pending():
            left = api.lab.attention()["left"]
            if ev["kind"] == "student_crisis":
                if left >= w.cfg.crisis_hours:
                    api.events.respond(ev["id"], "support")
            elif ev["kind"] == "collaboration_offer":
                d = api.lab.dashboard()
                if d["students"] or d["staff"]:
                    api.events.respond(ev["id"], "accept")
            elif left > 15:
                api.events.respond(ev["id"], "accept")

    def want(self, n: int, runway: float) -> int:
        """Hires wanted this season: 3 − n below 3 researchers, else 2 when runway > 20 and
        n < 7, else 0."""
        if n < 3:
            return 3 - n
        if runway > 20 and n < 7:
            return 2
        return 0

    def hire(self, api: Any, n: int, runway: float) -> None:
        """Month ≡ 1: the top want + 1 pending applicants by true ability (one even when
        want = 0); offer to those among them with ability > 0.55."""
        w = self.world
        apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
        apps.sort(key=lambda a: -w.s.applicants[a["id"]].ability)
        committed = n + sum(1 for a in api.recruit.applicants() if a["status"] == "offered")
        for a in apps[: self.want(n, runway) + 1]:
            if w.s.applicants[a["id"]].ability <= 0.55:
                continue
            if committed >= w.cfg.researcher_cap:
                break
            api.recruit.offer(a["id"])
            committed += 1

    def mentor(self, api: Any) -> None:
        """55 h shared out, least independent first: 6 h if ι < 0.7 else 3 h (fitted to the pool)."""
        dash = api.lab.dashboard()
        people = sorted(dash["students"], key=lambda p: self._person(p["id"]).independence)
        if not people:
            return
        att = dash["attention"]
        budget = min(55.0, att["pool"] - att["oneoff_used"] - 0.02)
        want: dict[str, float] = {}
        for p in people:
            h = 6.0 if self._person(p["id"]).independence < 0.7 else 3.0
            h = max(0.0, min(h, int(100 * budget) / 100.0))
            budget -= h
            want[p["id"]] = h
        if any(abs(p["mentoring_hours"] - want[p["id"]]) > 1e-9 for p in people):
            api.students.set_mentoring(want)

    def submit(self, api: Any, m: int) -> None:
        """Polish to 12 h keeping 5 h spare (only drafts that are not salvage and were never
        rejected), then the venue ladder by expected score."""
        w = self.world
        dash = api.lab.dashboard()
        open_confs = dash["venue_deadlines_this_month"]
        rejected: dict[str, list[str]] = {}
        for sub in api.papers.submissions():
            if sub["status"] == "reject":
                rejected.setdefault(sub["draft_id"], []).append(sub["venue"])
        for d in dash["available_drafts"]:
            rej = rejected.get(d["id"], [])
            if not d["salvage"] and not rej:
                h = min(12.0 - d["polish_hours"], api.lab.attention()["left"] - 5.0)
                if h > 0:
                    api.papers.polish(d["id"], round(h, 2))
            score = self.expected_score(d["id"], d["topic"], m)
            if rej and score < 2.3:
                continue
            if score >= 6.1:
                ladder = ["NAIC", "JMR", "CLAR", "W-SHOP"]
            elif score >= 5.4:
                ladder = ["JMR", "CLAR", "W-SHOP"]
            elif score >= 4.3:
                ladder = ["CLAR", "W-SHOP"]
            else:
                ladder = ["W-SHOP"]
            for venue in ladder:
                if venue in rej:
                    continue
                if not w.cfg.venues[venue]["conference"] or venue in open_confs:
                    api.papers.submit(d["id"], venue)
                    break

    def _evidence(self, topic: str) -> list[str]:
        """Among the top 4 publications by q, those on ``topic``; if none, all four; with no
        publication, the top 2 drafts by q that are available or under review."""
        w = self.world
        m = w.s.month
        top = sorted((p for p in w.s.publications.values() if p.published_month <= m), key=lambda p: -p.q)[:4]
        if top:
            same = [p.id for p in top if p.topic == topic]
            return same or [p.id for p in top]
        drafts = sorted(
            (d for d in w.s.drafts.values() if d.status in ("available", "under_review")), key=lambda d: -d.q
        )
        return [d.id for d in drafts[:2]]

    def propose(self, api: Any, m: int, runway: float) -> None:
        """Per open call: the topic with the best exact quality at 25 h, if it clears θ + slack."""
        w = self.world
        slack = 0.15 if runway > 24 else -0.20
        for call in api.lab.dashboard()["open_grant_calls"]:
            if not can_propose(api, call, m, self.rules(api)) or api.lab.attention()["left"] <= 27:
                continue
            agency = call["agency"]
            best = None
            for topic in TOPICS:
                attach = self._evidence(topic)
                q = grants_mod.proposal_quality(w, agency, topic, 25.0, attach)
                if best is None or q > best[0]:
                    best = (q, topic, attach)
            if best is not None and best[0] > w.cfg.agencies[agency]["bar"] + slack:
                api.grants.propose(call["id"], best[1], 25.0, best[2])
