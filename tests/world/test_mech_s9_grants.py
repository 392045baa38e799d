"""MECHANICS §9 (grants) and the Decisions on grant attachments, checked by hand."""

from __future__ import annotations

import math

import pytest

from world import grants as grants_mod
from world.api import ActionError
from world.config import AGENCIES, TOPICS
from world.state import Award

from .verify_helpers import add_draft, add_publication, advance, flat_hotness, goto_month, make_world, set_hotness


def sat(y):
    return y / (1 + y)


def ev(q):
    return math.exp(0.42 * (q - 5))


def test_s9_call_schedule_and_ids():
    """§9 calls: BSF 2, 8, …, 56; AMP 5, 14, 26, 38, 50; FEL 9, 21, 33; open month and next;
    ids <AGENCY>-mNN and TIF-rolling (months 1..horizon); sized from the horizon."""
    w, _ = make_world()
    calls = w.s.calls
    expect = {f"BSF-m{m:02d}" for m in (2, 8, 14, 20, 26, 32, 38, 44, 50, 56)}
    expect |= {f"AMP-m{m:02d}" for m in (5, 14, 26, 38, 50)} | {"FEL-m09", "FEL-m21", "FEL-m33", "TIF-rolling"}
    assert set(calls) == expect
    for cid, c in calls.items():
        if cid == "TIF-rolling":
            assert (c.open_month, c.close_month) == (1, 60)
        else:
            assert c.agency == cid[:3] and c.close_month == c.open_month + 1 == int(cid[-2:]) + 1
    w30, api30 = make_world(months=30)
    assert "BSF-m32" not in w30.s.calls and w30.s.calls["TIF-rolling"].close_month == 30
    assert "FEL-m33" not in w30.s.calls and "BSF-m26" in w30.s.calls
    # calls() lists exactly the open ones
    goto_month(w, 15)
    assert {c["id"] for c in _api(w).grants.calls()} == {"BSF-m14", "AMP-m14", "TIF-rolling"}
    goto_month(w, 16)
    assert {c["id"] for c in _api(w).grants.calls()} == {"TIF-rolling"}
    row = next(c for c in _api(w).grants.calls() if c["id"] == "TIF-rolling")
    assert row == {
        "id": "TIF-rolling",
        "agency": "TIF",
        "award": 90000.0,
        "duration_months": 12,
        "open_month": 1,
        "last_month_to_apply": 60,
        "decision_delay_months": 2,
    }


def _api(w):
    from world.api import Api

    return Api(w)


def _setup_quality_world(month):
    w, api = make_world(seed=7)
    goto_month(w, month)
    flat_hotness(w, 1.0)
    set_hotness(w, month, "ai4science", 1.8)  # H now
    set_hotness(w, month + 6, "ai4science", 2.6)  # H in six months (AMP's lead)
    w.s.agency_prefs = {
        a: [0.1 * (i + 1) * (1 if k % 2 else -1) for k in range(len(TOPICS))] for i, a in enumerate(AGENCIES)
    }
    w.s.climate = 1.12
    w.s.reputation = 3.5
    return w, api


@pytest.mark.parametrize(
    "agency,call,month",
    [("BSF", "BSF-m14", 14), ("AMP", "AMP-m14", 14), ("TIF", "TIF-rolling", 14), ("FEL", "FEL-m21", 21)],
)
def test_s9_proposal_quality_terms(agency, call, month):
    """§9 quality: 0.42(h/25)^0.7 + 0.55 sat(y/6) + min(0.35, 0.06(R−2)) + preference (AMP:
    0.35(H(m+6)−1) + 0.5π; others π) + 0.25(M−1) − 0.10 × awards active now; TIF +0.20(H(m)−1);
    AMP +0.15 if any attachment is tier 3. y: publication 1.0 × e^{0.42(q−5)}, draft 0.4 × e^{0.42(q_eff−5)},
    × 0.25 off topic."""
    w, api = _setup_quality_world(month)
    k = TOPICS.index("ai4science")
    pub = add_publication(w, 6.0, topic="ai4science", published_month=month - 3)
    off = add_draft(w, 4.0, topic="theory", polish=6.0)
    t3 = add_draft(w, 3.0, topic="ai4science", tier=3, status="under_review")
    # one active award, one not started yet (counts for caps, not for overcommit)
    w.s.awards["A001"] = Award(
        id="A001", agency="BSF", total=1.0, monthly=1.0, start_month=month - 2, end_month=month + 5, proposal_id="PRx"
    )
    w.s.awards["A002"] = Award(
        id="A002", agency="TIF", total=1.0, monthly=1.0, start_month=month + 1, end_month=month + 9, proposal_id="PRy"
    )
    w.s.counters["A"] = 2
    hours = 37.0
    r = api.grants.propose(call, "ai4science", hours, [pub.id, off.id, t3.id])
    pr = w.s.proposals[r["proposal_id"]]
    y = 1.0 * ev(6.0) + 0.4 * ev(4.0 + 0.5 * 6 / 12) * 0.25 + 0.4 * ev(3.0)
    pi = w.s.agency_prefs[agency][k]
    expect = 0.42 * (hours / 25) ** 0.7 + 0.55 * sat(y / 6) + min(0.35, 0.06 * 1.5) + 0.25 * 0.12 - 0.10 * 1
    if agency == "AMP":
        expect += 0.35 * (2.6 - 1) + 0.5 * pi + 0.15
    else:
        expect += pi
    if agency == "TIF":
        expect += 0.20 * (1.8 - 1)
    assert pr.quality == pytest.approx(expect, rel=1e-12)
    assert r["decision_expected_month"] == month + {"BSF": 5, "AMP": 6, "TIF": 2, "FEL": 4}[agency]
    assert r["proposal_id"] == "PR001"
    assert w.s.oneoff_used == pytest.approx(hours)
    assert w.s.ledger[-1] == [month, "proposal", -500.0, call]


