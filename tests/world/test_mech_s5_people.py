"""MECHANICS §5 (people: pools, calendar, offers, researcher step, quit, graduation, postdocs,
staff) checked against hand-made worlds, plus §18 invariants 7 and 8."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.world.mechanics_helpers import add_person, add_project, make_world, replace_cfg
from world import people as people_mod
from world.api import ActionError, Api
from world.config import POOLS
from world.state import Posting


# ------------------------------------------------------------------ applicant pools
def _regenerate(w, year: int, reputation: float = 2.0, alumni: int = 0, boosted: bool = False):
    """Generate the pool of ``year`` on ``w`` from scratch; return that year's applicants."""
    w.s.reputation = reputation
    w.s.alumni = alumni
    w.s.boosted_years = [year] if boosted else []
    w.s.month = 12 * year + 1
    people_mod.generate_pool(w, w.s.month)
    return [a for a in w.s.applicants.values() if a.season_year == year]


def _expected_count(w, year, pool, reputation, boost=1.0):
    lam = w.cfg.pools[pool]["volume"] * (1 + 0.25 * max(0.0, reputation - 2.0)) * boost
    return min(12, int(w.rng.keyed("pool_count", year, pool).poisson(lam)))


@pytest.mark.parametrize("reputation, boosted", [(2.0, False), (0.5, False), (5.0, False), (10.0, True)])
def test_s5_pool_count_per_pool_depends_on_reputation_and_boost(reputation, boosted):
    """§5: n = min(12, Poisson(λ (1 + 0.25 max(0, R − 2)) × boost)) per pool, boost 1.15."""
    w = make_world(seed=5)
    apps = _regenerate(w, 1, reputation, boosted=boosted)
    for pool in POOLS:
        n = _expected_count(w, 1, pool, reputation, 1.15 if boosted else 1.0)
        assert sum(a.pool == pool for a in apps) == n


def test_s5_reputation_never_changes_who_exists():
    """§5: every pool always draws 12 candidates, so a higher R reveals a superset (per pool)."""
    for seed in range(4):
        lo = _regenerate(make_world(seed=seed), 2, 2.0)
        hi = _regenerate(make_world(seed=seed), 2, 10.0)
        for pool in POOLS:
            a = {(x.name, x.ability, x.transcript) for x in lo if x.pool == pool}
            b = {(x.name, x.ability, x.transcript) for x in hi if x.pool == pool}
            if len(a) <= len(b):
                assert a <= b
            else:
                assert b <= a


def test_s5_pool_never_reveals_more_than_12():
    """§5: at most 12 revealed per pool even at high reputation."""
    for seed in range(6):
        apps = _regenerate(make_world(seed=seed), 3, 10.0, boosted=True)
        for pool in POOLS:
            assert sum(a.pool == pool for a in apps) <= 12


def test_s5_alumni_lift_shifts_ability_mean_exactly():
    """§5: ability = clip(N(μ + lift, σ)), lift = min(0.06, 0.012 × alumni), same candidates."""
    for alumni, lift in ((3, 0.036), (9, 0.06)):
        base = _regenerate(make_world(seed=2), 1, 6.0, alumni=0)
        lifted = _regenerate(make_world(seed=2), 1, 6.0, alumni=alumni)
        assert [a.name for a in base] == [a.name for a in lifted]
        for a, b in zip(base, lifted, strict=True):
            if 0.15 < a.ability and b.ability < 0.95:
                assert b.ability - a.ability == pytest.approx(lift)


