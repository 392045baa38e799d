"""MECHANICS §7 (papers and review) checked by hand on hand-made states."""

from __future__ import annotations

import math
import statistics

import pytest

from world import events as events_mod
from world import papers as papers_mod
from world.api import ActionError

from .verify_helpers import add_draft, add_person, advance, flat_hotness, goto_month, make_world


def _decide(w, m):
    """Run tick step 3 alone for month ``m``."""
    goto_month(w, m)
    papers_mod.decisions_step(w, m)


def test_s7_polish_saturation_and_attention():
    """§7 polish: hours add up, q_eff = q + 0.5 × min(polish, 12)/12, hours charged."""
    w, api = make_world()
    d = add_draft(w, 4.0)
    r = api.papers.polish(d.id, 5)
    assert r["ok"] and r["total_polish_hours"] == 5
    assert papers_mod.q_eff(w, d) == pytest.approx(4.0 + 0.5 * 5 / 12)
    api.papers.polish(d.id, 10)
    assert d.polish_hours == 15
    assert papers_mod.q_eff(w, d) == pytest.approx(4.5)  # saturated at 12 h
    assert w.s.oneoff_used == pytest.approx(15)
    assert d.q == 4.0  # polish never enters the latent q (§6)
    with pytest.raises(ActionError) as e:
        api.papers.polish(d.id, -1)
    assert e.value.code == "bad_argument"
    with pytest.raises(ActionError) as e:
        api.papers.polish(d.id, 1000)
    assert e.value.code == "no_attention"


@pytest.mark.parametrize(
    "month,venue,ok,delay",
    [
        (3, "NAIC", True, 3),
        (9, "NAIC", True, 3),
        (15, "NAIC", True, 3),
        (4, "NAIC", False, 3),
        (6, "CLAR", True, 3),
        (12, "CLAR", True, 3),
        (24, "CLAR", True, 3),
        (3, "CLAR", False, 3),
        (5, "W-SHOP", True, 1),
        (7, "JMR", True, 7),
        (11, "W-SHOP", True, 1),
    ],
)
def test_s7_submit_deadline_months_and_decision_delay(month, venue, ok, delay):
    """§7 submit: conferences only in their months (NAIC 3, 9; CLAR 0, 6); decision = m + delay."""
    w, api = make_world()
    goto_month(w, month)
    d = add_draft(w, 5.0)
    if not ok:
        before = w.digest()
        with pytest.raises(ActionError) as e:
            api.papers.submit(d.id, venue)
        assert e.value.code == "wrong_month"
        assert w.digest() == before
        return
    r = api.papers.submit(d.id, venue)
    assert r["decision_expected_month"] == month + delay
    assert r["submission_id"] == "SUB001"
    assert d.status == "under_review"
    with pytest.raises(ActionError):  # at most one live submission per draft
        api.papers.submit(d.id, "W-SHOP")


def test_s7_submit_unknown_draft_and_venue():
    """§7 submit: draft known and available, venue known."""
    w, api = make_world()
    d = add_draft(w, 5.0)
    for bad in ("D999", 7, None):
        with pytest.raises(ActionError):
            api.papers.submit(bad, "W-SHOP")
    for bad in ("naic", "", 3, None):
        with pytest.raises(ActionError) as e:
            api.papers.submit(d.id, bad)
        assert e.value.code == "bad_argument"


def test_s7_review_score_formula_and_reviewers_average_to_it():
    """§7 decision: score = q_eff + 0.35(H − 1) + 0.15(R − 2) + N(0, 0.5), noise keyed by
    (draft, venue, submission month); reviewers = score + z_i − mean(z), 0.1-rounded."""

    def score_for(q, h, r, polish=0.0):
        w, _ = make_world(seed=5)
        flat_hotness(w, h)
        w.s.reputation = r
        d = add_draft(w, q, polish=polish)
        return papers_mod.review(w, d, "JMR", 4, 11)

    s0, rev0 = score_for(5.0, 1.0, 2.0)
    s1, rev1 = score_for(6.0, 1.0, 2.0)
    s2, _ = score_for(5.0, 2.0, 2.0)
    s3, _ = score_for(5.0, 1.0, 4.0)
    s4, _ = score_for(5.0, 1.0, 2.0, polish=6.0)
    assert s1 - s0 == pytest.approx(1.0)
    assert s2 - s0 == pytest.approx(0.35)
    assert s3 - s0 == pytest.approx(0.30)
    assert s4 - s0 == pytest.approx(0.25)
    for s, rev in ((s0, rev0), (s1, rev1)):
        assert len(rev) == 3
        assert all(round(x, 1) == x for x in rev)
        assert statistics.mean(rev) == pytest.approx(s, abs=0.05 + 1e-9)
    # the noise has the documented spread: N(0, 0.5) for the score, N(0, 0.35) per reviewer
    w, _ = make_world(seed=11)
    flat_hotness(w, 1.0)
    noises, spreads = [], []
    for _ in range(600):
        d = add_draft(w, 5.0)
        s, rev = papers_mod.review(w, d, "W-SHOP", 2, 3)
        noises.append(s - 5.0)
        spreads.extend(x - s for x in rev)
    assert abs(statistics.mean(noises)) < 0.07
    assert 0.45 < statistics.pstdev(noises) < 0.55
    assert 0.35 * math.sqrt(2 / 3) * 0.9 < statistics.pstdev(spreads) < 0.35 * math.sqrt(2 / 3) * 1.1