def test_s9_reputation_term_cap_and_no_floor():
    """§9 reputation term: min(0.35, 0.06(R − 2)), no lower bound."""
    vals = {}
    for r in (0.0, 2.0, 5.0, 10.0):
        w, api = _setup_quality_world(14)
        w.s.reputation = r
        vals[r] = grants_mod.proposal_quality(w, "BSF", "theory", 25, [])
    assert vals[0.0] - vals[2.0] == pytest.approx(-0.12)
    assert vals[5.0] - vals[2.0] == pytest.approx(0.18)
    assert vals[10.0] - vals[2.0] == pytest.approx(0.35)


def test_s9_hours_term_uncapped_and_minimum():
    """§9: hours ≥ 5 (else refused); hours term 0.42 (h/25)^0.7 with no cap but attention."""
    w, api = make_world(unlimited_attention=True)
    base = grants_mod.proposal_quality(w, "TIF", "theory", 25, [])
    big = grants_mod.proposal_quality(w, "TIF", "theory", 2500, [])
    assert big - base == pytest.approx(0.42 * (100**0.7 - 1))
    with pytest.raises(ActionError) as e:
        api.grants.propose("TIF-rolling", "theory", 4.99)
    assert e.value.code == "bad_argument"


def test_s9_attachments_deduplicated_and_only_papers():
    """Decisions §1: duplicate attachments refused (also a publication and its own draft);
    only drafts and publications; a draft under review and an accepted-unpublished paper
    count as drafts; a published paper counts 1.0 whichever id is attached."""
    w, api = make_world(seed=2)
    flat_hotness(w, 1.0)
    goto_month(w, 10)
    d = add_draft(w, 5.0)
    pub = add_publication(w, 7.0, published_month=8)
    unpub = add_publication(w, 7.0, published_month=14)  # accepted, published later
    before = w.digest()
    for attach in ([d.id, d.id], [pub.id, pub.draft_id], ["PJ001"], ["S001"], ["A001"], [3], [None], "x"):
        with pytest.raises(ActionError):
            api.grants.propose("TIF-rolling", "reasoning", 10, attach)
        assert w.digest() == before
    rows = grants_mod.evidence_items(w, [d.id, pub.id, unpub.id])
    assert rows == [("reasoning", 0.4, 5.0, 2), ("reasoning", 1.0, 7.0, 2), ("reasoning", 0.4, 7.0, 2)]
    assert grants_mod.evidence_items(w, [pub.draft_id]) == [("reasoning", 1.0, 7.0, 2)]
    assert grants_mod.evidence_items(w, [unpub.draft_id]) == [("reasoning", 0.4, 7.0, 2)]
    d.status = "under_review"
    assert grants_mod.evidence_items(w, [d.id]) == [("reasoning", 0.4, 5.0, 2)]
    # a single string id is accepted as a one-item list
    r = api.grants.propose("TIF-rolling", "reasoning", 10, d.id)
    assert w.s.proposals[r["proposal_id"]].attached == [d.id]


def test_s9_propose_check_order_and_refusals_change_nothing():
    """§9 checks in order: call open, topic, hours ≥ 5, FEL once, cap, TIF cool-down, attachments."""
    w, api = make_world()
    before = w.digest()
    cases = [
        (("BSF-m02", "theory", 10), "unknown_id"),  # not open in month 1
        (("NOPE", "theory", 10), "unknown_id"),
        (("TIF-rolling", "astrology", 10), "bad_argument"),
        (("TIF-rolling", "theory", 1), "bad_argument"),
        (("TIF-rolling", "theory", float("nan")), "bad_argument"),
        (("TIF-rolling", "theory", 10, ["D404"]), "unknown_id"),
        (("TIF-rolling", "theory", 10_000), "no_attention"),
    ]
    for args, code in cases:
        with pytest.raises(ActionError) as e:
            api.grants.propose(*args)
        assert e.value.code == code, args
        assert w.digest() == before


