"""Capability axes from the hidden evaluation log (MECHANICS §17)."""

from __future__ import annotations

import pytest

from world.axes import capability_axes, pool_axes
from world.config import WorldConfig
from world.engine import World

from .test_determinism import play


def test_s17_mentoring_share_and_roster_matched_excess_by_hand():
    """Three researchers, all hours to the two with the highest return: share 1.0, excess 1 − 2/3."""
    w = World(WorldConfig(months=12), 3)
    # rows: [id, hours, ability, growth, independence, role]; r = growth × ability × (1 − ι)
    w.s.eval_log["months"] = [
        {
            "month": 1,
            "pool": 100.0,
            "used": 50.0,
            "hotness": [],
            "reputation": 2.0,
            "budget": 0.0,
            "mentoring": [
                ["S001", 0.0, 0.5, 1.0, 0.9, "phd"],  # r = 0.05
                ["S002", 5.0, 0.6, 1.0, 0.5, "phd"],  # r = 0.30
                ["S003", 5.0, 0.8, 1.0, 0.5, "phd"],
            ],
        },  # r = 0.40
    ]
    axes = capability_axes(w)["axes"]
    assert axes["mentoring_share"] == pytest.approx(1.0)
    assert axes["mentoring_excess"] == pytest.approx(1.0 - 2.0 / 3.0)
    assert axes["attention_utilization"] == pytest.approx(0.5)
    assert axes["attention_at_ceiling"] == 0.0


def test_s17_mentoring_share_counts_every_month_when_rows_repeat_and_change():
    """Months whose mentoring rows repeat the last month's count once each with that month's
    share; a month whose rows differ (hours moved, equal-looking ids with other values) gets
    its own share: the mean is the per-month formula's, month by month."""
    w = World(WorldConfig(months=12), 3)
    top_two = [
        ["S001", 0.0, 0.5, 1.0, 0.9, "phd"],
        ["S002", 5.0, 0.6, 1.0, 0.5, "phd"],
        ["S003", 5.0, 0.8, 1.0, 0.5, "phd"],
    ]
    to_weakest = [
        ["S001", 10.0, 0.5, 1.0, 0.9, "phd"],
        ["S002", 0.0, 0.6, 1.0, 0.5, "phd"],
        ["S003", 0.0, 0.8, 1.0, 0.5, "phd"],
    ]
    # the same hours as top_two, but S001 is now the strongest: it alone gets nothing of the top
    reordered = [
        ["S001", 0.0, 0.9, 1.0, 0.0, "phd"],
        ["S002", 5.0, 0.6, 1.0, 0.5, "phd"],
        ["S003", 5.0, 0.8, 1.0, 0.5, "phd"],
    ]
    rosters = [top_two, [list(r) for r in top_two], top_two, to_weakest, to_weakest, reordered, top_two]
    w.s.eval_log["months"] = [
        {"month": m, "pool": 100.0, "used": 50.0, "hotness": [], "reputation": 2.0, "budget": 0.0, "mentoring": rows}
        for m, rows in enumerate(rosters, start=1)
    ]
    # shares by hand: top_two 1.0 (both top researchers get all hours), to_weakest 0.0,
    # reordered 0.5 (S001 and S003 are the top two; S003 has 5 of the 10 hours)
    shares = [1.0, 1.0, 1.0, 0.0, 0.0, 0.5, 1.0]
    axes = capability_axes(w)["axes"]
    assert axes["mentoring_share"] == pytest.approx(sum(shares) / len(shares))
    assert axes["mentoring_excess"] == pytest.approx(sum(s - 2.0 / 3.0 for s in shares) / len(shares))
    assert capability_axes(w)["pool"]["mentoring_share"] == [pytest.approx(sum(shares)), len(shares)]


def test_s17_axes_over_a_busy_career_are_defined_and_pool():
    """A busy career defines the main axes; pooling two runs stays within the runs' range."""
    a = capability_axes(play(61))
    b = capability_axes(play(62))
    for res in (a, b):
        ax = res["axes"]
        assert 0.0 <= ax["mentoring_share"] <= 1.0
        assert ax["anticipation"] is not None
        assert 1.0 <= ax["topic_hotness_rank"] <= 8.0
        assert 0.0 < ax["topic_herfindahl"] <= 1.0
        assert ax["actions_per_month"] > 1.0
    pooled = pool_axes([a, b])
    lo = min(a["axes"]["attention_utilization"], b["axes"]["attention_utilization"])
    hi = max(a["axes"]["attention_utilization"], b["axes"]["attention_utilization"])
    assert lo - 1e-12 <= pooled["attention_utilization"] <= hi + 1e-12
