"""The hotness trajectory (MECHANICS §4) is the month-by-month recursion on the ``field_traj``
stream's draws, float for float, however the draws are batched."""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from world import field
from world.config import TOPICS, WorldConfig
from world.engine import World
from world.rng import stream_generator

ROOT = Path(__file__).resolve().parents[2]


def month_by_month(cfg: WorldConfig, seed: int) -> list[list[float]]:
    """§4 written out: each month draws drift ~ N(0, drift_sd), noise ~ N(0, noise_sd),
    u ~ U[0, 1), boom ~ N(log boom factor, boom_sd), bust ~ U(bust_low, bust_high) per topic,
    in that order, then x ← clip(x + rev (μ − x) + noise + jump, log min, log max), μ ← μ + drift,
    log and exp the C library's (math.log, math.exp)."""
    gen = stream_generator(seed, "field_traj")
    h0 = cfg.hotness0()
    nk = len(TOPICS)
    lo, hi = math.log(cfg.hot_min), math.log(cfg.hot_max)
    x = np.array([math.log(h) for h in h0])
    mu = x.copy()
    out = [list(h0)]
    for _ in range(cfg.months + cfg.trajectory_padding):
        drift = gen.normal(0.0, cfg.hot_drift_sd, nk)
        noise = gen.normal(0.0, cfg.hot_noise_sd, nk)
        u = gen.random(nk)
        boom = gen.normal(math.log(cfg.boom_log_mean_factor), cfg.boom_log_sd, nk)
        bust = gen.uniform(cfg.bust_low, cfg.bust_high, nk)
        mu = mu + drift
        jump = np.where(
            u < cfg.boom_p, boom, np.where(u < cfg.boom_p + cfg.bust_p, np.array([math.log(b) for b in bust]), 0.0)
        )
        x = np.clip(x + cfg.hot_reversion * (mu - x) + noise + jump, lo, hi)
        out.append([math.exp(v) for v in x.tolist()])
    return out


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"hot_drift_sd": 0.2, "hot_noise_sd": 0.3, "boom_p": 0.2, "bust_p": 0.3, "months": 24},
        {"boom_log_sd": 0.0, "bust_low": 0.5, "bust_high": 0.5, "trajectory_padding": 0},
    ],
)
def test_s4_trajectory_equals_the_month_by_month_recursion(changes):
    """For several seeds and parameter sets (wide noise, frequent jumps, a zero spread), every
    hotness of the trajectory equals the month-by-month computation exactly (==, not approx)."""
    cfg = WorldConfig(**changes) if changes else WorldConfig()
    for seed in (0, 1, 7, 101, 99_999):
        w = World(copy.copy(cfg), seed)
        assert w.s.trajectory == month_by_month(cfg, seed)
        assert len(w.s.trajectory) == cfg.months + cfg.trajectory_padding + 1


def test_s4_trajectory_is_the_same_whatever_simd_numpy_finds():
    """The trajectory does not depend on the CPU: a process whose numpy may use none of the
    SIMD extensions it dispatches to (NPY_DISABLE_CPU_FEATURES; on an AVX-512 machine numpy's
    array exp and log differ from the C library's in the last bits) builds the same floats."""
    from numpy._core import _multiarray_umath as umath

    found = [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]
    if not found:
        pytest.skip("numpy dispatches to no SIMD extension on this machine")
    seeds = (0, 101, 99_999)
    code = (
        "import json\nfrom world.config import WorldConfig\nfrom world.engine import World\n"
        f"print(json.dumps([World(WorldConfig(), seed).s.trajectory for seed in {seeds!r}]))"
    )
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(found)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == [World(WorldConfig(), seed).s.trajectory for seed in seeds]


def test_s4_trajectory_refuses_a_bust_range_upside_down():
    """bust_high below bust_low is an error naming both (as numpy's uniform refused it)."""
    w = World(WorldConfig(), 1)
    w.cfg = WorldConfig(bust_low=0.6, bust_high=0.4)
    with pytest.raises(ValueError, match="bust_high"):
        field.build_trajectory(w)
