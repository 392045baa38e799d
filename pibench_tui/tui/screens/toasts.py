"""Toasts wait under a dialog: none draws over a form, a confirmation or the digest."""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets._toast import ToastRack


def keep_toasts_under(screen: Screen) -> None:
    """Remove ``screen``'s toast rack (call it from ``on_mount``): notifications posted while
    the screen shows wait under it and show again on the screen below when it closes, if their
    time is not up. A refusal the screen must show is written in the screen itself (a form's
    problems line, the digest's first line), never only in a toast. No rack (notifications off,
    as in most tests): nothing to do."""
    try:
        screen.get_child_by_type(ToastRack).remove()
    except NoMatches:
        pass
