"""MECHANICS §10 (reputation) and §11 (events, conference attendance) checked by hand."""

from __future__ import annotations

import pytest

from world import events as events_mod
from world.api import ActionError
from world.config import TOPICS

from .verify_helpers import add_person, advance, flat_hotness, goto_month, make_world


@pytest.mark.parametrize(
    "r,impulses,expect",
    [
        (2.0, [], 2.0),
        (3.0, [0.5, 0.25], 3.0 + 0.75 - 0.01),
        (1.0, [-0.03], 1.0 - 0.03 + 0.01),
        (9.9, [0.5], 10.0),
        (0.02, [-0.5], 0.0),
    ],
)
def test_s10_reputation_update(r, impulses, expect):
    """§10: R ← clip(R + Σ impulses − 0.01(R − 2), 0, 10); impulses are consumed."""
    w, _ = make_world()
    w.s.reputation = r
    w.s.rep_impulses = [["x", v] for v in impulses]
    w.reputation_step()
    assert w.s.reputation == pytest.approx(expect)
    assert w.s.rep_impulses == []


@pytest.mark.parametrize(
    "r,word",
    [
        (0.0, "unknown"),
        (2.49, "unknown"),
        (2.5, "rising"),
        (3.99, "rising"),
        (4.0, "established"),
        (5.99, "established"),
        (6.0, "renowned"),
        (10, "renowned"),
    ],
)
def test_s10_standing_tiers(r, word):
    """§10 standing: < 2.5 unknown, < 4 rising, < 6 established, else renowned."""
    w, api = make_world()
    w.s.reputation = r
    assert w.standing() == word
    assert api.lab.dashboard()["lab_standing"] == word


def _only(w, kind):
    return [e for e in w.s.events.values() if e.kind == kind]


def _event(w, kind, m=None, **details):
    m = w.s.month if m is None else m
    expiry = {"invited_talk": 2, "review_request": 2, "student_crisis": 0, "collaboration_offer": 1}[kind]
    base = {"collaboration_offer": {"topic": "theory"}}.get(kind, {})
    base.update(details)
    return events_mod._new_event(w, kind, m, m + expiry, base)


@pytest.mark.parametrize("r,p_talk,p_collab", [(2.0, 0.05, 0.0), (1.0, 0.05, 0.0), (5.0, 0.29, 0.15), (20.0, 0.6, 0.5)])
def test_s11_event_probabilities_and_expiry_months(r, p_talk, p_collab):
    """§11: talk min(0.6, 0.08 max(0, R−2) + 0.05), review 0.6, collaboration min(0.5, 0.05
    max(0, R−2)), crisis 0.02 per active researcher; expiry talk/review m+2, crisis m, collab m+1."""
    w, _ = make_world(seed=17)
    for _ in range(8):
        add_person(w)
    add_person(w, "ra")  # staff have no crises
    w.s.reputation = r
    w.s.events.clear()
    n = 1500
    for m in range(1, n + 1):
        events_mod.generate_events(w, m)
    evs = list(w.s.events.values())
    counts = {k: sum(e.kind == k for e in evs) for k in events_mod.ACTIONS}
    for kind, p, trials in (
        ("invited_talk", p_talk, n),
        ("review_request", 0.6, n),
        ("collaboration_offer", p_collab, n),
        ("student_crisis", 0.02, 8 * n),
    ):
        sd = (p * (1 - p) * trials) ** 0.5
        assert abs(counts[kind] - p * trials) <= 4.5 * sd + 1e-9, (kind, counts[kind], p * trials)
    for e in evs:
        assert (
            e.respond_by - e.month
            == {"invited_talk": 2, "review_request": 2, "student_crisis": 0, "collaboration_offer": 1}[e.kind]
        )
        if e.kind == "student_crisis":
            assert e.details["student_id"].startswith("S")
    assert [e.id for e in evs[:3]] == ["E001", "E002", "E003"]


