"""MECHANICS "Decisions for this project" touching §1-§6, and §18 invariants 1 and 6."""

from __future__ import annotations

import numpy as np
import pytest

from tests.world.mechanics_helpers import make_world
from world import people as people_mod
from world import projects as projects_mod
from world.api import ActionError, Api
from world.state import Posting


def test_decisions2_trait_distributions_live_in_config():
    """Decisions §2: applicant, postdoc and RA trait distributions and start novelty are config values."""
    w = make_world(
        applicant_speed_mean=2.0,
        applicant_speed_sd=0.0,
        applicant_resilience_low=0.9,
        applicant_independence_high=0.31,
        applicant_growth_mean=5.0,
        applicant_growth_sd=0.0,
        postdoc_speed_mean=3.0,
        postdoc_speed_sd=0.0,
        postdoc_growth_mean=0.1,
        postdoc_growth_sd=0.0,
        growth_min=0.05,
        postdoc_resilience_low=0.95,
        postdoc_independence_high=0.61,
        ra_speed_mean=0.5,
        ra_speed_sd=0.0,
        ra_resilience=0.3,
        ra_independence=0.2,
        novelty_start_mean=0.5,
        novelty_start_sd=0.0,
        postdoc_fill_base=0.85,
        researcher_cap=1000,
    )
    apps = list(w.s.applicants.values())
    assert all(a.speed == 2.0 and a.growth == 5.0 and a.resilience >= 0.9 and a.independence <= 0.31 for a in apps)
    for _ in range(20):
        pid = w.s.next_id("PDsearch")
        w.s.postings[pid] = Posting(id=pid, month=1, resolve_month=1)
    people_mod.resolve_postings(w, 1)
    pds = [p for p in w.s.people.values() if p.role == "postdoc"]
    assert pds and all(
        p.speed == 3.0 and p.growth == 0.1 and p.resilience >= 0.95 and p.independence <= 0.61 for p in pds
    )
    ra = w.s.people[Api(w).recruit.hire_ra()["staff_id"]]
    assert (ra.speed, ra.resilience, ra.independence) == (0.5, 0.3, 0.2)
    w.s.crowding = [1.0] * 8
    assert projects_mod.start_project(w, "theory", 1, [], 0).novelty == 0.5


def test_decisions2_shock_direction_and_reputation_baseline_in_config():
    """Decisions §2: the surge probability and R0 come from the config."""
    w = make_world(shock_p=1.0, shock_up_p=1.0)
    w.next_month()
    assert w.s.compute_mult == 1.3
    w = make_world(shock_p=1.0, shock_up_p=0.0)
    w.next_month()
    assert w.s.compute_mult == 0.7
    # R0 = 4: at R = 4 the postdoc fill probability is the base 0.45
    w = make_world(reputation_baseline=4.0, researcher_cap=1000)
    w.s.reputation = 4.0
    for _ in range(400):
        pid = w.s.next_id("PDsearch")
        w.s.postings[pid] = Posting(id=pid, month=1, resolve_month=1)
    people_mod.resolve_postings(w, 1)
    rate = np.mean([p.status == "filled" for p in w.s.postings.values()])
    assert rate == pytest.approx(0.45, abs=0.1)


def test_s18_inv6_forced_negative_budget_collapses_with_zero_projection():
    """§18 invariant 6: budget forced below zero ⇒ the next tick collapses and finishes; projection 0."""
    w = make_world(quiet=False)
    api = Api(w)
    for _ in range(3):
        api.time.next_month()
    w.s.budget = -1.0
    out = api.time.next_month()
    assert out["simulation_over"] is True and out["collapsed"] is True
    assert out["projected"] == 0 and w.s.collapse_month == 4 and w.s.month == 4
    with pytest.raises(ActionError):
        api.recruit.hire_ra()


def _scripted(api: Api) -> None:
    d = api.lab.dashboard()
    if d["month"] % 12 == 1:
        for a in api.recruit.applicants()[:3]:
            api.recruit.offer(a["id"])
    ids = [s["id"] for s in d["students"]]
    if ids:
        api.students.set_mentoring({i: 4.0 for i in ids})
    busy = {m for p in d["active_projects"] for m in p["members"]}
    idle = [i for i in ids if i not in busy]
    if idle:
        api.projects.start("reasoning", 2, idle, 1000)
    for dr in d["available_drafts"]:
        api.papers.submit(dr["id"], "W-SHOP")


def test_s18_inv1_same_seed_same_policy_same_summary():
    """§18 invariant 1: same seed + scripted policy for 24 months ⇒ identical summary and state."""
    results = []
    for _ in range(2):
        w = make_world(seed=77, quiet=False)
        api = Api(w)
        for _ in range(24):
            _scripted(api)
            api.time.next_month()
        results.append((w.summary(), w.digest()))
    assert results[0] == results[1]
    assert results[0][0]["hires"] > 0