def _pool_by_nine_draws(w, year: int) -> list[dict]:
    """§5's pool written plainly: per pool, n draws of each trait with numpy's ``normal`` and
    ``uniform`` (loc and scale given), then the names; the first k candidates revealed, in
    pool order before the shuffle (``name`` before it is made unique)."""
    cfg, s = w.cfg, w.s
    n = cfg.pool_candidates
    lift = min(cfg.alumni_lift_cap, cfg.alumni_lift * s.alumni)
    gen = w.rng.keyed("applicants", year)
    drawn = {}
    for pool in POOLS:
        pp = cfg.pools[pool]
        drawn[pool] = [
            gen.normal(pp["ability_mean"] + lift, pp["ability_sd"], n),
            gen.normal(cfg.applicant_speed_mean, cfg.applicant_speed_sd, n),
            gen.uniform(cfg.applicant_resilience_low, cfg.applicant_resilience_high, n),
            gen.uniform(cfg.applicant_independence_low, cfg.applicant_independence_high, n),
            gen.normal(cfg.applicant_growth_mean, cfg.applicant_growth_sd, n),
            gen.normal(0.0, pp["transcript_noise"], n),
            gen.normal(0.0, pp["letter_noise"], n),
            gen.normal(0.0, cfg.interview_noise_sd, n),
            gen.integers(len(people_mod._FIRST), size=n),
            gen.integers(len(people_mod._LAST), size=n),
        ]
    boost = cfg.pool_boost if year in s.boosted_years else 1.0
    out = []
    for pool in POOLS:
        pp = cfg.pools[pool]
        lam = pp["volume"] * (1.0 + cfg.pool_reputation_volume * max(0.0, s.reputation - 2.0)) * boost
        k = min(cfg.pool_max_revealed, int(w.rng.keyed("pool_count", year, pool).poisson(lam)), n)
        ab, sp, re, ind, gr, tn, ln, iv, fi, la = drawn[pool]
        ab = np.clip(ab, cfg.ability_min, cfg.ability_max)
        for i in range(k):
            out.append(
                {
                    "ability": float(ab[i]),
                    "speed": float(sp[i]),
                    "resilience": float(re[i]),
                    "independence": float(ind[i]),
                    "growth": float(np.maximum(gr[i], cfg.growth_min)),
                    "transcript": round(float(np.clip(ab[i] + tn[i], 0.0, 1.0)), 2),
                    "letter": round(float(np.clip(ab[i] + pp["letter_bias"] + ln[i], 0.0, 1.0)), 2),
                    "interview_score": round(float(np.clip(ab[i] + iv[i], 0.0, 1.0)), 2),
                    "name": f"{people_mod._FIRST[fi[i]]} {people_mod._LAST[la[i]]}",
                    "pool": pool,
                }
            )
    return out


@pytest.mark.parametrize("reputation, alumni, boosted", [(2.0, 0, False), (10.0, 4, True), (6.0, 9, False)])
def test_s5_pool_traits_equal_numpy_normal_and_uniform_draws(reputation, alumni, boosted):
    """The pool's traits, signals and names equal, float for float (==), what numpy's
    ``normal(loc, sd)``/``uniform(a, b)`` calls give per trait in draw order (the pool draws
    standard normals and uniform doubles in fewer calls and scales them itself)."""
    fields = (
        "ability",
        "speed",
        "resilience",
        "independence",
        "growth",
        "transcript",
        "letter",
        "interview_score",
        "pool",
    )
    for seed in (0, 3, 11, 2026):
        for year in (0, 1, 4):
            w = make_world(seed=seed)
            w.s.applicants.clear()
            w.s.people.clear()
            apps = _regenerate(w, year, reputation, alumni=alumni, boosted=boosted)
            want = _pool_by_nine_draws(w, year)
            order = w.rng.keyed("shuffle", year).permutation(len(want)).tolist()
            want = [want[i] for i in order]
            assert len(apps) == len(want) > 0
            drawn_names = [b["name"] for b in want]
            for a, b in zip(apps, want, strict=True):
                assert {f: getattr(a, f) for f in fields} == {f: b[f] for f in fields}
                if drawn_names.count(b["name"]) == 1:  # a repeated name is made unique afterwards
                    assert a.name == b["name"]


def test_s5_pool_ids_shuffled_visible_fields_and_hidden_interview():
    """§5: ids APP001… in shuffled order; signals rounded to 2 dp; interview hidden until done."""
    w = make_world(seed=9)
    apps = list(w.s.applicants.values())
    assert [a.id for a in apps] == [f"APP{i:03d}" for i in range(1, len(apps) + 1)]
    assert len({a.pool for a in apps}) > 1
    pools_in_order = [a.pool for a in apps]
    assert pools_in_order != sorted(pools_in_order, key=POOLS.index)  # shuffled (seed 9)
    for a in apps:
        for v in (a.transcript, a.letter, a.interview_score):
            assert v == round(v, 2) and 0 <= v <= 1
    api = Api(w)
    rows = api.recruit.applicants()
    assert {r["id"] for r in rows} == {a.id for a in apps}
    assert all(r["interview"] is None for r in rows)
    assert set(rows[0]) == {"id", "season_year", "name", "pool", "transcript", "letter", "interview", "status"}
    got = api.recruit.interview(rows[0]["id"])["interview_scores"]
    assert got == {rows[0]["id"]: w.s.applicants[rows[0]["id"]].interview_score}
    assert api.recruit.applicants()[0]["interview"] == got[rows[0]["id"]]
    assert w.s.oneoff_used == 3.0
    api.recruit.interview([rows[0]["id"]])  # repeat is free
    assert w.s.oneoff_used == 3.0