def test_s9_tif_cooldown_three_months():
    """§9 TIF: ≥ 3 months since the last TIF proposal."""
    w, api = make_world()
    api.grants.propose("TIF-rolling", "theory", 5)
    for m in (2, 3):
        goto_month(w, m)
        w.s.proposals["PR001"].status = "rejected"  # keep the cap out of the way
        with pytest.raises(ActionError) as e:
            api.grants.propose("TIF-rolling", "theory", 5)
        assert e.value.code == "wrong_month"
    goto_month(w, 4)
    assert api.grants.propose("TIF-rolling", "theory", 5)["proposal_id"] == "PR002"


def test_s9_concurrency_caps_and_fel_once():
    """§9 caps: (awards with end ≥ m, incl. not started) + pending < cap (BSF 2, AMP 1, TIF 2,
    FEL 1); FEL refused once any FEL proposal was funded."""
    w, api = make_world(unlimited_attention=True)
    goto_month(w, 2)
    api.grants.propose("BSF-m02", "theory", 5)
    api.grants.propose("BSF-m02", "theory", 5)
    with pytest.raises(ActionError) as e:
        api.grants.propose("BSF-m02", "theory", 5)
    assert e.value.code == "cap_reached"
    # a rejected one frees a slot; an award not yet started takes it again
    w.s.proposals["PR001"].status = "rejected"
    w.s.awards["A001"] = Award(
        id="A001", agency="BSF", total=1, monthly=1, start_month=9, end_month=40, proposal_id="x"
    )
    with pytest.raises(ActionError):
        api.grants.propose("BSF-m02", "theory", 5)
    w.s.awards["A001"].end_month = 1  # ended: no longer counts
    api.grants.propose("BSF-m02", "theory", 5)
    goto_month(w, 5)
    api.grants.propose("AMP-m05", "theory", 5)
    with pytest.raises(ActionError) as e:
        api.grants.propose("AMP-m05", "theory", 5)
    assert e.value.code == "cap_reached"
    goto_month(w, 9)
    w.s.fel_funded = True
    with pytest.raises(ActionError) as e:
        api.grants.propose("FEL-m09", "theory", 5)
    assert e.value.code == "not_allowed"


def test_s9_decision_award_installments_overhead_cut_at_horizon():
    """§9 decision at the tick of the decision month; funded → A001, start m+1, end m+duration,
    monthly = award/duration; installments and $600 overhead start..end inclusive, cut at the
    horizon; reputation impulse; FEL flag."""
    w, api = make_world(months=20, seed=4)
    api.grants.propose("TIF-rolling", "theory", 5)  # decision month 3
    w.s.proposals["PR001"].quality = 99.0
    advance(api, 2)
    assert w.s.proposals["PR001"].status == "pending"
    advance(api, 1)
    assert w.s.proposals["PR001"].status == "funded"
    a = w.s.awards["A001"]
    assert (a.start_month, a.end_month, a.monthly, a.total) == (4, 15, 7500.0, 90000.0)
    advance(api, 5)
    assert w.s.month == 9
    api.grants.propose("FEL-m09", "theory", 5)  # decision 13 → start 14, end 37 (horizon 20)
    w.s.proposals["PR002"].quality = 99.0
    advance(api, 4)
    assert w.s.month == 13
    w.s.rep_impulses = []
    grants_mod.grant_decisions_step(w, 13)  # step 5 alone, as at the tick
    assert w.s.fel_funded and w.s.rep_impulses == [["grant FEL", 0.5]]
    w.s.rep_impulses = []
    assert w.s.awards["A002"].monthly == pytest.approx(150000 / 24)
    assert (w.s.awards["A002"].start_month, w.s.awards["A002"].end_month) == (14, 37)
    advance(api, 1)
    api.grants.propose("BSF-m14", "theory", 5)  # decision 19
    w.s.proposals["PR003"].quality = -99.0
    while not w.s.finished:
        advance(api, 1)
    assert w.s.proposals["PR003"].status == "rejected"
    income = [(r[0], r[3], r[2]) for r in w.s.ledger if r[1] == "grant_income"]
    overhead = [(r[0], r[3], r[2]) for r in w.s.ledger if r[1] == "overhead"]
    assert [m for m, n, _ in income if n == "A001"] == list(range(4, 16))
    assert all(v == 7500.0 for _, n, v in income if n == "A001")
    assert [m for m, n, _ in overhead if n == "A001"] == list(range(4, 16))
    assert all(v == -600.0 for _, n, v in overhead)
    assert [m for m, n, _ in income if n == "A002"] == list(range(14, 21))
    assert w.s.month == 20


def test_s9_decision_noise_sd():
    """§9: funded iff quality + N(0, 0.28) ≥ θ: at quality θ − 0.28 about 16 % are funded."""
    w, _ = make_world(seed=13)
    from world.state import Proposal

    n = 1200
    for _ in range(n):
        pid = w.s.next_id("PR")
        w.s.proposals[pid] = Proposal(
            id=pid,
            call_id="TIF-rolling",
            agency="TIF",
            topic="theory",
            hours=5,
            attached=[],
            quality=0.92 - 0.28,
            submitted_month=1,
            decision_month=3,
        )
    grants_mod.grant_decisions_step(w, 3)
    share = sum(p.status == "funded" for p in w.s.proposals.values()) / n
    assert 0.12 < share < 0.20
