"""The report's figures (QA of issue 26 §5): no title, suptitle or legend drawn over another
text, cost plotted for the labels with a price and the others marked apart, and points of equal
value never hiding each other."""

from __future__ import annotations

from typing import Any

import pytest

from pibench_tui.report.analysis import build_report
from tests.report.test_report import _career

pytest.importorskip("matplotlib")


def _grid(labels: dict[str, float], seeds: int, **kw: Any) -> list:
    """Careers with 12-month trajectories: Impact = the label's base + a seed effect."""
    out = []
    for n, (label, base) in enumerate(labels.items()):
        for s in range(1, seeds + 1):
            impact = base + (s * 37 % 23)
            earned = [impact * 0.4 * (m + 1) / 12 for m in range(12)]
            out.append(
                _career(
                    label=label,
                    seed=s,
                    impact=impact,
                    earned=earned[-1],
                    projection=impact - earned[-1],
                    earned_by_month=earned,
                    budget_by_month=[6e5 - 1e4 * m * (n + 1) for m in range(12)],
                    months=12,
                    **kw,
                )
            )
    return out


def _drawn(monkeypatch, fn: Any, report: dict) -> Any:
    """The matplotlib figure ``fn(report)`` draws (kept open instead of saved)."""
    from pibench_tui.report import figures

    kept: list[Any] = []
    monkeypatch.setattr(figures, "_png", lambda fig: kept.append(fig) or b"png")
    assert fn(report) == b"png"
    (fig,) = kept
    fig.canvas.draw()
    return fig


def _texts(fig: Any) -> list[tuple[str, Any]]:
    """(name, window extent) of every title, suptitle, legend, axis label and shown tick label."""
    r = fig.canvas.get_renderer()
    out = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(("suptitle", fig._suptitle.get_window_extent(r)))
    out += [("figure legend", lg.get_window_extent(r)) for lg in fig.legends]
    for i, ax in enumerate(fig.axes):
        if not ax.axison:
            continue
        if ax.title.get_text():
            out.append((f"axes {i} title", ax.title.get_window_extent(r)))
        for what, label in (("xlabel", ax.xaxis.label), ("ylabel", ax.yaxis.label)):
            if label.get_text():
                out.append((f"axes {i} {what}", label.get_window_extent(r)))
        if ax.get_legend() is not None:
            out.append((f"axes {i} legend", ax.get_legend().get_window_extent(r)))
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                if tick.label1.get_text() and tick.label1.get_visible() and lo <= tick.get_loc() <= hi:
                    out.append((f"axes {i} tick {tick.label1.get_text()}", tick.label1.get_window_extent(r)))
    return out


def _overlaps(fig: Any) -> list[tuple[str, str]]:
    """Pairs of texts drawn over each other where one is a title, a suptitle or a legend."""
    texts = _texts(fig)
    lead = ("title", "legend")
    return [
        (a, b)
        for i, (a, box_a) in enumerate(texts)
        for b, box_b in texts[i + 1 :]
        if (any(w in a for w in lead) or any(w in b for w in lead)) and box_a.overlaps(box_b)
    ]


@pytest.mark.parametrize("labels", [1, 8])
def test_no_title_or_legend_is_drawn_over_another_text(monkeypatch, labels):
    """With one label and with eight, every figure's titles, suptitle and legends keep clear
    of the other texts (constrained layout): before, the census legend covered its title with
    one label, and the trajectories' suptitle lay on the panel titles with eight."""
    from pibench_tui.report import figures

    names = {f"model-{i}-with-a-long-name": 100.0 + 30 * (i % 3) for i in range(labels)}
    rep = build_report(_grid(names, 4, tokens=50_000, prompt_tokens=40_000, completion_tokens=10_000))
    for fn in (
        figures.impact_per_seed,
        figures.cost_vs_impact,
        figures.trajectories,
        figures.census_figure,
        figures.legibility_figure,
    ):
        assert _overlaps(_drawn(monkeypatch, fn, rep)) == [], fn.__name__


def test_the_cost_plot_keeps_usd_for_priced_labels_and_marks_the_unpriced_apart(monkeypatch):
    """One label priced, two not: the cost axis is USD per career with the priced label on it,
    and the unpriced ones are hollow markers in a "no price" panel, named "(no price)" in the
    legend; before, one unpriced label turned the whole plot to tokens. With no price at all
    the axis is tokens and says how to give prices."""
    from pibench_tui.report import figures

    careers = _grid({"priced": 300.0, "free-a": 200.0, "free-b": 100.0}, 3, tokens=5_000, prompt_tokens=4_000)
    rep = build_report(careers, prices={"priced": (1.0, 2.0)})
    fig = _drawn(monkeypatch, figures.cost_vs_impact, rep)
    main, side = fig.axes
    assert main.get_xlabel() == "USD per career" and side.get_title() == "no price"
    assert [t.get_text() for t in side.get_xticklabels()] == ["free-a", "free-b"]
    names = [t.get_text() for t in fig.legends[0].get_texts()]
    assert names == ["priced", "free-a (no price)", "free-b (no price)"]
    (priced_point,) = [c for c in main.collections if type(c).__name__ == "PathCollection"]
    assert priced_point.get_offsets()[0][0] == pytest.approx(rep["leaderboard"][0]["cost_per_career"])
    fig = _drawn(monkeypatch, figures.cost_vs_impact, build_report(careers))
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel().startswith("tokens per career (no label has a price")


def test_points_of_equal_cost_and_impact_are_drawn_side_by_side(monkeypatch):
    """Two labels with the same tokens per career and the same mean Impact: their points are
    drawn apart (the title says points of about the same cost and Impact are set side by side)
    while their data stay equal; before, one covered the other. In the Impact plot a career at
    its label's mean is drawn over the mean's bar, not under it."""
    from pibench_tui.report import figures

    rep = build_report(_grid({"twin-a": 100.0, "twin-b": 100.0}, 3, tokens=5_000))
    fig = _drawn(monkeypatch, figures.cost_vs_impact, rep)
    ax = fig.axes[0]
    points = [c for c in ax.collections if type(c).__name__ == "PathCollection"]
    data = [tuple(c.get_offsets()[0]) for c in points]
    shown = [tuple(c.get_offset_transform().transform(c.get_offsets())[0]) for c in points]
    assert len(points) == 2 and data[0] == data[1]
    assert abs(shown[0][0] - shown[1][0]) >= 8 and "side by side" in ax.get_title()
    fig = _drawn(monkeypatch, figures.impact_per_seed, rep)
    ax = fig.axes[0]
    bars = [c for c in ax.collections if type(c).__name__ == "LineCollection" and c.get_linewidth()[0] > 2]
    careers = [c for c in ax.collections if type(c).__name__ == "PathCollection" and len(c.get_offsets())]
    assert bars and len(careers) == 6 and min(c.get_zorder() for c in careers) > max(b.get_zorder() for b in bars)
