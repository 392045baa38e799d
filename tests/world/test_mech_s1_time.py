"""MECHANICS §1 (time loop) checked against hand-made worlds."""

from __future__ import annotations

import pytest

from tests.world.mechanics_helpers import add_person, add_project, make_world
from world.api import ActionError, Api
from world.engine import SimulationOver


def test_s1_construction_opens_month_1_without_field_step():
    """§1 construction: month 1 uses trajectory[1], initial crowding, climate 1.0, multiplier 1.0."""
    w = make_world(seed=3, quiet=False)
    s = w.s
    assert s.month == 1 and not s.finished
    assert s.climate == 1.0 and s.compute_mult == 1.0
    h0 = w.cfg.hotness0()
    assert s.crowding == [max(0.4, 0.8 * h) for h in h0]
    assert list(w.hotness_now().values()) == s.trajectory[1]
    assert s.oneoff_used == 0.0
    # the pool of season 0 exists at the open of month 1
    assert any(a.season_year == 0 for a in s.applicants.values())


def test_s1_tick_runs_steps_in_order_money_before_projects_before_people():
    """§1 order: pay is booked (step 1) before a quit (step 7); a quitter is paid for the month."""
    w = make_world(quit_p_max=0.25, quit_center=1.0)  # morale far below the centre: p = 0.25
    p = add_person(w, "phd", morale=0.0)
    pj = add_project(w, [p.id], compute=0)
    # force the quit: try months until the person quits (keyed draw, deterministic)
    for _ in range(40):
        before = w.s.month
        w.next_month()
        if p.status == "quit":
            break
    assert p.status == "quit"
    rows = [r for r in w.s.ledger if r[0] == before and r[1] == "stipend" and r[3] == p.id]
    assert rows == [[before, "stipend", -3200.0, p.id]]
    assert p.left_month == before
    assert p.id not in pj.members  # removed from projects, progress kept
    assert pj.progress > 0
    # no pay after the quit month
    w.next_month()
    assert not [r for r in w.s.ledger if r[0] > before and r[3] == p.id]


def test_s1_collapse_only_when_budget_strictly_below_zero():
    """§1 step 12: budget exactly 0 at the tick is not a collapse; −0.01 is, and the month stays."""
    w = make_world()
    w.s.budget = 0.0
    w.next_month()
    assert not w.s.collapsed and w.s.month == 2
    w.s.budget = -0.01
    w.next_month()
    assert w.s.collapsed and w.s.finished
    assert w.s.collapse_month == 2 and w.s.month == 2
    with pytest.raises(SimulationOver, match="simulation is over"):
        w.next_month()


def test_s1_collapse_from_tick_spending():
    """§1/§2: money flows at the tick can push the budget below 0 → collapsed at that month."""
    w = make_world()
    add_person(w, "postdoc")
    w.s.budget = 6_000.0  # less than one postdoc month
    w.next_month()
    assert w.s.collapsed and w.s.collapse_month == 1 and w.s.month == 1
    assert w.s.budget == pytest.approx(-500.0)


def test_s1_budget_may_go_negative_during_month_only_tick_checks():
    """§1: API spending may push the budget below 0 mid-month; nothing happens until the tick."""
    w = make_world()
    api = Api(w)
    w.s.budget = 500.0
    api.recruit.post_postdoc()  # $1,000
    assert w.s.budget == -500.0 and not w.s.finished
    api.lab.dashboard()
    assert not w.s.finished
    api.time.next_month()
    assert w.s.collapsed


def test_s1_horizon_finishes_without_advancing():
    """§1 step 13: at m ≥ months the career finishes and the month stays; later ticks refused."""
    w = make_world(months=3)
    w.next_month()
    w.next_month()
    assert w.s.month == 3 and not w.s.finished
    w.next_month()
    assert w.s.finished and not w.s.collapsed and w.s.month == 3
    with pytest.raises(SimulationOver, match="simulation is over"):
        w.next_month()
    api = Api(w)
    with pytest.raises(ActionError) as e:
        api.time.next_month()
    assert "simulation is over" in e.value.message
    # stats recorded for every ticked month exactly once
    assert [r["month"] for r in w.s.lab_monthly] == [1, 2, 3]