def test_s7_accept_iff_score_at_least_bar():
    """§7: accept iff score ≥ θ (NAIC 6.3, CLAR 4.6, W-SHOP 2.6, JMR 5.6)."""
    w, api = make_world(seed=3)
    flat_hotness(w, 1.0)
    bars = {"NAIC": 6.3, "CLAR": 4.6, "W-SHOP": 2.6, "JMR": 5.6}
    seen = set()
    for i in range(80):
        venue = list(bars)[i % 4]
        d = add_draft(w, bars[venue] + (i % 7 - 3) * 0.2)
        s, _ = papers_mod.review(w, d, venue, 3, 6)
        from world.state import Submission

        sid = w.s.next_id("SUB")
        w.s.submissions[sid] = Submission(id=sid, draft_id=d.id, venue=venue, submitted_month=3, decision_month=6)
        d.status = "under_review"
        _decide(w, 6)
        sub = w.s.submissions[sid]
        assert sub.score == pytest.approx(s)
        assert sub.status == ("accept" if s >= bars[venue] else "reject")
        seen.add(sub.status)
    assert seen == {"accept", "reject"}


@pytest.mark.parametrize(
    "sub_month,venue,pub_month",
    [
        (3, "NAIC", 10),
        (9, "NAIC", 16),
        (15, "NAIC", 22),
        (6, "CLAR", 13),
        (12, "CLAR", 19),
        (5, "W-SHOP", 6),
        (5, "JMR", 12),
    ],
)
def test_s7_publication_month(sub_month, venue, pub_month):
    """§7: conference publication = submission + 7 (decision + 4); workshop/journal = decision month."""
    w, api = make_world()
    flat_hotness(w, 1.0)
    goto_month(w, sub_month)
    d = add_draft(w, 10.0)  # q 10 clears every bar
    r = api.papers.submit(d.id, venue)
    _decide(w, r["decision_expected_month"])
    (pub,) = w.s.publications.values()
    assert pub.published_month == pub_month
    assert papers_mod.publication_month(w.cfg, venue, r["decision_expected_month"]) == pub_month


def test_s7_accept_effects_morale_counts_reputation():
    """§7 accept: publication with q = q_eff, authors copied, counts +1 (first-author count for
    the first), morale +0.35 first / +0.25 others, reputation impulse per venue."""
    w, api = make_world()
    flat_hotness(w, 1.0)
    a, b = add_person(w), add_person(w)
    d = add_draft(w, 9.0, authors=[a.id, b.id], polish=12)
    goto_month(w, 3)
    api.papers.submit(d.id, "NAIC")
    _decide(w, 6)
    (pub,) = w.s.publications.values()
    assert pub.q == pytest.approx(9.5) and pub.authors == [a.id, b.id] and pub.id == "P001"
    assert d.status == "accepted"
    assert (a.papers_accepted, a.first_author_accepted, b.papers_accepted, b.first_author_accepted) == (1, 1, 1, 0)
    assert a.impulse == pytest.approx(0.35) and b.impulse == pytest.approx(0.25)
    assert w.s.rep_impulses == [["accept NAIC", 0.5]]
    for venue, rep in (("CLAR", 0.15), ("W-SHOP", 0.03), ("JMR", 0.35)):
        w2, api2 = make_world()
        flat_hotness(w2, 1.0)
        goto_month(w2, 6)
        d2 = add_draft(w2, 10.0)
        r = api2.papers.submit(d2.id, venue)
        _decide(w2, r["decision_expected_month"])
        assert [v for _, v in w2.s.rep_impulses] == [rep]


def test_s7_reject_effects():
    """§7 reject: draft available again; −0.18/ρ for each *active* author; no reputation change."""
    w, api = make_world()
    flat_hotness(w, 1.0)
    a = add_person(w, resilience=0.6)
    gone = add_person(w, resilience=0.5, status="quit")
    d = add_draft(w, 0.5, authors=[a.id, gone.id])
    api.papers.submit(d.id, "W-SHOP")
    _decide(w, 2)
    (sub,) = w.s.submissions.values()
    assert sub.status == "reject" and d.status == "available"
    assert a.impulse == pytest.approx(-0.18 / 0.6)
    assert gone.impulse == 0.0
    assert w.s.rep_impulses == []
    assert sub.reviewer_scores is not None and sub.decided_month == 2


