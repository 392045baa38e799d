"""Pivot decisions and their truth from the world alone (PIVOTS.md; world/pivots.py)."""

from __future__ import annotations

import pytest

from tests.world.test_branches import _played
from world.pivots import KIND_CALLS, find_decisions, keep, play_out, rollout, truth


@pytest.fixture(scope="module")
def fork_world():  # noqa: ANN201
    """A baseline career at the start of month 2 (the recruiting season is open)."""
    return _played(101, 2)


def test_decisions_are_valid_at_the_fork_and_say_nothing_hidden(fork_world) -> None:  # noqa: ANN001
    """Every decision found has two plans whose calls are accepted at the fork, a kind and a
    capability; the texts name observable signals only (no ability, quality or hotness value)."""
    ds = find_decisions(fork_world)
    assert {d.kind for d in ds} >= {"hiring", "staffing", "spending"}
    for d in ds:
        assert d.capability
        for plan in (d.a, d.b):
            for ns, method, _ in plan.calls:
                assert f"{ns}.{method}" in KIND_CALLS[d.kind]
            text = plan.text.lower()
            assert "ability" not in text and "quality" not in text and "hotness" not in text
    hiring = next(d for d in ds if d.kind == "hiring")
    assert "transcript" in hiring.a.text and hiring.a.calls != hiring.b.calls
    with pytest.raises(ValueError, match="unknown decision kind.*valid: hiring"):
        find_decisions(fork_world, ["gardening"])


def test_first_of_kind_gives_each_kinds_first_decision(fork_world) -> None:  # noqa: ANN001
    """``first_of_kind`` (what a build's survey asks: which kinds are open) gives the first
    valid decision of each kind of the full search, in the same order, and no other."""
    every = find_decisions(fork_world)
    first: dict[str, object] = {}
    for d in every:
        first.setdefault(d.kind, d)
    assert len(every) > len(first)  # a kind with more than one decision here: something to leave out
    assert find_decisions(fork_world, first_of_kind=True) == list(first.values())


def test_the_continuation_policy_leaves_the_decision_alone_in_the_fork_month(fork_world) -> None:  # noqa: ANN001
    """After plan B of the hiring decision (two offers), the fork month's action log holds
    those offers and no other: the continuation policy's own offers were skipped that month; later
    months play normally."""
    d = next(d for d in find_decisions(fork_world) if d.kind == "hiring")
    w = play_out(fork_world, d.b, d.kind, 3)
    month = fork_world.s.month
    offers = [row for row in w.s.action_log if row[0] == month and row[1] == "recruit.offer"]
    assert [row[2] for row in offers] == [dict(c[2]) for c in d.b.calls]


def test_rollouts_are_reproducible_and_truth_is_paired(fork_world) -> None:  # noqa: ANN001
    """The same (plan, branch) gives the same Impact; the truth's key agrees with its own
    numbers (better = sign of Δ, Δ = mean of per-branch differences, Δ inside the interval)."""
    d = next(d for d in find_decisions(fork_world) if d.kind == "staffing")
    assert rollout(fork_world, d.a, d.kind, 2) == rollout(fork_world, d.a, d.kind, 2)
    t = truth(fork_world, d, [1, 2, 3])
    key = t.key()
    diffs = [a - b for a, b in zip(key["impact"]["A"], key["impact"]["B"], strict=True)]
    assert key["delta"] == pytest.approx(sum(diffs) / 3)
    assert key["better"] == ("A" if key["delta"] > 0 else "B")
    assert key["ci"][0] <= key["delta"] <= key["ci"][1]
    assert isinstance(keep(t), bool)


def test_hiring_and_grants_pair_plans_two_ways_each_named_by_its_variant(fork_world) -> None:  # noqa: ANN001
    """Hiring: two offers to the best-signal applicants against the two weakest, and against
    no offer; grants: a careful 40 h proposal to the call against a quick 5 h one, and against
    letting it pass. Each pair has its own variant (case ids differ), its plans differ, and the
    texts say what the PI weighs (signals, hours, the budget)."""
    ds = find_decisions(fork_world, ["hiring", "grants"])
    by = {(d.kind, d.variant): d for d in ds}
    assert set(by) == {("hiring", ""), ("hiring", "none"), ("grants", ""), ("grants", "none")}
    signals, none = by["hiring", ""], by["hiring", "none"]
    assert len(signals.a.calls) == len(signals.b.calls) == 2
    assert not {c[2]["applicant_id"] for c in signals.a.calls} & {c[2]["applicant_id"] for c in signals.b.calls}
    assert none.a.calls == signals.a.calls and none.b.calls == () and "budget" in none.question
    careful, quick = by["grants", ""].a, by["grants", ""].b
    assert careful.calls[0][2]["hours"] == 40.0 and quick.calls[0][2]["hours"] == 5.0
    assert by["grants", "none"].a == careful and by["grants", "none"].b.calls == ()
    assert "40-hour" in careful.text and "5-hour" in quick.text


