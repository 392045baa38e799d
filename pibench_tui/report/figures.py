"""Figures of the report, drawn with matplotlib (extra ``report``) into PNG bytes.

Each function takes the report dict of :func:`pibench_tui.report.analysis.build_report`
and returns PNG bytes (or ``None`` when there is nothing to draw). No network, no fonts
beyond matplotlib's own: the HTML page embeds the images as base64.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np

from pibench_tui.report.stats import FEW_CAREERS
from pibench_tui.words import count

__all__ = ["all_figures"]

AXES_SHOWN = (
    ("mentoring_excess", "mentoring: share to high-return\nresearchers above random"),
    ("attrition", "attrition (quit PhDs / PhDs)"),
    ("risk_calibration", "risk calibration\n(tier when rich − when poor)"),
    ("anticipation", "anticipation (hotness gain\n12 months after start)"),
    ("attention_utilization", "attention utilisation"),
    ("attention_at_ceiling", "months at the attention ceiling"),
    ("actions_per_month", "actions a month"),
    ("grant_hit_rate", "grant hit rate"),
    ("publications_per_student_year", "publications per student-year"),
    ("topic_hotness_rank", "topic hotness rank at entry\n(1 = hottest)"),
)


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titlesize": 10,
            "axes.titleweight": "bold",
            "figure.dpi": 110,
            # every figure is laid out by matplotlib's constrained layout: titles, suptitles,
            # axis and tick labels and legends never overlap (tight_layout let a suptitle fall
            # on the panel titles of a tall figure, and a title on a tick label)
            "figure.constrained_layout.use": True,
        }
    )
    return plt


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def _colors(labels: list[str]) -> dict[str, Any]:
    plt = _plt()
    cmap = plt.get_cmap("tab10")
    return {lab: cmap(i % 10) for i, lab in enumerate(labels)}


def _interval_words(rows: list[dict[str, Any]]) -> str:
    """What the whiskers of ``rows`` show, in the leaderboard's words."""
    kinds = {r["interval"]["kind"] for r in rows if r.get("interval")}
    if kinds == {"range"}:
        return f"min-max range (fewer than {FEW_CAREERS} careers)"
    if kinds == {"bootstrap"}:
        return "seed-bootstrap 95% CI of the mean"
    return "95% CI, or min-max range for labels of few careers"


