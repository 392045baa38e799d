"""MECHANICS §3 (attention) checked against hand-made worlds, plus §18 invariant 5."""

from __future__ import annotations

import pytest

from tests.world.mechanics_helpers import add_person, make_world
from world import people as people_mod
from world.api import ActionError, Api


@pytest.mark.parametrize(
    "researchers, ras, managers, tax",
    [
        (0, 0, 0, 0.0),
        (3, 2, 0, 3 * 4 + 2 * 1.5),  # per = 4
        (3, 2, 1, 3 * 2 + 2 * 1.5),  # per = max(1, 4 − 2) = 2
        (3, 2, 2, 3 * 1 + 2 * 1.5),  # per = max(1, 0) = 1
        (5, 0, 2, 5.0),
    ],
)
def test_s3_oversight_tax_with_managers_and_ras(researchers, ras, managers, tax):
    """§3: oversight = per × (#PhD+postdoc) + 1.5 × #RAs, per = max(1, 4 − 2 × #managers)."""
    w = make_world()
    for i in range(researchers):
        add_person(w, "phd" if i % 2 else "postdoc")
    for _ in range(ras):
        add_person(w, "ra")
    for _ in range(managers):
        add_person(w, "manager")
    assert people_mod.oversight_tax(w) == pytest.approx(tax)
    assert people_mod.attention_pool(w) == pytest.approx(100 - tax)


def test_s3_departed_people_cost_no_oversight():
    """§3: the pool is recomputed live from the *active* headcount."""
    w = make_world()
    a = add_person(w)
    add_person(w)
    assert people_mod.attention_pool(w) == 92
    a.status = "quit"
    assert people_mod.attention_pool(w) == 96


@pytest.mark.parametrize(
    "month, pool", [(7, 76.0), (19, 76.0), (31, 76.0), (43, 76.0), (55, 76.0), (6, 88.0), (8, 88.0), (1, 88.0)]
)
def test_s3_service_tax_month(month, pool):
    """§3: 12 h service tax when m mod 12 = 7 (months 7, 19, 31, 43, 55)."""
    w = make_world()
    for _ in range(3):
        add_person(w)
    w.s.month = month
    assert people_mod.attention_pool(w) == pool


def test_s3_pool_floor_applies_after_service_tax():
    """§3: pool = max(30, 100 − oversight − service tax)."""
    w = make_world(researcher_cap=100)
    for _ in range(16):
        add_person(w)  # oversight 64 → 36 h; in month 7 → 24 h → floored at 30
    assert people_mod.attention_pool(w) == 36
    w.s.month = 7
    assert people_mod.attention_pool(w) == 30
    for _ in range(10):
        add_person(w)
    w.s.month = 2
    assert people_mod.attention_pool(w) == 30


def test_s3_left_is_pool_minus_mentoring_minus_oneoff():
    """§3: left = pool − Σ standing mentoring of active people − one-off used."""
    w = make_world()
    add_person(w, mentoring=5.5)
    add_person(w, mentoring=4.0)
    gone = add_person(w, mentoring=9.0)
    gone.status = "graduated"
    w.s.oneoff_used = 10.0
    # two active researchers: oversight 8 (the graduate no longer counts)
    assert people_mod.attention_left(w) == pytest.approx(92 - 9.5 - 10)
    d = Api(w).lab.attention()
    assert d == {
        "base": 100.0,
        "oversight_tax": 8.0,
        "pool": 92.0,
        "mentoring_reserved": 9.5,
        "oneoff_used": 10.0,
        "left": 72.5,
    }


def test_s3_charge_refusal_states_need_left_pool_mentoring_used():
    """§3: more hours than left → error naming need, left, pool, mentoring, used; nothing changes."""
    w = make_world()
    api = Api(w)
    add_person(w, mentoring=40.0)
    add_person(w, mentoring=40.0)  # pool 92, left 12
    with pytest.raises(ActionError) as e:
        api.field.attend_conference()
    msg = e.value.message
    assert e.value.code == "no_attention"
    for part in ("15 h", "12.00 h", "pool 92.00", "mentoring 80.00", "used 0.00"):
        assert part in msg
    assert w.s.oneoff_used == 0.0 and w.s.budget == 600_000.0 and w.s.ledger == []
    assert w.s.last_conference_month is None


