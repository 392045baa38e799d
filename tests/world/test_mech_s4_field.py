"""MECHANICS §4 (field dynamics and observables) checked against hand-made worlds."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.world.mechanics_helpers import make_world
from world import field as field_mod
from world.config import TOPICS

H0 = [1.6, 1.2, 0.8, 2.2, 1.0, 0.7, 0.5, 0.9]


def test_s4_trajectory_index_0_is_initial_and_sized_from_horizon():
    """§4: trajectory indices 0..months+6+2, index 0 = initial hotness in topic order."""
    for months in (60, 12):
        w = make_world(months=months)
        traj = w.s.trajectory
        assert len(traj) == months + 6 + 2 + 1
        assert traj[0] == H0
        assert all(len(row) == len(TOPICS) for row in traj)
        assert all(0.25 - 1e-12 <= h <= 6.0 + 1e-12 for row in traj for h in row)


def test_s4_trajectory_independent_of_agent():
    """§4: the trajectory is precomputed at construction from its own stream (same seed ⇒ same)."""
    a, b = make_world(seed=11), make_world(seed=11)
    for _ in range(5):
        b.next_month()
    assert a.s.trajectory == b.s.trajectory
    assert make_world(seed=12).s.trajectory != a.s.trajectory


def _jumps(traj, reversion=0.06):
    """With zero drift and noise, x_t = x_{t−1} + 0.06(μ − x_{t−1}) + jump; return the jumps."""
    x = np.log(np.array(traj))
    mu = x[0]
    return x[1:] - (x[:-1] + reversion * (mu - x[:-1]))


def test_s4_mean_reversion_and_boom_bust_sizes_without_noise():
    """§4: with σ = 0, between jumps x − μ shrinks by 0.94 a month (≈ 11-month half-life);
    booms add N(ln 2.2, 0.3), busts add ln U(0.35, 0.6), jumps don't move μ."""
    booms, busts, steps = [], [], 0
    for seed in range(25):
        w = make_world(seed=seed, hot_drift_sd=0.0, hot_noise_sd=0.0, hot_min=0.001, hot_max=100.0)
        j = _jumps(w.s.trajectory)
        steps += j.size
        booms += [v for v in j.ravel() if v > 1e-9]
        busts += [v for v in j.ravel() if v < -1e-9]
    # rates 0.02 and 0.015 per topic-month (n ≈ 1,700)
    assert 0.010 < len(booms) / steps < 0.032
    assert 0.006 < len(busts) / steps < 0.026
    assert np.mean(booms) == pytest.approx(math.log(2.2), abs=0.12)
    assert all(math.log(0.35) - 1e-9 <= v <= math.log(0.6) + 1e-9 for v in busts)
    assert 0.5 ** (1 / 11.2) == pytest.approx(0.94, abs=0.001)


def test_s4_boom_is_clipped_at_6_and_bust_at_025():
    """§4: x is clipped to [ln 0.25, ln 6.0] after each step."""
    w = make_world(boom_p=1.0, bust_p=0.0, boom_log_mean_factor=100.0, boom_log_sd=0.0)
    assert all(h == pytest.approx(6.0) for row in w.s.trajectory[1:] for h in row)
    w = make_world(boom_p=0.0, bust_p=1.0)
    assert all(h == pytest.approx(0.25) for row in w.s.trajectory[5:] for h in row)


def test_s4_frozen_field_is_truly_frozen():
    """Decisions §4: frozen_field freezes hotness and crowding at initial values, no drift or noise."""
    w = make_world(frozen_field=True)
    assert all(row == H0 for row in w.s.trajectory)
    c0 = list(w.s.crowding)
    for _ in range(14):
        w.next_month()
        assert w.s.crowding == c0
        assert list(w.hotness_now().values()) == H0


def test_s4_initial_crowding():
    """§4: C_k = max(0.4, 0.8 × H0_k)."""
    w = make_world()
    assert w.s.crowding == pytest.approx([1.28, 0.96, 0.64, 1.76, 0.8, 0.56, 0.4, 0.72])


def test_s4_crowding_update_at_field_step():
    """§4: C_k ← max(0.2, C_k + 0.12(H_k(m) − C_k) + N(0, 0.03)) at the field step of m ≥ 2 (σ = 0 here)."""
    w = make_world(crowd_noise_sd=0.0)
    w.s.crowding = [1.0, 0.1, 3.0, 0.5, 1.0, 1.0, 1.0, 1.0]
    w.s.trajectory[2] = [2.0, 0.25, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0]
    w.next_month()
    exp = [
        max(0.2, c + 0.12 * (h - c))
        for c, h in zip([1.0, 0.1, 3.0, 0.5, 1.0, 1.0, 1.0, 1.0], w.s.trajectory[2], strict=True)
    ]
    assert w.s.crowding == pytest.approx(exp)
    assert w.s.crowding[1] == 0.2  # floor


