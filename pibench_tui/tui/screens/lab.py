"""The main screen under every dialog: the header, the panels and the key footer."""

from __future__ import annotations

from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget


class LabScreen(Screen):
    """The app's default screen (:meth:`LabApp.get_default_screen`).

    A change of focus repaints the widgets it changes (the one that lost it, the one that got
    it, and what the stylesheet restyles for ``:focus`` and ``:focus-within``), not the whole
    screen: Textual's :class:`~textual.screen.Screen` repaints everything on it when the focus
    moves, so a tab switch, which focuses the shown panel's table, painted the screen twice.
    Re-measured with the one-line tab bar (70 switches to unchanged panels at month 40, with
    and without this, alternating): median 17-21 ms with it, 20-31 ms without.
    """

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """The focused widget (set it with :meth:`set_focus`, as on any screen)."""