def test_s5_pool_trait_distributions_follow_the_table():
    """§5 table: ability N(μ, σ) clipped, transcript = a + noise, letter = a + bias + noise,
    speed N(1, 0.15), resilience U(0.4, 1), independence U(0.3, 1), growth max(0.3, N(1, 0.3))."""
    w = make_world(seed=1, months=240)
    by_pool = {p: [] for p in POOLS}
    for y in range(1, 20):
        for a in _regenerate(w, y, 10.0, boosted=True):
            by_pool[a.pool].append(a)
    cfg = w.cfg
    for pool, apps in by_pool.items():
        pp = cfg.pools[pool]
        ab = np.array([a.ability for a in apps])
        assert len(apps) > 80
        assert ab.min() >= 0.15 and ab.max() <= 0.95
        assert ab.mean() == pytest.approx(pp["ability_mean"], abs=0.035)
        assert ab.std() == pytest.approx(pp["ability_sd"], rel=0.25)
        # the median is unaffected by the clip to [0, 1] (values only move away from it)
        letter_bias = np.median([a.letter - a.ability for a in apps])
        assert letter_bias == pytest.approx(pp["letter_bias"], abs=0.025)
        mid = [a for a in apps if 0.35 < a.ability < 0.65]
        t_noise = np.std([a.transcript - a.ability for a in mid])
        assert t_noise == pytest.approx(pp["transcript_noise"], rel=0.3, abs=0.01)
    everyone = [a for apps in by_pool.values() for a in apps]
    assert np.mean([a.speed for a in everyone]) == pytest.approx(1.0, abs=0.03)
    assert np.std([a.speed for a in everyone]) == pytest.approx(0.15, rel=0.15)
    assert min(a.resilience for a in everyone) >= 0.4 and max(a.resilience for a in everyone) <= 1.0
    assert min(a.independence for a in everyone) >= 0.3 and max(a.independence for a in everyone) <= 1.0
    assert min(a.growth for a in everyone) >= 0.3
    assert np.mean([a.growth for a in everyone]) == pytest.approx(1.0, abs=0.05)
    assert np.std([a.independence for a in everyone]) == pytest.approx(0.7 / math.sqrt(12), rel=0.15)


# ------------------------------------------------------------------ calendar and offers
def test_s18_inv7_offer_month_1_joins_or_declines_at_month_5():
    """§18 invariant 7 / §5 calendar: offer in month 1; four ticks later month 5 and the
    applicant is joined (arrived month 5, first stipend at tick 5) or declined."""
    outcomes = set()
    for seed in range(8):
        w = make_world(seed=seed)
        api = Api(w)
        a = api.recruit.applicants()[0]["id"]
        api.recruit.offer(a)
        assert w.s.applicants[a].status == "offered"
        for _ in range(2):
            w.next_month()
        assert w.s.applicants[a].status == "offered"  # resolved only at the tick of month 3
        w.next_month()
        status3 = w.s.applicants[a].status
        assert status3 in ("accepted", "declined")
        w.next_month()
        assert w.s.month == 5
        app = w.s.applicants[a]
        outcomes.add(app.status)
        if status3 == "accepted":
            assert app.status == "joined"
            p = next(p for p in w.s.people.values() if p.applicant_id == a)
            assert p.id.startswith("S") and p.role == "phd" and p.arrived_month == 5
            assert p.skill == pytest.approx(0.35 + 0.30 * app.ability) and p.morale == 0.75
            assert (p.ability, p.speed, p.resilience, p.independence, p.growth) == (
                app.ability,
                app.speed,
                app.resilience,
                app.independence,
                app.growth,
            )
            assert not [r for r in w.s.ledger if r[3] == p.id]
            w.next_month()
            assert [r for r in w.s.ledger if r[3] == p.id] == [[5, "stipend", -3200.0, p.id]]
        else:
            assert app.status == "declined"
    assert outcomes == {"joined", "declined"}


