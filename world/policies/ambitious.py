"""The ambitious ablation policy of MECHANICS §17: big lab, tier 3, every call, every event."""

from __future__ import annotations

from typing import Any

from .base import (
    VENUE_LADDER,
    Policy,
    can_propose,
    hottest_topic,
    start_idle_pairs,
    rejecting_venues,
    set_even_mentoring,
)


class Ambitious(Policy):
    """Ambitious (§17): hire to 8 researchers (interview the top want + 2, offer the top
    want + 1), 6 h mentoring each, idle pairs on tier 3 at 2,500 compute on the news-hottest
    topic, polish 10 h, submit NAIC → CLAR → W-SHOP skipping rejecting venues, propose to
    every open call (25 h, the first 4 publications), accept every event.

    "Accept every event" and "every open call" are tried as written: a talk, review, crisis
    or proposal refused for lack of hours is an expected refusal (recorded in ``refused``);
    calls blocked by a cap, the FEL once rule or the TIF cooldown are skipped.
    """

    name = "ambitious"

    target = 8
    mentoring = 6.0
    tier = 3
    compute = 2500.0
    polish_hours = 10.0
    proposal_hours = 25.0

    def act(self, api: Any) -> None:
        """One month of the ambitious rules."""
        dash = api.lab.dashboard()
        m = dash["month"]
        if m % 12 == 1:
            self.hire(api, dash)
        set_even_mentoring(api, self.mentoring)
        topic = hottest_topic(api, "reasoning", n=40)
        start_idle_pairs(api, topic, self.tier, self.compute)
        self.submit_drafts(api)
        self.propose(api, topic)
        for ev in api.events.pending():
            action = "support" if ev["kind"] == "student_crisis" else "accept"
            if ev["kind"] == "collaboration_offer":
                d = api.lab.dashboard()
                if not (d["students"] or d["staff"]):
                    continue
            self.attempt(api, f"events.respond {ev['kind']}", api.events.respond, ev["id"], action, expect=("no_attention",))

    def hire(self, api: Any, dash: dict) -> None:
        """Months ≡ 1: interview the top want + 2 by transcript + letter, offer the top want + 1."""
        n = len(dash["students"])
        want = max(0, self.target - n)
        if want == 0:
            return
        apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
        apps.sort(key=lambda a: -(a["transcript"] + a["letter"]))
        short = apps[: want + 2]
        fits = int((api.lab.attention()["left"] + 1e-9) // 3)
        new = [a for a in short if a["interview"] is None]
        if len(new) > fits:
            short = [a for a in short if a["interview"] is not None] + new[:fits]
        if short:
            scores = api.recruit.interview([a["id"] for a in short])["interview_scores"]
            short.sort(key=lambda a: -(0.6 * scores[a["id"]] + 0.25 * a["transcript"] + 0.15 * a["letter"]))
        committed = n
        for a in short[: want + 1]:
            if committed >= 12:
                break
            api.recruit.offer(a["id"])
            committed += 1

    def submit_drafts(self, api: Any) -> None:
        """Polish 10 h once, then the first open venue of NAIC → CLAR → W-SHOP not yet rejecting."""
        dash = api.lab.dashboard()
        open_confs = dash["venue_deadlines_this_month"]
        rejected = rejecting_venues(api)
        for d in dash["available_drafts"]:
            if d["polish_hours"] == 0:
                self.attempt(api, "papers.polish", api.papers.polish, d["id"], self.polish_hours, expect=("no_attention",))
            rej = rejected.get(d["id"], [])
            for venue in VENUE_LADDER:
                if venue in rej:
                    continue
                if venue == "W-SHOP" or venue in open_confs:
                    api.papers.submit(d["id"], venue)
                    break

    def propose(self, api: Any, topic: str) -> None:
        """Every open call the rules allow: 25 h on the topic, the first 4 publications attached."""
        dash = api.lab.dashboard()
        for call in dash["open_grant_calls"]:
            if not can_propose(api, call, dash["month"]):
                continue
            attach = [p["id"] for p in api.papers.publications()[:4]]
            self.attempt(api, "grants.propose", api.grants.propose, call["id"], topic, self.proposal_hours, attach,
                         expect=("no_attention",))
