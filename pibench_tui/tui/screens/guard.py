"""Dialogs that answer an irreversible question only with keys typed after they were drawn."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual import events
from textual._time import get_time
from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class GuardedDialog(ModalScreen[ResultType]):
    """A dialog whose answering keys (:attr:`GUARDED_KEYS`) count only when typed after it was
    drawn: a key typed before (a fast burst such as ``n enter``, keys queued while the app was
    busy, or kept by :class:`~pibench_tui.tui.typeahead.TypeAhead`, which keeps the time a key
    was first typed) is dropped, and :meth:`early_key_ignored` tells the player. Closing a
    month, sending an offer, dismissing someone and stopping a project cannot be undone.

    Attributes:
        shown_at: when the dialog was last drawn (``Key.time``'s clock), ``None`` while it is
            not showing or not yet drawn.
    """

    GUARDED_KEYS: ClassVar[tuple[str, ...]] = ()

    shown_at: float | None = None

    def on_screen_resume(self) -> None:
        """Shown (again): keys count from the refresh that draws it."""
        self.shown_at = None
        self.call_after_refresh(self._drawn)

    def on_screen_suspend(self) -> None:
        self.shown_at = None

    def _drawn(self) -> None:
        if self.is_current:
            self.shown_at = get_time()

    def on_key(self, event: events.Key) -> None:
        """Drop a guarded key typed before the dialog was drawn (class doc)."""
        if event.key not in self.GUARDED_KEYS or not self.answering():
            return
        if self.shown_at is None or event.time < self.shown_at:
            event.stop()
            event.prevent_default()
            self.early_key_ignored()

    def answering(self) -> bool:
        """Whether the guarded keys still answer the dialog (``False``: it is already acting)."""
        return True

    def early_key_ignored(self) -> None:  # pragma: no cover - overridden
        """Tell the player a key typed before the dialog showed was ignored."""