def test_s5_pending_applicants_expire_and_offers_refused_outside_season():
    """§5: offers only while m mod 12 ∈ {1, 2, 3}; pending candidates expire at the tick of 3."""
    w = make_world()
    api = Api(w)
    ids = [a["id"] for a in api.recruit.applicants()]
    for _ in range(3):
        w.next_month()
    assert all(w.s.applicants[i].status == "expired" for i in ids)
    assert api.recruit.applicants() == []
    with pytest.raises(ActionError) as e:
        api.recruit.offer(ids[0])
    assert e.value.code == "wrong_month"


def test_s5_offer_errors_not_pending_and_other_season():
    """§5: an offer needs a pending candidate of the current season."""
    w = make_world()
    api = Api(w)
    a = api.recruit.applicants()[0]["id"]
    api.recruit.offer(a)
    with pytest.raises(ActionError) as e:
        api.recruit.offer(a)
    assert e.value.code == "not_allowed"
    with pytest.raises(ActionError) as e:
        api.recruit.offer("APP999")
    assert e.value.code == "unknown_id"
    for _ in range(12):
        w.next_month()
    assert w.s.month == 13
    with pytest.raises(ActionError):
        api.recruit.offer(a)  # last season's candidate


@pytest.mark.parametrize("reputation", [0.0, 2.0, 4.5, 10.0])
def test_s5_offer_acceptance_probability(reputation):
    """§5: accept with p = clip(base + perΔR × (R − 2), 0.05, 0.95), keyed by applicant."""
    w = make_world(seed=4)
    # a local pool with a very high base tests the upper clip
    replace_cfg(w, pools={**w.cfg.pools, "local": {**w.cfg.pools["local"], "accept_base": 0.99}})
    apps = list(w.s.applicants.values())
    for a in apps:
        a.status = "offered"
    w.s.reputation = reputation
    people_mod.resolve_offers(w, 3)
    for a in apps:
        pp = w.cfg.pools[a.pool]
        p = min(0.95, max(0.05, pp["accept_base"] + pp["accept_per_rep"] * (reputation - 2.0)))
        u = float(w.rng.keyed("offer", a.id).random())
        assert a.status == ("accepted" if u < p else "declined")


def test_s5_offer_acceptance_rates_statistically():
    """§5: at R = 2 the acceptance rates are the pools' bases (0.35, 0.60, 0.75, 0.85)."""
    acc = {p: [] for p in POOLS}
    w = make_world(seed=8, months=240)
    for y in range(0, 19):
        for a in _regenerate(w, y, 6.0):
            a.status = "offered"
        w.s.reputation = 2.0
        people_mod.resolve_offers(w, 12 * y + 3)
        for a in w.s.applicants.values():
            if a.season_year == y:
                acc[a.pool].append(a.status == "accepted")
    for pool in POOLS:
        rate = np.mean(acc[pool])
        base = w.cfg.pools[pool]["accept_base"]
        assert rate == pytest.approx(base, abs=4 * math.sqrt(base * (1 - base) / len(acc[pool])))


def test_s18_inv8_researcher_cap_1_refuses_second_offer():
    """§18 invariant 8: with the researcher cap set to 1, a second offer is refused."""
    w = make_world(researcher_cap=1)
    api = Api(w)
    ids = [a["id"] for a in api.recruit.applicants()]
    api.recruit.offer(ids[0])
    with pytest.raises(ActionError) as e:
        api.recruit.offer(ids[1])
    assert e.value.code == "cap_reached"
    assert w.s.applicants[ids[1]].status == "pending"


def test_s5_cap_counts_offers_incoming_phds_and_open_postings():
    """Decisions §1: the cap counts active researchers, outstanding offers, accepted-not-arrived
    PhDs and unresolved postdoc postings; RAs and managers don't count."""
    w = make_world(researcher_cap=3, seed=2)
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_manager()
    add_person(w, "phd")
    api.recruit.post_postdoc()
    ids = [a["id"] for a in api.recruit.applicants()]
    api.recruit.offer(ids[0])
    assert people_mod.researcher_commitments(w) == 3
    with pytest.raises(ActionError):
        api.recruit.offer(ids[1])
    with pytest.raises(ActionError):
        api.recruit.post_postdoc()
    # after resolution (month 4) an accepted-not-arrived student still counts
    w.s.applicants[ids[0]].status = "accepted"
    w.s.month = 4
    w.s.postings["PDsearch001"].status = "unfilled"
    assert people_mod.researcher_commitments(w) == 2
    api.recruit.post_postdoc()
    with pytest.raises(ActionError):
        api.recruit.post_postdoc()