def test_s1_nothing_changes_after_the_end():
    """§1: after the horizon every mutating call is refused and the state digest is unchanged."""
    w = make_world(months=2)
    api = Api(w)
    w.next_month()
    w.next_month()
    digest = w.digest()
    for call in (lambda: api.recruit.hire_ra(), lambda: api.recruit.post_postdoc(), lambda: api.time.next_month()):
        with pytest.raises(ActionError):
            call()
    assert w.digest() == digest


def test_s1_month_open_resets_one_off_attention():
    """§1/§3: one-off hours reset to 0 at month open; unspent hours vanish."""
    w = make_world()
    w.s.oneoff_used = 55.0
    w.next_month()
    assert w.s.oneoff_used == 0.0


def test_s1_month_open_adds_collaboration_reservations_then_rescales_mentoring():
    """§1 open / §3: reservations (6 h) are added, then mentoring rescaled to pool − one-off, 2 dp.

    Three PhDs (oversight 12 h), month 7: pool 100 − 12 − 12 = 76; reservation 6 h → 70 h
    available for 87 h of mentoring → each 29 × 70/87 = 23.33.
    """
    w = make_world()
    people = [add_person(w, "phd", mentoring=29.0) for _ in range(3)]
    w.s.month = 6
    w.s.collab_reservations.append([7, "E999"])
    w.next_month()
    assert w.s.month == 7
    assert w.s.oneoff_used == 6.0
    assert [p.mentoring for p in people] == [round(29.0 * 70 / 87, 2)] * 3
    assert w.s.collab_reservations == []


def test_s1_no_rescale_when_mentoring_fits():
    """§3: mentoring that still fits the pool is left untouched at month open."""
    w = make_world()
    p = add_person(w, "phd", mentoring=33.3)
    w.next_month()
    assert p.mentoring == 33.3


def test_s1_dismissal_takes_effect_at_next_tick_and_is_paid():
    """Decisions §1 / §1 step 1: a dismissed RA is overseen and paid this month, gone after the tick."""
    w = make_world()
    api = Api(w)
    ra = api.recruit.hire_ra()["staff_id"]
    api.recruit.dismiss(ra)
    assert w.s.people[ra].status == "active"
    assert api.lab.attention()["pool"] == 100 - 1.5
    w.next_month()
    assert w.s.people[ra].status == "dismissed" and w.s.people[ra].left_month == 1
    assert [r for r in w.s.ledger if r[3] == ra] == [[1, "stipend", -1800.0, ra]]
    assert api.lab.attention()["pool"] == 100
    w.next_month()
    assert [r for r in w.s.ledger if r[3] == ra] == [[1, "stipend", -1800.0, ra]]


def test_s1_manager_hire_and_dismiss_buys_nothing_for_free():
    """Decisions §1: hiring a manager and dismissing it before the tick still costs its pay."""
    w = make_world()
    api = Api(w)
    for _ in range(2):
        add_person(w, "phd")
    assert api.lab.attention()["pool"] == 92
    mgr = api.recruit.hire_manager()["staff_id"]
    assert api.lab.attention()["pool"] == 96
    api.recruit.dismiss(mgr)
    assert api.lab.attention()["pool"] == 96  # relief only for the month actually paid
    start = w.s.budget
    w.next_month()
    assert [r for r in w.s.ledger if r[3] == mgr] == [[1, "stipend", -4500.0, mgr]]
    assert w.s.budget == pytest.approx(start - 4500 - 2 * 3200)
    assert api.lab.attention()["pool"] == 92


def test_s1_rescale_sees_this_tick_arrivals():
    """§1/§3: PhDs joining at the tick of month 4 raise month 5's oversight before the rescale.

    Three PhDs with 29 h each (87 h ≤ pool 88); one arrival → pool 84 → 29 × 84/87 = 28.0.
    """
    w = make_world()
    people = [add_person(w, "phd", mentoring=29.0) for _ in range(3)]
    app = next(iter(w.s.applicants.values()))
    app.status = "accepted"
    w.s.month = 4
    w.s.budget = 1e9
    w.next_month()
    assert app.status == "joined" and w.s.month == 5
    assert [p.mentoring for p in people] == [round(29.0 * 84 / 87, 2)] * 3
