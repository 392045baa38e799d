"""An :class:`~textual.widgets.Input` that applies keys in the order they were typed, even in a burst.

Textual's Input inserts a printable key as it handles the key, but its editing keys (End,
BackSpace, Delete, the arrows, enter) are bindings, run only once the key has bubbled back up
to the app: after every key queued behind it. Keys that arrive in one read (a fast typist, a
paste of keys, tmux ``send-keys``) were therefore applied out of order: in a number field
``End BackSpace BackSpace BackSpace 4 5`` typed "45" first and then erased it (QA at 80x24: the
grant form's hours left empty). :class:`TypedInput` runs its own bindings as it handles the key,
so each key acts in its turn; keys it has no binding for (tab, ctrl+o, hotkeys) go on up as before.
A form's list of ticks (:class:`~pibench_tui.tui.widgets.checklist.CheckList`) does the same
(:class:`KeysInTurn`): its space is a binding too, so ``space ctrl+o`` sent the ticks as they
were before the space.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.widgets import Input

if TYPE_CHECKING:  # pragma: no cover
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object


class KeysInTurn(_Base):
    """Mixed into a widget (first among its bases): it runs the widget's own key bindings as it
    handles the key, in typing order (module doc); keys it has no binding for go on up."""

    INSERTS_PRINTABLE: ClassVar[bool] = False
    """The widget inserts printable keys itself (an Input): they are left to it."""

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and self.INSERTS_PRINTABLE:
            return  # the widget inserts it (its own handler runs after this one)
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()  # handled: neither the widget's handler nor a binding above runs it again
                return


class TypedInput(KeysInTurn, Input):
    """An Input whose own key bindings act when the key is handled, in typing order (module doc)."""

    INSERTS_PRINTABLE = True