def impact_per_seed(report: dict[str, Any]) -> bytes | None:
    """Each seed's Impact per label (one marker shape per seed), with the mean (bar) and
    the label's interval (capped whisker: the leaderboard's, a bootstrap 95 % interval or,
    under ``stats.FEW_CAREERS`` careers, the min-max range)."""
    rows = report["leaderboard"]
    if not rows:
        return None
    plt = _plt()
    labels = [r["label"] for r in rows]
    colors = _colors(labels)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.5 * len(rows) + 2), 3.8))
    seeds = report["seeds"]
    markers = "osD^v<>pP*Xh"
    width = 0.5
    for i, r in enumerate(rows):
        col = colors[r["label"]]
        for j, seed in enumerate(seeds):
            if seed in r["seeds"]:
                off = (j - (len(seeds) - 1) / 2) * (width / max(1, len(seeds)))
                ax.scatter(
                    i + off,
                    r["seeds"][seed],
                    color=col,
                    marker=markers[j % len(markers)] if len(seeds) <= len(markers) else "o",
                    s=34 if len(seeds) <= len(markers) else 14,
                    zorder=5,  # above the mean's bar and the whisker: a career at the mean stays visible
                    edgecolor="white",
                    linewidth=0.6,
                )
        ax.hlines(r["mean"], i - width / 2 - 0.05, i + width / 2 + 0.05, color=col, linewidth=2.2, zorder=4)
        if r.get("interval"):
            lo, hi = r["interval"]["low"], r["interval"]["high"]
            ax.errorbar(
                i,
                r["mean"],
                yerr=[[r["mean"] - lo], [hi - r["mean"]]],
                color=col,
                alpha=0.55,
                capsize=6,
                linewidth=1.2,
                zorder=2,
            )
    few = len(seeds) <= len(markers)
    for j, seed in enumerate(seeds if few else []):
        ax.scatter([], [], color="grey", marker=markers[j % len(markers)], s=30, label=f"seed {seed}")
    ax.set_xticks(
        range(len(rows)), labels, rotation=20 if len(rows) > 4 else 0, ha="right" if len(rows) > 4 else "center"
    )
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("Impact")
    lows = [r["min"] for r in rows if r["min"] > 0]
    if lows and max(r["max"] for r in rows) / min(lows) > 50:
        ax.set_yscale("symlog", linthresh=10)
        ax.set_ylim(bottom=0)  # Impact is never negative: no empty decade below zero
    ax.set_title(f"Impact per career\n(bar: mean; whisker: {_interval_words(rows)})")
    if len(seeds) <= len(markers):
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def trajectories(report: dict[str, Any]) -> bytes | None:
    """Budget and earned citations month by month, one row of two panels per label (labels
    played on the same worlds would draw over each other in one panel): a thin line per
    career, the median over careers in bold; axes shared across labels."""
    careers = [c for c in report["careers"] if c["budget_by_month"] or c["earned_by_month"]]
    if not careers:
        return None
    plt = _plt()
    labels = [r["label"] for r in report["leaderboard"]]
    by = _careers_by_row(labels, careers)
    shown = [lab for lab in by if by[lab]]
    colors = _colors(labels)
    fig, grid = plt.subplots(
        len(shown), 2, figsize=(10, 1.9 * len(shown) + 0.8), sharex=True, sharey="col", squeeze=False
    )
    for i, lab in enumerate(shown):
        a1, a2 = grid[i]
        col = colors.get(lab, "grey")
        _trajectory_panel(a1, by[lab], "budget_by_month", 1000.0, col)
        _trajectory_panel(a2, by[lab], "earned_by_month", 1.0, col)
        a1.axhline(0, color="black", linewidth=0.8)
        name = lab if len(lab) <= 22 else lab[:21] + "…"
        a1.set_ylabel(f"{name}\n({count(len(by[lab]), 'career')})", fontsize=8)  # not over the lines
    grid[0][0].set_title("Budget (thousand USD; × = collapse)")
    grid[0][1].set_title("Citations earned so far")
    grid[-1][0].set_xlabel("month")
    grid[-1][1].set_xlabel("month")
    fig.suptitle("Trajectories per label (thin: one career; bold: median)", fontweight="bold")
    return _png(fig)


