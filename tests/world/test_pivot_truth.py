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


def test_the_continuation_policy_leaves_the_decision_alone_in_the_fork_month(fork_world) -> None:  # noqa: ANN001
    """After plan B of the hiring decision (one offer), the fork month's action log holds that
    offer and no other: the continuation policy's own offers were skipped that month; later
    months play normally."""
    d = next(d for d in find_decisions(fork_world) if d.kind == "hiring")
    w = play_out(fork_world, d.b, d.kind, 3)
    month = fork_world.s.month
    offers = [row for row in w.s.action_log if row[0] == month and row[1] == "recruit.offer"]
    assert [row[2] for row in offers] == [dict(d.b.calls[0][2])]


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
