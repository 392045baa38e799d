"""One-line bars that keep the lines they drew, one set per state shown: the tab bar and the
key line.

A tab switch changes what both bars show (the shown panel's title highlighted; the panel's
keys), and each drew its line afresh: Rich text turned into Textual content, styled, cut into
segments and filtered, the two bars about a fifth of a tab switch (bench/tui.py at month
40). A panel shown again shows lines the bars drew before. A
:class:`KeptLines` bar keeps the lines it drew for each state (:meth:`KeptLines.line_state`,
with its size and the part of it drawn), up to :attr:`KeptLines.KEPT` states, and draws a
state drawn before from them. Text the player selects with the mouse is part of the state.

Besides its state, a bar's lines are drawn from its styles (its own, its parts', the
backgrounds of what is under it) and the app's colour filters. Any change to the styles
restyles the bar (a new theme, a CSS class set on the app or a screen, ``:hover``), and a
restyle forgets every line kept (:meth:`KeptLines.notify_style_update`); the filters in use
are part of the state.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Self

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class KeptLines(Widget):
    """A widget that keeps the lines it drew for each :meth:`line_state` (module docstring).

    A subclass names its state, and refreshes whenever it changes (as any widget repaints when
    what it shows changes): the kept lines are looked up when the widget is drawn."""

    KEPT = 16
    """States kept at most (all are forgotten when one more comes: a bar has about one a panel)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._kept: dict[Hashable, tuple[list[Strip], object]] = {}
        self._asked = False  # refreshed since last drawn

    def line_state(self) -> Hashable:  # pragma: no cover - overridden
        """What the line shows, besides the widget's size and styles (the subclass's)."""
        raise NotImplementedError

    def drawn_with(self) -> object:
        """What drawing the line set besides the lines (kept with them, given back by
        :meth:`drawn_from_kept`): nothing here."""
        return None

    def drawn_from_kept(self, drawn_with: object) -> None:
        """The line was asked to be drawn again (a refresh) and was taken from kept lines;
        ``drawn_with`` is what :meth:`drawn_with` gave when they were drawn."""

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        """Widget's refresh; a repaint asks for the line to be drawn again (from kept lines if
        its state was drawn before)."""
        if repaint:
            self._asked = True
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        """Restyled: the kept lines may no longer be what the widget draws."""
        self._kept.clear()
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of this state, text selected, size and crop as drawn before (through the
        same colour filters), else drawn and kept."""
        key = (self.line_state(), self.text_selection, crop, self.size, tuple(self.get_line_filters()))
        kept = self._kept.get(key)
        asked, self._asked = self._asked, False
        if kept is None:
            lines = super().render_lines(crop)
            if len(self._kept) >= self.KEPT:
                self._kept.clear()
            self._kept[key] = (lines, self.drawn_with())
            return lines
        lines, drawn_with = kept
        if asked:
            self.drawn_from_kept(drawn_with)
        return lines


__all__ = ["KeptLines"]
