"""Statistics of the report: summaries, seed-bootstrap intervals, Spearman, variance shares.

Pure numpy. Bootstrap resampling is seeded (:data:`BOOTSTRAP_SEED`) so a report is the
same every time it is made from the same runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "ALPHA",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "FEW_CAREERS",
    "POWER",
    "bootstrap_mean_ci",
    "careers_needed",
    "detectable_difference",
    "geomean1",
    "interval",
    "pair_power",
    "spearman",
    "summary",
    "t_quantile",
    "variance_shares",
]

BOOTSTRAP_RESAMPLES = 4000
BOOTSTRAP_SEED = 20261201
#: Below this many careers a label's interval is the min-max range, said so: a percentile
#: bootstrap of so few values only reproduces their range (3 seeds: 27 distinct resamples).
FEW_CAREERS = 10
#: Two-sided significance level and power of the detectable difference and careers needed.
ALPHA = 0.05
POWER = 0.8
#: Largest number of careers :func:`careers_needed` searches; above it, ``None``.
MAX_CAREERS_NEEDED = 1_000_000


def geomean1(values: Sequence[float]) -> float:
    """exp(mean(log(1 + x))): the geometric mean of Impact + 1, as ``pibench run`` reports it."""
    if not values:
        return float("nan")
    return math.exp(sum(math.log1p(max(0.0, float(v))) for v in values) / len(values))


def summary(values: Sequence[float]) -> dict[str, float]:
    """``n``, ``mean``, ``median``, ``geomean`` (of Impact + 1), ``std``, ``min``, ``max``."""
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        return {
            "n": 0,
            "mean": float("nan"),
            "median": float("nan"),
            "geomean": float("nan"),
            "std": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
        }
    return {
        "n": int(a.size),
        "mean": float(a.mean()),
        "median": float(np.median(a)),
        "geomean": geomean1(list(a)),
        "std": float(a.std(ddof=1)) if a.size > 1 else 0.0,
        "min": float(a.min()),
        "max": float(a.max()),
    }


def bootstrap_mean_ci(
    values: Sequence[float], level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean, resampling seeds with replacement.

    Returns:
        ``(low, high)``, or ``None`` for fewer than two values (no spread to resample).
    """
    a = np.asarray(values, dtype=float)
    if a.size < 2:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    means = a[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1.0 - alpha))


