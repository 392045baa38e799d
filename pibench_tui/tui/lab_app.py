"""The panels of one career, read-only: the base of the game app and of the replay viewer.

:class:`LabApp` composes the header, the shared panels (:mod:`pibench_tui.tui.widgets.panels`)
and the key footer over one :class:`~pibench_tui.tui.game.Game`, redraws them when the career
changes, switches panels and blocks keys while the terminal is too small. Nothing in it
changes the career: the game app (:class:`~pibench_tui.tui.app.PibenchApp`) adds the actions,
the clock, saves, the console and the tutorial; the replay viewer
(:class:`~pibench_tui.tui.replay_app.ReplayApp`) adds the month stepper. A panel's key whose
action the app does not have (the game's keys in the viewer) is off: neither shown nor run.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import Static

from pibench_tui.tui.alerts import Alert, alerts, late_agencies, late_venues, refused_agencies
from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.lab import LabScreen
from pibench_tui.tui.widgets.footer import KeyLine
from pibench_tui.tui.widgets.header import HeaderView, LabHeader
from pibench_tui.tui.widgets.panels import (
    ApplicantsPanel,
    EventsPanel,
    FieldPanel,
    GrantsPanel,
    LedgerPanel,
    Panel,
    PapersPanel,
    PeoplePanel,
    ProjectsPanel,
)
from pibench_tui.tui.widgets.rows_table import RowsTable
from pibench_tui.tui.widgets.tab_bar import TabBar

MIN_WIDTH, MIN_HEIGHT = 80, 24
"""Below this terminal size the app shows a message instead of the panels."""

TABS: list[tuple[str, str]] = [
    ("people", "1 Lab"),
    ("applicants", "2 Applicants"),
    ("projects", "3 Projects"),
    ("papers", "4 Papers"),
    ("grants", "5 Grants"),
    ("field", "6 Field"),
    ("events", "7 Events"),
    ("ledger", "8 Ledger"),
    ("console", "9 Console"),
]
"""Panel ids and tab titles, in order (keys 1-9; the console is the game app's only)."""

FIRST_TAB = "people"
"""The panel shown when the app starts."""

SHORT_TITLES: dict[str, str] = {"applicants": "2 Apps"}
"""Shorter tab titles, used when the full ones do not fit the width (the numbers stay: they
are the keys)."""

NARROW = 110
"""Below this width the header shortens its words (the key line leaves keys out by its own
ranking, :attr:`KeyLine.LEAVE_OUT`, whatever the width)."""

TOO_SMALL = (
    f"The terminal is too small for pibench: it needs at least {MIN_WIDTH}×{MIN_HEIGHT} characters. "
    "Enlarge the window (or press q to quit)."
)
QUIT_KEYS = frozenset({"q", "ctrl+c", "ctrl+q"})
"""The only keys that work while the terminal is too small."""


def lab_panels() -> Iterator[Panel]:
    """The shared panels 1-8, in tab order (the Lab composes at once, the others when first shown)."""
    yield PeoplePanel(lazy=False)
    yield ApplicantsPanel()
    yield ProjectsPanel()
    yield PapersPanel()
    yield GrantsPanel()
    yield FieldPanel()
    yield EventsPanel()
    yield LedgerPanel()


class LabApp(App[int]):
    """The header, the panels and the key footer over one career, read-only (module docstring).

    Args:
        game: the career shown.
        test_mode: no cursor blink, no animations (tests, snapshots, benchmarks).
    """

    CSS_PATH = "app.tcss"
    TITLE = "pibench"
    COLUMN_SCROLL_KEYS = "← → or shift+wheel scroll"
    """How the panels' hint under a wide table says to reach its cut-off columns."""
    WARNING_KEYS = True
    """The header's warnings name the key that addresses each (off where actions are off)."""
    STEP_KEYS = ""
    """How to reach another month of the career, for the panels' empty-state hints (``""``:
    the game, whose hints name the actions that fill the panel instead)."""
    #: A month is being closed (the game app sets it; the header shows it).
    busy = False

    version: reactive[int] = reactive(0, init=False, repaint=False)
    """Bumped whenever the career changes (an action, a console block, a month, a load): each
    panel redraws when it is next shown (:attr:`Panel.stale`). Setting it repaints nothing (an
    App's reactive would repaint the whole screen shown, the digest at a month close)."""

    header_view: reactive[HeaderView | None] = reactive(None, init=False, repaint=False)
    """What the header shows; the header is bound to it (``data_bind``) and redraws only when
    it changes (the App itself repaints nothing for it)."""

    def __init__(self, game: Game, *, test_mode: bool = False) -> None:
        super().__init__()
        self.game = game
        self.test_mode = test_mode
        if test_mode:
            self.animation_level = "none"
        self._warnings_cycled: tuple[list[str], int] = ([], -1)  # the warnings ! went through, the last shown
        self.warning_shown: Alert | None = None
        """The warning ``!`` showed last: its key's form starts on its target (:func:`form_start`)."""

    def show_next_warning(self, title: str) -> None:
        """``!``: the header's warnings one at a time, most urgent first: each press shows the
        panel of the next one and the warning ("warning 2 of 4 · " before ``title``; the
        ``{key}`` in ``title`` is the warning's key); after the last, the first again. A changed
        list of warnings (an action, a month) starts again from the first. Going on through
        the cycle clears the toasts shown, so one warning shows at a time."""
        found = alerts(self.game)
        if not found:
            self.notify("no warning this month", markup=False)
            return
        texts = [a.text for a in found]
        seen, shown = self._warnings_cycled
        index = (shown + 1) % len(found) if texts == seen else 0
        if texts == seen:  # the next of a cycle replaces the toasts shown (five stacked covered the panel)
            self.clear_notifications()
        self._warnings_cycled = (texts, index)
        alert = found[index]
        self.action_tab(alert.tab)
        self.warning_shown = alert
        if alert.target:  # the panel shows the row the warning is about, in whichever of its tables
            # has it (the focus moves to the panel's table only after this key)
            panel = next((p for p in self.panels() if p.id == alert.tab), None)
            for table in panel.query(RowsTable) if panel is not None else ():
                if table.point_at(alert.target):
                    break
        where = f"warning {index + 1} of {len(found)} · " if len(found) > 1 else ""
        self.notify(
            alert.text,
            title=where
            + (title.format(key=alert.key) if alert.key or "{key}" not in title else "no key acts on it now"),
            severity=alert.severity,
            markup=False,
            timeout=10,
        )

    # ------------------------------------------------------------------ layout
    def get_default_screen(self) -> LabScreen:
        """The main screen (:class:`LabScreen`: a focus change repaints only what it changes)."""
        return LabScreen(id="_default")

    @property
    def blink(self) -> bool:
        """Cursor blink (off in tests)."""
        return not self.test_mode

    @property
    def header(self) -> LabHeader:
        """The always-visible header."""
        return self.query_one("#header", LabHeader)

    @property
    def tabs(self) -> TabBar:
        """The tab bar; its ``active`` is the id of the panel shown."""
        return self.query_one("#tabs", TabBar)

    def panels(self) -> list[Panel]:
        """Every panel, in tab order."""
        return list(self.query_one("#panels").query_children(Panel))

    def compose_panels(self) -> Iterator[Panel]:
        """The panels of the tabs (the shared panels 1-8; the game app adds its console)."""
        yield from lab_panels()

    def compose_beside(self) -> ComposeResult:
        """Widgets below the panels (the game app's tutorial checklist); none here."""
        yield from ()

    def compose(self) -> ComposeResult:
        yield LabHeader(id="header").data_bind(view=LabApp.header_view)
        panels = list(self.compose_panels())
        titles = dict(TABS)
        with Container(id="main"):
            yield TabBar([(p.id or "", titles[p.id or ""]) for p in panels], SHORT_TITLES, active=FIRST_TAB, id="tabs")
            with Container(id="panels"):
                for panel in panels:
                    panel.display = panel.id == FIRST_TAB
                    yield panel
            yield from self.compose_beside()
        yield Static(TOO_SMALL, id="too-small")
        yield KeyLine(compact=True)  # compact: the Lab panel's keys fit in 120 columns

    def on_mount(self) -> None:
        self.refresh_view()
        self.query_one(f"#{FIRST_TAB}", Panel).focus_main()
        self._check_size(self.size.width, self.size.height)

    def on_resize(self, event: Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    @property
    def too_small(self) -> bool:
        """The terminal is below the minimum size (only the message shows; keys are blocked)."""
        return self.has_class("-too-small")

    def _check_size(self, width: int, height: int) -> None:
        was_small = self.too_small
        self.set_class(width < MIN_WIDTH or height < MIN_HEIGHT, "-too-small")
        self.set_class(width < NARROW, "-narrow")
        if was_small and not self.too_small:
            self._refocus()
            self.size_restored()

    def _refocus(self) -> None:
        """Give the focus back after the terminal was too small: hiding the panels (and a
        dialog's box) dropped it, and with it the shown panel's keys in the key line. The shown
        panel's table gets it again, and a dialog left open its first field."""
        shown = next((p for p in self.panels() if p.id == self.tabs.active), None)
        if shown is not None and shown.screen.focused is None:
            shown.take_focus()
        if self.screen is not self.default_screen and self.screen.focused is None:
            self.screen.focus_next()

    def size_restored(self) -> None:
        """The terminal is large enough again (the game app asks a pending quit question)."""

    async def on_event(self, event: events.Event) -> None:
        # While the terminal is too small, no key reaches the hidden screens (not even a
        # focused input): only quit works.
        if isinstance(event, events.Key) and not event.is_forwarded and self.too_small:
            if event.key in QUIT_KEYS:
                self._quit_while_too_small()
            return
        await super().on_event(event)

    def _quit_while_too_small(self) -> None:
        """q while too small: quit (the game app asks first when months are unsaved)."""
        self.exit(0)

    # ------------------------------------------------------------------ refresh
    def changed(self, dashboard: dict | None = None) -> None:
        """The career changed: the panels are stale and the header is refreshed (from
        ``dashboard`` when the caller has the current one, else from the API)."""
        self.version += 1
        self.refresh_header(dashboard)

    def refresh_view(self, everything: bool = False, dashboard: dict | None = None) -> None:
        """Mark the career changed and redraw the visible panel (with ``everything``, every panel
        shown before as well); the others redraw when shown. ``dashboard``: the current
        ``lab.dashboard()`` if the caller has it."""
        self.changed(dashboard)
        active = self.tabs.active
        for panel in self.panels():
            if panel.id == active or (everything and panel.composed):
                panel.redraw(self.game)

    def banner(self) -> str:
        """A banner at the start of the header's calendar line (``""``: none)."""
        return ""

    def scenario_text(self) -> str:
        """The scenario and seed as the header shows them."""
        return f"{self.game.scenario_title} · {self.game.seed_text}"

    def refresh_header(self, dashboard: dict | None = None) -> None:
        """Set :attr:`header_view` from ``dashboard`` (``None``: ``lab.dashboard()``) and the
        publications; the header redraws if it changed."""
        game = self.game
        dash = dashboard if dashboard is not None else game.dashboard()
        citations = sum(p["citations"] for p in game.call("papers.publications"))
        self.header_view = HeaderView(
            dash,
            citations,
            game.rolling_agencies,
            busy=self.busy,
            scenario=self.scenario_text(),
            warnings=tuple(alerts(game, dash)),
            banner=self.banner(),
            keys=self.WARNING_KEYS,
            refused=refused_agencies(game, dash),
            late=late_venues(game, dash),
            late_calls=late_agencies(game, dash),
        )

    # ------------------------------------------------------------------ bindings
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A key whose action this app does not have (a panel's game key in the viewer) is off."""
        return hasattr(self, f"action_{action}")

    def action_tab(self, tab: str) -> None:
        """Show the panel ``tab`` (an id of :data:`TABS`) and only it, redrawn if the career
        changed since it was drawn, its table focused; the tab bar marks it (a tab this app
        does not have: nothing)."""
        panels = {p.id: p for p in self.panels()}
        panel = panels.get(tab)
        if panel is None:
            return
        bar = self.tabs
        if bar.active != tab:
            panels[bar.active].display = False
            panel.display = True
            bar.active = tab
        if panel.stale:
            panel.redraw(self.game)
        panel.take_focus()


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "NARROW", "QUIT_KEYS", "TABS", "TOO_SMALL", "LabApp", "lab_panels"]