@pytest.mark.parametrize(("seed", "month", "target"), [(3, 14, 6000.0), (7, 50, 0.0)])
def test_spending_weighs_the_projects_compute_against_the_runway(seed: int, month: int, target: float) -> None:
    """With active projects, the spending question is their compute: with a long runway (66
    months) raise every project to 6,000 units a month, with a short one (23 months) cut it to
    0, against keeping it; the text names the projects, the change and the runway."""
    world = _played(seed, month)
    (d,) = find_decisions(world, ["spending"])
    assert d.a.calls and {c[1] for c in d.a.calls} == {"set_compute"}
    assert {c[2]["monthly_compute"] for c in d.a.calls} == {target}
    assert d.b.calls == () and "Keep compute" in d.b.text
    assert "runway" in d.question and "PJ" in d.question


def test_finder_generation_1_keeps_the_first_dev_sets_pairs(fork_world) -> None:  # noqa: ANN001
    """Generation 1 (which the shipped dev set was built with) still pairs one offer to the
    best transcript against one to the worst, a 20 h proposal against none and a conference
    trip against none; an unknown generation is refused naming the valid ones."""
    by = {d.kind: d for d in find_decisions(fork_world, ["hiring", "grants", "spending"], generation=1)}
    assert len(by["hiring"].a.calls) == len(by["hiring"].b.calls) == 1
    assert by["grants"].a.calls[0][2]["hours"] == 20 and by["grants"].b.calls == ()
    assert by["spending"].a.calls == (("field", "attend_conference", {}),)
    with pytest.raises(ValueError, match="unknown finder generation 3; valid: 1, 2"):
        find_decisions(fork_world, ["hiring"], generation=3)


def test_a_grants_decision_late_in_a_career_is_found_only_when_the_runway_ends_before_the_horizon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seed 30's baseline lab has about three months of runway at month 46: the rolling TIF
    call (decision 2 months after applying) pays for fewer than GRANT_MONTHS_LEFT months before
    the horizon but at least GRANT_MONTHS_LEFT_SHORT, so it is a grants decision (it can keep
    the lab from running out of money); with the long-runway rule alone there is none."""
    import world.pivots as wp

    world = _played(30, 46)
    found = [d for d in find_decisions(world, ["grants"]) if "TIF-rolling" in d.question]
    assert found and all("months of runway" in d.question for d in found)
    monkeypatch.setattr(wp, "GRANT_MONTHS_LEFT_SHORT", wp.GRANT_MONTHS_LEFT)
    assert find_decisions(world, ["grants"]) == []


def test_two_pairs_sharing_a_plan_play_it_once_per_branch_with_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a cache shared by a fork's decisions, a plan (its calls, under one kind) that two
    pairs share is played once per branch, and each pair's truth is what it is without the
    cache (a rollout depends on the calls, the kind, the branch and the policy only)."""
    import world.pivots as wp

    played: list[tuple[str, int]] = []

    def fake_rollout(world, plan, kind, branch, policy="baseline"):  # noqa: ANN001, ANN202
        played.append((plan.code, branch))
        return (float(len(plan.code) * branch), branch == 2, frozenset({"recruit.offer"}))

    monkeypatch.setattr(wp, "rollout_calls", fake_rollout)
    offer = (("recruit", "offer", {"applicant_id": "APP001"}),)
    other = (("recruit", "offer", {"applicant_id": "APP002"}),)
    first = wp.Decision("hiring", "q", wp.Plan("best", offer), wp.Plan("weakest", other))
    second = wp.Decision("hiring", "q", wp.Plan("best, said otherwise", offer), wp.Plan("none"), variant="none")
    alone = [wp.truth("fork", d, [1, 2, 3]) for d in (first, second)]
    played.clear()
    cache: dict = {}
    shared = [wp.truth("fork", d, [1, 2, 3], cache=cache) for d in (first, second)]
    assert len(played) == 9 and len(set(played)) == 9  # 12 without the cache
    assert [(t.impact, t.collapsed) for t in shared] == [(t.impact, t.collapsed) for t in alone]


def test_empty_plans_of_kinds_the_continuation_left_alone_share_its_rollouts(
    fork_world, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """An empty plan ("hire nobody", "keep compute as it is") is the continuation alone where
    the policy makes no call of the decision's kind in the fork month: with a fork's cache the
    staffing and spending pairs play it once per branch, and each pair's truth is exactly
    what it is played on its own."""
    import world.pivots as wp

    decisions = [d for d in find_decisions(fork_world, ("staffing", "spending")) if not d.b.calls]
    assert sorted(d.kind for d in decisions) == ["spending", "staffing"]
    alone = [truth(fork_world, d, [1, 2]) for d in decisions]
    played: list[tuple[str, str, int]] = []
    real = wp.rollout_calls

    def counted(world, plan, kind, branch, policy="baseline"):  # noqa: ANN001, ANN202
        played.append((plan.code, kind, branch))
        return real(world, plan, kind, branch, policy)

    monkeypatch.setattr(wp, "rollout_calls", counted)
    cache: dict = {}
    shared = [truth(fork_world, d, [1, 2], cache=cache) for d in decisions]
    assert len(played) == 6  # 8 without sharing: the second kind's empty plan is not played again
    assert [(t.impact, t.collapsed) for t in shared] == [(t.impact, t.collapsed) for t in alone]
