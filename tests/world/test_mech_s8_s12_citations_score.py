"""MECHANICS §8 (citations) and §12 (score, projection) checked by hand."""

from __future__ import annotations

import math
import statistics

import pytest

from world import papers as papers_mod
from world import scoring

from .verify_helpers import add_publication, advance, flat_hotness, goto_month, make_world, set_hotness

VIS = {"NAIC": 3.0, "CLAR": 1.2, "W-SHOP": 0.4, "JMR": 2.0}
HALF = {"NAIC": 30.0, "CLAR": 30.0, "W-SHOP": 30.0, "JMR": 40.0}


def by_hand(venue, q, h, age, r, alumni, collab=False):
    """λ of §8 written out."""
    ramp = min(1.0, (age + 1) / 6)
    decay = 0.5 ** (max(0, age - 6) / HALF[venue])
    lam = VIS[venue] * math.exp(0.42 * (q - 5)) * h * ramp * decay * (1 + 0.08 * (r - 2)) * (1 + 0.005 * alumni)
    if collab:
        lam *= 0.5
    return max(0.0, lam)


@pytest.mark.parametrize("venue", ["NAIC", "CLAR", "W-SHOP", "JMR"])
@pytest.mark.parametrize("collab", [False, True])
def test_s8_citation_rate_age_curve(venue, collab):
    """§8 λ: ramp min(1, (a+1)/6), decay 0.5^(max(0, a−6)/h) (h 40 journal, 30 otherwise),
    × v × e^{0.42(q−5)} × H × (1 + 0.08(R−2)) × (1 + 0.005 alumni), × 0.5 collaboration."""
    w, _ = make_world()
    pub = add_publication(w, 6.3, venue=venue, published_month=10, collab=collab)
    for age in (0, 1, 4, 5, 6, 7, 12, 36, 46, 90):
        for h, r, alumni in ((1.0, 2.0, 0), (2.4, 3.5, 3), (0.3, 0.5, 1)):
            got = papers_mod.citation_rate(w, pub, 10 + age, h, r, alumni)
            assert got == pytest.approx(by_hand(venue, 6.3, h, age, r, alumni, collab), rel=1e-12)
    # the ramp reaches 1 at age 5 and decay starts after age 6
    assert papers_mod.citation_rate(w, pub, 15, 1.0, 2.0, 0) == pytest.approx(
        papers_mod.citation_rate(w, pub, 16, 1.0, 2.0, 0)
    )
    # floored at 0 when the reputation factor is negative (R far below 2 is impossible, but the floor holds)
    assert papers_mod.citation_rate(w, pub, 12, 1.0, -20.0, 0) == 0.0


@pytest.mark.parametrize("venue", ["NAIC", "JMR"])
@pytest.mark.parametrize("collab", [False, True])
def test_s8_citation_rates_over_many_months_are_the_formula_bit_for_bit(venue, collab):
    """The projection's batch ``citation_rates`` gives, month by month, exactly the float of
    the §8 formula multiplied left to right as written (v × e^… × H × ramp × decay × rep ×
    alumni), and of ``citation_rate`` for that month: the projection's Impact cannot move."""
    w, _ = make_world()
    cfg = w.cfg
    pub = add_publication(w, 6.3, venue=venue, published_month=10, collab=collab)
    v = cfg.venues[venue]
    for h, r, alumni in ((1.0, 2.0, 0), (2.4, 3.5, 3), (0.3, 0.5, 1), (1.7, -20.0, 2)):
        months = range(10, 10 + 60)
        rates = papers_mod.citation_rates(w, pub, months, h, r, alumni)
        for month, got in zip(months, rates, strict=True):
            age = month - 10
            lam = (
                v["visibility"]
                * math.exp(cfg.citation_quality_slope * (pub.q - cfg.citation_quality_center))
                * h
                * min(1.0, (age + 1) / cfg.citation_ramp_months)
                * 0.5 ** (max(0.0, age - cfg.citation_decay_start) / v["half_life"])
                * (1.0 + cfg.citation_reputation * (r - cfg.reputation_baseline))
                * (1.0 + cfg.alumni_citation_bonus * alumni)
            )
            if collab:
                lam *= cfg.collab_citation_factor
            assert got == max(0.0, lam) == papers_mod.citation_rate(w, pub, month, h, r, alumni)