def test_s7_revise_rules():
    """§7 revise: needs a rejection; once a month; q += 0.35 × min(h, 10)/10 × 0.8^n, cap 10;
    allowed whether or not an author is still in the lab (README design notes, issue 27 §2:
    one rule with polish and submit); hours charged."""
    w, api = make_world()
    flat_hotness(w, 1.0)
    a = add_person(w)
    d = add_draft(w, 1.0, authors=[a.id])
    with pytest.raises(ActionError) as e:
        api.papers.revise(d.id, 5)
    assert e.value.code == "not_allowed"
    api.papers.submit(d.id, "W-SHOP")
    with pytest.raises(ActionError):  # under review: not available
        api.papers.revise(d.id, 5)
    _decide(w, 2)
    assert d.status == "available"
    used0 = w.s.oneoff_used
    r = api.papers.revise(d.id, 5)
    assert r["revisions"] == 1
    assert d.q == pytest.approx(1.0 + 0.35 * 0.5)
    assert w.s.oneoff_used == pytest.approx(used0 + 5)
    before = w.digest()
    with pytest.raises(ActionError) as e:
        api.papers.revise(d.id, 5)
    assert e.value.code == "not_allowed" and w.digest() == before
    goto_month(w, 3)
    api.papers.revise(d.id, 20)  # capped at 10 h, ×0.8
    assert d.q == pytest.approx(1.0 + 0.175 + 0.35 * 0.8)
    goto_month(w, 4)
    api.papers.revise(d.id, 10)
    assert d.q == pytest.approx(1.0 + 0.175 + 0.28 + 0.35 * 0.64)
    assert d.revisions == 3
    # q capped at 10
    d.q = 9.9
    goto_month(w, 5)
    api.papers.revise(d.id, 10)
    assert d.q == 10.0
    # all authors gone → still allowed (as polish and submit); a collaboration draft passes too
    a.status = "quit"
    goto_month(w, 6)
    assert api.papers.revise(d.id, 1)["revisions"] == 5
    c = add_draft(w, 1.0, collab=True)
    api.papers.submit(c.id, "W-SHOP")
    _decide(w, 7)
    assert api.papers.revise(c.id, 10)["revisions"] == 1


def test_s7_withdraw_and_same_month_resubmission_redraws_nothing():
    """§7 withdraw: only under review; draft available; no penalty; the review noise is keyed
    by (draft, venue, submission month), so resubmitting the same month draws the same score."""

    def run(withdraw_first: bool):
        w, api = make_world(seed=9)
        flat_hotness(w, 1.0)
        d = add_draft(w, 2.6)
        if withdraw_first:
            sid = api.papers.submit(d.id, "W-SHOP")["submission_id"]
            assert api.papers.withdraw(sid) == {"ok": True}
            assert w.s.submissions[sid].status == "withdrawn" and d.status == "available"
            with pytest.raises(ActionError) as e:
                api.papers.withdraw(sid)
            assert e.value.code == "unknown_id"
            assert w.s.rep_impulses == []
        api.papers.submit(d.id, "W-SHOP")
        _decide(w, 2)
        return [s.score for s in w.s.submissions.values() if s.status != "withdrawn"]

    assert run(True) == run(False)


def test_s7_collaboration_draft():
    """§7/§11 collaboration draft: no authors, tier 2, collab flag, q = clip(N(4.8, 0.8), 1, 8);
    acceptance earns full reputation but has no author effects."""
    w, api = make_world(seed=2)
    qs = []
    for i in range(300):
        w.s.collab_deliveries.append([w.s.month, f"E9{i:03d}", "theory"])
    events_mod.expiry_step(w, w.s.month)
    drafts = [d for d in w.s.drafts.values() if d.collab]
    assert len(drafts) == 300
    for d in drafts:
        assert d.authors == [] and d.tier == 2 and d.project_id is None and d.topic == "theory"
        assert 1.0 <= d.q <= 8.0
        qs.append(d.q)
    assert 4.65 < statistics.mean(qs) < 4.95
    assert 0.7 < statistics.pstdev(qs) < 0.9
    flat_hotness(w, 1.0)
    d = drafts[0]
    d.q = 10.0
    api.papers.submit(d.id, "W-SHOP")
    w.s.rep_impulses = []
    _decide(w, 2)
    (pub,) = w.s.publications.values()
    assert pub.collab and pub.authors == []
    assert w.s.rep_impulses == [["accept W-SHOP", 0.03]]


def test_s7_accepted_after_horizon_never_counts():
    """§7: a paper whose publication month lies after the horizon earns no citations or projection."""
    w, api = make_world(seed=4, months=60)
    flat_hotness(w, 3.0)
    goto_month(w, 57)
    d = add_draft(w, 10.0)
    api.papers.submit(d.id, "NAIC")  # 57 ≡ 9: decision 60, published 64
    advance(api, 4)
    assert w.s.finished and w.s.month == 60
    (pub,) = w.s.publications.values()
    assert pub.published_month == 64 and pub.citations == 0
    assert api.papers.publications() == []
    from world import scoring

    assert scoring.projection(w) == 0.0
