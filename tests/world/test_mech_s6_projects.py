"""MECHANICS §6 (projects) checked against hand-made worlds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.world.mechanics_helpers import add_person, add_project, make_world
from world import projects as projects_mod
from world.api import ActionError, Api
from world.config import TOPICS


# ------------------------------------------------------------------ start
def test_s6_start_checks_in_order():
    """§6: checks in order: topic; tier ∈ {1,2,3}; ≥ 1 member; members active; compute in
    [0, 50,000]; fewer than 10 active projects. A refused start changes nothing."""
    w = make_world()
    api = Api(w)
    p = add_person(w)
    gone = add_person(w)
    gone.status = "quit"

    def err(*args):
        with pytest.raises(ActionError) as e:
            api.projects.start(*args)
        return e.value.message

    assert "topic" in err("cooking", 9, [], -1)
    assert "tier" in err("theory", 9, [], -1)
    assert "member" in err("theory", 2, [], -1)
    assert gone.id in err("theory", 2, [gone.id], -1)
    assert "S404" in err("theory", 2, ["S404"], 60_000)
    assert "monthly_compute" in err("theory", 2, [p.id], 50_000.01)
    assert "monthly_compute" in err("theory", 2, [p.id], -0.5)
    for _ in range(10):
        add_project(w, [p.id])
    assert "10" in err("theory", 2, [p.id], 50_000)
    assert len(w.s.projects) == 10 and w.s.counters.get("PJ") == 10
    w.s.projects["PJ001"].status = "killed"
    out = api.projects.start("theory", 2, [p.id], 50_000)
    assert out["ok"] and out["project_id"] == "PJ011"


def test_s6_start_refuses_duplicate_members():
    """Decisions §1: member lists are de-duplicated — a duplicate is refused with a clear error."""
    w = make_world()
    api = Api(w)
    p = add_person(w)
    with pytest.raises(ActionError) as e:
        api.projects.start("theory", 1, [p.id, p.id])
    assert "twice" in e.value.message
    assert not w.s.projects
    pj = api.projects.start("theory", 1, [p.id])["project_id"]
    with pytest.raises(ActionError):
        api.projects.assign(pj, p.id)
    assert w.s.projects[pj].members == [p.id]


def test_s6_start_costs_nothing_and_any_role_may_join():
    """§6: no money or attention cost; members may be any active role and on other projects."""
    w = make_world()
    api = Api(w)
    p = add_person(w)
    ra = api.recruit.hire_ra()["staff_id"]
    mgr = api.recruit.hire_manager()["staff_id"]
    api.projects.start("theory", 1, [p.id, ra, mgr], 100)
    api.projects.start("embodied", 3, [p.id])
    assert w.s.budget == 600_000 and w.s.oneoff_used == 0


def test_s6_novelty_at_start_depends_on_crowding_exactly():
    """§6: novelty = clip(N(1.0, 0.1) − 0.06(C_k − 1), 0.3, 1.3), keyed by project id."""
    a, b = make_world(seed=6), make_world(seed=6)
    k = TOPICS.index("ai4science")
    a.s.crowding[k], b.s.crowding[k] = 1.0, 3.5
    pa = projects_mod.start_project(a, "ai4science", 2, [], 0)
    pb = projects_mod.start_project(b, "ai4science", 2, [], 0)
    assert pa.feasible == pb.feasible
    assert pa.novelty - pb.novelty == pytest.approx(0.06 * 2.5)
    a.s.crowding[k] = 20.0
    assert projects_mod.start_project(a, "ai4science", 2, [], 0).novelty == 0.3
    a.s.crowding[k] = -10.0
    assert projects_mod.start_project(a, "ai4science", 2, [], 0).novelty == 1.3


@pytest.mark.parametrize("tier, p_inf", [(1, 0.03), (2, 0.10), (3, 0.28)])
def test_s6_feasibility_and_novelty_distribution(tier, p_inf):
    """§6: feasible iff U ≥ p_infeasible(tier); novelty mean 1 − 0.06(C − 1), sd 0.1."""
    w = make_world(seed=tier)
    k = TOPICS.index("theory")
    w.s.crowding[k] = 2.0
    pjs = [projects_mod.start_project(w, "theory", tier, [], 0) for _ in range(1500)]
    infeasible = np.mean([not pj.feasible for pj in pjs])
    assert infeasible == pytest.approx(p_inf, abs=4 * math.sqrt(p_inf * (1 - p_inf) / 1500))
    nov = np.array([pj.novelty for pj in pjs])
    assert nov.mean() == pytest.approx(0.94, abs=0.01)
    assert nov.std() == pytest.approx(0.1, rel=0.1)
    assert all(pj.work == w.cfg.tiers[str(tier)]["work"] for pj in pjs[:3])


def test_s6_hidden_eval_context_at_start():
    """§6: stored context: H now, mean H of months m+1..m+12, runway = budget / max(1, burn)
    before the project exists, idle researchers counted before this project exists."""
    w = make_world()
    a, b, c = add_person(w), add_person(w), add_person(w)
    add_person(w, "ra")
    add_project(w, [c.id], compute=0)
    w.s.budget = 120_000.0
    burn_before = w.burn_rate()  # 3 × 3,200 + 1,800
    pj = projects_mod.start_project(w, "reasoning", 3, [a.id, b.id], 5_000)
    rec = w.s.eval_log["projects"][pj.id]
    k = TOPICS.index("reasoning")
    assert rec["h_start"] == w.s.trajectory[1][k]
    assert rec["h_next12"] == pytest.approx(np.mean([w.s.trajectory[m][k] for m in range(2, 14)]))
    assert rec["idle"] == 2
    assert rec["runway"] == pytest.approx(120_000 / burn_before)
    assert rec["tier"] == 3 and rec["feasible"] == pj.feasible


# ------------------------------------------------------------------ monthly step
def _effect(speed, skill, morale, iota, h, n=1):
    return speed * skill * (0.5 + 0.5 * morale) * (iota + (1 - iota) * min(h, 6) / 6) / max(1, n)


def test_s6_effectiveness_formula():
    """§6: e_i = speed × skill × (0.5 + 0.5 morale) × (ι + (1 − ι) min(h, 6)/6) / max(1, n_i)."""
    w = make_world()
    p = add_person(w, speed=1.1, skill=0.7, morale=0.4, independence=0.3, mentoring=3.0)
    assert projects_mod.effectiveness(w.cfg, p, 1) == pytest.approx(_effect(1.1, 0.7, 0.4, 0.3, 3.0))
    assert projects_mod.effectiveness(w.cfg, p, 3) == pytest.approx(_effect(1.1, 0.7, 0.4, 0.3, 3.0, 3))
    p.mentoring = 30
    assert projects_mod.effectiveness(w.cfg, p, 0) == pytest.approx(1.1 * 0.7 * 0.7)


def test_s6_progress_formula_on_hand_made_project():
    """§6: progress += 0.9 E^0.9 (1 + 0.30 ln(1 + units/800)) × max(0.1, N(1, 0.22)); σ = 0 here.

    Members on two projects count half; an inactive listed member adds nothing.
    """
    w = make_world(progress_noise_sd=0.0, no_scooping=True)
    a = add_person(w, speed=1.2, skill=0.6, morale=0.8, independence=0.5, mentoring=2.0)
    b = add_person(w, speed=0.9, skill=0.5, morale=0.6, independence=0.9, mentoring=10.0)
    c = add_person(w)
    pj = add_project(w, [a.id, b.id, c.id], tier=3, compute=2000)
    other = add_project(w, [b.id], tier=3, compute=0)
    c.status = "quit"
    w.s.budget = 1e9
    w.next_month()
    e = _effect(1.2, 0.6, 0.8, 0.5, 2.0) + _effect(0.9, 0.5, 0.6, 0.9, 10.0, 2)
    assert pj.progress == pytest.approx(0.9 * e**0.9 * (1 + 0.3 * math.log(1 + 2000 / 800)))
    e2 = _effect(0.9, 0.5, 0.6, 0.9, 10.0, 2)
    assert other.progress == pytest.approx(0.9 * e2**0.9)
    assert pj.ticks == 1 and pj.compute_sum == 2000


def test_s6_progress_noise_floor_and_sd():
    """§6: the noise factor is max(0.1, N(1, 0.22)), keyed by (project, month)."""
    cfg = make_world().cfg
    assert projects_mod.progress_increment(cfg, 1.0, 0, -3.0) == pytest.approx(0.9 * 0.1)
    assert projects_mod.progress_increment(cfg, 0.0, 5000, 1.0) == 0.0
    w = make_world(no_scooping=True)
    p = add_person(w, speed=1.0, skill=1.0, morale=1.0, independence=1.0)
    pjs = [add_project(w, [p.id], tier=3) for _ in range(1)]
    incs = []
    w.s.budget = 1e9
    w.s.projects[pjs[0].id].work = 1e9
    for _ in range(59):
        before = pjs[0].progress
        w.next_month()
        incs.append((pjs[0].progress - before) / (0.9 * 1.0))
    assert np.mean(incs) == pytest.approx(1.0, abs=0.1)
    assert np.std(incs) == pytest.approx(0.22, rel=0.35)


def test_s6_worked_check_about_one_unit_per_month():
    """§6 worked check: two PhDs a≈0.6, morale 0.7, ι 0.65, 5 h mentoring, 1,500 units → ≈ 1/month."""
    w = make_world(progress_noise_sd=0.0, no_scooping=True)
    a = add_person(w, ability=0.6, morale=0.7, independence=0.65, mentoring=5.0)
    b = add_person(w, ability=0.6, morale=0.7, independence=0.65, mentoring=5.0)
    pj = add_project(w, [a.id, b.id], tier=3, compute=1500)
    w.s.budget = 1e9
    w.next_month()
    assert pj.progress == pytest.approx(1.0, abs=0.05)


def test_s6_unstaffed_and_zero_effort_months():
    """§6: E = 0 → no progress; ticks and compute still accumulate; a zero-effort team adds
    its mean skill×ability with weight 1e-6; an empty team adds nothing."""
    w = make_world()
    mgr = add_person(w, "manager", skill=0.0, ability=0.0)
    empty = add_project(w, [], compute=300)
    zero = add_project(w, [mgr.id], compute=0)
    w.next_month()
    assert empty.progress == 0 and empty.ticks == 1 and empty.compute_sum == 300
    assert empty.ka_weight == 0 and empty.ka_sum == 0
    assert zero.progress == 0 and zero.ka_weight == pytest.approx(1e-6) and zero.ka_sum == 0


def test_s6_effort_weighted_ka_average():
    """§6: mean_i(skill × ability) enters an effort-weighted life average (weights = E)."""
    w = make_world(progress_noise_sd=0.0, no_scooping=True)
    a = add_person(w, skill=0.5, ability=0.6, morale=1.0, independence=1.0)
    b = add_person(w, skill=0.8, ability=0.9, morale=1.0, independence=1.0)
    pj = add_project(w, [a.id], tier=3)
    w.s.budget = 1e9
    e1, ka1 = a.skill * (0.5 + 0.5 * a.morale), a.skill * a.ability
    w.next_month()
    pj.members.append(b.id)
    e2 = a.skill * (0.5 + 0.5 * a.morale) + b.skill * (0.5 + 0.5 * b.morale)
    ka2 = (a.skill * a.ability + b.skill * b.ability) / 2
    w.next_month()
    assert pj.ka_weight == pytest.approx(e1 + e2)
    assert pj.ka_sum / pj.ka_weight == pytest.approx((e1 * ka1 + e2 * ka2) / (e1 + e2))


def test_s6_novelty_bleed():
    """§6: novelty = max(0.3, novelty − 0.015 C_k) each month."""
    w = make_world(no_scooping=True)
    k = TOPICS.index("reasoning")
    pj = add_project(w, [], novelty=1.0)
    low = add_project(w, [], novelty=0.31)
    w.s.crowding[k] = 2.0
    w.next_month()
    assert pj.novelty == pytest.approx(1.0 - 0.015 * 2.0)
    assert low.novelty == 0.3


def test_s6_scoop_rule_and_delayed_news():
    """§6: progress/W ≥ 0.25 and U < 0.010 C_k → novelty × 0.45 (after bleed), scoops +1,
    −0.20/ρ to active members; news written at the tick of m+1, even if the project ended."""
    w = make_world(scoop_rate=1.0, progress_noise_sd=0.0)
    k = TOPICS.index("reasoning")
    w.s.crowding[k] = 1.5
    p = add_person(w, resilience=0.5, mentoring=5)
    q = add_person(w, resilience=0.8, mentoring=5)
    early = add_project(w, [q.id], tier=3, progress=0.0)
    pj = add_project(w, [p.id], tier=3, progress=0.25 * 28, novelty=1.0)
    projects_mod.projects_step(w, 1)
    assert pj.scoops == 1 and early.scoops == 0
    assert pj.novelty == pytest.approx((1.0 - 0.015 * 1.5) * 0.45)
    assert p.impulse == pytest.approx(-0.20 / 0.5) and q.impulse == 0
    assert not [n for n in w.s.news if n[1] == "scoop"]
    Api(w).projects.kill(pj.id)
    w.s.budget = 1e9
    w.next_month()  # tick of 1: the scoop news is due at the tick of 2
    assert not [n for n in w.s.news if n[1] == "scoop"]
    w.next_month()
    scoop = [n for n in w.s.news if n[1] == "scoop"]
    assert len(scoop) == 1 and scoop[0][0] == 2 and pj.id in scoop[0][3] and scoop[0][2] == "reasoning"


def test_s6_scoop_can_push_novelty_below_floor_then_bleed_lifts_it():
    """§6: a scoop can leave novelty below 0.3 for a month; the next bleed lifts it back to 0.3."""
    w = make_world(scoop_rate=1.0)
    k = TOPICS.index("reasoning")
    w.s.crowding[k] = 1.5
    pj = add_project(w, [], tier=3, progress=10.0, novelty=0.4)
    w.next_month()
    assert pj.novelty < 0.3
    w.s.crowding[k] = 0.1
    w.next_month()
    assert pj.novelty >= 0.3


def test_s6_scoop_rate_statistics():
    """§6: a scoop happens with probability 0.010 × C_k per month once progress ≥ 0.25 W."""
    w = make_world(progress_noise_sd=0.0)
    k = TOPICS.index("theory")
    pjs = [add_project(w, [], topic="theory", tier=3, progress=20.0) for _ in range(400)]
    w.s.crowding[k] = 2.0
    w.s.trajectory[2][k] = 2.0
    w.next_month()
    rate = np.mean([pj.scoops for pj in pjs])
    assert rate == pytest.approx(0.02, abs=4 * math.sqrt(0.02 * 0.98 / 400))


def test_s6_dead_end_and_salvage():
    """§6: infeasible and progress ≥ 0.6 W → deadend, −0.15/ρ to members; salvage p 0.5 →
    draft q ~ U(1.5, 2.8), flagged salvage, same tier; infeasible never completes."""
    w = make_world(salvage_p=1.0, no_scooping=True)
    p = add_person(w, resilience=0.6)
    ra = add_person(w, "ra")
    pj = add_project(w, [ra.id, p.id], tier=2, feasible=False, progress=0.6 * 14 - 1e-9)
    near = add_project(w, [p.id], tier=1, feasible=False, progress=0.0)
    w.s.budget = 1e9
    w.next_month()
    assert pj.status == "deadend" and pj.ended_month == 1
    d = w.s.drafts[pj.draft_id]
    assert d.salvage and d.tier == 2 and 1.5 <= d.q <= 2.8 and d.authors == [p.id]
    assert near.status in ("active", "deadend")
    w2 = make_world(salvage_p=0.0, no_scooping=True)
    pj2 = add_project(w2, [], tier=3, feasible=False, progress=100.0)
    w2.next_month()
    assert pj2.status == "deadend" and pj2.draft_id is None and not w2.s.drafts


def test_s6_dead_end_impulse_and_salvage_statistics():
    """§6: dead end hits active members −0.15/ρ; salvage happens with p 0.5, q ~ U(1.5, 2.8)."""
    w = make_world(no_scooping=True)
    pjs = [add_project(w, [], tier=2, feasible=False, progress=9.0) for _ in range(400)]
    w.next_month()
    drafts = [w.s.drafts[pj.draft_id] for pj in pjs if pj.draft_id]
    assert len(drafts) / 400 == pytest.approx(0.5, abs=0.1)
    assert np.mean([d.q for d in drafts]) == pytest.approx((1.5 + 2.8) / 2, abs=0.08)
    w = make_world(no_scooping=True)
    p = add_person(w, resilience=0.6)
    pj = add_project(w, [p.id], tier=2, feasible=False, progress=9.0)
    projects_mod.projects_step(w, 1)
    assert pj.status == "deadend" and p.impulse == pytest.approx(-0.15 / 0.6)


def test_s6_completion_and_quality_formula():
    """§6: progress ≥ W → completed, draft D001 with authors = PhD/postdoc members in list order;
    q = q0 + 1.8 KA + 0.9(novelty − 0.6) + 0.35 ln(1 + avgCompute/800) + N(0, 0.45)
    (σ = 0 here), tier 3 breakthrough +1.5 with p 0.18, clip [0.5, 10]."""
    w = make_world(quality_noise_sd=0.0, breakthrough_p=0.0, no_scooping=True)
    a = add_person(w, "postdoc", skill=0.7, ability=0.8)
    b = add_person(w, "phd", skill=0.5, ability=0.6)
    ra = add_person(w, "ra")
    pj = add_project(w, [b.id, ra.id, a.id], tier=2, compute=1000, progress=13.9, novelty=0.9)
    pj.ticks, pj.compute_sum, pj.ka_sum, pj.ka_weight = 3, 0.0, 0.3, 1.0
    w.s.budget = 1e9
    w.next_month()
    assert pj.status == "completed" and pj.draft_id == "D001"
    d = w.s.drafts["D001"]
    assert d.authors == [b.id, a.id] and d.tier == 2 and not d.salvage and d.project_id == pj.id
    ka = pj.ka_sum / pj.ka_weight
    nov = 0.9 - 0.015 * w.s.crowding[TOPICS.index("reasoning")]
    exp = 2.6 + 1.8 * ka + 0.9 * (pj.novelty - 0.6) + 0.35 * math.log(1 + (1000 / 4) / 800)
    assert pj.novelty == pytest.approx(nov, abs=0.02)
    assert d.q == pytest.approx(exp)


def test_s6_quality_unstaffed_ka_breakthrough_and_clip():
    """§6: KA = 0.2 if never staffed; tier 3 breakthrough +1.5 (p = 1 here; none for tier 2); clip 10."""
    w = make_world(quality_noise_sd=0.0, breakthrough_p=1.0)
    pj3 = add_project(w, [], tier=3, novelty=0.6)
    pj2 = add_project(w, [], tier=2, novelty=0.6)
    assert projects_mod.draft_quality(w, pj3) == pytest.approx(3.6 + 1.8 * 0.2 + 1.5)
    assert projects_mod.draft_quality(w, pj2) == pytest.approx(2.6 + 1.8 * 0.2)
    w = make_world(quality_noise_sd=0.0, tiers={"1": {"base_quality": 9.9}})
    assert projects_mod.draft_quality(w, add_project(w, [], tier=1, novelty=1.3)) == 10.0


def test_s6_quality_noise_and_breakthrough_statistics():
    """§6: quality noise N(0, 0.45); breakthrough with p 0.18 for tier 3."""
    w = make_world()
    q2 = [projects_mod.draft_quality(w, add_project(w, [], tier=2, novelty=0.6)) for _ in range(600)]
    assert np.mean(q2) == pytest.approx(2.96, abs=0.06)
    assert np.std(q2) == pytest.approx(0.45, rel=0.12)
    q3 = np.array([projects_mod.draft_quality(w, add_project(w, [], tier=3, novelty=0.6)) for _ in range(1000)])
    assert np.mean(q3) == pytest.approx(3.96 + 0.18 * 1.5, abs=0.07)


def test_s6_kill_assign_unassign_set_compute():
    """§6: kill → killed, −0.15/ρ to active members, no draft; assign needs an active member;
    unassign silently ignores non-members; set compute in [0, 50,000]."""
    w = make_world()
    api = Api(w)
    p = add_person(w, resilience=0.5)
    q = add_person(w)
    pid = api.projects.start("theory", 2, [p.id])["project_id"]
    assert api.projects.assign(pid, q.id) == {"ok": True, "members": [p.id, q.id]}
    n_logged = len(w.s.action_log)
    assert api.projects.unassign(pid, "S999") == {"ok": True, "members": [p.id, q.id]}
    assert len(w.s.action_log) == n_logged  # ignored, and not logged (issue 10 §1)
    assert api.projects.unassign(pid, q.id) == {"ok": True, "members": [p.id]}
    q.status = "quit"
    with pytest.raises(ActionError):
        api.projects.assign(pid, q.id)
    with pytest.raises(ActionError):
        api.projects.set_compute(pid, 50_001)
    assert api.projects.set_compute(pid, 50_000)["monthly_compute"] == 50_000
    api.projects.kill(pid)
    pj = w.s.projects[pid]
    assert pj.status == "killed" and pj.draft_id is None and p.impulse == pytest.approx(-0.15 / 0.5)
    for call in (
        lambda: api.projects.kill(pid),
        lambda: api.projects.assign(pid, p.id),
        lambda: api.projects.set_compute(pid, 5),
    ):
        with pytest.raises(ActionError):
            call()
