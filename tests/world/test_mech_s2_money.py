"""MECHANICS §2 (money, ledger, burn, runway) checked against hand-made worlds."""

from __future__ import annotations

import pytest

from tests.world.mechanics_helpers import add_person, add_project, make_world
from world.api import Api
from world.state import Award


def _award(w, monthly: float, start: int, end: int, aid: str = "A900") -> Award:
    a = Award(
        id=aid,
        agency="AMP",
        total=monthly * (end - start + 1),
        monthly=monthly,
        start_month=start,
        end_month=end,
        proposal_id="PR900",
    )
    w.s.awards[aid] = a
    return a


def test_s2_pay_rows_per_role_at_tick():
    """§2: each active person is paid at the tick: PhD 3,200, postdoc 6,500, RA 1,800, manager 4,500."""
    w = make_world()
    people = [add_person(w, r) for r in ("phd", "postdoc", "ra", "manager")]
    w.next_month()
    rows = [r for r in w.s.ledger if r[0] == 1 and r[1] == "stipend"]
    assert rows == [
        [1, "stipend", -3200.0, people[0].id],
        [1, "stipend", -6500.0, people[1].id],
        [1, "stipend", -1800.0, people[2].id],
        [1, "stipend", -4500.0, people[3].id],
    ]


def test_s2_compute_charged_with_price_multiplier():
    """§2: compute = units × $1 × price multiplier, per active project with units > 0."""
    w = make_world()
    p = add_person(w)
    pj = add_project(w, [p.id], compute=1234.5)
    idle = add_project(w, [p.id], compute=0)
    w.s.compute_mult = 1.3
    w.s.shock_until = 4
    w.next_month()
    rows = [r for r in w.s.ledger if r[1] == "compute"]
    assert rows == [[1, "compute", round(-1234.5 * 1.3, 2), pj.id]]
    assert idle.id not in [r[3] for r in rows]


def test_s2_grant_installments_and_overhead_run_start_to_end():
    """§2/§9: installment award/duration and $600 overhead at ticks start..end inclusive."""
    w = make_world()
    a = _award(w, 10_000.0, start=2, end=3)
    for _ in range(4):
        w.next_month()
    inc = [r for r in w.s.ledger if r[3] == a.id]
    assert inc == [
        [2, "grant_income", 10000.0, a.id],
        [2, "overhead", -600.0, a.id],
        [3, "grant_income", 10000.0, a.id],
        [3, "overhead", -600.0, a.id],
    ]


def test_s2_ledger_sums_to_budget_exactly_with_fractional_amounts():
    """§2: every cash movement is a ledger row, so start budget + Σ ledger = budget.

    Fractional amounts (AMP's 850,000/24 installment, compute × 1.3) must not open a gap
    between the ledger (2 dp) and the budget.
    """
    w = make_world()
    api = Api(w)
    p = add_person(w)
    add_project(w, [p.id], compute=777.777)
    _award(w, 850_000 / 24, start=1, end=24)
    api.recruit.hire_ra()
    api.recruit.post_postdoc()
    w.s.compute_mult = 1.3
    w.s.shock_until = 3
    for _ in range(12):
        w.next_month()
    total = w.cfg.start_budget + sum(r[2] for r in w.s.ledger)
    assert w.s.budget == pytest.approx(total, abs=1e-6)
    assert all(round(r[2], 2) == r[2] for r in w.s.ledger)


def test_s2_burn_and_runway_formula():
    """§2 burn = pay + compute × multiplier + $600 × active awards − Σ their installments; runway = budget/burn.

    PhD 3,200 + postdoc 6,500 + RA 1,800 + manager 4,500 + 1,500 units × 1.3 + 600 − 10,000
    = 8,550. A future award (start next month) does not count yet.
    """
    w = make_world()
    for r in ("phd", "postdoc", "ra", "manager"):
        add_person(w, r)
    add_project(w, [], compute=1500)
    w.s.compute_mult = 1.3
    _award(w, 10_000.0, start=1, end=12)
    _award(w, 50_000.0, start=2, end=12, aid="A901")
    assert w.burn_rate() == pytest.approx(8550.0)
    w.s.budget = 100_000.0
    assert w.runway() == pytest.approx(100_000 / 8550)
    d = Api(w).lab.dashboard()
    assert d["est_monthly_burn"] == 8550
    assert d["runway_months"] == round(100_000 / 8550, 1)


def test_s2_runway_none_when_burn_not_positive():
    """§2: runway is none when burn ≤ 0 (income covers everything)."""
    w = make_world()
    add_person(w, "phd")
    _award(w, 3_800.0, start=1, end=5)  # 3,200 + 600 − 3,800 = 0
    assert w.burn_rate() == pytest.approx(0.0)
    assert w.runway() is None
    assert Api(w).lab.dashboard()["runway_months"] is None


def test_s2_dismissed_or_departed_people_not_in_burn():
    """§2: only active people's pay is in the burn; a person who left costs nothing."""
    w = make_world()
    p = add_person(w, "postdoc")
    q = add_person(w, "phd")
    q.status = "quit"
    assert w.burn_rate() == 6500.0
    p.status = "contract_ended"
    assert w.burn_rate() == 0.0


def test_s2_postdoc_search_fee_is_a_recruiting_row():
    """§2: a postdoc posting costs $1,000 at posting, ledger category ``recruiting``."""
    w = make_world()
    out = Api(w).recruit.post_postdoc()
    assert w.s.ledger[-1] == [1, "recruiting", -1000.0, out["search_id"]]
    assert w.s.budget == 599_000.0


def test_s2_no_cost_to_start_hire_or_offer():
    """§2: starting a project, hiring and making offers cost no money at the time."""
    w = make_world()
    api = Api(w)
    app = next(iter(w.s.applicants.values()))
    api.recruit.offer(app.id)
    ra = api.recruit.hire_ra()["staff_id"]
    api.projects.start("theory", 1, [ra], 500)
    assert w.s.budget == 600_000.0 and w.s.ledger == []
