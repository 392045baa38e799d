"""bench/goals.py's arithmetic (machine factors, scaled goals, verdicts, the estimate against
the original, the head-count exponent) with given numbers, and its refusal of a missing
anchor. No timing: the figures themselves are printed by the benchmark, never asserted."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GOALS_PY = Path(__file__).resolve().parents[2] / "bench" / "goals.py"


def _goals() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_goals_under_test", GOALS_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


goals = _goals()


def test_machine_factor_is_the_anchor_now_over_the_issues_figure() -> None:
    """A point figure gives one factor (1.19 ms now against the issue's 0.34 ms: 3.5x); a
    range gives a range whose low end divides by the range's high end (96 ms against 12-16
    ms: 6x to 8x); a zero figure is refused."""
    assert goals.machine_factor(1.19, 0.34) == pytest.approx((3.5, 3.5))
    assert goals.machine_factor(96.0, (12.0, 16.0)) == pytest.approx((6.0, 8.0))
    with pytest.raises(ValueError, match="positive"):
        goals.machine_factor(0.0, 0.34)


def test_scaled_goal_multiplies_low_with_low_and_high_with_high() -> None:
    """The issue's 4 ms autosave goal at a 6-8x factor is 24-32 ms today; a goal that is
    itself a range (0.086-0.102 ms) scales end by end."""
    assert goals.scaled_goal(4.0, (6.0, 8.0)) == pytest.approx((24.0, 32.0))
    assert goals.scaled_goal((0.086, 0.102), (3.5, 3.5)) == pytest.approx((0.301, 0.357))


def test_verdict_needs_the_whole_range_to_say_met() -> None:
    """An upper-bound goal of 24-32 is met at 24, borderline at 30, not met above 32; a
    lower-bound goal reads the other way."""
    assert goals.verdict(24.0, (24.0, 32.0)) == "met"
    assert goals.verdict(30.0, (24.0, 32.0)) == "borderline"
    assert goals.verdict(32.1, (24.0, 32.0)) == "NOT met"
    assert goals.verdict(5.0, (4.0, 5.0), at_most=False) == "met"
    assert goals.verdict(4.5, (4.0, 5.0), at_most=False) == "borderline"
    assert goals.verdict(3.9, (4.0, 5.0), at_most=False) == "NOT met"


def test_ratio_to_the_original_chains_the_side_by_side_ratio_with_the_issues() -> None:
    """Ours 4x faster than the first release side by side, the first release 0.34 ms where
    the original took 0.43-0.51 ms: ours is 5.06-6.0x faster than the original."""
    lo, hi = goals.ratio_to_original(1.2, 0.3, (0.43 / 0.34, 0.51 / 0.34))
    assert (lo, hi) == pytest.approx((4 * 0.43 / 0.34, 4 * 0.51 / 0.34))
    assert lo == pytest.approx(5.0588, abs=1e-3)


def test_the_baseline_goal_in_ms_agrees_with_the_ratio_to_the_original() -> None:
    """The baseline row's two readings agree: ours within the scaled goal (the original's
    time / 5 times the compute factor) exactly when the estimated ratio to the original is
    at least 5, at each end of the original's range."""
    anchor_now, issue_anchor, orig = 1.19, 0.34, (0.43, 0.51)
    factor = goals.machine_factor(anchor_now, issue_anchor)
    goal = goals.scaled_goal((orig[0] / 5, orig[1] / 5), factor)
    for ours in (0.25, 0.3009, 0.3011, 0.3569, 0.3571):
        est = goals.ratio_to_original(anchor_now, ours, [o / issue_anchor for o in orig])
        assert (ours <= goal[0]) == (est[0] >= 5 - 1e-12)
        assert (ours <= goal[1]) == (est[1] >= 5 - 1e-12)


def test_fit_exponent_finds_the_power_of_a_power_law() -> None:
    """Costs growing as n**1.5 fit an exponent of 1.5, linear costs with a fixed part fit
    below 1, and one size alone is refused."""
    ns = [10, 50, 200, 500, 1000, 2000]
    assert goals.speed.fit_exponent(ns, [3e-6 * n**1.5 for n in ns]) == pytest.approx(1.5)
    assert goals.speed.fit_exponent(ns, [1e-3 + 2e-5 * n for n in ns]) < 1.0
    with pytest.raises(ValueError):
        goals.speed.fit_exponent([10], [1.0])


def test_extrapolate_counts_the_fixed_part_once() -> None:
    """Through a 2-seed run of 1.0 s and a 1,000-seed run of 50.9 s (0.05 s a seed, 0.9 s
    fixed) 10,000 seeds take 500.9 s, not ten times 50.9; a run of the wanted size is taken
    as it is; a big run no bigger than the small one is refused."""
    total, fixed = goals.extrapolate((2, 1.0), (1000, 50.9), 10_000)
    assert (total, fixed) == pytest.approx((500.9, 0.9))
    assert goals.extrapolate((2, 1.0), (10_000, 480.0), 10_000)[0] == 480.0
    with pytest.raises(ValueError):
        goals.extrapolate((2, 1.0), (2, 1.0), 10_000)


def test_a_missing_anchor_is_refused_with_the_fix(tmp_path: Path) -> None:
    """Without the first release in the history (a fresh repository stands in for a shallow
    clone) the anchor is refused with a message naming both fixes; a folder that is no
    pibench checkout is refused as --anchor."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    with pytest.raises(goals.AnchorError, match="not in this repository's history") as err:
        goals.anchor_checkout(None, tmp_path, root=repo)
    assert "git fetch --unshallow" in str(err.value) and "--anchor PATH" in str(err.value)
    with pytest.raises(goals.AnchorError, match="not a pibench checkout"):
        goals.anchor_checkout(str(repo), tmp_path)