def test_s11_collaboration_topic_proportional_to_hotness():
    """§11: the collaboration topic is sampled with probability ∝ current H."""
    w, _ = make_world(seed=3)
    h = {t: 0.01 for t in TOPICS}
    h["embodied"], h["theory"] = 3.0, 1.0
    flat_hotness(w, h)
    w.s.reputation = 20.0
    w.s.events.clear()
    for m in range(1, 3001):
        events_mod.generate_events(w, m)
    topics = [e.details["topic"] for e in _only(w, "collaboration_offer")]
    share = topics.count("embodied") / len(topics)
    assert 0.70 < share < 0.80
    assert set(topics) <= set(TOPICS)


def test_s11_expiry_crisis_auto_ignore_and_review_expiry():
    """§11 at the tick of the expiry month: crisis auto-ignored (−0.35/ρ), review expired (R −0.03),
    talk/collaboration expire with no effect."""
    w, api = make_world()
    w.s.events.clear()
    s1 = add_person(w, resilience=0.7)
    crisis = _event(w, "student_crisis", student_id=s1.id, hours=10)
    review = _event(w, "review_request")
    talk = _event(w, "invited_talk")
    collab = _event(w, "collaboration_offer")
    w.s.rep_impulses = []
    events_mod.expiry_step(w, 1)
    assert crisis.status == "ignored" and s1.impulse == pytest.approx(-0.35 / 0.7)
    assert review.status == "pending" and talk.status == "pending" and collab.status == "pending"
    events_mod.expiry_step(w, 2)
    assert collab.status == "expired" and review.status == "pending"
    events_mod.expiry_step(w, 3)
    assert review.status == "expired" and talk.status == "expired"
    assert w.s.rep_impulses == [["review expired", -0.03]]


def test_s11_answers_costs_and_reputation():
    """§11 answers: talk 8 h, $1,500, R +0.12, boost; review 6 h, R +0.02 / decline −0.03;
    crisis support 10 h, morale +0.05 / ignore −0.35/ρ; wrong word or non-pending → error."""
    w, api = make_world()
    w.s.events.clear()
    s1 = add_person(w, resilience=0.5)
    talk, rev, rev2 = _event(w, "invited_talk"), _event(w, "review_request"), _event(w, "review_request")
    c1 = _event(w, "student_crisis", student_id=s1.id)
    c2 = _event(w, "student_crisis", student_id=s1.id)
    w.s.rep_impulses = []
    budget0, used0 = w.s.budget, w.s.oneoff_used
    before = w.digest()
    for bad in ("support", "ACCEPT", None, 3):
        with pytest.raises(ActionError) as e:
            api.events.respond(talk.id, bad)
        assert e.value.code == "bad_argument" and w.digest() == before
    with pytest.raises(ActionError) as e:
        api.events.respond("E999", "accept")
    assert e.value.code == "unknown_id"
    assert api.events.respond(talk.id, "accept") == {"ok": True, "event": talk.id, "action": "accept"}
    assert w.s.budget == budget0 - 1500 and w.s.oneoff_used == used0 + 8
    assert w.s.ledger[-1][1:3] == ["travel", -1500.0]
    assert 1 in w.s.boosted_years  # season-year 0 → next is 1
    api.events.respond(rev.id, "accept")
    api.events.respond(rev2.id, "decline")
    assert w.s.oneoff_used == used0 + 14
    api.events.respond(c1.id, "support")
    assert w.s.oneoff_used == used0 + 24 and s1.impulse == pytest.approx(0.05)
    api.events.respond(c2.id, "decline")
    assert c2.status == "ignored" and s1.impulse == pytest.approx(0.05 - 0.35 / 0.5)
    assert [v for _, v in w.s.rep_impulses] == [0.12, 0.02, -0.03]
    with pytest.raises(ActionError) as e:  # answered: no longer pending
        api.events.respond(talk.id, "accept")
    assert e.value.code == "unknown_id"
    # not enough attention for a talk → refused, nothing changes
    t2 = _event(w, "invited_talk")
    w.s.oneoff_used = 95.0
    before = w.digest()
    with pytest.raises(ActionError) as e:
        api.events.respond(t2.id, "accept")
    assert e.value.code == "no_attention" and w.digest() == before


