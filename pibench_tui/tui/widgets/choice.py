"""A form's single choice: a :class:`~textual.widgets.Select` on which enter goes on with the form.

Textual's Select opens its list on enter, as on space and the arrows, so enter in a form's
choice never sent the form while enter in a number field or a list did. Here enter on the
closed choice posts :class:`Choice.Submitted` (the form decides: send, or go to a field still
empty); with nothing chosen yet it opens the list, there being nothing to go on with. Space,
up and down still open the list, and inside the opened list enter picks the highlighted option
(the list has the focus then, and its own enter).

The blank ("choose (N options)") is never an option to move to: a choice that starts with a
value has none (``allow_blank=False``), and one that starts blank keeps it as a disabled first
row, which the arrow keys, Home/End and the mouse skip, so a value once chosen is never lost
to a keystroke (QA at 80x24: ↓ on the last call wrapped to the blank and the form refused
"Call: choose one"). The arrows stop at the first and the last option instead of wrapping.
"""

from __future__ import annotations

from typing import Any

from textual import _widget_navigation
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Select
from textual.widgets._select import SelectCurrent, SelectOverlay


class ChoiceList(SelectOverlay):
    """The opened list of a :class:`Choice`: the arrows stop at either end (no wrap)."""

    FOCUS_KEYS = ("enter", "escape")
    """Keys that close the list and hand the focus back to the choice: keys typed after one in
    a burst wait for it (:class:`~pibench_tui.tui.typeahead.TypeAhead`)."""

    def action_cursor_up(self) -> None:
        """Move the highlight to the previous enabled option; stay on the first."""
        self._step(-1)

    def action_cursor_down(self) -> None:
        """Move the highlight to the next enabled option; stay on the last."""
        self._step(1)

    def _step(self, direction: _widget_navigation.Direction) -> None:
        if self.highlighted is None:
            self.action_first() if direction > 0 else self.action_last()
            return
        step = _widget_navigation.find_next_enabled_no_wrap(self.options, anchor=self.highlighted, direction=direction)
        if step is not None:  # None: no enabled option that way (the end, or only the disabled blank)
            self.highlighted = step


class Choice(Select[Any]):
    """A :class:`Select` whose enter (list closed) posts :class:`Submitted`, whose blank cannot
    be chosen back (module docstring).

    ``options`` and ``value`` as for :class:`Select`; ``allow_blank`` is decided here: only a
    choice with no value yet has the blank (its prompt shows until one is chosen).
    """

    BINDINGS = [Binding("enter", "submit", "Send", id="choice-send", show=False)]
    FOCUS_KEYS = ("enter", "space", "up", "down")
    """Keys that open the list (its focus) or go on with the form: keys typed after one in a
    burst wait for it (:class:`~pibench_tui.tui.typeahead.TypeAhead`)."""

    class Submitted(Message):
        """Enter was pressed on the closed choice with an option chosen: the form should go on."""

    def __init__(self, options: Any, *, value: Any = Select.NULL, **kwargs: Any) -> None:
        options = list(options)
        kwargs["allow_blank"] = value is Select.NULL or not options
        super().__init__(options, value=value, **kwargs)

    def compose(self) -> ComposeResult:
        yield SelectCurrent(self.prompt)
        yield ChoiceList(type_to_search=self._type_to_search).data_bind(compact=Select.compact)

    def _setup_options_renderables(self) -> None:
        super()._setup_options_renderables()
        if self._allow_blank and len(self._options) > 1:
            self.query_one(SelectOverlay).disable_option_at_index(0)  # the blank: shown, never picked

    def set_options(self, options: Any) -> None:
        """Replace the options (``Select.set_options``): the first is chosen, or the blank
        shows when there is none (``nothing to choose``)."""
        options = list(options)
        self._allow_blank = not options
        super().set_options(options)

    def action_submit(self) -> None:
        """Ask the form to go on, or open the list when nothing is chosen yet."""
        if self.is_blank():
            self.action_show_overlay()
        else:
            self.post_message(self.Submitted())


__all__ = ["Choice"]