def test_s3_charge_exactly_left_is_accepted_and_negative_refused():
    """§3: charging exactly what is left works (1e-9 tolerance); negative hours are refused."""
    w = make_world()
    api = Api(w)
    add_person(w, mentoring=36.0)  # pool 96 → 60 left
    w.s.oneoff_used = 45.0  # 15 h left
    api.field.attend_conference()
    assert people_mod.attention_left(w) == pytest.approx(0.0)
    ns = api.papers
    with pytest.raises(ActionError) as e:
        ns._check_hours(-1.0, "test")
    assert e.value.code == "bad_argument"


def test_s3_mid_month_hire_can_push_left_below_zero():
    """§3: hiring mid-month raises oversight live and may leave ``left`` below 0 without error."""
    w = make_world()
    api = Api(w)
    add_person(w, mentoring=40.0)  # pool 96
    w.s.oneoff_used = 56.0  # left 0
    api.recruit.hire_ra()
    assert api.lab.attention()["left"] == -1.5
    with pytest.raises(ActionError):
        api.field.attend_conference()


def test_s3_set_mentoring_errors_and_partial_dicts():
    """§3/§15: mentoring in [0, 40] per active person; total + one-off ≤ pool; others keep theirs."""
    w = make_world()
    api = Api(w)
    a = add_person(w)
    b = add_person(w)  # pool 92
    assert api.students.set_mentoring({a.id: 30})["mentoring_total"] == 30
    assert api.students.set_mentoring({b.id: 20})["mentoring_total"] == 50
    assert a.mentoring == 30
    with pytest.raises(ActionError):
        api.students.set_mentoring({a.id: 40.5})
    with pytest.raises(ActionError):
        api.students.set_mentoring({a.id: -1})
    b.status = "quit"
    with pytest.raises(ActionError):
        api.students.set_mentoring({b.id: 1})
    w.s.oneoff_used = 50.0  # pool now 96 (one researcher): 96 − 50 = 46 for mentoring
    api.students.set_mentoring({a.id: 40})  # fits: 40 + 50 ≤ 96
    assert a.mentoring == 40.0
    c = add_person(w)  # pool 92 − 50 = 42 left for mentoring; 40 already
    with pytest.raises(ActionError) as e2:
        api.students.set_mentoring({c.id: 3})
    assert e2.value.code == "no_attention"
    assert c.mentoring == 0.0


def test_s3_dismissed_staff_mentoring_stops_counting_after_tick():
    """§3: only active people's mentoring counts; a dismissed RA's hours are released after the tick."""
    w = make_world()
    api = Api(w)
    ra = api.recruit.hire_ra()["staff_id"]
    api.students.set_mentoring({ra: 10})
    api.recruit.dismiss(ra)
    assert api.lab.attention()["mentoring_reserved"] == 10
    w.next_month()
    assert api.lab.attention()["mentoring_reserved"] == 0


def test_s18_inv5_attention_budget_month_1():
    """§18 invariant 5: month 1, no staff: 200 h proposal refused; 90 h TIF succeeds; 15 h conference refused."""
    w = make_world()
    api = Api(w)
    with pytest.raises(ActionError) as e:
        api.grants.propose("TIF-rolling", "reasoning", 200)
    assert e.value.code == "no_attention"
    out = api.grants.propose("TIF-rolling", "reasoning", 90)
    assert out["ok"] is True
    assert api.lab.attention()["left"] == 10
    with pytest.raises(ActionError) as e:
        api.field.attend_conference()
    assert e.value.code == "no_attention"


def test_s3_unlimited_attention_ablation_has_no_service_tax():
    """§17 ablation / §3: unlimited attention = 1e6 h base, no service tax."""
    w = make_world(unlimited_attention=True)
    add_person(w)
    w.s.month = 7
    assert people_mod.attention_pool(w) == 1e6 - 4


def test_s3_attention_totals_equal_oversight_pool_and_mentoring_reserved():
    """``attention_totals`` (used by the tick and the API) gives exactly
    ``oversight_tax``, ``attention_pool`` and ``mentoring_reserved`` for a mixed lab with a
    departed member and uneven mentoring."""
    w = make_world()
    people = [add_person(w, role) for role in ("phd", "postdoc", "ra", "manager", "phd")]
    for p, h in zip(people, (2.5, 0.1, 0.0, 0.0, 3.3), strict=True):
        p.mentoring = h
    people[4].status = "quit"
    oversight, pool, reserved = people_mod.attention_totals(w)
    assert (oversight, pool, reserved) == (
        people_mod.oversight_tax(w),
        people_mod.attention_pool(w),
        people_mod.mentoring_reserved(w),
    )
    assert reserved == 2.5 + 0.1
    w.s.people.clear()
    assert people_mod.attention_totals(w) == (0, people_mod.attention_pool(w), 0)
