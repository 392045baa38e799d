"""The Field panel's preprint table: one row per topic, a sparkline of the recent months on one
scale for every topic, this month's count and the mean of the last 12 months (MECHANICS.md §4:
the preprint count is the player's read of a topic's crowding)."""

from __future__ import annotations

import pytest

from pibench_tui.tui.widgets.field_panel import (
    BLOCKS,
    MEAN_MONTHS,
    MIN_MONTHS,
    PREPRINT_COLUMNS,
    preprint_table,
    spark,
)
from pibench_tui.tui.widgets.panel import hidden_columns
from pibench_tui.tui.widgets.rows_table import RowsTable
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_text
from .test_at_80x24 import shown_lines


def test_spark_maps_each_count_to_its_block_on_the_scale():
    """Hand-checked: a count v on the scale top shows block ⌊7 v / top⌋ (▁ = 0, █ = top alone);
    a month without a count is a space; a scale below 1 or a count off the scale is refused."""
    assert spark([0, 7, 14], 14) == "▁▄█"
    assert spark(range(15), 14) == "▁▁▂▂▃▃▄▄▅▅▆▆▇▇█"
    assert spark([0, 1, 2, 3, 4, 5, 6, 7], 7) == BLOCKS
    assert spark([13, 14], 14) == "▇█", "only the top is a full block"
    assert spark([0, 1], 1) == "▁█"
    assert spark([3, None, 0], 3) == "█ ▁"
    assert spark([], 5) == ""
    with pytest.raises(ValueError, match="at least 1"):
        spark([0], 0)
    with pytest.raises(ValueError, match="between 0 and the scale's top 14, not 15"):
        spark([15], 14)
    with pytest.raises(ValueError, match="not -1"):
        spark([-1], 14)


def _feed(counts: dict[str, list[int]], first: int = 1) -> list[dict]:
    """``field.preprints``-shaped rows: month by month, the topics in the given order."""
    months = len(next(iter(counts.values())))
    return [{"month": first + i, "topic": t, "preprint_count": c[i]} for i in range(months) for t, c in counts.items()]


def test_preprint_table_rows_on_one_scale_hand_checked():
    """Two topics over 14 months: the title names the months shown and the top of the one
    scale (the largest count shown, whichever topic has it), each row is the topic, its
    sparkline, the last month's count and the mean of the last 12 months; fewer months shown
    keep this month's count and the 12-month mean, and the scale is that of the months shown.
    The title names the months of the mean (the column says only "Mean"): QA found the column
    labelled "12-mo mean" in month 2, a mean of 2 months."""
    a = [9, 0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 8]  # months 1-14
    b = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 14, 2]
    feed = _feed({"alpha": a, "beta": b})
    title, rows = preprint_table(feed, 14)
    assert title == "Preprints per topic per month, months 1–14 (█ = 14); mean of months 3–14"
    assert PREPRINT_COLUMNS[-1] == "Mean"
    # alpha: 7·9//14 = 4 ▅, 0 ▁, 1 ▁, 2 ▂, 3 ▂, 4 ▃, 5 ▃, 6 ▄, 7s ▄, 8 ▅; months 3-14 sum 64
    assert rows[0] == ["alpha", "▅▁▁▂▂▃▃▄▄▄▄▄▄▅", "8", "5.3"]
    # beta: 14 is █, 2 is ▂ (7·2//14 = 1); mean (14 + 2) / 12 = 1.33
    assert rows[1] == ["beta", "▁▁▁▁▁▁▁▁▁▁▁▁█▂", "2", "1.3"]
    title, rows = preprint_table(feed, 3)
    assert title == "Preprints per topic per month, months 12–14 (█ = 14); mean of months 3–14"
    assert rows == [["alpha", "▄▄▅", "8", "5.3"], ["beta", "▁█▂", "2", "1.3"]]
    title, rows = preprint_table(_feed({"alpha": [2, 4]}), 12)
    assert title == "Preprints per topic per month, months 1–2 (█ = 4); mean of months 1–2"
    assert rows == [["alpha", "▄█", "4", "3.0"]], "fewer months than 12: their mean"
    assert preprint_table(_feed({"alpha": [5]}), 12)[0].endswith("(█ = 5); mean of month 1")
    title, rows = preprint_table(_feed({"alpha": [0, 0]}), 12)
    assert rows == [["alpha", "▁▁", "0", "0.0"]] and "(█ = 1);" in title, "no preprint at all: scale 1"
    assert preprint_table([], 12) == ("Preprints per topic per month: none yet", [])
    gap = [r for r in _feed({"alpha": [1, 2, 3], "beta": [3, 2, 1]}) if (r["month"], r["topic"]) != (3, "beta")]
    assert preprint_table(gap, 12)[1] == [["alpha", "▃▅█", "3", "2.0"], ["beta", "█▅ ", "—", "2.5"]]
    with pytest.raises(ValueError, match="at least 1 month"):
        preprint_table(feed, 0)