def test_s11_collaboration_reservations_and_delivery():
    """§11: accepting a collaboration in month a reserves 6 h at the open of a+1..a+3 and
    delivers a collaboration draft at the tick of a+3; needs an active lab member."""
    w, api = make_world(seed=5)
    goto_month(w, 4)
    w.s.events.clear()
    ev = _event(w, "collaboration_offer", topic="alignment")
    before = w.digest()
    with pytest.raises(ActionError) as e:
        api.events.respond(ev.id, "accept")
    assert e.value.code == "not_allowed" and w.digest() == before
    add_person(w, "ra")
    api.events.respond(ev.id, "accept")
    assert w.s.oneoff_used == 0
    for m in (5, 6, 7):
        advance(api, 1)
        assert w.s.month == m
        assert w.s.oneoff_used == pytest.approx(6.0)
        assert not [d for d in w.s.drafts.values() if d.collab]
    advance(api, 1)  # tick of 7 delivered it
    assert w.s.oneoff_used == 0.0
    (d,) = [d for d in w.s.drafts.values() if d.collab]
    assert d.created_month == 7 and d.topic == "alignment" and d.authors == []
    assert any(n[1] == "lab" and d.id in n[3] for n in w.s.news)


def test_s11_conference_attendance_gap_cost_and_intel():
    """§11 conference: ≥ 5 months since the last trip, 15 h, $2,500, R +0.06, boost, intel per
    topic from H + N(0, 0.5): > 2.0 very hot, > 1.3 hot, > 0.8 warm, else quiet."""
    w, api = make_world(seed=1)
    h = {t: 1.0 for t in TOPICS}
    h.update(reasoning=100.0, theory=-100.0, embodied=1.05)
    flat_hotness(w, h)
    w.s.rep_impulses = []
    r = api.field.attend_conference()
    assert r["ok"] and set(r["hallway_intel"]) == set(TOPICS)
    assert r["hallway_intel"]["reasoning"] == "very hot" and r["hallway_intel"]["theory"] == "quiet"
    assert set(r["hallway_intel"].values()) <= {"very hot", "hot", "warm", "quiet"}
    assert w.s.oneoff_used == 15 and w.s.ledger[-1][1:3] == ["travel", -2500.0]
    assert w.s.rep_impulses == [["conference", 0.06]] and 1 in w.s.boosted_years
    for m in (2, 5):
        goto_month(w, m)
        with pytest.raises(ActionError) as e:
            api.field.attend_conference()
        assert e.value.code == "wrong_month"
    goto_month(w, 6)
    assert api.field.attend_conference()["ok"]
    # the intel is keyed by month: two worlds agree whatever else happened
    w2, api2 = make_world(seed=1)
    flat_hotness(w2, h)
    api2.lab.dashboard()
    api2.query("select 1")
    assert api2.field.attend_conference()["hallway_intel"] == r["hallway_intel"]
    # the buckets follow H + noise: with H = 1.05 the word is "warm" most of the time
    words = []
    for m in range(1, 400):
        from world.field import conference_intel

        words.append(conference_intel(w2, m)["embodied"])
    assert 0.30 < words.count("warm") / len(words) < 0.55  # P(0.8 < 1.05 + N(0,0.5) ≤ 1.3) ≈ 0.38


def test_s11_hallway_talk_is_heard_again_from_the_action_log():
    """world.field.hallway_talk gives, for each logged conference trip, the very intel the trip's
    reply gave (months 2 and 8 of a standard career), in order; re-hearing it changes nothing in
    the world (same digest after), and a world replayed from the log hears the same."""
    from world.api import replay
    from world.field import hallway_talk

    w, api = make_world(seed=3)
    replies = []
    while w.s.month < 10:
        if w.s.month in (2, 8):
            replies.append({"month": w.s.month, "intel": api.field.attend_conference()["hallway_intel"]})
        api.time.next_month()
    digest = w.digest()
    assert hallway_talk(w) == replies and len(replies) == 2
    assert w.digest() == digest
    assert hallway_talk(replay(w.cfg, w.seed, list(w.s.action_log))) == replies
