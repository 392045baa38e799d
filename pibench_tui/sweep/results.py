"""A sweep's results in flat memory: a few numbers a career here, the full rows on disk.

A career's row (:func:`world.runner.result_row`) is ~2 kB of Python objects, most of it its
capability axes; a sweep that kept every row (and printed its table from strings all held
at once) peaked 4.6 MB higher per 1,000 seeds (``pibench run baseline --jobs 2``: 47.5 MB at
1,000 seeds, 88.8 MB at 10,000), and 0.44 MB since (44.2 MB, 48.2 MB; ``bench/sweep.py
--growth``). :class:`GroupRows` keeps, per career, only the numbers the tables and summaries
read, in typed arrays (no Python object per value):

* the :data:`~world.runner.ROW_FIELDS` columns: 5 floats and 10 integers, 120 bytes;
* with ``axes=True`` (``pibench run``'s pooled capability axes) the per-run axes and the
  pooled axes' sums and counts, 152 bytes more;
* where its row's line starts in the sweep journal (when the sweep writes ``--json`` or
  ``--csv``), 8 bytes.

The full rows (axes included) for ``--json``/``--csv`` are read back from the journal
one at a time when the files are written (:func:`write_json`), so the files are the bytes
they were when every row was kept in memory, and the tables, summaries and pooled axes are
computed from the same numbers in the same (seed) order.
"""

from __future__ import annotations

import json
import re
import secrets
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from .journal import SweepJournal, atomic_text_writer

__all__ = ["GroupRows", "write_json"]

FLOAT_FIELDS = frozenset({"impact", "earned", "projection", "grant_dollars", "final_budget"})
"""The :data:`~world.runner.ROW_FIELDS` that are floats; the others but ``seed`` are integers
(``collapse_month`` is ``None`` or a month)."""

_NO_COLLAPSE = -1
"""``collapse_month`` of a career that did not collapse (months count from 1)."""

_UNDEFINED = float("nan")
"""A per-run axis that is undefined (``None``); a defined axis is never NaN (means and ratios
of finite numbers), which :meth:`GroupRows.add` checks."""


class GroupRows(Sequence[dict[str, Any]]):
    """The rows of one group of a sweep, in seed order, as the tables read them.

    Each item is a row of the :data:`~world.runner.ROW_FIELDS` (``seed`` first), with the
    types of :func:`~world.runner.result_row`'s; the capability axes are not in it (see
    :meth:`pooled_axes`), and the full rows come from the journal (:meth:`full_rows`).
    A seed listed twice is one career shown twice, as before.

    Args:
        seeds: the group's seeds, in table order.
        journal: the sweep journal the full rows are in (needed by :meth:`full_rows`).
        axes: also keep what :meth:`pooled_axes` needs.
    """

    def __init__(self, seeds: Sequence[int], journal: SweepJournal | None = None, axes: bool = False) -> None:
        from world.runner import ROW_FIELDS

        self.seeds = tuple(seeds)
        self._slot: dict[int, int] = {}  # seed -> its career's place in the arrays
        for seed in self.seeds:
            self._slot.setdefault(seed, len(self._slot))
        n = len(self._slot)
        self._fields = tuple(f for f in ROW_FIELDS if f != "seed")
        self._names = ("seed", *self._fields)
        self._columns = tuple(array("d" if f in FLOAT_FIELDS else "q", bytes(8 * n)) for f in self._fields)
        self._collapse = self._fields.index("collapse_month")
        self._done = bytearray(n)
        self._journal = journal
        self._offsets = array("q", bytes(8 * n)) if journal is not None else None
        self._axes = axes
        self._axis_names: list[str] | None = None  # set by the first row
        self._values: dict[str, array[float]] = {}
        self._pools: dict[str, tuple[array[float], array[int]]] = {}

    def wants(self, seed: int) -> bool:
        """Whether ``seed`` is one of the group's."""
        return seed in self._slot

    def missing(self) -> tuple[int, ...]:
        """The seeds whose career has not been added, in seed order, each once."""
        return tuple(seed for seed, slot in self._slot.items() if not self._done[slot])

    def add(self, row: dict[str, Any], offset: int | None = None) -> bool:
        """Keep a finished career's numbers.

        Args:
            row: its row (:func:`~world.runner.result_row`).
            offset: where its line starts in the journal.

        Returns:
            ``False`` if that seed's career was already added (it is replaced).

        Raises:
            KeyError: its seed is not one of the group's.
            TypeError: a column holds a value of another type (an integer column a float).
            ValueError: a defined capability axis is NaN.
        """
        slot = self._slot[int(row["seed"])]
        values = [row[field] for field in self._fields]
        if values[self._collapse] is None:
            values[self._collapse] = _NO_COLLAPSE
        for column, value in zip(self._columns, values, strict=True):
            column[slot] = value
        if self._offsets is not None and offset is not None:
            self._offsets[slot] = offset
        if self._axes:
            self._add_axes(slot, row["axes"])
        new = not self._done[slot]
        self._done[slot] = 1
        return new

    def _add_axes(self, slot: int, result: dict[str, Any]) -> None:
        axes, pool = result["axes"], result["pool"]
        if self._axis_names is None:
            n = len(self._done)
            self._axis_names = list(axes)
            self._values = {k: array("d", bytes(8 * n)) for k in axes if k not in pool}
            self._pools = {k: (array("d", bytes(8 * n)), array("q", bytes(8 * n))) for k in axes if k in pool}
        for key, column in self._values.items():
            value = axes[key]
            if value is None:
                column[slot] = _UNDEFINED
            elif value != value:
                raise ValueError(f"capability axis {key} is NaN (an undefined axis is None)")
            else:
                column[slot] = value
        for key, (totals, counts) in self._pools.items():
            totals[slot], counts[slot] = pool[key]

    def _order(self) -> Sequence[int]:
        """The careers' places in seed order (a seed listed twice, twice)."""
        if len(self._slot) == len(self.seeds):
            return range(len(self.seeds))
        return [self._slot[seed] for seed in self.seeds]

    def _row(self, seed: int, slot: int) -> dict[str, Any]:
        if not self._done[slot]:
            raise LookupError(f"the career of seed {seed} has not finished")
        return self._dict((seed, *[column[slot] for column in self._columns]))

    def _dict(self, values: tuple[Any, ...]) -> dict[str, Any]:
        row = dict(zip(self._names, values, strict=True))
        if row["collapse_month"] == _NO_COLLAPSE:
            row["collapse_month"] = None
        return row

    def __len__(self) -> int:
        return len(self.seeds)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._row(seed, self._slot[seed]) for seed in self.seeds[i]]
        seed = self.seeds[i]
        return self._row(seed, self._slot[seed])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if isinstance(self._order(), range) and all(self._done):
            # each career once, all finished: the arrays side by side (as _row, a column read at a time)
            for values in zip(self.seeds, *self._columns, strict=True):
                yield self._dict(values)
            return
        for seed in self.seeds:
            yield self._row(seed, self._slot[seed])

    def pooled_axes(self) -> dict[str, float | None]:
        """:func:`world.runner.pooled_axes` of the full rows: the same sums in the same order.

        Raises:
            RuntimeError: the group was made without ``axes=True``.
        """
        from world.axes import pool_axis_columns

        if not self._axes:
            raise RuntimeError("these rows were kept without their capability axes (axes=True)")
        if self._axis_names is None:
            return {}
        order = self._order()
        values = {
            key: (None if v != v else v for v in _in_order(column, order)) for key, column in self._values.items()
        }
        pools = {key: (_in_order(t, order), _in_order(c, order)) for key, (t, c) in self._pools.items()}
        return pool_axis_columns(self._axis_names, values, pools)

    def full_rows(self) -> Iterator[dict[str, Any]]:
        """The full rows (capability axes included), in seed order, read from the journal one
        at a time.

        Raises:
            RuntimeError: the sweep kept no journal.
        """
        if self._journal is None or self._offsets is None:
            raise RuntimeError("the full rows of a sweep are in its journal, and this sweep kept none")
        offsets = self._offsets
        return self._journal.rows_at(offsets[i] for i in self._order())


