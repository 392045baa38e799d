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
from .base import Policy, can_propose, idle_researchers


class Oracle(Policy):
    """Oracle (§17): hires by true ability, mentors the least independent, works on the
    topic with the best true mean hotness over the next 18 months, picks venues by the
    expected review score and proposes only where the exact proposal quality clears the bar.

    Args:
        world: the World the policy may read (hidden state included).

    Open details: "+2 when runway > 20 and < 7 researchers" is read as want = max(3 − n, 2);
    the score uses hotness of the current month; an odd idle researcher works alone.
    """

    name = "oracle"

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world

    # -------------------------------------------------------------- hidden reads
    def _person(self, pid: str):
        return self.world.s.people[pid]

    def _hot(self, month: int) -> list[float]:
        traj = self.world.s.trajectory
        return traj[max(0, min(month, len(traj) - 1))]

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
        w = self.world
        dash = api.lab.dashboard()
        m = dash["month"]
        runway = 99.0 if dash["runway_months"] is None else float(dash["runway_months"])
        n = len(dash["students"])
        if m % 12 == 1:
            want = max(0, 3 - n)
            if runway > 20 and n < 7:
                want = max(want, 2)
            apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
            good = sorted((a for a in apps if w.s.applicants[a["id"]].ability > 0.55),
                          key=lambda a: -w.s.applicants[a["id"]].ability)
            committed = n
            for a in good[: want + 1] if want > 0 else []:
                if committed >= w.cfg.researcher_cap:
                    break
                api.recruit.offer(a["id"])
                committed += 1
        managers = [p for p in dash["staff"] if p["role"] == "manager"]
        if not managers and n >= 5 and runway > 15:
            api.recruit.hire_manager()
        self.mentor(api)
        topic = self.best_topic(m)
        compute = 500.0 if runway < 12 else 2000.0
        dash = api.lab.dashboard()
        for pj in dash["active_projects"]:
            if pj["monthly_compute"] != compute:
                api.projects.set_compute(pj["id"], compute)
        idle = sorted(idle_researchers(dash), key=lambda pid: -(self._person(pid).ability * self._person(pid).skill))
        n_pubs = len(api.papers.publications())
        active = len(dash["active_projects"])
        for i in range(0, len(idle), 2):
            if active >= w.cfg.max_active_projects:
                break
            lead = self._person(idle[i])
            tier = 3 if (lead.ability > 0.7 and n_pubs >= 2 and m < w.cfg.months - 24 and runway > 18) else 2
            api.projects.start(topic, tier, idle[i:i + 2], compute)
            active += 1
        self.submit(api, m)
        self.propose(api, m, runway)
        for ev in api.events.pending():
            left = api.lab.attention()["left"]
            if ev["kind"] == "student_crisis":
                if left >= w.cfg.crisis_hours:
                    api.events.respond(ev["id"], "support")
            elif ev["kind"] == "collaboration_offer":
                d = api.lab.dashboard()
                if d["students"] or d["staff"]:
                    api.events.respond(ev["id"], "accept")
            else:
                api.events.respond(ev["id"], "accept" if left > 15 else "decline")

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
        """Polish to 12 h keeping 5 h spare, then the venue ladder by expected score."""
        w = self.world
        dash = api.lab.dashboard()
        open_confs = dash["venue_deadlines_this_month"]
        rejected: dict[str, list[str]] = {}
        for sub in api.papers.submissions():
            if sub["status"] == "reject":
                rejected.setdefault(sub["draft"], []).append(sub["venue"])
        for d in dash["available_drafts"]:
            need = 12.0 - d["polish_hours"]
            h = min(need, api.lab.attention()["left"] - 5.0)
            if h > 0:
                api.papers.polish(d["id"], round(h, 2))
            score = self.expected_score(d["id"], d["topic"], m)
            rej = rejected.get(d["id"], [])
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
        w = self.world
        m = w.s.month
        pubs = [p for p in w.s.publications.values() if p.published_month <= m]
        same = sorted((p for p in pubs if p.topic == topic), key=lambda p: -p.q)
        if same:
            return [p.id for p in same[:4]]
        if pubs:
            return [p.id for p in sorted(pubs, key=lambda p: -p.q)[:4]]
        drafts = sorted((d for d in w.s.drafts.values() if d.status == "available"), key=lambda d: -papers_mod.q_eff(w, d))
        return [d.id for d in drafts[:2]]

    def propose(self, api: Any, m: int, runway: float) -> None:
        """Per open call: the topic with the best exact quality at 25 h, if it clears θ + slack."""
        w = self.world
        slack = 0.15 if runway > 24 else -0.20
        for call in api.lab.dashboard()["open_grant_calls"]:
            if not can_propose(api, call, m) or api.lab.attention()["left"] <= 27:
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
