"""A table that remembers the rows it shows and, given new rows, changes only what differs.

Textual's :class:`~textual.widgets.DataTable` re-measures every row when it is cleared and
refilled; a month usually changes a few cells of a few rows. :meth:`RowsTable.show_rows`
updates the cells that changed (``DataTable.update_cell``), removes the rows that went and
adds the rows that came; the table is rebuilt only when the rows that stay change order.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


def as_text(x: object) -> Text:
    """A table cell as plain text (``None`` → empty)."""
    return Text("" if x is None else str(x))


def _appended(old: dict[str, tuple], new: dict[str, tuple]) -> list[str] | None:
    """The keys of ``new`` to add after the rows kept from ``old``; ``None`` when the table must
    be rebuilt instead: it was empty, the kept rows changed order, or a new row sits among them."""
    kept_old = [k for k in old if k in new]
    kept_new = [k for k in new if k in old]
    appended = list(new)[len(kept_new) :]
    if not old or kept_old != kept_new or any(k in old for k in appended):
        return None
    return appended


def _cell(x: object) -> Text:
    return x if isinstance(x, Text) else as_text(x)


def row_keys(rows: Sequence[Sequence[object]]) -> list[str]:
    """Each row's key: its first cell (an id), numbered from the second row with that first
    cell on (``"2024#1"``) so that keys are unique and a row keeps its key when rows are added
    after it."""
    seen: dict[str, int] = {}
    keys = []
    for r in rows:
        first = str(r[0]) if r else ""
        n = seen.get(first, 0)
        seen[first] = n + 1
        keys.append(first if n == 0 else f"{first}#{n}")
    return keys


class RowsTable(DataTable):
    """A row-cursor, zebra-striped :class:`~textual.widgets.DataTable` with these columns that
    remembers its rows (module docstring).

    Attributes:
        rebuilds: times every row was removed and added again (the first fill counts).
        rows_added, rows_removed, cells_updated: rows and cells changed in place so far.
    """

    def __init__(self, *columns: str, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.add_columns(*columns)
        self._shown: dict[str, tuple] = {}  # row key -> its cells, in the order shown
        self.rebuilds = 0
        self.rows_added = 0
        self.rows_removed = 0
        self.cells_updated = 0

    @property
    def shown_rows(self) -> list[tuple]:
        """The rows shown, in order, as they were given (cells before conversion to text)."""
        return list(self._shown.values())

    def show_rows(self, rows: Sequence[Sequence[object]]) -> None:
        """Show ``rows`` (one sequence of cells per row, as many as the columns), keeping the
        cursor on its row: changed cells are updated, gone rows removed, new rows added at the
        end; a change of order among the rows kept rebuilds the table."""
        new = dict(zip(row_keys(rows), (tuple(r) for r in rows), strict=True))
        old = self._shown
        if new == old and list(new) == list(old):
            return
        appended = _appended(old, new)
        if appended is None:
            self._rebuild(new)
            return
        for k in old:
            if k not in new:
                self.remove_row(RowKey(k))
                self.rows_removed += 1
        if not self._update_kept(old, new):
            self._rebuild(new)
            return
        for k in appended:
            self.add_row(*[_cell(c) for c in new[k]], key=k)
            self.rows_added += 1
        self._shown = new

    def _update_kept(self, old: dict[str, tuple], new: dict[str, tuple]) -> bool:
        """Update the changed cells of the rows in both ``old`` and ``new``; ``False`` (the
        table is to be rebuilt) at a kept row whose number of cells changed."""
        columns = list(self.columns)
        for k in new:
            if k not in old:
                continue
            before, after = old[k], new[k]
            if before == after:
                continue
            if len(before) != len(after):
                return False
            for col, (a, b) in zip(columns, zip(before, after, strict=True), strict=True):
                if a != b:
                    self.update_cell(RowKey(k), col, _cell(b), update_width=True)
                    self.cells_updated += 1
        return True

    def _rebuild(self, new: dict[str, tuple]) -> None:
        row = self.cursor_row
        self.clear()
        for k, cells in new.items():
            self.add_row(*[_cell(c) for c in cells], key=k)
        self._shown = new
        self.rebuilds += 1
        if new:
            self.move_cursor(row=min(row, len(new) - 1), animate=False)