def _ranks(a: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean of their positions), 1-based."""
    order = np.argsort(a, kind="mergesort")
    ranks = np.empty(a.size, dtype=float)
    sorted_a = a[order]
    i = 0
    while i < a.size:
        j = i
        while j + 1 < a.size and sorted_a[j + 1] == sorted_a[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties: average ranks); ``None`` if undefined (fewer
    than three pairs, or one side constant)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size != b.size:
        raise ValueError("spearman needs two sequences of the same length")
    if a.size < 3:
        return None
    ra, rb = _ranks(a), _ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def variance_shares(cells: dict[tuple[str, Any], float]) -> dict[str, float | None]:
    """Share of the variance of log(1 + Impact) explained by model and by seed.

    Args:
        cells: ``(label, seed) -> Impact`` over a grid (labels × common seeds).

    Returns:
        ``{"model", "seed", "residual"}``: sums of squares of the main effects (group
        means about the grand mean, weighted by cell counts) over the total sum of
        squares; ``None`` each when there is no variance or fewer than two labels/seeds.
    """
    if not cells:
        return {"model": None, "seed": None, "residual": None}
    labels = sorted({k[0] for k in cells})
    seeds = sorted({k[1] for k in cells})
    y = {k: math.log1p(max(0.0, v)) for k, v in cells.items()}
    grand = sum(y.values()) / len(y)
    total = sum((v - grand) ** 2 for v in y.values())
    if total <= 0 or len(labels) < 2 or len(seeds) < 2:
        return {"model": None, "seed": None, "residual": None}
    ss_model = 0.0
    for lab in labels:
        vals = [v for k, v in y.items() if k[0] == lab]
        ss_model += len(vals) * (sum(vals) / len(vals) - grand) ** 2
    ss_seed = 0.0
    for sd in seeds:
        vals = [v for k, v in y.items() if k[1] == sd]
        ss_seed += len(vals) * (sum(vals) / len(vals) - grand) ** 2
    return {
        "model": ss_model / total,
        "seed": ss_seed / total,
        "residual": max(0.0, 1.0 - (ss_model + ss_seed) / total),
    }


def interval(values: Sequence[float], level: float = 0.95) -> dict[str, Any] | None:
    """The interval a report shows for a label's mean Impact.

    Returns:
        ``{"kind": "bootstrap", "level", "low", "high"}`` (seed-bootstrap percentile interval
        of the mean) for at least :data:`FEW_CAREERS` values; ``{"kind": "range", "low",
        "high"}`` (min and max of the values) for 2 to ``FEW_CAREERS - 1``, where a bootstrap
        interval would be the range by another name; ``None`` for fewer than two.
    """
    a = np.asarray(values, dtype=float)
    if a.size < 2:
        return None
    if a.size < FEW_CAREERS:
        return {"kind": "range", "low": float(a.min()), "high": float(a.max())}
    ci = bootstrap_mean_ci(values, level=level)
    assert ci is not None
    return {"kind": "bootstrap", "level": level, "low": ci[0], "high": ci[1]}


def _z(p: float) -> float:
    """The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    a = (
        -39.69683028665376,
        220.9460984245205,
        -275.9285104469687,
        138.3577518672690,
        -30.66479806614716,
        2.506628277459239,
    )
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572)
    c = (
        -0.007784894002430293,
        -0.3223964580411365,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    )
    d = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    lo = 0.02425
    if p < lo or p > 1 - lo:
        q = math.sqrt(-2 * math.log(p if p < lo else 1 - p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
        return x if p < lo else -x
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (
        ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1
    )  # fmt: skip


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile with ``df`` degrees of freedom (the Cornish-Fisher expansion in
    1/df about the normal quantile: within 0.2 % of the exact value for df ≥ 3 at the levels used here, 1 % at df = 2, and the
    normal quantile for an infinite ``df``)."""
    z = _z(p)
    if math.isinf(df):
        return z
    if df < 1:
        raise ValueError(f"t_quantile needs df >= 1, got {df}")
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def detectable_difference(sd: float, n: int, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The smallest true mean difference that ``n`` paired careers (differences of standard
    deviation ``sd``) would find at two-sided level ``alpha`` with probability ``power``:
    ``(t(1 - alpha/2, n-1) + t(power, n-1)) * sd / sqrt(n)``. ``None`` for ``n < 3`` (one
    degree of freedom: the approximation of :func:`t_quantile` is off by 11 %)."""
    if n < 3:
        return None
    df = n - 1
    return (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * sd / math.sqrt(n)


def careers_needed(diff: float, sd: float, alpha: float = ALPHA, power: float = POWER) -> int | None:
    """How many paired careers resolve a true mean difference ``diff`` (differences of
    standard deviation ``sd``) at two-sided level ``alpha`` with probability ``power``: the
    smallest ``n >= 3`` whose :func:`detectable_difference` is at most ``|diff|``. ``None``
    when ``diff`` is 0 or more than :data:`MAX_CAREERS_NEEDED` would be needed; 3 when
    ``sd`` is 0 and ``diff`` is not."""
    if diff == 0 or not math.isfinite(diff) or not math.isfinite(sd):
        return None
    if sd == 0:
        return 3
    z = _z(1 - alpha / 2) + _z(power)
    guess = max(3, math.ceil((z * sd / abs(diff)) ** 2))
    if guess > MAX_CAREERS_NEEDED:
        return None
    n = max(3, guess - 1)
    while True:
        mdd = detectable_difference(sd, n, alpha, power)
        assert mdd is not None
        if mdd <= abs(diff):
            return n
        n += 1


def pair_power(diffs: Sequence[float], alpha: float = ALPHA, power: float = POWER) -> dict[str, Any]:
    """What paired differences (one per shared seed) can and cannot tell.

    Returns:
        ``{"n", "mean", "sd", "detectable", "needed", "t_half_width"}``: the number of pairs,
        the mean and standard deviation of the differences, :func:`detectable_difference`,
        :func:`careers_needed` for the observed mean, and the half-width of the paired-t
        interval at level ``alpha``, ``t(1 - alpha/2, n-1) · sd / √n`` (``None`` where
        undefined: fewer than 3 pairs).
    """
    a = np.asarray(diffs, dtype=float)
    n = int(a.size)
    mean = float(a.mean()) if n else float("nan")
    sd = float(a.std(ddof=1)) if n > 1 else float("nan")
    return {
        "n": n,
        "mean": mean,
        "sd": sd if n > 1 else None,
        "detectable": detectable_difference(sd, n, alpha, power),
        "needed": careers_needed(mean, sd, alpha, power) if n > 1 else None,
        "t_half_width": t_quantile(1 - alpha / 2, n - 1) * sd / math.sqrt(n) if n >= 3 else None,
    }
