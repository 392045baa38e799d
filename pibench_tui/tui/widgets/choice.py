"""A form's single choice: a :class:`~textual.widgets.Select` on which enter goes on with the form.

Textual's Select opens its list on enter, as on space and the arrows, so enter in a form's
choice never sent the form while enter in a number field or a list did. Here enter on the
closed choice posts :class:`Choice.Submitted` (the form decides: send, or go to a field still
empty); with nothing chosen yet it opens the list, there being nothing to go on with. Space,
up and down still open the list, and inside the opened list enter picks the highlighted option
(the list has the focus then, and its own enter).
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Select


class Choice(Select[Any]):
    """A :class:`Select` whose enter (list closed) posts :class:`Submitted` (module docstring)."""

    BINDINGS = [Binding("enter", "submit", "Send", id="choice-send", show=False)]

    class Submitted(Message):
        """Enter was pressed on the closed choice with an option chosen: the form should go on."""

    def action_submit(self) -> None:
        """Ask the form to go on, or open the list when nothing is chosen yet."""
        if self.is_blank():
            self.action_show_overlay()
        else:
            self.post_message(self.Submitted())


__all__ = ["Choice"]
