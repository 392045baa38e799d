"""From careers to findings: leaderboard, axes, behaviour, census and legibility (issue 11).

:func:`build_report` returns one JSON-able dict; the terminal tables, the HTML page and
``--json`` all render that dict.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from pibench_tui.report.load import Career
from pibench_tui.report.stats import bootstrap_mean_ci, spearman, summary, variance_shares

__all__ = ["ARCHETYPES", "BOOM_IMPACT", "CHURN_HIRES", "NEVER_BUILT_MAX", "archetype", "build_report"]

#: Impact at which a career counts as a boom rider (the census rule).
BOOM_IMPACT = 800.0
#: Hires at which a career that never reached :data:`BOOM_IMPACT` counts as overbuilt churn.
CHURN_HIRES = 8
#: A career with at most this many hires or publications "never built" a lab.
NEVER_BUILT_MAX = 2

ARCHETYPES = ("bankrupt", "never built", "boom rider", "overbuilt churn", "steady")
ARCHETYPE_RULES = {
    "bankrupt": "the lab collapsed (budget below zero at a month's end)",
    "never built": f"≤ {NEVER_BUILT_MAX} hires or ≤ {NEVER_BUILT_MAX} publications",
    "boom rider": f"Impact ≥ {BOOM_IMPACT:g}",
    "overbuilt churn": f"≥ {CHURN_HIRES} hires without reaching Impact {BOOM_IMPACT:g}",
    "steady": "every other career",
}

#: Behaviour measures taken from the pooled capability axes (key -> axis).
BEHAVIOUR_AXES = {
    "actions_per_month": "actions_per_month",
    "conversion": "publications_per_student_year",
    "grant_hit_rate": "grant_hit_rate",
    "topic_hotness_rank": "topic_hotness_rank",
    "attention_utilization": "attention_utilization",
    "attention_at_ceiling": "attention_at_ceiling",
}


def scored_impact(career: Career) -> float:
    """The Impact a career counts for in the leaderboard: its own, or 0 when it is invalid
    (it does not replay to its recorded result). Dropping invalid careers instead would let
    a damaged or tampered run take a bad seed out of a mean; they are listed with their
    reasons and marked in their seed's column."""
    return 0.0 if career.valid is False else career.impact


def archetype(c: Career) -> str:
    """The census archetype of a career (rules applied in :data:`ARCHETYPES` order)."""
    if c.collapsed:
        return "bankrupt"
    if c.hires <= NEVER_BUILT_MAX or c.publications <= NEVER_BUILT_MAX:
        return "never built"
    if c.impact >= BOOM_IMPACT:
        return "boom rider"
    if c.hires >= CHURN_HIRES:
        return "overbuilt churn"
    return "steady"


def _key(c: Career, multi: bool) -> str:
    return f"{c.label} · {c.scenario}" if multi else c.label


def _pool_axes(careers: list[Career]) -> dict[str, float | None]:
    from world.axes import pool_axes

    results = [c.axes for c in careers if c.axes and "axes" in c.axes and "pool" in c.axes]
    return pool_axes(results) if results else {}


