"""The Textual app: play a whole career at the keyboard (``pibench play``).

The app renders what the agent API returns and acts only through it. Advancing a month
runs in a thread worker (group ``"sim"``); a second ``next month`` cannot start while one
runs. The autosave after a close runs in its own thread worker (group ``"autosave"``), so the
month's digest never waits for it; autosaves run one at a time. The hidden state is read only by the end screen, after the career is over.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Static

from pibench_tui.tui.actions import ACTIONS, ACTIONS_BY_ID
from pibench_tui.tui.alerts import alerts, form_start
from pibench_tui.tui.game import ActionError, Game
from pibench_tui.tui.lab_app import MIN_HEIGHT, MIN_WIDTH, TABS, TOO_SMALL, LabApp
from pibench_tui.tui.messages import AutosaveFailed, MonthAdvanced
from pibench_tui.tui.screens.dialogs import ConfirmNextMonth, LoadDialog, QuitDialog, SaveDialog
from pibench_tui.tui.screens.digest import DigestScreen
from pibench_tui.tui.screens.end import EndScreen
from pibench_tui.tui.screens.form import ActionForm
from pibench_tui.tui.screens.help import HelpScreen
from pibench_tui.tui.typeahead import TypeAhead
from pibench_tui.tui.widgets.console import ConsolePanel
from pibench_tui.tui.widgets.panel import Panel
from pibench_tui.tui.widgets.rows_table import RowsTable
from pibench_tui.tui.widgets.tutorial import TutorialChecklist

TOO_SMALL_QUIT = (
    f"The terminal is too small for pibench: it needs at least {MIN_WIDTH}×{MIN_HEIGHT} characters.\n"
    "{unsaved}: enlarge the window to choose whether to save before quitting, "
    "or press q again to quit without saving."
)
NOT_A_TERMINAL = (
    "pibench play needs an interactive terminal (its stdin is not one). To drive a career from a pipe, "
    "a script or a program, use `pibench headless` (see `pibench headless --help`)."
)

_GAME_ACTIONS = {
    "act",
    "next_month",
    "save",
    "load",
    "console",
    "tab",
    "help",
    "quit_game",
    "toggle_tutorial",
    "warning",
    "reports",
}


class PibenchApp(TypeAhead, LabApp):
    """The pibench TUI over one :class:`~pibench_tui.tui.game.Game`. Keys typed ahead of a
    form or dialog reach it once it is ready (:class:`~pibench_tui.tui.typeahead.TypeAhead`).

    Args:
        game: the career to play.
        store: a ``saves.SaveStore`` (``None``: opened on first save/load from ``saves_dir``).
        saves_dir: folder of the save store (``None``: the default location).
        career: autosave under this career name after every month (``--save NAME``).
        career_lock: the session lock of ``career`` (``saves.lock.CareerLock``), taken by
            :func:`make_app`; ``None``: taken at the first autosave. The app keeps it while
            it writes that career, moves it when a load switches careers, and releases it
            when it ends (unmount).
        test_mode: no cursor blink, no animations (tests, snapshots, benchmarks).
        show_digest: show the monthly digest after each month.
        run_baseline: run the baseline policy for the end screen.
    """

    BINDINGS = [
        Binding("n", "next_month", "Next month", id="next_month", tooltip="Close this month (asks first)"),
        Binding("question_mark", "help", "Help", id="help", key_display="?"),
        Binding("f1", "help", "Help", id="help-f1", show=False),
        Binding("colon", "console", "Console", id="console", key_display=":"),
        Binding("ctrl+s", "save", "Save", id="save"),
        Binding("q", "quit_game", "Quit", id="quit"),
        Binding("ctrl+q", "quit_game", "Quit", id="quit-hard", show=False, priority=True),
        Binding("ctrl+c", "ctrl_c", "Quit", id="quit-ctrl-c", show=False, priority=True),
        Binding("l", "load", "Load", id="load", show=False),
        Binding("t", "toggle_tutorial", "Tutorial", id="tutorial", show=False),
        Binding(
            "d", "reports", "Reports", id="reports", tooltip="The last month's digest again; ← → the earlier months"
        ),
        Binding(
            "exclamation_mark",
            "warning",
            "Warnings",
            id="warning",
            key_display="!",
            tooltip="The warnings of header line 3 one at a time, most urgent first: its panel and its key",
        ),
        *[
            Binding(str(i + 1), f"tab('{tab}')", title, id=f"tab-{tab}", show=False)
            for i, (tab, title) in enumerate(TABS)
        ],
        *[Binding(a.key, f"act('{a.id}')", a.title, id=a.id, show=False) for a in ACTIONS],
    ]

    def __init__(
        self,
        game: Game,
        *,
        store: Any = None,
        saves_dir: str | None = None,
        career: str | None = None,
        career_lock: Any = None,
        test_mode: bool = False,
        show_digest: bool = True,
        run_baseline: bool = True,
    ) -> None:
        super().__init__(game, test_mode=test_mode)
        self.store = store
        self.saves_dir = saves_dir
        self.career = career
        self.career_lock = career_lock
        self.show_digest = show_digest
        self.run_baseline = run_baseline
        self.busy = False
        self.months_advanced = 0
        self.quit_pending = False  # q pressed while too small, with unsaved months: ask once the size is back
        self._autosave_lock = threading.Lock()  # one autosave at a time (worker threads, the UI's finish_autosave)
        self._autosave_due = False  # a month closed since the last autosave ran (start_autosave)
        self._end_save_failed = False  # the save NAME at quitting failed once: q again quits without it
        #: What the save at quitting wrote (:meth:`_exit_saved`), said after the app ends.
        self.saved_at_end: str | None = None
        self._digest: DigestScreen | None = None  # the one digest screen (open_digest)
        self._confirm: ConfirmNextMonth | None = None  # the one month-end confirmation (action_next_month)
        self._frozen_widgets: frozenset[str] = frozenset()  # those of _long_lived_widgets() frozen

    # ------------------------------------------------------------------ layout
    @property
    def console_panel(self) -> ConsolePanel:
        """The console panel."""
        return self.query_one("#console", ConsolePanel)

    def compose_panels(self) -> Iterator[Panel]:
        """The shared panels 1-8, then the console (9)."""
        yield from super().compose_panels()
        yield ConsolePanel(blink=self.blink)

    def compose_beside(self) -> ComposeResult:
        yield TutorialChecklist(id="tutorial")

    def on_mount(self) -> None:  # before LabApp.on_mount draws the panels and the header
        self.tutorial.display = self.game.tutorial_shown and not self.game.finished
        self.console_panel.show(self.game)
        if self.game.finished:
            self.call_after_refresh(self.show_end)
        self.call_after_refresh(self.freeze_long_lived)

    def freeze_long_lived(self, collect: bool = False) -> None:
        """Set every object alive now (Textual's widgets and styles, the career drawn) aside
        from the garbage collector (``gc.freeze``), called once the app or a loaded career is
        drawn: each full collection then walks only what play created since, which cut its
        hitches (~100 ms each, about one per month at month 40) by about half (bench/tui.py).
        An object set aside is still freed when nothing refers to it, but a reference cycle
        among them never is: ``collect`` first after a load (the career replaced is such a
        cycle); at start the cycles left by the imports and the world's build are few and the
        collection would cost the start ~50 ms. Undone by :meth:`unfreeze`."""
        if collect:
            gc.collect()
        gc.freeze()  # startup's long-lived objects: no full collection traverses them again
        self._frozen_widgets = self._long_lived_widgets()

    def _long_lived_widgets(self) -> frozenset[str]:
        """The panels composed and the dialogs kept by the app (their widgets live as long as it)."""
        kept = {"digest": self._digest, "confirm": self._confirm}
        return frozenset(p.id or "" for p in self.panels() if p.composed) | {k for k, v in kept.items() if v}

    def freeze_new_widgets(self) -> None:
        """At the end of a month close: set aside (``gc.freeze``) what is alive now if a panel or
        a kept dialog (the digest, the month-end confirmation) was composed since the last freeze,
        each at most once a career: a panel's widgets live as long as the app, but those composed
        after the start (panels are composed when first shown) were walked by every full
        collection: 61,000 of its ~85,000 objects at month 40 with every panel seen, ~30-50 ms a
        collection, about one every month. Freezing after every month instead would keep each
        month's cycles for good (the render caches' strips refer to themselves): +19 MB in 16
        months, measured; at most once per panel it is bounded."""
        composed = self._long_lived_widgets()
        if composed <= self._frozen_widgets:
            return
        self._frozen_widgets = composed
        gc.freeze()

    @staticmethod
    def unfreeze() -> None:
        """Let the collector reach the objects :meth:`freeze_long_lived` set aside again (the
        career being replaced, the app that ends)."""
        gc.unfreeze()

    def size_restored(self) -> None:
        """Ask the quit question that q left pending while the terminal was too small."""
        if self.quit_pending:
            self.quit_pending = False
            self.query_one("#too-small", Static).update(TOO_SMALL)
            self.call_after_refresh(self._ask_quit)

    def _quit_while_too_small(self) -> None:
        self.finish_autosave()
        if self.quit_pending:  # q again: quit without saving
            self.exit(0)
            return
        if not self.game.unsaved:
            self._exit_saved()
            return
        self.quit_pending = True
        self.query_one("#too-small", Static).update(TOO_SMALL_QUIT.format(unsaved=self.game.unsaved_note()))

    # ------------------------------------------------------------------ refresh
    def redraw_shown(self) -> None:
        """Redraw the visible panel if the career changed since it was drawn (nothing else)."""
        panel = self.query_one(f"#{self.tabs.active}", Panel)
        if panel.stale:
            panel.redraw(self.game)

    @property
    def tutorial(self) -> TutorialChecklist:
        """The tutorial checklist (shown in the tutorial scenario; t toggles it)."""
        return self.query_one("#tutorial", TutorialChecklist)

    def show_tutorial(self) -> None:
        """Show the tutorial checklist (from the help's t); the choice is saved with the career."""
        self.game.set_tutorial_shown(True)
        self.tutorial.display = True
        self.tutorial.show(self.game)

    def action_warning(self) -> None:
        """``!``: the next warning of the header, its panel and its key (:meth:`show_next_warning`)."""
        self.show_next_warning("press {key}")

    def action_toggle_tutorial(self) -> None:
        """Hide or show the tutorial checklist; the choice is saved with the career (a resumed
        career shows it or not as it was left)."""
        if self.tutorial.display:
            self.game.set_tutorial_shown(False)
            self.tutorial.display = False
        else:
            self.show_tutorial()

    def refresh_header(self, dashboard: dict | None = None) -> None:
        """Set :attr:`header_view` from ``dashboard`` (``None``: ``lab.dashboard()``) and the
        publications (:meth:`LabApp.refresh_header`), then the tutorial checklist."""
        super().refresh_header(dashboard)
        game = self.game
        if self.tutorial.display:
            if game.finished:
                self.tutorial.display = False
            else:
                self.tutorial.show(game)

    @on(ConsolePanel.BlockFinished)
    def _console_done(self, message: ConsolePanel.BlockFinished) -> None:
        """After a console block: a block that closed months is autosaved like ``n``'s close and,
        as ``n``'s close does, shows the digest of the (last) month it closed."""
        n = message.months_closed
        if n > 0:
            self.months_advanced += n
            self.start_autosave()
            if self.show_digest and not isinstance(self.screen, ModalScreen):
                report = self.game.call("time.last_report")
                self.game.last_report = report
                last = int(report.get("month", 0))
                title = (
                    None if n == 1 else f"Months {last - n + 1}-{last} closed from the console: month {last}'s digest"
                )
                self.refresh_view()  # under the digest, as after n's close
                self.open_digest(
                    report,
                    title=title,
                    closed=partial(self._digest_closed, bool(report.get("finished")) or self.game.finished),
                )
                return
        self.refresh_view()
        if self.game.finished and not isinstance(self.screen, EndScreen):
            self.show_end()

    # ------------------------------------------------------------------ bindings
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _GAME_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        if action in ("act", "next_month", "tab", "console", "load", "warning") and isinstance(self.screen, EndScreen):
            return False
        if action in ("act", "next_month") and self.game.finished:  # the career is over: reading only
            return False
        if action == "next_month" and self.busy:
            return None
        if action == "act" and parameters:  # a panel's action keys work on that panel only
            spec = ACTIONS_BY_ID.get(str(parameters[0]))
            try:
                active = self.tabs.active
            except Exception:  # noqa: BLE001 - before the tabs exist
                return False
            if spec is not None and spec.tab != active:
                return False
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, ModalScreen):
            return
        yield SystemCommand("Next month", "Close this month (key n)", self.action_next_month)
        yield SystemCommand("Save", "Save the career (ctrl+s)", self.action_save)
        yield SystemCommand("Load", "Resume a save (key l)", self.action_load)
        yield SystemCommand("Help", "Rules and keys (key ?)", self.action_help)
        yield SystemCommand(
            "Month reports", "Re-read the digest of every month closed, hallway talk too (key d)", self.action_reports
        )
        yield SystemCommand(
            "Next warning",
            "The warnings of header line 3 one at a time, most urgent first: its panel and its key (key !)",
            self.action_warning,
        )
        for a in ACTIONS:
            desc = a.describe(self.game)
            yield SystemCommand(
                a.title, f"{a.api} — key {a.key}" + (f" — {desc}" if desc else ""), partial(self.action_act, a.id)
            )
        for i, (tab, title) in enumerate(TABS):
            yield SystemCommand(f"Show {title[2:]}", f"Panel {i + 1}", partial(self.action_tab, tab))

    def action_tab(self, tab: str) -> None:
        """Show a panel."""
        if isinstance(self.screen, EndScreen):
            return
        super().action_tab(tab)

    def action_console(self) -> None:
        """Open the console panel."""
        self.action_tab("console")

    def action_reports(self) -> None:
        """``d``: the digest of the last closed month again; ← → reach the earlier ones."""
        if isinstance(self.screen, ModalScreen):
            return
        history = self.game.month_reports()
        if not history:
            self.notify(
                f"no month has been closed yet: the first report comes when month {self.game.world.month} closes (n)",
                markup=False,
            )
            return
        self.open_digest(history[-1], history=history)

    def open_digest(
        self,
        report: dict,
        *,
        title: str | None = None,
        history: list[dict] | None = None,
        closed: Callable[[None], None] | None = None,
    ) -> None:
        """Show ``report`` on the app's one digest screen (installed the first time: later closes
        show their report on it instead of composing and removing a screen each month); ``closed``
        is called when the player closes it. ``history``: the reports ← → reach (``None``: every
        month report of the game)."""
        history = self.game.month_reports() if history is None else history
        view = self.header_view  # drawn for the career as it is now: its warnings are the digest's
        warnings = view.warnings if view is not None else None
        digest = self._digest
        if digest is None:
            digest = self._digest = DigestScreen(report, self.game, title=title, history=history, warnings=warnings)
            self.install_screen(digest, "digest")
        else:
            digest.show_report(report, self.game, title=title, history=history, warnings=warnings)
        self.push_screen(digest, closed)

    def action_help(self) -> None:
        """Rules and keys."""
        self.push_screen(HelpScreen(self.game))

    # ------------------------------------------------------------------ actions
    def action_act(self, action_id: str) -> None:
        """Open the form of an API action (after checking it is possible at all)."""
        spec = ACTIONS_BY_ID[action_id]
        if self.busy:
            self.notify("a month is being closed; wait a moment", severity="warning")
            return
        if self.game.finished:
            self.notify("the career is over: only reading works now", severity="warning")
            return
        reason = spec.unavailable(self.game)
        if reason:
            self.notify(reason, title=spec.title, severity="warning", markup=False)
            return
        self.push_screen(
            ActionForm(
                spec,
                self.game,
                blink=self.blink,
                apply=partial(self._apply, spec),
                highlighted=self.form_start(spec.key),
                cursor=self.highlighted_id(),
            )
        )

    def form_start(self, key: str) -> str | None:
        """The row the form of ``key`` starts on (:func:`~pibench_tui.tui.alerts.form_start`):
        the row the player put the focused table's cursor on, else the target of the warning
        ``!`` showed (while it still stands) or of the header's first warning with that key."""
        focused = self.focused
        chosen = focused.player_row() if isinstance(focused, RowsTable) else None
        found = alerts(self.game)
        shown = self.warning_shown if self.warning_shown in found else None
        return form_start(key, chosen, shown, found)

    def highlighted_id(self) -> str | None:
        """The id (first column) of the highlighted row of the focused table, if any: forms
        preselect it (``o`` on APP004 offers to APP004)."""
        focused = self.focused
        if not isinstance(focused, DataTable) or not focused.row_count:
            return None
        try:
            return str(focused.get_row_at(focused.cursor_row)[0])
        except Exception:  # noqa: BLE001 - an empty or changing table
            return None

    def _apply(self, spec: Any, values: dict) -> str | None:
        """Make the form's API call; ``None`` when it was accepted, else the API's refusal
        (also notified; the form stays open with it so the player can correct the values)."""
        try:
            result = spec.run(self.game, values)
        except ActionError as exc:
            self.notify(exc.message, title=f"{spec.api} refused", severity="error", markup=False, timeout=8)
            return exc.message
        self.notify(spec.done(result), title=spec.title, markup=False)
        self.refresh_view()
        return None

    # ------------------------------------------------------------------ the clock
    def action_next_month(self) -> None:
        """Confirm, then close the month in a worker."""
        if self.busy:
            self.notify("the month is already being closed", severity="warning")
            return
        if self.game.finished:
            self.show_end()
            return
        # one confirmation, asked again each month (installed: closing it removes nothing)
        confirm = self._confirm
        if confirm is None:
            confirm = self._confirm = ConfirmNextMonth(self.game.dashboard(), self.game)
            self.install_screen(confirm, "confirm-next-month")
        else:
            confirm.ask(self.game.dashboard())
        self.push_screen(confirm)  # its enter calls start_month()

    def _close_confirm(self) -> None:
        """Take down the month-end confirmation (it stays up while the month closes)."""
        if isinstance(self.screen, ConfirmNextMonth):
            self.screen.dismiss(True)

    def start_month(self) -> bool:
        """Start closing the month (no confirmation); False if one is already running."""
        if self.busy or self.game.finished:
            return False
        self.busy = True
        if not isinstance(self.screen, ConfirmNextMonth):  # the dialog says "closing…"; no redraw under it
            self.changed()
        self._advance()
        return True

    @work(thread=True, exclusive=True, group="sim", exit_on_error=False)
    def _advance(self) -> None:
        try:
            report = self.game.next_month()
        except Exception as exc:  # noqa: BLE001 - report, keep the app alive
            self.call_from_thread(self._advance_failed, exc)
            return
        self.post_message(MonthAdvanced(report, self.game.last_dashboard))

    def start_autosave(self) -> None:
        """Autosave the career (``--save``/``--load``) after a month closed, with ``n`` or from
        the console, in the ``"autosave"`` worker group: the close shows its digest without
        waiting, a newer autosave cancels one not yet started (exclusive), and two never write
        at once (:meth:`_autosave_now`). A failure is told (:class:`AutosaveFailed`)."""
        if not self.career:
            return
        self._autosave_due = True  # written by finish_autosave if the worker never starts
        self._autosave_worker(self.game)

    @work(thread=True, exclusive=True, group="autosave", exit_on_error=False)
    def _autosave_worker(self, game: Game) -> None:
        note = self._autosave_now(game)
        if note:
            self.post_message(AutosaveFailed(note))

    def finish_autosave(self) -> None:
        """Write the autosave of a close now if it has not been written yet (waiting for one
        being written): before the app ends, quits or switches careers. A failure is told."""
        note = self._autosave_now(self.game)
        if note:
            self.notify(note, severity="warning", markup=False)

    def _autosave_now(self, game: Game) -> str | None:
        """Autosave ``game`` if a close is not autosaved yet and it is still the app's career
        (one at a time); ``None``, or a note saying why the autosave failed."""
        with self._autosave_lock:
            if not self._autosave_due or game is not self.game or not self.career:
                return None
            self._autosave_due = False
            try:
                self._hold_career(self.career)  # held since the start (make_app) or the load
                game.autosave(self.career, self._store())
            except Exception as exc:  # noqa: BLE001 - a failed autosave must not end the career
                return f"autosave failed: {exc}"
            return None

    @on(AutosaveFailed)
    def _autosave_failed(self, message: AutosaveFailed) -> None:
        """Say why the autosave failed: a line of the digest if the closed month's digest shows
        (no toast draws over it), else a warning toast."""
        screen = self.screen
        if isinstance(screen, DigestScreen):
            screen.add_note(message.note)
            return
        self.notify(message.note, severity="warning", markup=False)

    def _advance_failed(self, exc: Exception) -> None:
        self.busy = False
        self._close_confirm()
        self.notify(
            getattr(exc, "message", None) or str(exc), title="next month failed", severity="error", markup=False
        )
        self.refresh_view()

    @on(MonthAdvanced)
    def _month_done(self, message: MonthAdvanced) -> None:
        report = message.report
        self.busy = False
        self.months_advanced += 1
        self._close_confirm()  # in the same step as the digest's push: one redraw, not two
        finished = bool(report.get("finished")) or self.game.finished
        if not self.show_digest:
            self.refresh_view(dashboard=message.dashboard)
            self.start_autosave()
            self.freeze_new_widgets()
            if finished:
                self.show_end()
            return
        # The digest covers the lab (opaque): the header and the shown panel are updated under it
        # now (nothing is painted until the lab shows again), so closing it only repaints.
        self.refresh_view(dashboard=message.dashboard)
        self.open_digest(report, closed=partial(self._digest_closed, finished))
        self.start_autosave()  # after the lab's and the digest's reads of this month

    def _digest_closed(self, finished: bool, _: None = None) -> None:
        # The career did not change while the digest showed: the panel drawn under it stands.
        self.redraw_shown()
        self.freeze_new_widgets()
        if finished:
            self.show_end()

    def show_end(self) -> None:
        """The end screen (only once the career is over)."""
        if not self.game.finished or isinstance(self.screen, EndScreen):
            return
        self.push_screen(EndScreen(self.game, run_baseline_now=self.run_baseline))

    # ------------------------------------------------------------------ saves
    def _store(self) -> Any:
        if self.store is None:
            from saves import SaveStore

            self.store = SaveStore(self.saves_dir)
        return self.store

    def _holds(self, career: str | None) -> bool:
        """Whether this app holds the session lock of ``career`` (same ``name_key``)."""
        from saves.names import name_key

        lock = self.career_lock
        return career is not None and lock is not None and lock.held and name_key(lock.career) == name_key(career)

    def _hold_career(self, career: str) -> None:
        """Hold the session lock of ``career`` (the career this app now writes), releasing the
        one of the career it wrote before.

        Raises:
            saves.CareerLockedError: another session writes ``career``; nothing changed.
            saves.SaveError: the store cannot be written.
        """
        if self._holds(career):
            return
        lock = self._store().hold_career(career, "pibench play")
        self.release_career()
        self.career_lock = lock

    def release_career(self) -> None:
        """Let another session write this app's career (when the app ends)."""
        if self.career_lock is not None:
            self.career_lock.release()
            self.career_lock = None

    def _career_of(self, name: str) -> str:
        """The career a manual save ``name`` writes: that of an existing save ``name``, else
        ``name`` itself (as ``SaveStore.save`` decides)."""
        from saves.errors import SaveError

        try:
            return self._store().resolve(name, exact=True).career
        except SaveError:
            return name

    def action_save(self) -> None:
        """Ask for a name and save the career."""
        if isinstance(self.screen, ModalScreen):
            return
        if self.busy:
            self.notify("a month is being closed; save in a moment", severity="warning")
            return
        store = self._store()
        self.push_screen(
            SaveDialog(self._default_save_name(), str(store.path), blink=self.blink, check=self._save_conflict),
            self._save_named,
        )

    def _default_save_name(self) -> str:
        """The name the save dialog offers: the save this career came from or was last saved
        to, but never an autosave slot (``t1@m49``): then its career (``t1``)."""
        from saves.errors import SaveError
        from saves.names import check_name

        for name in (self.game.save_name, self.career, self.game.career):
            if name:
                try:
                    return check_name(name)
                except SaveError:
                    continue
        return f"{self.game.scenario_name}-{self.game.seed_text.replace('seed ', '').replace(':', '-')}"

    def _save_conflict(self, name: str) -> str | None:
        """Why ``name`` may not take this career's save (``None``: it may): an invalid name,
        or a save or career of ANOTHER career under that name or a look-alike of it
        (``saves.store.name_key``), which saving would silently overwrite."""
        from saves.errors import SaveError
        from saves.names import check_name, name_key
        from saves.store import describe_taken

        try:
            check_name(name)
            infos = self._store().list()
        except SaveError as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - unreadable store: the save itself will say
            return str(exc)
        mine = set(self.game.careers) | ({self.career} if self.career else set())
        key = name_key(name)
        careers = {
            i.career
            for i in infos
            if i.career not in mine and (name in (i.name, i.career) or key in (name_key(i.name), name_key(i.career)))
        }
        if not careers:
            return None
        what, delete = describe_taken([i for i in infos if i.career in careers])  # all their saves
        return (
            f"{name!r} already names another career ({what}). Saving would overwrite it: choose another "
            f"name, or delete its saves first with {delete}."
        )

    def _save_named(self, name: str | None, then_quit: bool = False) -> None:
        if not name:
            return
        try:
            career = self._career_of(name)
            if self._holds(career):
                info = self.game.save(name, self._store())
            else:  # a save of another career: one write, under that career's lock
                with self._store().hold_career(career, "pibench play"):
                    info = self.game.save(name, self._store())
        except Exception as exc:  # noqa: BLE001 - SaveError, OS errors: tell the player
            self.notify(str(exc), title="save failed", severity="error", markup=False, timeout=10)
            return
        self.notify(f"saved as {info.name!r} (month {info.month})", title="Saved", markup=False)
        if then_quit:
            self._exit_saved()  # the career's NAME too, when the player named another save

    def action_load(self) -> None:
        """Pick a save and resume it (replaces the current career)."""
        if self.busy:
            return
        try:
            saves = self._store().list()
        except Exception as exc:  # noqa: BLE001
            self.notify(str(exc), title="cannot read saves", severity="error", markup=False)
            return
        if not saves:
            self.notify(f"no saves in {self._store().path}", severity="warning", markup=False)
            return
        self.push_screen(LoadDialog(saves), self._load_named)

    def _load_named(self, name: str | None) -> None:
        if not name:
            return
        self.finish_autosave()  # the career played so far, before another replaces it
        try:
            world, record = self._store().load_world(name, exact=True)  # the row picked, exactly
            branch = self._store().branch_name(record.info.name)  # an older save: a new career
            self._hold_career(branch or record.info.career)  # the career this app autosaves from now on
        except Exception as exc:  # noqa: BLE001 - SaveError: the message says what is wrong
            self.notify(str(exc), title="load failed", severity="error", markup=False, timeout=10)
            return
        self.unfreeze()  # the career replaced may be collected; the one loaded is frozen once drawn
        self.game = Game(
            world,
            scenario=(record.scenario or {}).get("name"),
            save_name=record.info.name,
            career=record.info.career,
            ui=record.meta.get("ui"),
        )
        self.career = branch or record.info.career  # the resumed career keeps autosaving under its own name
        self.tutorial.display = self.game.tutorial_shown and not self.game.finished  # as the career left it
        self.console_panel.bind_game(self.game)
        self.refresh_view(everything=True)
        self.call_after_refresh(self.freeze_long_lived, collect=True)
        self.notify(f"resumed {record.info.name!r} at month {world.month}", title="Loaded", markup=False)
        if branch is not None:
            from saves.names import branch_notice

            self.notify(branch_notice(record.info.name, record.info.career, branch), markup=False, timeout=15)
        if self.game.finished:
            self.show_end()

    # ------------------------------------------------------------------ quitting
    def action_quit_game(self) -> None:
        """Quit; offer to save first when there are unsaved months (``q``: from the lab only,
        since a dialog may take the letter)."""
        if isinstance(self.screen, ModalScreen):
            return
        self._quit_safely()

    def _quit_safely(self) -> None:
        """Exit at once when nothing is unsaved (after the career's save ``NAME``,
        :meth:`_exit_saved`), else ask (on top of whatever is showing)."""
        self.finish_autosave()  # the last close's autosave, if its worker has not written it yet
        if not self.game.unsaved:
            self._exit_saved()
            return
        self._ask_quit()

    def session_end_save(self) -> Any:
        """Write the save ``NAME`` of the career this app writes (``--save``/``--load NAME``, a
        career picked in the load dialog) when it does not hold the career's state yet, as
        ``pibench headless --save NAME`` does at its end; the ``saves.SaveInfo`` written, or
        ``None`` when nothing was to write: no career, ``NAME`` already holds this state, or a
        loaded career the session did not change (a look writes nothing, docs/saves.md).

        Raises:
            saves.SaveError, OSError: the save failed (the months closed are autosaved).
        """
        name, game = self.career, self.game
        if not name or game.saved_as.get(name) == game.world.version:
            return None
        if game.loaded_version == game.world.version:
            return None
        self.finish_autosave()
        self._hold_career(name)
        return game.save(name, self._store())

    def saved_line(self, info: Any) -> str:
        """What ``pibench play`` prints after the session's save ``info`` (a ``saves.SaveInfo``),
        as headless does: ``"saved as 'lab' (month 12) in /path/saves"``."""
        return f"saved as {info.name!r} (month {info.month}) in {self._store().path}"

    def _exit_saved(self) -> None:
        """End the app once the career's save ``NAME`` holds its state (:meth:`session_end_save`).
        A failed save keeps the app open once, saying why (its closed months are autosaved); q
        again then quits without it."""
        if not self._end_save_failed:
            try:
                info = self.session_end_save()
            except Exception as exc:  # noqa: BLE001 - SaveError, OS errors: tell the player
                self._end_save_failed = True
                self.notify(
                    f"could not save {self.career!r}: {exc}. The months closed are autosaved "
                    f"(--load {self.career} resumes them); press q again to quit without this save.",
                    title="save failed",
                    severity="error",
                    markup=False,
                    timeout=15,
                )
                return
            if info is not None:
                self.saved_at_end = self.saved_line(info)
        self.exit(0)

    def action_ctrl_c(self) -> None:
        """ctrl+c: copy the selected text of a focused input; else quit safely, as on the lab
        screen, over a dialog too (a form, a confirmation, the help, the digest): at once when
        nothing is unsaved, else the unsaved-play question on top of the dialog, whose escape
        returns to the dialog as it was."""
        focused = self.focused
        if isinstance(focused, Input) and focused.selected_text:
            focused.action_copy()
            return
        self._quit_safely()

    def _ask_quit(self) -> None:
        """The unsaved-months question (on top of whatever is showing)."""
        if isinstance(self.screen, QuitDialog):
            return
        name: str | None = self._default_save_name()
        if name is not None and self._save_conflict(name):
            name = None  # another career's name: s asks for one (the save dialog says why)
        self.push_screen(
            QuitDialog(self.game.unsaved, self.game.unsaved_note(), save_as=name), partial(self._quit_answer, name)
        )

    def _quit_answer(self, save_as: str | None, what: str | None) -> None:
        """Quit, stay, or save and quit: under ``save_as`` at once (one save, then the app
        ends; a failed save keeps the app open and says why), else after asking a name."""
        if what == "quit":
            self.exit(0)
        elif what == "save" and save_as is not None:
            self._save_named(save_as, then_quit=True)
        elif what == "save":
            self.push_screen(
                SaveDialog(
                    self._default_save_name(), str(self._store().path), blink=self.blink, check=self._save_conflict
                ),
                partial(self._save_named, then_quit=True),
            )

    def on_unmount(self) -> None:
        try:
            self.console_panel.close_sandbox()
        except Exception:  # noqa: BLE001 - shutting down
            pass
        self.finish_autosave()
        self.release_career()  # the session is over (a final save after a signal takes it again)
        self.unfreeze()