# ------------------------------------------------------------------ researcher step
@pytest.mark.parametrize("morale, p", [(0.4, 0.16), (0.5, 0.05), (0.6, 0.014), (0.7, 0.003), (0.0, 0.25)])
def test_s5_quit_hazard_curve(morale, p):
    """§5: p = min(0.25, 0.5 σ(−(morale − 0.35)/0.07)): 0.4 → 0.16, 0.5 → 0.05, 0.6 → 0.014, 0.7 → 0.003."""
    cfg = make_world(quiet=False).cfg
    got = people_mod.quit_probability(cfg, morale)
    exact = min(0.25, 0.5 / (1 + math.exp((morale - 0.35) / 0.07)))
    assert got == pytest.approx(exact)
    digits = len(repr(p).split(".")[1])  # the quoted values are rounded
    assert round(got, digits) == p


def test_s5_quit_draw_uses_the_hazard():
    """§5: quitting happens with the hazard probability (keyed person×month), statistically."""
    w = make_world(quit_p_max=0.25, researcher_cap=1000)
    people = [add_person(w, morale=0.4, resilience=1.0) for _ in range(600)]
    w.s.budget = 1e9
    people_mod.researcher_step(w, 1)
    # morale moves slightly before the draw: 0.4 + 0.06 × 0.3 − 0.08 × 0.35 = 0.39
    p = people_mod.quit_probability(w.cfg, 0.39)
    rate = np.mean([x.status == "quit" for x in people])
    assert rate == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / 600))
    quitter = next(x for x in people if x.status == "quit")
    assert quitter.left_month == 1 and quitter.mentoring == 0
    assert any(n[1] == "lab" and quitter.id in n[3] and "quit" in n[3] for n in w.s.news)


def test_s5_morale_update_all_impulses():
    """§5: new morale = clip(x + 0.06(0.70 − x) + I, 0, 1) with queued impulses, overload
    (> 2 projects) −0.10, neglect −0.08(1 − ι) if mentoring < 2 h, runway stress −0.10 when
    0 < budget < 6 × max(1, burn), peer 0.05 × (lab mean − own) over pre-update morale."""
    w = make_world()
    a = add_person(w, morale=0.5, independence=0.5, mentoring=0.0)
    b = add_person(w, morale=0.9, independence=0.8, mentoring=3.0)
    for _ in range(3):
        add_project(w, [a.id])
    a.impulse = 0.35
    burn = 6400.0
    w.s.budget = 6 * burn - 1  # stress
    assert w.burn_rate() == burn
    people_mod.researcher_step(w, 1)
    mean = 0.7
    exp_a = 0.5 + 0.06 * 0.2 + 0.35 - 0.10 - 0.08 * 0.5 - 0.10 + 0.05 * (mean - 0.5)
    exp_b = 0.9 + 0.06 * (0.7 - 0.9) - 0.10 + 0.05 * (mean - 0.9)
    assert a.morale == pytest.approx(exp_a)
    assert b.morale == pytest.approx(exp_b)
    assert a.impulse == 0.0
    # no stress at budget ≥ 6 × burn or ≤ 0
    for budget in (6 * burn, 0.0, -5.0):
        a.morale = b.morale = 0.7
        w.s.budget = budget
        people_mod.researcher_step(w, 2)
        assert b.morale == pytest.approx(0.7)


def test_s5_morale_clipped_and_equilibrium_under_steady_negative_impulse():
    """§5: morale is clipped to [0, 1]; a steady −0.10 drives it to 0 (equilibrium 0.70 + I/0.06 < 0)."""
    w = make_world()
    a = add_person(w, morale=0.95, mentoring=5.0)
    a.impulse = 0.5
    people_mod.researcher_step(w, 1)
    assert a.morale == 1.0
    w.s.budget = 1000.0  # permanent runway stress
    for m in range(2, 80):
        people_mod.researcher_step(w, m)
    assert a.morale == 0.0


