"""The two simplest reference policies of MECHANICS §17: do-nothing and hire-max (no grants)."""

from __future__ import annotations

from typing import Any

from .base import Policy, idle_researchers


class DoNothing(Policy):
    """Only advances the clock: no hires, no projects, no answers (the zero line)."""

    name = "do-nothing"

    def act(self, api: Any) -> None:
        """Nothing; the runner advances the clock."""


class HireMax(Policy):
    """Hire-max, no grants (§17): in months ≡ 1 offer the top 4 applicants by transcript +
    letter; each month up to 3 idle researchers start one tier-2 "reasoning" project at 3,000
    compute; nothing else (no mentoring, papers, grants or events). It shows how a lab that
    spends without funding collapses.

    Open details: the (up to) 3 idle researchers form one project; offers stop at the
    researcher cap (active + outstanding offers, ``lab.rules()``), so none is refused.
    """

    name = "hire-max"

    offers = 4
    team = 3
    compute = 3000.0
    topic = "reasoning"
    tier = 2

    def act(self, api: Any) -> None:
        """Offers in months ≡ 1, then one project for the idle researchers."""
        dash = api.lab.dashboard()
        rules = self.rules(api)
        if dash["month"] % 12 == rules["season"]["pool_opens"]:
            apps = [a for a in api.recruit.applicants() if a["status"] == "pending"]
            apps.sort(key=lambda a: -(a["transcript"] + a["letter"]))
            committed = len(dash["students"])
            for a in apps[: self.offers]:
                if committed >= rules["caps"]["researchers"]:
                    break
                api.recruit.offer(a["id"])
                committed += 1
        idle = idle_researchers(dash)
        if idle and len(dash["active_projects"]) < rules["caps"]["active_projects"]:
            api.projects.start(self.topic, self.tier, idle[: self.team], self.compute)
