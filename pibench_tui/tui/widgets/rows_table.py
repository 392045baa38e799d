"""A table that remembers the rows it shows and, given new rows, changes only what differs.

Textual's :class:`~textual.widgets.DataTable` re-measures every row when it is cleared and
refilled; a month usually changes a few cells of a few rows, or puts a few new rows on top of
a newest-first list (the ledger, the news, past events). :meth:`RowsTable.show_rows` updates
the cells that changed (``DataTable.update_cell``), removes the rows that went, adds the rows
that came and, when the order is not that of the rows as added, puts the rows in the order
given (as ``DataTable.sort`` does): only the new rows are measured. The table is filled from
scratch only the first time (and if a kept row's number of cells changed).

A DataTable draws every cell again whenever any cell changes or the table gains or loses the
focus (its caches are all cleared then), each cell through Rich's console (padding, wrapping,
measuring): ~0.3 ms a cell, most of a month close's repaint of the Lab and of a tab switch.
:meth:`RowsTable._render_cell` draws a one-line cell of plain text as the segments that path
gives (:func:`plain_cell`), and hands any other cell to DataTable.

A tab switch hides one panel's table (it loses the focus) and shows another's (it gets the
focus). DataTable then forgets every line it drew twice: at the restyle for ``:focus`` and at
the Resize Textual sends a widget shown again, even at its old size. A RowsTable keeps them
when nothing they were drawn from changed: DataTable's caches are keyed by the table's
pseudo-classes (focus, hover, enabled), its style and its data, but not by the styles of its
parts (cursor, header, stripes...), so a restyle keeps them only if those parts look as they
did the last time the table was drawn in that state (:meth:`RowsTable.notify_style_update`),
and a Resize keeps them only at the size of the last one. A table shown again unchanged is
then drawn from its caches; changed cells, a new size, a new theme draw afresh as before.

The restyle itself (Textual's stylesheet matched again against the table, its nine parts and
its scrollbars, which it then repaints) was about a fifth of a tab switch: the table left
behind was restyled as unfocused while its panel was being hidden, and restyled as focused
again when its panel was next shown and it took the focus back. A RowsTable whose panel (or
itself) is hidden (``display`` off) when it loses or gets the focus is not restyled then
(:meth:`RowsTable.watch_has_focus`): nothing shows it, and when it gets the focus back its
styles are already those of a focused table. A table shown again in the other state (the
panel's second table, focused when the panel was left, beside the first one focused now) is
restyled before its first line is drawn (:meth:`RowsTable.render_lines`; DataTable's
``:focus`` rules only colour it, so this changes no layout): every table is drawn in the
styles of its focus, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual._two_way_dict import TwoWayDict
from textual._types import SegmentLines
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


def as_text(x: object) -> Text:
    """A table cell as plain text (``None`` → empty)."""
    return Text("" if x is None else str(x))


def _cell(x: object) -> Text:
    return x if isinstance(x, Text) else as_text(x)


def plain_cell(cell: object, width: int, padding: int, style: Style, post_style: Style) -> SegmentLines | None:
    """The one line of a table cell ``width`` cells wide, as DataTable renders it through Rich
    (``Styled(Padding(cell, (0, padding)), style, post_style)``, no wrap): ``padding`` spaces,
    the text, spaces to fill, ``padding`` spaces, each segment in ``style + post_style``.
    ``None`` (let Rich render it) unless ``cell`` is a :class:`~rich.text.Text` without style or
    spans, tabs or line breaks, that fits in the width less the padding."""
    if type(cell) is not Text or cell.spans or cell.style or padding != 1:
        return None
    text = cell.plain
    room = width - 2
    if "\n" in text or "\t" in text or room < 0:
        return None
    used = cell_len(text)
    if used > room:
        return None
    if post_style:
        style = style + post_style
    pad = Segment(" ", style)
    line = [pad, Segment(text, style)]
    if used < room:
        line.append(Segment(" " * (room - used), style))
    line.append(pad)
    return [line]


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
        reorders: times the rows were put in a new order (new rows not last, or kept rows moved).
    """

    BINDINGS = [
        # DataTable's home/end scroll sideways with a row cursor; here they move the cursor,
        # whose row is the one the panel's actions target (← → still scroll sideways).
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, *columns: str, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.add_columns(*columns)
        self._shown: dict[str, tuple] = {}  # row key -> its cells, in the order shown
        self.rebuilds = 0
        self.rows_added = 0
        self.rows_removed = 0
        self.cells_updated = 0
        self.reorders = 0
        self._line_style: Style | None = None  # the widget's style during render_lines
        self._resized_to: Size | None = None  # the size of the last Resize
        self._looks: dict[object, tuple] = {}  # pseudo-class state -> parts' styles, while cached
        self._restyled = False  # restyled since last drawn
        self._styled_focus: bool | None = None  # has_focus when the stylesheet last styled it
        self._laid_out: tuple | None = None  # size, container size, virtual size at the last layout
        self._chosen: str | None = None  # the row id the player last put the cursor on (player_row)

    # A player's moves of the cursor also bring its row into the panel's view (reveal_cursor);
    # the cursor placed by a fill or a focus does not scroll the panel (it opens at its top).
    def action_cursor_up(self) -> None:
        super().action_cursor_up()
        self._player_moved()

    def action_cursor_down(self) -> None:
        super().action_cursor_down()
        self._player_moved()

    def action_page_up(self) -> None:
        super().action_page_up()
        self._player_moved()

    def action_page_down(self) -> None:
        super().action_page_down()
        self._player_moved()

    def action_scroll_top(self) -> None:
        super().action_scroll_top()
        self._player_moved()

    def action_scroll_bottom(self) -> None:
        super().action_scroll_bottom()
        self._player_moved()

    async def _on_click(self, event: events.Click) -> None:
        await super()._on_click(event)
        self._player_chose()

    def _player_moved(self) -> None:
        """The player moved the cursor with a key: its row comes into the panel's view
        (:meth:`reveal_cursor`) and is theirs (:meth:`player_row`)."""
        self.reveal_cursor()
        self._player_chose()

    def _player_chose(self) -> None:
        """The player moved the cursor (a key, a click): its row is theirs (:meth:`player_row`)."""
        self._chosen = self._cursor_id()

    def _cursor_id(self) -> str | None:
        """The first cell (an id) of the cursor's row, or ``None`` (no rows)."""
        if not self.row_count or not self.is_valid_row_index(self.cursor_row):
            return None
        return str(self.get_row_at(self.cursor_row)[0])

    def player_row(self) -> str | None:
        """The id (first cell) of the cursor's row when the player put the cursor there (a key
        or a click, and it is still on that row), else ``None``: a cursor the table placed
        itself (its first row, the row number it kept through a redraw) or one moved by code
        (:meth:`point_at`) is not the player's choice."""
        here = self._cursor_id()
        return here if here is not None and here == self._chosen else None

    def point_at(self, row_id: str) -> bool:
        """Move the cursor to the row whose first cell is ``row_id`` (not the player's choice,
        :meth:`player_row`); ``False`` when no row has it (the cursor stays)."""
        for i in range(self.row_count):
            if str(self.get_row_at(i)[0]) == row_id:
                self._chosen = None
                self.move_cursor(row=i)
                self.reveal_cursor()
                return True
        return False

    def reveal_cursor(self) -> None:
        """Scroll the nearest container above the table that scrolls vertically (a panel's
        ``VerticalScroll``, the Ledger's plots above its table) the least distance that shows the
        cursor row whole, as ``DataTable._scroll_cursor_into_view`` does within the table: a
        table taller than what its panel shows keeps its cursor row in sight. Nothing scrolls
        if no container does or the row already shows. The row's place is where the table
        draws it once it has scrolled the row into its own window (the least distance too,
        and maybe not done yet: that scroll waits for the next refresh)."""
        if self.cursor_type != "row" or not self.is_valid_row_index(self.cursor_row):
            return
        window = self.scrollable_content_region
        if not window.height:
            return
        _, y, _, height = self._get_row_region(self.cursor_row)
        top = self.header_height if self.show_header else 0
        y = max(top, min(y - round(self.scroll_y), window.height - height))
        # in the coordinates of the table's container (scrolled), as Widget.scroll_to_widget
        region = Region(0, y, window.width, height).translate(self.content_offset + self.virtual_region.offset)
        widget: Widget = self
        while isinstance(widget.parent, Widget) and widget.parent is not self.screen:
            container = widget.parent
            if container.allow_vertical_scroll:
                container.scroll_to_region(region, animate=False, x_axis=False)
                return
            region = region.translate(container.content_offset + container.virtual_region.offset)
            widget = container

    def _on_resize(self, event: events.Resize) -> None:
        """Forget the drawn lines (DataTable's Resize handler) only if the size changed."""
        if event.size == self._resized_to:
            event.prevent_default()
        self._resized_to = event.size

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """ScrollView's, but a layout that finds the table as the last one did (same size,
        container size and rows x columns) does not refresh its scrollbars.

        Textual compares the virtual size the layout gives (the table's window) with the table's
        own (its rows x columns), which differ for any table that scrolls: every layout of the
        screen refreshed such a table's scrollbars, which painted the screen a second time
        after each tab switch. A scrollbar whose window or position changes still repaints (its
        own reactives), and a table whose size or rows changed is updated as before (no style
        of this game changes a table's overflow or scrollbar sizes, which would need it too)."""
        laid_out = (size, container_size, self.virtual_size)
        if laid_out == self._laid_out:
            virtual_size = self.virtual_size
        self._laid_out = laid_out
        return super()._size_updated(size, virtual_size, container_size, layout)

    def _parts_look(self) -> tuple:
        """What the cached lines depend on besides their keys: the table's own style and
        background, and each part's (component class's) style."""
        parts = tuple(self.get_component_rich_style(c) for c in sorted(self.COMPONENT_CLASSES))
        return (self.rich_style, self.background_colors, parts)

    def notify_style_update(self) -> None:
        """The table was restyled: repaint it; whether its drawn lines still hold is known
        when it is next drawn (its parts are restyled after this call)."""
        ScrollView.notify_style_update(self)  # the widget's own style caches, not DataTable's
        self._get_styles_to_render_cell.cache_clear()
        self._styles_cache.clear()
        self._restyled = True
        self._styled_focus = self.has_focus
        self.refresh()

    def watch_has_focus(self, has_focus: bool) -> None:
        """Restyle for the new focus (``:focus`` rules: the tint, the cursor's colours), unless
        the table is hidden or already styled for it (module docstring): a hidden table is
        restyled when it is next drawn, if it shows in the other state then."""
        if has_focus == self._styled_focus or any(not node.display for node in self.ancestors_with_self):
            return
        super().watch_has_focus(has_focus)

    def _check_looks(self) -> None:
        """After a restyle, keep DataTable's drawn lines only if the parts look as they did when
        the table was last drawn in this pseudo-class state (module docstring)."""
        self._restyled = False
        state, look = self.get_pseudo_class_state(), self._parts_look()
        if self._looks.get(state, look) != look:
            self._row_render_cache.clear()
            self._cell_render_cache.clear()
            self._row_renderable_cache.clear()
            self._line_cache.clear()
            self._looks.clear()
        self._looks[state] = look

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._styled_focus is not None and self._styled_focus != self.has_focus:
            self.update_node_styles(animate=False)  # its focus changed while it was hidden
        if self._restyled:
            self._check_looks()
        self._line_style = self.rich_style  # the same for every line of this render
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None

    def render_line(self, y: int) -> Strip:
        """DataTable's line ``y``, with the widget's style computed once per render instead of
        once a line (``rich_style`` walks the ancestors: ~40 % of drawing a table)."""
        style = self._line_style
        if style is None or self.fixed_rows:
            return super().render_line(y)
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        if y >= (self.header_height if self.show_header else 0):
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + width, style)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        """A cell's lines, as DataTable's own (same cache, same key), plain text without Rich
        (module docstring); DataTable renders any other cell."""
        if column_index == -1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        is_header = row_index == -1
        row_key = self._header_row_key if is_header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cache = self._cell_render_cache
        if key in cache:
            return cache[key]
        height = self.header_height if is_header else self.rows[row_key].height
        lines = None
        if height == 1:
            cell = self._get_row_renderables(row_index).cells[column_index]
            fixed = not is_header and (row_index < self.fixed_rows or column_index < self.fixed_columns)
            component, post = self._get_styles_to_render_cell(
                is_header,
                False,
                fixed,
                hover,
                cursor,
                self.show_cursor,
                self._show_hover_cursor,
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css",
            )
            pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component
            lines = plain_cell(cell, width, self.cell_padding, pre, post)
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cache[key] = lines
        return lines

    @property
    def shown_rows(self) -> list[tuple]:
        """The rows shown, in order, as they were given (cells before conversion to text)."""
        return list(self._shown.values())

    def show_rows(self, rows: Sequence[Sequence[object]]) -> None:
        """Show ``rows`` (one sequence of cells per row, as many as the columns) in their order,
        the cursor staying at its row number: changed cells are updated, gone rows removed, new
        rows added, and the rows put in the order given if it is not the order they are in."""
        new = dict(zip(row_keys(rows), (tuple(r) for r in rows), strict=True))
        old = self._shown
        if new == old and list(new) == list(old):
            return
        if not old:
            self._rebuild(new)
            return
        for k in old:
            if k not in new:
                self.remove_row(RowKey(k))
                self.rows_removed += 1
        if not self._update_kept(old, new):
            self._rebuild(new)
            return
        order = [k for k in old if k in new]
        for k, cells in new.items():
            if k not in old:
                self.add_row(*[_cell(c) for c in cells], key=k)
                self.rows_added += 1
                order.append(k)
        if order != list(new):
            self._place(list(new))
        self._shown = new

    def _place(self, keys: list[str]) -> None:
        """Put the rows in the order of ``keys`` (all the table's rows), as ``DataTable.sort``
        does: the rows keep their cells and measures; the cursor stays at its row number."""
        self._row_locations = TwoWayDict({RowKey(k): i for i, k in enumerate(keys)})
        self._update_count += 1
        self.reorders += 1
        self.refresh()

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
