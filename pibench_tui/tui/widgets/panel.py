"""The base of every panel (one of the main screen's tabs, redrawn from the API) and the helpers panels share."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import AwaitMount, Widget
from textual.widgets import DataTable, Static

from pibench_tui.tui.actions import ACTIONS, SHORT
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.rows_table import RowsTable


def panel_bindings(tab: str) -> list[BindingType]:
    """Footer bindings of a panel: the fixed keys, then its actions' keys (they call the App's
    dispatcher). Each action keeps ONE binding id everywhere (the App's id: ``next_month``,
    ``help``, ``console``, ``save``, ``quit``, and the action's id), so ``App.set_keymap`` rebinds
    it on every panel at once."""
    fixed: list[BindingType] = [
        Binding("n", "app.next_month", "Next month", id="next_month"),
        Binding("question_mark", "app.help", "Help", id="help", key_display="?"),
        Binding("colon", "app.console", "Console", id="console", key_display=":"),
        Binding("ctrl+s", "app.save", "Save", id="save"),
        Binding("q", "app.quit_game", "Quit", id="quit"),
    ]
    return fixed + [
        Binding(a.key, f"app.act('{a.id}')", SHORT.get(a.id, a.title), id=a.id, tooltip=a.title)
        for a in ACTIONS
        if a.tab == tab
    ]


def fmt_num(x: float | None, fmt: str = "{:.2f}") -> str:
    """A number for a table cell, ``—`` when missing."""
    return "—" if x is None else fmt.format(x)


def fill_table(table: DataTable, rows: list[list]) -> None:
    """Show ``rows`` in a panel's table (made by :func:`new_table`): only the cells and rows
    that changed are updated (:meth:`RowsTable.show_rows`), the cursor stays on its row.

    Raises:
        TypeError: ``table`` is not a :class:`RowsTable`.
    """
    if not isinstance(table, RowsTable):
        raise TypeError(f"fill_table needs a RowsTable (made by new_table), not a {type(table).__name__}")
    table.show_rows(rows)


def new_table(id: str, *columns: str) -> RowsTable:
    """A row-cursor, zebra-striped table with these columns that remembers its rows."""
    return RowsTable(*columns, id=id)


def hidden_columns(table: DataTable) -> list[str]:
    """The labels of ``table``'s columns that do not show whole at its width and scroll
    position (none before it is laid out)."""
    room = table.scrollable_content_region.width
    if room <= 0 or not table.columns:
        return []
    used, hidden = -table.scroll_x, []
    for col in table.columns.values():
        used += col.get_render_width(table)
        if used > room:
            hidden.append(str(col.label))
    return hidden


def fit_names(lead: str, groups: list[list[str]], width: int) -> str:
    """``lead`` and the names of ``groups`` (one group a table: ``, `` within, `` | ``
    between) in ``width`` columns: the names that fit whole, the rest counted (``+2 more``),
    never one cut mid-word (a width of 0 or less: not laid out yet, every name)."""
    names = [(g, n) for g, group in enumerate(groups) for n in group]

    def line(k: int) -> str:
        shown: list[list[str]] = []
        for g, n in names[:k]:
            if len(shown) <= g:
                shown += [[] for _ in range(g + 1 - len(shown))]
            shown[g].append(n)
        body = " | ".join(", ".join(x) for x in shown if x)
        return lead + body + (f" +{len(names) - k} more" if k < len(names) else "")

    for k in range(len(names), 0, -1):
        if width <= 0 or len(line(k)) <= width:
            return line(k)
    return line(0)


class Panel(Widget):
    """A tab of the main screen; ``show(game)`` redraws it from the API. The app shows one
    panel at a time (the others have ``display`` off) and names it in its tab bar.

    A panel's widgets (``compose_body``, then the scroll hint) are composed the first time it
    is drawn (shown), not when the app starts: only one panel shows at a time, and composing
    the hidden ones was about a third of an app start's CPU. ``lazy=False`` composes them at
    once."""

    DEFAULT_CSS = """
    Panel { height: auto; }
    """
    TAB = ""
    """The panel's id (one of ``lab_app.TABS``)."""

    def __init__(self, *, lazy: bool = True) -> None:
        super().__init__(id=self.TAB)
        self.shown_version = -1  # the app's career version this panel last drew
        self.composed = not lazy  # its body's widgets exist (they are composed on first show)
        self.mounting = False  # they are being mounted (the panel draws and takes the focus then)
        self._hint = ""  # the scroll hint's text

    def compose(self) -> ComposeResult:
        if self.composed:
            yield from self.compose_body()
            yield Static("", classes="scroll-hint")

    def compose_body(self) -> ComposeResult:  # pragma: no cover - overridden
        """The panel's widgets (composed on first show)."""
        yield from ()

    def ensure_composed(self) -> AwaitMount | None:
        """Compose the panel's widgets and its scroll hint now if they are not yet; the
        awaitable completes once they are mounted (``None``: they already were)."""
        if self.composed:
            return None
        self.composed = True
        return self.mount_compose(self.compose())

    def show(self, game: Game) -> None:  # pragma: no cover - overridden
        """Redraw from the API."""

    def redraw(self, game: Game) -> None:
        """Redraw from the API now, then re-check which columns do not fit. The first time,
        the panel's widgets are composed first: it draws (and, if it is the shown panel, takes
        the focus) as soon as they are mounted."""
        mounting = self.ensure_composed()
        if mounting is not None:
            self.mounting = True

            async def first_draw() -> None:
                await mounting
                self.mounting = False
                self.redraw(getattr(self.app, "game", game))  # the career shown by then
                if self.display and self.screen is self.app.screen:  # shown (the others are display: none)
                    self.focus_main()

            self.call_later(first_draw)
            return
        self.show(game)
        self.shown_version = getattr(self.app, "version", 0)
        self.call_after_refresh(self.update_scroll_hint)

    @property
    def shown_width(self) -> int:
        """The panel's content width in cells: its size once laid out; while it is hidden (a
        hidden widget has no size) the width it will have when shown, its container's width
        less its own padding and border (a panel drawn as its tab's key shows it is drawn for
        its real width at once, not again after the Resize that follows)."""
        if self.size.width or self.parent is None:
            return self.size.width
        parent = self.parent
        assert isinstance(parent, Widget)
        return max(0, parent.size.width - self.styles.gutter.width)

    @property
    def stale(self) -> bool:
        """The career changed since this panel was drawn (it redraws when shown)."""
        return self.shown_version != getattr(self.app, "version", 0)

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_scroll_hint)

    def update_scroll_hint(self) -> None:
        """Under the panel, name the columns of its tables that do not fit (and how to reach them)."""
        cut = [hidden for table in self.query(DataTable) if table.display and (hidden := hidden_columns(table))]
        try:
            hint = self.query_one(".scroll-hint", Static)
        except Exception:  # noqa: BLE001 - not mounted yet
            return
        how = getattr(self.app, "COLUMN_SCROLL_KEYS", "← → or shift+wheel scroll")
        text = fit_names(f"→ more columns ({how}): ", cut, self.size.width - 2) if cut else ""  # hint padding 1+1
        if text != self._hint:  # an update lays the screen out again, even to the same text
            self._hint = text
            hint.update(Text(text, style="italic"))
        hint.display = bool(cut)

    def take_focus(self) -> None:
        """Focus the panel's main widget (:meth:`focus_main`), or, while its widgets are being
        mounted for its first show, as soon as they are (meanwhile nothing has the focus: a
        widget of the panel left behind would keep it, and its tab would show again)."""
        if self.mounting:
            self.screen.set_focus(None)
        else:
            self.focus_main()

    def empty_hint(self, game_text: str, what: str) -> str:
        """What an empty panel says: ``game_text`` (which names the game's actions that fill
        the panel) in the game app; in an app without them (the replay viewer, which sets
        ``STEP_KEYS``) ``what`` ("Nobody in the lab yet") and the keys that work there."""
        step = getattr(self.app, "STEP_KEYS", "")
        return f"{what} ({step})." if step else game_text

    def focus_main(self) -> None:
        """Focus the panel's first table (so its keys show in the footer), without scrolling the
        panel to it: a panel shows from where it was (its top at first), so the Ledger's plots
        above its table stay in view, whenever the focus lands (it scrolled before, or not,
        depending on whether the table had been laid out yet)."""
        tables = self.query(DataTable)
        if tables and self.screen.focused is not tables.first():  # focus() repaints even a focused table
            tables.first().focus(scroll_visible=False)
