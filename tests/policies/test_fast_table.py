"""The per-seed tables of `pibench run | compare` print exactly as rich's own table would."""

from __future__ import annotations

import io

from rich.console import Console

from pibench_tui.cli.fast_table import FastTable, print_table


def _printed(renderable, width: int, fast: bool = False) -> str:
    con = Console(file=io.StringIO(), width=width, highlight=False)
    if fast:
        print_table(con, renderable)
    else:
        con.print(renderable)
    return con.file.getvalue()


def _table(rows: list[tuple[str, ...]], sections: tuple[int, ...] = ()) -> FastTable:
    t = FastTable([("seed", "right"), ("Impact", "right"), ("policy", "left"), ("collapse", "right")])
    for i, row in enumerate(rows):
        t.add_row(*row)
        if i in sections:
            t.add_section()
    return t


ROWS = [
    ("1", "233.6", "baseline", "—"),
    ("sealed:3fa9c2", "1,234.5 (†17)", "do-nothing", "12"),
    ("103", "0.0", "", ""),
    ("mean", "12.25"),
    ("collapses",),
]


def test_fast_table_prints_like_rich_table():
    """Body rows, short rows, non-ASCII cells (—, †), a section line under a middle row and one
    under the last row (not drawn), and a table without rows: the same characters as rich's
    ``Table`` for the same cells."""
    for t in (_table(ROWS, sections=(2, 4)), _table(ROWS[:1]), _table([])):
        assert t.fits(200)
        assert _printed(t, 200, fast=True) == _printed(t.to_rich(), 200)
        assert _printed(t, 200) == _printed(t.to_rich(), 200)


def test_fast_table_falls_back_to_rich_when_it_does_not_fit_or_holds_markup():
    """A console narrower than the table, or a cell with markup brackets, gets rich's own
    rendering (which shrinks columns or interprets the markup)."""
    t = _table(ROWS, sections=(2,))
    assert not t.fits(30)
    assert _printed(t, 30, fast=True) == _printed(t.to_rich(), 30)
    m = _table([("1", "[bold]2[/bold]", "x", "y")])
    assert not m.fits(200)
    out = _printed(m, 200, fast=True)
    assert out == _printed(m.to_rich(), 200) and "[bold]" not in out


def test_fast_table_refuses_a_row_longer_than_its_columns():
    """More cells than columns is an error naming both counts."""
    t = FastTable([("a", "left")])
    try:
        t.add_row("1", "2")
    except ValueError as exc:
        assert "2 cells" in str(exc) and "1 columns" in str(exc)
    else:
        raise AssertionError("a row longer than the table was accepted")


def test_rows_made_on_demand_print_in_batches_as_one_table(monkeypatch):
    """Rows given by add_rows (made again at each read, never kept) print exactly as the same
    rows added one by one and as rich's table, across several print_table batches of
    PRINT_LINES lines; they are made twice (measure, print); a maker that makes another
    number of rows than promised is an error naming both."""
    import pytest

    import pibench_tui.cli.fast_table as fast_table

    monkeypatch.setattr(fast_table, "PRINT_LINES", 7)
    rows = [(str(i), f"{i * 1.5:,.1f}", "x" * (i % 5), "—" if i % 3 else str(i)) for i in range(40)]
    kept = _table(rows + ROWS[3:], sections=(39, 41))
    lazy = FastTable(kept.columns)
    made = []

    def make():
        made.append(1)
        return iter(rows)

    lazy.add_rows(make, len(rows))
    lazy.add_section()
    lazy.add_row(*ROWS[3])
    lazy.add_row(*ROWS[4])
    lazy.add_section()
    assert lazy.count == kept.count == 42
    printed = _printed(lazy, 200, fast=True)
    assert len(made) == 2
    assert printed == _printed(kept, 200) == _printed(kept.to_rich(), 200)
    assert printed.count("\n") > 3 * fast_table.PRINT_LINES
    bad = FastTable([("a", "left")])
    bad.add_rows(lambda: iter([("1",)]), 2)
    with pytest.raises(ValueError, match="promised 2 rows and made 1"):
        bad.widths()