def _in_order(column: Any, order: Sequence[int]) -> Any:
    """A column's values in seed order: the array itself when each career is there once."""
    return column if isinstance(order, range) else [column[i] for i in order]


def write_json(path: str, data: Any) -> None:
    """Write ``json.dumps(data, indent=2) + "\\n"`` atomically, where ``data`` may hold
    :class:`GroupRows` (at any depth): each is written as the list of its full rows, read from
    the journal one at a time while the text is written, so the text is the one of ``data``
    with every row in memory, and no more than a row of it is in memory at once.

    How: ``json.dumps`` encodes ``data`` with a placeholder string for each :class:`GroupRows`
    (the encoder's documented ``default`` hook), and the text is written with each
    placeholder replaced by its rows' array (:func:`_rows_text`), indented as ``json.dumps``
    indents a list at the placeholder's depth.

    Raises:
        OSError: the file cannot be written (the old one is untouched).
        RuntimeError: a :class:`GroupRows` without a journal.
    """
    groups: list[GroupRows] = []
    token = f"pibench-rows-{secrets.token_hex(8)}"  # in no text of data (a random name)

    def placeholder(o: Any) -> str:
        if isinstance(o, GroupRows):
            groups.append(o)
            return f"{token}-{len(groups) - 1}"
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    skeleton = json.dumps(data, indent=2, default=placeholder)
    # [text, group number, text, group number, ..., text]: each placeholder as json.dumps wrote it
    parts = re.split(f'"{token}-([0-9]+)"', skeleton)
    if parts[1::2] != [str(i) for i in range(len(groups))]:  # pragma: no cover - a token in data
        raise RuntimeError("a sweep's rows could not be placed in its JSON document")
    with atomic_text_writer(path) as out:
        for i, text in enumerate(parts):
            if i % 2 == 0:
                out.write(text)
            else:
                line = parts[i - 1].rpartition("\n")[2]  # the placeholder's line, up to it
                for piece in _rows_text(groups[int(text)], " " * (len(line) - len(line.lstrip(" ")))):
                    out.write(piece)
        out.write("\n")


_INDENTED = json.JSONEncoder(indent=2)
"""``json.dumps(indent=2)``'s encoder, made once (``json.dumps`` makes one per call)."""


def _rows_text(rows: GroupRows, pad: str) -> Iterator[str]:
    """The text of ``json.dumps(rows' full rows, indent=2)`` for a list whose line is indented
    by ``pad`` (its items one level in, its closing bracket at ``pad``), a row at a time: a
    row's own lines are ``json.dumps(row, indent=2)``'s shifted by the item indent (JSON text
    has no newline inside a string, so every newline of it starts a line)."""
    inner = "\n" + pad + "  "
    empty = True
    for row in rows.full_rows():
        yield ("[" if empty else ",") + inner + _INDENTED.encode(row).replace("\n", inner)
        empty = False
    yield "[]" if empty else "\n" + pad + "]"