def _saved_scenario(world: Any, scenario: dict[str, Any]) -> Any:
    """The scenario of a loaded save as a :class:`scenarios.Scenario` when it is a sealed
    career's (its commitment is kept: the screen withholds the seed, and later saves stay
    sealed), else its name."""
    commitment = scenario.get("seed_commitment")
    if not (isinstance(commitment, str) and commitment):
        return scenario.get("name")
    from scenarios import Scenario

    return Scenario(
        name=str(scenario.get("name") or "custom"),
        description=str(scenario.get("description") or ""),
        seed=world.seed,
        config=world.cfg,
        source="save",
        seed_commitment=commitment,
    )


def make_app(
    *,
    scenario: str | None = None,
    seed: int | None = None,
    load: str | None = None,
    saves_dir: str | None = None,
    save: str | None = None,
    world: Any = None,
    store: Any = None,
    test_mode: bool = False,
    show_digest: bool = True,
    run_baseline: bool = True,
) -> PibenchApp:
    """Build the app for a new career (scenario + seed), a save (``load``), or a given world.

    Raises:
        scenarios.ScenarioError: unknown or invalid scenario, bad seed.
        saves.SaveError: the save cannot be found or read, or (``load``/``save``) the store
            cannot be written.
        saves.CareerLockedError: (``load``/``save``) another session writes that career.
    """
    notes: list[str] = []
    if (load is not None or save is not None) and store is None:
        from saves import SaveStore

        store = SaveStore(saves_dir, on_warning=notes.append)  # shown in the app, not under it
    if world is not None:
        game = Game(world, scenario=scenario)
    elif load is not None:
        w, record = store.load_world(load)  # a damaged newest autosave: the previous one, with a note
        game = Game(
            w,
            scenario=_saved_scenario(w, record.scenario or {}),
            save_name=record.info.name,
            career=record.info.career,
            ui=record.meta.get("ui"),
        )
    else:
        from scenarios import load_scenario
        from world.engine import World

        scen = load_scenario(scenario, seed=seed)
        game = Game(World(scen.config, scen.seed), scenario=scen)
    career_lock = None
    if save is not None:  # one session per career, a valid name, a writable store, no other career under it
        resuming = store.resolve(load).career if load is not None else None
        career_lock = store.hold_session(save, "pibench play", resuming=resuming)
    elif load is not None:  # a resumed career keeps autosaving under its own name: a writable store
        store.check_usable()
        branch = store.branch_name(load)  # an older save: what is played from it is a new career
        if branch is not None:
            from saves.names import branch_notice

            career_lock = store.hold_session(branch, "pibench play")
            notes.append(branch_notice(load, str(game.career), branch))
            save = branch
        else:
            save = game.career
            career_lock = store.hold_career(save, "pibench play")
    app = PibenchApp(
        game,
        store=store,
        saves_dir=saves_dir,
        career=save,
        career_lock=career_lock,
        test_mode=test_mode,
        show_digest=show_digest,
        run_baseline=run_baseline,
    )
    for note in notes:
        app.call_later(app.notify, note, title="saves", severity="warning", markup=False, timeout=15)
    return app


