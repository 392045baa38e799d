"""Capability axes computed from the hidden evaluation log (MECHANICS §17).

Only the runner and the end screen call this, after a career: it reads hidden state.
Each axis is returned per run together with the sums and counts needed to pool it over
runs (:func:`pool_axes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .config import TOPICS

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World

READ_ONLY_CALLS = {"time.next_month"}


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def capability_axes(w: World) -> dict[str, Any]:
    """The §17 capability axes of one career.

    Returns:
        ``{"axes": {...}, "pool": {...}}``: per-run values (``None`` when undefined) and the
        raw sums/counts that :func:`pool_axes` combines over runs.

        * ``mentoring_share`` — mean over months (≥ 2 researchers, hours > 0) of the share of
          mentoring hours given to researchers whose return r = growth × ability ×
          (1 − independence) is ≥ the element ⌊n/2⌋ of the ascending list;
          ``mentoring_excess`` — the same minus the random share k/n of that month
          (k = researchers at or above that element), the roster-matched correction.
        * ``attrition`` — quit PhDs / all PhDs.
        * ``risk_calibration`` — mean tier of projects started with runway > 18 and ≥ 2 idle
          researchers minus mean tier otherwise (``None`` unless both are non-empty).
        * ``anticipation`` — mean over projects of (mean H over the 12 months after start −
          H at start).
        * ``attention_utilization`` — mean used/pool per ticked month;
          ``attention_at_ceiling`` — share of months with used ≥ 99 % of the pool.
        * behaviour: ``actions_per_month``, ``interviewed_offer_share``, ``grant_hit_rate``,
          ``publications_per_student_year``, ``topic_hotness_rank`` (1 = hottest topic at
          start), ``topic_herfindahl``.
    """
    s = w.s
    log = s.eval_log
    months = log.get("months", [])
    projects = list(log.get("projects", {}).values())
    shares, excess = _mentoring_shares(months)
    antic = [p["h_next12"] - p["h_start"] for p in projects]
    util = [row["used"] / row["pool"] for row in months if row.get("pool")]
    ceiling = [1.0 if u >= 0.99 else 0.0 for u in util]
    ranks = _topic_ranks(w, projects)
    axes = {
        "mentoring_share": _mean(shares),
        "mentoring_excess": _mean(excess),
        "attrition": _attrition(w),
        "risk_calibration": _risk_calibration(projects),
        "anticipation": _mean(antic),
        "attention_utilization": _mean(util),
        "attention_at_ceiling": _mean(ceiling),
        **_behaviour(w, months),
        "topic_hotness_rank": _mean([float(r) for r in ranks]),
        "topic_herfindahl": _herfindahl(projects),
    }
    pool = {
        "mentoring_share": [sum(shares), len(shares)],
        "mentoring_excess": [sum(excess), len(excess)],
        "anticipation": [sum(antic), len(antic)],
        "attention_utilization": [sum(util), len(util)],
        "attention_at_ceiling": [sum(ceiling), len(ceiling)],
        "topic_hotness_rank": [float(sum(ranks)), len(ranks)],
    }
    return {"axes": axes, "pool": pool}


def _mentoring_shares(months: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Per counted month, the mentoring share of the high-return researchers and its excess
    over the random share (``mentoring_share``/``mentoring_excess`` of :func:`capability_axes`)."""
    shares: list[float] = []
    excess: list[float] = []
    last: tuple[Any, float, float] | None = None  # (mentoring rows, share, excess) of the last month counted
    for row in months:
        ment = row.get("mentoring") or []
        n = len(ment)
        if n < 2:
            continue
        if last is not None and ment == last[0]:
            # the same rows as the last month counted give the same share and excess
            shares.append(last[1])
            excess.append(last[2])
            continue
        hours = sum([r[1] for r in ment])
        if hours <= 0:
            continue
        rets = [r[3] * r[2] * (1.0 - r[4]) for r in ment]
        pivot = sorted(rets)[n // 2]
        top = [i for i in range(n) if rets[i] >= pivot]
        share = sum([ment[i][1] for i in top]) / hours
        shares.append(share)
        excess.append(share - len(top) / n)
        last = (ment, share, excess[-1])
    return shares, excess


def _attrition(w: World) -> float | None:
    """Quit PhDs / all PhDs (``None`` without PhDs)."""
    phds = [p for p in w.s.people.values() if p.role == "phd"]
    quits = sum(1 for p in phds if p.status == "quit")
    return quits / len(phds) if phds else None


def _risk_calibration(projects: list[dict[str, Any]]) -> float | None:
    """Mean tier of projects started rich (runway > 18, ≥ 2 idle researchers) minus mean
    tier of the others (``None`` unless both are non-empty)."""
    rich = [p["tier"] for p in projects if p["runway"] > 18 and p["idle"] >= 2]
    poor = [p["tier"] for p in projects if not (p["runway"] > 18 and p["idle"] >= 2)]
    m_rich, m_poor = _mean(rich), _mean(poor)
    return (m_rich - m_poor) if m_rich is not None and m_poor is not None else None


def _behaviour(w: World, months: list[dict[str, Any]]) -> dict[str, float | None]:
    """The behaviour axes: actions per month, interviewed share of offers, grant hit rate,
    publications per student-year."""
    s = w.s
    ticked = max(1, len(months))
    actions = len([None for row in s.action_log if row[1] not in READ_ONLY_CALLS])
    offered = [a for a in s.applicants.values() if a.status in ("offered", "accepted", "declined", "joined")]
    interviewed_offers = sum(1 for a in offered if a.interviewed)
    decided = [p for p in s.proposals.values() if p.status in ("funded", "rejected")]
    funded = sum(1 for p in decided if p.status == "funded")
    pubs = sum(1 for p in s.publications.values() if p.published_month <= s.month)
    student_months = sum([len(row.get("mentoring") or ()) for row in months])
    return {
        "actions_per_month": actions / ticked,
        "interviewed_offer_share": interviewed_offers / len(offered) if offered else None,
        "grant_hit_rate": funded / len(decided) if decided else None,
        "publications_per_student_year": pubs / (student_months / 12.0) if student_months else None,
    }


def _topic_ranks(w: World, projects: list[dict[str, Any]]) -> list[int]:
    """Each project's topic rank by true hotness at its start (1 = hottest)."""
    trajectory = w.s.trajectory
    ranks = []
    for row in projects:
        h = trajectory[min(row["start"], len(trajectory) - 1)]
        order = sorted(range(len(TOPICS)), key=lambda k: -h[k])
        ranks.append(order.index(TOPICS.index(row["topic"])) + 1)
    return ranks


def _herfindahl(projects: list[dict[str, Any]]) -> float | None:
    """Σ (share of projects per topic)² (``None`` without projects)."""
    counts: dict[str, int] = {}
    for row in projects:
        counts[row["topic"]] = counts.get(row["topic"], 0) + 1
    return sum((c / len(projects)) ** 2 for c in counts.values()) if projects else None


def pool_axes(results: list[dict[str, Any]]) -> dict[str, float | None]:
    """Combine per-run :func:`capability_axes` results over runs (§17).

    Pooled axes (mentoring, anticipation, attention, topic rank) are pooled over months or
    projects of all runs; the others (attrition, risk calibration, behaviour) are means of
    the per-run values that are defined (:func:`pool_axis_columns`, fed run by run).
    """
    if not results:
        return {}
    axes, pool = results[0]["axes"], results[0]["pool"]
    return pool_axis_columns(
        list(axes),
        {key: [r["axes"][key] for r in results] for key in axes if key not in pool},
        {
            key: ([r["pool"][key][0] for r in results], [r["pool"][key][1] for r in results])
            for key in pool
            if key in axes
        },
    )


def pool_axis_columns(
    names: list[str],
    values: Mapping[str, Iterable[float | None]],
    pools: Mapping[str, tuple[Iterable[float], Iterable[int]]],
) -> dict[str, float | None]:
    """The pooled axes of :func:`pool_axes` from per-run columns, in run order (a sweep keeps
    a few numbers per career instead of its rows).

    Args:
        names: the axes, in output order.
        values: for each axis not pooled, its per-run values (``None`` where undefined): the
            mean of the defined ones.
        pools: for each pooled axis, its per-run sums and counts: sum of sums / sum of counts.

    Returns:
        ``{axis: value or None}`` (``None``: undefined in every run, or no count).
    """
    out: dict[str, float | None] = {}
    for key in names:
        if key in pools:
            totals, counts = pools[key]
            total = sum(totals)
            n = sum(counts)
            out[key] = total / n if n else None
        else:
            vals = [v for v in values[key] if v is not None]
            out[key] = sum(vals) / len(vals) if vals else None
    return out
