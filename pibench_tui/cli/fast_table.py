"""A table of plain text cells that prints like rich's default ``Table``, fast.

``pibench run`` over 10,000 seeds prints one row per seed: a rich ``Table`` measures and
renders each cell through several layers of renderables (~0.2 ms a cell, 22 s of CPU for
the 10,000-seed table), longer than the sweep's careers take on a free machine.
:class:`FastTable` lays the same table out itself, in the look of rich's default table
(``box.HEAVY_HEAD``, one space of padding, ``├─┼─┤`` under a section) — the same characters
— and hands rich one line at a time. A table wider than the console, or a cell holding
something rich would interpret (markup brackets, line breaks), is handed to a real rich
``Table`` instead, which shrinks and wraps as usual. Rows can be made on demand
(:meth:`FastTable.add_rows`) and are printed a thousand lines at a time
(:func:`print_table`), so a 10,000-seed table is never in memory whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

__all__ = ["FastTable", "print_table"]

Justify = Literal["left", "right"]


def _cells(text: str) -> int:
    """The width of ``text`` in terminal cells (ASCII: its length)."""
    if text.isascii():
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


PRINT_LINES = 1000
""":func:`print_table` hands rich this many lines of a :class:`FastTable` at a time (rich
keeps everything one ``print`` renders until it is written: a 10,000-line table held
~20 MB of segments and strings at once)."""

Rows = Callable[[], Iterable[Sequence[str]]]
"""``rows()``: the cells of some rows, made afresh at each call (see :meth:`FastTable.add_rows`)."""


class FastTable:
    """Columns of plain strings with optional section breaks, rendered like ``rich.table.Table()``.

    Args:
        columns: ``(header, justify)`` per column; ``justify`` is ``"left"`` or ``"right"``.

    Use :meth:`add_row`, :meth:`add_rows` and :meth:`add_section` as on a rich table, then
    ``console.print`` it (or :func:`print_table`). :meth:`to_rich` builds the equivalent rich
    table (the fallback, and what tests compare the fast layout against).
    """

    def __init__(self, columns: list[tuple[str, str]]) -> None:
        for header, justify in columns:
            if justify not in ("left", "right"):
                raise ValueError(f"column {header!r}: justify must be 'left' or 'right', got {justify!r}")
        self.columns: list[tuple[str, Justify]] = [(h, "right" if j == "right" else "left") for h, j in columns]
        self._blocks: list[list[tuple[str, ...]] | tuple[Rows, int]] = []  # rows kept, or made on demand
        self.count = 0
        """Rows in the table."""
        self.sections: set[int] = set()  # indexes of rows that end a section
        self._layout: tuple[bool, list[int]] | None = None  # (plain, widths), until a row is added

    def _row(self, cells: Sequence[str]) -> tuple[str, ...]:
        if len(cells) > len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells for a table of {len(self.columns)} columns")
        return tuple(cells) + ("",) * (len(self.columns) - len(cells))

    def add_row(self, *cells: str) -> None:
        """Append a row of plain strings (one per column; missing cells are empty).

        Raises:
            ValueError: more cells than columns.
        """
        row = self._row(cells)
        if not self._blocks or not isinstance(self._blocks[-1], list):
            self._blocks.append([])
        block = self._blocks[-1]
        assert isinstance(block, list)
        block.append(row)
        self.count += 1
        self._layout = None

    def add_rows(self, rows: Rows, count: int) -> None:
        """Append ``count`` rows that ``rows()`` makes each time the table reads them (once to
        measure the columns, once to print), so that a long table is never held whole: each
        call must make the same rows (plain strings, as :meth:`add_row`'s).

        Raises:
            ValueError: (when the rows are read) ``rows()`` made another number of rows, or
                a row longer than the columns.
        """
        self._blocks.append((rows, count))
        self.count += count
        self._layout = None

    def rows(self) -> Iterator[tuple[str, ...]]:
        """Every row, each padded to the columns (rows of :meth:`add_rows` made again)."""
        for block in self._blocks:
            if isinstance(block, list):
                yield from block
                continue
            make, count = block
            made = 0
            for cells in make():
                yield self._row(cells)
                made += 1
            if made != count:
                raise ValueError(f"add_rows was promised {count} rows and made {made}")

    def add_section(self) -> None:
        """Draw a line under the last row added (as ``Table.add_section``)."""
        if self.count:
            self.sections.add(self.count - 1)

    def to_rich(self) -> Any:
        """The same table as a ``rich.table.Table``."""
        from rich.table import Table

        t = Table()
        for header, justify in self.columns:
            t.add_column(header, justify=justify)
        for i, row in enumerate(self.rows()):
            t.add_row(*row, end_section=i in self.sections)
        return t

    def _plain_and_widths(self) -> tuple[bool, list[int]]:
        if self._layout is None:
            plain = not any("[" in h or "\n" in h for h, _ in self.columns)
            widths = [_cells(header) for header, _ in self.columns]
            for row in self.rows():
                # text rich prints as is: no markup brackets, no line break
                plain = plain and not any("[" in c or "\n" in c for c in row)
                widths = [max(w, _cells(c)) for w, c in zip(widths, row, strict=True)]
            self._layout = (plain, widths)
        return self._layout

    def widths(self) -> list[int]:
        """The width of each column's text, in terminal cells."""
        return list(self._plain_and_widths()[1])

    def lines(self) -> Iterator[tuple[str, list[tuple[str, bool]] | None]]:
        """The table's lines: ``(text, None)`` for a rule or body line, or ``("", parts)`` for
        the header line, whose parts are ``(text, is_header_cell)``."""
        widths = self.widths()

        def fit(text: str, width: int, justify: Justify) -> str:
            pad = " " * (width - _cells(text))
            return pad + text if justify == "right" else text + pad

        def rule(left: str, fill: str, cross: str, right: str) -> str:
            return left + cross.join(fill * (w + 2) for w in widths) + right

        yield rule("┏", "━", "┳", "┓"), None
        parts: list[tuple[str, bool]] = [("┃", False)]
        for (header, justify), w in zip(self.columns, widths, strict=True):
            parts += [(" " + fit(header, w, justify) + " ", True), ("┃", False)]
        yield "", parts
        yield rule("┡", "━", "╇", "┩"), None
        justs = [j for _, j in self.columns]
        last = self.count - 1
        separator = rule("├", "─", "┼", "┤")
        for i, row in enumerate(self.rows()):
            yield (
                (
                    "│ "
                    + " │ ".join(
                        (" " * (w - _cells(c)) + c) if j == "right" else (c + " " * (w - _cells(c)))
                        for c, w, j in zip(row, widths, justs, strict=True)
                    )
                    + " │"
                ),
                None,
            )
            if i in self.sections and i != last:
                yield separator, None
        yield rule("└", "─", "┴", "┘"), None

    def fits(self, width: int) -> bool:
        """True when the fast layout applies within ``width`` cells: every cell plain and
        the table no wider (else rich's own table shrinks and wraps it)."""
        plain, widths = self._plain_and_widths()
        return plain and sum(widths) + 3 * len(widths) + 1 <= width

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        if not self.fits(options.max_width):
            yield self.to_rich()
            return
        yield from _segments(console, self.lines())


class _Lines:
    """Some lines of a :class:`FastTable`, as a rich renderable."""

    def __init__(self, lines: list[tuple[str, list[tuple[str, bool]] | None]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        yield from _segments(console, self.lines)


def _segments(console: Any, lines: Iterable[tuple[str, list[tuple[str, bool]] | None]]) -> Iterator[Any]:
    """Rich segments of table lines (the header cells in the console's table header style)."""
    from rich.segment import Segment
    from rich.style import Style

    header = console.get_style("table.header", default=Style(bold=True))
    newline = Segment.line()
    for text, parts in lines:
        if parts is None:
            yield Segment(text)
        else:
            for part, is_header in parts:
                yield Segment(part, header if is_header else None)
        yield newline


def print_table(console: Any, table: Any) -> None:
    """Print ``table`` (a :class:`FastTable` or any rich renderable) on ``console``; a
    :class:`FastTable` that fits skips rich's cropping pass (its lines are known to fit) and
    goes out :data:`PRINT_LINES` lines at a time (the same text as one ``print``)."""
    if isinstance(table, FastTable) and table.fits(console.width):
        batch = []
        for line in table.lines():
            batch.append(line)
            if len(batch) == PRINT_LINES:
                console.print(_Lines(batch), crop=False)
                batch = []
        if batch:
            console.print(_Lines(batch), crop=False)
    else:
        console.print(table)