def _expected(app, months: int) -> tuple[int, int, list[list[str]]]:
    """From the API's feed, independently of the panel's code: the months shown, the scale's
    top and each topic's cells (sparkline through :func:`spark`)."""
    feed = app.game.call("field.preprints", 100_000)
    last = max(r["month"] for r in feed)
    first = max(1, last - months + 1)
    by = {}
    for r in feed:
        by.setdefault(r["topic"], {})[r["month"]] = r["preprint_count"]
    top = max(c[m] for c in by.values() for m in range(first, last + 1))
    rows = []
    for topic, c in by.items():
        recent = [c[m] for m in range(max(1, last - MEAN_MONTHS + 1), last + 1)]
        rows.append(
            [
                topic,
                spark([c[m] for m in range(first, last + 1)], top),
                str(c[last]),
                f"{sum(recent) / len(recent):.1f}",
            ]
        )
    return first, top, rows


def _cells(table: RowsTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


@pytest.mark.asyncio
async def test_after_a_month_close_each_topic_shows_the_new_months_count():
    """At month 30 the Field panel is drawn, a month closes, the panel is shown again: one row
    per topic in the API's order, "This month" is the API's count for the new month, the last
    block of each sparkline is that count on the scale the title names (the largest count
    shown), the sparklines show as many months as fit at 120 columns (beyond 12), the 12-month
    mean is the API's; the rows were updated in place, not filled again, and drawn once for the
    panel's width: each changed cell updated once (the hidden panel has no size; drawn for the
    12 months that fit in none, then again after its Resize, each sparkline changed twice)."""
    w = new_world()
    play_to(w, 30, "baseline")
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", panel="field")
        await press(pilot, "1", panel="people")
        table = app.query_one("#preprint-table", RowsTable)
        rebuilds = table.rebuilds
        before, updated = _cells(table), table.cells_updated
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")
        await press(pilot, "6", panel="field")
        await drain(pilot)
        month = app.game.world.month
        new = {r["topic"]: r["preprint_count"] for r in app.game.call("field.preprints", 1)}
        assert {r["month"] for r in app.game.call("field.preprints", 1)} == {month}
        cells = _cells(table)
        assert [c[0] for c in cells] == list(new), "one row per topic, in the API's order"
        months = len(cells[0][1])
        assert MIN_MONTHS < months <= month and all(len(c[1]) == months for c in cells)
        first, top, expected = _expected(app, months)
        mean = f"mean of months {month - MEAN_MONTHS + 1}–{month}"
        assert f"Preprints per topic per month, months {first}–{month} (█ = {top}); {mean}" in screen_text(app)
        for topic, line, now, _mean in cells:
            assert now == str(new[topic])
            assert line[-1] == BLOCKS[7 * new[topic] // top], topic
        assert cells == expected
        assert table.rebuilds == rebuilds and table.cells_updated > 0, "updated in place"
        changed = sum(a != b for row, was in zip(cells, before, strict=True) for a, b in zip(row, was, strict=True))
        assert table.cells_updated - updated == changed, "each changed cell updated once"


@pytest.mark.asyncio
async def test_the_preprint_table_fits_at_80x24_and_follows_the_width():
    """At 80x24 (month 45) the preprint table shows every column whole, all topics without a
    scroll bar of its own, no line cut, at least 12 months a sparkline; widened to 120 columns
    it shows more months (the title says which), narrowed again fewer, each time the API's.
    QA: under the news table only 3 of its rows were on screen; it comes first now, every
    topic's row on screen when the panel opens."""
    w = new_world()
    play_to(w, 45, "baseline")
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "6", panel="field")
        await drain(pilot)
        table = app.query_one("#preprint-table", RowsTable)
        topics = {r["topic"] for r in app.game.call("field.preprints", 1)}
        assert table.row_count == len(topics)
        on_screen = screen_text(app).splitlines()
        for topic in topics:  # the preprint row (a sparkline), not the news row naming the topic
            assert any(x.lstrip().startswith(topic) and any(b in x for b in BLOCKS) for x in on_screen), topic
        assert hidden_columns(table) == []
        assert not table.show_vertical_scrollbar and table.size.height == len(topics) + 1
        assert table.region.right <= 80
        lines = shown_lines(table)
        assert not any("…" in line for line in lines), lines
        narrow = len(_cells(table)[0][1])
        assert narrow >= MIN_MONTHS
        title = f"months {45 - narrow + 1}–45 (█ = {_expected(app, narrow)[1]}); mean of months 34–45"
        assert title in screen_text(app), "the title whole at 80 columns"
        assert _cells(table) == _expected(app, narrow)[2]
        await pilot.resize_terminal(120, 40)
        await drain(pilot)
        wide = len(_cells(table)[0][1])
        assert wide == 45 > narrow, "all 45 months fit at 120 columns"
        assert _cells(table) == _expected(app, wide)[2]
        assert "months 1–45 (█ = " in screen_text(app)
        assert hidden_columns(table) == []
        await pilot.resize_terminal(80, 24)
        await drain(pilot)
        assert len(_cells(table)[0][1]) == narrow and hidden_columns(table) == []