def test_s8_citations_step_poisson_keyed_and_reputation_impulse():
    """§8: counts ~ Poisson(λ) keyed by (publication, month) — another paper never shifts them;
    only publication month ≤ m counts; T feeds +0.04 ln(1 + T), using R before the update."""
    w, _ = make_world(seed=8)
    flat_hotness(w, 2.0)
    w.s.reputation = 3.0
    w.s.alumni = 2
    a = add_publication(w, 7.0, venue="NAIC", published_month=1)
    future = add_publication(w, 7.0, venue="NAIC", published_month=40)
    counts_a = []
    for m in range(1, 31):
        goto_month(w, m)
        w.s.rep_impulses = []
        papers_mod.citations_step(w, m)
        counts_a.append(a.citations)
        t = w.month_citations
        assert future.citations == 0
        if t:
            assert w.s.rep_impulses == [["citations", pytest.approx(0.04 * math.log1p(t))]]
        else:
            assert w.s.rep_impulses == []
    # a second world with an extra publication: a's monthly draws are unchanged
    w2, _ = make_world(seed=8)
    flat_hotness(w2, 2.0)
    w2.s.reputation = 3.0
    w2.s.alumni = 2
    a2 = add_publication(w2, 7.0, venue="NAIC", published_month=1)
    add_publication(w2, 5.0, venue="CLAR", published_month=1)
    c2 = []
    for m in range(1, 31):
        goto_month(w2, m)
        papers_mod.citations_step(w2, m)
        c2.append(a2.citations)
    assert c2 == counts_a
    rows = [r for r in w.s.citations_monthly if r[0] == a.id]
    assert all(r[2] >= 1 for r in rows) and sum(r[2] for r in rows) == a.citations
    # the mean matches λ: many papers, one month
    w3, _ = make_world(seed=1)
    flat_hotness(w3, 1.0)
    pubs = [add_publication(w3, 5.0, venue="JMR", published_month=1) for _ in range(2000)]
    goto_month(w3, 20)
    papers_mod.citations_step(w3, 20)
    lam = by_hand("JMR", 5.0, 1.0, 19, 2.0, 0)
    mean = statistics.mean(p.citations for p in pubs)
    assert abs(mean - lam) < 4 * math.sqrt(lam / 2000)


def test_s8_workshop_first_draw_at_acceptance_tick_and_reputation_before_update():
    """§8: a workshop paper draws at age 0 in its acceptance tick; λ uses R before this tick's update."""
    w, api = make_world(seed=21)
    flat_hotness(w, 5.0)
    w.s.reputation = 6.0
    from .verify_helpers import add_draft

    d = add_draft(w, 10.0)
    api.papers.submit(d.id, "W-SHOP")  # decision at the tick of month 2
    advance(api, 1)
    r_before = w.s.reputation
    assert r_before == pytest.approx(6.0 - 0.01 * 4.0)
    advance(api, 1)  # tick of 2: decision (accept), then citations for month 2 at age 0
    (pub,) = w.s.publications.values()
    assert pub.published_month == 2
    lam = by_hand("W-SHOP", 10.0, 5.0, 0, r_before, 0)
    assert lam > 1
    rows = [r for r in w.s.citations_monthly if r[0] == pub.id]
    assert [r[1] for r in rows] in ([2], [])
    # reputation after the tick: + 0.03 (acceptance) + 0.04 ln(1+T) − 0.01 (R − 2)
    t = pub.citations
    expect = r_before + 0.03 + (0.04 * math.log1p(t) if t else 0.0) - 0.01 * (r_before - 2)
    assert w.s.reputation == pytest.approx(expect)


def test_s12_projection_by_hand():
    """§12 projection: Σ pubs published by T of Σ_{τ=T+1..T+36} λ with H frozen at H(T), R and
    alumni frozen, age advancing; Impact = earned + projection rounded to 0.1."""
    w, _ = make_world(seed=3)
    goto_month(w, 40)
    flat_hotness(w, 0.9)
    set_hotness(w, 40, "reasoning", 2.5)
    set_hotness(w, 41, "reasoning", 9.0)  # later months must not matter
    w.s.reputation = 3.7
    w.s.alumni = 2
    p1 = add_publication(w, 6.0, venue="NAIC", topic="reasoning", published_month=30)
    p2 = add_publication(w, 4.0, venue="JMR", topic="theory", published_month=40, collab=True)
    add_publication(w, 9.0, venue="NAIC", topic="reasoning", published_month=41)  # not yet published
    p1.citations, p2.citations = 17, 3
    expect = 0.0
    for tau in range(41, 77):
        expect += by_hand("NAIC", 6.0, 2.5, tau - 30, 3.7, 2)
        expect += by_hand("JMR", 4.0, 0.9, tau - 40, 3.7, 2, collab=True)
    assert scoring.projection(w) == pytest.approx(expect, rel=1e-12)
    imp = scoring.impact(w)
    assert imp["total"] == round(20 + expect, 1)
    assert imp["earned"] == 20


def test_s12_projection_zero_after_collapse_and_citations_kept():
    """§12/§18 inv. 6: budget < 0 at the tick → collapsed, finished; projection 0, citations kept."""
    w, api = make_world(seed=6)
    flat_hotness(w, 2.0)
    pub = add_publication(w, 8.0, venue="NAIC", published_month=1)
    advance(api, 2)
    assert scoring.projection(w) > 0
    w.s.budget = -1.0
    advance(api, 1)
    assert w.s.collapsed and w.s.finished and w.s.collapse_month == 3 and w.s.month == 3
    assert scoring.projection(w) == 0.0
    summ = w.summary()
    assert summ["projected"] == 0.0 and summ["citations"] == pub.citations
    assert summ["impact"] == round(pub.citations, 1)
