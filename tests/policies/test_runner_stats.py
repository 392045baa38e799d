"""The runner's statistics, seeds parsing and parallel runs (issue 4)."""

from __future__ import annotations

import math

import pytest

from world.config import WorldConfig
from world.policies import BaselineConfig
from world.runner import SeedGroup, paired_ratios, parse_seeds, run_groups, run_seeds, summarize


def _rows(impacts, collapses=()):
    return [
        {
            "seed": i + 1,
            "impact": x,
            "collapse_month": (30 if i in collapses else None),
            "papers": i,
            "top_papers": 0,
            "grants_won": 1,
            "grant_dollars": 1000.0 * i,
        }
        for i, x in enumerate(impacts)
    ]


def test_summary_matches_a_hand_computation():
    """Impacts 0, 3, 8, 24: mean 8.75; median 5.5; geomean of Impact+1 = (1·4·9·25)^(1/4)
    = 900^(1/4) ≈ 5.4772; sample std = sqrt(((−8.75)² + (−5.75)² + (−0.75)² + 15.25²)/3)
    = sqrt(342.75/3) ≈ 10.6888; one collapse."""
    s = summarize(_rows([0.0, 3.0, 8.0, 24.0], collapses=(1,)))
    assert s["n"] == 4
    assert s["mean"] == pytest.approx(8.75)
    assert s["median"] == pytest.approx(5.5)
    assert s["geomean"] == pytest.approx(900**0.25)
    assert s["std"] == pytest.approx(math.sqrt(342.75 / 3))
    assert s["collapses"] == 1
    assert s["papers"] == pytest.approx(1.5) and s["grant_dollars"] == pytest.approx(1500.0)


def test_summary_of_one_and_none():
    """The summary of one row has a standard deviation of 0 (not NaN), and the summary of no rows
    has n = 0."""
    assert summarize(_rows([7.0]))["std"] == 0.0
    assert summarize([])["n"] == 0


def test_paired_ratio_is_per_seed_of_impact_plus_one():
    """Paired ratios are (Impact + 1)/(other Impact + 1) seed by seed, and row lists of different
    lengths are refused."""
    a, b = _rows([0.0, 9.0]), _rows([3.0, 4.0])
    assert paired_ratios(a, b) == [pytest.approx(4.0), pytest.approx(0.5)]
    with pytest.raises(ValueError):
        paired_ratios(a, _rows([1.0]))


@pytest.mark.parametrize(
    "text,seeds", [("101,102,103", [101, 102, 103]), ("1-5", [1, 2, 3, 4, 5]), ("1-3,9", [1, 2, 3, 9]), ("7", [7])]
)
def test_parse_seeds(text, seeds):
    """Seed lists parse as comma lists, inclusive ranges, mixes of both and single seeds, in the
    order given."""
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "5-1", "1-", "-3", "1,,x"])
def test_parse_seeds_refuses_junk(text):
    """Empty text, non-numbers, reversed or open-ended ranges and empty items raise ValueError."""
    with pytest.raises(ValueError):
        parse_seeds(text)


def test_parallel_rows_identical_to_serial():
    """--jobs 2 gives exactly the rows of --jobs 1, in seed order."""
    seeds = [103, 101, 102, 104]
    for policy in ("baseline", "oracle"):
        assert run_seeds(policy, seeds, jobs=2) == run_seeds(policy, seeds, jobs=1)


def test_one_worker_pool_serves_every_group_with_identical_rows():
    """Several groups (other policies, another world config, a baseline config) on one pool
    of 2 workers, one career a task, give each group's rows of ``--jobs 1`` in seed order,
    and report every career once under its group's index."""
    groups = [
        SeedGroup("baseline", (102, 101)),
        SeedGroup("hire-max", (101,), WorldConfig(months=12)),
        SeedGroup("baseline", (101, 103), WorldConfig(months=18), BaselineConfig()),
        SeedGroup("do-nothing", ()),
    ]
    seen: list[tuple[int, int]] = []
    got = run_groups(groups, jobs=2, progress=lambda i, row: seen.append((i, row["seed"])), chunk=1)
    want = [[run_seeds(g.policy, [s], g.config, baseline_config=g.baseline_config)[0] for s in g.seeds] for g in groups]
    assert got == want
    assert [[r["months"] for r in rows] for rows in got][1] == [12]
    assert sorted(seen) == sorted((i, s) for i, g in enumerate(groups) for s in g.seeds)
