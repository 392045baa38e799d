"""A multi-choice list whose ticked options show an ``X`` and unticked ones a blank box.

Textual's :class:`~textual.widgets.SelectionList` draws the same ``X`` in every box and
tells them apart by colour only; this one is readable without colour (monochrome
terminals, colour-blind players, screen captures).
"""

from __future__ import annotations

from rich.segment import Segment
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip
from textual.widgets import OptionList, SelectionList
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist

from pibench_tui.tui.widgets.typed_input import KeysInTurn

CHECKED, UNCHECKED = "X", " "
"""What the box holds for a ticked / an unticked option."""


class CheckList(KeysInTurn, SelectionList):
    """A :class:`SelectionList` whose boxes show the ticked state as a glyph, not only a colour.

    Space toggles the highlighted option; enter goes on with the form (it posts
    :class:`Submitted`), as in every other field of a form (``ActionForm``: it sends, or goes to
    a required field still empty). Space toggles the option highlighted when it was
    pressed, also in a fast burst of keys (``space down space`` ticks two rows), and its keys
    act in the order typed, before a ctrl+o typed after them (:class:`KeysInTurn`).
    """

    BINDINGS = [Binding("enter", "submit", "Send", id="checklist-send", show=False)]

    class Submitted(Message):
        """Enter was pressed in the list: the form should be sent."""

    def action_submit(self) -> None:
        """Ask the form to send itself."""
        self.post_message(self.Submitted())

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Toggle the option space was pressed on. Textual's list toggles the one highlighted
        when this message is handled: after ``space down`` typed in one burst, that is already
        the next row, so ``space down space`` ticked the first row and then unticked it."""
        event.stop()
        event.prevent_default()  # Textual's own handler (the highlighted row) does not run
        self.toggle(event.option)  # a SelectionList's options are its Selections

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip  # not a line with a box (e.g. a wrapped prompt's second line)
        box = segments[1]
        segments[1] = Segment(CHECKED if option.value in self.selected else UNCHECKED, box.style, box.control)
        return Strip(segments, strip.cell_length)