def _careers_by_row(labels: list[str], careers: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The careers under the leaderboard row they count in (their ``row``, else their label),
    the leaderboard's labels first and in its order (a label may have none)."""
    by: dict[str, list[dict[str, Any]]] = {lab: [] for lab in labels}
    for c in careers:
        by.setdefault(c.get("row") or c["label"], []).append(c)
    return by


def _trajectory_panel(ax: Any, careers: list[dict[str, Any]], series: str, scale: float, col: Any) -> None:
    """One panel of :func:`trajectories`: each career's ``series`` divided by ``scale`` as a thin
    line (a budget ending in a collapse marked ×), and the median month by month in bold (a
    career that ended early counts with its last value)."""
    drawn = [c for c in careers if c[series]]
    lines = [[v / scale for v in c[series]] for c in drawn]
    for c, ys in zip(drawn, lines, strict=True):
        ax.plot(range(1, len(ys) + 1), ys, color=col, alpha=0.25, linewidth=0.8)
        if series == "budget_by_month" and c["collapsed"]:
            ax.scatter([len(ys)], [ys[-1]], color=col, marker="x", s=25)
    if lines:
        horizon = max(len(ys) for ys in lines)
        med = [float(np.median([ys[min(t, len(ys) - 1)] for ys in lines])) for t in range(horizon)]
        ax.plot(range(1, horizon + 1), med, color=col, linewidth=2.0)
    ax.grid(alpha=0.3)


#: Marker shapes of the cost plot, one per agent label in turn (with its colour), so labels
#: drawn close together stay apart.
COST_MARKERS = "osD^v<>pP*Xh"
#: Points of the cost plot closer than these shares of the axes (x, y) are set side by side.
NEAR_X, NEAR_Y = 0.02, 0.04
#: Horizontal distance, in points, between points set side by side.
DODGE_POINTS = 11.0


def _dodges(xy: list[tuple[float, float]], span: tuple[float, float]) -> list[float]:
    """A horizontal offset in points for each of ``xy``: points within ``NEAR_X`` × x span and
    ``NEAR_Y`` × y span of an earlier one join its group, and a group of m points is spread
    ``DODGE_POINTS`` apart around its place (one point: 0), so equal values never hide each
    other. The data keep their values; only the drawing moves."""
    groups: list[list[int]] = []
    for i, (x, y) in enumerate(xy):
        for g in groups:
            gx, gy = xy[g[0]]
            if abs(x - gx) <= NEAR_X * span[0] and abs(y - gy) <= NEAR_Y * span[1]:
                g.append(i)
                break
        else:
            groups.append([i])
    out = [0.0] * len(xy)
    for g in groups:
        for k, i in enumerate(g):
            out[i] = (k - (len(g) - 1) / 2) * DODGE_POINTS
    return out


def _cost_points(ax: Any, fig: Any, rows: list[dict[str, Any]], xs: list[float], style: dict[str, Any]) -> bool:
    """Draw each row's mean Impact (and its interval's whisker) at ``xs`` on ``ax`` with its
    colour and marker (``style``: label -> (colour, marker, filled)); points that would cover
    each other are set side by side (:func:`_dodges`). Whether any was moved."""
    from matplotlib.transforms import offset_copy

    ys = [r["mean"] for r in rows]
    lows = [r["interval"]["low"] if r.get("interval") else r["mean"] for r in rows]
    highs = [r["interval"]["high"] if r.get("interval") else r["mean"] for r in rows]
    span = (max(xs) - min(0.0, min(xs)) or 1.0, (max(highs) - min(lows)) or max(1.0, abs(max(ys))))
    dodges = _dodges(list(zip(xs, ys, strict=True)), span)
    for r, x, y, dx in zip(rows, xs, ys, dodges, strict=True):
        col, marker, filled = style[r["label"]]
        # drawn at the data point (so the axes' limits hold it), then moved dx points sideways
        moved = offset_copy(ax.transData, fig=fig, x=dx, y=0.0, units="points")
        iv = r.get("interval")
        if iv:
            bars = ax.errorbar(x, y, yerr=[[y - iv["low"]], [iv["high"] - y]], color=col, capsize=4, alpha=0.7)
            for part in (*bars.lines[1], *bars.lines[2]):
                part.set_transform(moved)
            if bars.lines[0] is not None:
                bars.lines[0].set_transform(moved)
        point = ax.scatter(
            [x],
            [y],
            color=col if filled else "white",
            edgecolor=col,
            linewidth=1.2,
            marker=marker,
            s=40,
            zorder=3,
            label=r["label"] if filled else f"{r['label']} (no price)",
        )
        point.set_offset_transform(moved)
    return any(dodges)


def cost_vs_impact(report: dict[str, Any]) -> bytes | None:
    """Mean Impact (with its interval) against the cost per career, one point per agent label
    (a colour and a marker shape each; labels of about the same cost and Impact are set side
    by side, said in the title). The x axis is USD per career for the labels with a price;
    labels without one are not put on that axis at a made-up cost: they are drawn as hollow
    markers in a narrow panel of their own on the right, "no price" (same Impact axis). Only
    when no agent label has a price is the x axis tokens per career, for every label.
    Policies (no cost) are horizontal reference lines."""
    rows = report["leaderboard"]
    agents = [r for r in rows if r["kind"] == "agent" and r.get("tokens_per_career") is not None]
    if not agents:
        return None
    plt = _plt()
    colors = _colors([r["label"] for r in rows])
    priced = [r for r in agents if r.get("cost_per_career") is not None]
    unpriced = [r for r in agents if r.get("cost_per_career") is None] if priced else []
    main = priced or agents
    key, xlabel = ("cost_per_career", "USD per career") if priced else ("tokens_per_career", "tokens per career")
    style = {r["label"]: (colors[r["label"]], COST_MARKERS[i % len(COST_MARKERS)], True) for i, r in enumerate(agents)}
    for r in unpriced:
        style[r["label"]] = (*style[r["label"]][:2], False)
    if unpriced:
        fig, (ax, side) = plt.subplots(
            1, 2, figsize=(7.5 + 0.5 * len(unpriced), 3.8), sharey=True, width_ratios=[6, 0.6 + 0.5 * len(unpriced)]
        )
    else:
        fig, ax = plt.subplots(figsize=(7, 3.8))
        side = None
    xs = [r[key] for r in main]
    # From zero with room on the right: autoscale's margin is a share of the points' spread,
    # which left labels of similar cost on the frame's edge.
    ax.set_xlim(0, 1.1 * max(xs) or 1.0)
    dodged = _cost_points(ax, fig, main, xs, style)
    if side is not None:
        dodged = _cost_points(side, fig, unpriced, [float(i) for i in range(len(unpriced))], style) or dodged
        side.set_xlim(-0.7, len(unpriced) - 0.3)
        side.set_xticks(range(len(unpriced)), [r["label"] for r in unpriced], rotation=30, ha="right", fontsize=7)
        side.set_title("no price", fontsize=8)
        side.grid(axis="y", alpha=0.3)
    for r in rows:
        if r["kind"] != "agent" and r["mean"] == r["mean"]:
            for a in (ax, side) if side is not None else (ax,):
                a.axhline(
                    r["mean"],
                    color=colors[r["label"]],
                    linestyle="--",
                    linewidth=1,
                    label=f"{r['label']} (policy)" if a is ax else None,
                )
    ax.set_xlabel(xlabel if priced else f"{xlabel} (no label has a price: --price LABEL=IN,OUT)")
    ax.set_ylabel("mean Impact")
    title = "Cost against Impact (whisker: the label's interval)"
    if dodged:
        title += "\npoints of about the same cost and Impact are set side by side"
    ax.set_title(title)
    ax.grid(alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    if side is not None:
        more, more_names = side.get_legend_handles_labels()
        handles, names = handles + more, names + more_names
    fig.legend(handles, names, fontsize=7, frameon=False, loc="outside right upper")
    return _png(fig)


def axes_figure(report: dict[str, Any]) -> bytes | None:
    """The §17 capability axes and behaviour measures, one small panel per axis."""
    axes = report["axes"]
    labels = [r["label"] for r in report["leaderboard"] if axes.get(r["label"])]
    if not labels:
        return None
    plt = _plt()
    colors = _colors([r["label"] for r in report["leaderboard"]])
    shown = [(k, t) for k, t in AXES_SHOWN if any(axes[lab].get(k) is not None for lab in labels)]
    if not shown:
        return None
    ncols = 5
    nrows = math.ceil(len(shown) / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(12, 2.3 * nrows + 0.4), squeeze=False)
    for idx, (key, title) in enumerate(shown):
        _axis_panel(grid[idx // ncols][idx % ncols], title, labels, [axes[lab].get(key) for lab in labels], colors)
    for idx in range(len(shown), nrows * ncols):
        grid[idx // ncols][idx % ncols].axis("off")
    fig.suptitle("Capability axes and behaviour (MECHANICS §17; pooled over each label's careers)", fontweight="bold")
    return _png(fig)


def _axis_panel(ax: Any, title: str, labels: list[str], vals: list[Any], colors: dict[str, Any]) -> None:
    """One panel of :func:`axes_figure`: a bar per label ("n/a" where it has no value; a
    "0 for every label" note when no bar stands out), labels cut at 20 characters."""
    ax.bar(range(len(labels)), [v if v is not None else 0 for v in vals], color=[colors[lab] for lab in labels])
    for i, v in enumerate(vals):
        if v is None:
            ax.text(i, 0, "n/a", ha="center", va="bottom", fontsize=7, color="grey")
    if all(v in (None, 0) for v in vals):
        ax.set_ylim(-1, 1)
        ax.set_yticks([0])
        ax.text(0.5, 0.6, "0 for every label", transform=ax.transAxes, ha="center", fontsize=8, color="grey")
    ax.set_title(title, fontsize=8)
    ax.set_xticks(
        range(len(labels)),
        [lab if len(lab) <= 20 else lab[:19] + "…" for lab in labels],
        fontsize=6.5,
        rotation=35,
        ha="right",
    )
    ax.axhline(0, color="black", linewidth=0.6)
    ax.grid(axis="y", alpha=0.3)


def legibility_figure(report: dict[str, Any]) -> bytes | None:
    """Spearman(earned citations at month t, final Impact) across careers, per month."""
    plt = _plt()
    drawn = False
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for scen, leg in report["legibility"].items():
        pts = [(p["month"], p["rho"]) for p in leg["curve"] if p["rho"] is not None]
        if not pts:
            continue
        drawn = True
        ax.plot(
            [p[0] for p in pts], [p[1] for p in pts], marker=".", label=f"{scen} ({count(leg['careers'], 'career')})"
        )
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("month t")
    ax.set_ylabel("Spearman ρ")
    ax.set_title("Legibility: how well citations earned by month t predict final Impact")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False)
    return _png(fig)


def census_figure(report: dict[str, Any]) -> bytes | None:
    """Careers per archetype for each label (stacked bars)."""
    table = report["census"]["table"]
    if not table:
        return None
    plt = _plt()
    labels = [r["label"] for r in report["leaderboard"]]
    arch = report["census"]["archetypes"]
    palette = {
        "bankrupt": "#c0392b",
        "never built": "#95a5a6",
        "boom rider": "#27ae60",
        "overbuilt churn": "#e67e22",
        "steady": "#2980b9",
        "not verified": "#d5d8dc",
    }
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(labels) + 1.2))
    left = [0] * len(labels)
    for a in arch:
        vals = [table[lab][a] for lab in labels]
        ax.barh(range(len(labels)), vals, left=left, color=palette.get(a), label=a)
        left = [x + v for x, v in zip(left, vals, strict=True)]
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("careers")
    ax.set_title("Census: careers by archetype")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # not over the title
    return _png(fig)


def _shown(value: Any) -> Any:
    """``value`` (the report's data) with every string, keys included, as the tables show it
    (:func:`pibench_tui.textsafe.visible`: control characters as visible escapes), so a label
    holding ESC or BEL is drawn as ``\\x1b`` and never reaches matplotlib raw (its "Glyph 27
    missing" warning printed the raw byte on stderr)."""
    from pibench_tui.textsafe import visible

    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return value


def all_figures(report: dict[str, Any]) -> dict[str, bytes]:
    """Every figure that has something to show, by name (in page order). Text from run
    folders is drawn as the tables show it (:func:`_shown`), and matplotlib's warnings about
    glyphs missing from its font (which quote the character raw) are not printed."""
    import warnings

    report = _shown(report)
    out = {}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"(?s).*missing from (current )?font")
        for name, fn in (
            ("impact", impact_per_seed),
            ("cost", cost_vs_impact),
            ("trajectories", trajectories),
            ("axes", axes_figure),
            ("census", census_figure),
            ("legibility", legibility_figure),
        ):
            png = fn(report)
            if png:
                out[name] = png
    return out