def test_s5_skill_growth_with_mentoring():
    """§5: on ≥ 1 active project: skill += 0.012 × growth × (1 + 1.2 min(h, 8)/8), cap 1.2."""
    w = make_world()
    a = add_person(w, skill=0.5, growth=1.2, mentoring=4.0)
    b = add_person(w, skill=0.5, growth=1.0, mentoring=20.0)
    c = add_person(w, skill=0.5, growth=1.0, mentoring=8.0)  # not on a project
    d = add_person(w, skill=1.199, growth=2.0, mentoring=8.0)
    add_project(w, [a.id, b.id, d.id])
    done = add_project(w, [c.id])
    done.status = "completed"
    w.s.budget = 1e9
    people_mod.researcher_step(w, 1)
    assert a.skill == pytest.approx(0.5 + 0.012 * 1.2 * (1 + 1.2 * 0.5))
    assert b.skill == pytest.approx(0.5 + 0.012 * 2.2)
    assert c.skill == 0.5
    assert d.skill == 1.2


def test_s5_monthly_report_and_sentiment():
    """§5: report = max(0, skill × ability × (0.6 + 0.4 new morale) + N(0, 0.15)), 2 dp;
    sentiment = clip(new morale + N(0, 0.18)), 2 dp, only if mentoring ≥ 1 h."""
    w = make_world(report_noise_sd=0.0, sentiment_noise_sd=0.0)
    a = add_person(w, skill=0.6, ability=0.7, morale=0.7, mentoring=2.0, independence=1.0)
    b = add_person(w, skill=0.6, ability=0.7, morale=0.7, mentoring=0.5, independence=1.0)
    w.s.budget = 1e9
    people_mod.researcher_step(w, 1)
    ra, rb = w.s.student_reports[-2:]
    assert ra == [a.id, 1, round(0.6 * 0.7 * (0.6 + 0.4 * 0.7), 2), 0.7]
    assert rb == [b.id, 1, round(0.6 * 0.7 * (0.6 + 0.4 * 0.7), 2), None]
    assert Api(w).students.reports(a.id) == [{"month": 1, "report_quality": ra[2], "meeting_sentiment": 0.7}]


def test_s5_report_noise_statistics():
    """§5: report noise sd 0.15, sentiment noise sd 0.18 (before rounding/clipping)."""
    w = make_world(researcher_cap=1000)
    people = [add_person(w, skill=1.0, ability=1.0, morale=0.5, mentoring=5.0, independence=1.0) for _ in range(400)]
    w.s.budget = 1e9
    people_mod.researcher_step(w, 1)
    mean_morale = 0.5 + 0.06 * 0.2
    rq = np.array([r[2] for r in w.s.student_reports])
    sent = np.array([r[3] for r in w.s.student_reports])
    assert rq.mean() == pytest.approx(0.6 + 0.4 * mean_morale, abs=0.03)
    assert rq.std() == pytest.approx(0.15, rel=0.15)
    assert sent.mean() == pytest.approx(mean_morale, abs=0.03)
    assert sent.std() == pytest.approx(0.18, rel=0.15)
    assert len(people) == 400


def test_s5_report_written_before_quit():
    """§5: the monthly report is written before the quit draw (a quitter has a report that month)."""
    w = make_world(quit_p_max=0.25, quit_center=1.0)
    people = [add_person(w, morale=0.0) for _ in range(20)]
    w.s.budget = 1e9
    people_mod.researcher_step(w, 1)
    quitters = [p for p in people if p.status == "quit"]
    assert quitters
    reported = {r[0] for r in w.s.student_reports if r[1] == 1}
    assert all(p.id in reported for p in quitters)


@pytest.mark.parametrize(
    "month, arrived, papers, graduates",
    [
        (53, 5, 2, True),
        (53, 5, 1, False),
        (41, 5, 5, False),
        (54, 5, 5, False),
        (65, 17, 2, True),
        (53, 6, 3, False),
    ],
)
def test_s5_graduation_rule(month, arrived, papers, graduates):
    """§5: m mod 12 = 5, m − arrival ≥ 48 and ≥ 2 accepted papers → graduated, removed from
    projects, reputation +0.25 impulse, alumni +1, lab news."""
    w = make_world(months=120)
    p = add_person(w, "phd", arrived=arrived, mentoring=5.0)
    p.papers_accepted = papers
    pj = add_project(w, [p.id])
    w.s.month = month
    w.s.budget = 1e9
    people_mod.researcher_step(w, month)
    if graduates:
        assert p.status == "graduated" and p.left_month == month
        assert w.s.alumni == 1
        assert ["graduation", 0.25] in w.s.rep_impulses
        assert p.id not in pj.members
        assert any(n[1] == "lab" and "graduated" in n[3] for n in w.s.news)
    else:
        assert p.status == "active" and w.s.alumni == 0 and not w.s.rep_impulses


