"""Keys typed ahead of a screen reach it once it is ready (issue 27 §4: a fast key burst).

Textual routes a key when the app receives it: to the focused widget of the screen shown
then. In a burst (``i space down space enter`` arriving in one read) every key is routed to
the panel's table before the table has handled ``i``; ``i`` then opens the form, and the
keys after it come back up to the app while the form is current but has no focus yet (its
fields are mounted and focused a moment later): their bindings are looked up on the unready
form and they are lost. Keys that arrive while a pushed screen is not mounted yet are lost
the same way.

:class:`TypeAhead` (the play app's base) keeps such keys and types them again, in the order
they were typed, once the screen shown now is mounted and its focus placed: the keys a player
types right after ``i`` toggle the form's rows, as they would a moment later. A key typed
for a screen and handled while that screen still shows is left alone, so nothing changes for
keys typed at the speed of a hand.

A screen or a widget may name keys whose binding moves the focus (``FOCUS_KEYS``: a form's
tab and shift+tab; space, the arrows and enter on a form's closed choice, which open its list;
enter and escape in the open list, which close it). Such a key is routed, like every key, to
the widget focused when it arrives, and comes back up to the app to run its binding; the keys
typed after it in the same burst were routed to the same widget meanwhile (``tab end backspace
4`` in a form edited the field the player was leaving; ``space home enter`` on a choice sent
the form instead of picking the first option). Keys that arrive while such a key is on its way
are kept and typed again once the focus has moved, so they reach the widget it moved to.

A key typed again keeps the time it was first typed (``Key.time``, the driver's monotonic clock
as the key arrived): a screen that must not act on a key typed before it showed (the month-end
confirmation) compares that time with the time it was shown.
"""

from __future__ import annotations

import itertools
from typing import Any

from textual import events
from textual.app import App
from textual.screen import Screen

TYPED_ON = "_typed_on"
"""Attribute set on a key as the app receives it: ``(sequence number, the screen shown then)``."""

FOCUS_KEYS = "FOCUS_KEYS"
"""Attribute of a screen (class): the keys whose binding there moves the focus (module doc)."""

FOCUS_KEY_WAIT_S = 0.5
"""Seconds after which keys kept behind a focus key are typed again even if it never came
back up to the app (a widget that handled it itself): a safety net, not a delay a player meets."""

FOCUS_WAIT_TURNS = 20
"""Turns of the app's queue a focus key that has come back up to the app waits for the focus to
move (a list closing hands the focus back through a few messages) before the kept keys are
typed again anyway (a focus key that moved nothing: tab on a form's only field)."""


class TypeAhead(App[int]):
    """An app whose keys typed ahead of a screen are typed again once it is ready (module doc).

    Subclass it instead of ``App``; it overrides :meth:`on_event` and calls the next one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (typed as number, key, character, time first typed)
        self._held_keys: list[tuple[int, str, str | None, float]] = []
        self._typed_count = itertools.count()
        self._flush_on: Screen[Any] | None = None  # the screen whose queue will type the kept keys
        self._moving_focus: tuple[int, Any] | None = None  # a focus key on its way: its number, the focus then

    async def on_event(self, event: events.Event) -> None:
        """Mark each key as it arrives with the screen shown then; keep a key that comes back
        up to the app after another screen took over (or that arrives while the shown screen
        is not mounted) and type it again once that screen is ready; keep the keys that arrive
        while a key that moves the focus is on its way, and type them again once it has."""
        if isinstance(event, events.Key):
            screen = self.screen
            if not event.is_forwarded:
                number = next(self._typed_count)
                setattr(event, TYPED_ON, (number, screen))
                if not screen.is_mounted:
                    self._hold(number, event, screen)
                    return
                if self._moving_focus is not None:
                    self._keep(number, event)  # typed again once the focus has moved (_focus_moved)
                    return
                focused = screen.focused
                if event.key in getattr(screen, FOCUS_KEYS, ()) or event.key in getattr(focused, FOCUS_KEYS, ()):
                    self._moving_focus = (number, focused)
                    self.set_timer(FOCUS_KEY_WAIT_S, lambda: self._focus_moved(number, screen, 0))
            else:
                typed: tuple[int, Screen[Any]] | None = getattr(event, TYPED_ON, None)
                if typed is not None and typed[1] is not screen:
                    event.stop()
                    self._hold(typed[0], event, screen)
                    self._focus_moved(typed[0], screen, 0)
                    return
                if typed is not None and self._moving_focus is not None and typed[0] == self._moving_focus[0]:
                    await super().on_event(event)  # its binding asks for the focus (on the app's queue)
                    self._focus_moved(typed[0], screen)
                    return
        await super().on_event(event)

    def _focus_moved(self, number: int, screen: Screen[Any], turns: int = FOCUS_WAIT_TURNS) -> None:
        """The focus key typed ``number``-th has come back up to the app and run its binding:
        once the focus has moved (or after ``turns`` more turns of the app's queue, or another
        screen shows), type the keys kept behind it again."""
        moving = self._moving_focus
        if moving is None or moving[0] != number:
            return
        if turns > 0 and self.screen is screen and screen.focused is moving[1]:
            self.call_later(self._focus_moved, number, screen, turns - 1)
            return
        self._moving_focus = None
        if self._held_keys and self._flush_on is None:
            self.call_later(self._type_held_keys, self.screen)

    def _hold(self, number: int, event: events.Key, screen: Screen[Any]) -> None:
        """Keep ``event`` (typed ``number``-th) until ``screen`` has handled what it has queued:
        its mount (which asks for its focus) comes first."""
        self._keep(number, event)
        if self._flush_on is not screen:
            self._flush_on = screen
            screen.call_later(self._type_held_keys, screen)

    def _keep(self, number: int, event: events.Key) -> None:
        """Keep ``event`` (typed ``number``-th) with the time it was first typed, to type it again."""
        self._held_keys.append((number, event.key, event.character, event.time))

    def _type_held_keys(self, screen: Screen[Any]) -> None:
        """Type the kept keys again, in the order they were first typed, as new keys of the app
        (after the focus the screen's mount asked for: both are queued on the app in order),
        each with the time it was first typed."""
        if self._flush_on is screen:
            self._flush_on = None
        held, self._held_keys = sorted(self._held_keys, key=lambda k: k[0]), []
        for _, key, character, typed_at in held:
            again = events.Key(key, character)
            again.time = typed_at  # when the player typed it, not when it is typed again
            again.set_sender(self)  # as the driver sends a key (one posted by the screen would be its own)
            self.post_message(again)