def build_report(
    careers: list[Career], *, reference: str | None = None, prices: dict[str, tuple[float, float]] | None = None
) -> dict[str, Any]:
    """The report as data.

    Args:
        careers: From :func:`pibench_tui.report.load.load_careers`.
        reference: Label to compare against (paired differences); default ``baseline``
            when present, else the first label.
        prices: ``label or model -> (USD per million prompt tokens, per million completion
            tokens)`` for the cost column.

    Returns:
        ``{"generated", "pibench_version", "scenarios", "reference", "leaderboard", "seeds",
        "axes", "behaviour", "census", "legibility", "careers"}``.
    """
    from pibench_tui import __version__

    prices = prices or {}
    scenarios = sorted({c.scenario for c in careers})
    multi = len(scenarios) > 1
    groups: dict[str, list[Career]] = defaultdict(list)
    for c in careers:
        groups[_key(c, multi)].append(c)
    labels = list(groups)
    if reference is None:
        reference = next(
            (k for k in labels if k.split(" · ")[0] in ("baseline", "baseline-tuned")), labels[0] if labels else None
        )
    elif reference not in groups:
        raise ValueError(f"--reference {reference!r}: no such label; labels: {', '.join(labels)}")
    ref_by = {(c.scenario, c.seed): scored_impact(c) for c in groups.get(reference, [])} if reference else {}

    leaderboard = []
    for key, cs in groups.items():
        impacts = [scored_impact(c) for c in cs]
        s = summary(impacts)
        ci = bootstrap_mean_ci(impacts)
        paired = [scored_impact(c) - ref_by[(c.scenario, c.seed)] for c in cs if (c.scenario, c.seed) in ref_by]
        diff = None
        if key != reference and paired:
            pci = bootstrap_mean_ci(paired)
            diff = {
                "n": len(paired),
                "mean": statistics.fmean(paired),
                "ci": list(pci) if pci else None,
                "wins": sum(1 for d in paired if d > 0),
            }
        agents = [c for c in cs if c.kind == "agent"]
        tokens = [c.tokens for c in agents if c.tokens is not None]
        price = prices.get(key) or prices.get(cs[0].label) or (prices.get(cs[0].model or "") if cs[0].model else None)
        cost = None
        if price and agents:
            cost = sum(
                ((c.prompt_tokens or 0) * price[0] + (c.completion_tokens or 0) * price[1]) / 1e6 for c in agents
            )
        leaderboard.append(
            {
                "label": key,
                "kind": cs[0].kind,
                "model": cs[0].model,
                "scenario": cs[0].scenario if not multi else sorted({c.scenario for c in cs}),
                "seeds": {
                    str(c.seed): scored_impact(c) for c in sorted(cs, key=lambda c: (c.seed is None, c.seed or 0))
                },
                "invalid_seeds": [str(c.seed) for c in cs if c.valid is False],
                **s,
                "ci95": list(ci) if ci else None,
                "vs_reference": diff,
                "collapses": sum(1 for c in cs if c.collapsed),
                "publications": statistics.fmean(c.publications for c in cs),
                "grants": statistics.fmean(c.grants for c in cs),
                "hires": statistics.fmean(c.hires for c in cs),
                "quits": statistics.fmean(c.quits for c in cs),
                "tokens_per_career": statistics.fmean(tokens) if tokens else None,
                "tokens_total": sum(tokens) if tokens else None,
                "cost_usd": cost,
                "llm_failed_runs": sum(1 for c in agents if (c.failed_calls or 0) > 0),
                "llm_failed_calls": sum(c.failed_calls or 0 for c in agents),
                "flagged": sum(1 for c in agents if (c.flags or 0) > 0),
                "flags": sum(c.flags or 0 for c in agents),
                "integrity": dict(sum((Counter(c.integrity) for c in agents), Counter())),
                "invalid": sum(1 for c in cs if c.valid is False),
                "invalid_reasons": [f"{c.source}: {c.invalid_reason}" for c in cs if c.valid is False],
            }
        )
    leaderboard.sort(key=lambda r: -float(r["mean"]))  # type: ignore[arg-type]
    seeds = sorted({str(c.seed) for c in careers}, key=lambda s: (s == "None", int(s) if s != "None" else 0))

    axes = {key: _pool_axes(cs) for key, cs in groups.items()}
    behaviour = {}
    for key, cs in groups.items():
        pooled = axes[key]
        row: dict[str, float | None] = {name: pooled.get(axis) for name, axis in BEHAVIOUR_AXES.items()}
        blocks = sum(c.blocks or 0 for c in cs)
        row["block_error_rate"] = (sum(c.block_errors or 0 for c in cs) / blocks) if blocks else None
        behaviour[key] = row

    census_table = {key: {a: 0 for a in ARCHETYPES} for key in groups}
    for key, cs in groups.items():
        for c in cs:
            census_table[key][archetype(c)] += 1

    legibility = {}
    for scen in scenarios:
        cs = [c for c in careers if c.scenario == scen]
        legibility[scen] = _legibility(cs, multi, groups)

    return {
        "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "pibench_version": __version__,
        "scenarios": scenarios,
        "reference": reference,
        "seeds": seeds,
        "leaderboard": leaderboard,
        "axes": axes,
        "behaviour": behaviour,
        "census": {"archetypes": list(ARCHETYPES), "rules": ARCHETYPE_RULES, "table": census_table},
        "legibility": legibility,
        "careers": [{**c.to_dict(), "archetype": archetype(c)} for c in careers],
    }


def _legibility(cs: list[Career], multi: bool, groups: dict[str, list[Career]]) -> dict[str, Any]:
    """Per month t: Spearman(earned citations at t, final Impact) across careers; the
    projection's and the best paper's shares of Impact; variance shares on log(1 + Impact)."""
    horizon = max((c.months for c in cs), default=0)
    with_traj = [c for c in cs if c.earned_by_month]
    curve = []
    finals = [c.impact for c in with_traj]
    for t in range(1, horizon + 1):
        xs = []
        for c in with_traj:
            traj = c.earned_by_month
            xs.append(traj[t - 1] if t <= len(traj) else traj[-1])  # a collapsed lab keeps its citations
        rho = spearman(xs, finals) if len(with_traj) >= 3 else None
        curve.append({"month": t, "rho": rho, "n": len(with_traj)})
    total = sum(c.impact for c in cs)
    proj_pooled = (sum(c.projection for c in cs) / total) if total > 0 else None
    shares = [c.projection / c.impact for c in cs if c.impact > 0]
    best = [c.best_paper / c.impact for c in cs if c.impact > 0 and c.best_paper is not None]
    cells = {}
    for key, gcs in groups.items():
        for c in gcs:
            if c.scenario == (cs[0].scenario if cs else None) and c.seed is not None:
                cells[(key, int(c.seed))] = c.impact
    return {
        "months": horizon,
        "careers": len(cs),
        "curve": curve,
        "projection_share": {"pooled": proj_pooled, "mean": statistics.fmean(shares) if shares else None},
        "best_paper_share": statistics.fmean(best) if best else None,
        "variance_shares": variance_shares(cells),
    }
