"""The ambitious ablation policy of MECHANICS §17: big lab, tier 3, every call, every event."""

from __future__ import annotations

from typing import Any

from .base import (
    VENUE_LADDER,
    Policy,
    can_propose,
    hottest_topic,
    ladder_choice,
    rejecting_venues,
    set_even_mentoring,
    start_idle_pairs,
)


class Ambitious(Policy):
    """Ambitious (§17): hire to 8 researchers (rank by transcript + letter, no interviews;
    offer the top want + 1, so one offer even when the lab is full), 6 h mentoring each, idle
    pairs on tier 3 at 2,500 compute on the news-hottest topic, polish 10 h every month a
    draft is available, submit NAIC → CLAR → W-SHOP skipping rejecting venues (W-SHOP again
    once all three have rejected), propose to every open call every month (25 h, the first 4
    publications), accept every event.

    "Accept every event", "polish every month" and "every open call" are tried as written: a
    talk, review, crisis, polish or proposal refused for lack of hours is an expected refusal
    (recorded in ``refused``); calls blocked by a cap, the FEL once rule or the TIF cooldown
    are skipped. Offers stop at the researcher cap (active researchers + outstanding offers).
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
        if m % 12 == self.rules(api)["season"]["pool_opens"]:
            self.hire(api, dash)
        set_even_mentoring(api, self.mentoring)
        topic = hottest_topic(api, "reasoning", n=40)
        start_idle_pairs(api, topic, self.tier, self.compute, self.rules(api)["caps"]["active_projects"])
        self.submit_drafts(api)
        self.propose(api, topic)
        for ev in api.events.pending():
            action = "support" if ev["kind"] == "student_crisis" else "accept"
            if ev["kind"] == "collaboration_offer":
                d = api.lab.dashboard()
                if not (d["students"] or d["staff"]):
                    continue
            self.attempt(
                api, f"events.respond {ev['kind']}", api.events.respond, ev["id"], action, expect=("no_attention",)
            )

    def hire(self, api: Any, dash: dict[str, Any]) -> None:
        """Months ≡ 1: offer the top want + 1 pending applicants by transcript + letter
        (want = 8 − researchers, at least 0; no interviews)."""
        n = len(dash["students"])
        want = max(0, self.target - n)
        apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
        apps.sort(key=lambda a: -(a["transcript"] + a["letter"]))
        committed = n + sum(1 for a in api.recruit.applicants() if a["status"] == "offered")
        for a in apps[: want + 1]:
            if committed >= self.rules(api)["caps"]["researchers"]:
                break
            api.recruit.offer(a["id"])
            committed += 1

    def submit_drafts(self, api: Any) -> None:
        """Polish 10 h (every month the draft is available), then the first open venue of
        NAIC → CLAR → W-SHOP not yet rejecting it (W-SHOP again once all three have)."""
        dash = api.lab.dashboard()
        open_confs = dash["venue_deadlines_this_month"]
        rejected = rejecting_venues(api)
        for d in dash["available_drafts"]:
            self.attempt(api, "papers.polish", api.papers.polish, d["id"], self.polish_hours, expect=("no_attention",))
            for venue in ladder_choice(VENUE_LADDER, rejected.get(d["id"], [])):
                if venue == "W-SHOP" or venue in open_confs:
                    api.papers.submit(d["id"], venue)
                    break

    def propose(self, api: Any, topic: str) -> None:
        """Every open call the rules allow: 25 h on the topic, the first 4 publications attached."""
        dash = api.lab.dashboard()
        for call in dash["open_grant_calls"]:
            if not can_propose(api, call, dash["month"], self.rules(api)):
                continue
            attach = [p["id"] for p in api.papers.publications()[:4]]
            self.attempt(
                api,
                "grants.propose",
                api.grants.propose,
                call["id"],
                topic,
                self.proposal_hours,
                attach,
                expect=("no_attention",),
            )