def test_s5_postdocs_never_graduate():
    """§5: graduation is for PhDs only."""
    w = make_world(months=120)
    p = add_person(w, "postdoc", arrived=5, contract_end=200)
    p.papers_accepted = 5
    w.s.budget = 1e9
    people_mod.researcher_step(w, 53)
    assert p.status == "active"


# ------------------------------------------------------------------ postdocs
def test_s5_postdoc_posting_fill_and_24_paid_months():
    """§5: posting costs $1,000, resolves at the tick of month + 2; filled: PD001, arrival =
    resolution month, contract end + 24, skill 0.55 + 0.35a, morale 0.75; paid 24 months, then
    contract_ended (removed from projects, no news)."""
    for seed in range(30):
        w = make_world(seed=seed, months=40)
        w.s.reputation = 10.0  # fill p = 0.85
        api = Api(w)
        sid = api.recruit.post_postdoc()["search_id"]
        assert w.s.postings[sid].resolve_month == 3
        w.next_month()
        w.next_month()
        assert w.s.postings[sid].status == "open"
        w.next_month()  # tick of 3
        post = w.s.postings[sid]
        assert any(n[0] == 3 and n[1] == "lab" and sid in n[3] for n in w.s.news)
        if post.status == "filled":
            break
    p = w.s.people[post.person_id]
    assert p.id == "PD001" and p.role == "postdoc" and p.arrived_month == 3 and p.contract_end == 27
    assert p.skill == pytest.approx(0.55 + 0.35 * p.ability) and p.morale == 0.75
    pj = add_project(w, [p.id], tier=3)
    w.s.budget = 1e9
    news_before = len(w.s.news)
    while w.s.month < 27:
        w.next_month()
    assert p.status == "active"
    w.next_month()  # tick of 27
    assert p.status == "contract_ended" and p.left_month == 27
    assert p.id not in pj.members
    assert not any(p.id in n[3] for n in w.s.news[news_before:])
    paid = [r[0] for r in w.s.ledger if r[3] == p.id]
    assert paid == list(range(4, 28)) and len(paid) == 24


def test_s5_postdoc_fill_probability_and_traits():
    """§5: fill with p = min(0.85, 0.45 + 0.06(R − 2)) (no lower clip); ability clip(N(0.74, 0.12),
    0.2, 0.97), speed N(1.05, 0.12), resilience U(0.5, 1), independence U(0.6, 1), growth
    max(0.3, N(0.8, 0.2))."""
    for reputation, p_fill in ((2.0, 0.45), (10.0, 0.85), (0.0, 0.33)):
        w = make_world(researcher_cap=1000)
        w.s.reputation = reputation
        for _ in range(500):
            pid = w.s.next_id("PDsearch")
            w.s.postings[pid] = Posting(id=pid, month=1, resolve_month=3)
        people_mod.resolve_postings(w, 3)
        filled = [x for x in w.s.postings.values() if x.status == "filled"]
        rate = len(filled) / 500
        assert rate == pytest.approx(p_fill, abs=4 * math.sqrt(p_fill * (1 - p_fill) / 500))
        assert all(x.status in ("filled", "unfilled") for x in w.s.postings.values())
    pds = [w.s.people[x.person_id] for x in filled]
    ab = np.array([p.ability for p in pds])
    assert ab.min() >= 0.2 and ab.max() <= 0.97
    assert ab.mean() == pytest.approx(0.74, abs=0.04)
    assert np.mean([p.speed for p in pds]) == pytest.approx(1.05, abs=0.04)
    assert min(p.resilience for p in pds) >= 0.5 and min(p.independence for p in pds) >= 0.6
    assert np.mean([p.growth for p in pds]) == pytest.approx(0.8, abs=0.06)
    assert all(p.contract_end == 3 + 24 for p in pds)


