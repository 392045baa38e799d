"""The per-seed tables of `pibench run | compare` print exactly as rich's own table would."""

from __future__ import annotations

import io

from rich.console import Console

from pibench_tui.fast_table import FastTable, print_table


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