def run_play(args: Any) -> int:
    """``pibench play [--scenario S] [--seed N] [--load SAVE] [--save NAME] [--saves DIR]``.

    Returns:
        The exit code: 0; 2 when ``--scenario`` or ``--load`` names no scenario or save (a
        usage error); 1 when stdin/stdout is not a terminal or the world cannot be built.
    """
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print(f"pibench play: {NOT_A_TERMINAL}", file=sys.stderr)
        return 1
    if getattr(args, "replay", None) is not None:
        from pibench_tui.tui.replay_app import run_replay

        return run_replay(args)
    try:
        app = make_app(
            scenario=getattr(args, "scenario", None),
            seed=getattr(args, "seed", None),
            load=getattr(args, "load", None),
            saves_dir=getattr(args, "saves_dir", None),
            save=getattr(args, "save", None),
        )
    except Exception as exc:  # noqa: BLE001 - ScenarioError / SaveError: their messages say what is wrong
        from saves import SaveNotFoundError
        from scenarios import ScenarioError

        if isinstance(exc, (ScenarioError, SaveNotFoundError)):  # --scenario, --load: the command line is wrong
            print(f"pibench play: error: {exc}", file=sys.stderr)
            return 2
        print(f"pibench play: {exc}", file=sys.stderr)
        return 1
    from pibench_tui.cli.interrupts import run_app_with_signals

    def final_save() -> str | None:  # after SIGTERM/SIGHUP/SIGINT, with --save NAME
        try:  # released when the app ended: a session that took the career since wins
            info = app.session_end_save()  # as at quit: nothing for a look or a NAME already current
        finally:
            app.release_career()
        return None if info is None else app.saved_line(info)

    status = run_app_with_signals(app, final_save)
    if app.saved_at_end is not None:  # quitting wrote the career's save NAME: say where, as headless does
        print(app.saved_at_end)
    return status