def test_s5_postdoc_search_paused_at_cap():
    """§5: at resolution, active researchers ≥ cap → "search paused" news, fee lost."""
    w = make_world(researcher_cap=2)
    api = Api(w)
    sid = api.recruit.post_postdoc()["search_id"]
    add_person(w)
    add_person(w)
    w.next_month()
    w.next_month()
    w.next_month()
    assert w.s.postings[sid].status == "paused"
    assert any("paused" in n[3] and sid in n[3] for n in w.s.news)
    assert not any(p.role == "postdoc" for p in w.s.people.values())


def test_s5_postdoc_renewal_window():
    """§5: renewal only for an active postdoc with contract end − m ≤ 3; +12 months; free."""
    w = make_world()
    api = Api(w)
    pd = add_person(w, "postdoc", contract_end=5)
    phd = add_person(w, "phd")
    with pytest.raises(ActionError):
        api.recruit.renew_postdoc(pd.id)  # 5 − 1 = 4 > 3
    w.s.month = 2
    assert api.recruit.renew_postdoc(pd.id) == {"ok": True, "new_contract_end": 17}
    assert w.s.ledger == []
    with pytest.raises(ActionError):
        api.recruit.renew_postdoc(phd.id)
    pd.status = "contract_ended"
    w.s.month = 16
    with pytest.raises(ActionError):
        api.recruit.renew_postdoc(pd.id)


# ------------------------------------------------------------------ staff
def test_s5_ra_and_manager_hiring():
    """§5: RA (RA001…): ability U(0.35, 0.55), speed N(0.9, 0.1), skill 0.5, ι 0.9, ρ 0.8,
    morale 0.7, no growth, $1,800; manager (MGR001…): skill 0, $4,500, at most 2 active."""
    w = make_world()
    api = Api(w)
    ras = [api.recruit.hire_ra() for _ in range(40)]
    assert ras[0]["staff_id"] == "RA001" and ras[0]["monthly_cost"] == 1800
    people = [w.s.people[r["staff_id"]] for r in ras]
    assert all(0.35 <= p.ability <= 0.55 for p in people)
    assert np.mean([p.speed for p in people]) == pytest.approx(0.9, abs=0.05)
    assert all((p.skill, p.independence, p.resilience, p.morale, p.growth) == (0.5, 0.9, 0.8, 0.7, 0.0) for p in people)
    m1 = api.recruit.hire_manager()
    assert m1["staff_id"] == "MGR001" and m1["monthly_cost"] == 4500 and m1["attention_relief_per_researcher"] == 2
    api.recruit.hire_manager()
    with pytest.raises(ActionError) as e:
        api.recruit.hire_manager()
    assert e.value.code == "cap_reached"
    assert w.s.people["MGR001"].skill == 0


def test_s5_dismissal_only_staff():
    """§5: only RAs and managers can be dismissed; PhDs and postdocs never."""
    w = make_world()
    api = Api(w)
    phd = add_person(w, "phd")
    pd = add_person(w, "postdoc")
    for pid in (phd.id, pd.id, "RA404"):
        with pytest.raises(ActionError):
            api.recruit.dismiss(pid)
    ra = api.recruit.hire_ra()["staff_id"]
    pj = add_project(w, [phd.id, ra])
    api.recruit.dismiss(ra)
    with pytest.raises(ActionError):
        api.recruit.dismiss(ra)  # already leaving
    assert ra in pj.members
    w.next_month()
    assert w.s.people[ra].status == "dismissed" and ra not in pj.members
    with pytest.raises(ActionError):
        api.recruit.dismiss(ra)


def test_s5_staff_have_no_morale_dynamics_and_are_never_authors():
    """§5: RAs' morale stays fixed (no impulses pile up, no quit); RAs are never authors."""
    w = make_world(quit_p_max=0.25, tiers={"1": {"work": 0.1}})
    api = Api(w)
    ra = w.s.people[api.recruit.hire_ra()["staff_id"]]
    phd = add_person(w, "phd")
    pj = add_project(w, [ra.id, phd.id], tier=1)
    w.next_month()
    assert pj.status == "completed"
    assert w.s.drafts[pj.draft_id].authors == [phd.id]
    kill = add_project(w, [ra.id])
    api.projects.kill(kill.id)
    for _ in range(10):
        w.next_month()
    assert ra.morale == 0.7 and ra.impulse == 0.0 and ra.status == "active"
    assert not [r for r in w.s.student_reports if r[0] == ra.id]