def test_s4_crowding_noise_has_sd_003():
    """§4: the crowding noise is N(0, 0.03) from the ``crowd`` stream."""
    w = make_world(months=120, frozen_field=False)
    diffs = []
    for _ in range(100):
        m = w.s.month + 1
        before = list(w.s.crowding)
        w.next_month()
        h = w.s.trajectory[m]
        diffs += [c1 - (c0 + 0.12 * (hk - c0)) for c0, c1, hk in zip(before, w.s.crowding, h, strict=True) if c1 > 0.2]
    assert np.std(diffs) == pytest.approx(0.03, rel=0.15)
    assert abs(np.mean(diffs)) < 0.006


def test_s4_funding_climate_update_and_clip():
    """§4: M ← clip(M + 0.25(target − M) + N(0, 0.05), 0.6, 1.4); starts 1.0, first update month 2."""
    w = make_world(climate_noise_sd=0.0)
    assert w.s.climate == 1.0
    w.next_month()
    target2 = 1 + 0.18 * math.sin(2 * math.pi * 2 / 30 + w.s.phi)
    assert field_mod.climate_target(w, 2) == pytest.approx(target2)
    assert w.s.climate == pytest.approx(1.0 + 0.25 * (target2 - 1.0))
    w = make_world(climate_noise_sd=0.0, climate_amplitude=5.0, climate_rate=1.0)
    for _ in range(6):
        w.next_month()
        t = field_mod.climate_target(w, w.s.month)
        assert w.s.climate == pytest.approx(min(1.4, max(0.6, t)))
    assert 0 <= w.s.phi < 2 * math.pi


def test_s4_compute_shock_lifecycle_and_news():
    """§4: with p = 1 a shock starts at month 2 (×1.3 or ×0.7) for months 2..5 with one news
    item; the next starts at month 6; without a new shock the multiplier returns to 1.0."""
    w = make_world(shock_p=1.0)
    mults = {}
    for _ in range(9):
        w.next_month()
        mults[w.s.month] = w.s.compute_mult
    assert w.s.compute_mult in (1.3, 0.7)
    assert mults[2] == mults[3] == mults[4] == mults[5] in (1.3, 0.7)
    assert mults[6] == mults[7] == mults[8] == mults[9] in (1.3, 0.7)
    news = [n for n in w.s.news if n[1] == "compute"]
    assert [n[0] for n in news] == [2, 6, 10]
    for n in news:
        word = "surged" if mults[n[0]] == 1.3 else "dropped"
        assert re.search(rf"{word} ~30%, for a few months", n[3])
    # end of a shock with no new one
    w = make_world(shock_p=0.0)
    w.s.compute_mult, w.s.shock_until = 1.3, 3
    w.next_month()
    w.next_month()
    assert w.s.month == 3 and w.s.compute_mult == 1.3
    w.next_month()
    assert w.s.compute_mult == 1.0
    assert not [n for n in w.s.news if n[1] == "compute"]


def test_s4_compute_shock_frequency():
    """§4: a shock starts with p = 0.05 in a month without a running shock."""
    starts = tries = 0
    for seed in range(12):
        w = make_world(seed=seed, quiet=False, crisis_p=0.0, review_p=0.0)
        for _ in range(59):
            running = w.s.shock_until >= w.s.month + 1
            w.next_month()
            if not running:
                tries += 1
                starts += w.s.shock_until == w.s.month + 3
    assert 0.025 < starts / tries < 0.085


@pytest.mark.parametrize(
    "h, word",
    [
        (6.0, "surging"),
        (1.6, "surging"),
        (1.5999, "gaining steam"),
        (1.2, "gaining steam"),
        (1.1999, "steady"),
        (0.8, "steady"),
        (0.7999, "quiet"),
        (0.25, "quiet"),
    ],
)
def test_s4_news_magnitude_word_thresholds(h, word):
    """§4: ≥ 1.6 surging, ≥ 1.2 gaining steam, ≥ 0.8 steady, else quiet (from true H)."""
    assert field_mod.magnitude_word(make_world(), h) == word


