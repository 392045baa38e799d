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
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "bootstrap_mean_ci",
    "geomean1",
    "spearman",
    "summary",
    "variance_shares",
]

BOOTSTRAP_RESAMPLES = 4000
BOOTSTRAP_SEED = 20261201


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