def test_s4_field_news_carry_count_and_word_of_true_hotness():
    """§4: per topic n ~ Poisson(1.2 H); if n > 0 one ``field`` item with n and the word of H."""
    w = make_world(months=240)
    hs = [6.0, 1.6, 1.2, 0.8, 0.79, 1.0, 0.3, 2.0]
    total = {t: 0 for t in TOPICS}
    months = range(2, 202)
    for m in months:
        w.s.trajectory[m] = list(hs)
        w.s.month = m
        before = len(w.s.news)
        field_mod.generate_observables(w, m)
        items = [n for n in w.s.news[before:] if n[1] == "field"]
        assert len({n[2] for n in items}) == len(items)  # at most one per topic
        for n in items:
            k = TOPICS.index(n[2])
            count = int(re.match(r"(\d+) item", n[3]).group(1))
            assert count > 0 and n[0] == m
            assert n[3].endswith(f"the area is {field_mod.magnitude_word(w, hs[k])}.")
            total[n[2]] += count
    for k, t in enumerate(TOPICS):
        lam = 1.2 * hs[k]
        assert total[t] / len(months) == pytest.approx(lam, abs=4 * math.sqrt(lam / len(months)) + 0.01)


def test_s4_preprint_feed_one_row_per_topic_poisson_6c():
    """§4: preprint count ~ Poisson(6 C_k), one row per topic per month."""
    w = make_world()
    w.s.crowding = [0.2, 0.5, 1.0, 2.0, 3.0, 0.4, 1.5, 0.8]
    counts = {t: [] for t in TOPICS}
    for m in range(2, 152):
        before = len(w.s.preprints)
        field_mod.generate_observables(w, m)
        rows = w.s.preprints[before:]
        assert [r[1] for r in rows] == list(TOPICS) and all(r[0] == m for r in rows)
        for r in rows:
            counts[r[1]].append(r[2])
    for k, t in enumerate(TOPICS):
        lam = 6 * w.s.crowding[k]
        assert np.mean(counts[t]) == pytest.approx(lam, abs=4 * math.sqrt(lam / 150))


def test_s4_conference_reports_months_venues_and_3_month_lag():
    """§4: in months ≡ 3, 9 (NAIC) and 0, 6 (CLAR): per topic Poisson(4 H_k(max(1, m − 3)))."""
    w = make_world()
    months_with = {}
    for _ in range(24):
        w.next_month()
    for r in w.s.conference_reports:
        months_with.setdefault(r[0], set()).add(r[1])
    assert months_with == {
        3: {"NAIC"},
        6: {"CLAR"},
        9: {"NAIC"},
        12: {"CLAR"},
        15: {"NAIC"},
        18: {"CLAR"},
        21: {"NAIC"},
        24: {"CLAR"},
    }
    assert all(len([r for r in w.s.conference_reports if r[0] == m]) == 8 for m in months_with)
    # lag: H(m − 3) huge for topic 0 and tiny now; reversed for topic 1
    w = make_world()
    m = 9
    w.s.trajectory[m - 3] = [6.0, 0.25] + [1.0] * 6
    w.s.trajectory[m] = [0.25, 6.0] + [1.0] * 6
    field_mod.generate_observables(w, m)
    rows = {r[2]: r[3] for r in w.s.conference_reports if r[0] == m}
    assert rows["sparse_models"] > 10 and rows["ai4science"] < 6
    # month 3: max(1, 0) = 1
    w = make_world()
    w.s.trajectory[1] = [6.0] * 8
    w.s.trajectory[3] = [0.25] * 8
    field_mod.generate_observables(w, 3)
    assert sum(r[3] for r in w.s.conference_reports if r[0] == 3) > 100


def test_s4_funding_news_lagged_target_and_mood():
    """§4: months m ≡ 0 mod 3, m > 2: value = target(m − 2) × N(1, 0.05), 2 dp; mood word."""
    w = make_world(funding_news_noise_sd=0.0, climate_amplitude=0.18)
    for _ in range(23):
        w.next_month()
    items = [n for n in w.s.news if n[1] == "funding"]
    assert [n[0] for n in items] == [3, 6, 9, 12, 15, 18, 21, 24]
    for n in items:
        value = field_mod.climate_target(w, n[0] - 2)
        mood = "expanding" if value > 1.05 else ("tightening" if value < 0.95 else "flat")
        assert f"{mood} (index {value:.2f})" in n[3]


def test_s4_funding_news_noise_is_5_percent():
    """§4: funding news noise factor N(1, 0.05) (not the realised climate)."""
    ratios = []
    for seed in range(6):
        w = make_world(seed=seed, months=120)
        for _ in range(119):
            w.next_month()
        for n in w.s.news:
            if n[1] == "funding":
                v = float(re.search(r"index (\d+\.\d+)", n[3]).group(1))
                ratios.append(v / field_mod.climate_target(w, n[0] - 2))
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.01)
    assert np.std(ratios) == pytest.approx(0.05, rel=0.2)
